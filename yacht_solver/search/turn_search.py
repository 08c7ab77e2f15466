"""The turn search: exact expectimax over one turn's rolls and keeps, the one compiled version of it.

A turn has three decision levels: after the first roll (two rolls left: keep or score), after the second (one roll
left) and after the third (score only). Given the values ``E`` of the turn-start states the turn can lead to (the
solver's exact values, a network's estimates, or zeros for a player who looks no further than this turn), the
value of scoring hand ``h`` in box ``c`` is ``points + E[next turn-start state]`` (:func:`successor_row`), and:

- a hand with no roll left is worth its best box (``W``);
- a keep of ``j < 5`` dice is worth the mean over the face of one more die of the keep with ``j + 1`` dice
  (``KEEP_ADD``: 1,260 additions for all 210 smaller keeps);
- a hand with a roll left is worth its best sub-keep, found as the best of the keep itself and of the keeps with one
  die less (``KEEP_REMOVE``, about 1,260 comparisons).

:func:`keep_tree` runs this on ``LANES`` states side by side in memory, so that each step of the keep tree is one
vector operation across them; :func:`hand_values` finds the best box of the 246 hands that are not five of a kind
through small per-category arrays of box-score classes (:class:`SearchConstants`). The solver sweeps all turn-start
states with them; :func:`turn_values` and :func:`decide` serve any batch of game states (the optimal, greedy and TD
agents, and the regret of evaluations), and :mod:`yacht_solver.search.state_search` one state with every action's value;
:func:`successor_table` is the plain reference the tests hold the shortcut to. Every rule comes from
:mod:`yacht_env.rules` through :mod:`yacht_env.jit.compile`.
"""


from __future__ import annotations

from typing import NamedTuple

import numpy as np

from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.jit.compile import box_score, kernel_only, legal_bits, next_turn_start, points_for
from yacht_env.jit.numba_cache import cached_njit
from yacht_solver.search.turn_constants import (
    FIVE_KIND_FACE,
    FIVE_KIND_HANDS,
    HAND0,
    HAND_PROBABILITY,
    KEEP_ADD,
    LANES,
    NEG_INF,
    NUM_FACES,
    NUM_HANDS,
    NUM_KEEPS,
    PATTERN_KEEP,
    REMOVE_IDX,
    REMOVE_PTR,
    TIE_TOLERANCE,
    DecisionRule,
    KeepLane,
    KeepValues,
    SearchConstants,
    Starts,
)

# ---- one box: points now plus the next turn-start state -----------------------------------------------------------


@cached_njit(inline="always")
def score_value(cs: SearchConstants, E: np.ndarray, Sh: np.ndarray, Jh: np.ndarray, face: int,
                key: tuple[int, int, int], c: int) -> float:
    """Points for scoring the hand (rows ``Sh``, ``Jh``) in category c in turn-start state ``key`` = (F, u, y), plus
    the value of the turn-start state that leads to."""
    F, u, y = key
    pts = points_for(cs.scoring.params, Sh, Jh, face, F, u, y == 1, c)
    box = np.int64(box_score(cs.scoring.params, Sh, Jh, face, F, c))
    u2, y2 = next_turn_start(c, box, u, y, cs.thr, cs.Y, cs.ycat)
    return pts + E[((F | (1 << c)) * cs.U + u2) * cs.Y + y2]


@cached_njit(inline="always")
def successor_row(out: np.ndarray, cs: SearchConstants, E: np.ndarray, h: int, key: tuple[int, int, int]) -> None:
    """``out[c]`` = points of hand ``h`` in category c plus the value of the next turn-start state, for every
    category of turn-start state ``key``; ``-inf`` where the rules forbid it. The rules' own functions."""
    face = FIVE_KIND_FACE[h]
    Sh = cs.scoring.box_scores[h]
    Jh = cs.scoring.joker_scores[h]
    bits = legal_bits(cs.scoring.params, face, key[0])
    for c in range(cs.scoring.box_scores.shape[1]):
        out[c] = NEG_INF
        if (bits >> c) & 1:
            out[c] = score_value(cs, E, Sh, Jh, face, key, c)


