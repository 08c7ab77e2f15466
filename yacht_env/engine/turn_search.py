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
through small per-category tables of box-score classes (:class:`TurnArrays`). The solver sweeps all turn-start
states with them; :func:`turn_values` and :func:`decide` serve any batch of game states (the optimal, greedy and TD
agents, and the regret of evaluations); :func:`successor_table` is the plain reference the tests hold the shortcut
to. Every rule comes from :mod:`yacht_env.rules` through :mod:`yacht_env.engine.compile`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from numba import njit

from yacht_env import dice as D
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.engine.compile import box_score, legal_bits, next_turn_start, points_for
from yacht_env.engine.numba_cache import guard_numba_cache
from yacht_env.rules import FIVE_KIND_FACE as _FIVE_KIND_FACE
from yacht_env.rules import RuleSet, TurnStartLayout
from yacht_env.rules import next_turn_start as plain_next_turn_start  # Python callers: the compiled one is not cached

guard_numba_cache(__file__)  # before any cached kernel below is compiled

LANES = 32
"""States searched together, side by side in memory. The lane count reaches the kernels as a run-time number (the row
width): a compile-time constant would be unrolled into scalar code instead of vectorised."""
TIE_TOLERANCE = 1e-9
"""Actions whose values are this close to the best count as tied."""
NEG_INF = -np.inf

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
FIVE_KIND_FACE = np.ascontiguousarray(_FIVE_KIND_FACE, dtype=np.int64)
FIVE_KIND_HANDS = np.flatnonzero(FIVE_KIND_FACE).astype(np.int64)
PATTERN_KEEP = np.ascontiguousarray(D.PATTERN_KEEP, dtype=np.int64)
"""(252, 32): the keep of each keep pattern of each hand."""
for _a in (KEEP_ADD, REMOVE_PTR, REMOVE_IDX, FIVE_KIND_HANDS, PATTERN_KEEP):
    _a.setflags(write=False)


# ---- the rules' tables for the search ---------------------------------------------------------------------------


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


@dataclass(frozen=True)
class TurnArrays:
    """What the search reads for one rule set: the compiled rules' inputs and the box-score classes.

    ``params``, ``S`` (252, C) and ``J`` (252, C) are the rule set's parameters, score and Joker tables. The hands
    that are not five of a kind are grouped, per category, by their box score: class ``CLS[c, h]`` of box value
    ``BOXV[c, n]`` (``NV[c]`` classes) scoring ``PTV[u, c, n]`` points at capped upper total ``u``. ``layout`` is the
    turn-start layout; :meth:`args` gives the arrays and its dimensions in the order the kernels take them."""

    rules: RuleSet
    layout: TurnStartLayout
    params: np.ndarray
    S: np.ndarray
    J: np.ndarray
    CLS: np.ndarray
    BOXV: np.ndarray
    NV: np.ndarray
    PTV: np.ndarray

    def tables(self) -> tuple[np.ndarray, ...]:
        """``(params, S, J, CLS, BOXV, NV, PTV)``."""
        return self.params, self.S, self.J, self.CLS, self.BOXV, self.NV, self.PTV

    def dims(self) -> tuple[int, int, int, int]:
        """``(U, Y, threshold, five_kind_category)``."""
        return self.layout.dims


@cache
def turn_arrays(rules: RuleSet) -> TurnArrays:
    """The :class:`TurnArrays` of a rule set (built once). Raises ``NotImplementedError`` if some category's points
    are not a function of the box score and the upper total, which the box-score classes need."""
    layout = TurnStartLayout.of(rules)
    params = np.ascontiguousarray(rules.params, dtype=np.int64)
    S = np.ascontiguousarray(rules.score_table, dtype=np.int32)
    J = np.ascontiguousarray(rules.joker_table, dtype=np.int32)
    PT = points_table(params, S, J, layout.U)
    C = rules.num_categories
    plain = FIVE_KIND_FACE == 0
    values = [np.unique(S[plain, c]) for c in range(C)]
    width = max(len(v) for v in values)
    CLS = np.zeros((C, NUM_HANDS), dtype=np.int32)
    BOXV = np.zeros((C, width), dtype=np.int64)
    NV = np.array([len(v) for v in values], dtype=np.int64)
    PTV = np.zeros((PT.shape[0], C, width))
    for c, vals in enumerate(values):
        cls = np.where(plain, np.searchsorted(vals, S[:, c]), 0)
        rep = np.array([np.flatnonzero(plain & (S[:, c] == v))[0] for v in vals])
        if not np.array_equal(PT[:, c, plain], PT[:, c, rep[cls[plain]]]):
            raise NotImplementedError(f"rules {rules.name!r}: the points of {rules.category_ids[c]!r} depend on "
                                      "more than the box score and the upper total")
        CLS[c] = cls
        BOXV[c, : len(vals)] = vals
        PTV[:, c, : len(vals)] = PT[:, c, rep]
    for a in (params, S, J, CLS, BOXV, NV, PTV):
        a.setflags(write=False)
    return TurnArrays(rules, layout, params, S, J, CLS, BOXV, NV, PTV)


