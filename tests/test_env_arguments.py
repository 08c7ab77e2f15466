"""Arguments of the environments checked at once: reset options, max_steps."""

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


@pytest.mark.parametrize("max_steps", [10**30, 2**31, 35, 0, -1, True, 100.0, "100", None])
def test_max_steps_must_be_an_int_in_range(max_steps: Any) -> None:
    import gymnasium as gym

    match = r"max_steps must be an int in 36\.\.2147483647"
    with pytest.raises(ValueError, match=match):
        YachtEnv("yacht", max_steps=max_steps)
    with pytest.raises(ValueError, match=match):
        YachtVectorEnv(2, rules="yacht", max_steps=max_steps)
    with pytest.raises(ValueError, match=match):
        gym.make("Yacht-v0", max_steps=max_steps)


def test_the_largest_max_steps_works() -> None:
    env = YachtEnv("yacht", max_steps=2**31 - 1)
    env.reset(seed=0)
    assert env.step(0)[3] is False
    vec = YachtVectorEnv(2, rules="yacht", max_steps=np.int64(2**31 - 1))
    vec.reset(seed=0)
    assert not vec.step(np.zeros(2, dtype=np.int64))[3].any()