@cached_njit
def successor_table(cs: SearchConstants, E: np.ndarray, key: tuple[int, int, int]) -> np.ndarray:
    """(252, C) :func:`successor_row` of every hand: the plain reference for :func:`hand_values`."""
    G = np.empty((NUM_HANDS, cs.scoring.box_scores.shape[1]))
    for h in range(NUM_HANDS):
        successor_row(G[h], cs, E, h, key)
    return G


@cached_njit(inline="always")
def start_hand_values(params: np.ndarray, Fs: np.ndarray, W: np.ndarray, bits: np.ndarray) -> int:
    """Set ``W[:, :len(Fs)]`` to ``-inf`` and ``bits[b]`` to the legal boxes of a plain hand in lane b's state;
    returns their union (the first step of :func:`hand_values` and of the other objectives' twins of it)."""
    nl = Fs.shape[0]
    for h in range(NUM_HANDS):
        for b in range(nl):
            W[h, b] = NEG_INF
    union = 0
    for b in range(nl):
        bits[b] = legal_bits(params, np.int64(0), Fs[b])  # typed, not literal: one compiled signature
        union |= bits[b]
    return union


@cached_njit(inline="always")
def max_by_class(W: np.ndarray, T: np.ndarray, cls: np.ndarray, nl: int) -> None:
    """``W[h, b] = max(W[h, b], T[cls[h], b])``: one category's box-score classes into every plain hand's best."""
    for h in range(NUM_HANDS):
        n = cls[h]
        for b in range(nl):
            W[h, b] = max(W[h, b], T[n, b])


@kernel_only(_nrt=True)  # it allocates
def hand_values(cs: SearchConstants, E: np.ndarray, lanes: Starts, W: np.ndarray, T: np.ndarray, bits: np.ndarray
                ) -> None:
    """``W[h, b]`` = best over legal categories of points now + next state value in turn-start state b of
    ``lanes``, for the lanes b < len(lanes.F): the row maxima of :func:`successor_table`, fast.

    Hands that are not five of a kind share one legal set per state (``legal_bits`` with face 0), and in category
    c their points and successor depend only on their box score: class ``CLS[c, h]`` of box ``BOXV[c, n]`` scoring
    ``PTV[u, c, n]`` points (checked when the arrays are built). So each category costs one small table ``T[n, b]``
    and one vector max per hand. The six five-of-a-kinds go through the rules' functions one by one (Joker, bonus).
    ``T`` (width of BOXV, lanes) and ``bits`` (lanes,) are scratch."""
    Fs, us, ys = lanes
    C = cs.scoring.box_scores.shape[1]
    nl = Fs.shape[0]
    U, Y, thr, ycat = cs.U, cs.Y, cs.thr, cs.ycat
    union = start_hand_values(cs.scoring.params, Fs, W, bits)
    for c in range(C):
        if not (union >> c) & 1:
            continue
        for n in range(cs.NV[c]):
            box = cs.BOXV[c, n]
            for b in range(nl):
                if (bits[b] >> c) & 1:
                    u2, y2 = next_turn_start(c, box, us[b], ys[b], thr, Y, ycat)
                    T[n, b] = cs.PTV[us[b], c, n] + E[((Fs[b] | (1 << c)) * U + u2) * Y + y2]
                else:
                    T[n, b] = NEG_INF
        max_by_class(W, T, cs.CLS[c], nl)
    for i in range(FIVE_KIND_HANDS.shape[0]):
        h = FIVE_KIND_HANDS[i]
        face = FIVE_KIND_FACE[h]
        Sh = cs.scoring.box_scores[h]  # one view per hand: views cost reference counting
        Jh = cs.scoring.joker_scores[h]
        for b in range(nl):
            key = (Fs[b], us[b], ys[b])
            fb = legal_bits(cs.scoring.params, face, key[0])
            m = NEG_INF
            for c in range(C):
                if (fb >> c) & 1:
                    v = score_value(cs, E, Sh, Jh, face, key, c)
                    if v > m:
                        m = v
            W[h, b] = m


# ---- the keep tree ----------------------------------------------------------------------------------------------


