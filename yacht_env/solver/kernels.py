"""Compiled kernels of the exact solver: the turn rules compiled by numba, the keep tree and the layer sweep.

The rules are not rewritten here: :func:`legal_bits`, :func:`box_score` and :func:`points_for` are the functions of
:mod:`yacht_env.rules`, compiled once by :mod:`yacht_env.jit` (inlined into the kernels below).

The keep tree. Keeps are numbered by size (:mod:`yacht_env.dice`), and the 252 keeps of five dice are the hands in
order (keep ``HAND0 + h`` is hand ``h``). Given the value ``V[h]`` of holding hand ``h`` after a roll:

- the expected value of a keep of ``j < 5`` dice is the mean, over the face of one more die, of the keep with
  ``j + 1`` dice (``KEEP_ADD``): 1,260 additions for all 210 smaller keeps;
- the best keep of a hand is the best over its sub-keeps, found as the best of the keep itself and of the keeps
  with one die less (``KEEP_REMOVE``), again about 1,260 comparisons.

A turn has three decision levels: after the first roll (2 rolls left: keep or score), after the second (1 roll
left) and after the third (score only). :func:`turn_tables` runs them on any (252, C) table of "points now plus
value of the next turn-start state", so a learner can call it with estimated successor values.

The solver itself (:func:`solve_layers`) runs the same recursion on ``LANES`` states side by side, so that every
step of the keep tree is a vector instruction across states, and finds the best category of the 246 hands that are
not five of a kind through small per-category tables of box-score classes (:func:`batch_hand_values`);
:func:`successor_table` is the plain reference the tests hold both shortcuts to.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from yacht_env import dice as D
from yacht_env import jit
from yacht_env import rules as R

jit.expire_stale_numba_cache(__file__)  # before any njit below: the kernels contain the rules and dice tables

joker_applies = jit.joker_applies
legal_bits = jit.legal_bits
box_score = jit.box_score
points_for = jit.points_for

# ---- dice tables, frozen into the compiled code ---------------------------------------------------------------

NUM_HANDS = D.NUM_HANDS
NUM_KEEPS = D.NUM_KEEPS
NUM_FACES = D.NUM_FACES
HAND0 = int(D.HAND_TO_KEEP[0])  # 210: first keep of five dice
if not (np.array_equal(D.HAND_TO_KEEP, np.arange(HAND0, NUM_KEEPS)) and (D.KEEP_SIZE[:HAND0] < D.NUM_DICE).all()):
    raise ImportError("yacht_env.dice: the five-dice keeps must be the last keeps, in hand order")

KEEP_ADD = np.ascontiguousarray(D.KEEP_ADD[:HAND0], dtype=np.int32)
"""(210, 6): keep with one more die of each face, for the keeps of fewer than five dice."""


def _remove_csr() -> tuple[np.ndarray, np.ndarray]:
    ptr = np.zeros(NUM_KEEPS + 1, dtype=np.int32)
    idx: list[int] = []
    for k in range(NUM_KEEPS):
        sub = [int(r) for r in D.KEEP_REMOVE[k] if r >= 0]
        if any(r >= k for r in sub):
            raise ImportError("yacht_env.dice: a keep with a die removed must come earlier")
        idx.extend(sub)
        ptr[k + 1] = len(idx)
    return ptr, np.array(idx, dtype=np.int32)


REMOVE_PTR, REMOVE_IDX = _remove_csr()
"""The keeps with one die less of keep k: ``REMOVE_IDX[REMOVE_PTR[k]:REMOVE_PTR[k + 1]]`` (one per distinct face)."""
HAND_PROBABILITY = np.ascontiguousarray(D.HAND_PROBABILITY, dtype=np.float64)
FIVE_KIND_FACE = np.ascontiguousarray(R.FIVE_KIND_FACE, dtype=np.int64)
FIVE_KIND_HANDS = np.flatnonzero(FIVE_KIND_FACE).astype(np.int64)
PATTERN_KEEP = np.ascontiguousarray(D.PATTERN_KEEP, dtype=np.int64)
"""(252, 32): the keep of each keep pattern of each hand, as :func:`best_action_of` takes it."""
for _a in (KEEP_ADD, REMOVE_PTR, REMOVE_IDX, FIVE_KIND_HANDS):
    _a.setflags(write=False)
NEG_INF = -np.inf


# ---- the keep tree ----------------------------------------------------------------------------------------------


@njit(cache=True)
def expect_keeps(K: np.ndarray) -> None:
    """Fill ``K[:HAND0]`` (keeps of 0..4 dice) with the expected ``K[HAND0:]`` (hands) after rolling the rest."""
    for k in range(HAND0 - 1, -1, -1):
        s = 0.0
        for f in range(NUM_FACES):
            s += K[KEEP_ADD[k, f]]
        K[k] = s / NUM_FACES


@njit(cache=True)
def best_subkeep(K: np.ndarray, M: np.ndarray) -> None:
    """``M[k]`` = max of ``K`` over the sub-keeps of keep ``k`` (itself included). ``M`` may be ``K``."""
    M[0] = K[0]
    for k in range(1, NUM_KEEPS):
        m = K[k]
        for j in range(REMOVE_PTR[k], REMOVE_PTR[k + 1]):
            v = M[REMOVE_IDX[j]]
            if v > m:
                m = v
        M[k] = m


@njit(cache=True)
def _turn_start_inplace(K: np.ndarray) -> float:
    """Turn-start expectation from the score-level hand values held in ``K[HAND0:]``; ``K`` is scratch."""
    expect_keeps(K)
    best_subkeep(K, K)  # hands now hold the values with one roll left
    expect_keeps(K)
    best_subkeep(K, K)  # ... with two rolls left
    e = 0.0
    for h in range(NUM_HANDS):
        e += HAND_PROBABILITY[h] * K[HAND0 + h]
    return e


@njit(cache=True)
def turn_tables(G: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """The three decision levels of one turn from ``G`` (252, C): points now plus the value of the next turn-start
    state for each hand and category, ``-inf`` where the category may not be scored.

    Returns ``(V0, K0, V1, K1, V2, E)``: ``V0[h]`` value of hand h with no roll left (best category); ``K0[k]``
    value of keeping keep k with one roll left (``K0[HAND0 + h] = V0[h]``); ``V1[h]`` value of hand h with one roll
    left; ``K1``, ``V2`` likewise with two rolls left; ``E`` the expected value at the start of the turn. Values
    are "to come" in whatever units ``G`` is in; nothing here reads the solver's table.
    """
    C = G.shape[1]
    V0 = np.empty(NUM_HANDS)
    for h in range(NUM_HANDS):
        m = NEG_INF
        for c in range(C):
            if G[h, c] > m:
                m = G[h, c]
        V0[h] = m
    K0 = np.empty(NUM_KEEPS)
    K0[HAND0:] = V0
    expect_keeps(K0)
    M = np.empty(NUM_KEEPS)
    best_subkeep(K0, M)
    V1 = M[HAND0:].copy()
    K1 = np.empty(NUM_KEEPS)
    K1[HAND0:] = V1
    expect_keeps(K1)
    best_subkeep(K1, M)
    V2 = M[HAND0:].copy()
    e = 0.0
    for h in range(NUM_HANDS):
        e += HAND_PROBABILITY[h] * V2[h]
    return V0, K0, V1, K1, V2, e


@njit(cache=True, parallel=True)
def turn_start_values(G: np.ndarray) -> np.ndarray:
    """Batched turn-start expectations: ``G`` (N, 252, C) as in :func:`turn_tables`; returns (N,). Parallel."""
    n = G.shape[0]
    C = G.shape[2]
    out = np.empty(n)
    for i in prange(n):
        K = np.empty(NUM_KEEPS)
        for h in range(NUM_HANDS):
            m = NEG_INF
            for c in range(C):
                if G[i, h, c] > m:
                    m = G[i, h, c]
            K[HAND0 + h] = m
        out[i] = _turn_start_inplace(K)
    return out


@njit(cache=True)
def best_in_row(values: np.ndarray, legal: np.ndarray, tol: float) -> int:
    """Lowest index whose value is within ``tol`` of the best legal value, -1 if nothing is legal."""
    m = NEG_INF
    for i in range(values.shape[0]):
        if legal[i] and values[i] > m:
            m = values[i]
    for i in range(values.shape[0]):
        if legal[i] and values[i] >= m - tol:
            return i
    return -1


# ---- the turn-start state table ---------------------------------------------------------------------------------
# A turn-start state (filled bits F, capped upper total u, five-of-a-kind box holds 50: y) lives at flat index
# (F * U + u) * Y + y of the value table, with U = threshold + 1 (1 without an upper bonus) and Y = 2 (1 without a
# five-of-a-kind bonus or Joker).


@njit(cache=True)
def _successor(c: int, box: int, u: int, y: int, thr: int, Y: int, ycat: int) -> tuple[int, int]:
    """Capped upper total and five-of-a-kind flag after writing ``box`` in category ``c``."""
    u2 = u
    if thr > 0 and c < R.NUM_UPPER:
        u2 = min(u + box, thr)
    y2 = y
    if Y == 2 and c == ycat:
        y2 = 1 if box == 50 else 0
    return u2, y2


@njit(cache=True, inline="always")
def _score_value(params: np.ndarray, Sh: np.ndarray, Jh: np.ndarray, face: int, F: int, u: int, y: int, c: int,
                 E: np.ndarray, U: int, Y: int, thr: int, ycat: int) -> float:
    """Points for scoring the hand (rows ``Sh``, ``Jh``) in category c in state (F, u, y), plus the value of the
    turn-start state that leads to: one entry of :func:`successor_table`."""
    pts = points_for(params, Sh, Jh, face, F, u, y == 1, c)
    box = box_score(params, Sh, Jh, face, F, c)
    u2, y2 = _successor(c, box, u, y, thr, Y, ycat)
    return pts + E[((F | (1 << c)) * U + u2) * Y + y2]


@njit(cache=True)
def successor_table(params: np.ndarray, S: np.ndarray, J: np.ndarray, E: np.ndarray, F: int, u: int, y: int,
                    U: int, Y: int, thr: int, ycat: int) -> np.ndarray:
    """(252, C) "points now + value of the next turn-start state" for every hand and category of turn-start state
    (F, u, y), ``-inf`` where illegal: the rules' own functions for every entry (the reference for the solver's
    shortcut, and the input of :func:`turn_tables` for action values)."""
    G = np.empty((NUM_HANDS, S.shape[1]))
    for h in range(NUM_HANDS):
        _successor_row(G, h, params, S, J, E, F, u, y, U, Y, thr, ycat)
    return G


@njit(cache=True, inline="always")
def _successor_row(G: np.ndarray, h: int, params: np.ndarray, S: np.ndarray, J: np.ndarray, E: np.ndarray, F: int,
                   u: int, y: int, U: int, Y: int, thr: int, ycat: int) -> None:
    """Row ``h`` of :func:`successor_table`, every category, by the rules' own functions."""
    face = FIVE_KIND_FACE[h]
    Sh = S[h]
    Jh = J[h]
    bits = legal_bits(params, face, F)
    for c in range(S.shape[1]):
        G[h, c] = NEG_INF
        if (bits >> c) & 1:
            G[h, c] = _score_value(params, Sh, Jh, face, F, u, y, c, E, U, Y, thr, ycat)