# ---- one box: points now plus the next turn-start state -----------------------------------------------------------


@njit(cache=True, inline="always")
def score_value(params: np.ndarray, Sh: np.ndarray, Jh: np.ndarray, face: int, F: int, u: int, y: int, c: int,
                E: np.ndarray, U: int, Y: int, thr: int, ycat: int) -> float:
    """Points for scoring the hand (rows ``Sh``, ``Jh``) in category c in state (F, u, y), plus the value of the
    turn-start state that leads to."""
    pts = points_for(params, Sh, Jh, face, F, u, y == 1, c)
    box = box_score(params, Sh, Jh, face, F, c)
    u2, y2 = next_turn_start(c, box, u, y, thr, Y, ycat)
    return pts + E[((F | (1 << c)) * U + u2) * Y + y2]


@njit(cache=True, inline="always")
def successor_row(out: np.ndarray, h: int, params: np.ndarray, S: np.ndarray, J: np.ndarray, E: np.ndarray, F: int,
                  u: int, y: int, U: int, Y: int, thr: int, ycat: int) -> None:
    """``out[c]`` = points of hand ``h`` in category c plus the value of the next turn-start state, for every
    category of turn-start state (F, u, y); ``-inf`` where the rules forbid it. The rules' own functions."""
    face = FIVE_KIND_FACE[h]
    Sh = S[h]
    Jh = J[h]
    bits = legal_bits(params, face, F)
    for c in range(S.shape[1]):
        out[c] = NEG_INF
        if (bits >> c) & 1:
            out[c] = score_value(params, Sh, Jh, face, F, u, y, c, E, U, Y, thr, ycat)


@njit(cache=True)
def successor_table(params: np.ndarray, S: np.ndarray, J: np.ndarray, E: np.ndarray, F: int, u: int, y: int,
                    U: int, Y: int, thr: int, ycat: int) -> np.ndarray:
    """(252, C) :func:`successor_row` of every hand: the plain reference for :func:`hand_values`."""
    G = np.empty((NUM_HANDS, S.shape[1]))
    for h in range(NUM_HANDS):
        successor_row(G[h], h, params, S, J, E, F, u, y, U, Y, thr, ycat)
    return G


@njit(cache=True, inline="always")
def start_hand_values(params: np.ndarray, Fs: np.ndarray, W: np.ndarray, bits: np.ndarray) -> int:
    """Set ``W[:, :len(Fs)]`` to ``-inf`` and ``bits[b]`` to the legal boxes of a plain hand in lane b's state;
    returns their union (the first step of :func:`hand_values` and of the other objectives' twins of it)."""
    nl = Fs.shape[0]
    for h in range(NUM_HANDS):
        for b in range(nl):
            W[h, b] = NEG_INF
    union = 0
    for b in range(nl):
        bits[b] = legal_bits(params, 0, Fs[b])
        union |= bits[b]
    return union


@njit(cache=True, inline="always")
def max_by_class(W: np.ndarray, T: np.ndarray, cls: np.ndarray, nl: int) -> None:
    """``W[h, b] = max(W[h, b], T[cls[h], b])``: one category's box-score classes into every plain hand's best."""
    for h in range(NUM_HANDS):
        n = cls[h]
        for b in range(nl):
            W[h, b] = max(W[h, b], T[n, b])


