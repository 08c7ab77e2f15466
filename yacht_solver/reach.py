"""Play to reach a target: the strategy that maximises P(final score >= T), exactly, for every T at once.

The state of a game gains the points still needed. :func:`solve_reach` runs one backward induction over the
turn-start states in which the turn search's lanes are the needs ``0 .. N - 1`` (:mod:`.reach_kernels`), so that
``ReachSolution.table[s, n]`` is the best probability of at least ``n`` more points from turn-start state ``s``, and
``P*(T) = table[start, T]`` for every target. ``N - 1`` is above the highest score the rules allow, so every need
at or beyond it has probability 0. The table is ragged (:mod:`.ragged`): row ``s`` holds the needs up to
``most_points[s]`` only, in float32 for the large rule sets, memory-mapped from the disk cache.
"""

from __future__ import annotations

import gc
import hashlib
import inspect
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from types import ModuleType
from typing import Any

import numpy as np

from yacht_env import dice as D
from yacht_env.actions import KEEP_MASK_UNIQUE, NUM_KEEP_ACTIONS
from yacht_env.jit.notice import say
from yacht_env.objective import max_final_score
from yacht_env.rules import JOKER_NONE, NUM_UPPER, RuleSet, TurnStartLayout, get_rules
from yacht_env.state import GameState
from yacht_solver import reach_kernels as RK
from yacht_solver import table_cache as _cache
from yacht_solver.core import reachable_per_mask, turn_start_layers
from yacht_solver.long_work import about, long_work, sweep_seconds
from yacht_solver.memory_limit import MEMORY_ENV, refuse_above_limit, table_limit_gb
from yacht_solver.ragged import Ragged, RaggedTable, row_offsets, table_dtype
from yacht_solver.search import turn_constants as TT
from yacht_solver.search import turn_search as T
from yacht_solver.search.turn_constants import search_constants
from yacht_solver.search.turn_search import Positions

__all__ = ["MEMORY_ENV", "ReachSolution", "check_table_memory", "max_score", "most_points", "solve_reach",
           "sweep_progress", "table_bytes", "table_cells_bounds", "table_offsets"]

_KEEP_MASK = np.ascontiguousarray(KEEP_MASK_UNIQUE)


max_score = max_final_score  # the solver's name for it


@lru_cache(maxsize=8)
def table_offsets(rules: RuleSet) -> np.ndarray:
    """Where each turn-start key's row starts in a reach or distribution table of ``rules`` (:mod:`.ragged`): the
    reachable states keep ``most_points[s] + 1`` entries, the final states one, the others none."""
    layout = TurnStartLayout.of(rules)
    lengths = np.zeros(layout.size, dtype=np.int64)
    lengths[layout.final_states()] = 1
    most = most_points(rules)
    for states in turn_start_layers(rules):
        lengths[states] = most[states] + 1
    return row_offsets(lengths)


def table_bytes(rules: RuleSet) -> int:
    """Memory of a reach or distribution table of ``rules``: its ragged rows (:func:`table_offsets`), in the type
    :func:`~yacht_solver.ragged.table_dtype` gives it."""
    cells = int(table_offsets(rules)[-1])
    return cells * table_dtype(cells).itemsize


def table_cells_bounds(rules: RuleSet) -> tuple[int, int]:
    """``(least, most)`` entries a reach or distribution table of ``rules`` can hold (:func:`table_offsets` counts
    them exactly, after a sweep over every state: minutes for 20 boxes), from the rule set's counts alone, in well
    under a second. A row holds ``most[s] + 1`` entries; from state ``s`` each open box can still be scored at least
    its best with a hand that is no Joker (any hand can be rolled, and such a hand may go in any open box), and at
    most its best with any hand, with the upper bonus and a five-of-a-kind bonus each turn on top."""
    layout = TurnStartLayout.of(rules)
    C = rules.num_categories
    safe = rules.joker == JOKER_NONE or layout.five_kind_category < 0
    no_joker = D.FIVE_KIND_FACE == 0
    best = np.maximum(rules.box_scores, rules.joker_scores).max(axis=0).astype(np.int64)
    sure = np.array([rules.box_scores[:, c].max() if safe or c == rules.five_kind_category
                     else rules.box_scores[no_joker, c].max() for c in range(C)], dtype=np.int64)
    F = np.arange(1 << C)
    filled_sure, filled_best, filled = (np.zeros(1 << C, dtype=np.int64) for _ in range(3))
    for c in range(C):
        bit = F >> c & 1
        filled_sure += bit * sure[c]
        filled_best += bit * best[c]
        filled += bit
    upper_open = (F & ((1 << NUM_UPPER) - 1)) != (1 << NUM_UPPER) - 1
    bonuses = rules.upper_bonus * upper_open + (rules.five_kind_bonus * (C - filled) if layout.Y == 2 else 0)
    n = reachable_per_mask(rules)[:-1]  # the full scorecard's rows: one entry each, counted below
    least = int(n @ (sure.sum() - filled_sure[:-1] + 1))
    most = int(n @ (np.minimum(best.sum() - filled_best + bonuses, max_score(rules))[:-1] + 1))
    finals = layout.U * layout.Y
    return least + finals, most + finals


