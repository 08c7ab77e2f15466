"""The registered ids keep Gymnasium's conventions: fixed rules, the longest legal game as ``max_episode_steps``,
``render()`` without a render mode warns and returns None."""

from __future__ import annotations

import dataclasses

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers import TimeAwareObservation

import yacht_env
from yacht_env.env import YachtEnv
from yacht_env.rules import RULESETS, YACHT, YAHTZEE
from yacht_env.state import longest_game
from yacht_env.vector import YachtVectorEnv


@pytest.mark.parametrize("other", ["yahtzee", YAHTZEE])
def test_an_ids_rules_are_fixed(other: object) -> None:
    with pytest.raises(ValueError, match=r"Yacht-v0 plays the 'yacht' rules.*gym\.make\('Yahtzee-v1'\)"):
        gym.make("Yacht-v0", rules=other)
    with pytest.raises(ValueError, match=r"Yacht-v0 plays the 'yacht' rules.*gym\.make\('Yahtzee-v1'\)"):
        gym.make_vec("Yacht-v0", 2, vectorization_mode="vector_entry_point", rules=other)


def test_rules_without_an_id_name_the_classes_to_make() -> None:
    variant = dataclasses.replace(YACHT, name="yacht-variant", env_id="", _ids={})
    with pytest.raises(ValueError, match=r"YachtEnv\(rules=\.\.\.\)"):
        gym.make("Yacht-v0", rules=variant)


@pytest.mark.parametrize("rules", ["yacht", YACHT])
def test_an_ids_own_rules_are_accepted(rules: object) -> None:
    env = gym.make("Yacht-v0", rules=rules)
    assert env.unwrapped.rules is YACHT
    vec = gym.make_vec("Yacht-v0", 2, vectorization_mode="vector_entry_point", rules=rules)
    assert vec.unwrapped.rules is YACHT


@pytest.mark.parametrize("name", sorted(yacht_env.ENV_IDS))
def test_max_episode_steps_is_the_longest_legal_game(name: str) -> None:
    env_id = yacht_env.ENV_IDS[name]
    assert gym.spec(env_id).max_episode_steps == longest_game(name) == 3 * RULESETS[name].num_categories
    vec = gym.make_vec(env_id, 2, vectorization_mode="vector_entry_point")
    assert vec.unwrapped.max_episode_steps == longest_game(name)


def test_time_aware_observation_works_on_gym_make() -> None:
    """Every turn rerolls twice: the longest legal game, which ends on the last step the limit allows (both flags,
    as gymnasium's TimeLimit sets them); the time fed to the agent runs from 0 to 1."""
    env = TimeAwareObservation(gym.make("Yacht-v0"), normalize_time=True)
    obs, info = env.reset(seed=0)
    assert obs[-1] == 0.0
    steps, done = 0, False
    while not done:
        mask = info["action_mask"].astype(bool)
        keeps = np.flatnonzero(mask[:32])
        action = int(keeps[0]) if keeps.size else 32 + int(np.flatnonzero(mask[32:])[0])
        obs, _, terminated, truncated, info = env.step(action)
        steps += 1
        done = terminated or truncated
        assert obs[-1] == pytest.approx(steps / longest_game("yacht"))
        assert truncated == (steps == longest_game("yacht"))
    assert terminated and steps == longest_game("yacht")


def test_render_without_a_render_mode_warns_and_returns_none() -> None:
    env = YachtEnv("yacht")
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="without a render_mode.*'ansi'"):
        assert env.render() is None
    vec = YachtVectorEnv(2)
    vec.reset(seed=0)
    with pytest.warns(UserWarning, match="without a render_mode.*'ansi'"):
        assert vec.render() is None
    text = YachtEnv("yacht", render_mode="ansi")
    text.reset(seed=0)
    assert "Dice:" in text.render()


@pytest.mark.parametrize("env_id", sorted(yacht_env.ENV_IDS.values()))
def test_every_spec_round_trips_through_json(env_id: str) -> None:
    """EnvSpec.to_json / from_json (entry points as strings): the spec read back is the same and makes the env."""
    from gymnasium.envs.registration import EnvSpec

    spec = gym.spec(env_id)
    again = EnvSpec.from_json(spec.to_json())
    assert again == spec
    env = gym.make(again)
    assert env.unwrapped.rules.env_id == env_id
