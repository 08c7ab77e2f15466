"""The two-player game solved exactly: each player maximises its own chance to win, ties counting half.

A state at the start of a turn is the mover's turn-start state, the opponent's and the score difference.
:func:`solve_duel` runs one backward induction over them, layer by layer (a layer is every pair with the same number
of boxes filled in all: the first player moves when both have filled as many, the second with one box less), with
the turn search of :mod:`yacht_solver.search.turn_search` and the differences as its lanes (:mod:`.duel_kernels`). A
layer reads only the next one, so the sweep holds two layers in memory and writes each to the disk cache as it is
done; the solution reads the table memory-mapped.

Values are computed in float64 and stored in float32 (seven significant digits): the table of Yacht then takes
6.2 GB instead of 12.4 GB.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numba
import numpy as np

from yacht_env.actions import KEEP_MASK_UNIQUE, NUM_KEEP_ACTIONS
from yacht_env.jit.notice import SlowNotice
from yacht_env.rules import RuleSet, TurnStartLayout, get_rules
from yacht_env.state import GameState
from yacht_solver import duel_kernels as DUELK
from yacht_solver import table_cache as _cache
from yacht_solver.core import layer_sizes, turn_start_layers
from yacht_solver.long_work import cancel_on_interrupt, long_work
from yacht_solver.memory_limit import refuse_above_limit
from yacht_solver.reach import most_points, objective_key
from yacht_solver.search.turn_tables import search_tables

__all__ = ["DUEL_VERSION", "DuelPlan", "DuelSolution", "duel_plan", "solve_duel"]

DUEL_VERSION = 1
"""Bump when the duel table's values or file format change: older files are then ignored."""
DTYPE = np.dtype("<f4")
_KEEP_MASK = np.ascontiguousarray(KEEP_MASK_UNIQUE)


@lru_cache(maxsize=4)
def duel_index(rules: RuleSet) -> DUELK.DuelIndex:
    """The turn-start states of one player grouped by filled boxes, with their rank and most points to come."""
    layout = TurnStartLayout.of(rules)
    groups = [np.sort(s) for s in reversed(turn_start_layers(rules))]  # fewest filled first
    groups.append(np.sort(layout.final_states()))
    start = np.zeros(len(groups) + 1, dtype=np.int64)
    start[1:] = np.cumsum([len(g) for g in groups])
    states = np.concatenate(groups).astype(np.int64)
    rank = np.full(layout.size, -1, dtype=np.int64)
    for g in groups:
        rank[g] = np.arange(len(g))
    most = np.ascontiguousarray(most_points(rules), dtype=np.int64)
    ix = DUELK.DuelIndex(states, start, rank, most)
    for a in ix:
        a.setflags(write=False)
    return ix


def _movers(t: int) -> tuple[int, int]:
    """Filled boxes of the mover and of the opponent in layer ``t`` (boxes filled in all)."""
    return t // 2, t - t // 2


@dataclass(frozen=True)
class DuelPlan:
    """The size of a rule set's duel table: ``cells[t]`` float32 values in layer ``t`` (``0 .. 2C``)."""

    rules: RuleSet
    index: DUELK.DuelIndex
    cells: tuple[int, ...]
    pairs: tuple[int, ...]

    @property
    def table_bytes(self) -> int:
        """The table on disk."""
        return sum(self.cells) * DTYPE.itemsize

    @property
    def sweep_bytes(self) -> int:
        """The most memory the sweep holds: two adjacent layers and their row offsets."""
        return max((self.cells[t] + self.cells[t + 1]) * DTYPE.itemsize + (self.pairs[t] + self.pairs[t + 1]) * 8
                   for t in range(len(self.cells) - 1))

    def offsets(self, t: int) -> np.ndarray:
        """(pairs + 1,) the row starts of layer ``t``."""
        ix = self.index
        a, b = _movers(t)
        ma = ix.most[ix.states[ix.start[a]:ix.start[a + 1]]]
        mb = ix.most[ix.states[ix.start[b]:ix.start[b + 1]]]
        off = np.zeros(len(ma) * len(mb) + 1, dtype=np.int64)
        np.cumsum((ma[:, None] + mb[None, :] + 1).ravel(), out=off[1:])
        return off


@lru_cache(maxsize=4)
def duel_plan(rules: RuleSet) -> DuelPlan:
    """:class:`DuelPlan` of ``rules`` (counted, not built: also for rule sets far too large to solve)."""
    ix = duel_index(rules)
    cells, pairs = [], []
    for t in range(2 * rules.num_categories + 1):
        a, b = _movers(t)
        ma = ix.most[ix.states[ix.start[a]:ix.start[a + 1]]]
        mb = ix.most[ix.states[ix.start[b]:ix.start[b + 1]]]
        cells.append(int(len(mb) * ma.sum() + len(ma) * mb.sum() + len(ma) * len(mb)))
        pairs.append(len(ma) * len(mb))
    return DuelPlan(rules, ix, tuple(cells), tuple(pairs))


