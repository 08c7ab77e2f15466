"""The exact distribution of the final score under expected-score optimal play, from the start or any state.

One backward induction over the turn-start states (fullest scorecard first, :mod:`.distribution_kernels`) gives
``table[s, x]``, the probability of exactly ``x`` more points from turn-start state ``s`` when every decision is the
optimal agent's (:class:`~yacht_solver.Solution`'s values, the lowest action index on ties). Its mean equals the
solver's value of ``s``. The table is ragged (:mod:`.ragged`): row ``s`` holds the scores up to
``most_points[s]`` only, in float32 for the large rule sets, memory-mapped from the disk cache.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from yacht_env.actions import KEEP_MASK_UNIQUE
from yacht_env.rules import RuleSet, TurnStartLayout, get_rules
from yacht_env.state import GameState
from yacht_solver import distribution_kernels as DISTK
from yacht_solver.core import Solution, solve, turn_start_layers
from yacht_solver.ragged import RaggedTable
from yacht_solver.reach import cached_table, check_table_memory, new_table, sweep
from yacht_solver.search.turn_constants import search_constants

__all__ = ["DistributionTable", "ScoreDistribution", "distribution_table", "score_distribution"]

_KEEP_MASK = np.ascontiguousarray(KEEP_MASK_UNIQUE)


@dataclass(frozen=True)
class ScoreDistribution:
    """``probabilities[x]`` = P(final score = x)."""

    probabilities: np.ndarray

    @property
    def mean(self) -> float:
        return float(np.arange(len(self.probabilities)) @ self.probabilities)

    @property
    def std(self) -> float:
        x = np.arange(len(self.probabilities))
        return float(np.sqrt(max(((x - self.mean) ** 2) @ self.probabilities, 0.0)))

    def at_least(self) -> np.ndarray:
        """``out[T]`` = P(final score >= T)."""
        return np.cumsum(self.probabilities[::-1])[::-1].copy()

    def quantile(self, q: float) -> int:
        """The smallest score x with P(final <= x) >= q."""
        return int(np.searchsorted(np.cumsum(self.probabilities), q - 1e-12))


class DistributionTable:
    """``table[s, x]`` for every turn-start key ``s`` (NaN rows where no game goes), and the distribution from any
    game state."""

    def __init__(self, solution: Solution, table: RaggedTable, seconds: float) -> None:
        self.solution = solution
        self.rules = solution.rules
        self.layout = TurnStartLayout.of(self.rules)
        self.table = table
        self.seconds = seconds
        self._E = np.ascontiguousarray(solution.values, dtype=np.float64).reshape(-1)

    def of_key(self, F: int, u: int, y: int, total: int = 0) -> np.ndarray:
        """P(final = x) from the start of a turn with turn-start key (F, u, y) and ``total`` points so far."""
        row = self.table.row((F * self.layout.U + u) * self.layout.Y + y)
        return np.concatenate([np.zeros(total), row])

    def of_state(self, state: GameState) -> ScoreDistribution:
        """The final-score distribution from ``state`` (mid-turn too: its hand and rolls left) under the solver's
        decisions. A state between a seat's two turns (:attr:`~yacht_env.state.GameState.awaits_roll`) has its
        turn-start row: the distribution over the first roll to come."""
        if not isinstance(state, GameState) or state.rules != self.rules.name:
            raise ValueError(f"expected a GameState of rules {self.rules.name!r}, got {state!r}")
        if state.is_over:
            out = np.zeros(state.total + 1)
            out[-1] = 1.0
            return ScoreDistribution(out)
        F, u, y = self.layout.key(state.filled_bits, state.upper_total, state.yahtzee_box)
        s = (F * self.layout.U + u) * self.layout.Y + y
        width = max(int(self.table.offsets[s + 1] - self.table.offsets[s]), 1)  # s's row: no more can come
        if state.awaits_roll:
            return ScoreDistribution(np.concatenate([np.zeros(state.total), self.table.row(s)[:width]]))
        out = np.empty(width)
        DISTK.turn_distribution(search_constants(self.rules), self._E, self.table.kernel, s, _KEEP_MASK, state.hand,
                             state.rolls_left, out)
        return ScoreDistribution(np.concatenate([np.zeros(state.total), out]))

    @property
    def start(self) -> ScoreDistribution:
        """The distribution of a new game's final score."""
        return ScoreDistribution(self.table.row(0))


def compute_distribution(solution: Solution, dtype: np.dtype | None = None) -> RaggedTable:
    """The table of :class:`DistributionTable` for a solved rule set, in ``dtype`` (default: float32 for the large
    rule sets, :func:`~yacht_solver.ragged.table_dtype`)."""
    rules = solution.rules
    D = new_table(rules, dtype)
    E = np.ascontiguousarray(solution.values, dtype=np.float64).reshape(-1)
    sweep(lambda progress: DISTK.distribution_layers(search_constants(rules), E, D.kernel, turn_start_layers(rules),
                                                  _KEEP_MASK, progress), rules, "distribution")
    D.data.setflags(write=False)
    return D


def _load(sol: Solution, rows: int | None = None, cache: bool = True) -> tuple[RaggedTable, float]:
    """The table of the solved rule set ``sol`` (or its first ``rows``) from the disk cache, else computed and saved;
    with the seconds it took. ``cache=False``: computed, and no file read or written."""
    return cached_table(sol.rules, "distribution", lambda: compute_distribution(sol), (sys.modules[__name__], DISTK),
                        rows, cache)


@lru_cache(maxsize=2)
def _memo(rules: RuleSet) -> DistributionTable:
    sol = solve(rules)
    return DistributionTable(sol, *_load(sol))


def distribution_table(rules: str | RuleSet, *, cache: bool = True) -> DistributionTable:
    """The distribution table of ``rules`` (solved and kept in memory for the process). ``cache=False`` solves again
    (the expected score too) and touches no file (nor the table kept in memory)."""
    rs = get_rules(rules)
    check_table_memory(rs, "the score distribution")
    if not cache:
        sol = solve(rs, cache=False)
        return DistributionTable(sol, *_load(sol, cache=False))
    return _memo(rs)


def score_distribution(state_or_rules: GameState | str | RuleSet, *, cache: bool = True) -> ScoreDistribution:
    """The exact final-score distribution of a new game of the given rules, or from a given state. For a new game
    only the start's row is kept from the cached table (or the table is computed, saved and let go), so that a caller
    can hold another table of that size beside it. ``cache=False`` solves again and touches no file."""
    if isinstance(state_or_rules, GameState):
        return distribution_table(state_or_rules.rules, cache=cache).of_state(state_or_rules)
    rs = get_rules(state_or_rules)
    check_table_memory(rs, "the score distribution")
    if not cache:
        return ScoreDistribution(_load(solve(rs, cache=False), rows=1, cache=False)[0].row(0))
    return ScoreDistribution(_start(rs).copy())


@lru_cache(maxsize=8)
def _start(rules: RuleSet) -> np.ndarray:
    """The start's row alone, kept for the process (a few thousand numbers): asked again, as ``yacht eval --objective
    reach`` does, it is not read from its table again."""
    return _load(solve(rules), rows=1)[0].row(0)