@njit(cache=True)
def hand_values(params: np.ndarray, S: np.ndarray, J: np.ndarray, CLS: np.ndarray, BOXV: np.ndarray,
                NV: np.ndarray, PTV: np.ndarray, E: np.ndarray, Fs: np.ndarray, us: np.ndarray, ys: np.ndarray,
                U: int, Y: int, thr: int, ycat: int, W: np.ndarray, T: np.ndarray, bits: np.ndarray) -> None:
    """``W[h, b]`` = best over legal categories of points now + next state value in state (Fs[b], us[b], ys[b]),
    for the lanes b < len(Fs): the row maxima of :func:`successor_table`, fast.

    Hands that are not five of a kind share one legal set per state (``legal_bits`` with face 0), and in category
    c their points and successor depend only on their box score: class ``CLS[c, h]`` of box ``BOXV[c, n]`` scoring
    ``PTV[u, c, n]`` points (checked when the tables are built). So each category costs one small table ``T[n, b]``
    and one vector max per hand. The six five-of-a-kinds go through the rules' functions one by one (Joker, bonus).
    ``T`` (width of BOXV, lanes) and ``bits`` (lanes,) are scratch."""
    C = S.shape[1]
    nl = Fs.shape[0]
    union = start_hand_values(params, Fs, W, bits)
    for c in range(C):
        if not (union >> c) & 1:
            continue
        for n in range(NV[c]):
            box = BOXV[c, n]
            for b in range(nl):
                if (bits[b] >> c) & 1:
                    u2, y2 = next_turn_start(c, box, us[b], ys[b], thr, Y, ycat)
                    T[n, b] = PTV[us[b], c, n] + E[((Fs[b] | (1 << c)) * U + u2) * Y + y2]
                else:
                    T[n, b] = NEG_INF
        max_by_class(W, T, CLS[c], nl)
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
                    v = score_value(params, Sh, Jh, face, F, u, y, c, E, U, Y, thr, ycat)
                    if v > m:
                        m = v
            W[h, b] = m


# ---- the keep tree ----------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _expect_keeps(K: np.ndarray, acc: np.ndarray) -> None:
    """``K[k, b]`` for the keeps of 0..4 dice: the mean of ``K`` over one more die (hands already in place)."""
    nl = K.shape[1]
    for k in range(HAND0 - 1, -1, -1):
        for b in range(nl):
            acc[b] = 0.0
        for f in range(NUM_FACES):
            j = KEEP_ADD[k, f]
            for b in range(nl):
                acc[b] += K[j, b]
        for b in range(nl):
            K[k, b] = acc[b] / NUM_FACES


@njit(cache=True, inline="always")
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


@njit(cache=True)
def keep_tree(K1: np.ndarray, K2: np.ndarray, M: np.ndarray, start: np.ndarray) -> None:
    """The keep tree of one turn for the lanes of ``K1`` (462, lanes), whose hand rows ``K1[HAND0:]`` hold the
    values of ending the turn with each hand (:func:`hand_values`' ``W``).

    Afterwards ``K1[k, b]`` is the value of keeping keep k with one roll left to make, ``K2[k, b]`` with two rolls
    left, and ``start[b]`` the expected value at the start of the turn. ``M`` is scratch. The solver, which needs
    only ``start``, passes one array as all three (``K2`` and ``M`` may be ``K1``)."""
    nl = K1.shape[1]
    acc = np.empty(nl)
    _expect_keeps(K1, acc)
    _best_subkeep(K1, K2)  # K2's hand rows: the values of each hand with one roll left
    _expect_keeps(K2, acc)
    _best_subkeep(K2, M)  # M's hand rows: with two rolls left
    for b in range(nl):
        start[b] = 0.0
    for h in range(NUM_HANDS):
        p = HAND_PROBABILITY[h]
        for b in range(nl):
            start[b] += p * M[HAND0 + h, b]


# ---- decisions ----------------------------------------------------------------------------------------------------


@njit(cache=True)
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


@njit(cache=True, inline="always")
def action_row(out: np.ndarray, legal: np.ndarray, g: np.ndarray, K1: np.ndarray, K2: np.ndarray, b: int, h: int,
               rolls: int, keep_mask: np.ndarray) -> None:
    """Values still to come after each action with hand ``h`` and ``rolls`` rolls left (``out``, ``legal`` of size
    32 + C): keep pattern p is worth its keep's value in lane b of ``K1`` (one roll left) or ``K2`` (two), where
    ``keep_mask[h, p]``; score c is worth ``g[c]`` (:func:`successor_row`), legal where finite."""
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


