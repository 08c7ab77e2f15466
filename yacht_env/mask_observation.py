"""The legal-action mask inside the observation: a ``Dict`` observation ``{"observation", "action_mask"}``.

RLlib's action-masking models and PettingZoo users read the mask from the observation rather than from ``info`` or
``action_masks()``. :class:`ActionMaskObservation` wraps a single environment and
:class:`VectorActionMaskObservation` a vector one (ours or Gymnasium's ``SyncVectorEnv`` of ours) so that every
observation is a dict of the environment's own observation and its mask (int8, 1 = legal); ``keys=("obs",
"mask")`` gives Tianshou's names::

    env = ActionMaskObservation(gym.make("Yacht-v0"))
    obs, info = env.reset(seed=0)
    obs["observation"].shape, obs["action_mask"].shape   # (64,), (44,)

The mask is the environment's ``info["action_mask"]``. A game that is over has no legal action, so its mask row is
all 0: with a vector environment in ``NEXT_STEP`` autoreset mode, the row of a game that has just ended stays all 0
until the next ``step``, which ignores that game's action and starts its new game. A policy that fills the illegal
logits with ``-inf`` then gets a row of ``-inf`` there (NaN after a softmax): mark such rows legal before the fill
(``mask[~mask.any(-1)] = 1``), since their action is ignored anyway.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

__all__ = ["KEYS", "ActionMaskObservation", "VectorActionMaskObservation"]


KEYS = ("observation", "action_mask")
"""The dict's keys by default: RLlib's and PettingZoo's. Tianshou's are ``("obs", "mask")``."""


def _keys(keys: tuple[str, str]) -> tuple[str, str]:
    """``keys`` checked (a list is taken too: a spec read back from JSON holds one)."""
    if (not isinstance(keys, (tuple, list)) or len(keys) != 2 or not all(isinstance(k, str) and k for k in keys)
            or keys[0] == keys[1]):
        raise ValueError(f"keys must be two different non-empty strings (observation, mask), got {keys!r}")
    return (keys[0], keys[1])


def _dict_space(observation: spaces.Space, n_actions: int, keys: tuple[str, str]) -> spaces.Dict:
    return spaces.Dict({keys[0]: observation, keys[1]: spaces.Box(0, 1, (n_actions,), np.int8)})


def _with_mask(obs: Any, info: dict[str, Any], keys: tuple[str, str]) -> dict[str, Any]:
    if "action_mask" not in info:
        raise KeyError("the wrapped environment gave no info['action_mask']: ActionMaskObservation wraps the "
                       "yacht-env environments (or a Gymnasium vector env of them)")
    return {keys[0]: obs, keys[1]: np.asarray(info["action_mask"], dtype=np.int8)}


class ActionMaskObservation(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """A single environment whose observation is ``{"observation": obs, "action_mask": mask}`` (see the module)."""

    def __init__(self, env: gym.Env, keys: tuple[str, str] = KEYS) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, keys=keys)
        gym.Wrapper.__init__(self, env)
        if not isinstance(env.action_space, spaces.Discrete):
            raise ValueError(f"ActionMaskObservation needs a Discrete action space, got {env.action_space}")
        self.keys = _keys(keys)
        self.observation_space = _dict_space(env.observation_space, int(env.action_space.n), self.keys)

    def reset(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        return _with_mask(obs, info, self.keys), info

    def step(self, action: Any) -> tuple[dict[str, Any], Any, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return _with_mask(obs, info, self.keys), reward, terminated, truncated, info


class VectorActionMaskObservation(gym.vector.VectorWrapper):
    """A vector environment whose observation is ``{"observation": (N, D), "action_mask": (N, A) int8}``."""

    def __init__(self, env: gym.vector.VectorEnv, keys: tuple[str, str] = KEYS) -> None:
        super().__init__(env)
        single = env.single_action_space
        if not isinstance(single, spaces.Discrete):
            raise ValueError(f"VectorActionMaskObservation needs Discrete actions, got {single}")
        self.keys = _keys(keys)
        self.single_observation_space = _dict_space(env.single_observation_space, int(single.n), self.keys)
        self.observation_space = batch_space(self.single_observation_space, env.num_envs)

    def reset(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        return _with_mask(obs, info, self.keys), info

    def step(self, actions: Any) -> tuple[dict[str, Any], Any, Any, Any, dict[str, Any]]:
        obs, rewards, terminated, truncated, info = self.env.step(actions)
        return _with_mask(obs, info, self.keys), rewards, terminated, truncated, info
