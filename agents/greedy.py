"""The greedy agent: the best play for the current turn alone, ignoring every later turn.

At the score decision it takes the legal category that adds the most points now (bonuses earned by this box
included; ties go to the lowest category index). At a keep decision it maximises the *expected* points of this
turn under that scoring rule: an exact one-turn expectimax over the dice model of :mod:`yacht_env.dice`:

- ``V0[h]``: the most points hand ``h`` adds now (no roll left);
- ``K1[k] = sum_h P(h | k) V0[h]``: keep ``k`` with one roll left;
- ``V1[h] = max over the keeps of h of K1`` (keeping all five dice is ``V0[h]``);
- ``K2[k] = sum_h P(h | k) V1[h]``: keep ``k`` with two rolls left.

With rolls left it scores at once when that is worth at least the best keep (ties score, saving the rolls), else it
plays the lowest legal keep pattern of the best value. The tables depend only on the open categories, the upper
total (capped at the bonus threshold) and whether the Yahtzee box holds 50, and are cached per such key.

It is the classic baseline: Glenn (2006) reports 218.05 at Yahtzee for a turn-greedy player.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from agents.base import Agent
from yacht_env import dice as D
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.rules import FIVE_KIND_FACE, NUM_UPPER, RuleSet, legal_bits, points_for
from yacht_env.state import GameState

_TOL = 1e-9  # values closer than this are ties
_FIVE_KIND_HANDS = np.flatnonzero(FIVE_KIND_FACE)


class GreedyAgent(Agent):
    """Maximises the current turn's score (see the module docstring). Deterministic."""

    name = "greedy"
    needs_state = True
    needs_obs = False  # it reads the GameState only: evaluators may skip encoding observations
    batched = False

    def __init__(self, rules: str | RuleSet = "yacht", seed: int | None = None, cache_size: int = 4096) -> None:
        super().__init__(rules)
        self.seed(seed)
        self._tables = lru_cache(maxsize=cache_size)(self._compute_tables)

    # ---- tables ----------------------------------------------------------------------------------------------
    def _key(self, state: GameState) -> tuple[int, int, bool]:
        rs = self.rules
        return state.filled_bits, min(state.upper_total, rs.upper_bonus_threshold), state.yahtzee_box == 50

    def points_table(self, filled: int, upper_total: int, five_kind_50: bool) -> np.ndarray:
        """(252, C) float: points each hand adds in each category now; ``-inf`` where the category is not legal."""
        rs = self.rules
        c = rs.num_categories
        pts = rs.score_table.astype(np.float64)
        open_mask = np.array([not filled >> k & 1 for k in range(c)])
        if rs.upper_bonus > 0 and upper_total < rs.upper_bonus_threshold:
            up = pts[:, :NUM_UPPER]
            up += np.where(upper_total + up >= rs.upper_bonus_threshold, rs.upper_bonus, 0)
        pts[:, ~open_mask] = -np.inf
        for h in _FIVE_KIND_HANDS:  # the Joker and the five-of-a-kind bonus: the exact turn logic
            face = int(FIVE_KIND_FACE[h])
            bits = legal_bits(rs.params, face, filled)
            for k in range(c):
                pts[h, k] = (points_for(rs.params, rs.score_table[h], rs.joker_table[h], face, filled, upper_total,
                                        five_kind_50, k) if bits >> k & 1 else -np.inf)
        return pts

    def _compute_tables(self, filled: int, upper_total: int, five_kind_50: bool
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        pts = self.points_table(filled, upper_total, five_kind_50)
        best_cat = pts.argmax(axis=1)  # first maximum: lowest category index on ties
        v0 = pts[np.arange(D.NUM_HANDS), best_cat]
        k1 = D.TRANSITION @ v0
        v1 = k1[D.PATTERN_KEEP].max(axis=1)
        k2 = D.TRANSITION @ v1
        return best_cat, v0, k1, k2

    def turn_values(self, state: GameState) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(best category per hand, V0, K1, K2)`` for the turn of ``state`` (cached)."""
        return self._tables(*self._key(state))

    # ---- acting ----------------------------------------------------------------------------------------------
    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        if state is None:
            raise ValueError("the greedy agent needs the GameState (needs_state=True)")
        mask = np.asarray(mask, dtype=np.bool_)
        best_cat, v0, k1, k2 = self.turn_values(state)
        h = state.hand
        score_action = NUM_KEEP_ACTIONS + int(best_cat[h])
        if state.rolls_left == 0:
            return score_action
        keep_values = (k2 if state.rolls_left == 2 else k1)[D.PATTERN_KEEP[h]]
        keep_values = np.where(mask[:NUM_KEEP_ACTIONS], keep_values, -np.inf)
        best = float(keep_values.max())
        if v0[h] >= best - _TOL:
            return score_action
        return int(np.flatnonzero(keep_values >= best - _TOL)[0])
