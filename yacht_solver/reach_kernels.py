"""Compiled kernels of the reach-a-target solver (:mod:`yacht_solver.reach`).

The state of a game gains the points still needed, ``n``; ``R[s, n]`` is the best probability that the points still
to come from turn-start state ``s`` are at least ``n`` (``R[s, 0] = 1``), held as ragged rows
(:class:`~yacht_solver.ragged.Ragged`: row ``s`` keeps the needs ``0 .. most[s]``, 0 beyond). Scoring hand
``h`` in box ``c`` leads to ``R[s', max(n - points, 0)]``. Only that end-of-turn value differs from the
expected-score search: the keep tree, the action rows and the tie rule are those of
:mod:`yacht_solver.search.turn_search`, with the needs (or the positions) side by side as its lanes.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from yacht_env.jit.compile import box_score, legal_bits, next_turn_start, points_for
from yacht_env.jit.numba_cache import cached_njit
from yacht_solver.long_work import cancel_on_interrupt
from yacht_solver.ragged import Ragged
from yacht_solver.search.turn_search import (
    FIVE_KIND_FACE,
    FIVE_KIND_HANDS,
    HAND0,
    LANES,
    NEG_INF,
    NUM_KEEPS,
    TIE_TOLERANCE,
    KeepLane,
    Positions,
    SearchConstants,
    Starts,
    action_row,
    choose,
    keep_tree,
    max_by_class,
    start_hand_values,
)

__all__ = ["box_step", "most_points_layers", "reach_decide", "reach_hand_values", "reach_layers", "reach_row"]


@cached_njit(inline="always")
def box_step(cs: SearchConstants, Sh: np.ndarray, Jh: np.ndarray, face: int, key: tuple[int, int, int], c: int
             ) -> tuple[int, int]:
    """``(next turn-start state (flat), points)`` of scoring the hand (rows ``Sh``, ``Jh``) in box c in turn-start
    state ``key`` = (F, u, y): the rules' own functions."""
    F, u, y = key
    pts = points_for(cs.scoring.params, Sh, Jh, face, F, u, y == 1, c)
    return successor(cs, key, c, np.int64(box_score(cs.scoring.params, Sh, Jh, face, F, c))), pts


@cached_njit(inline="always")
def successor(cs: SearchConstants, key: tuple[int, int, int], c: int, box: int) -> int:
    """The flat turn-start state after writing ``box`` in box ``c`` in turn-start state ``key`` = (F, u, y)."""
    F, u, y = key
    u2, y2 = next_turn_start(c, box, u, y, cs.thr, cs.Y, cs.ycat)
    return ((F | (1 << c)) * cs.U + u2) * cs.Y + y2


@cached_njit(inline="always")
def shifted_row(out: np.ndarray, D: Ragged, s2: int, pts: int, before: float) -> None:
    """``out[x]`` = ``D[s2, x - pts]`` for ``x < len(out)``: ``before`` where ``x < pts``, row ``s2`` from ``pts`` on,
    0 past its end. The reach tables' end-of-turn row (``before`` 1: a need at or below the points is met; the row
    starts with 1 too) and the distributions' (``before`` 0: fewer points than scored cannot come)."""
    N = out.shape[0]
    o = D.offsets[s2]
    start = min(pts, N)
    end = min(N, pts + D.offsets[s2 + 1] - o)
    for x in range(start):
        out[x] = before
    for x in range(start, end):
        out[x] = D.data[o + x - pts]
    for x in range(max(end, start), N):
        out[x] = 0.0


@cached_njit(inline="always")
def _lookup(R: Ragged, s2: int, need: int, pts: int) -> float:
    """``R[s2, need - pts]``: 1 at or below 0, 0 past the row's end."""
    k = need - pts
    if k <= 0:
        return 1.0
    i = R.offsets[s2] + k
    return float(R.data[i]) if i < R.offsets[s2 + 1] else 0.0


