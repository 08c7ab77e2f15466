"""The protocol every agent follows.

An agent acts for one rule set. It is given what an environment gives (the observation and the legal-action mask)
and, for agents that reason about the game itself, the :class:`~yacht_env.state.GameState`; it returns an action of
the environment's ``Discrete(32 + C)`` space (see :mod:`yacht_env.actions`). Agents that can decide for many games
at once override :meth:`Agent.act_batch`; the default loops over :meth:`Agent.act`.

Randomness: an agent that needs it draws from a generator seeded by :meth:`Agent.seed`, so an evaluation with a
seed is reproducible.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

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


POLICY_CONTRACT = ("a policy is a function(obs, masks) -> actions: obs (N, D) float32 and masks (N, A) bool, one row "
                   "per game, and it returns (N,) integer actions, one legal action per game")
"""What a batch policy callable takes and returns, for the messages that refuse one."""


class CallableAgent(Agent):
    """A batch policy written anywhere, as an agent: ``policy(obs (N, D) float32, masks (N, A) bool) -> (N,)``
    actions. The evaluators check every action against the mask."""

    batched = True

    def __init__(self, policy: Callable[[np.ndarray, np.ndarray], np.ndarray], rules: str | RuleSet = "yacht",
                 name: str = "policy") -> None:
        super().__init__(rules)
        self.policy = policy
        self.name = name

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        return int(self.act_batch(np.asarray(obs)[None], np.asarray(mask)[None])[0])

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, states: Sequence[GameState] | None = None
                  ) -> np.ndarray:
        obs, masks = np.asarray(obs, dtype=np.float32), np.asarray(masks, dtype=np.bool_)
        try:
            actions = np.asarray(self.policy(obs, masks))
        except TypeError as e:  # a callable that takes other arguments (math:sqrt, builtins:len, numpy:zeros_like)
            reason = " ".join(str(e).split())[:200]
            raise ValueError(f"policy {self.name!r} cannot be called as a policy ({reason}): "
                             f"{POLICY_CONTRACT}") from None
        if actions.shape != (len(masks),) or actions.dtype.kind not in "iu":
            raise ValueError(f"policy {self.name!r} returned {actions.dtype} {actions.shape} for {len(masks)} games: "
                             f"{POLICY_CONTRACT}")
        return actions.astype(np.int64)
