"""The objective of the environments: the points (default), or reaching a target score.

``gym.make("Yacht-v0", objective="reach", target=200)``: the reward is 1 at the end of a game whose final score is
at least ``target`` and 0 on every other step, and the observation gains one last column, the points still needed,
``min(max(target - score so far, 0), S) / S`` with ``S = max_score + 1`` (so it lies in [0, 1]), which keeps it
Markov. The environments hand their observation, reward and end flags to a tracker of this module, which keeps the
score so far from the rewards of the points objective (they sum exactly to the final score). With
``objective="points"`` there is no tracker: the environment is the points environment, unchanged.

The exact optimum of the reach objective is :func:`yacht_solver.solve_reach` (``P*(T)``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from yacht_env.rules import RuleSet

OBJECTIVES = ("points", "reach")
"""The objectives the environments accept."""

__all__ = ["OBJECTIVES", "Objective", "max_final_score", "objective_of"]


def max_final_score(rules: RuleSet) -> int:
    """An upper bound of the final score: the best box of every category, the upper bonus, and a five-of-a-kind
    bonus on every turn but one (exact for the rule sets shipped)."""
    best = np.maximum(rules.box_scores.max(axis=0), rules.joker_scores.max(axis=0))
    return int(best.sum()) + int(rules.upper_bonus) + int(rules.five_kind_bonus) * (rules.num_categories - 1)


@dataclass(frozen=True)
class Objective:
    """Reach ``target`` points: what the environments need of it (see the module docstring)."""

    target: int
    scale: int

    def space(self, base: spaces.Box) -> spaces.Box:
        """The observation space with the column of the points still needed appended."""
        low = np.append(base.low, np.float32(0.0)).astype(np.float32)
        high = np.append(base.high, np.float32(1.0)).astype(np.float32)
        return spaces.Box(low, high, dtype=np.float32)

    def need(self, totals: np.ndarray | float) -> np.ndarray:
        """The normalised points still needed at these scores so far."""
        return (np.clip(self.target - np.asarray(totals, dtype=np.float64), 0, self.scale) / self.scale).astype(
            np.float32)

    def observe(self, obs: np.ndarray, totals: np.ndarray | float) -> np.ndarray:
        """The observation of one game (``obs`` of shape (D,), ``totals`` its score so far) or of N games ((N, D)
        and (N,)), with the column of the points still needed appended. The score so far is read from the games,
        so the objective holds no state of its own and follows every reset and autoreset mode."""
        return np.concatenate([obs, self.need(totals)[..., None]], axis=-1)

    def reward(self, terminated: np.ndarray | bool, final_totals: np.ndarray | float) -> np.ndarray:
        """1.0 for a game that terminated at ``target`` points or more, else 0.0 (one game or N)."""
        return (np.asarray(terminated) & (np.asarray(final_totals) >= self.target)).astype(np.float64)


def objective_of(rules: RuleSet, objective: str = "points", target: int | None = None) -> Objective | None:
    """The checked objective (``None`` for ``"points"``); ``ValueError`` naming what is wrong and what is
    accepted."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(map(repr, OBJECTIVES))}, got {objective!r}")
    if objective == "points":
        if target is not None:
            raise ValueError(f"target goes with objective='reach', got target={target!r} with objective='points'")
        return None
    if isinstance(target, (bool, np.bool_)) or not isinstance(target, (int, np.integer)) or target < 0:
        raise ValueError(f"objective='reach' needs target=T, a non-negative integer final score, got {target!r}")
    return Objective(int(target), max_final_score(rules) + 1)
