"""The two-player game solved exactly: each player maximises its own chance to win, ties counting half.

A state at the start of a turn is the mover's turn-start state, the opponent's and the score difference.
:func:`solve_duel` runs one backward induction over them, layer by layer (a layer is every pair with the same number
of boxes filled in all: the first player moves when both have filled as many, the second with one box less), with
the turn search of :mod:`yacht_solver.search.turn_search` and the differences as its lanes (:mod:`.duel_kernels`). A
layer reads only the next one, so the sweep holds two layers in memory and writes each to the disk cache as it is
done; the solution reads the table memory-mapped.

Values are computed in float64 and stored in float32 (seven significant digits). Of each row the table keeps only
what lies between its leading values that are exactly 0.0 and its trailing values that are exactly 1.0
(:func:`~yacht_solver.duel_kernels.strip_row`), with one index word per pair (how many of each): every value read
back is the float32 value the sweep computed, bit for bit. On disk (:mod:`yacht_solver.table_cache`'s one format,
32-bit words) the layers follow one another from the last to the first, each as its index words
(``zeros | kept << 16``) and then its kept values.
"""

from __future__ import annotations

import inspect
import mmap
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
from yacht_solver.search.turn_constants import search_constants
from yacht_solver.search.turn_search import NUM_KEEPS, KeepLane, SearchConstants

__all__ = ["DUEL_VERSION", "DuelPlan", "DuelSolution", "duel_plan", "solve_duel"]

DUEL_VERSION = 2
"""Bump when the duel table's values or file format change: older files are then ignored."""
DTYPE = np.dtype("<f4")
WORD = np.dtype("<u4")
"""The file's words: index words and the float32 values' bits."""
MAX_ROW = 1 << 16
"""Rows (differences of a pair) shorter than this: an index word holds two such counts."""
_KEEP_MASK = np.ascontiguousarray(KEEP_MASK_UNIQUE)
_TURNS_KEPT = 1 << 12
"""The turns whose keep values a solution keeps (7 KB each; a tournament plays 128 tables side by side)."""
_DECISIONS_KEPT = 1 << 10
"""The decisions whose action values a solution keeps (a tournament asks each decision of ``optimal-duel`` twice:
its choice, then its win-regret, after the other tables' choices)."""


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
    def most_words(self) -> int:
        """The most words the table can take on disk: every value of every row and an index word per pair (what it
        takes is what the sweep keeps: :attr:`DuelSolution.table_bytes`)."""
        return sum(self.cells) + sum(self.pairs)

    @property
    def most_bytes(self) -> int:
        """:attr:`most_words` in bytes."""
        return self.most_words * WORD.itemsize

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

    def lowest(self, t: int) -> np.ndarray:
        """(pairs,) int32 the lowest difference of each row of layer ``t``: minus the mover's most points to come."""
        ix = self.index
        a, b = _movers(t)
        ma = ix.most[ix.states[ix.start[a]:ix.start[a + 1]]]
        return np.repeat(-ma, ix.start[b + 1] - ix.start[b]).astype(np.int32)


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
    if 2 * int(ix.most.max()) + 1 >= MAX_ROW:
        raise ValueError(f"rules {rules.name!r}: a row of the duel table would hold {2 * int(ix.most.max()) + 1:,} "
                         f"differences; the table's index holds fewer than {MAX_ROW:,}")
    return DuelPlan(rules, ix, tuple(cells), tuple(pairs))