@njit(cache=True)
def fast_successor_table(params: np.ndarray, S: np.ndarray, J: np.ndarray, CLS: np.ndarray, BOXV: np.ndarray,
                         NV: np.ndarray, PTV: np.ndarray, E: np.ndarray, F: int, u: int, y: int, U: int, Y: int,
                         thr: int, ycat: int) -> np.ndarray:
    """:func:`successor_table`, equal entry for entry, by the shortcut of :func:`batch_hand_values` (box-score
    classes for the hands that are not five of a kind, the rules' functions for the six that are)."""
    C = S.shape[1]
    G = np.full((NUM_HANDS, C), NEG_INF)
    T = np.empty(BOXV.shape[1])
    bits = legal_bits(params, 0, F)
    for c in range(C):
        if (bits >> c) & 1:
            for n in range(NV[c]):
                u2, y2 = _successor(c, BOXV[c, n], u, y, thr, Y, ycat)
                T[n] = PTV[u, c, n] + E[((F | (1 << c)) * U + u2) * Y + y2]
            for h in range(NUM_HANDS):
                G[h, c] = T[CLS[c, h]]
    for i in range(FIVE_KIND_HANDS.shape[0]):
        _successor_row(G, FIVE_KIND_HANDS[i], params, S, J, E, F, u, y, U, Y, thr, ycat)
    return G