@cached_njit
def reach_hand_values(cs: SearchConstants, R: Ragged, lanes: Starts, needs: np.ndarray, W: np.ndarray,
                      T: np.ndarray, bits: np.ndarray) -> None:
    """``W[h, b]`` = best over legal boxes of ``R[next state, max(needs[b] - points, 0)]`` in turn-start state b of
    ``lanes``, for the lanes b < len(lanes.F): the reach twin of :func:`yacht_solver.search.turn_search.hand_values`,
    with the same box-score classes (one small table per category, one vector max per hand) and the six
    five-of-a-kinds through the rules' functions."""
    Fs, us, ys = lanes
    nl = Fs.shape[0]
    union = start_hand_values(cs.scoring.params, Fs, W, bits)
    for c in range(cs.scoring.box_scores.shape[1]):
        if (union >> c) & 1:
            for n in range(cs.NV[c]):  # the class table of box c: its successor and points, per lane
                for b in range(nl):
                    T[n, b] = NEG_INF
                    if (bits[b] >> c) & 1:
                        s2 = successor(cs, (Fs[b], us[b], ys[b]), c, cs.BOXV[c, n])
                        T[n, b] = _lookup(R, s2, needs[b], int(cs.PTV[us[b], c, n]))
            max_by_class(W, T, cs.CLS[c], nl)
    for i in range(FIVE_KIND_HANDS.shape[0]):
        h = FIVE_KIND_HANDS[i]
        for b in range(nl):
            reach_row(T[:, b], cs, R, h, (Fs[b], us[b], ys[b]), needs[b])
            m = NEG_INF
            for c in range(cs.scoring.box_scores.shape[1]):
                m = max(m, T[c, b])
            W[h, b] = m


@cached_njit
def reach_row(out: np.ndarray, cs: SearchConstants, R: Ragged, h: int, key: tuple[int, int, int], need: int
              ) -> None:
    """``out[c]`` (c < C) = probability to reach ``need`` more points after scoring hand ``h`` in box c in
    turn-start state ``key``; ``-inf`` where the rules forbid it (the reach twin of
    :func:`yacht_solver.search.turn_search.successor_row`)."""
    lb = legal_bits(cs.scoring.params, FIVE_KIND_FACE[h], key[0])
    for c in range(cs.scoring.box_scores.shape[1]):
        out[c] = NEG_INF
        if (lb >> c) & 1:
            s2, pts = box_step(cs, cs.scoring.box_scores[h], cs.scoring.joker_scores[h], FIVE_KIND_FACE[h], key, c)
            out[c] = _lookup(R, s2, need, pts)


@cached_njit
def state_hand_values(cs: SearchConstants, R: Ragged, key: tuple[int, int, int], W: np.ndarray, T: np.ndarray) -> None:
    """``W[h, n]`` = best over legal boxes of ``R[next state, max(n - points, 0)]`` in the one turn-start state
    ``key``, for the needs ``n < W.shape[1]``: :func:`reach_hand_values` with the needs ``0 .. L - 1`` of one state as
    its lanes, which the sweep searches. Every lane then shares each box's successor and points, so a box-score class
    is the successor's row shifted by its points (:func:`shifted_row`), not one look-up per lane: the sweep's hand
    values 4.6x faster on Yahtzee, 5.9x on Yatzy (``python benchmarks/bench_objectives.py --parts``).
    ``T`` (rows: at least the width of BOXV and 1, L) is scratch."""
    F, u, y = key
    L = W.shape[1]
    W[:] = NEG_INF
    bits = legal_bits(cs.scoring.params, np.int64(0), F)  # a plain hand's boxes
    for c in range(cs.scoring.box_scores.shape[1]):
        if (bits >> c) & 1:
            for n in range(cs.NV[c]):
                shifted_row(T[n], R, successor(cs, key, c, cs.BOXV[c, n]), int(cs.PTV[u, c, n]), 1.0)
            max_by_class(W, T, cs.CLS[c], L)
    for i in range(FIVE_KIND_HANDS.shape[0]):
        h = FIVE_KIND_HANDS[i]
        face = FIVE_KIND_FACE[h]
        lb = legal_bits(cs.scoring.params, face, F)
        W[h] = NEG_INF  # its own boxes only: the classes above are a plain hand's
        for c in range(cs.scoring.box_scores.shape[1]):
            if (lb >> c) & 1:
                s2, pts = box_step(cs, cs.scoring.box_scores[h], cs.scoring.joker_scores[h], face, key, c)
                shifted_row(T[0], R, s2, pts, 1.0)
                for n in range(L):
                    W[h, n] = max(W[h, n], T[0, n])