@cached_njit(inline="always")
def _expect_keeps(K: np.ndarray) -> None:
    """``K[k, b]`` for the keeps of 0..4 dice: the mean of ``K`` over one more die (hands already in place), the six
    faces summed in order in one pass over the lanes (2.0x faster than summing row by row into a buffer, the same
    sums: ``python benchmarks/bench_objectives.py --parts``)."""
    nl = K.shape[1]
    for k in range(HAND0 - 1, -1, -1):
        j = KEEP_ADD[k]
        j0, j1, j2, j3, j4, j5 = j[0], j[1], j[2], j[3], j[4], j[5]
        for b in range(nl):
            K[k, b] = (K[j0, b] + K[j1, b] + K[j2, b] + K[j3, b] + K[j4, b] + K[j5, b]) / NUM_FACES


if KEEP_ADD.shape[1] != NUM_FACES or NUM_FACES != 6:  # _expect_keeps sums six faces by name
    raise ImportError(f"the keep tree sums 6 faces, the dice arrays have {KEEP_ADD.shape[1]}")


@cached_njit(inline="always")
def _best_subkeep(K: np.ndarray, M: np.ndarray) -> None:
    """``M[k, b]`` = max of ``K[., b]`` over the sub-keeps of keep ``k`` (itself included). ``M`` may be ``K``."""
    nl = K.shape[1]
    for b in range(nl):
        M[0, b] = K[0, b]
    for k in range(1, NUM_KEEPS):
        for b in range(nl):
            M[k, b] = K[k, b]
        for j in range(REMOVE_PTR[k], REMOVE_PTR[k + 1]):
            r = REMOVE_IDX[j]
            for b in range(nl):
                M[k, b] = max(M[k, b], M[r, b])


@kernel_only(_nrt=True)  # it allocates
def keep_tree(K1: np.ndarray, K2: np.ndarray, M: np.ndarray, start: np.ndarray) -> None:
    """The keep tree of one turn for the lanes of ``K1`` (462, lanes), whose hand rows ``K1[HAND0:]`` hold the
    values of ending the turn with each hand (:func:`hand_values`' ``W``).

    Afterwards ``K1[k, b]`` is the value of keeping keep k with one roll left to make, ``K2[k, b]`` with two rolls
    left, and ``start[b]`` the expected value at the start of the turn. ``M`` is scratch. The solver, which needs
    only ``start``, passes one array as all three (``K2`` and ``M`` may be ``K1``)."""
    nl = K1.shape[1]
    src, dst = K1, K2
    for _ in range(2):  # one call site each: an inlined function is compiled again at every site
        _expect_keeps(src)
        _best_subkeep(src, dst)  # dst's hand rows: the values of each hand with one (then two) rolls left
        src, dst = K2, M
    for b in range(nl):
        start[b] = 0.0
    for h in range(NUM_HANDS):
        p = HAND_PROBABILITY[h]
        for b in range(nl):
            start[b] += p * M[HAND0 + h, b]


# ---- decisions ----------------------------------------------------------------------------------------------------


@cached_njit
def best_in_row(values: np.ndarray, legal: np.ndarray, tol: float) -> int:
    """Lowest index whose value is within ``tol`` of the best legal value, -1 if nothing is legal (or every legal
    value is NaN)."""
    m = NEG_INF
    for i in range(values.shape[0]):
        if legal[i] and values[i] > m:
            m = values[i]
    if m == NEG_INF:
        return -1
    for i in range(values.shape[0]):
        if legal[i] and values[i] >= m - tol:
            return i
    return -1


@cached_njit(inline="always")
def action_row(out: np.ndarray, legal: np.ndarray, g: np.ndarray, lane: KeepLane, h: int, rolls: int,
               keep_mask: np.ndarray) -> None:
    """Values still to come after each action with hand ``h`` and ``rolls`` rolls left (``out``, ``legal`` of size
    32 + C): keep pattern p is worth its keep's value in ``lane`` (``K1``: one roll left, ``K2``: two), where
    ``keep_mask[h, p]``; score c is worth ``g[c]`` (:func:`successor_row`), legal where finite."""
    K1, K2, b = lane
    for p in range(NUM_KEEP_ACTIONS):
        ok = rolls > 0 and keep_mask[h, p]
        legal[p] = ok
        out[p] = NEG_INF
        if ok:
            k = PATTERN_KEEP[h, p]
            out[p] = K2[k, b] if rolls == 2 else K1[k, b]
    for c in range(g.shape[0]):
        out[NUM_KEEP_ACTIONS + c] = g[c]
        legal[NUM_KEEP_ACTIONS + c] = g[c] > NEG_INF