def check_duel_memory(plan: DuelPlan) -> None:
    """``ValueError`` if the sweep would hold more memory than :data:`~yacht_solver.memory_limit.MEMORY_ENV`
    allows, saying what it would need in memory and on disk."""
    refuse_above_limit(plan.sweep_bytes, f"the duel solution of rules {plan.rules.name!r}",
                       f"two layers of its table while it is solved; {plan.table_bytes / 1e9:,.1f} GB on disk, "
                       f"{sum(plan.pairs):,} pairs of turn-start states")


def check_duel_fits(rules: RuleSet) -> None:
    """``ValueError`` at once (from the layer sizes alone, in well under a second) where the sweep cannot fit the
    limit whatever :func:`duel_plan` would count: each pair of turn-start states holds at least one value (4 bytes)
    and a row start (8 bytes), and the sweep holds two layers. :func:`check_duel_memory` gives the exact need."""
    sizes = layer_sizes(rules)[::-1]  # counted, not listed: listing 20 boxes' states takes seconds and GBs
    sizes.append(len(TurnStartLayout.of(rules).final_states()))
    pairs = [sizes[a] * sizes[b] for a, b in map(_movers, range(2 * rules.num_categories + 1))]
    least = max((pairs[t] + pairs[t + 1]) * (DTYPE.itemsize + 8) for t in range(len(pairs) - 1))
    refuse_above_limit(least, f"the duel solution of rules {rules.name!r}",
                       f"at least: two layers of its table while it is solved, {sum(pairs):,} pairs of turn-start "
                       "states in all")


class DuelSolution:
    """The solved two-player game: ``W``, the mover's chance to win (ties half), at every decision of either player.

    ``first_player_win``: the chance of the player who moves first, both playing optimally. ``win_probability(mover,
    other)``: the mover's chance at a decision of its turn (its dice and rolls left as in ``mover``; ``other``'s dice
    are ignored). The table's layers are memory-mapped from the disk cache (or held in memory with ``cache=False``).
    """

    def __init__(self, rules: RuleSet, layers: list[np.ndarray], *, seconds: float = 0.0, from_cache: bool = False,
                 path: Path | None = None) -> None:
        self.rules = rules
        self.plan = duel_plan(rules)
        self.layout = TurnStartLayout.of(rules)
        self.tables = search_tables(rules)
        self.seconds = seconds
        self.from_cache = from_cache
        self.path = path
        self._data = layers
        self._layers: dict[int, DUELK.DuelLayer] = {}

    def __repr__(self) -> str:
        return f"DuelSolution(rules={self.rules.name!r}, first_player_win={self.first_player_win:.7f})"

    def layer(self, t: int) -> DUELK.DuelLayer:
        """Layer ``t`` (boxes filled in all) with its row offsets (made on first use)."""
        got = self._layers.get(t)
        if got is None:
            a, b = _movers(t)
            got = self._layers[t] = DUELK.DuelLayer(self._data[t], self.plan.offsets(t), a, b)
        return got

    @property
    def first_player_win(self) -> float:
        """The first mover's chance to win a new game (ties half), both players optimal."""
        s = int(self.plan.index.states[0])
        return float(self._data[0][int(self.plan.index.most[s])])

    @property
    def table_bytes(self) -> int:
        return self.plan.table_bytes

    def _pair(self, mover: GameState, other: GameState) -> tuple[int, int, int, int]:
        """``(layer, mover state, other state, difference)`` of a decision, checked."""
        for what, st in (("mover", mover), ("other", other)):
            if not isinstance(st, GameState):
                raise ValueError(f"{what} must be a GameState, got {type(st).__name__}")
            if st.rules != self.rules.name:
                raise ValueError(f"this duel solution is for rules {self.rules.name!r}, {what} is {st.rules!r}")
        if mover.is_over:
            raise ValueError("the mover's game is over: it has no decision to make")
        k, j = bin(mover.filled_bits).count("1"), bin(other.filled_bits).count("1")
        if j not in (k, k + 1):
            raise ValueError(f"the mover has filled {k} boxes and the other {j}: in a game of two, the other has "
                             f"filled as many (the mover moves first) or one more (it moves second)")
        ix = self.plan.index
        sa = int(self.layout.flat(*self.layout.key(mover.filled_bits, mover.upper_total, mover.yahtzee_box)))
        sb = int(self.layout.flat(*self.layout.key(other.filled_bits, other.upper_total, other.yahtzee_box)))
        if ix.rank[sa] < 0 or ix.rank[sb] < 0:
            raise ValueError("no game reaches these scorecards")
        return k + j, sa, sb, mover.total - other.total

    def turn_start_win(self, mover: GameState, other: GameState) -> float:
        """The mover's chance to win from the start of its turn, before its first roll (``mover``'s dice and rolls
        left are ignored)."""
        t, sa, sb, d = self._pair(mover, other)
        ix = self.plan.index
        ma, mb = int(ix.most[sa]), int(ix.most[sb])
        if d > mb:
            return 1.0
        if d < -ma:
            return 0.0
        lay = self.layer(t)
        b = _movers(t)[1]
        p = int(ix.rank[sa]) * int(ix.start[b + 1] - ix.start[b]) + int(ix.rank[sb])
        return float(lay.data[lay.off[p] + d + ma])

    def action_win_probabilities(self, mover: GameState, other: GameState) -> np.ndarray:
        """(32 + C,) the mover's chance to win after each legal action of its decision (NaN where illegal)."""
        return self._decide(mover, other)[1]

    def win_probability(self, mover: GameState, other: GameState) -> float:
        """The mover's chance to win at its decision (the best action's), both playing optimally from here."""
        return float(np.nanmax(self.action_win_probabilities(mover, other)))

    def best_action(self, mover: GameState, other: GameState) -> int:
        """The action that maximises the mover's chance to win; ties to the lowest action index."""
        return self._decide(mover, other)[0]

    def _decide(self, mover: GameState, other: GameState) -> tuple[int, np.ndarray]:
        t, sa, sb, d = self._pair(mover, other)
        values = np.empty(NUM_KEEP_ACTIONS + self.rules.num_categories)
        action = DUELK.duel_decide(self.tables, self.plan.index, self.layer(t + 1), DUELK.DuelPair(sa, sb, d),
                                   mover.hand, mover.rolls_left, _KEEP_MASK, values)
        return int(action), np.where(values > -np.inf, values, np.nan)


