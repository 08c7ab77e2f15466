"""Arguments of the environments checked at once: reset options, the time limit."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from yacht_env.env import YachtEnv
from yacht_env.vector.env import YachtVectorEnv


@pytest.mark.parametrize("options", ["x", 5, ["state"], ("state", "x")])
def test_reset_options_must_be_a_dict(options: Any) -> None:
    from yacht_env.multiplayer.env import raw_env

    with pytest.raises(ValueError, match=r"options must be None or a dict \(key 'state'"):
        YachtEnv().reset(options=options)
    with pytest.raises(ValueError, match=r"YachtVectorEnv.reset takes options None, \{\} or \{'reset_mask'"):
        YachtVectorEnv(2).reset(options=options)
    with pytest.raises(ValueError, match=r"options must be None or a dict \(key 'states'"):
        raw_env(num_players=2).reset(options=options)
    YachtEnv().reset(options={})
    YachtVectorEnv(2).reset(options={})


@pytest.mark.parametrize("limit", [10**30, 2**31, 0, -1, True, 100.0, "100"])
def test_the_vector_time_limit_must_be_an_int_in_range(limit: Any) -> None:
    import gymnasium as gym

    match = r"max_episode_steps must be None or an int in 1\.\.2147483647"
    with pytest.raises(ValueError, match=match):
        YachtVectorEnv(2, rules="yacht", max_episode_steps=limit)
    with pytest.raises(ValueError, match=match):
        gym.make_vec("Yacht-v0", num_envs=2, max_episode_steps=limit)


def test_one_truncation_the_old_max_steps_is_gone() -> None:
    """``max_steps`` (a second truncation beside ``TimeLimit``) is no argument any more: passing it fails at once."""
    with pytest.raises(TypeError, match="max_steps"):
        YachtEnv("yacht", max_steps=100)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="max_steps"):
        YachtVectorEnv(2, max_steps=100)  # type: ignore[call-arg]


def test_the_largest_time_limit_works() -> None:
    vec = YachtVectorEnv(2, rules="yacht", max_episode_steps=np.int64(2**31 - 1))
    vec.reset(seed=0)
    assert not vec.step(np.zeros(2, dtype=np.int64))[3].any()