@njit(cache=True)
def best_action_of(G: np.ndarray, keep1: np.ndarray, keep2: np.ndarray, rolls_left: int, h: int,
                   pattern_keep: np.ndarray, keep_mask: np.ndarray, tol: float) -> int:
    """The optimal action with hand h and ``rolls_left`` rolls left in a turn whose tables are ``G`` and the keep
    values ``keep1`` / ``keep2`` (one / two rolls left): keep pattern 0..31 over the sorted dice (limited to
    ``keep_mask[h]``) or 32 + category; among values within ``tol`` of the best, the lowest action index."""
    npat = pattern_keep.shape[1]
    C = G.shape[1]
    vals = np.empty(npat + C)
    legal = np.empty(npat + C, dtype=np.bool_)
    for p in range(npat):
        legal[p] = rolls_left > 0 and keep_mask[h, p]
        vals[p] = keep2[pattern_keep[h, p]] if rolls_left == 2 else keep1[pattern_keep[h, p]]
    for c in range(C):
        vals[npat + c] = G[h, c]
        legal[npat + c] = G[h, c] > NEG_INF
    return best_in_row(vals, legal, tol)


@njit(cache=True)
def points_table(params: np.ndarray, S: np.ndarray, J: np.ndarray, U: int) -> np.ndarray:
    """(U, C, 252) points of each hand in each category for every capped upper total, as ``points_for`` gives them
    to a hand that is not five of a kind (face 0: no Joker, no five-of-a-kind bonus)."""
    C = S.shape[1]
    PT = np.empty((U, C, NUM_HANDS))
    for u in range(U):
        for c in range(C):
            for h in range(NUM_HANDS):
                PT[u, c, h] = points_for(params, S[h], J[h], 0, 0, u, False, c)
    return PT