@njit(cache=True, inline="always")
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


@njit(cache=True, nogil=True)
def _turn_values_kernel(params, S, J, CLS, BOXV, NV, PTV, E, Fs, us, ys, U, Y, thr, ycat,
                        K1, K2, start) -> None:
    """:func:`turn_values` over the groups."""
    n = Fs.shape[0]
    groups = (n + LANES - 1) // LANES
    Fl = np.empty(LANES, dtype=np.int64)
    ul = np.empty(LANES, dtype=np.int64)
    yl = np.empty(LANES, dtype=np.int64)
    T = np.empty((BOXV.shape[1], LANES))
    bits = np.empty(LANES, dtype=np.int64)
    M = np.empty((NUM_KEEPS, LANES))
    out = np.empty(LANES)
    for g in range(groups):
        lo = g * LANES
        nl = min(n, lo + LANES) - lo
        for b in range(LANES):
            j = lo + b if b < nl else lo
            Fl[b] = Fs[j]
            ul[b] = us[j]
            yl[b] = ys[j]
        hand_values(params, S, J, CLS, BOXV, NV, PTV, E, Fl, ul, yl, U, Y, thr, ycat, K1[g][HAND0:], T, bits)
        keep_tree(K1[g], K2[g], M, out)
        for b in range(nl):
            start[lo + b] = out[b]


def turn_values(params: np.ndarray, S: np.ndarray, J: np.ndarray, CLS: np.ndarray, BOXV: np.ndarray,
                NV: np.ndarray, PTV: np.ndarray, E: np.ndarray, Fs: np.ndarray, us: np.ndarray, ys: np.ndarray,
                U: int, Y: int, thr: int, ycat: int, K1: np.ndarray, K2: np.ndarray, start: np.ndarray) -> None:
    """The keep tree of the turn of every state i (turn-start key Fs/us/ys) in groups of ``LANES``: state i lives in
    lane ``i % LANES`` of group ``i // LANES`` of ``K1`` / ``K2`` (:func:`keep_tables`), and ``start[i]`` gets its
    turn-start value (see :func:`keep_tree`). A last group that is not full repeats its first state in the lanes left
    over, so that every group is searched at full width."""
    _turn_values_kernel(params, S, J, CLS, BOXV, NV, PTV, _f64(E), _i64(Fs), _i64(us), _i64(ys), U, Y, thr, ycat, K1,
                        K2, start)


def _f64(a: np.ndarray) -> np.ndarray:
    """A writable C-contiguous float64 array (one type for every caller: one compiled kernel)."""
    return a if a.dtype == np.float64 and a.flags.c_contiguous and a.flags.writeable else np.array(a, np.float64)


def _i64(a: np.ndarray) -> np.ndarray:
    return a if a.dtype == np.int64 and a.flags.c_contiguous and a.flags.writeable else np.array(a, np.int64)


@njit(cache=True, nogil=True)
def _decide_kernel(params, S, J, E, Fs, us, ys, hands, rolls, cols, U, Y, thr, ycat, K1, K2,
                   keep_mask, prefer_score, tol, actions, values) -> None:
    """:func:`decide` over the positions."""
    n = Fs.shape[0]
    A = NUM_KEEP_ACTIONS + S.shape[1]
    keep_values = values.shape[0] == n
    row = np.empty(A)
    legal = np.empty(A, dtype=np.bool_)
    box = np.empty(S.shape[1])
    for i in range(n):
        h = hands[i]
        successor_row(box, h, params, S, J, E, Fs[i], us[i], ys[i], U, Y, thr, ycat)
        g = cols[i] // LANES
        action_row(row, legal, box, K1[g], K2[g], cols[i] % LANES, h, rolls[i], keep_mask)
        actions[i] = choose(row, legal, prefer_score, tol)
        if keep_values:
            for a in range(A):
                values[i, a] = row[a] if legal[a] else NEG_INF


