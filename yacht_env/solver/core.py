"""Exact optimal play by backward induction over turn-start states.

A turn-start state is the set of filled categories, the upper total capped at the bonus threshold (only for rule
sets with an upper bonus) and whether the five-of-a-kind box holds 50 (only for rule sets with a five-of-a-kind
bonus or Joker). Its value is the expected number of points still to come under optimal play. Within a turn the
solver takes expectations over the 252 hands and the 462 keeps with the keep tree of :mod:`.kernels`.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import numba
import numpy as np

from yacht_env import dice as D
from yacht_env.actions import KEEP_MASK_ALL, KEEP_MASK_UNIQUE, NUM_KEEP_ACTIONS
from yacht_env.rules import NUM_UPPER, RuleSet, get_rules
from yacht_env.solver import cache as _cache
from yacht_env.solver import kernels as K
from yacht_env.state import GameState

TIE_TOLERANCE = 1e-9
"""Actions whose values are this close to the best count as tied; the lowest action index wins."""
TURN_CACHE_SIZE = 256


@dataclass(frozen=True)
class Layout:
    """How the turn-start states of a rule set are indexed: ``values[filled, upper, y]``, or flat
    ``(filled * U + upper) * Y + y`` in the kernels."""

    num_categories: int
    threshold: int  # capped upper total (0: no upper bonus, upper total not tracked)
    five_kind_category: int  # -1: the five-of-a-kind box is not tracked

    @property
    def U(self) -> int:
        return self.threshold + 1

    @property
    def Y(self) -> int:
        return 2 if self.five_kind_category >= 0 else 1

    @property
    def shape(self) -> tuple[int, int, int]:
        return (1 << self.num_categories, self.U, self.Y)

    @property
    def size(self) -> int:
        return (1 << self.num_categories) * self.U * self.Y

    def key(self, filled_bits: int, upper_total: int, yahtzee_box: int | None) -> tuple[int, int, int]:
        """``(filled, upper, y)`` of a scorecard: the upper total capped at the threshold (0 if not tracked), y 1 if
        the five-of-a-kind box is tracked and holds 50."""
        u = min(upper_total, self.threshold) if self.threshold else 0
        y = 1 if self.Y == 2 and yahtzee_box == 50 else 0
        return filled_bits, u, y

    @classmethod
    def of(cls, rules: RuleSet) -> Layout:
        thr = rules.upper_bonus_threshold if rules.has_upper_bonus else 0
        return cls(rules.num_categories, int(thr), rules.five_kind_category if rules.has_five_kind_box else -1)


@lru_cache(maxsize=16)
def _upper_reach(rules: RuleSet) -> np.ndarray:
    """(64, max+1) bool: which uncapped upper totals each set of filled upper boxes can hold."""
    boxes = [sorted({int(v) for v in rules.score_table[:, c]} | {int(v) for v in rules.joker_table[:, c]})
             for c in range(NUM_UPPER)]
    top = sum(max(b) for b in boxes)
    reach = np.zeros((1 << NUM_UPPER, top + 1), dtype=np.bool_)
    reach[0, 0] = True
    for m in range(1 << NUM_UPPER):  # masks grow by one bit, so m is complete before it is extended
        totals = np.flatnonzero(reach[m])
        for c in range(NUM_UPPER):
            if not m >> c & 1:
                for v in boxes[c]:
                    reach[m | 1 << c, totals + v] = True
    reach.setflags(write=False)
    return reach


def _states(layout: Layout, reach: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reachable non-final turn-start states as flat indices, and their layers (number of filled boxes),
    fullest scorecard first and grouped by filled set within a layer."""
    C, U, Y = layout.num_categories, layout.U, layout.Y
    F = np.arange(1 << C)
    popcount = np.zeros(1 << C, dtype=np.int64)
    for c in range(C):
        popcount += F >> c & 1
    if layout.threshold:
        capped = np.zeros((1 << NUM_UPPER, U), dtype=np.bool_)
        capped[:, : U - 1] = reach[:, : U - 1]
        capped[:, U - 1] = reach[:, U - 1 :].any(axis=1)
        ok_u = capped[F & ((1 << NUM_UPPER) - 1)]
    else:
        ok_u = np.ones((1 << C, 1), dtype=np.bool_)
    ok = np.broadcast_to(ok_u[:, :, None], (1 << C, U, Y)).copy()
    if Y == 2:
        ok[:, :, 1] &= (F >> layout.five_kind_category & 1 == 1)[:, None]
    ok[popcount == C] = False  # the final state is worth 0, nothing to solve
    order = np.argsort(-popcount, kind="stable")  # filled sets, fullest first
    pos = np.flatnonzero(ok[order].ravel())
    UY = U * Y
    F_of = order[pos // UY]
    return (F_of * UY + pos % UY).astype(np.int64), popcount[F_of]


def _batches(layout: Layout, states: np.ndarray, layer: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The states of each layer in rows of ``LANES`` (a layer's last row padded by repeating its first state), and
    the row ranges of the layers, fullest scorecard first."""
    L = K.LANES
    starts = np.flatnonzero(np.r_[True, layer[1:] != layer[:-1]])
    sizes = np.diff(np.r_[starts, len(states)])
    offsets = np.r_[0, np.cumsum((sizes + L - 1) // L)]
    group = np.repeat(np.arange(len(starts)), sizes)
    pos = np.arange(len(states)) - starts[group]
    rows = np.full((offsets[-1], L), -1, dtype=np.int64)
    rows[offsets[group] + pos // L, pos % L] = states
    pad = rows < 0
    rows[pad] = np.broadcast_to(rows[:, :1], rows.shape)[pad]
    row_layer = layer[starts[np.searchsorted(offsets, np.arange(offsets[-1]), side="right") - 1]]
    C = layout.num_categories
    ptr = np.searchsorted(-row_layer, -np.arange(C - 1, -2, -1), side="left").astype(np.int64)
    return rows, ptr


def _class_tables(rules: RuleSet, PT: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Classes of the hands that are not five of a kind by box score, per category (see
    :func:`kernels.batch_hand_values`): ``CLS`` (C, 252), ``BOXV`` (C, n) box values, ``NV`` (C,) class counts and
    ``PTV`` (U, C, n) points. Raises ``NotImplementedError`` if some category's points are not a function of the box
    score and the upper total, which the solver's shortcut needs."""
    S = np.asarray(rules.score_table)
    C = rules.num_categories
    plain = K.FIVE_KIND_FACE == 0
    values = [np.unique(S[plain, c]) for c in range(C)]
    width = max(len(v) for v in values)
    CLS = np.zeros((C, K.NUM_HANDS), dtype=np.int32)
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
    return CLS, BOXV, NV, PTV


def _rules_arrays(rules: RuleSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    params = np.ascontiguousarray(rules.params, dtype=np.int64)
    S = np.ascontiguousarray(rules.score_table, dtype=np.int32)
    J = np.ascontiguousarray(rules.joker_table, dtype=np.int32)
    return params, S, J


def turn_arrays(rules: RuleSet) -> tuple[np.ndarray, ...]:
    """``(params, S, J, CLS, BOXV, NV, PTV)``: the arguments before the values of :func:`kernels.solve_layers` and
    :func:`kernels.fast_successor_table`, the compiled rules and the box-score classes of :func:`_class_tables`."""
    params, S, J = _rules_arrays(rules)
    return (params, S, J, *_class_tables(rules, K.points_table(params, S, J, Layout.of(rules).U)))


def compute_values(rules: RuleSet) -> np.ndarray:
    """Solve ``rules``: the (2**C, U, Y) table of turn-start values (NaN for unreachable states)."""
    layout = Layout.of(rules)
    params, S, J, CLS, BOXV, NV, PTV = turn_arrays(rules)
    states, layer = _states(layout, _upper_reach(rules))
    rows, ptr = _batches(layout, states, layer)
    E = np.full(layout.size, np.nan)
    E.reshape(layout.shape)[-1] = 0.0  # every box filled: nothing more to come
    K.solve_layers(params, S, J, CLS, BOXV, NV, PTV, E, rows, ptr, layout.U, layout.Y, layout.threshold,
                   layout.five_kind_category, numba.get_num_threads())
    values = E.reshape(layout.shape)
    values.setflags(write=False)
    return values


@dataclass(frozen=True)
class TurnTables:
    """The decision tables of one turn from a turn-start state (values still to come, the turn's own points
    included).

    ``G[h, c]``: points of category c with hand h plus the next state's value (``-inf`` where illegal);
    ``keep1[k]`` / ``keep2[k]``: value of keeping keep k with one / two rolls left (before that roll);
    ``start``: the state's value; ``best[r, h]``: the optimal action with hand h and r rolls left (-1 until
    asked for).
    """

    G: np.ndarray
    keep1: np.ndarray
    keep2: np.ndarray
    start: float
    best: np.ndarray


_HAND_OF: dict[tuple[int, ...], int] = {tuple(int(f) for f in h): i for i, h in enumerate(D.HANDS)}


class Solution:
    """The solved game: the value of every turn-start state, and optimal action values in any game state.

    ``values[filled_bits, u, y]``: expected points to come from the start of a turn (``u`` the upper total capped at
    the bonus threshold, ``y`` 1 if the five-of-a-kind box holds 50; both 0 where the rules do not track them);
    NaN for combinations no game reaches.
    """

    def __init__(self, rules: RuleSet, values: np.ndarray, *, seconds: float = 0.0, from_cache: bool = False):
        self.rules = rules
        self.layout = Layout.of(rules)
        if values.shape != self.layout.shape:
            raise ValueError(f"value table of shape {values.shape}, expected {self.layout.shape} for {rules.name!r}")
        self.values = values
        self._flat = np.ascontiguousarray(values).reshape(-1)
        self.seconds = seconds
        self.from_cache = from_cache
        self._reach = _upper_reach(rules)
        self._arrays: tuple[np.ndarray, ...] | None = None  # turn_arrays(rules), on first use
        self._turns: OrderedDict[tuple[int, int, int], TurnTables] = OrderedDict()
        self._by_scores: OrderedDict[tuple[int | None, ...], TurnTables] = OrderedDict()

    def __repr__(self) -> str:
        return f"Solution(rules={self.rules.name!r}, start_value={self.start_value:.7f})"

    @property
    def start_value(self) -> float:
        """Optimal expected final score of a new game."""
        return float(self.values[0, 0, 0])

    # ---- turn-start states ----------------------------------------------------------------------------------
    def value(self, filled: Iterable[str], upper_total: int = 0, yahtzee_box: int | None = None) -> float:
        """Expected points still to come, from the start of a turn with the categories ``filled`` filled, the
        upper boxes summing to ``upper_total`` (uncapped, as on the card) and the five-of-a-kind box (Yahtzee /
        Yacht) holding ``yahtzee_box`` (``None`` while open, else 0 or 50). ``ValueError`` for impossible input."""
        rs = self.rules
        if isinstance(filled, str):
            raise ValueError(f"filled must be an iterable of category ids, not the string {filled!r}")
        bits = 0
        for cid in filled:
            i = rs.category_index(cid)
            if bits >> i & 1:
                raise ValueError(f"category {cid!r} is listed twice in filled")
            bits |= 1 << i
        if isinstance(upper_total, bool) or not isinstance(upper_total, (int, np.integer)):
            raise ValueError(f"upper_total must be an integer, got {upper_total!r}")
        upper_mask = bits & ((1 << NUM_UPPER) - 1)
        if not 0 <= upper_total < self._reach.shape[1] or not self._reach[upper_mask, upper_total]:
            upper = [rs.category_ids[c] for c in range(NUM_UPPER) if upper_mask >> c & 1]
            raise ValueError(f"upper_total {upper_total!r} is not possible with the upper boxes filled "
                             f"({', '.join(upper) or 'none'})")
        ycat = rs.five_kind_category
        if ycat < 0:
            if yahtzee_box is not None:
                raise ValueError(f"rules {rs.name!r} have no five-of-a-kind bonus box: yahtzee_box must be None")
        elif not bits >> ycat & 1:
            if yahtzee_box is not None:
                raise ValueError(f"yahtzee_box must be None while {rs.category_ids[ycat]!r} is open, "
                                 f"got {yahtzee_box!r}")
        elif isinstance(yahtzee_box, bool) or yahtzee_box not in (0, 50):
            raise ValueError(f"{rs.category_ids[ycat]!r} is filled: yahtzee_box must be 0 or 50, got {yahtzee_box!r}")
        return float(self.values[self.layout.key(bits, int(upper_total), yahtzee_box)])

    # ---- within a turn ----------------------------------------------------------------------------------------
    def turn_tables(self, filled_bits: int, upper_total: int = 0, yahtzee_box: int | None = None) -> TurnTables:
        """The decision tables of the turn starting in this state (kept in a small LRU cache: the decisions of
        one turn reuse them)."""
        if upper_total < 0:
            raise ValueError(f"upper_total must not be negative, got {upper_total}")
        key = self.layout.key(filled_bits, upper_total, yahtzee_box)
        t = self._turns.get(key)
        if t is not None:
            self._turns.move_to_end(key)
            return t
        if not 0 <= filled_bits < self.rules.all_bits or not np.isfinite(self.values[key]):
            raise ValueError(f"no turn starts from filled bits {filled_bits:#x}, upper total {upper_total}, "
                             f"Yahtzee box {yahtzee_box} under rules {self.rules.name!r}: the game is over or the "
                             "scorecard is impossible")
        lay = self.layout
        if self._arrays is None:
            self._arrays = turn_arrays(self.rules)
        G = K.fast_successor_table(*self._arrays, self._flat, key[0], key[1], key[2], lay.U, lay.Y, lay.threshold,
                                   lay.five_kind_category)
        _, keep1, _, keep2, _, start = K.turn_tables(G)
        for a in (G, keep1, keep2):
            a.setflags(write=False)
        best = np.full((3, D.NUM_HANDS), -1, dtype=np.int64)  # filled in as asked
        t = TurnTables(G, keep1, keep2, float(start), best)
        self._turns[key] = t
        if len(self._turns) > TURN_CACHE_SIZE:
            self._turns.popitem(last=False)
        return t

    def _check(self, state: GameState) -> None:
        if not isinstance(state, GameState):
            raise ValueError(f"expected a GameState, got {type(state).__name__}")
        if state.rules != self.rules.name:
            raise ValueError(f"this solution is for rules {self.rules.name!r}, the state is {state.rules!r}")

    def _turn_of(self, state: GameState) -> TurnTables:
        """The turn tables of a game state in play, looked up by its scorecard (no derived properties on a hit)."""
        t = self._by_scores.get(state.scores)
        if t is None:
            t = self.turn_tables(state.filled_bits, state.upper_total, state.yahtzee_box)
            self._by_scores[state.scores] = t
            if len(self._by_scores) > TURN_CACHE_SIZE:
                self._by_scores.popitem(last=False)
        return t

    def action_values(self, state: GameState, unique_keeps: bool = True) -> np.ndarray:
        """(32 + C,) expected final score (score so far plus what is to come under optimal play) after each legal
        action of :func:`yacht_env.actions.action_mask`; NaN for illegal actions."""
        self._check(state)
        out = np.full(NUM_KEEP_ACTIONS + self.rules.num_categories, np.nan)
        if state.is_over:
            return out
        t = self._turn_of(state)
        h = _HAND_OF[state.dice]
        total = state.total
        g = t.G[h]
        out[NUM_KEEP_ACTIONS:] = np.where(g > -np.inf, g + total, np.nan)
        if state.rolls_left > 0:
            keeps = t.keep2 if state.rolls_left == 2 else t.keep1
            mask = (KEEP_MASK_UNIQUE if unique_keeps else KEEP_MASK_ALL)[h]
            out[:NUM_KEEP_ACTIONS] = np.where(mask, keeps[K.PATTERN_KEEP[h]] + total, np.nan)
        return out

    def best_action(self, state: GameState, unique_keeps: bool = True) -> int:
        """The optimal action; among actions within 1e-9 of the best value, the lowest index. The same with or
        without ``unique_keeps``: the lowest pattern keeping a multiset is the one ``unique_keeps`` allows."""
        self._check(state)
        if state.is_over:
            raise ValueError("the game is over: there is no action to take")
        t = self._turn_of(state)
        r, h = state.rolls_left, _HAND_OF[state.dice]
        a = t.best[r, h]
        if a < 0:
            a = t.best[r, h] = K.best_action_of(t.G, t.keep1, t.keep2, r, h, K.PATTERN_KEEP, KEEP_MASK_UNIQUE,
                                                TIE_TOLERANCE)
        return int(a)


_MEMO: dict[str, Solution] = {}


def clear_memory_cache() -> None:
    """Forget the solutions kept in memory by ``solve(..., cache=True)`` (the disk cache stays)."""
    _MEMO.clear()


def solve(rules: str | RuleSet, *, cache: bool = True) -> Solution:
    """The exact optimal solution of ``rules`` (a name in :data:`yacht_env.rules.RULESETS` or a RuleSet).

    With ``cache`` (default) a solution already made in this process, or a valid table on disk
    (:mod:`yacht_env.solver.cache`), is reused, and a new one is saved. ``cache=False`` always solves and touches
    no file. ``Solution.seconds`` is the time the table took to compute or load, ``Solution.from_cache`` whether it
    was read from disk.
    """
    rs = get_rules(rules)
    layout = Layout.of(rs)
    key = _cache.rules_key(rs) if cache else ""
    if cache:
        hit = _MEMO.get(key)
        if hit is not None:
            return hit
        t0 = time.perf_counter()
        values = _cache.load(rs, layout.shape, key)
        if values is not None:
            sol = Solution(rs, values, seconds=time.perf_counter() - t0, from_cache=True)
            _MEMO[key] = sol
            return sol
    t0 = time.perf_counter()
    values = compute_values(rs)
    sol = Solution(rs, values, seconds=time.perf_counter() - t0, from_cache=False)
    if cache:
        _cache.save(rs, values, key)
        _MEMO[key] = sol
    return sol
