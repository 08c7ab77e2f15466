"""The reach objective in the environments: ``gym.make(id, objective="reach", target=T)``."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import yacht_env  # noqa: F401 - registers the ids
from yacht_env import observation as O
from yacht_env.objective import max_final_score
from yacht_env.rules import get_rules
from yacht_env.vector.env import YachtVectorEnv


def _play(env: gym.Env, seed: int) -> tuple[list[float], list[np.ndarray], int]:
    """A game of seeded random legal actions: its rewards, observations and final score."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    rewards, seen = [], [obs]
    done = False
    while not done:
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        rewards.append(float(r))
        seen.append(obs)
        done = term or trunc
    return rewards, seen, info["final_score"]


@pytest.mark.parametrize("env_id, rules", [("Yacht-v0", "yacht"), ("Yahtzee-v1", "yahtzee")])
def test_reach_reward_and_need_column(env_id: str, rules: str) -> None:
    scale = max_final_score(get_rules(rules)) + 1
    for seed in range(6):
        points = gym.make(env_id)
        reach = gym.make(env_id, objective="reach", target=60)
        assert reach.observation_space.shape == (O.size(get_rules(rules)) + 1,)
        r_points, _, final = _play(points, seed)
        r_reach, seen, final2 = _play(reach, seed)
        needs = [o[-1] for o in seen]
        assert all(reach.observation_space.contains(o) for o in seen)
        assert final == final2 == sum(r_points)
        assert r_reach[:-1] == [0.0] * (len(r_reach) - 1) and r_reach[-1] == float(final >= 60)
        totals = np.concatenate([[0.0], np.cumsum(r_points)])
        np.testing.assert_allclose(needs, np.clip(60 - totals, 0, scale) / scale, atol=1e-7)


def test_points_objective_is_the_default_environment() -> None:
    a, b = gym.make("Yacht-v0"), gym.make("Yacht-v0", objective="points")
    oa, _ = a.reset(seed=3)
    ob, _ = b.reset(seed=3)
    assert a.observation_space == b.observation_space and np.array_equal(oa, ob)


def test_reach_from_a_given_state_counts_its_score() -> None:
    env = gym.make("Yacht-v0", objective="reach", target=100)
    obs, _ = env.reset(seed=0, options={"state": "yacht | dice 1 2 3 4 5 | rolls 2 | filled sixes=30,choice=25"})
    scale = max_final_score(get_rules("yacht")) + 1
    assert abs(obs[-1] - 45 / scale) < 1e-7
    assert env.observation_space.contains(obs)


def test_vector_env_matches_the_single_env() -> None:
    n = 4
    venv = YachtVectorEnv(n, "knizia", objective="reach", target=150, autoreset_mode="same_step")
    singles = [gym.make("KniziaYacht-v0", objective="reach", target=150) for _ in range(n)]
    obs, info = venv.reset(seed=10)
    sobs = [s.reset(seed=10 + i)[0] for i, s in enumerate(singles)]
    np.testing.assert_array_equal(obs, np.stack(sobs))
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(200):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, rew, term, trunc, info = venv.step(acts)
        for i, s in enumerate(singles):
            o, r, t, tr, _ = s.step(int(acts[i]))
            assert r == rew[i] and t == term[i]
            if t or tr:
                ended += 1
                np.testing.assert_array_equal(info["final_obs"][i], o)
                o, _ = s.reset()
            np.testing.assert_array_equal(obs[i], o)
    assert ended > 0


@pytest.mark.parametrize("kwargs, words", [
    ({"objective": "win"}, "'points', 'reach'"),
    ({"objective": "reach"}, "target=T"),
    ({"objective": "reach", "target": -1}, "non-negative"),
    ({"target": 100}, "objective='reach'"),
])
def test_bad_objectives_are_refused(kwargs: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        gym.make("Yacht-v0", **kwargs)
    with pytest.raises(ValueError, match=words):
        YachtVectorEnv(2, "yacht", **kwargs)