LANES = 32
"""States solved together, side by side in memory, so that each step of the keep tree is one vector operation
across them. The lane count reaches the kernels as a run-time number (the row width): a compile-time constant
would be unrolled into scalar code instead of vectorised."""


@njit(cache=True)
def batch_hand_values(params: np.ndarray, S: np.ndarray, J: np.ndarray, CLS: np.ndarray, BOXV: np.ndarray,
                      NV: np.ndarray, PTV: np.ndarray, E: np.ndarray, Fs: np.ndarray, us: np.ndarray,
                      ys: np.ndarray, U: int, Y: int, thr: int, ycat: int, W: np.ndarray, T: np.ndarray,
                      bits: np.ndarray) -> None:
    """``W[h, b]`` = best over legal categories of points now + next state value in state (Fs[b], us[b], ys[b]),
    for the lanes b < len(Fs): the row maxima of :func:`successor_table`, fast.

    Hands that are not five of a kind share one legal set per state (``legal_bits`` with face 0), and in category
    c their points and successor depend only on their box score: class ``CLS[c, h]`` of box ``BOXV[c, n]`` scoring
    ``PTV[u, c, n]`` points (checked when the tables are built). So each category costs one small table ``T[n, b]``
    and one vector max per hand. The six five-of-a-kinds go through the rules' functions one by one (Joker, bonus).
    """
    C = S.shape[1]
    nl = Fs.shape[0]
    for h in range(NUM_HANDS):
        for b in range(nl):
            W[h, b] = NEG_INF
    union = 0
    for b in range(nl):
        bits[b] = legal_bits(params, 0, Fs[b])
        union |= bits[b]
    for c in range(C):
        if not (union >> c) & 1:
            continue
        for n in range(NV[c]):
            box = BOXV[c, n]
            for b in range(nl):
                if (bits[b] >> c) & 1:
                    u2, y2 = _successor(c, box, us[b], ys[b], thr, Y, ycat)
                    T[n, b] = PTV[us[b], c, n] + E[((Fs[b] | (1 << c)) * U + u2) * Y + y2]
                else:
                    T[n, b] = NEG_INF
        for h in range(NUM_HANDS):
            n = CLS[c, h]
            for b in range(nl):
                W[h, b] = max(W[h, b], T[n, b])
    for i in range(FIVE_KIND_HANDS.shape[0]):
        h = FIVE_KIND_HANDS[i]
        face = FIVE_KIND_FACE[h]
        Sh = S[h]  # one view per hand: views cost reference counting
        Jh = J[h]
        for b in range(nl):
            F = Fs[b]
            u = us[b]
            y = ys[b]
            fb = legal_bits(params, face, F)
            m = NEG_INF
            for c in range(C):
                if (fb >> c) & 1:
                    v = _score_value(params, Sh, Jh, face, F, u, y, c, E, U, Y, thr, ycat)
                    if v > m:
                        m = v
            W[h, b] = m


