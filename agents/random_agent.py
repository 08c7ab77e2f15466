"""The random agent: uniform over the legal actions.

The baseline every other agent must beat by far. It reads only the legal-action mask, draws from its own generator
(:meth:`~agents.base.Agent.seed`) and decides for many games at once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from yacht_agents.base import Agent
from yacht_env.rules import RuleSet
from yacht_env.state import GameState


class RandomAgent(Agent):
    """Picks uniformly among the actions the mask allows (keeps and scores alike)."""

    name = "random"
    needs_state = False
    needs_obs = False  # the mask is all it reads: evaluators may skip encoding observations
    batched = True

    def __init__(self, rules: str | RuleSet = "yacht", seed: int | None = None) -> None:
        super().__init__(rules)
        self.seed(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        legal = np.flatnonzero(np.asarray(mask))
        if legal.size == 0:
            raise ValueError("no legal action: the game is over")
        return int(legal[self.rng.integers(legal.size)])

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, states: Sequence[GameState] | None = None
                  ) -> np.ndarray:
        masks = np.asarray(masks, dtype=np.bool_)
        counts = masks.sum(axis=1)
        if masks.shape[0] and counts.min() == 0:
            raise ValueError("no legal action in a game that is over")
        r = self.rng.integers(0, counts)  # the r-th legal action (0-based) of each row
        return (masks.cumsum(axis=1) <= r[:, None]).sum(axis=1).astype(np.int64)
