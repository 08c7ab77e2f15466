"""``optimal-duel``: the two-player game played exactly (:func:`yacht_solver.solve_duel`).

At each decision it takes the action that maximises its own chance to win (ties count half) against an opponent
who does the same, from the exact table of the game of two; ties between actions go to the lowest index. It plays
in games of two seats only: the table's value depends on both scorecards, so it refuses a game alone or of three or
more. Deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from yacht_agents.base import Agent
from yacht_env.rules import RuleSet
from yacht_env.state import GameState
from yacht_solver.duel import DuelSolution, solve_duel

__all__ = ["DuelAgent", "check_two"]


def check_two(states: Sequence[GameState], who: str = "optimal-duel") -> None:
    """``ValueError`` unless the game has two seats."""
    if len(states) != 2:
        raise ValueError(f"{who} plays the game of two players only (the exact table is of two scorecards); this "
                         f"game has {len(states)} seat{'s' if len(states) != 1 else ''}")


class DuelAgent(Agent):
    """Maximises its chance to win a game of two exactly (see the module docstring)."""

    name = "optimal-duel"
    needs_state = True
    needs_obs = False
    wants_seating = True
    max_players = 2  # a tournament of more players refuses it before the first game

    def __init__(self, rules: str | RuleSet = "yacht", seed: int | None = None, *,
                 solution: DuelSolution | None = None) -> None:
        super().__init__(rules)
        self.seed(seed)
        self.duel = solution if solution is not None else solve_duel(self.rules)

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        raise ValueError("optimal-duel plays the game of two players only: it needs the other player's scorecard "
                         "(a tournament or yacht play --vs), not a game alone")

    def act_seated(self, states: Sequence[GameState], seat: int, mask: np.ndarray) -> int:
        """The action of ``seat`` in a game of two."""
        check_two(states)
        return self.duel.best_action(states[seat], states[1 - seat])

    def win_values(self, me: GameState, other: GameState) -> np.ndarray:
        """(32 + C,) the exact chance to win after each legal action (NaN where illegal)."""
        return self.duel.action_win_probabilities(me, other)
