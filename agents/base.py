"""The protocol every agent follows.

An agent acts for one rule set. It is given what an environment gives (the observation and the legal-action mask)
and, for agents that reason about the game itself, the :class:`~yacht_env.state.GameState`; it returns an action of
the environment's ``Discrete(32 + C)`` space (see :mod:`yacht_env.actions`). Agents that can decide for many games
at once override :meth:`Agent.act_batch`; the default loops over :meth:`Agent.act`.

Randomness: an agent that needs it draws from a generator seeded by :meth:`Agent.seed`, so an evaluation with a
seed is reproducible.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from yacht_env.rules import RuleSet, get_rules
from yacht_env.state import GameState


class Agent:
    """Base class: override :meth:`act` (and :meth:`act_batch` where batching pays)."""

    #: short name used in tables and file names
    name: str = "agent"
    #: True if the agent needs the GameState (callers then pass ``state``/``states``)
    needs_state: bool = False
    #: True if :meth:`act_batch` is faster than looping over :meth:`act`
    batched: bool = False
    #: False if the agent never reads the observation (callers may then pass an empty one and skip encoding)
    needs_obs: bool = True
    #: True if, given the states, the agent reads nothing of the observation: a caller that holds the states may pass
    #: them with an empty observation and skip encoding (the agent still acts on observations alone where it has no
    #: states, so it keeps ``needs_obs`` and ``needs_state`` as they are)
    state_suffices: bool = False

    def __init__(self, rules: str | RuleSet = "yacht") -> None:
        self.rules = get_rules(rules)
        self.rng = np.random.default_rng()

    def seed(self, seed: int | None) -> None:
        """Reseed the agent's own random generator."""
        self.rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        """Return a legal action for one game."""
        raise NotImplementedError

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, states: Sequence[GameState] | None = None
                  ) -> np.ndarray:
        """Return one legal action per game: ``obs`` (N, D), ``masks`` (N, A) bool, ``states`` N states or None."""
        return np.array(
            [self.act(obs[i], masks[i], None if states is None else states[i]) for i in range(len(masks))],
            dtype=np.int64,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rules={self.rules.name!r})"


def is_module(policy: Any) -> bool:
    """Whether ``policy`` is a torch ``nn.Module``, looked up without importing torch (a module of torch exists only
    where torch is already loaded)."""
    torch_mod = sys.modules.get("torch")
    return torch_mod is not None and isinstance(policy, torch_mod.nn.Module)


POLICY_CONTRACT = ("a policy is a function(obs, masks) -> actions: obs (N, D) float32 and masks (N, A) bool, one row "
                   "per game, and it returns (N,) integer actions, one legal action per game; or a function(obs, "
                   "mask) -> action of one game: obs (D,), mask (A,), an integer action")
"""What a policy callable takes and returns, for the messages that refuse one."""


class CallableAgent(Agent):
    """A policy written anywhere, as an agent. Two shapes are accepted: a batch policy ``policy(obs (N, D) float32,
    masks (N, A) bool) -> (N,)`` actions, or a policy of one game ``policy(obs (D,), mask (A,)) -> action``. Which
    one is found once, on the first decision: the policy is called with one game's row; an integer back means a
    policy of one game (then called game by game), anything else (an array, an error) a batch policy. A batch
    policy written with ``axis=-1`` plays the same either way. The evaluators check every action against the
    mask."""

    batched = True

    def __init__(self, policy: Callable[..., Any], rules: str | RuleSet = "yacht", name: str = "policy") -> None:
        super().__init__(rules)
        self.policy = policy
        self.name = name
        self.one_game: bool | None = None
        """True: a policy of one game; False: a batch policy; None until the first decision."""

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        return int(self.act_batch(np.asarray(obs)[None], np.asarray(mask)[None])[0])

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, states: Sequence[GameState] | None = None
                  ) -> np.ndarray:
        obs, masks = np.asarray(obs, dtype=np.float32), np.asarray(masks, dtype=np.bool_)
        if self.one_game is None and len(masks):
            self.one_game = self._answers_one_game(obs[0], masks[0])
        try:
            if self.one_game:
                actions = np.array([self._one(obs[i], masks[i]) for i in range(len(masks))], dtype=np.int64)
            else:
                actions = np.asarray(self.policy(obs, masks))
        except TypeError as e:  # a callable that takes other arguments (math:sqrt, builtins:len, numpy:zeros_like)
            reason = " ".join(str(e).split())[:200]
            raise ValueError(f"policy {self.name!r} cannot be called as a policy ({reason}): "
                             f"{POLICY_CONTRACT}") from None
        if actions.shape != (len(masks),) or actions.dtype.kind not in "iu":
            raise ValueError(f"policy {self.name!r} returned {actions.dtype} {actions.shape} for {len(masks)} games: "
                             f"{POLICY_CONTRACT}")
        return actions.astype(np.int64)

    def _answers_one_game(self, obs: np.ndarray, mask: np.ndarray) -> bool:
        """Whether the policy, given one game's row, answers with one integer action."""
        try:
            answer = np.asarray(self.policy(obs, mask))
        except Exception:  # noqa: BLE001 - a batch policy may fail on one row in any way: then it is a batch policy
            return False
        return answer.ndim == 0 and answer.dtype.kind in "iu"

    def _one(self, obs: np.ndarray, mask: np.ndarray) -> int:
        answer = np.asarray(self.policy(obs, mask))
        if answer.ndim != 0 or answer.dtype.kind not in "iu":
            raise ValueError(f"policy {self.name!r} returned {answer.dtype} {answer.shape} for one game: "
                             f"{POLICY_CONTRACT}")
        return int(answer)