@cached_njit(nogil=True)
def reach_rows(cs: SearchConstants, R: Ragged, states: np.ndarray, width: int) -> None:
    """Each of ``states`` gets its row of ``R``: its needs ``0 .. most[s]`` (the row's length) at once, as the lanes
    of the turn search, searched in float64 and stored in ``R``'s type; ``width``: the longest row."""
    N = width
    rows = max(cs.BOXV.shape[1], 1)
    Kb, Tb = np.empty(NUM_KEEPS * N), np.empty(rows * N)  # scratch, viewed at each state's width
    out = np.empty(N)
    Y = cs.Y
    UY = cs.U * Y
    for i in range(states.shape[0]):
        s = states[i]
        o = R.offsets[s]
        L = R.offsets[s + 1] - o
        F = s // UY
        r = s - F * UY
        K = Kb[:NUM_KEEPS * L].reshape((NUM_KEEPS, L))
        state_hand_values(cs, R, (F, r // Y, r - (r // Y) * Y), K[HAND0:], Tb[:rows * L].reshape((rows, L)))
        keep_tree(K, K, K, out[:L])
        for n in range(L):
            R.data[o + n] = out[n]
        R.data[o] = 1.0  # nothing more needed: reached whatever happens (the search gives 1 too)


SWEEP_CHUNK = 256
"""States per task of a sweep: small enough that the threads stay busy to a layer's end and progress moves often."""


def sweep_layers(rows: Callable[[np.ndarray], None], layers: list[np.ndarray],
                 progress: Callable[[int], object] | None = None) -> None:
    """Backward induction: ``rows(states)`` for each layer of flat state indices, fullest scorecard first (a layer
    reads only the layers before it). The states of a layer are independent: they are dealt out in chunks of
    :data:`SWEEP_CHUNK` among ``numba.get_num_threads()`` threads, whose kernels release the GIL (the factor: ``python
    benchmarks/bench_solver.py --threads 1`` against its default). ``progress(n)``: called with the number of states
    of each chunk done."""
    threads = numba.get_num_threads()

    def run(states: np.ndarray) -> None:
        rows(states)
        if progress is not None:
            progress(len(states))

    with ThreadPoolExecutor(threads) as pool:
        for states in (s for s in layers if len(s)):
            step = min(SWEEP_CHUNK, -(-len(states) // threads))
            jobs = [pool.submit(run, np.ascontiguousarray(states[i:i + step])) for i in range(0, len(states), step)]
            try:
                for job in jobs:
                    job.result()
            except BaseException:  # Ctrl-C: the queued chunks are dropped, leaving the pool waits for none of them
                cancel_on_interrupt(jobs)
                raise


def reach_layers(cs: SearchConstants, R: Ragged, layers: list[np.ndarray], width: int,
                 progress: Callable[[int], object] | None = None) -> None:
    """The reach table's backward induction (:func:`sweep_layers`); ``width``: its longest row."""
    sweep_layers(lambda states: reach_rows(cs, R, states, width), layers, progress)


@cached_njit(nogil=True)
def most_points_rows(cs: SearchConstants, most: np.ndarray, states: np.ndarray) -> None:
    """``most[s]`` for each of ``states``: the best, over every hand and every box the rules allow it in, of its
    points plus the most still to come from the state it leads to (any hand can be rolled)."""
    Y = cs.Y
    UY = cs.U * Y
    for i in range(states.shape[0]):
        s = states[i]
        F = s // UY
        r = s - F * UY
        outcomes = turn_outcomes(cs, (F, r // Y, r - (r // Y) * Y))
        best = 0
        for j in range(outcomes.shape[0]):
            best = max(best, outcomes[j, 1] + most[outcomes[j, 0]])
        most[s] = best


def most_points_layers(cs: SearchConstants, size: int, layers: list[np.ndarray]) -> np.ndarray:
    """``most[s]``, the most points still to come from turn-start state s, exactly (0 where the game is over or no
    game goes): the bound beyond which the reach and distribution tables hold only zeros."""
    most = np.zeros(size, dtype=np.int64)
    sweep_layers(lambda states: most_points_rows(cs, most, states), layers)
    return most


@cached_njit(nogil=True)
def _decide_all(cs: SearchConstants, R: Ragged, pos: Positions, needs: np.ndarray, keep_mask: np.ndarray,
                actions: np.ndarray, values: np.ndarray) -> None:
    """Groups of ``LANES`` positions: their turns searched side by side, then each position's action."""
    n = pos.F.shape[0]
    C = cs.scoring.box_scores.shape[1]
    A = values.shape[1] if values.shape[0] == n else 32 + C
    K1, K2, M = np.empty((3, NUM_KEEPS, LANES))
    T = np.empty((max(cs.BOXV.shape[1], C), LANES))
    bits = np.empty(LANES, dtype=np.int64)
    out, box, row = np.empty(LANES), np.empty(C), np.empty(A)
    legal = np.empty(A, dtype=np.bool_)
    for lo in range(0, n, LANES):
        m = min(n - lo, LANES)  # a last group not full is searched on its own lanes only (one position: one)
        k1, k2 = K1[:, :m], K2[:, :m]
        lanes = Starts(pos.F[lo:lo + m], pos.u[lo:lo + m], pos.y[lo:lo + m])
        reach_hand_values(cs, R, lanes, needs[lo:lo + m], k1[HAND0:], T[:, :m], bits[:m])
        keep_tree(k1, k2, M[:, :m], out[:m])
        for b in range(m):
            i = lo + b
            reach_row(box, cs, R, pos.hands[i], (pos.F[i], pos.u[i], pos.y[i]), needs[i])
            action_row(row, legal, box, KeepLane(k1, k2, b), pos.hands[i], pos.rolls[i], keep_mask)
            actions[i] = choose(row, legal, False, TIE_TOLERANCE)
            if values.shape[0] == n:
                for a in range(A):
                    values[i, a] = row[a] if legal[a] else NEG_INF


def reach_decide(cs: SearchConstants, R: Ragged, pos: Positions, needs: np.ndarray, keep_mask: np.ndarray,
                 values: np.ndarray) -> np.ndarray:
    """The action of each position (turn-start key, hand, rolls left) that maximises the probability to reach its
    need (points still needed); ``values`` (N, 32 + C) gets every action's probability (``-inf`` where illegal), or
    is (0, 0) to skip it."""
    actions = np.empty(pos.F.shape[0], dtype=np.int64)
    _decide_all(cs, R, pos, needs, keep_mask, actions, values)
    return actions


@cached_njit
def turn_outcomes(cs: SearchConstants, key: tuple[int, int, int]) -> np.ndarray:
    """(n, 2) every ``(next turn-start state, points)`` that scoring some hand in some legal box can give in the turn
    of turn-start state ``key``, with repeats."""
    S = cs.scoring.box_scores
    C = S.shape[1]
    out = np.empty((S.shape[0] * C, 2), dtype=np.int64)
    n = 0
    for h in range(S.shape[0]):
        face = FIVE_KIND_FACE[h]
        lb = legal_bits(cs.scoring.params, face, key[0])
        for c in range(C):
            if (lb >> c) & 1:
                out[n, 0], out[n, 1] = box_step(cs, S[h], cs.scoring.joker_scores[h], face, key, c)
                n += 1
    return out[:n]