def check_table_memory(rules: RuleSet, what: str) -> None:
    """``ValueError`` if the table of ``rules`` would take more than :data:`MEMORY_ENV` allows, saying how much it
    needs: Yacht and Knizia's Yacht take 5 MB, Yatzy 1.06 GB, Yahtzee 1.16 GB (either Joker rule). Decided from
    :func:`table_cells_bounds` at once where the bounds do (a table of 20 boxes: refused in under a second, where
    counting it exactly takes minutes), else from the exact count."""
    least, most = table_cells_bounds(rules)
    refuse_above_limit(least * np.dtype(np.float32).itemsize, f"{what} for rules {rules.name!r}",
                       f"at least: a table of at least {least:,} float32 entries, counted from its boxes")
    if most * np.dtype(np.float64).itemsize <= table_limit_gb() * 1e9:
        return
    cells = int(table_offsets(rules)[-1])
    refuse_above_limit(table_bytes(rules), f"{what} for rules {rules.name!r}",
                       f"a table of {cells:,} {table_dtype(cells).name} entries")


_BARS: list[Callable[[int, str], Any]] = []


@contextmanager
def sweep_progress(bar: Callable[[int, str], Any]) -> Iterator[None]:
    """While in the block, a table computed shows its sweep's progress on ``bar(total, description)``, an object
    with ``update(n)`` (the turn-start rows done) and ``close()``: ``yacht solve`` passes a tqdm bar."""
    _BARS.append(bar)
    try:
        yield
    finally:
        _BARS.remove(bar)


class ReachSolution:
    """The solved reach objective: ``table[s, n]`` (flat turn-start key ``s``, need ``n``), the best probability to
    score at least ``n`` more points; NaN rows for states no game reaches."""

    def __init__(self, rules: RuleSet, table: RaggedTable, seconds: float) -> None:
        self.rules = rules
        self.layout = TurnStartLayout.of(rules)
        self.table = table
        self.seconds = seconds
        self.constants = search_constants(rules)
        self._dense: np.ndarray | None = None

    @property
    def width(self) -> int:
        """Number of needs held (``N``): needs at or above ``N - 1`` cannot be reached."""
        return int(self.table.shape[1])

    def probability(self, target: int) -> float:
        """P*(target): the best probability that a new game ends with at least ``target`` points."""
        return float(self.curve()[min(max(int(target), 0), self.width - 1)])

    def curve(self) -> np.ndarray:
        """``curve[T]`` = P*(T) for T = 0 .. N - 1."""
        return self.table.row(0)

    def need_of(self, state: GameState, target: int) -> int:
        """The points ``state`` still needs to reach ``target`` (0 when reached), clipped to the table."""
        return min(max(int(target) - state.total, 0), self.width - 1)

    def state_probability(self, state: GameState, target: int) -> float:
        """The best probability to end with at least ``target`` points from ``state`` (at a turn start, or mid-turn:
        then the best action's)."""
        if state.is_over:
            return float(state.total >= target)
        return float(np.nanmax(self.action_probabilities(state, target)))

    def action_probabilities(self, state: GameState, target: int) -> np.ndarray:
        """(32 + C,) probability to reach ``target`` after each legal action of ``state`` (NaN where illegal)."""
        vals = self._search([state], np.array([target]), values=True)[1][0]
        return np.where(vals > -np.inf, vals, np.nan)

    def best_actions(self, states: list[GameState], targets: np.ndarray) -> np.ndarray:
        """The action of each state that maximises its probability to reach its target (lowest index on ties)."""
        return self._search(states, targets, values=False)[0]

    def decide(self, positions: Positions, needs: np.ndarray, *, values: bool = False, table: np.ndarray | None = None,
               lookup: Ragged | None = None) -> tuple[np.ndarray, np.ndarray | None]:
        """Actions (and with ``values`` the (N, 32 + C) probabilities) of ``positions`` (turn-start keys, hands and
        rolls left) with ``needs`` points still needed. ``table`` (default: the reach table) gives the value of ending
        the turn in state s with ``need - points`` still needed: ``table[s, need - points]``, 1 at or below 0 (a
        dense float64 array of the table's shape); ``lookup`` gives it as ragged rows instead (row s read at
        ``need - points``, 0 past its end: only the rows of the states the positions' turns lead to are read)."""
        pos = Positions(*(np.ascontiguousarray(a, dtype=np.int64) for a in positions))
        needs = np.clip(np.ascontiguousarray(needs, dtype=np.int64), 0, self.width - 1)
        n = len(pos.F)
        out = np.empty((n, NUM_KEEP_ACTIONS + self.rules.num_categories)) if values else np.empty((0, 0))
        if lookup is not None:
            if table is not None:
                raise ValueError("give the end-of-turn values as table or as lookup, not both")
        elif table is None:
            lookup = self.table.kernel
        else:
            if not isinstance(table, np.ndarray) or table.shape != self.table.shape or table.dtype != np.float64:
                raise ValueError(f"table must be a float64 array of shape {self.table.shape}, got "
                                 f"{getattr(table, 'dtype', type(table).__name__)} {getattr(table, 'shape', '')}")
            lookup = RaggedTable(np.ascontiguousarray(table).reshape(-1), self._dense_offsets(), self.width).kernel
        actions = RK.reach_decide(self.constants, lookup, pos, needs, _KEEP_MASK, out)
        return actions, (out if values else None)

    def _dense_offsets(self) -> np.ndarray:
        """The offsets of a dense table of this table's shape: every row ``N`` long."""
        if self._dense is None:
            self._dense = np.arange(self.table.shape[0] + 1, dtype=np.int64) * self.width
        return self._dense

    def _search(self, states: list[GameState], targets: np.ndarray, values: bool
                ) -> tuple[np.ndarray, np.ndarray | None]:
        for st in states:
            if not isinstance(st, GameState) or st.rules != self.rules.name:
                raise ValueError(f"expected GameStates of rules {self.rules.name!r}")
            if st.is_over:
                raise ValueError("the game is over: there is no action to take")
        keys = np.array([self.layout.key(s.filled_bits, s.upper_total, s.yahtzee_box) for s in states],
                        dtype=np.int64).reshape(-1, 3)
        needs = np.asarray(targets, dtype=np.int64) - np.array([s.total for s in states], dtype=np.int64)
        pos = Positions(keys[:, 0], keys[:, 1], keys[:, 2], np.array([s.hand for s in states]),
                        np.array([s.rolls_left for s in states]))
        return self.decide(pos, needs, values=values)


