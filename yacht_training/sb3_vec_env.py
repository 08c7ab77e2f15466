"""A stable-baselines3 ``VecEnv`` over the vector engine, with the ``action_masks`` MaskablePPO reads, and
:class:`SharedVecEnv`, the SB3 plumbing it shares with the heads-up ``VecEnv`` (:mod:`yacht_training.heads_up`).

sb3-contrib's MaskablePPO gets masks from a VecEnv through ``env.has_attr("action_masks")`` and
``np.stack(env.env_method("action_masks"))`` (``sb3_contrib.common.maskable.utils``); both are answered here from
the engine's (N, A) mask array, without a loop over sub-environments. Episode ends follow SB3's convention: the
returned observation is the new game's, ``infos[i]["terminal_observation"]`` the last one of the ended game, and
``infos[i]["TimeLimit.truncated"]`` says a ``max_episode_steps`` truncation.

This module imports SB3 (and so torch); :mod:`yacht_env` itself never does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from yacht_env.rules import RuleSet
from yacht_env.vector.env import YachtVectorEnv


class SharedVecEnv(VecEnv):
    """The SB3 ``VecEnv`` plumbing of an env whose games share one object (an engine, or the env itself): the
    actions kept from ``step_async`` for ``step_wait``, and SB3's per-sub-environment access (``has_attr``,
    ``get_attr``, ``set_attr``, ``env_method``, ``env_is_wrapped``) answered from that one object, with
    ``env_method("action_masks")`` giving row i of the (N, A) masks, as MaskablePPO stacks them.

    A subclass gives ``reset``, ``step_wait`` (taking the actions with :meth:`_take_actions`), ``close`` and
    ``action_masks``; ``_holder()`` (the object the attributes live on; the env itself by default) and
    ``PER_GAME`` (the holder's methods that take the game's index: ``env_method`` calls ``method(i)`` per game)."""

    PER_GAME: tuple[str, ...] = ()
    _actions: np.ndarray | None = None

    def _holder(self) -> Any:
        """The object whose attributes and methods every game shares."""
        return self

    def action_masks(self) -> np.ndarray:
        """(N, A) bool masks of the legal actions."""
        raise NotImplementedError

    def step_async(self, actions: np.ndarray) -> None:
        """Keep the actions (one per game) for ``step_wait``."""
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def _take_actions(self) -> np.ndarray:
        """The actions of the last ``step_async``, once; ``RuntimeError`` if there were none."""
        if self._actions is None:
            raise RuntimeError("call step_async() before step_wait()")
        actions, self._actions = self._actions, None
        return actions

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        return list(self._get_indices(indices))

    def has_attr(self, attr_name: str) -> bool:
        return attr_name in ("action_masks", *self.PER_GAME) or hasattr(self._holder(), attr_name)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The shared attribute, once per requested game."""
        holder = self._holder()
        if not hasattr(holder, attr_name):
            raise AttributeError(f"{type(holder).__name__} has no attribute {attr_name!r}")
        value = getattr(holder, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set a shared attribute; only for all games at once."""
        if len(self._indices(indices)) != self.num_envs:
            raise ValueError("the games share one object: set attributes for all of them (indices=None)")
        setattr(self._holder(), attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        """``action_masks``: row i of the masks per game; a ``PER_GAME`` method: ``method(i)`` per game; any other
        method of the holder: called once per requested game."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return list(masks[idx]) if len(idx) != self.num_envs else list(masks)
        fn = getattr(self._holder(), method_name)
        if method_name in self.PER_GAME:
            return [fn(i) for i in idx]
        return [fn(*method_args, **method_kwargs) for _ in idx]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        """No game is wrapped."""
        return [False for _ in self._indices(indices)]


class YachtSB3VecEnv(SharedVecEnv):
    """SB3 ``VecEnv`` of ``num_envs`` games on :class:`~yacht_env.vector.env.YachtVectorEnv`.

    - ``reward_scale``: rewards are multiplied by it (e.g. 1/50 keeps returns near 1-10); ``infos[i]["final_score"]``
      always holds the unscaled final score of a game that terminated.
    - ``seed``: as SB3's ``VecEnv.seed``, game i gets ``seed + i`` at the next reset.
    - the other keyword arguments go to :class:`~yacht_env.vector.env.YachtVectorEnv` (``strict``,
      ``unique_keeps``, ``max_episode_steps``, ...).
    """

    PER_GAME = ("state", "generator")

    def __init__(self, num_envs: int = 8, rules: str | RuleSet = "yacht", reward_scale: float = 1.0,
                 seed: int | None = None, venv: YachtVectorEnv | None = None, **env_kwargs: Any) -> None:
        if venv is None:
            venv = YachtVectorEnv(num_envs=num_envs, rules=rules, autoreset_mode=AutoresetMode.SAME_STEP, **env_kwargs)
        elif venv.autoreset_mode is not AutoresetMode.SAME_STEP:
            raise ValueError(f"YachtSB3VecEnv needs a YachtVectorEnv with autoreset_mode SAME_STEP (SB3's own "
                             f"convention), got {venv.autoreset_mode.name}")
        self.venv = venv
        if not np.isfinite(reward_scale):
            raise ValueError(f"reward_scale must be a finite number, got {reward_scale!r}")
        self.reward_scale = float(reward_scale)
        self.render_mode = self.venv.render_mode
        super().__init__(self.venv.num_envs, self.venv.single_observation_space, self.venv.single_action_space)
        self.metadata = dict(self.venv.metadata)  # render_fps: the frame rate VecVideoRecorder writes
        if seed is not None:
            self.seed(seed)

    # ---- VecEnv API -----------------------------------------------------------------------------------------
    def reset(self) -> VecEnvObs:
        seeds = None if all(s is None for s in self._seeds) else self._seeds
        if seeds is not None and any(s is None for s in seeds):
            raise ValueError("either every game or no game gets a seed at reset")
        if any(self._options):
            raise ValueError("YachtSB3VecEnv takes no reset options")
        obs, info = self.venv.reset(seed=seeds)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_wait(self) -> VecEnvStepReturn:
        obs, reward, terminated, truncated, info = self.venv.step(self._take_actions())
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if "final_obs" in info:
            final_obs, final_score = info["final_obs"], info["final_info"].get("final_score")
            for i in np.flatnonzero(dones).tolist():
                d = infos[i]
                d["terminal_observation"] = final_obs[i]
                d["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
                if terminated[i] and final_score is not None:
                    d["final_score"] = int(final_score[i])
        return obs, (reward * self.reward_scale).astype(np.float32), dones, infos

    def close(self) -> None:
        self.venv.close()

    # ---- masks ---------------------------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """(N, A) bool masks of the legal actions."""
        return self.venv.action_masks()

    def _holder(self) -> YachtVectorEnv:
        return self.venv  # the engine: SB3's get_attr / env_method reach its attributes and methods

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seeds for the next reset: game i gets ``seed + i`` (SB3's convention)."""
        return super().seed(seed)

    def get_images(self) -> Sequence[np.ndarray | None]:
        """One (480, 640, 3) uint8 picture per game (``render_mode="rgb_array"``): what SB3's ``VecEnv.render`` tiles
        and ``VecVideoRecorder`` records."""
        if self.render_mode != "rgb_array":
            raise ValueError(f"pictures need render_mode='rgb_array' (YachtSB3VecEnv(..., render_mode='rgb_array')), "
                             f"this env has render_mode={self.render_mode!r}")
        return list(self.venv.render())

    def states(self, indices: Iterable[int] | None = None) -> list[Any]:
        """The GameStates of the requested games (for agents that need states)."""
        return [self.venv.state(i) for i in (range(self.num_envs) if indices is None else indices)]