@cached_njit(inline="always")
def choose(values: np.ndarray, legal: np.ndarray, prefer_score: bool, tol: float) -> int:
    """The action of a row of :func:`action_row`: the lowest action within ``tol`` of the best (keeps come first);
    with ``prefer_score``, scoring whenever it is worth at least the best keep less ``tol`` (the lowest box within
    ``tol`` of the best box) and else the lowest keep within ``tol`` of the best keep: the greedy player's rule."""
    if not prefer_score:
        return best_in_row(values, legal, tol)
    best_keep = NEG_INF
    best_box = NEG_INF
    for a in range(values.shape[0]):
        if legal[a]:
            if a < NUM_KEEP_ACTIONS:
                best_keep = max(best_keep, values[a])
            else:
                best_box = max(best_box, values[a])
    if best_box == NEG_INF and best_keep == NEG_INF:
        return -1
    lo, hi, m = NUM_KEEP_ACTIONS, values.shape[0], best_box
    if best_box < best_keep - tol:
        lo, hi, m = 0, NUM_KEEP_ACTIONS, best_keep
    for a in range(lo, hi):
        if legal[a] and values[a] >= m - tol:
            return a
    return -1


@cached_njit(nogil=True)
def _turn_values_kernel(cs: SearchConstants, E: np.ndarray, starts: Starts, keeps: KeepValues, start: np.ndarray
                        ) -> None:
    """:func:`turn_values` over the groups."""
    n = starts.F.shape[0]
    groups = (n + LANES - 1) // LANES
    starts_only = keeps.K2.shape[0] == 0
    lanes = Starts(np.empty(LANES, dtype=np.int64), np.empty(LANES, dtype=np.int64), np.empty(LANES, dtype=np.int64))
    T = np.empty((cs.BOXV.shape[1], LANES))
    bits = np.empty(LANES, dtype=np.int64)
    M = np.empty((NUM_KEEPS, LANES))
    out = np.empty(LANES)
    for g in range(groups):
        lo = g * LANES
        nl = min(n, lo + LANES) - lo
        for b in range(LANES):
            j = lo + b if b < nl else lo
            lanes.F[b] = starts.F[j]
            lanes.u[b] = starts.u[j]
            lanes.y[b] = starts.y[j]
        K1 = keeps.K1[0 if starts_only else g]
        hand_values(cs, E, lanes, K1[HAND0:], T, bits)
        if starts_only:  # in place: only the turn-start values are wanted
            keep_tree(K1, K1, K1, out)
        else:
            keep_tree(K1, keeps.K2[g], M, out)
        for b in range(nl):
            start[lo + b] = out[b]


def turn_values(cs: SearchConstants, E: np.ndarray, starts: Starts, keeps: KeepValues, start: np.ndarray) -> None:
    """The keep tree of the turn of every state i (turn-start key ``starts[i]``) in groups of ``LANES``: state i lives
    in lane ``i % LANES`` of group ``i // LANES`` of the keep values (:func:`empty_keep_values`), and ``start[i]``
    gets its turn-start value (see :func:`keep_tree`). A last group that is not full repeats its first state in the
    lanes left over, so that every group is searched at full width. Keep values from ``empty_keep_values(0)`` keep
    nothing: only the turn-start values are wanted (the solver), and one group of scratch serves every group."""
    _turn_values_kernel(cs, as_f64(E), as_starts(starts), keeps, start)


def as_f64(a: np.ndarray) -> np.ndarray:
    """A writable C-contiguous float64 array (one type for every caller: one compiled kernel)."""
    return a if a.dtype == np.float64 and a.flags.c_contiguous and a.flags.writeable else np.array(a, np.float64)


def as_i64(a: np.ndarray) -> np.ndarray:
    return a if a.dtype == np.int64 and a.flags.c_contiguous and a.flags.writeable else np.array(a, np.int64)


def as_starts(starts: Starts) -> Starts:
    """:class:`Starts` of writable C-contiguous int64 arrays."""
    return Starts(*(as_i64(np.asarray(a)) for a in starts))