def check_duel_memory(plan: DuelPlan) -> None:
    """``ValueError`` if the sweep would hold more memory than :data:`~yacht_solver.memory_limit.MEMORY_ENV`
    allows, saying what it would need in memory and on disk."""
    refuse_above_limit(plan.sweep_bytes, f"the duel solution of rules {plan.rules.name!r}",
                       f"two layers of its table while it is solved; at most {plan.most_bytes / 1e9:,.1f} GB on disk, "
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

    def __init__(self, rules: RuleSet, layers: list[DUELK.DuelLayer], *, seconds: float = 0.0, from_cache: bool = False,
                 path: Path | None = None) -> None:
        self.rules = rules
        self.plan = duel_plan(rules)
        self.layout = TurnStartLayout.of(rules)
        self.constants = search_constants(rules)
        self.seconds = seconds
        self.from_cache = from_cache
        self.path = path
        self._layers = layers
        self._turns: dict[DUELK.DuelPair, KeepLane] = {}
        self._decisions: dict[tuple[GameState, GameState], tuple[int, np.ndarray]] = {}
        self._flat = lru_cache(maxsize=1 << 16)(self._flat_of)
        self._compiled: tuple[Callable[..., None], Callable[..., int]] | None = None
        self._actions = NUM_KEEP_ACTIONS + rules.num_categories

    def _flat_of(self, filled: int, upper: int, five_kind: int | None) -> int:
        """The turn-start state of a scorecard (a flat index of the turn search's tables), or -1 if no game reaches
        it."""
        flat = int(self.layout.flat(*self.layout.key(filled, upper, five_kind)))
        return flat if self.plan.index.rank[flat] >= 0 else -1

    def __repr__(self) -> str:
        return f"DuelSolution(rules={self.rules.name!r}, first_player_win={self.first_player_win:.7f})"

    def layer(self, t: int) -> DUELK.DuelLayer:
        """Layer ``t`` (boxes filled in all)."""
        return self._layers[t]

    def value(self, t: int, p: int, d: int) -> float:
        """``W`` of pair ``p`` of layer ``t`` at difference ``d`` (0 or 1 beyond the values the row keeps)."""
        lay = self._layers[t]
        k = d - int(lay.lo[p])
        if k < 0:
            return 0.0
        o = int(lay.off[p]) + k
        return 1.0 if o >= int(lay.off[p + 1]) else float(lay.data[o])

    def row(self, t: int, p: int) -> np.ndarray:
        """(most(mover) + most(opponent) + 1,) float32: the whole row of pair ``p`` of layer ``t``, every difference
        from minus the mover's most points to come to the opponent's, as the sweep computed it."""
        full = self.plan.offsets(t)
        return expand(self._layers[t], p, int(full[p + 1] - full[p]), int(self.plan.lowest(t)[p]))

    @property
    def first_player_win(self) -> float:
        """The first mover's chance to win a new game (ties half), both players optimal."""
        return self.value(0, 0, 0)

    @property
    def table_bytes(self) -> int:
        """The table's size on disk (or in memory): its kept values and index words."""
        return sum(lay.data.nbytes + len(lay.lo) * WORD.itemsize for lay in self._layers)

    def _pair(self, mover: GameState, other: GameState) -> tuple[int, int, int, int]:
        """``(layer, mover state, other state, difference)`` of a decision, checked."""
        if not (type(mover) is GameState and type(other) is GameState  # GameState has no subclasses
                and mover.rules == other.rules == self.rules.name):
            for what, st in (("mover", mover), ("other", other)):
                if not isinstance(st, GameState):
                    raise ValueError(f"{what} must be a GameState, got {type(st).__name__}")
                if st.rules != self.rules.name:
                    raise ValueError(f"this duel solution is for rules {self.rules.name!r}, {what} is {st.rules!r}")
        if mover.is_over:
            raise ValueError("the mover's game is over: it has no decision to make")
        k, j = mover.turn, other.turn
        if j != k and j != k + 1:
            raise ValueError(f"the mover has filled {k} boxes and the other {j}: in a game of two, the other has "
                             f"filled as many (the mover moves first) or one more (it moves second)")
        sa = self._flat(mover.filled_bits, mover.upper_total, mover.yahtzee_box)
        sb = self._flat(other.filled_bits, other.upper_total, other.yahtzee_box)
        if sa < 0 or sb < 0:
            raise ValueError("no game reaches these scorecards")
        return k + j, sa, sb, int(mover.total - other.total)

    def turn_start_win(self, mover: GameState, other: GameState) -> float:
        """The mover's chance to win from the start of its turn, before its first roll (``mover``'s dice and rolls
        left are ignored)."""
        t, sa, sb, d = self._pair(mover, other)
        ix = self.plan.index
        b = _movers(t)[1]
        return self.value(t, int(ix.rank[sa]) * int(ix.start[b + 1] - ix.start[b]) + int(ix.rank[sb]), d)

    def action_win_probabilities(self, mover: GameState, other: GameState) -> np.ndarray:
        """(32 + C,) the mover's chance to win after each legal action of its decision (NaN where illegal)."""
        values = self._decide(mover, other)[1]
        return np.where(values > -np.inf, values, np.nan)

    def win_probability(self, mover: GameState, other: GameState) -> float:
        """The mover's chance to win at its decision (the best action's), both playing optimally from here."""
        return float(np.nanmax(self.action_win_probabilities(mover, other)))

    def best_action(self, mover: GameState, other: GameState) -> int:
        """The action that maximises the mover's chance to win; ties to the lowest action index."""
        return self._decide(mover, other)[0]

    def win_regret(self, mover: GameState, other: GameState, action: int) -> float:
        """The mover's chance to win that ``action`` (legal) gives up against the best action: ``max_a W(a) -
        W(action)``, never below 0."""
        values = self._decide(mover, other)[1]
        return max(0.0, float(values.max() - values[action]))

    def _kernels(self) -> tuple[Callable[..., None], Callable[..., int]]:
        """:func:`~yacht_solver.duel_kernels.duel_turn` and :func:`~yacht_solver.duel_kernels.duel_decide` compiled
        for this solution's arguments and called without numba's dispatcher, which types every argument of every
        call (namedtuples of arrays: several microseconds a call, more than many decisions take). Safe because
        :meth:`_decide` builds each argument to the same types (the tables, the index and the keep mask are the same
        objects; the pair and the decision of Python ints and float64 arrays); where the layers are not all of one
        type, the dispatchers themselves."""
        if self._compiled is None:
            kinds = {numba.typeof(lay) for lay in self._layers}
            if len(kinds) != 1:
                self._compiled = (DUELK.duel_turn, DUELK.duel_decide)
            else:
                keeps = np.empty((NUM_KEEPS, 1))
                pair = DUELK.DuelPair(0, 0, 0)
                fixed = [numba.typeof(a) for a in (self.constants, self.plan.index)] + [kinds.pop(),
                                                                                        numba.typeof(pair)]
                self._compiled = (
                    DUELK.duel_turn.compile((*fixed, numba.typeof(keeps), numba.typeof(keeps))),
                    DUELK.duel_decide.compile((*fixed, numba.typeof(DUELK.DuelDecision(KeepLane(keeps, keeps, 0), 0,
                                                                                       0)),
                                               numba.typeof(_KEEP_MASK), numba.typeof(np.empty(1)))))
        return self._compiled

    def _decide(self, mover: GameState, other: GameState) -> tuple[int, np.ndarray]:
        """The best action at the mover's decision and every action's chance (``-inf`` where illegal, read-only), kept
        for the next :data:`_DECISIONS_KEPT` decisions (states are values: equal states, equal answers)."""
        hit = self._decisions.get((mover, other))
        if hit is not None:
            return hit
        t, sa, sb, d = self._pair(mover, other)
        pair, nxt = DUELK.DuelPair(sa, sb, d), self._layers[t + 1]
        turn_kernel, decide_kernel = self._kernels()
        turn = self._turns.get(pair)
        if turn is None:  # each decision of a turn reads the same keep values: searched once per turn
            turn = KeepLane(np.empty((NUM_KEEPS, 1)), np.empty((NUM_KEEPS, 1)), 0)
            turn_kernel(self.constants, self.plan.index, nxt, pair, turn.K1, turn.K2)
            if len(self._turns) >= _TURNS_KEPT:
                self._turns.clear()
            self._turns[pair] = turn
        values = np.empty(self._actions)
        action = decide_kernel(self.constants, self.plan.index, nxt, pair,
                               DUELK.DuelDecision(turn, int(mover.hand), int(mover.rolls_left)), _KEEP_MASK, values)
        values.setflags(write=False)
        if len(self._decisions) >= _DECISIONS_KEPT:
            self._decisions.clear()
        self._decisions[mover, other] = answer = int(action), values
        return answer


# ---- the sweep --------------------------------------------------------------------------------------------------


def expand(layer: DUELK.DuelLayer, p: int, length: int, low: int) -> np.ndarray:
    """(length,) float32 the row of pair ``p`` at the differences ``low ..``: 0.0 before its kept values, 1.0
    after."""
    row = np.ones(length, dtype=DTYPE)
    z = int(layer.lo[p]) - low
    kept = layer.data[int(layer.off[p]):int(layer.off[p + 1])]
    row[:z] = 0.0
    row[z:z + len(kept)] = kept
    return row


def layer_of(plan: DuelPlan, t: int, rows: DUELK.Stripped) -> DUELK.DuelLayer:
    """Layer ``t`` from its stripped rows (:func:`~yacht_solver.duel_kernels.strip_row`)."""
    off = np.zeros(len(rows.kept) + 1, dtype=np.int64)
    np.cumsum(rows.kept, out=off[1:])
    a, b = _movers(t)
    return DUELK.DuelLayer(rows.data, off, (plan.lowest(t) + rows.zeros).astype(np.int32), a, b)


def _batch(cs: SearchConstants, plan: DuelPlan, nxt: DUELK.DuelLayer, t: int, span: tuple[int, int], size: int
           ) -> DUELK.Stripped:
    """The rows of pairs ``span[0] .. span[1] - 1`` of layer ``t`` (``size`` values whole), stripped: its kept
    values copied out of the scratch that held the whole rows."""
    lo, hi = span
    out = DUELK.Stripped(np.empty(size, dtype=DTYPE), np.empty(hi - lo, dtype=np.int32),
                         np.empty(hi - lo, dtype=np.int32))
    kept = DUELK.duel_rows(cs, plan.index, nxt, _movers(t), np.arange(lo, hi, dtype=np.int64), out)
    return DUELK.Stripped(out.data[:kept].copy(), out.zeros, out.kept)


def sweep(rules: RuleSet, emit: Callable[[int, DUELK.DuelLayer], None],
          progress: Callable[[int], None] | None = None, stop: int = 0) -> None:
    """The backward induction: ``emit(t, layer)`` for each layer ``t`` from ``2C`` (the game over: 0.5, a tie at
    difference 0) down to 0 (a new game), each as soon as it is done, its rows stripped; ``progress(cells)`` after
    each batch of rows (the values of its whole rows). ``stop``: the first layer solved (an end game: the layers from
    ``stop`` on). The states of a layer are dealt out among ``numba.get_num_threads()`` threads; each batch keeps only
    its stripped rows, so the sweep holds the layer read, the layer made and a batch's whole rows per thread."""
    plan = duel_plan(rules)
    cs = search_constants(rules)
    C = rules.num_categories
    last = 2 * C
    end = DUELK.Stripped(np.empty(plan.cells[last], dtype=DTYPE), np.empty(plan.pairs[last], dtype=np.int32),
                      np.empty(plan.pairs[last], dtype=np.int32))
    kept = DUELK.strip_rows(np.full(plan.cells[last], 0.5), plan.offsets(last), end)
    nxt = layer_of(plan, last, DUELK.Stripped(end.data[:kept], end.zeros, end.kept))
    emit(last, nxt)
    threads = numba.get_num_threads()
    with ThreadPoolExecutor(threads) as pool:
        for t in range(last - 1, stop - 1, -1):
            n = plan.pairs[t]
            step = max(1, min(4096, n // (8 * threads) + 1))
            full = plan.offsets(t)
            spans = [(lo, min(n, lo + step)) for lo in range(0, n, step)]
            jobs = {pool.submit(_batch, cs, plan, nxt, t, span, int(full[span[1]] - full[span[0]])): k
                    for k, span in enumerate(spans)}
            pieces: list[DUELK.Stripped | None] = [None] * len(spans)
            try:
                for job in as_completed(jobs):
                    k = jobs[job]
                    pieces[k] = job.result()
                    if progress is not None:
                        progress(int(full[spans[k][1]] - full[spans[k][0]]))
            except BaseException:  # Ctrl-C: the queued batches are dropped, the running ones end within a moment
                cancel_on_interrupt(jobs)
                raise
            nxt = layer_of(plan, t, _joined(pieces))
            emit(t, nxt)


def _joined(pieces: list[DUELK.Stripped | None]) -> DUELK.Stripped:
    """The batches' stripped rows as one, in order; each batch is let go as soon as it is copied (the layer is not
    held twice)."""
    data = np.empty(sum(len(p.data) for p in pieces if p is not None), dtype=DTYPE)
    zeros = np.concatenate([p.zeros for p in pieces if p is not None])
    kept = np.concatenate([p.kept for p in pieces if p is not None])
    pos = 0
    for k, p in enumerate(pieces):
        if p is not None:
            data[pos:pos + len(p.data)] = p.data
            pos += len(p.data)
            pieces[k] = None
    return DUELK.Stripped(data, zeros, kept)


# ---- the disk cache ---------------------------------------------------------------------------------------------


def duel_key(rules: RuleSet) -> str:
    """The disk-cache key: the objective key of the rules and the turn search, the duel kernels' source and the
    sweep's (the rest of this module does not change the table)."""
    sweep_source = "".join(inspect.getsource(f) for f in (sweep, _batch, _joined, layer_of, save_table, _words,
                                                            duel_index, DuelPlan.offsets, DuelPlan.lowest))
    return objective_key(rules, f"duel-v{DUEL_VERSION}-{DTYPE.str}-{WORD.str}-{sweep_source}", (DUELK,))


def duel_path(rules: RuleSet, key: str) -> Path:
    """The table's file: one of the solver's tables (:mod:`yacht_solver.table_cache`), under the duel's own key."""
    return _cache.cache_path(rules, key)


def _words(plan: DuelPlan, t: int, layer: DUELK.DuelLayer) -> np.ndarray:
    """(pairs,) the index words of layer ``t``: each row's leading zeros and kept values, ``zeros | kept << 16``."""
    zeros = (layer.lo - plan.lowest(t)).astype(np.uint32)
    return zeros | (np.diff(layer.off).astype(np.uint32) << 16)


def save_table(rules: RuleSet, source: Callable[[Callable[[int, DUELK.DuelLayer], None]], None]) -> Path:
    """Write the table file of ``rules`` (atomically) from ``source(emit)``, which calls ``emit(t, layer)`` for the
    layers from the last to the first (as :func:`sweep` does): each written, index words then kept values, as it
    comes."""
    plan = duel_plan(rules)

    def fill(write: Callable[[np.ndarray], None]) -> None:
        def layer(t: int, lay: DUELK.DuelLayer) -> None:
            write(_words(plan, t, lay))
            write(lay.data.view(WORD))

        source(layer)

    return _cache.save_in_pieces(rules, duel_key(rules), (plan.most_words,), WORD.str, fill, at_most=True)


def layers_of_words(plan: DuelPlan, words: np.ndarray) -> list[DUELK.DuelLayer] | None:
    """The layers of a table's words (:func:`save_table`'s order), or ``None`` unless they fit the plan exactly: each
    index word within its row, the kept values ending where the words end, each value a probability (checked before
    any kernel reads a row)."""
    layers: list[DUELK.DuelLayer] = []
    pos = 0
    for t in range(len(plan.cells) - 1, -1, -1):  # the file holds the last layer first
        n = plan.pairs[t]
        if pos + n > len(words):
            return None
        index = np.asarray(words[pos:pos + n])
        pos += n
        zeros, kept = (index & 0xFFFF).astype(np.int32), (index >> 16).astype(np.int32)
        if (zeros.astype(np.int64) + kept > np.diff(plan.offsets(t))).any():
            return None
        size = int(kept.sum(dtype=np.int64))
        if pos + size > len(words):
            return None
        rows = DUELK.Stripped(words[pos:pos + size].view(DTYPE), zeros, kept)
        if not _probabilities(rows.data):
            return None
        pos += size
        layers.append(layer_of(plan, t, rows))
    return layers[::-1] if pos == len(words) else None


def _probabilities(values: np.ndarray) -> bool:
    """Every value a number from 0 to 1 (a NaN fails both comparisons; in slices: no copy of a layer of many MB)."""
    step = 1 << 22
    return all(c.min() >= 0.0 and c.max() <= 1.0 for c in (values[i:i + step] for i in range(0, len(values), step)))


def _load(rules: RuleSet, key: str, plan: DuelPlan) -> list[DUELK.DuelLayer] | None:
    """The layers of the cached table, memory-mapped, or ``None`` if it is missing or anything about it is off
    (header, size, checksum: the table reader checks them; the index and the values: :func:`layers_of_words`)."""
    shape = _cache.stored_shape(rules, key)
    if shape is None or len(shape) != 1 or not 0 < shape[0] <= plan.most_words:
        return None
    words = _cache.load(rules, shape, key=key, dtype=WORD.str, mapped=True)
    layers = None if words is None else layers_of_words(plan, words)
    base = words
    while base is not None and not isinstance(base, mmap.mmap):
        base = base.obj if isinstance(base, memoryview) else getattr(base, "base", None)
    if base is not None:  # the check read every page: out of this process's memory again (the page cache keeps them)
        base.madvise(mmap.MADV_DONTNEED)
    return layers


_MEMO: dict[str, DuelSolution] = {}

CELLS_PER_SECOND = 1_695_000
"""The sweep's speed on 2 threads: Yacht's 1,549,689,400 values in 914 s (the objectives page's timing of
``benchmarks/bench_duel.py --rules yacht``), for the time a solve announces."""


DISK_BYTES = {"yacht": 4_874_143_116}
"""The table's size as solved (what the sweep keeps, :attr:`DuelSolution.table_bytes`: ``python
benchmarks/duel_table_size.py``'s record ``docs/records/duel-table-size.json``), for the size a solve announces;
other rule sets announce the most."""


def _announce(rules: RuleSet, plan: DuelPlan, cache: bool) -> SlowNotice:
    """The notice of a solve: what it is about to do, how big, for about how long (on 2 cores), then progress."""
    size = (f"{DISK_BYTES[rules.name] / 1e9:.1f} GB" if rules.name in DISK_BYTES
            else f"at most {plan.most_bytes / 1e9:.1f} GB")
    what = (f"solving the game of two players of {rules.name} exactly: {sum(plan.cells):,} values "
            f"({size} {'on disk' if cache else 'in memory'}, "
            f"{plan.sweep_bytes / 1e9:.1f} GB of memory while it runs; "
            f"{'once, then cached' if cache else 'not cached'})")
    return long_work(what, sum(plan.cells) / CELLS_PER_SECOND)

def cached_duel(rules: str | RuleSet) -> DuelSolution | None:
    """The solution of ``rules`` from a valid table in the disk cache, memory-mapped (once per process: two agents
    of a tournament share it), or ``None`` if there is none (nothing is solved)."""
    rs = get_rules(rules)
    t0 = time.perf_counter()
    key = duel_key(rs)
    where = str(duel_path(rs, key))
    hit = _MEMO.get(where)
    if hit is not None:
        return hit
    got = _load(rs, key, duel_plan(rs))
    if got is None:
        return None
    _MEMO[where] = DuelSolution(rs, got, seconds=time.perf_counter() - t0, from_cache=True, path=duel_path(rs, key))
    return _MEMO[where]


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
        refuse_above_limit(plan.most_bytes + plan.sweep_bytes, f"the duel solution of rules {rs.name!r} in memory",
                           f"its whole table, {sum(plan.cells):,} values, kept with cache=False; with the cache, two "
                           "layers at a time")
        layers: list[DUELK.DuelLayer] = [None] * len(plan.cells)  # type: ignore[list-item]  # each filled below

        def keep(t: int, layer: DUELK.DuelLayer) -> None:
            for a in layer[:3]:
                a.setflags(write=False)
            layers[t] = layer

        with _announce(rs, plan, cache=False):
            sweep(rs, keep, progress)
        return DuelSolution(rs, layers, seconds=time.perf_counter() - t0)
    hit = cached_duel(rs)
    if hit is not None:
        return hit
    key = duel_key(rs)
    where = str(duel_path(rs, key))
    path = duel_path(rs, key)
    if path.is_dir() or (path.parent.exists() and not path.parent.is_dir()):  # found now, not after an hour's sweep
        raise ValueError(f"the duel table's file {str(path)!r} cannot be written: "
                         f"{'it is a folder' if path.is_dir() else 'its folder is a file'}; remove that or set "
                         "YACHT_ENV_CACHE_DIR to another folder")
    path.parent.mkdir(parents=True, exist_ok=True)
    with _announce(rs, plan, cache=True):
        save_table(rs, lambda emit: sweep(rs, emit, progress))
    seconds = time.perf_counter() - t0
    got = _load(rs, key, plan)
    if got is None:
        raise OSError(f"the duel table just written to {path} does not read back")
    _MEMO[where] = DuelSolution(rs, got, seconds=seconds, path=path)
    return _MEMO[where]
