"""Exact optimal play by backward induction over turn-start states.

A turn-start state is the set of filled categories, the upper total capped at the bonus threshold (only for rule
sets with an upper bonus) and whether the five-of-a-kind box was scored with five of a kind (only for rule sets
with a five-of-a-kind bonus or Joker). Its value is the expected number of points still to come under optimal
play. Within a turn the solver takes expectations over the 252 hands and the 462 keeps with the turn search of
:mod:`yacht_solver.search.turn_search`, the same kernel that the optimal player's decisions use.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from yacht_env import dice as D
from yacht_env.actions import KEEP_MASK_ALL, KEEP_MASK_UNIQUE, NUM_KEEP_ACTIONS
from yacht_env.objective import max_final_score
from yacht_env.rules import NUM_UPPER, RuleSet, TurnStartLayout, get_rules
from yacht_env.state import GameState
from yacht_solver import table_cache as _cache
from yacht_solver.long_work import long_work, sweep_seconds
from yacht_solver.memory_limit import refuse_above_limit
from yacht_solver.search import state_search as ST
from yacht_solver.search import turn_search as T
from yacht_solver.search.state_search import StateTurn
from yacht_solver.search.turn_constants import PATTERN_KEEP, DecisionRule, KeepLane, Starts, search_constants

TIE_TOLERANCE = T.TIE_TOLERANCE
"""Actions whose values are this close to the best count as tied; the lowest action index wins."""
TURN_CACHE_SIZE = 256
_OPTIMAL = DecisionRule(KEEP_MASK_UNIQUE, False, TIE_TOLERANCE)  # the optimal player's choice of action
Layout = TurnStartLayout  # the solver's name for it


@lru_cache(maxsize=16)
def _upper_reach(rules: RuleSet) -> np.ndarray:
    """(64, max+1) bool: which uncapped upper totals each set of filled upper boxes can hold."""
    boxes = [sorted({int(v) for v in rules.box_scores[:, c]} | {int(v) for v in rules.joker_scores[:, c]})
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


def _capped_reach(layout: Layout, reach: np.ndarray) -> np.ndarray:
    """(64, U) bool: which capped upper totals ``u`` each set of filled upper boxes can hold (one column, all True,
    where the rules track no upper total)."""
    U = layout.U
    if not layout.threshold:
        return np.ones((1 << NUM_UPPER, 1), dtype=np.bool_)
    capped = np.zeros((1 << NUM_UPPER, U), dtype=np.bool_)
    capped[:, : U - 1] = reach[:, : U - 1]
    capped[:, U - 1] = reach[:, U - 1 :].any(axis=1)
    return capped


def _popcount(C: int) -> np.ndarray:
    """(2**C,) int64: the number of filled boxes of every bit set ``F``."""
    F = np.arange(1 << C)
    popcount = np.zeros(1 << C, dtype=np.int64)
    for c in range(C):
        popcount += F >> c & 1
    return popcount


def reachable_per_mask(rules: RuleSet) -> np.ndarray:
    """(2**C,) int64: how many turn-start states ``(u, y)`` some game reaches with the bit set ``F`` of filled
    boxes, counted from the upper boxes' totals alone (no state is listed: milliseconds for 20 boxes, where listing
    them, :func:`turn_start_layers`, takes seconds and GBs). The full scorecard counts like the others."""
    layout = Layout.of(rules)
    F = np.arange(1 << layout.num_categories)
    n = _capped_reach(layout, _upper_reach(rules)).sum(axis=1)[F & ((1 << NUM_UPPER) - 1)]
    if layout.Y == 2:  # y = 1 only once the five-of-a-kind box is filled
        n = n * (1 + (F >> layout.five_kind_category & 1))
    return n


def layer_sizes(rules: RuleSet) -> list[int]:
    """``[len(layer) for layer in turn_start_layers(rules)]``, from :func:`reachable_per_mask` alone: the sizes of
    the work, before any of it is listed."""
    C = rules.num_categories
    per_layer = np.bincount(_popcount(C), weights=reachable_per_mask(rules), minlength=C + 1)
    return [int(per_layer[k]) for k in range(C - 1, -1, -1)]


def solve_bytes(rules: RuleSet) -> int:
    """The memory :func:`solve` takes while it computes the value table of ``rules``: about
    :data:`SOLVE_BYTES_PER_STATE` a turn-start state of the layout (the table itself, 8, and the list of the
    reachable states while it is sorted into layers)."""
    return Layout.of(rules).size * SOLVE_BYTES_PER_STATE


SOLVE_BYTES_PER_STATE = 30
"""Peak memory of a solve, in bytes per turn-start state of the layout, rounded up: measured (peak RSS less the
interpreter's) 33, 29 and 26 for Yahtzee's bonuses with 16, 17 and 20 boxes (8.4, 16.8 and 134 million states; the
last a minute into its sweep, when the table and the listed states are all held)."""


def check_solve_memory(rules: RuleSet) -> None:
    """``ValueError`` before :func:`solve` computes a value table that would take more memory than
    :data:`~yacht_solver.memory_limit.MEMORY_ENV` allows (from the layout's size alone)."""
    layout = Layout.of(rules)
    refuse_above_limit(solve_bytes(rules), f"the exact solution of rules {rules.name!r}",
                       f"{layout.size:,} turn-start states, about {SOLVE_BYTES_PER_STATE} bytes each while solved")


def _states(layout: Layout, reach: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reachable non-final turn-start states as flat indices, and their layers (number of filled boxes),
    fullest scorecard first and grouped by filled set within a layer. Listed :data:`SETS_CHUNK` filled sets at a
    time: Ctrl-C is seen between two chunks (one pass over every set of 20 boxes took seconds), and no array of
    every (set, upper total, five-of-a-kind) cell is held."""
    C, U, Y = layout.num_categories, layout.U, layout.Y
    UY = U * Y
    popcount = _popcount(C)
    capped = _capped_reach(layout, reach)
    order = np.argsort(-popcount, kind="stable")  # filled sets, fullest first
    states, layers = [], []
    for lo in range(0, len(order), SETS_CHUNK):
        F = order[lo:lo + SETS_CHUNK]
        ok = np.broadcast_to(capped[F & ((1 << NUM_UPPER) - 1)][:, :, None], (len(F), U, Y)).copy()
        if Y == 2:
            ok[:, :, 1] &= (F >> layout.five_kind_category & 1 == 1)[:, None]
        ok[popcount[F] == C] = False  # the final state is worth 0, nothing to solve
        pos = np.flatnonzero(ok.ravel())
        F_of = F[pos // UY]
        states.append((F_of * UY + pos % UY).astype(np.int64))
        layers.append(popcount[F_of])
    return np.concatenate(states), np.concatenate(layers)


SETS_CHUNK = 1 << 14
"""Filled sets listed at a time by :func:`_states`."""


LAYER_CHUNK = 1 << 16
"""Turn-start states solved per call of the compiled search (a fraction of a second on one core)."""


def compute_values(rules: RuleSet) -> np.ndarray:
    """Solve ``rules``: the (2**C, U, Y) table of turn-start values (NaN for unreachable states), by backward induction
    layer by layer, fullest scorecard first (a layer reads only the layers after it), with the turn search.
    ``ValueError`` first where it would take more memory than ``YACHT_ENV_TABLE_GB`` allows
    (:func:`check_solve_memory`)."""
    check_solve_memory(rules)
    layout = TurnStartLayout.of(rules)
    E = np.full(layout.size, np.nan)
    E.reshape(layout.shape)[-1] = 0.0  # every box filled: nothing more to come
    cs = search_constants(rules)
    scratch = T.empty_keep_values(0)
    with long_work(f"solving {rules.name} exactly ({layout.size:,} turn-start states, {E.nbytes / 1e9:.2f} GB)",
                   sweep_seconds(rules)):
        for layer in turn_start_layers(rules):
            for lo in range(0, len(layer), LAYER_CHUNK):  # a chunk at a time: Ctrl-C is seen between two
                states = layer[lo:lo + LAYER_CHUNK]
                F, rest = np.divmod(states, layout.U * layout.Y)
                u, y = np.divmod(rest, layout.Y)
                start = np.empty(len(states))
                T.turn_values(cs, E, Starts(F, u, y), scratch, start)
                E[states] = start  # the states of a layer read only later layers: a chunk may be written at once
    values = E.reshape(layout.shape)
    values.setflags(write=False)
    return values


def turn_start_layers(rules: RuleSet) -> list[np.ndarray]:
    """The reachable non-final turn-start states (flat indices), one array per number of filled boxes, fullest
    scorecard first: the order of every backward induction over them."""
    states, layer = _states(Layout.of(rules), _upper_reach(rules))
    cuts = np.flatnonzero(np.diff(layer)) + 1
    return np.split(states, cuts)




_HAND_OF: dict[tuple[int, ...], int] = {tuple(int(f) for f in h): i for i, h in enumerate(D.HANDS)}


class Solution:
    """The solved game: the value of every turn-start state, and optimal action values in any game state.

    ``values[filled_bits, u, y]``: expected points to come from the start of a turn (``u`` the upper total capped at
    the bonus threshold, ``y`` 1 if the five-of-a-kind box was scored with five of a kind; both 0 where the rules do
    not track them);
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
        self._turns: OrderedDict[tuple[int, int, int], StateTurn] = OrderedDict()
        self._by_scores: OrderedDict[tuple[int | None, ...], StateTurn] = OrderedDict()

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
        Yacht) holding ``yahtzee_box`` (``None`` while open, else 0 or its five-of-a-kind score, 50 in the rule sets
        of :data:`~yacht_env.rules.RULESETS`). ``ValueError`` for impossible input."""
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
        elif isinstance(yahtzee_box, bool) or yahtzee_box not in (0, rs.five_kind_box_score):
            raise ValueError(f"{rs.category_ids[ycat]!r} is filled: yahtzee_box must be 0 or "
                             f"{rs.five_kind_box_score}, got {yahtzee_box!r}")
        return float(self.values[self.layout.key(bits, int(upper_total), yahtzee_box)])

    # ---- within a turn ----------------------------------------------------------------------------------------
    def state_turn(self, filled_bits: int, upper_total: int = 0, yahtzee_box: int | None = None) -> StateTurn:
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
        t = ST.state_turn(search_constants(self.rules), self._flat, key)
        self._turns[key] = t
        if len(self._turns) > TURN_CACHE_SIZE:
            self._turns.popitem(last=False)
        return t

    def _check(self, state: GameState) -> None:
        if not isinstance(state, GameState):
            raise ValueError(f"expected a GameState, got {type(state).__name__}")
        if state.rules != self.rules.name:
            raise ValueError(f"this solution is for rules {self.rules.name!r}, the state is {state.rules!r}")

    def _turn_of(self, state: GameState) -> StateTurn:
        """The turn tables of a game state in play, looked up by its scorecard (no derived properties on a hit)."""
        t = self._by_scores.get(state.scores)
        if t is None:
            t = self.state_turn(state.filled_bits, state.upper_total, state.yahtzee_box)
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
            out[:NUM_KEEP_ACTIONS] = np.where(mask, keeps[PATTERN_KEEP[h], 0] + total, np.nan)
        return out

    def best_action(self, state: GameState, unique_keeps: bool = True) -> int:
        """The optimal action; among actions within 1e-9 of the best value, the lowest index. The same with or
        without ``unique_keeps``: the lowest pattern keeping a multiset is the one ``unique_keeps`` allows."""
        self._check(state)
        if state.is_over:
            raise ValueError("the game is over: there is no action to take")
        t = self._turn_of(state)
        values = np.empty(NUM_KEEP_ACTIONS + self.rules.num_categories)
        return int(ST.state_action_values(t.G, KeepLane(t.keep1, t.keep2, 0), _HAND_OF[state.dice], state.rolls_left,
                                         _OPTIMAL, values))


_MEMO: dict[str, Solution] = {}


def clear_memory_cache() -> None:
    """Forget the solutions kept in memory by ``solve(..., cache=True)`` (the disk cache stays)."""
    _MEMO.clear()


def solve(rules: str | RuleSet, *, cache: bool = True) -> Solution:
    """The exact optimal solution of ``rules`` (a name in :data:`yacht_env.rules.RULESETS` or a RuleSet).

    With ``cache`` (default) a solution already made in this process, or a valid table on disk
    (:mod:`yacht_solver.table_cache`), is reused, and a new one is saved. ``cache=False`` always solves and touches
    no file. Raises ``ValueError`` for rules the solver does not cover, and, before any work, where computing the
    table would take more memory than ``YACHT_ENV_TABLE_GB`` allows (:func:`check_solve_memory`).
    ``Solution.seconds`` is the time the table took to compute or load, ``Solution.from_cache`` whether it was read
    from disk.
    """
    rs = get_rules(rules)
    layout = Layout.of(rs)
    key = _cache.rules_key(rs) if cache else ""
    if cache:
        hit = _MEMO.get(key)
        if hit is not None:
            return hit
        t0 = time.perf_counter()
        values = _cache.load(rs, layout.shape, key, value_range=(0.0, float(max_final_score(rs))))
        if values is not None:
            sol = Solution(rs, values, seconds=time.perf_counter() - t0, from_cache=True)
            _MEMO[key] = sol
            return sol
    t0 = time.perf_counter()
    try:
        values = compute_values(rs)
    except NotImplementedError as e:
        raise ValueError(f"the solver does not cover rules {rs.name!r}: {e}") from None
    sol = Solution(rs, values, seconds=time.perf_counter() - t0, from_cache=False)
    if cache:
        _cache.save(rs, values, key)
        _MEMO[key] = sol
    return sol


def solution_or_none(rules: str | RuleSet) -> Solution | None:
    """:func:`solve` (cached), or ``None`` for rules the solver does not cover: for tools that compare with optimal
    play where they can."""
    try:
        return solve(rules)
    except ValueError:
        return None
