"""The greedy agent: the best play for the current turn alone, ignoring every later turn.

It is the turn search of :mod:`yacht_agents.search` with every later turn worth nothing: at the score decision it
takes the legal category that adds the most points now (bonuses earned by this box included; ties go to the lowest
category index); at a keep decision it maximises the *expected* points of this turn under that scoring rule, an
exact one-turn expectimax over the dice model. With rolls left it scores at once when that is worth at least the
best keep (ties score, saving the rolls), else it plays the lowest legal keep pattern of the best value.

It is the classic baseline: Glenn (2006) reports 218.05 at Yahtzee for a turn-greedy player.
"""

from __future__ import annotations

import numpy as np

from yacht_agents.search import TurnKeys, TurnSearchAgent
from yacht_env.rules import RuleSet


class GreedyAgent(TurnSearchAgent):
    """Maximises the current turn's score (see the module docstring). Deterministic."""

    name = "greedy"
    prefer_score = True

    def __init__(self, rules: str | RuleSet = "yacht", seed: int | None = None) -> None:
        super().__init__(rules, seed)
        self._zeros = np.zeros(self.layout.size)
        self._zeros.setflags(write=False)

    def successor_values(self, keys: TurnKeys) -> np.ndarray:
        return self._zeros
