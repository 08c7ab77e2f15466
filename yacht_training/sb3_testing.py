"""The stable-baselines3 part of the API contract (:mod:`yacht_env.testing` holds the rest; it never imports torch,
which SB3 does): SB3's own ``check_env`` on a one-game environment, and the contract of an SB3 ``VecEnv`` that
MaskablePPO trains on (:class:`~yacht_training.sb3_vec_env.YachtSB3VecEnv`,
:class:`~yacht_training.heads_up.HeadsUpVecEnv`, or one's own).

The ``VecEnv`` contract: ``reset`` gives ``(N, D)`` observations in the space; ``action_masks()`` is ``(N, A)`` bool
with an action in every game, and what MaskablePPO reads (``has_attr("action_masks")``, the stacked
``env_method("action_masks")``) is the same array; ``step`` of legal actions gives float32 rewards and bool dones,
one info dict a game; an ended game's info holds ``terminal_observation`` (in the space) and
``TimeLimit.truncated`` False, and its returned observation is the next game's (SB3 resets at once); ``step_wait``
without ``step_async`` raises ``RuntimeError``; the same ``seed`` gives the same run. Each check raises
:class:`~yacht_env.testing.ContractError` naming what broke.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from yacht_env.testing import ContractError

__all__ = ["check_sb3_env", "check_sb3_vec_env"]


def _require(ok: object, what: str) -> None:
    if not ok:
        raise ContractError(what)


def check_sb3_env(make: Callable[[], gym.Env]) -> None:
    """stable-baselines3's ``check_env`` on the environment ``make()`` builds, every warning an error."""
    from stable_baselines3.common.env_checker import check_env

    env = make()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env, warn=True)
    finally:
        env.close()


def check_sb3_vec_env(make: Callable[[], VecEnv], *, steps: int = 120, seed: int = 7) -> None:
    """Check the SB3 ``VecEnv`` that ``make()`` builds (a fresh one each call) against the contract of the module
    docstring: ``steps`` steps of random legal actions after ``seed(seed)``, twice."""
    runs = [_run(make(), steps, seed) for _ in range(2)]
    _require(np.array_equal(runs[0], runs[1]), f"two runs after seed({seed}) differ")


def _run(env: VecEnv, steps: int, seed: int) -> np.ndarray:
    """The observations of ``steps`` steps of random legal actions; each step and each game's end checked."""
    n = env.num_envs
    try:
        try:
            env.step_wait()
        except RuntimeError:
            pass
        else:
            raise ContractError("step_wait() without step_async() did not raise RuntimeError")
        env.seed(seed)
        obs = env.reset()
        pick = np.random.default_rng(seed)
        seen, ends = [np.array(obs, copy=True)], 0
        for step in range(steps):
            _require(isinstance(obs, np.ndarray) and obs.shape == (n, *env.observation_space.shape)
                     and all(env.observation_space.contains(o) for o in obs),
                     f"step {step}: the observations are not (N, D) in the observation space")
            masks = _masks(env, step)
            actions = np.array([pick.choice(np.flatnonzero(m)) for m in masks])
            obs, rewards, dones, infos = env.step(actions)
            _require(rewards.dtype == np.float32 and rewards.shape == (n,) and np.isfinite(rewards).all(),
                     f"step {step}: the rewards are not (N,) finite float32")
            _require(dones.dtype == np.bool_ and dones.shape == (n,), f"step {step}: the dones are not (N,) bool")
            _require(isinstance(infos, (list, tuple)) and len(infos) == n and all(isinstance(i, dict) for i in infos),
                     f"step {step}: the infos are not one dict a game")
            for i in np.flatnonzero(dones).tolist():
                _ended(env, infos[i], step, i)
            ends += int(dones.sum())
            seen.append(np.array(obs, copy=True))
    finally:
        env.close()
    _require(ends > 0, f"no game ended in {steps} steps, so no end was checked: give more steps")
    return np.stack(seen)


def _masks(env: VecEnv, step: int) -> np.ndarray:
    """The masks, checked against what MaskablePPO reads (``sb3_contrib.common.maskable.utils``)."""
    masks = env.action_masks() if hasattr(env, "action_masks") else None
    _require(isinstance(masks, np.ndarray) and masks.dtype == np.bool_
             and masks.shape == (env.num_envs, env.action_space.n),  # type: ignore[attr-defined]
             f"step {step}: action_masks() is not an (N, A) bool array")
    assert masks is not None
    _require(env.has_attr("action_masks"), "has_attr('action_masks') is False: MaskablePPO would train unmasked")
    _require(np.array_equal(np.stack(env.env_method("action_masks")), masks),
             f"step {step}: the stacked env_method('action_masks') differs from action_masks()")
    _require(masks.any(axis=1).all(), f"step {step}: a game's mask offers no action (SB3 resets ended games at once)")
    return masks


def _ended(env: VecEnv, info: dict[str, Any], step: int, i: int) -> None:
    where = f"step {step}, game {i}"
    _require("terminal_observation" in info, f"{where}: an ended game's info has no 'terminal_observation'")
    _require(env.observation_space.contains(np.asarray(info["terminal_observation"])),
             f"{where}: the terminal observation is not in the observation space")
    _require(info.get("TimeLimit.truncated") is False, f"{where}: a game of legal actions ended truncated")
