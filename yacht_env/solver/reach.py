"""Play to reach a target: the strategy that maximises P(final score >= T), exactly, for every T at once.

The state of a game gains the points still needed. :func:`solve_reach` runs one backward induction over the
turn-start states in which the turn search's lanes are the needs ``0 .. N - 1`` (:mod:`.reach_kernels`), so that
``ReachSolution.table[s, n]`` is the best probability of at least ``n`` more points from turn-start state ``s``, and
``P*(T) = table[start, T]`` for every target. ``N - 1`` is above the highest score the rules allow, so every need
at or beyond it has probability 0.
"""

from __future__ import annotations

import gc
import hashlib
import inspect
import math
import os
import sys
import time
from collections.abc import Callable
from functools import lru_cache
from types import ModuleType

import numpy as np

from yacht_env.actions import KEEP_MASK_UNIQUE, NUM_KEEP_ACTIONS
from yacht_env.jit.notice import SlowNotice
from yacht_env.objective import max_final_score
from yacht_env.rules import RuleSet, TurnStartLayout, get_rules
from yacht_env.search import turn_search as T
from yacht_env.search import turn_tables as TT
from yacht_env.search.turn_search import Positions
from yacht_env.search.turn_tables import turn_arrays
from yacht_env.solver import reach_kernels as RK
from yacht_env.solver import table_cache as _cache
from yacht_env.solver.core import turn_start_layers
from yacht_env.state import GameState

__all__ = ["MEMORY_ENV", "ReachSolution", "check_table_memory", "max_score", "most_points", "solve_reach",
           "table_bytes"]

_KEEP_MASK = np.ascontiguousarray(KEEP_MASK_UNIQUE)


max_score = max_final_score  # the solver's name for it


def table_bytes(rules: RuleSet) -> int:
    """Memory of a reach or distribution table of ``rules`` (float64, every turn-start key, every need or score)."""
    return TurnStartLayout.of(rules).size * (max_score(rules) + 2) * 8


MEMORY_ENV = "YACHT_ENV_TABLE_GB"
"""Environment variable: the most GB (10^9 bytes) one reach or distribution table may take (default 4)."""


def check_table_memory(rules: RuleSet, what: str) -> None:
    """``ValueError`` if the table of ``rules`` would take more than :data:`MEMORY_ENV` allows, saying how much it
    needs: Yacht and Knizia's Yacht take 10 MB, Yatzy 6.3 GB, Yahtzee 13 GB."""
    raw = os.environ.get(MEMORY_ENV, "4")
    try:
        limit = float(raw)
    except ValueError:
        limit = math.nan
    if not (math.isfinite(limit) and limit > 0):  # nan and inf compare false: they would turn the guard off
        raise ValueError(f"{MEMORY_ENV} must be a positive number of GB (such as 4 or 14.5), got {raw!r}")
    need = table_bytes(rules) / 1e9
    if need > limit:
        raise ValueError(f"{what} for rules {rules.name!r} needs a table of {need:.1f} GB, more than the {limit:g} GB "
                         f"allowed; set {MEMORY_ENV} to allow it (the documentation's page 'Distributions, targets, "
                         "winning', objectives.html, gives the time it takes)")


class ReachSolution:
    """The solved reach objective: ``table[s, n]`` (flat turn-start key ``s``, need ``n``), the best probability to
    score at least ``n`` more points; NaN rows for states no game reaches."""

    def __init__(self, rules: RuleSet, table: np.ndarray, seconds: float) -> None:
        self.rules = rules
        self.layout = TurnStartLayout.of(rules)
        self.table = table
        self.seconds = seconds
        self.arrays = turn_arrays(rules)

    @property
    def width(self) -> int:
        """Number of needs held (``N``): needs at or above ``N - 1`` cannot be reached."""
        return int(self.table.shape[1])

    def probability(self, target: int) -> float:
        """P*(target): the best probability that a new game ends with at least ``target`` points."""
        return float(self.curve()[min(max(int(target), 0), self.width - 1)])

    def curve(self) -> np.ndarray:
        """``curve[T]`` = P*(T) for T = 0 .. N - 1."""
        return self.table[0].copy()

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

    def decide(self, F: np.ndarray, u: np.ndarray, y: np.ndarray, needs: np.ndarray, hands: np.ndarray,
               rolls: np.ndarray, values: bool = False, table: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray | None]:
        """Actions (and with ``values`` the (N, 32 + C) probabilities) of positions given by turn-start keys,
        points still needed, hands and rolls left. ``table`` (default: the reach table) gives the value of ending
        the turn in state s with ``need - points`` still needed: ``table[s, need - points]``, 1 at or below 0."""
        i64 = [np.ascontiguousarray(a, dtype=np.int64) for a in (F, u, y, needs, hands, rolls)]
        i64[3] = np.clip(i64[3], 0, self.width - 1)
        n = len(i64[0])
        out = np.empty((n, NUM_KEEP_ACTIONS + self.rules.num_categories)) if values else np.empty((0, 0))
        table = self.table if table is None else table
        if table.shape != self.table.shape or table.dtype != np.float64:
            raise ValueError(f"table must be float64 of shape {self.table.shape}, got {table.dtype} {table.shape}")
        pos = Positions(i64[0], i64[1], i64[2], i64[4], i64[5])
        actions = RK.reach_decide(self.arrays.tables, table, pos, i64[3], _KEEP_MASK, out)
        return actions, (out if values else None)

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
        return self.decide(keys[:, 0], keys[:, 1], keys[:, 2], needs, np.array([s.hand for s in states]),
                           np.array([s.rolls_left for s in states]), values)


