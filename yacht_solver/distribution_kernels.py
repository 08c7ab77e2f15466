"""Compiled kernels of the exact score distribution under expected-score optimal play
(:mod:`yacht_solver.distribution`).

Each turn-start state's turn is searched once with the solver's values
(:func:`yacht_solver.search.turn_search.hand_values`,
:func:`~yacht_solver.search.turn_search.keep_tree`), and every decision of the turn is the optimal agent's
(:func:`~yacht_solver.search.turn_search.action_row`, :func:`~yacht_solver.search.turn_search.choose`, the same tie
rule). The
distribution of the points still to come then follows those decisions through the same keep tree's means over the
dice (``_expect_keeps``), with the points as the lanes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from yacht_env.jit.numba_cache import cached_njit
from yacht_solver.ragged import Ragged
from yacht_solver.reach_kernels import box_step, shifted_row, sweep_layers
from yacht_solver.search.turn_search import (
    FIVE_KIND_FACE,
    HAND0,
    HAND_PROBABILITY,
    NUM_HANDS,
    NUM_KEEPS,
    PATTERN_KEEP,
    TIE_TOLERANCE,
    KeepLane,
    SearchConstants,
    Starts,
    _expect_keeps,
    action_row,
    choose,
    hand_values,
    keep_tree,
    successor_row,
)

__all__ = ["distribution_layers", "turn_distribution"]


@cached_njit(inline="always")
def _scored(out: np.ndarray, D: Ragged, cs: SearchConstants, h: int, key: tuple[int, int, int], c: int) -> None:
    """``out[x]`` = P(x more points) after scoring hand h in box c in turn-start state ``key``: the next state's
    distribution (its ragged row, 0 past its end) shifted by the points scored."""
    s2, pts = box_step(cs, cs.scoring.box_scores[h], cs.scoring.joker_scores[h], FIVE_KIND_FACE[h], key, c)
    shifted_row(out, D, s2, pts, 0.0)


@cached_njit(inline="always")
def _follow(out: np.ndarray, a: int, h: int, Kd: np.ndarray, D: Ragged, cs: SearchConstants,
            key: tuple[int, int, int]) -> None:
    """The distribution after action ``a`` with hand ``h``: a keep's row of ``Kd``, or a box scored."""
    if a < 32:
        k = PATTERN_KEEP[h, a]
        for x in range(out.shape[0]):
            out[x] = Kd[k, x]
    else:
        _scored(out, D, cs, h, key, a - 32)


@cached_njit
def turn_distribution(cs: SearchConstants, E: np.ndarray, D: Ragged, s: int, keep_mask: np.ndarray, want_h: int,
                      want_rolls: int, out: np.ndarray) -> None:
    """``out[x]`` = P(x more points) from turn-start state ``s`` (``want_h < 0``), or from hand ``want_h`` with
    ``want_rolls`` rolls left in its turn, under the solver's decisions, for x < len(out) (no more than ``D``'s width:
    a shorter ``out`` leaves out scores that cannot occur); ``D`` holds the rows of the states the turn leads to."""
    N = out.shape[0]
    C = cs.scoring.box_scores.shape[1]
    K1 = np.empty((NUM_KEEPS, 1))
    K2 = np.empty((NUM_KEEPS, 1))
    M = np.empty((NUM_KEEPS, 1))
    T = np.empty((cs.BOXV.shape[1], 1))
    one = np.empty(1)
    bits = np.empty(1, dtype=np.int64)
    box = np.empty(C)
    row = np.empty(32 + C)
    legal = np.empty(32 + C, dtype=np.bool_)
    act = np.empty((NUM_HANDS, 3), dtype=np.int64)
    Kd = np.empty((NUM_KEEPS, N))
    W = np.empty((NUM_HANDS, N))
    Y = cs.Y
    UY = cs.U * Y
    F = s // UY
    u = (s - F * UY) // Y
    y = s - F * UY - u * Y
    key = (F, u, y)
    hand_values(cs, E, Starts(np.full(1, F), np.full(1, u), np.full(1, y)), K1[HAND0:], T, bits)
    keep_tree(K1, K2, M, one)
    lane = KeepLane(K1, K2, 0)
    for h in range(NUM_HANDS):
        successor_row(box, cs, E, h, key)
        for rolls in range(3):
            action_row(row, legal, box, lane, h, rolls, keep_mask)
            act[h, rolls] = choose(row, legal, False, TIE_TOLERANCE)
    if want_h >= 0 and want_rolls == 0:
        _scored(out, D, cs, want_h, key, act[want_h, 0] - 32)
        return
    for h in range(NUM_HANDS):  # no roll left: the box chosen
        _scored(Kd[HAND0 + h], D, cs, h, key, act[h, 0] - 32)
    for rolls in range(1, 3):
        _expect_keeps(Kd)  # Kd: each keep with one more roll to make
        if want_h >= 0 and want_rolls == rolls:
            _follow(out, act[want_h, rolls], want_h, Kd, D, cs, key)
            return
        for h in range(NUM_HANDS):
            _follow(W[h], act[h, rolls], h, Kd, D, cs, key)
        for h in range(NUM_HANDS):
            Kd[HAND0 + h] = W[h]
    for x in range(N):
        out[x] = 0.0
    for h in range(NUM_HANDS):
        p = HAND_PROBABILITY[h]
        for x in range(N):
            out[x] += p * W[h, x]


@cached_njit(nogil=True)
def distribution_rows(cs: SearchConstants, E: np.ndarray, D: Ragged, states: np.ndarray, keep_mask: np.ndarray) -> None:
    """Each of ``states`` gets its row of ``D``: the scores ``0 .. most[s]`` (the row's length), searched in float64
    and stored in ``D``'s type."""
    for i in range(states.shape[0]):
        s = states[i]
        o = D.offsets[s]
        L = D.offsets[s + 1] - o
        out = np.empty(L)
        turn_distribution(cs, E, D, s, keep_mask, -1, 0, out)
        for x in range(L):
            D.data[o + x] = out[x]


def distribution_layers(cs: SearchConstants, E: np.ndarray, D: Ragged, layers: list[np.ndarray],
                        keep_mask: np.ndarray, progress: Callable[[int], object] | None = None) -> None:
    """Backward induction of the distributions (:func:`~.reach_kernels.sweep_layers`; see :mod:`.distribution`)."""
    sweep_layers(lambda states: distribution_rows(cs, E, D, states, keep_mask), layers, progress)
