"""Agents that play each turn by exact expectimax over the dice: the one search of
:mod:`yacht_solver.search.turn_search`.

Within a turn everything is known from the dice model and the rules; what an agent of this kind brings is the value
of each turn-start state its turn can lead to (:meth:`TurnSearchAgent.successor_values`): the solver's exact values
(:class:`~yacht_agents.optimal.OptimalAgent`), zeros for a player who looks no further than this turn
(:class:`~yacht_agents.greedy.GreedyAgent`), or a network's estimates (:class:`~yacht_agents.td_agent.TDAgent`).

They read only what the observation holds (dice, rolls left, open boxes, capped upper total, five-of-a-kind box:
it is Markov), decoded by :func:`yacht_env.observation.decode_batch`, so they play on the vector engine; given
:class:`~yacht_env.state.GameState` objects instead, they read the same fields from them. They decide for a whole
batch in compiled code: the states' turns are searched side by side
(:func:`~yacht_solver.search.turn_search.turn_values`), then each state's action is taken
(:func:`~yacht_solver.search.turn_search.decide`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from yacht_agents.base import Agent
from yacht_env import observation as O
from yacht_env.actions import KEEP_MASK_UNIQUE
from yacht_env.rules import RuleSet, TurnStartLayout
from yacht_env.state import GameState
from yacht_solver.search import state_search as ST
from yacht_solver.search import turn_search as T
from yacht_solver.search.turn_constants import search_constants

_KEEP_MASK = np.ascontiguousarray(KEEP_MASK_UNIQUE)


class TurnKeys:
    """A batch of positions as the search takes them: turn-start keys ``F``, ``u``, ``y``, hands and rolls left."""

    def __init__(self, F: np.ndarray, u: np.ndarray, y: np.ndarray, hands: np.ndarray, rolls: np.ndarray) -> None:
        self.F, self.u, self.y, self.hands, self.rolls = (np.ascontiguousarray(a, dtype=np.int64)
                                                          for a in (F, u, y, hands, rolls))

    def __len__(self) -> int:
        return int(self.F.shape[0])

    @property
    def positions(self) -> T.Positions:
        """The batch as the turn search takes it."""
        return T.Positions(self.F, self.u, self.y, self.hands, self.rolls)

    @classmethod
    def from_obs(cls, obs: np.ndarray, rules: RuleSet) -> TurnKeys:
        """From an (N, D) batch of observations."""
        d = O.decode_batch(obs, rules)
        layout = TurnStartLayout.of(rules)
        F = (~d.open).astype(np.int64) @ (np.int64(1) << np.arange(rules.num_categories, dtype=np.int64))
        u = np.minimum(d.upper, layout.threshold) if layout.threshold else np.zeros_like(d.upper)
        y = layout.five_kind_flags(d.five_box)
        return cls(F, u, y, d.hand, d.rolls)

    @classmethod
    def from_states(cls, states: Sequence[GameState], rules: RuleSet) -> TurnKeys:
        """From game states."""
        layout = TurnStartLayout.of(rules)
        keys = np.array([layout.key(s.filled_bits, s.upper_total, s.yahtzee_box) for s in states],
                        dtype=np.int64).reshape(-1, 3)
        return cls(keys[:, 0], keys[:, 1], keys[:, 2], np.array([s.hand for s in states], dtype=np.int64),
                   np.array([s.rolls_left for s in states], dtype=np.int64))


class TurnSearchAgent(Agent):
    """Base of the agents that search each turn exactly (see the module docstring). Deterministic.

    Subclasses give :meth:`successor_values`; ``prefer_score`` picks the tie rule of
    :func:`yacht_solver.search.turn_search.choose` (the greedy player's: score when it is worth at least the best
    keep)."""

    needs_state = False
    needs_obs = True
    state_suffices = True  # the positions come from the states when given (:meth:`keys`)
    batched = True
    prefer_score = False

    def __init__(self, rules: str | RuleSet = "yacht", seed: int | None = None) -> None:
        super().__init__(rules)
        self.seed(seed)
        self.constants = search_constants(self.rules)
        self.layout = TurnStartLayout.of(self.rules)  # how the values of successor_values are indexed

    def successor_values(self, keys: TurnKeys) -> np.ndarray:
        """The flat values ``E`` of the turn-start states (``TurnStartLayout`` indexing) that the turns of ``keys``
        can lead to; other entries are not read."""
        raise NotImplementedError

    def keys(self, obs: np.ndarray, states: Sequence[GameState] | None) -> TurnKeys:
        """The positions to decide: from the states when given, else from the observations."""
        if states is not None:
            for st in states:
                if st.rules != self.rules.name:
                    raise ValueError(f"agent {self.name!r} plays rules {self.rules.name!r}, the state is {st.rules!r}")
            return TurnKeys.from_states(states, self.rules)
        obs = np.asarray(obs)
        if obs.ndim != 2 or obs.shape[1] != O.size(self.rules):
            raise ValueError(f"the {self.name} agent needs the observation (N, {O.size(self.rules)}) or the "
                             f"GameStates of rules {self.rules.name!r}, got observations of shape {obs.shape}")
        return TurnKeys.from_obs(obs, self.rules)

    def decide(self, keys: TurnKeys, values: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
        """The action of each position, and with ``values`` every action's value still to come (N, 32 + C) as this
        agent sees it (``-inf`` where illegal)."""
        E = self.successor_values(keys)
        actions, out = T.search(self.constants, E, keys.positions, _KEEP_MASK, self.prefer_score, values)
        n = len(keys)
        if n and actions.min() < 0:
            i = int(np.flatnonzero(actions < 0)[0])
            raise ValueError(f"agent {self.name!r} has no finite value for any legal action (position {i}: "
                             f"filled bits {int(keys.F[i]):#x}); its successor values hold NaN or inf")
        return actions, (out if values else None)

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        return int(self.act_batch(np.asarray(obs)[None], np.asarray(mask)[None],
                                  None if state is None else [state])[0])

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, states: Sequence[GameState] | None = None
                  ) -> np.ndarray:
        keys = self.keys(obs, states)
        if not len(keys):
            return np.zeros(0, dtype=np.int64)
        actions, _ = self.decide(keys)
        masks = np.asarray(masks, dtype=np.bool_)
        bad = ~masks[np.arange(len(actions)), actions]
        if bad.any():  # never expected: the canonical keeps and the Joker-legal boxes are what the mask allows
            i = int(np.flatnonzero(bad)[0])
            raise RuntimeError(f"agent {self.name!r} chose illegal action {int(actions[i])} at position {i}")
        return actions

    def turn(self, state: GameState) -> ST.StateTurn:
        """The search of the turn of ``state`` alone: ``G``, keep values, start value (for inspection and tests)."""
        keys = TurnKeys.from_states([state], self.rules)
        return ST.state_turn(self.constants, self.successor_values(keys), (int(keys.F[0]), int(keys.u[0]),
                                                                         int(keys.y[0])))