def decide(params: np.ndarray, S: np.ndarray, J: np.ndarray, E: np.ndarray, Fs: np.ndarray, us: np.ndarray,
           ys: np.ndarray, hands: np.ndarray, rolls: np.ndarray, cols: np.ndarray, U: int, Y: int, thr: int,
           ycat: int, K1: np.ndarray, K2: np.ndarray, keep_mask: np.ndarray, prefer_score: bool, tol: float,
           actions: np.ndarray, values: np.ndarray) -> None:
    """The action of each position i (turn-start key Fs/us/ys, hand, rolls left) from the keep tree of its turn, in
    lane ``cols[i] % LANES`` of group ``cols[i] // LANES`` of ``K1`` / ``K2`` (:func:`turn_values`; not read with no
    roll left), and ``E``, by :func:`choose`; -1 where no value is finite. ``values`` (N, 32 + C) gets every
    action's value still to come (``-inf`` where illegal), or is (0, 0) to skip it."""
    _decide_kernel(params, S, J, _f64(E), _i64(Fs), _i64(us), _i64(ys), _i64(hands), _i64(rolls), _i64(cols), U, Y,
                   thr, ycat, K1, K2, keep_mask, bool(prefer_score), float(tol), actions, values)


def search(arrays: TurnArrays, E: np.ndarray, Fs: np.ndarray, us: np.ndarray, ys: np.ndarray, hands: np.ndarray,
           rolls: np.ndarray, keep_mask: np.ndarray, prefer_score: bool = False, values: bool = False
           ) -> tuple[np.ndarray, np.ndarray | None]:
    """The action of each position, and with ``values`` every action's value still to come (N, 32 + C), by the turn
    search with successor values ``E``: the keep tree is searched once per distinct turn-start state among the
    positions with a roll left (a score decision needs none), then every position decides."""
    n = Fs.shape[0]
    U, Y, thr, ycat = arrays.dims()
    need = np.flatnonzero(rolls > 0)
    flat = (Fs[need] * U + us[need]) * Y + ys[need]
    uniq, inv = np.unique(flat, return_inverse=True)
    F1, r = np.divmod(uniq, U * Y)
    u1, y1 = np.divmod(r, Y)
    K1, K2 = keep_tables(max(len(uniq), 1))
    start = np.empty(len(uniq))
    if len(uniq):
        turn_values(*arrays.tables(), E, F1, u1, y1, U, Y, thr, ycat, K1, K2, start)
    cols = np.zeros(n, dtype=np.int64)
    cols[need] = inv.reshape(-1)
    actions = np.empty(n, dtype=np.int64)
    out = np.empty((n, NUM_KEEP_ACTIONS + arrays.S.shape[1])) if values else np.empty((0, 0))
    decide(arrays.params, arrays.S, arrays.J, E, Fs, us, ys, hands, rolls, cols, U, Y, thr, ycat, K1, K2,
           keep_mask, prefer_score, TIE_TOLERANCE, actions, out)
    return actions, (out if values else None)


