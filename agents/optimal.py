"""The optimal agent: the exact solver's best action in every state.

It maximises the expected final score, so its mean over many games estimates the solver's ``start_value``. It is the
turn search of :mod:`yacht_agents.search` with the solver's exact values of every turn-start state; ties between
equally good actions go to the lowest action index (as :meth:`Solution.best_action
<yacht_solver.Solution.best_action>`), so the agent is deterministic and uses no randomness.
"""

from __future__ import annotations

import numpy as np

from yacht_agents.search import TurnKeys, TurnSearchAgent
from yacht_env.rules import RuleSet
from yacht_env.state import GameState
from yacht_solver import Solution, solve


class OptimalAgent(TurnSearchAgent):
    """Plays the solver's best action: optimal play, deterministic tie-breaks."""

    name = "optimal"

    def __init__(self, rules: str | RuleSet = "yacht", seed: int | None = None, *, solution: Solution | None = None,
                 cache: bool = True) -> None:
        super().__init__(rules, seed)
        self.solution = solution if solution is not None else solve(self.rules, cache=cache)
        if self.solution.rules.name != self.rules.name:
            raise ValueError(f"the solution is for rules {self.solution.rules.name!r}, not {self.rules.name!r}")
        self._values = np.ascontiguousarray(self.solution.values, dtype=np.float64).reshape(-1)

    def successor_values(self, keys: TurnKeys) -> np.ndarray:
        return self._values

    def action_values(self, state: GameState) -> np.ndarray:
        """Expected final score of every action (NaN where illegal), from the solver."""
        return np.asarray(self.solution.action_values(state, unique_keeps=True), dtype=np.float64)
