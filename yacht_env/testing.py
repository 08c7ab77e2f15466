"""The API contract of the project's environments, as functions a user runs on an environment of their own (a wrapper,
registered rules, another engine), in the spirit of PettingZoo's ``api_test``.

- :func:`check_env`: a one-game Gymnasium environment. Observations lie in the observation space; the mask
  (``info["action_mask"]``, or ``obs["action_mask"]`` for a dict observation) offers an action until the game ends
  and the action taken from it is played as legal; a game played so ends terminated, never truncated; the same seed
  gives the same game, step for step, another seed another; ``step`` before ``reset`` and after the end raises
  ``RuntimeError`` saying to call ``reset()`` (the documented behaviour); Gymnasium's own ``check_env`` passes.
- :func:`check_vector_env`: a Gymnasium vector environment of our vector engine's kind. Seeded batches repeat,
  observations lie in the space, the masks (``env.unwrapped.action_masks()``) offer an action in every running game,
  and a game that ends goes on as its ``autoreset_mode`` documents (``NEXT_STEP``: the next step starts the next game
  whatever the action; ``SAME_STEP``: the step that ends it returns the next game's observation and
  ``info["final_obs"]``; ``DISABLED``: stepping it raises ``RuntimeError``).
- :func:`check_multiplayer_env`: a PettingZoo AEC environment, through PettingZoo's ``api_test`` and ``seed_test``.

Each raises :class:`ContractError` (an ``AssertionError``) naming what broke, so that a test of one's own is
``check_env(lambda: MyWrapper(gym.make("Yacht-v0")))``. The checks of stable-baselines3 (its ``check_env`` and the
SB3 ``VecEnv`` contract) import torch, which this package never does: they are in :mod:`yacht_training.sb3_testing`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

__all__ = ["ContractError", "check_env", "check_multiplayer_env", "check_vector_env"]

MAX_GAME_STEPS = 10_000
"""A game of random legal actions that has not ended after this many steps breaks the contract (Yacht's end after
three decisions a box at most)."""
DICT_OBS_WARNINGS = ("Observation is not a NumPy array",
                     "Observation space for each agent probably should be gymnasium.spaces.box")
"""PettingZoo's ``api_test`` warns about every dict observation unless the environment is one of its own classic
games (it checks the name against a list); the dict with ``"action_mask"`` is the PettingZoo way all the same."""


class ContractError(AssertionError):
    """An environment does not keep the API contract; the message says which part."""


def _require(ok: object, what: str) -> None:
    if not ok:
        raise ContractError(what)


def _mask_of(obs: Any, info: dict[str, Any]) -> np.ndarray:
    """The legal-action mask of a one-game step: in a dict observation, else in the info."""
    if isinstance(obs, dict) and "action_mask" in obs:
        return np.asarray(obs["action_mask"]).astype(bool)
    _require("action_mask" in info, "the info of reset() and step() holds no 'action_mask' (nor the observation)")
    return np.asarray(info["action_mask"]).astype(bool)


def _game(env: gym.Env, seed: int) -> tuple[list[bytes], float]:
    """One whole game of random legal actions (the picks seeded too): the observations and the return."""
    pick = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    trace, total = [], 0.0
    for step in range(MAX_GAME_STEPS):
        _require(env.observation_space.contains(obs), f"step {step}: the observation is not in the observation space")
        trace.append(np.asarray(obs["observation"] if isinstance(obs, dict) else obs).tobytes())
        mask = _mask_of(obs, info)
        _require(mask.any(), f"step {step}: the mask offers no action before the end of the game")
        obs, reward, terminated, truncated, info = env.step(int(pick.choice(np.flatnonzero(mask))))
        _require(not info.get("illegal_action", False), f"step {step}: an action the mask offered was illegal")
        total += float(reward)
        _require(not truncated, f"step {step}: a game of legal actions was truncated")
        if terminated:
            _step_after_end(env, obs, info)
            return trace, total
    raise ContractError(f"a game of random legal actions did not end in {MAX_GAME_STEPS:,} steps")


def _step_after_end(env: gym.Env, obs: Any, info: dict[str, Any]) -> None:
    """A step after the end raises ``RuntimeError`` saying to call ``reset()``, whatever the action."""
    for action in (0, int(env.action_space.n) - 1):  # type: ignore[attr-defined]
        try:
            env.step(action)
        except RuntimeError as e:
            _require("reset()" in str(e), f"a step after the end raised {e!r}, which does not say to call reset()")
        else:
            raise ContractError(f"a step after the end (action {action}) returned instead of raising RuntimeError")


def check_env(make: Callable[[], gym.Env], *, seeds: tuple[int, int] = (5, 6), gymnasium_checker: bool = True
              ) -> None:
    """Check the one-game environment that ``make()`` builds (a fresh one each call) against the contract of the
    module docstring; ``gymnasium_checker``: run Gymnasium's ``check_env`` too (on the unwrapped env, a warning an
    error; then on the wrappers, their warnings aside, where every one records its arguments as Gymnasium's checker
    needs to make them again). :class:`ContractError` if it breaks."""
    first, again, other = make(), make(), make()
    try:
        with_reset = False
        try:
            first.step(0)
        except (RuntimeError, gym.error.ResetNeeded) as e:  # Gymnasium's OrderEnforcing raises ResetNeeded
            with_reset = "reset()" in str(e)
        _require(with_reset, "a step before reset() did not raise RuntimeError (or Gymnasium's ResetNeeded) saying to "
                 "call reset()")
        game, total = _game(first, seeds[0])
        _require((game, total) == _game(again, seeds[0]), f"two games of seed {seeds[0]} differ")
        _require(game != _game(other, seeds[1])[0], f"the games of seeds {seeds[0]} and {seeds[1]} are the same")
        if gymnasium_checker:
            _gymnasium_check(make())
    finally:
        for env in (first, again, other):
            env.close()


def _gymnasium_check(env: gym.Env) -> None:
    from gymnasium.utils.env_checker import check_env as gymnasium_check_env

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            gymnasium_check_env(env.unwrapped, skip_render_check=True)
        if env.unwrapped is not env and _recreatable(env):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # its advice to check the unwrapped env: the wrapper is the point here
                gymnasium_check_env(env, skip_render_check=True)
    finally:
        env.close()


def _recreatable(env: gym.Env) -> bool:
    """Whether Gymnasium's checker can make ``env``'s wrapper stack again from its spec (it does so, and refuses a
    wrapper that does not record its arguments: ``gymnasium.utils.RecordConstructorArgs``)."""
    while isinstance(env, gym.Wrapper):
        if not isinstance(env, gym.utils.RecordConstructorArgs):
            return False
        env = env.env
    return True


def check_vector_env(make: Callable[[], gym.vector.VectorEnv], *, steps: int = 80, seed: int = 3) -> None:
    """Check the vector environment that ``make()`` builds (a fresh one each call) against the contract of the
    module docstring: ``steps`` steps of random legal actions from ``seed``, twice, and the ends of games as its
    ``autoreset_mode`` documents. :class:`ContractError` if it breaks."""
    runs = [_vector_run(make(), steps, seed) for _ in range(2)]
    _require(np.array_equal(runs[0], runs[1]), f"two runs of seed {seed} differ")


def _vector_run(env: gym.vector.VectorEnv, steps: int, seed: int) -> np.ndarray:
    """``steps`` steps of random legal actions; the observations seen. Checks each step and each game's end."""
    mode = AutoresetMode(env.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP))
    pick = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    seen, ended, ends = [np.array(obs, copy=True)], np.zeros(env.num_envs, dtype=bool), 0
    try:
        for step in range(steps):
            if mode is AutoresetMode.DISABLED and ended.any():
                _disabled_end(env, np.flatnonzero(ended))
                obs, info = env.reset(options={"reset_mask": ended})
                ended[:] = False
            _require(env.observation_space.contains(obs), f"step {step}: the observations are not in the space")
            masks = np.asarray(env.unwrapped.action_masks(), dtype=bool)  # type: ignore[attr-defined]
            running = ~ended if mode is AutoresetMode.NEXT_STEP else np.ones(env.num_envs, dtype=bool)
            _require(masks[running].any(axis=1).all(), f"step {step}: a running game's mask offers no action")
            actions = np.array([pick.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
            obs, reward, terminated, truncated, info = env.step(actions)
            if mode is AutoresetMode.NEXT_STEP:
                _require(not (terminated | truncated)[ended].any() and not np.asarray(reward)[ended].any(),
                         f"step {step}: under NEXT_STEP the step after a game's end did not start the next game")
            ended = np.asarray(terminated | truncated)
            _require(not np.asarray(truncated).any(), f"step {step}: a game of legal actions was truncated")
            if mode is AutoresetMode.SAME_STEP and ended.any():
                _require("final_obs" in info, f"step {step}: under SAME_STEP a game ended without info['final_obs']")
            ends += int(ended.sum())
            seen.append(np.array(obs, copy=True))
    finally:
        env.close()
    _require(ends > 0, f"no game ended in {steps} steps, so no end was checked: give more steps")
    return np.stack(seen)


def _disabled_end(env: gym.vector.VectorEnv, ended: np.ndarray) -> None:
    """Under ``DISABLED`` a step of a batch with an ended game raises ``RuntimeError`` (and changes nothing)."""
    try:
        env.step(np.zeros(env.num_envs, dtype=np.int64))
    except RuntimeError:
        return
    raise ContractError(f"under DISABLED a step with ended game(s) {ended.tolist()} did not raise RuntimeError")


def check_multiplayer_env(make: Callable[[], Any], *, num_cycles: int = 1000) -> None:
    """Check the PettingZoo AEC environment that ``make()`` builds with PettingZoo's ``api_test`` (any warning but
    the dict-observation ones an error) and ``seed_test``; ``ModuleNotFoundError`` naming the extra without
    PettingZoo. :class:`ContractError` if a test fails."""
    from yacht_env.extras import require

    require("pettingzoo", what="check_multiplayer_env")
    from pettingzoo.test import api_test, seed_test

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            api_test(make(), num_cycles=num_cycles)
        except AssertionError as e:
            raise ContractError(f"PettingZoo's api_test: {e}") from e
    other = [str(w.message) for w in caught if not str(w.message).startswith(DICT_OBS_WARNINGS)]
    _require(not other, f"PettingZoo's api_test warned: {other}")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            seed_test(make, num_cycles=num_cycles)
        except AssertionError as e:
            raise ContractError(f"PettingZoo's seed_test: {e}") from e