# ---- the sweep --------------------------------------------------------------------------------------------------


def sweep(rules: RuleSet, emit: Callable[[int, np.ndarray], None],
          progress: Callable[[int], None] | None = None, stop: int = 0) -> None:
    """The backward induction: ``emit(t, layer)`` for each layer ``t`` from ``2C`` (the game over: 0.5, a tie at
    difference 0) down to 0 (a new game), each as soon as it is done; ``progress(cells)`` after each batch of
    rows. ``stop``: the first layer solved (an end game: the layers from ``stop`` on). The states of a layer are
    dealt out among ``numba.get_num_threads()`` threads."""
    plan = duel_plan(rules)
    tb = search_tables(rules)
    ix = plan.index
    C = rules.num_categories
    last = 2 * C
    nxt = DUELK.DuelLayer(np.full(plan.cells[last], 0.5, dtype=DTYPE), plan.offsets(last), C, C)
    emit(last, nxt.data)
    threads = numba.get_num_threads()
    with ThreadPoolExecutor(threads) as pool:
        for t in range(last - 1, stop - 1, -1):
            a, b = _movers(t)
            cur = DUELK.DuelLayer(np.empty(plan.cells[t], dtype=DTYPE), plan.offsets(t), a, b)
            n = plan.pairs[t]
            step = max(1, min(4096, n // (8 * threads) + 1))
            jobs = {pool.submit(DUELK.duel_rows, tb, ix, nxt, cur, np.arange(lo, min(n, lo + step), dtype=np.int64)):
                    int(cur.off[min(n, lo + step)] - cur.off[lo]) for lo in range(0, n, step)}
            try:
                for job in as_completed(jobs):
                    job.result()
                    if progress is not None:
                        progress(jobs[job])
            except BaseException:  # Ctrl-C: the queued batches are dropped, the running ones end within a moment
                cancel_on_interrupt(jobs)
                raise
            emit(t, cur.data)
            nxt = cur


# ---- the disk cache ---------------------------------------------------------------------------------------------


def duel_key(rules: RuleSet) -> str:
    """The disk-cache key: the objective key of the rules and the turn search, the duel kernels' source and the
    sweep's (the rest of this module does not change the table)."""
    sweep_source = "".join(inspect.getsource(f) for f in (sweep, _fill, duel_index, DuelPlan.offsets))
    return objective_key(rules, f"duel-v{DUEL_VERSION}-{DTYPE.str}-{sweep_source}", (DUELK,))


def duel_path(rules: RuleSet, key: str) -> Path:
    """The table's file: one of the solver's tables (:mod:`yacht_solver.table_cache`), under the duel's own key."""
    return _cache.cache_path(rules, key)


def _fill(rules: RuleSet, progress: Callable[[int], None] | None) -> Callable[[Callable[[np.ndarray], None]], None]:
    """The table's values for :func:`~yacht_solver.table_cache.save_in_pieces`: the layers from the last to the
    first, each written as soon as the sweep has solved it."""
    return lambda write: sweep(rules, lambda t, layer: write(layer), progress)


def _load(rules: RuleSet, key: str, plan: DuelPlan) -> list[np.ndarray] | None:
    """The layers of the cached table, memory-mapped, or ``None`` if it is missing or anything about it is off
    (header, size, checksum, a value that is not a probability: the table reader checks each)."""
    flat = _cache.load(rules, (sum(plan.cells),), key=key, value_range=(0.0, 1.0), dtype=DTYPE.str, mapped=True)
    if flat is None:
        return None
    layers: list[np.ndarray] = [np.empty(0, DTYPE)] * len(plan.cells)
    pos = 0
    for t in range(len(plan.cells) - 1, -1, -1):  # the file holds the last layer first
        layers[t] = flat[pos:pos + plan.cells[t]]
        pos += plan.cells[t]
    return layers


_MEMO: dict[str, DuelSolution] = {}

CELLS_PER_SECOND = 1_695_000
"""The sweep's speed on 2 threads: Yacht's 1,549,689,400 values in 914 s (the objectives page's timing of
``benchmarks/bench_duel.py --rules yacht``), for the time a solve announces."""


def _announce(rules: RuleSet, plan: DuelPlan, cache: bool) -> SlowNotice:
    """The notice of a solve: what it is about to do, how big, for about how long (on 2 cores), then progress."""
    what = (f"solving the game of two players of {rules.name} exactly: {sum(plan.cells):,} values "
            f"({plan.table_bytes / 1e9:.1f} GB {'on disk' if cache else 'in memory'}, "
            f"{plan.sweep_bytes / 1e9:.1f} GB of memory while it runs; "
            f"{'once, then cached' if cache else 'not cached'})")
    return long_work(what, sum(plan.cells) / CELLS_PER_SECOND)

def solve_duel(rules: str | RuleSet, *, cache: bool = True, progress: Callable[[int], None] | None = None
               ) -> DuelSolution:
    """The exact two-player solution of ``rules``: both players maximise their own chance to win, ties half.

    With ``cache`` (default) a valid table on disk (beside the solver's, :func:`yacht_solver.cache_dir`) is
    memory-mapped (once per process), or the table is solved straight into a new file there (written atomically) and
    then mapped;
    ``cache=False`` solves in memory and touches no file (small rule sets). ``progress(cells)`` is called as rows
    are done (:attr:`DuelPlan.cells` in all). ``ValueError`` where the sweep would take more memory than
    ``YACHT_ENV_TABLE_GB`` allows (Yahtzee and Yatzy: the message says what they would need)."""
    rs = get_rules(rules)
    check_duel_fits(rs)
    plan = duel_plan(rs)
    check_duel_memory(plan)
    t0 = time.perf_counter()
    if not cache:  # every layer is kept in memory, not two at a time: the whole table counts against the limit
        refuse_above_limit(plan.table_bytes + plan.sweep_bytes, f"the duel solution of rules {rs.name!r} in memory",
                           f"its whole table, {sum(plan.cells):,} values, kept with cache=False; with the cache, two "
                           "layers at a time")
        layers: list[np.ndarray] = [np.empty(0, DTYPE)] * len(plan.cells)

        def keep(t: int, layer: np.ndarray) -> None:
            layer.setflags(write=False)
            layers[t] = layer

        with _announce(rs, plan, cache=False):
            sweep(rs, keep, progress)
        return DuelSolution(rs, layers, seconds=time.perf_counter() - t0)
    key = duel_key(rs)
    where = str(duel_path(rs, key))
    hit = _MEMO.get(where)
    if hit is not None:  # one mapping per process: two agents of a tournament share it
        return hit
    got = _load(rs, key, plan)
    if got is not None:
        sol = DuelSolution(rs, got, seconds=time.perf_counter() - t0, from_cache=True, path=duel_path(rs, key))
        _MEMO[where] = sol
        return sol
    path = duel_path(rs, key)
    if path.is_dir() or (path.parent.exists() and not path.parent.is_dir()):  # found now, not after an hour's sweep
        raise ValueError(f"the duel table's file {str(path)!r} cannot be written: "
                         f"{'it is a folder' if path.is_dir() else 'its folder is a file'}; remove that or set "
                         "YACHT_ENV_CACHE_DIR to another folder")
    path.parent.mkdir(parents=True, exist_ok=True)
    with _announce(rs, plan, cache=True):
        _cache.save_in_pieces(rs, key, (sum(plan.cells),), DTYPE.str, _fill(rs, progress))
    seconds = time.perf_counter() - t0
    got = _load(rs, key, plan)
    if got is None:
        raise OSError(f"the duel table just written to {path} does not read back")
    _MEMO[where] = DuelSolution(rs, got, seconds=seconds, path=path)
    return _MEMO[where]