@lru_cache(maxsize=2)
def most_points(rules: RuleSet) -> np.ndarray:
    """``most[s]``: the most points still to come from turn-start state s (flat), exactly; beyond it the reach and
    distribution rows of s are 0, so their sweeps search only the needs (or scores) up to it."""
    size = TurnStartLayout.of(rules).size
    with long_work(f"sizing the score tables of {rules.name} (the most points still to come from {size:,} "
                   "turn-start states)", sweep_seconds(rules)):
        most = RK.most_points_layers(search_constants(rules), size, turn_start_layers(rules))
    most.setflags(write=False)
    return most


def new_table(rules: RuleSet, dtype: np.dtype | None = None) -> RaggedTable:
    """A reach or distribution table of ``rules`` to sweep (:mod:`.ragged`; ``dtype`` default
    :func:`~yacht_solver.ragged.table_dtype`): the final states' rows hold 1 (0 more points, for sure), the
    others are filled by the sweep."""
    offsets = table_offsets(rules)
    cells = int(offsets[-1])
    data = np.empty(cells, dtype=table_dtype(cells) if dtype is None else dtype)
    data[offsets[TurnStartLayout.of(rules).final_states()]] = 1.0
    return RaggedTable(data, offsets, max_score(rules) + 2)


def sweep(compute: Callable[[Callable[[int], object] | None], None], rules: RuleSet, kind: str) -> None:
    """``compute(progress)`` on the progress bar of :func:`sweep_progress` when one is asked for (its total: the
    turn-start rows to compute), else with none."""
    if not _BARS:
        compute(None)
        return
    bar = _BARS[-1](sum(len(s) for s in turn_start_layers(rules)), f"{kind} table of {rules.name}")
    try:
        compute(bar.update)
    finally:
        bar.close()


def compute_reach(rules: RuleSet, dtype: np.dtype | None = None) -> RaggedTable:
    """The reach table of ``rules`` (see :class:`ReachSolution`), in ``dtype`` (default: float32 for the large rule
    sets, :func:`~yacht_solver.ragged.table_dtype`)."""
    R = new_table(rules, dtype)
    sweep(lambda progress: RK.reach_layers(search_constants(rules), R.kernel, turn_start_layers(rules),
                                           R.shape[1], progress), rules, "reach")
    R.data.setflags(write=False)
    return R


