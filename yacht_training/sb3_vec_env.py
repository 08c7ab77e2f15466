"""A stable-baselines3 ``VecEnv`` over the vector engine, with the ``action_masks`` MaskablePPO reads.

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

_PER_GAME_METHODS = ("action_masks", "state", "generator")


class YachtSB3VecEnv(VecEnv):
    """SB3 ``VecEnv`` of ``num_envs`` games on :class:`~yacht_env.vector.env.YachtVectorEnv`.

    - ``reward_scale``: rewards are multiplied by it (e.g. 1/50 keeps returns near 1-10); ``infos[i]["final_score"]``
      always holds the unscaled final score of a game that terminated.
    - ``seed``: as SB3's ``VecEnv.seed``, game i gets ``seed + i`` at the next reset.
    - the other keyword arguments go to :class:`~yacht_env.vector.env.YachtVectorEnv` (``strict``,
      ``unique_keeps``, ``max_episode_steps``, ...).
    """

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
        self._actions: np.ndarray | None = None
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

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("call step_async() before step_wait()")
        obs, reward, terminated, truncated, info = self.venv.step(self._actions)
        self._actions = None
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

    # ---- per-sub-environment access (SB3 semantics) -------------------------------------------------------
    def _indices(self, indices: VecEnvIndices) -> list[int]:
        return list(self._get_indices(indices))

    def has_attr(self, attr_name: str) -> bool:
        return attr_name in _PER_GAME_METHODS or hasattr(self.venv, attr_name)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The engine's attribute, once per requested game (all games share one engine)."""
        if not hasattr(self.venv, attr_name):
            raise AttributeError(f"{type(self.venv).__name__} has no attribute {attr_name!r}")
        value = getattr(self.venv, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute on the engine; only for all games at once."""
        if len(self._indices(indices)) != self.num_envs:
            raise ValueError("the games share one engine: set attributes for all of them (indices=None)")
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        """Per-game methods: ``action_masks`` (row i of the masks, what MaskablePPO stacks), ``state``,
        ``generator``; any other engine method is called once per requested game."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return list(masks[idx]) if len(idx) != self.num_envs else list(masks)
        if method_name in ("state", "generator"):
            fn = getattr(self.venv, method_name)
            return [fn(i) for i in idx]
        fn = getattr(self.venv, method_name)
        return [fn(*method_args, **method_kwargs) for _ in idx]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

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
