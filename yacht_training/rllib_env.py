"""The environments RLlib's env runners step: the observation as ``Dict(action_mask, observations)``.

RLlib's action-masking convention wants the legal-action mask inside the observation: a ``Dict`` space with
``"action_mask"`` (float32 0/1, one per action) and ``"observations"`` (our flat float32 observation).

Two ways to give each env runner its ``num_envs_per_env_runner`` games (``rllib.vectorize``):

- ``engine`` (default): one :class:`YachtRLlibVectorEnv` per env runner, the project's vectorised engine
  (:class:`yacht_env.vector.env.YachtVectorEnv`, numba, all games stepped by one call), made through RLlib's
  ``gym_env_vectorize_mode="vector_entry_point"``. The adapter runs the engine in ``AutoresetMode.SAME_STEP`` (a
  finished game restarts within the same step), while RLlib 2.x's ``SingleAgentEnvRunner`` expects ``NEXT_STEP``
  autoreset (after a step that ends an episode, the next ``step`` returns the new episode's first observation and its
  action is ignored): with the engine as it is, the runner would record the new game's first observation as the old
  game's last, and lose the first action and reward of every new game. The adapter gives RLlib ``NEXT_STEP``: it
  returns the ending game's last observation (from ``info["final_obs"]``), and at the next step sends that slot the
  action ``KEEP_ALL`` (31), which is never legal, so the engine leaves the slot's new game untouched (an illegal
  action is a no-op: no dice drawn, nothing scored), and returns the new game's first observation with reward 0.
- ``sync``: gymnasium's ``SyncVectorEnv`` over ``num_envs_per_env_runner`` copies of :class:`YachtRLlibEnv` (the
  single environment with the Dict observation), RLlib's default vectorisation.

Seeds. RLlib resets env runner ``w`` with ``seed + w`` (the config's seed plus the runner index), and gymnasium
gives sub-env ``i`` of a vector env ``seed + w + i``: the games of runner ``w`` slot ``i + 1`` and runner ``w + 1``
slot ``i`` would share their dice. Both classes here instead seed game ``i`` of runner ``w`` with
:func:`training_game_seed` ``(seed, session, w, i)``: distinct for every game of a run, different from every
evaluation seed of :func:`yacht_tools.seeds.game_seed` (a SeedSequence spawn key of another length), and the
same games in both vectorisation modes.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from yacht_env.actions import KEEP_ALL
from yacht_env.env import YachtEnv
from yacht_env.vector.env import YachtVectorEnv

TRAIN_SEED_TAG = 0x524C4C42  # "RLLB": training seeds' spawn keys start with it
SESSION_SEED_STRIDE = 1_000_000
"""RLlib's seed of session ``k`` of a run (``k`` = number of resumes) is ``seed + k * SESSION_SEED_STRIDE``."""


def training_game_seed(seed: int, session: int, worker: int, slot: int) -> int:
    """The seed of training game slot ``slot`` of env runner ``worker`` in session ``session`` of a run seeded
    ``seed`` (a 64-bit int from ``SeedSequence(seed, spawn_key=(TAG, session, worker, slot))``)."""
    ss = np.random.SeedSequence(int(seed), spawn_key=(TRAIN_SEED_TAG, int(session), int(worker), int(slot)))
    return int(ss.generate_state(1, np.uint64)[0])


def dict_space(rules_env: gym.Env | YachtVectorEnv) -> spaces.Dict:
    """``Dict(action_mask=Box(0, 1, (A,)), observations=<the flat observation space>)`` of one game."""
    if isinstance(rules_env, YachtVectorEnv):
        n, obs_space = rules_env.single_action_space.n, rules_env.single_observation_space
    else:
        n, obs_space = rules_env.action_space.n, rules_env.observation_space
    return spaces.Dict({"action_mask": spaces.Box(0.0, 1.0, (int(n),), dtype=np.float32),
                        "observations": obs_space})


def _worker_and_session(incoming: int, config: dict[str, Any]) -> tuple[int, int]:
    """(env runner index, session) from RLlib's reset seed ``config["rllib_seed"] + w``."""
    w = int(incoming) - int(config.get("rllib_seed", 0))
    return (w if w >= 0 else int(incoming)), int(config.get("session", 0))


