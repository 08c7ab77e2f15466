"""The exact optimal solver of Yacht and Yahtzee.

>>> from yacht_solver import solve
>>> sol = solve("yahtzee")            # doctest: +SKIP
>>> round(sol.start_value, 7)         # doctest: +SKIP
254.5877287

:func:`solve` returns a :class:`Solution`: ``start_value``, ``value(filled, upper_total, yahtzee_box)`` for any
turn-start state, and ``action_values(state)`` / ``best_action(state)`` for any :class:`~yacht_env.state.GameState`.
:func:`score_distribution` gives the exact distribution of the final score under that play (from a new game or any
state), :func:`solve_reach` the play that maximises the probability of reaching a target score, :func:`solve_duel`
the game of two players (each maximising its chance to win).
:mod:`yacht_solver.search.turn_search` is the search of a turn the solver sweeps, usable with any successor values
(e.g. a network's).
"""

from __future__ import annotations

from yacht_solver.core import (
    Solution,
    StateTurn,
    clear_memory_cache,
    compute_values,
    solution_or_none,
    solve,
)
from yacht_solver.distribution import ScoreDistribution, distribution_table, score_distribution
from yacht_solver.duel import DuelSolution, solve_duel
from yacht_solver.reach import ReachSolution, solve_reach
from yacht_solver.table_cache import SOLVER_VERSION, cache_dir

__all__ = ["SOLVER_VERSION", "DuelSolution", "ReachSolution", "ScoreDistribution", "Solution", "StateTurn",
           "cache_dir", "clear_memory_cache", "compute_values", "distribution_table", "score_distribution",
           "solution_or_none", "solve", "solve_duel", "solve_reach"]
