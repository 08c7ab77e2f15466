"""The mask inside the observation (yacht_env.mask_observation): a Dict observation for single and vector envs that
Gymnasium's checker accepts, whose mask is the environment's, and whose ended games show an all-0 row."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import yacht_env  # noqa: F401
from yacht_env.mask_observation import ActionMaskObservation, VectorActionMaskObservation


def test_the_single_env_carries_its_mask() -> None:
    """(Gymnasium's checker on it: tests/test_api_contract.py.)"""
    env = ActionMaskObservation(gym.make("Yahtzee-v1"))
    obs, info = env.reset(seed=4)
    assert env.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        np.testing.assert_array_equal(obs["action_mask"], env.unwrapped.action_masks().astype(np.int8))
        obs, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert env.observation_space.contains(obs)
    assert not obs["action_mask"].any()  # a game that is over has no legal action
    assert gym.envs.registration.EnvSpec.from_json(env.spec.to_json()).make().observation_space == env.observation_space


@pytest.mark.parametrize("mode", ["vector_entry_point", "sync"])
def test_vector_envs_carry_the_mask_and_an_ended_game_shows_an_empty_row(mode: str) -> None:
    envs = VectorActionMaskObservation(gym.make_vec("Yacht-v0", num_envs=3, vectorization_mode=mode))
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(120):
        assert envs.observation_space.contains(obs)
        mask = obs["action_mask"].astype(bool)
        empty = ~mask.any(-1)
        mask[empty] = True  # the documented pattern: an ended game's action is ignored
        obs, _, terminated, truncated, _ = envs.step(np.argmax(rng.random(mask.shape) * mask, axis=1))
        done = terminated | truncated
        ended += int(done.sum())
        assert not obs["action_mask"][done].any()
    assert ended >= 3


def test_tianshous_keys_and_bad_keys() -> None:
    env = ActionMaskObservation(gym.make("Yacht-v0"), keys=("obs", "mask"))
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"obs", "mask"} and env.observation_space.contains(obs)
    for bad in [("obs",), ("a", "a"), ("", "m"), "obs"]:
        with pytest.raises(ValueError, match="keys must be two different non-empty strings"):
            ActionMaskObservation(gym.make("Yacht-v0"), keys=bad)  # type: ignore[arg-type]
