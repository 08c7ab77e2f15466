"""Compiled kernels of the reach-a-target solver (:mod:`yacht_env.solver.reach`).

The state of a game gains the points still needed, ``n``; ``R[s, n]`` is the best probability that the points still
to come from turn-start state ``s`` are at least ``n`` (``R[s, 0] = 1``). Scoring hand ``h`` in box ``c`` leads to
``R[s', max(n - points, 0)]``. Only that end-of-turn value differs from the expected-score search: the keep tree,
the action rows and the tie rule are those of :mod:`yacht_env.engine.turn_search`, with the needs (or the positions)
side by side as its lanes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from yacht_env.engine.compile import box_score, legal_bits, next_turn_start, points_for
from yacht_env.engine.numba_cache import guard_numba_cache
from yacht_env.engine.turn_search import (
    FIVE_KIND_FACE,
    FIVE_KIND_HANDS,
    HAND0,
    LANES,
    NEG_INF,
    NUM_KEEPS,
    TIE_TOLERANCE,
    action_row,
    choose,
    keep_tree,
    max_by_class,
    start_hand_values,
)

guard_numba_cache(__file__)  # before any cached kernel below is compiled

__all__ = ["box_step", "reach_decide", "reach_hand_values", "reach_layers", "reach_row"]


@njit(cache=True, inline="always")
def box_step(params: np.ndarray, Sh: np.ndarray, Jh: np.ndarray, face: int, F: int, u: int, y: int, c: int,
             U: int, Y: int, thr: int, ycat: int) -> tuple[int, int]:
    """``(next turn-start state (flat), points)`` of scoring the hand (rows ``Sh``, ``Jh``) in box c in state
    (F, u, y): the rules' own functions."""
    pts = points_for(params, Sh, Jh, face, F, u, y == 1, c)
    return _successor(c, box_score(params, Sh, Jh, face, F, c), F, u, y, U, Y, thr, ycat), pts


@njit(cache=True, inline="always")
def _successor(c: int, box: int, F: int, u: int, y: int, U: int, Y: int, thr: int, ycat: int) -> int:
    u2, y2 = next_turn_start(c, box, u, y, thr, Y, ycat)
    return ((F | (1 << c)) * U + u2) * Y + y2


@njit(cache=True, inline="always")
def _lookup(R: np.ndarray, s2: int, need: int, pts: int) -> float:
    k = need - pts
    return R[s2, k] if k > 0 else 1.0


@njit(cache=True)
def reach_hand_values(params: np.ndarray, S: np.ndarray, J: np.ndarray, CLS: np.ndarray, BOXV: np.ndarray,
                      NV: np.ndarray, PTV: np.ndarray, R: np.ndarray, Fs: np.ndarray, us: np.ndarray, ys: np.ndarray,
                      needs: np.ndarray, U: int, Y: int, thr: int, ycat: int, W: np.ndarray, T: np.ndarray,
                      bits: np.ndarray) -> None:
    """``W[h, b]`` = best over legal boxes of ``R[next state, max(needs[b] - points, 0)]`` in state
    (Fs[b], us[b], ys[b]), for the lanes b < len(Fs): the reach twin of
    :func:`yacht_env.engine.turn_search.hand_values`, with the same box-score classes (one small table per category,
    one vector max per hand) and the six five-of-a-kinds through the rules' functions. ``needs[b] < R.shape[1]``."""
    nl = Fs.shape[0]
    union = start_hand_values(params, Fs, W, bits)
    for c in range(S.shape[1]):
        if (union >> c) & 1:
            for n in range(NV[c]):  # the class table of box c: its successor and points, per lane
                for b in range(nl):
                    T[n, b] = NEG_INF
                    if (bits[b] >> c) & 1:
                        s2 = _successor(c, BOXV[c, n], Fs[b], us[b], ys[b], U, Y, thr, ycat)
                        T[n, b] = _lookup(R, s2, needs[b], int(PTV[us[b], c, n]))
            max_by_class(W, T, CLS[c], nl)
    for i in range(FIVE_KIND_HANDS.shape[0]):
        h = FIVE_KIND_HANDS[i]
        for b in range(nl):
            reach_row(T[:, b], h, params, S, J, R, Fs[b], us[b], ys[b], needs[b], U, Y, thr, ycat)
            m = NEG_INF
            for c in range(S.shape[1]):
                m = max(m, T[c, b])
            W[h, b] = m


@njit(cache=True)
def reach_row(out: np.ndarray, h: int, params: np.ndarray, S: np.ndarray, J: np.ndarray, R: np.ndarray, F: int,
              u: int, y: int, need: int, U: int, Y: int, thr: int, ycat: int) -> None:
    """``out[c]`` (c < C) = probability to reach ``need`` more points after scoring hand ``h`` in box c;
    ``-inf`` where the rules forbid it (the reach twin of :func:`yacht_env.engine.turn_search.successor_row`)."""
    lb = legal_bits(params, FIVE_KIND_FACE[h], F)
    for c in range(S.shape[1]):
        out[c] = NEG_INF
        if (lb >> c) & 1:
            s2, pts = box_step(params, S[h], J[h], FIVE_KIND_FACE[h], F, u, y, c, U, Y, thr, ycat)
            out[c] = _lookup(R, s2, need, pts)