@lru_cache(maxsize=2)
def most_points(rules: RuleSet) -> np.ndarray:
    """``most[s]``: the most points still to come from turn-start state s (flat), exactly; beyond it the reach and
    distribution rows of s are 0, so their sweeps search only the needs (or scores) up to it."""
    most = RK.most_points_layers(turn_arrays(rules).tables, TurnStartLayout.of(rules).size, turn_start_layers(rules))
    most.setflags(write=False)
    return most


def compute_reach(rules: RuleSet) -> np.ndarray:
    """The (size, N) reach table of ``rules`` (see :class:`ReachSolution`)."""
    layout = TurnStartLayout.of(rules)
    N = max_score(rules) + 2
    R = np.full((layout.size, N), np.nan)
    final = layout.final_states()
    R[final] = 0.0
    R[final, 0] = 1.0
    RK.reach_layers(turn_arrays(rules).tables, R, turn_start_layers(rules), most_points(rules))
    R.setflags(write=False)
    return R


def objective_key(rules: RuleSet, kind: str, modules: tuple[ModuleType, ...] = ()) -> str:
    """The disk-cache key of an objective's table: the expected-score table's key (rules, turn logic, dice), the
    kind, and the sources of the turn search, of this solver and of ``modules``."""
    h = hashlib.sha256(f"{_cache.rules_key(rules)}:{kind}".encode())
    for module in (TT, T, RK, sys.modules[__name__], *modules):
        h.update(inspect.getsource(module).encode())
    return h.hexdigest()


def cached_table(rules: RuleSet, kind: str, compute: Callable[[], np.ndarray], modules: tuple[ModuleType, ...] = (),
                 rows: int | None = None) -> tuple[np.ndarray, float]:
    """An objective's table from the solver's disk cache (:mod:`yacht_env.solver.table_cache`, checked and written
    atomically there), else ``compute()``d and saved; with the seconds it took. ``modules``: the sources the table
    also depends on. ``rows``: only the first rows are wanted (the rest is let go as soon as it is read or saved)."""
    t0 = time.perf_counter()
    key = objective_key(rules, kind, modules)
    shape = (TurnStartLayout.of(rules).size, max_score(rules) + 2)
    table = _cache.load(rules, shape, key, rows, value_range=(0.0, 1.0 + 1e-9), start_cells=shape[1])  # probabilities
    if table is None:
        with SlowNotice(f"computing the {kind} table of {rules.name} ({shape[0]:,} x {shape[1]:,}; once, then cached)"):
            table = compute()
        _cache.save(rules, table, key)
        if rows is not None:
            table = table[:rows].copy()
            gc.collect()  # the whole table can sit in a reference cycle: freed now, not at some later collection
    return table, time.perf_counter() - t0


@lru_cache(maxsize=2)
def _memo(rules: RuleSet) -> ReachSolution:
    table, seconds = cached_table(rules, "reach", lambda: compute_reach(rules))
    return ReachSolution(rules, table, seconds)


def solve_reach(rules: str | RuleSet) -> ReachSolution:
    """The exact reach solution of ``rules`` (kept in memory for the process). Its table takes
    :func:`table_bytes`: a few MB for Yacht and Knizia's Yacht, many GB for Yahtzee and Yatzy."""
    rs = get_rules(rules)
    check_table_memory(rs, "the reach solution")
    return _memo(rs)
