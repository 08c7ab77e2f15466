"""The optimal agent: the exact solver's best action in every state.

It maximises the expected final score, so its mean over many games estimates the solver's ``start_value``. Ties
between equally good actions are broken by :meth:`Solution.best_action` (deterministic), so the agent is
deterministic and uses no randomness.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent
from yacht_env.rules import RuleSet
from yacht_env.state import GameState


def load_solution(rules: str | RuleSet, *, cache: bool = True) -> Any:
    """The solver's :class:`Solution` for ``rules``; ``ValueError`` if the solver is missing or does not cover them."""
    try:
        from yacht_env.solver import solve
    except ImportError as e:
        raise ValueError(f"the exact solver (yacht_env.solver) is not available: {e}") from None
    try:
        return solve(rules, cache=cache)
    except NotImplementedError as e:
        raise ValueError(f"the solver does not cover rules {getattr(rules, 'name', rules)!r}: {e}") from None


class OptimalAgent(Agent):
    """Plays ``Solution.best_action(state)``: optimal play, deterministic tie-breaks."""

    name = "optimal"
    needs_state = True
    needs_obs = False  # it reads the GameState only: evaluators may skip encoding observations
    batched = False

    def __init__(self, rules: str | RuleSet = "yacht", seed: int | None = None, *, solution: Any = None,
                 cache: bool = True) -> None:
        super().__init__(rules)
        self.seed(seed)
        self.solution = solution if solution is not None else load_solution(self.rules, cache=cache)

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        if state is None:
            raise ValueError("the optimal agent needs the GameState (needs_state=True)")
        a = int(self.solution.best_action(state, unique_keeps=True))
        if not mask[a]:  # never expected: the canonical keep is legal under either keep mask
            raise RuntimeError(f"solver's best action {a} is not legal in {state}")
        return a

    def action_values(self, state: GameState) -> np.ndarray:
        """Expected final score of every action (NaN where illegal), from the solver."""
        return np.asarray(self.solution.action_values(state, unique_keeps=True), dtype=np.float64)
