"""Compiled kernels of the two-player solver (:mod:`yacht_solver.duel`).

A state at the start of a turn is the mover's turn-start state ``a``, the opponent's ``b`` and the score difference
``d`` (mover minus opponent); ``W(a, b, d)`` is the mover's chance to win, ties counting half. Scoring hand ``h`` in
box ``c`` for ``p`` points (the rules' own points, bonuses included) leads to the opponent's turn in
``(b, a', -(d + p))``, worth ``1 - W(b, a', -(d + p))`` to the mover. Only that end-of-turn value differs from the
expected-score search: the keep tree, the action rows and the tie rule are those of
:mod:`yacht_solver.search.turn_search`, with the differences side by side as its lanes (as the reach solver has its
needs, :mod:`yacht_solver.reach_kernels`).

A row of the sweep holds ``W`` for ``d = -most(a) .. most(b)``, ``most`` the most points still to come from a state:
below, the mover cannot catch up (0); above, the opponent cannot (1). The table keeps of each row only what lies
between its leading values that are exactly 0.0 and its trailing values that are exactly 1.0 (float32, as stored):
:func:`strip_row`; a read below that range is 0.0, above it 1.0, so every value read is the float32 value the sweep
computed, bit for bit.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from yacht_env.jit.compile import legal_bits
from yacht_env.jit.numba_cache import cached_njit
from yacht_solver.reach_kernels import box_step, successor
from yacht_solver.search.turn_search import (
    FIVE_KIND_FACE,
    FIVE_KIND_HANDS,
    HAND0,
    NEG_INF,
    NUM_KEEPS,
    TIE_TOLERANCE,
    KeepLane,
    SearchConstants,
    action_row,
    choose,
    keep_tree,
    max_by_class,
    start_hand_values,
)

__all__ = ["DuelDecision", "DuelIndex", "DuelLayer", "DuelPair", "Stripped", "duel_decide", "duel_rows", "duel_turn",
           "strip_rows"]


class DuelIndex(NamedTuple):
    """The turn-start states of one player, grouped by the number of filled boxes: group ``k`` is
    ``states[start[k]:start[k + 1]]``; ``rank[s]`` is the place of state ``s`` in its group (-1: no game reaches it)
    and ``most[s]`` the most points still to come from it."""

    states: np.ndarray
    start: np.ndarray
    rank: np.ndarray
    most: np.ndarray


class DuelLayer(NamedTuple):
    """One layer of the table: every pair of a mover with ``a`` boxes filled and an opponent with ``b``. Pair
    ``p = rank(mover) * group_size(b) + rank(opponent)`` holds ``W`` at the differences ``lo[p] ..
    lo[p] + off[p + 1] - off[p] - 1`` in ``data[off[p]:off[p + 1]]`` (float32); below them ``W`` is 0.0, above 1.0.
    ``off``: int64, one more than the pairs; ``lo``: int32."""

    data: np.ndarray
    off: np.ndarray
    lo: np.ndarray
    a: int
    b: int


class Stripped(NamedTuple):
    """Rows as the table keeps them (:func:`strip_row`), in the order of their pairs: ``zeros[i]`` leading values
    0.0 and ``kept[i]`` values in ``data`` after them (both int32), the rest of the row 1.0."""

    data: np.ndarray
    zeros: np.ndarray
    kept: np.ndarray


class DuelPair(NamedTuple):
    """A position of the game of two between turns: the mover's and the opponent's turn-start states (flat indices of
    the turn search's arrays) and the mover's lead ``d`` (its score minus the opponent's)."""

    mover: int
    other: int
    d: int


class DuelDecision(NamedTuple):
    """A decision of the mover's turn: the turn's keep values (:func:`duel_turn`), its hand and its rolls left."""

    turn: KeepLane
    hand: int
    rolls: int


class HandScratch(NamedTuple):
    """The work arrays of :func:`duel_hand_values`: ``T`` (one row per box-score class, one column per lane) and the
    lanes' filled boxes ``Fs`` and legal-box bits ``bits``."""

    T: np.ndarray
    Fs: np.ndarray
    bits: np.ndarray


@cached_njit(inline="always")
def _row_value(nxt: DuelLayer, q: int, e: int) -> float:
    """``W`` of pair ``q`` of layer ``nxt`` at difference ``e``: 0 below its kept values, 1 above them."""
    k = e - nxt.lo[q]
    if k < 0:
        return 0.0
    o = nxt.off[q] + k
    if o >= nxt.off[q + 1]:
        return 1.0
    return nxt.data[o]


@cached_njit(inline="always")
def _is_zero(v: np.float32) -> bool:
    """``v`` is +0.0 (a -0.0 would be kept: it reads back bit for bit)."""
    return v == 0.0 and math.copysign(1.0, v) > 0.0


@cached_njit
def strip_row(row: np.ndarray, out: Stripped, i: int, pos: int) -> int:
    """Row ``i`` (float32 or float64 values, rounded to float32 as stored) into ``out`` at ``out.data[pos:]``: its
    leading 0.0 values and trailing 1.0 values counted, the values between copied; returns the next free place."""
    n = row.shape[0]
    z = 0
    while z < n and _is_zero(np.float32(row[z])):
        z += 1
    end = n
    while end > z and np.float32(row[end - 1]) == np.float32(1.0):
        end -= 1
    for j in range(z, end):
        out.data[pos + j - z] = np.float32(row[j])
    out.zeros[i] = z
    out.kept[i] = end - z
    return pos + end - z


@cached_njit(nogil=True)
def strip_rows(data: np.ndarray, off: np.ndarray, out: Stripped) -> int:
    """Every row ``data[off[i]:off[i + 1]]`` stripped into ``out`` (:func:`strip_row`); returns the values kept."""
    pos = 0
    for i in range(off.shape[0] - 1):
        pos = strip_row(data[off[i]:off[i + 1]], out, i, pos)
    return pos


@cached_njit(inline="always")
def _key_of(cs: SearchConstants, s: int) -> tuple[int, int, int]:
    F = s // (cs.U * cs.Y)
    r = s - F * cs.U * cs.Y
    return F, r // cs.Y, r - (r // cs.Y) * cs.Y


@cached_njit
def duel_hand_values(cs: SearchConstants, ix: DuelIndex, nxt: DuelLayer, pair: DuelPair, W: np.ndarray,
                     work: HandScratch) -> None:
    """``W[h, j]`` = the mover's best chance, over the boxes it may fill with hand ``h``, at difference
    ``pair.d + j`` (lanes ``j < len(work.Fs)``), with mover state ``pair.mover`` and opponent state ``pair.other``:
    the twin of :func:`yacht_solver.search.turn_search.hand_values` with the box-score classes (one small table per
    box, one vector max per hand); the six five-of-a-kinds through the rules' functions."""
    sa, sb, d0 = pair
    T, Fs, bits = work
    nl = Fs.shape[0]
    key = _key_of(cs, sa)
    Fs[:] = key[0]
    union = start_hand_values(cs.scoring.params, Fs, W, bits)
    n_next = ix.start[nxt.b + 1] - ix.start[nxt.b]
    qbase = ix.rank[sb] * n_next
    for c in range(cs.scoring.box_scores.shape[1]):
        if (union >> c) & 1:
            for n in range(cs.NV[c]):
                s2 = successor(cs, key, c, cs.BOXV[c, n])
                e0 = -d0 - int(cs.PTV[key[1], c, n])  # the opponent's difference at lane 0
                q = qbase + ix.rank[s2]
                for j in range(nl):
                    T[n, j] = 1.0 - _row_value(nxt, q, e0 - j)
            max_by_class(W, T, cs.CLS[c], nl)
    for i in range(FIVE_KIND_HANDS.shape[0]):
        h = FIVE_KIND_HANDS[i]
        face = FIVE_KIND_FACE[h]
        lb = legal_bits(cs.scoring.params, face, key[0])
        for j in range(nl):
            W[h, j] = NEG_INF  # the class tables gave it the plain hands' values: its own replace them
        for c in range(cs.scoring.box_scores.shape[1]):
            if (lb >> c) & 1:
                s2, pts = box_step(cs, cs.scoring.box_scores[h], cs.scoring.joker_scores[h], face, key, c)
                q = qbase + ix.rank[s2]
                for j in range(nl):
                    W[h, j] = max(W[h, j], 1.0 - _row_value(nxt, q, -d0 - pts - j))


@cached_njit(nogil=True)
def duel_rows(cs: SearchConstants, ix: DuelIndex, nxt: DuelLayer, ab: tuple[int, int], pairs: np.ndarray,
              out: Stripped) -> int:
    """The rows of ``pairs`` of the layer whose movers have ``ab = (a, b)`` boxes filled, from layer ``nxt`` (the
    opponent's turn after them): each pair's differences at once, as the lanes of the turn search; stripped into
    ``out`` (:func:`strip_row`, ``out.data`` as long as the full rows). Returns the values kept."""
    cur_a, cur_b = ab
    nb = ix.start[cur_b + 1] - ix.start[cur_b]
    width = 0
    for i in range(pairs.shape[0]):
        p = pairs[i]
        width = max(width, ix.most[ix.states[ix.start[cur_a] + p // nb]]
                    + ix.most[ix.states[ix.start[cur_b] + p % nb]] + 1)
    rows = max(cs.BOXV.shape[1], cs.scoring.box_scores.shape[1])
    Kb, Tb = np.empty(NUM_KEEPS * width), np.empty(rows * width)
    out_row = np.empty(width)
    Fs = np.empty(width, dtype=np.int64)
    bits = np.empty(width, dtype=np.int64)
    pos = 0
    for i in range(pairs.shape[0]):
        p = pairs[i]
        sa = ix.states[ix.start[cur_a] + p // nb]
        sb = ix.states[ix.start[cur_b] + p % nb]
        L = ix.most[sa] + ix.most[sb] + 1
        K = Kb[:NUM_KEEPS * L].reshape((NUM_KEEPS, L))
        duel_hand_values(cs, ix, nxt, DuelPair(sa, sb, -ix.most[sa]), K[HAND0:],
                         HandScratch(Tb[:rows * L].reshape((rows, L)), Fs[:L], bits[:L]))
        keep_tree(K, K, K, out_row[:L])
        pos = strip_row(out_row[:L], out, i, pos)
    return pos


@cached_njit
def duel_turn(cs: SearchConstants, ix: DuelIndex, nxt: DuelLayer, pair: DuelPair, K1: np.ndarray, K2: np.ndarray
              ) -> None:
    """The mover's turn in ``pair`` (the opponent's turn in layer ``nxt``): ``K1`` and ``K2`` (462, 1) get each
    keep's chance with one and two rolls left, what every decision of the turn reads (:func:`duel_decide`)."""
    T = np.empty((max(cs.BOXV.shape[1], cs.scoring.box_scores.shape[1]), 1))
    duel_hand_values(cs, ix, nxt, pair, K1[HAND0:],
                     HandScratch(T, np.empty(1, dtype=np.int64), np.empty(1, dtype=np.int64)))
    keep_tree(K1, K2, np.empty((NUM_KEEPS, 1)), np.empty(1))


@cached_njit
def duel_decide(cs: SearchConstants, ix: DuelIndex, nxt: DuelLayer, pair: DuelPair, at: DuelDecision,
                keep_mask: np.ndarray, values: np.ndarray) -> int:
    """The action at decision ``at`` that maximises the mover's chance to win in ``pair`` (the opponent's turn in
    layer ``nxt``); ``values`` (32 + C) gets every action's chance (``-inf`` where illegal). Ties: the lowest
    action."""
    sa, sb, d = pair
    turn, h, rolls = at
    C = cs.scoring.box_scores.shape[1]
    key = _key_of(cs, sa)
    face = FIVE_KIND_FACE[h]
    lb = legal_bits(cs.scoring.params, face, key[0])
    n_next = ix.start[nxt.b + 1] - ix.start[nxt.b]
    box = np.empty(C)
    for c in range(C):
        box[c] = NEG_INF
        if (lb >> c) & 1:
            s2, pts = box_step(cs, cs.scoring.box_scores[h], cs.scoring.joker_scores[h], face, key, c)
            box[c] = 1.0 - _row_value(nxt, ix.rank[sb] * n_next + ix.rank[s2], -d - pts)
    legal = np.empty(values.shape[0], dtype=np.bool_)
    action_row(values, legal, box, turn, h, rolls, keep_mask)
    for a in range(values.shape[0]):
        if not legal[a]:
            values[a] = NEG_INF
    return choose(values, legal, False, TIE_TOLERANCE)
