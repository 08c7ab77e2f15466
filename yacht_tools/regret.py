"""Regret against optimal play: what each decision loses in expectation, and where the points go.

The regret of a decision is ``max_a Q(s, a) - Q(s, chosen)``, with ``Q`` the solver's value of each action (the
expected final score under optimal play afterwards). Its sum per game estimates the agent's expected loss against
optimal play, so ``optimal_value - mean`` should be close to ``regret_per_game``.

A :class:`RegretTally` adds up decisions by game, by decision point and by turn, and the score decisions by box.
Decision points: ``first_keep`` is the decision after the first roll of a turn (keep dice, or score at once),
``second_keep`` after the second roll, ``score`` after the third (score only). The per-game figures of each
breakdown add up to ``regret_per_game``. :func:`search_values` computes the solver's action values of a batch of
positions in compiled code (the evaluation on the vector engine); the reference path asks
:meth:`Solution.action_values <yacht_solver.Solution.action_values>` state by state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from yacht_agents.search import TurnKeys
from yacht_env.actions import KEEP_MASK_UNIQUE, NUM_KEEP_ACTIONS
from yacht_env.rules import RuleSet, get_rules
from yacht_solver.search import turn_search as T
from yacht_solver.search.turn_constants import search_constants

DECISIONS = ("first_keep", "second_keep", "score")
"""Decision points, by the rolls left when they are taken (2, 1, 0)."""
_KEEP_MASK = np.ascontiguousarray(KEEP_MASK_UNIQUE)


class RegretTally:
    """Regret of every decision of ``episodes`` games, kept as sums (see the module docstring)."""

    def __init__(self, rules: str | RuleSet, episodes: int) -> None:
        self.rules = get_rules(rules)
        c = self.rules.num_categories
        self.per_game = np.zeros(episodes)
        self.by_point = np.zeros(3)
        self.count_point = np.zeros(3, dtype=np.int64)
        self.by_turn = np.zeros(c)
        self.by_box = np.zeros(c)
        self.count_box = np.zeros(c, dtype=np.int64)
        self.keep = np.zeros(2)  # sum and count of the keep actions' regret
        self.score = np.zeros(2)

    def add(self, games: np.ndarray, turns: np.ndarray, rolls: np.ndarray, actions: np.ndarray,
            regrets: np.ndarray) -> None:
        """Decisions: game index, turn (boxes filled before it), rolls left, action and regret (arrays)."""
        games, turns, rolls, actions = (np.asarray(a, dtype=np.int64) for a in (games, turns, rolls, actions))
        r = np.asarray(regrets, dtype=np.float64)
        if np.isnan(r).any():
            i = int(np.flatnonzero(np.isnan(r))[0])
            raise ValueError(f"the solver gives no value for action {int(actions[i])} of game {int(games[i])}")
        np.add.at(self.per_game, games, r)
        point = 2 - rolls
        np.add.at(self.by_point, point, r)
        np.add.at(self.count_point, point, 1)
        np.add.at(self.by_turn, turns, r)
        scored = actions >= NUM_KEEP_ACTIONS
        np.add.at(self.by_box, actions[scored] - NUM_KEEP_ACTIONS, r[scored])
        np.add.at(self.count_box, actions[scored] - NUM_KEEP_ACTIONS, 1)
        self.keep += (r[~scored].sum(), (~scored).sum())
        self.score += (r[scored].sum(), scored.sum())

    def summary(self) -> dict[str, Any]:
        """The regret fields of an evaluation result."""
        n = int(self.count_point.sum())
        games = max(self.per_game.size, 1)
        ids = self.rules.category_ids
        return {
            "mean_regret": float(self.by_point.sum() / n) if n else 0.0,
            "regret_per_game": float(self.per_game.mean()) if self.per_game.size else 0.0,
            "mean_regret_keep": float(self.keep[0] / self.keep[1]) if self.keep[1] else 0.0,
            "mean_regret_score": float(self.score[0] / self.score[1]) if self.score[1] else 0.0,
            "decisions": n,
            "regret_by_decision": {d: float(self.by_point[i] / games) for i, d in enumerate(DECISIONS)},
            "decisions_by_type": {d: int(self.count_point[i]) for i, d in enumerate(DECISIONS)},
            "regret_by_turn": [float(x / games) for x in self.by_turn],
            "regret_by_box": {ids[k]: float(self.by_box[k] / games) for k in range(len(ids))},
            "score_decisions_by_box": {ids[k]: int(self.count_box[k]) for k in range(len(ids))},
        }


def search_values(rules: RuleSet, values: np.ndarray, keys: TurnKeys) -> tuple[np.ndarray, np.ndarray]:
    """``(Q, best)``: the value still to come of every action (N, 32 + C; ``-inf`` where illegal) and the optimal
    action (lowest index among ties) of each position, from the flat turn-start ``values`` of the solver."""
    best, q = T.search(search_constants(rules), values, keys.positions, _KEEP_MASK, values=True)
    assert q is not None
    return q, best


def regrets(q: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """The regret of each chosen action from the action values ``q`` (``-inf`` / NaN where illegal)."""
    chosen = q[np.arange(len(actions)), actions]
    return np.maximum(np.fmax.reduce(np.where(np.isinf(q), np.nan, q), axis=1) - chosen, 0.0)