@njit(cache=True)
def batch_turn_start(K: np.ndarray, out: np.ndarray) -> None:
    """:func:`_turn_start_inplace` for several states at once: ``K`` (462, lanes) holds their score-level hand
    values in ``K[HAND0:]`` (and is scratch); ``out[b]`` gets the turn-start expectations. The keep tree's index
    work is shared and each step is a vector operation across the lanes."""
    nl = K.shape[1]
    acc = np.empty(nl)
    for _ in range(2):
        for k in range(HAND0 - 1, -1, -1):
            for b in range(nl):
                acc[b] = 0.0
            for f in range(NUM_FACES):
                j = KEEP_ADD[k, f]
                for b in range(nl):
                    acc[b] += K[j, b]
            for b in range(nl):
                K[k, b] = acc[b] / NUM_FACES
        for k in range(1, NUM_KEEPS):
            for j in range(REMOVE_PTR[k], REMOVE_PTR[k + 1]):
                r = REMOVE_IDX[j]
                for b in range(nl):
                    K[k, b] = max(K[k, b], K[r, b])
    for b in range(nl):
        out[b] = 0.0
    for h in range(NUM_HANDS):
        p = HAND_PROBABILITY[h]
        for b in range(nl):
            out[b] += p * K[HAND0 + h, b]


@njit(cache=True)
def _solve_rows(params: np.ndarray, S: np.ndarray, J: np.ndarray, CLS: np.ndarray, BOXV: np.ndarray,
                NV: np.ndarray, PTV: np.ndarray, E: np.ndarray, rows: np.ndarray, first: int, last: int, U: int,
                Y: int, thr: int, ycat: int) -> None:
    """Solve the states of ``rows[first:last]`` (one layer) into ``E``."""
    UY = U * Y
    nl = rows.shape[1]
    K = np.empty((NUM_KEEPS, nl))
    T = np.empty((BOXV.shape[1], nl))
    out = np.empty(nl)
    Fs = np.empty(nl, dtype=np.int64)
    us = np.empty(nl, dtype=np.int64)
    ys = np.empty(nl, dtype=np.int64)
    bits = np.empty(nl, dtype=np.int64)
    for i in range(first, last):
        for b in range(nl):
            s = rows[i, b]
            Fs[b] = s // UY
            r = s - Fs[b] * UY
            us[b] = r // Y
            ys[b] = r - us[b] * Y
        batch_hand_values(params, S, J, CLS, BOXV, NV, PTV, E, Fs, us, ys, U, Y, thr, ycat, K[HAND0:], T, bits)
        batch_turn_start(K, out)
        for b in range(nl):
            E[rows[i, b]] = out[b]


PARALLEL_MIN_ROWS = 64
"""Layers with fewer rows are solved on one thread: starting threads would cost more than it saves."""


@njit(cache=True, parallel=True)
def solve_layers(params: np.ndarray, S: np.ndarray, J: np.ndarray, CLS: np.ndarray, BOXV: np.ndarray,
                 NV: np.ndarray, PTV: np.ndarray, E: np.ndarray, rows: np.ndarray, layer_ptr: np.ndarray,
                 U: int, Y: int, thr: int, ycat: int, nthreads: int) -> None:
    """Backward induction. ``rows`` (n, lanes) holds flat state indices, one layer's states side by side (a
    layer's last row padded by repeating its first state); rows ``layer_ptr[i]:layer_ptr[i + 1]`` form a layer,
    fullest scorecard first. ``E[s]`` gets the turn-start expectation of state s. A layer only reads the layers
    after it, so the rows of a large layer are split across ``nthreads`` threads."""
    for layer in range(layer_ptr.shape[0] - 1):
        lo = layer_ptr[layer]
        n = layer_ptr[layer + 1] - lo
        if n < PARALLEL_MIN_ROWS or nthreads < 2:
            _solve_rows(params, S, J, CLS, BOXV, NV, PTV, E, rows, lo, lo + n, U, Y, thr, ycat)
            continue
        nchunks = 4 * nthreads
        for ch in prange(nchunks):
            _solve_rows(params, S, J, CLS, BOXV, NV, PTV, E, rows, lo + ch * n // nchunks,
                        lo + (ch + 1) * n // nchunks, U, Y, thr, ycat)