def keep_tables(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Empty ``K1``, ``K2`` for :func:`turn_values` over ``n`` states."""
    groups = (n + LANES - 1) // LANES
    return np.empty((groups, NUM_KEEPS, LANES)), np.empty((groups, NUM_KEEPS, LANES))


@njit(cache=True)
def missing_successors(Fs: np.ndarray, us: np.ndarray, ys: np.ndarray, known: np.ndarray, box: np.ndarray,
                       nbox: np.ndarray, C: int, U: int, Y: int, thr: int, ycat: int) -> np.ndarray:
    """Flat indices (possibly repeated) of the successors of turn-start states (Fs, us, ys) that ``known`` does not
    hold yet; ``box[c, :nbox[c]]`` are the box values of category c that lead to distinct successors."""
    out = np.empty(Fs.shape[0] * box.shape[0] * box.shape[1], dtype=np.int64)
    n = 0
    for i in range(Fs.shape[0]):
        F, u, y = Fs[i], us[i], ys[i]
        for c in range(C):
            if (F >> c) & 1:
                continue
            base = (F | (1 << c)) * U
            for j in range(nbox[c]):
                u2, y2 = next_turn_start(c, box[c, j], u, y, thr, Y, ycat)
                idx = (base + u2) * Y + y2
                if not known[idx]:
                    out[n] = idx
                    n += 1
    return out[:n]


def successor_boxes(rules: RuleSet) -> tuple[np.ndarray, np.ndarray]:
    """Per category, the box values that lead to distinct successor states (``box[c, :nbox[c]]``), for
    :func:`missing_successors`."""
    layout = TurnStartLayout.of(rules)
    opts: list[list[int]] = []
    for c in range(rules.num_categories):
        vals = sorted({int(v) for v in rules.score_table[:, c]} | {int(v) for v in rules.joker_table[:, c]})
        succ: dict[tuple[int, int], int] = {}
        for v in vals:  # the smallest box value of each distinct successor (over every capped upper total)
            key = tuple(plain_next_turn_start(c, v, u, 0, layout.threshold, layout.Y, layout.five_kind_category)
                        for u in range(layout.U))
            succ.setdefault(key, v)
        opts.append(sorted(succ.values()))
    width = max(len(o) for o in opts)
    box = np.zeros((rules.num_categories, width), dtype=np.int64)
    for c, o in enumerate(opts):
        box[c, : len(o)] = o
    return box, np.array([len(o) for o in opts], dtype=np.int64)


# ---- one state ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StateTurn:
    """The search of one turn from one turn-start state: ``G[h, c]`` points of hand h in box c plus the next
    state's value (``-inf`` where illegal), ``keep1`` / ``keep2`` (462, 1) the value of each keep with one / two rolls
    left, ``start`` the state's value."""

    G: np.ndarray
    keep1: np.ndarray
    keep2: np.ndarray
    start: float


def state_turn(arrays: TurnArrays, E: np.ndarray, F: int, u: int, y: int) -> StateTurn:
    """:class:`StateTurn` of turn-start state (F, u, y) with successor values ``E`` (flat, see
    :class:`~yacht_env.rules.TurnStartLayout`): the same kernels as a batch, on one lane."""
    params, S, J, CLS, BOXV, NV, PTV = arrays.tables()
    U, Y, thr, ycat = arrays.dims()
    one = np.array([F], dtype=np.int64), np.array([u], dtype=np.int64), np.array([y], dtype=np.int64)
    K1 = np.empty((NUM_KEEPS, 1))
    K2 = np.empty((NUM_KEEPS, 1))
    start = np.empty(1)
    hand_values(params, S, J, CLS, BOXV, NV, PTV, E, *one, U, Y, thr, ycat, K1[HAND0:], np.empty((BOXV.shape[1], 1)),
                np.empty(1, dtype=np.int64))
    keep_tree(K1, K2, np.empty((NUM_KEEPS, 1)), start)
    G = successor_table(params, S, J, E, F, u, y, U, Y, thr, ycat)
    for a in (G, K1, K2):
        a.setflags(write=False)
    return StateTurn(G, K1, K2, float(start[0]))


@njit(cache=True)
def state_action_values(G: np.ndarray, K1: np.ndarray, K2: np.ndarray, h: int, rolls: int, keep_mask: np.ndarray,
                        prefer_score: bool, tol: float, values: np.ndarray) -> int:
    """The action (:func:`choose`) with hand ``h`` and ``rolls`` rolls left in the turn of a :class:`StateTurn`;
    ``values`` (32 + C) gets every action's value still to come (``-inf`` where illegal)."""
    legal = np.empty(values.shape[0], dtype=np.bool_)
    action_row(values, legal, G[h], K1, K2, 0, h, rolls, keep_mask)
    for a in range(values.shape[0]):
        if not legal[a]:
            values[a] = NEG_INF
    return choose(values, legal, prefer_score, tol)


# ---- sampled turns (self-play) -------------------------------------------------------------------------------------


HAND_CUM = np.cumsum(D.HAND_PROBABILITY)
"""(252,) cumulative probabilities of a roll of five dice, for :func:`play_turns`."""
TRANSITION_CUM = np.cumsum(D.TRANSITION, axis=1)
"""(462, 252) cumulative P(hand | keep), for :func:`play_turns`."""


@njit(cache=True, inline="always")
def sample(cum: np.ndarray, r: float) -> int:
    """Index drawn from a cumulative distribution with a uniform ``r`` in [0, 1)."""
    i = np.searchsorted(cum, r * cum[-1], side="right")
    n = cum.shape[0]
    if i >= n:
        i = n - 1
    while i > 0 and cum[i] == cum[i - 1]:  # never land on a zero-probability entry
        i -= 1
    return i


@njit(cache=True, inline="always")
def _play_turn(i, params, S, J, E, Fs, us, ys, U, Y, thr, ycat, K1, K2, keep_mask, hand_cum, trans_cum, rand, explore,
               points, F2, u2, y2, steps, row, legal, box) -> None:
    """One sampled turn of game i (see :func:`play_turns`)."""
    C = S.shape[1]
    F, u, y = Fs[i], us[i], ys[i]
    g, b = i // LANES, i % LANES
    h = sample(hand_cum, rand[i, 0])
    rolls = 2
    nsteps = 0
    c = -1
    while c < 0:
        successor_row(box, h, params, S, J, E, F, u, y, U, Y, thr, ycat)
        action_row(row, legal, box, K1[g], K2[g], b, h, rolls, keep_mask)
        a = choose(row, legal, False, TIE_TOLERANCE)
        nsteps += 1
        if a < NUM_KEEP_ACTIONS:
            h = sample(trans_cum[PATTERN_KEEP[h, a]], rand[i, 3 - rolls])
            rolls -= 1
        else:
            c = a - NUM_KEEP_ACTIONS
    if explore[i] >= 0.0:
        nlegal = 0
        for k in range(C):
            if box[k] > NEG_INF:
                nlegal += 1
        pick = int(explore[i] * nlegal)
        for k in range(C):
            if box[k] > NEG_INF:
                if pick == 0:
                    c = k
                    break
                pick -= 1
    face = FIVE_KIND_FACE[h]
    points[i] = points_for(params, S[h], J[h], face, F, u, y == 1, c)
    bx = box_score(params, S[h], J[h], face, F, c)
    F2[i] = F | (1 << c)
    u2[i], y2[i] = next_turn_start(c, bx, u, y, thr, Y, ycat)
    steps[i] = nsteps


@njit(cache=True, nogil=True)
def _play_turns_kernel(params, S, J, E, Fs, us, ys, U, Y, thr, ycat, K1, K2, keep_mask,
                       hand_cum, trans_cum, rand, explore, points, F2, u2, y2, steps) -> None:
    """:func:`play_turns` over the games."""
    n = Fs.shape[0]
    C = S.shape[1]
    row = np.empty(NUM_KEEP_ACTIONS + C)
    legal = np.empty(NUM_KEEP_ACTIONS + C, dtype=np.bool_)
    box = np.empty(C)
    for i in range(n):
        _play_turn(i, params, S, J, E, Fs, us, ys, U, Y, thr, ycat, K1, K2, keep_mask, hand_cum, trans_cum,
                   rand, explore, points, F2, u2, y2, steps, row, legal, box)


def play_turns(params: np.ndarray, S: np.ndarray, J: np.ndarray, E: np.ndarray, Fs: np.ndarray, us: np.ndarray,
               ys: np.ndarray, U: int, Y: int, thr: int, ycat: int, K1: np.ndarray, K2: np.ndarray,
               keep_mask: np.ndarray, hand_cum: np.ndarray, trans_cum: np.ndarray, rand: np.ndarray,
               explore: np.ndarray, points: np.ndarray, F2: np.ndarray, u2: np.ndarray, y2: np.ndarray,
               steps: np.ndarray) -> None:
    """Play one turn of each game i from turn-start state (Fs, us, ys) by the search of :func:`turn_values` (whose
    ``K1``, ``K2`` the caller computed with the same ``E``), the dice drawn with the uniforms ``rand[i, 0..2]`` from
    the dice model. ``explore[i]`` in [0, 1): score a uniformly drawn legal category at the end of the turn instead
    of the best one (``explore[i] < 0``: play best). Writes the points scored, the next turn-start state and the
    number of decisions (environment steps)."""
    _play_turns_kernel(params, S, J, _f64(E), _i64(Fs), _i64(us), _i64(ys), U, Y, thr, ycat, K1, K2, keep_mask,
                       hand_cum, trans_cum, rand, explore, points, F2, u2, y2, steps)