@njit(cache=True, nogil=True)
def reach_rows(params, S, J, CLS, BOXV, NV, PTV, R, states, U, Y, thr, ycat) -> None:
    """Each of ``states`` gets its row ``R[s, :]``: every need at once, as the lanes of the turn search."""
    N = R.shape[1]
    K = np.empty((NUM_KEEPS, N))
    T = np.empty((max(BOXV.shape[1], S.shape[1]), N))
    out = np.empty(N)
    needs = np.arange(N)
    Fs = np.empty(N, dtype=np.int64)
    us = np.empty(N, dtype=np.int64)
    ys = np.empty(N, dtype=np.int64)
    bits = np.empty(N, dtype=np.int64)
    UY = U * Y
    for i in range(states.shape[0]):
        s = states[i]
        F = s // UY
        r = s - F * UY
        Fs[:] = F
        us[:] = r // Y
        ys[:] = r - (r // Y) * Y
        reach_hand_values(params, S, J, CLS, BOXV, NV, PTV, R, Fs, us, ys, needs, U, Y, thr, ycat, K[HAND0:], T,
                          bits)
        keep_tree(K, K, K, out)
        for n in range(N):
            R[s, n] = out[n]
        R[s, 0] = 1.0  # nothing more needed: reached whatever happens (the search gives 1 too)


def reach_layers(tables: tuple[np.ndarray, ...], R: np.ndarray, layers: list[np.ndarray], dims: tuple[int, ...]
                 ) -> None:
    """Backward induction: ``layers`` hold flat state indices, fullest scorecard first; a layer reads only the
    layers before it."""
    for states in layers:
        if len(states):
            reach_rows(*tables, R, states, *dims)


@njit(cache=True, nogil=True)
def _decide_all(params, S, J, CLS, BOXV, NV, PTV, R, Fs, us, ys, needs, hands, rolls, U, Y, thr, ycat, keep_mask,
                actions, values) -> None:
    """Groups of ``LANES`` positions: their turns searched side by side, then each position's action."""
    n = Fs.shape[0]
    C = S.shape[1]
    A = values.shape[1] if values.shape[0] == n else 32 + C
    K1, K2, M = np.empty((3, NUM_KEEPS, LANES))
    T = np.empty((max(BOXV.shape[1], C), LANES))
    bits = np.empty(LANES, dtype=np.int64)
    out, box, row = np.empty(LANES), np.empty(C), np.empty(A)
    legal = np.empty(A, dtype=np.bool_)
    for lo in range(0, n, LANES):
        m = min(n - lo, LANES)  # a last group not full is searched on its own lanes only (one position: one)
        k1, k2 = K1[:, :m], K2[:, :m]
        reach_hand_values(params, S, J, CLS, BOXV, NV, PTV, R, Fs[lo:lo + m], us[lo:lo + m], ys[lo:lo + m],
                          needs[lo:lo + m], U, Y, thr, ycat, k1[HAND0:], T[:, :m], bits[:m])
        keep_tree(k1, k2, M[:, :m], out[:m])
        for b in range(m):
            i = lo + b
            reach_row(box, hands[i], params, S, J, R, Fs[i], us[i], ys[i], needs[i], U, Y, thr, ycat)
            action_row(row, legal, box, k1, k2, b, hands[i], rolls[i], keep_mask)
            actions[i] = choose(row, legal, False, TIE_TOLERANCE)
            if values.shape[0] == n:
                for a in range(A):
                    values[i, a] = row[a] if legal[a] else NEG_INF


def reach_decide(tables: tuple[np.ndarray, ...], R: np.ndarray, Fs: np.ndarray, us: np.ndarray, ys: np.ndarray,
                 needs: np.ndarray, hands: np.ndarray, rolls: np.ndarray, dims: tuple[int, ...],
                 keep_mask: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The action of each position (turn-start key, points still needed, hand, rolls left) that maximises the
    probability to reach the need; ``values`` (N, 32 + C) gets every action's probability (``-inf`` where illegal),
    or is (0, 0) to skip it."""
    actions = np.empty(Fs.shape[0], dtype=np.int64)
    _decide_all(*tables, R, Fs, us, ys, needs, hands, rolls, *dims, keep_mask, actions, values)
    return actions


@njit(cache=True)
def turn_outcomes(params: np.ndarray, S: np.ndarray, J: np.ndarray, F: int, u: int, y: int, U: int, Y: int, thr: int,
                  ycat: int) -> np.ndarray:
    """(n, 2) every ``(next turn-start state, points)`` that scoring some hand in some legal box can give in the turn
    of state (F, u, y), with repeats."""
    C = S.shape[1]
    out = np.empty((S.shape[0] * C, 2), dtype=np.int64)
    n = 0
    for h in range(S.shape[0]):
        face = FIVE_KIND_FACE[h]
        lb = legal_bits(params, face, F)
        for c in range(C):
            if (lb >> c) & 1:
                out[n, 0], out[n, 1] = box_step(params, S[h], J[h], face, F, u, y, c, U, Y, thr, ycat)
                n += 1
    return out[:n]