def objective_key(rules: RuleSet, kind: str, modules: tuple[ModuleType, ...] = ()) -> str:
    """The disk-cache key of an objective's table: the expected-score table's key (rules, turn logic, dice), the
    kind, and the sources of the turn search, of this solver and of ``modules``."""
    h = hashlib.sha256(f"{_cache.rules_key(rules)}:{kind}".encode())
    for module in (TT, T, RK, sys.modules[__name__], *modules):
        h.update(inspect.getsource(module).encode())
    return h.hexdigest()


def cached_table(rules: RuleSet, kind: str, compute: Callable[[], RaggedTable], modules: tuple[ModuleType, ...] = (),
                 rows: int | None = None, cache: bool = True) -> tuple[RaggedTable, float]:
    """An objective's table from the solver's disk cache (:mod:`yacht_solver.table_cache`, checked, then
    memory-mapped), else ``compute()``d and saved (atomically); with the seconds it took. ``modules``: the sources the
    table also depends on. ``rows``: only the first rows are wanted (kept in memory, the rest let go as soon as it is
    read or saved). ``cache=False``: always computed, and no file read or written."""
    t0 = time.perf_counter()
    key = objective_key(rules, kind, modules)
    offsets = table_offsets(rules)
    cells, width = int(offsets[-1]), max_score(rules) + 2
    dtype = table_dtype(cells)
    data = _cache.load(rules, (cells,), key, rows=rows, value_range=(0.0, 1.0 + 1e-9), dtype=dtype.str,
                       row_offsets=offsets, mapped=True) if cache else None  # probabilities
    table = None if data is None else RaggedTable(data, offsets if rows is None else offsets[:rows + 1], width)
    if table is not None and not _start_row_plausible(kind, table):  # a forged file with a recomputed checksum
        say(f"the cached {kind} table of {rules.name} cannot be true (its start row); solving it again")
        table = None
    if table is None:
        rows_all = len(offsets) - 1
        what = (f"computing the {kind} table of {rules.name} ({rows_all:,} x {width:,}, {cells:,} entries; "
                f"{'once, then cached' if cache else 'not cached'})")
        seconds = TABLE_COST * sweep_seconds(rules) * cells / max(rows_all, 1)
        if _BARS:
            say(f"{what}, {about(seconds)}...")
            table = compute()
        else:
            with long_work(what, seconds):
                table = compute()
        if cache:
            _cache.save(rules, table.data, key, mapped=True)
        if rows is not None:
            table = RaggedTable(table.data[:offsets[rows]].copy(), offsets[:rows + 1], width)
            gc.collect()  # the whole table can sit in a reference cycle: freed now, not at some later collection
    return table, time.perf_counter() - t0


TABLE_COST = 2.0
"""A reach or distribution row costs about this many expected-value searches per entry (Yahtzee's table, 277
entries a row, took 12 to 22 minutes against 2.5 s for its expected values: the objectives page)."""

START_ROW_TOLERANCE = 1e-4
"""How far the start row of a stored table may be from what it must be (float32 tables round each entry)."""


def _start_row_plausible(kind: str, table: RaggedTable) -> bool:
    """Whether the start of a game reads as it must: a score distribution sums to 1, the chance to reach a final
    score of at least 0 is 1 (zeros throughout, say, with a valid checksum, are not)."""
    row = table[0]
    if kind == "distribution":
        return abs(float(np.sum(row)) - 1.0) <= START_ROW_TOLERANCE
    if kind == "reach":
        return abs(float(row[0]) - 1.0) <= START_ROW_TOLERANCE
    return True


@lru_cache(maxsize=2)
def _memo(rules: RuleSet) -> ReachSolution:
    table, seconds = cached_table(rules, "reach", lambda: compute_reach(rules))
    return ReachSolution(rules, table, seconds)


def solve_reach(rules: str | RuleSet, *, cache: bool = True) -> ReachSolution:
    """The exact reach solution of ``rules`` (kept in memory for the process). Its table takes
    :func:`table_bytes`: a few MB for Yacht and Knizia's Yacht, about 1.1 GB for Yahtzee and Yatzy (mapped from the
    disk cache: read from disk as its rows are used). ``cache=False`` solves again and touches no file (nor the
    solution kept in memory)."""
    rs = get_rules(rules)
    check_table_memory(rs, "the reach solution")
    if not cache:
        return ReachSolution(rs, *cached_table(rs, "reach", lambda: compute_reach(rs), cache=False))
    return _memo(rs)