class Positions(NamedTuple):
    """Positions to decide (int64 arrays): turn-start keys, the hand, and the rolls left in the turn."""

    F: np.ndarray
    u: np.ndarray
    y: np.ndarray
    hands: np.ndarray
    rolls: np.ndarray


@cached_njit(nogil=True)
def _decide_kernel(cs: SearchConstants, E: np.ndarray, pos: Positions, cols: np.ndarray, keeps: KeepValues,
                   rule: DecisionRule, actions: np.ndarray, values: np.ndarray) -> None:
    """:func:`decide` over the positions."""
    n = pos.F.shape[0]
    A = NUM_KEEP_ACTIONS + cs.scoring.box_scores.shape[1]
    keep_values = values.shape[0] == n
    row = np.empty(A)
    legal = np.empty(A, dtype=np.bool_)
    box = np.empty(cs.scoring.box_scores.shape[1])
    for i in range(n):
        h = pos.hands[i]
        successor_row(box, cs, E, h, (pos.F[i], pos.u[i], pos.y[i]))
        g = cols[i] // LANES
        action_row(row, legal, box, KeepLane(keeps.K1[g], keeps.K2[g], cols[i] % LANES), h, pos.rolls[i],
                   rule.keep_mask)
        actions[i] = choose(row, legal, rule.prefer_score, rule.tol)
        if keep_values:
            for a in range(A):
                values[i, a] = row[a] if legal[a] else NEG_INF


def decide(cs: SearchConstants, E: np.ndarray, pos: Positions, cols: np.ndarray, keeps: KeepValues,
           rule: DecisionRule, actions: np.ndarray, values: np.ndarray) -> None:
    """The action of each position i from the keep tree of its turn, in lane ``cols[i] % LANES`` of group
    ``cols[i] // LANES`` of the keep values (:func:`turn_values`; not read with no roll left), and ``E``, by
    :func:`choose` with ``rule``; -1 where no value is finite. ``values`` (N, 32 + C) gets every action's value still
    to come (``-inf`` where illegal), or is (0, 0) to skip it."""
    pos = Positions(*(as_i64(np.asarray(a)) for a in pos))
    rule = DecisionRule(rule.keep_mask, bool(rule.prefer_score), float(rule.tol))
    _decide_kernel(cs, as_f64(E), pos, as_i64(cols), keeps, rule, actions, values)


def search(cs: SearchConstants, E: np.ndarray, pos: Positions, keep_mask: np.ndarray, prefer_score: bool = False,
           values: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """The action of each position, and with ``values`` every action's value still to come (N, 32 + C), by the turn
    search with successor values ``E``: the keep tree is searched once per distinct turn-start state among the
    positions with a roll left (a score decision needs none), then every position decides."""
    n = pos.F.shape[0]
    U, Y = cs.U, cs.Y
    need = np.flatnonzero(pos.rolls > 0)
    flat = (pos.F[need] * U + pos.u[need]) * Y + pos.y[need]
    uniq, inv = np.unique(flat, return_inverse=True)
    F1, r = np.divmod(uniq, U * Y)
    u1, y1 = np.divmod(r, Y)
    keeps = empty_keep_values(max(len(uniq), 1))
    start = np.empty(len(uniq))
    if len(uniq):
        turn_values(cs, E, Starts(F1, u1, y1), keeps, start)
    cols = np.zeros(n, dtype=np.int64)
    cols[need] = inv.reshape(-1)
    actions = np.empty(n, dtype=np.int64)
    out = np.empty((n, NUM_KEEP_ACTIONS + cs.scoring.box_scores.shape[1])) if values else np.empty((0, 0))
    decide(cs, E, pos, cols, keeps, DecisionRule(keep_mask, prefer_score, TIE_TOLERANCE), actions, out)
    return actions, (out if values else None)


def empty_keep_values(n: int) -> KeepValues:
    """Empty :class:`KeepValues` for :func:`turn_values` over ``n`` states; for ``n = 0`` one group of scratch and no
    ``K2``: the search then keeps only the turn-start values."""
    if n == 0:
        return KeepValues(np.empty((1, NUM_KEEPS, LANES)), np.empty((0, NUM_KEEPS, LANES)))
    groups = (n + LANES - 1) // LANES
    return KeepValues(np.empty((groups, NUM_KEEPS, LANES)), np.empty((groups, NUM_KEEPS, LANES)))