class YachtRLlibVectorEnv(VectorEnv):
    """The vectorised engine with the Dict observation, scaled rewards and ``NEXT_STEP`` autoreset (see the
    module docstring). ``config``: ``rules``, ``unique_keeps``, ``reward_scale``, ``seed`` (the run's seed),
    ``rllib_seed`` (the seed RLlib was given), ``session``."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int, config: dict[str, Any]) -> None:
        self.config = dict(config)
        self.venv = YachtVectorEnv(num_envs, rules=config.get("rules", "yacht"),
                                   autoreset_mode=AutoresetMode.SAME_STEP,
                                   unique_keeps=bool(config.get("unique_keeps", True)))
        self.num_envs = self.venv.num_envs
        self.reward_scale = float(config.get("reward_scale", 1.0))
        self.single_action_space = self.venv.single_action_space
        self.action_space = self.venv.action_space
        self.single_observation_space = dict_space(self.venv)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self._pending = np.zeros(self.num_envs, dtype=np.bool_)  # slots showing their new game at the next step
        self._next_obs: np.ndarray | None = None
        self._next_mask: np.ndarray | None = None

    def reset(self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start a game in every slot; an int ``seed`` (RLlib's) becomes :func:`training_game_seed` per slot."""
        seeds: list[int] | None = None
        if isinstance(seed, (int, np.integer)):
            w, session = _worker_and_session(int(seed), self.config)
            base = int(self.config.get("seed", 0))
            seeds = [training_game_seed(base, session, w, i) for i in range(self.num_envs)]
        elif seed is not None:
            seeds = [int(s) for s in seed]
        obs, _ = self.venv.reset(seed=seeds, options=options)
        self._pending[:] = False
        return self._dict(obs, self.venv.action_masks()), {}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """Step the games; a slot whose game ended at the previous step shows its new game instead (reward 0)."""
        a = np.array(actions, dtype=np.int64).reshape(self.num_envs)
        pending = self._pending
        a[pending] = KEEP_ALL  # never legal: the engine leaves the new game of these slots as it is
        obs, reward, terminated, truncated, info = self.venv.step(a)
        mask = info["action_mask"].astype(np.float32)
        reward = reward * self.reward_scale
        reward[pending] = 0.0
        terminated[pending] = False
        truncated[pending] = False
        ended = terminated | truncated
        if ended.any():  # show the last observation of the ended games now, their new games at the next step
            rows = np.flatnonzero(ended)
            obs = obs.copy()
            obs[rows] = np.stack(info["final_obs"][rows])
            mask[ended] = info["final_info"]["action_mask"][ended]
        self._pending = ended
        return self._dict(obs, mask), reward, terminated, truncated, {}

    @staticmethod
    def _dict(obs: np.ndarray, mask: np.ndarray) -> dict[str, np.ndarray]:
        return {"action_mask": np.asarray(mask, dtype=np.float32), "observations": obs}

    def close(self, **kwargs: Any) -> None:
        self.venv.close()


class YachtRLlibEnv(gym.Wrapper):
    """One game (:class:`yacht_env.env.YachtEnv`) with the Dict observation and scaled rewards, for RLlib's
    ``sync`` vectorisation. RLlib's int reset seed becomes :func:`training_game_seed` (see the module docstring);
    ``info["final_score"]`` keeps the unscaled score."""

    def __init__(self, config: dict[str, Any]) -> None:
        super().__init__(YachtEnv(rules=config.get("rules", "yacht"),
                                  unique_keeps=bool(config.get("unique_keeps", True))))
        self.config = dict(config)
        self.reward_scale = float(config.get("reward_scale", 1.0))
        self.observation_space = dict_space(self.env)
        self._worker: int | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        if seed is not None:
            # SyncVectorEnv passes RLlib's seed + i to sub-env i: recover (runner, slot) from it
            rllib_seed = int(self.config.get("rllib_seed", 0))
            w = int(self.config.get("worker_index", 0))
            slot = int(seed) - rllib_seed - w
            if slot < 0:
                slot = int(seed)
            seed = training_game_seed(int(self.config.get("seed", 0)), int(self.config.get("session", 0)), w, slot)
        obs, info = self.env.reset(seed=seed, options=options)
        return self._dict(obs), info

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._dict(obs), float(reward) * self.reward_scale, terminated, truncated, info

    def _dict(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        return {"action_mask": self.env.unwrapped.action_masks().astype(np.float32), "observations": obs}


def make_env(config: dict[str, Any]) -> gym.Env | VectorEnv:
    """RLlib's env creator: the vector adapter when RLlib asks for ``num_envs`` games (``vector_entry_point``
    mode), else one game. ``config`` is RLlib's ``env_config`` (an ``EnvContext``, whose ``worker_index`` is
    kept for the single game)."""
    if "num_envs" in config:
        cfg = {k: v for k, v in config.items() if k != "num_envs"}
        return YachtRLlibVectorEnv(int(config["num_envs"]), cfg)
    cfg = dict(config)
    cfg["worker_index"] = int(getattr(config, "worker_index", 0) or 0)
    return YachtRLlibEnv(cfg)
