"""The turn search from one turn-start state, with every action's value: the optimal player's hints and the turn
search agents (one state per decision). The kernels are :mod:`yacht_solver.search.turn_search`'s, on one lane."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from yacht_env.jit.numba_cache import cached_njit
from yacht_solver.search.turn_constants import DecisionRule, KeepLane, SearchConstants, Starts
from yacht_solver.search.turn_search import (
    HAND0,
    NEG_INF,
    NUM_HANDS,
    NUM_KEEPS,
    action_row,
    as_f64,
    choose,
    hand_values,
    keep_tree,
    successor_row,
)


@dataclass(frozen=True)
class StateTurn:
    """The search of one turn from one turn-start state: ``G[h, c]`` points of hand h in box c plus the next
    state's value (``-inf`` where illegal), ``keep1`` / ``keep2`` (462, 1) the value of each keep with one / two rolls
    left, ``start`` the state's value."""

    G: np.ndarray
    keep1: np.ndarray
    keep2: np.ndarray
    start: float


def state_turn(cs: SearchConstants, E: np.ndarray, key: tuple[int, int, int]) -> StateTurn:
    """:class:`StateTurn` of turn-start state ``key`` = (F, u, y) with successor values ``E`` (flat, see
    :class:`~yacht_env.rules.TurnStartLayout`): the same kernels as a batch, on one lane."""
    K1 = np.empty((NUM_KEEPS, 1))
    K2 = np.empty((NUM_KEEPS, 1))
    start = np.empty(1)
    G = _state_turn_kernel(cs, as_f64(E), tuple(int(k) for k in key), KeepLane(K1, K2, 0), start)
    for a in (G, K1, K2):
        a.setflags(write=False)
    return StateTurn(G, K1, K2, float(start[0]))


@cached_njit
def _state_turn_kernel(cs: SearchConstants, E: np.ndarray, key: tuple[int, int, int], lane: KeepLane, start: np.ndarray
                       ) -> np.ndarray:
    """:func:`state_turn` on one lane: fills ``lane``'s keep values and ``start``, returns ``G``."""
    K1, K2, _ = lane
    one = Starts(np.full(1, key[0]), np.full(1, key[1]), np.full(1, key[2]))
    hand_values(cs, E, one, K1[HAND0:], np.empty((cs.BOXV.shape[1], 1)), np.empty(1, dtype=np.int64))
    keep_tree(K1, K2, np.empty((NUM_KEEPS, 1)), start)
    G = np.empty((NUM_HANDS, cs.scoring.box_scores.shape[1]))
    for h in range(NUM_HANDS):
        successor_row(G[h], cs, E, h, key)
    return G


@cached_njit
def state_action_values(G: np.ndarray, lane: KeepLane, h: int, rolls: int, rule: DecisionRule, values: np.ndarray
                        ) -> int:
    """The action (:func:`choose` with ``rule``) with hand ``h`` and ``rolls`` rolls left in the turn of a
    :class:`StateTurn`; ``values`` (32 + C) gets every action's value still to come (``-inf`` where illegal)."""
    legal = np.empty(values.shape[0], dtype=np.bool_)
    action_row(values, legal, G[h], lane, h, rolls, rule.keep_mask)
    for a in range(values.shape[0]):
        if not legal[a]:
            values[a] = NEG_INF
    return choose(values, legal, rule.prefer_score, rule.tol)
