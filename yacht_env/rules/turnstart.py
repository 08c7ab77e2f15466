"""Turn-start states: what of a scorecard the rest of the game depends on, and how one box changes it.

A turn-start state is ``(F, u, y)``: the bit set ``F`` of filled boxes, the upper total capped at the bonus threshold
``u`` (0 where the rules have no upper bonus) and ``y``, whether the five-of-a-kind box was scored with five of a
kind (it then holds :attr:`~yacht_env.rules.RuleSet.five_kind_box_score`, else 0; ``y`` is 0 where the rules have
neither a five-of-a-kind bonus nor a Joker). Every future reward depends only on it and the dice. The solver,
the turn search and the model-based agents index such states flat as ``(F * U + u) * Y + y`` (:class:`TurnStartLayout`).

:func:`next_turn_start` is written on plain integers: numba compiles the same function for the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from yacht_env.rules.ruleset import NUM_UPPER, RuleSet

TURNSTART_LOGIC = ("next_turn_start",)
"""The functions of this module that the engine compiles."""


def next_turn_start(c: int, box: int, u: int, y: int, thr: int, Y: int, ycat: int) -> tuple[int, int]:
    """``(u, y)`` after writing ``box`` in category ``c``: the upper total grows by an upper box (capped at the
    threshold ``thr``; not tracked when 0), and ``y`` records whether the five-of-a-kind box ``ycat`` was scored with
    five of a kind (when tracked, ``Y == 2``): that box holds its five-of-a-kind score or 0, so any points."""
    u2 = u
    if thr > 0 and c < NUM_UPPER:
        u2 = min(u + box, thr)
    y2 = y
    if Y == 2 and c == ycat:
        y2 = 1 if box > 0 else 0
    return u2, y2


@dataclass(frozen=True)
class TurnStartLayout:
    """How the turn-start states of a rule set are indexed: ``values[F, u, y]``, or flat ``(F * U + u) * Y + y``."""

    num_categories: int
    threshold: int  # capped upper total (0: no upper bonus, upper total not tracked)
    five_kind_category: int  # -1: the five-of-a-kind box is not tracked

    @property
    def U(self) -> int:
        return self.threshold + 1

    @property
    def Y(self) -> int:
        return 2 if self.five_kind_category >= 0 else 1

    @property
    def shape(self) -> tuple[int, int, int]:
        return (1 << self.num_categories, self.U, self.Y)

    @property
    def size(self) -> int:
        return (1 << self.num_categories) * self.U * self.Y

    @property
    def dims(self) -> tuple[int, int, int, int]:
        """``(U, Y, threshold, five_kind_category)``: the layout as the compiled kernels take it."""
        return self.U, self.Y, self.threshold, self.five_kind_category

    def key(self, filled_bits: int, upper_total: int, yahtzee_box: int | None) -> tuple[int, int, int]:
        """``(F, u, y)`` of a scorecard: the upper total capped at the threshold (0 if not tracked), y 1 if the
        five-of-a-kind box is tracked and was scored with five of a kind (:meth:`five_kind_flags`)."""
        u = min(upper_total, self.threshold) if self.threshold else 0
        y = 1 if self.Y == 2 and yahtzee_box is not None and yahtzee_box > 0 else 0
        return filled_bits, u, y

    def five_kind_flags(self, five_box: int | np.ndarray) -> np.ndarray:
        """``y`` of five-of-a-kind boxes (-1 while open or untracked, else the score in it, as
        :func:`yacht_env.observation.decode_batch` gives them): 1 where the box is tracked and holds points, which
        it holds only when scored with five of a kind (:attr:`~yacht_env.rules.RuleSet.five_kind_box_score`)."""
        return ((np.asarray(five_box) > 0) & (self.Y == 2)).astype(np.int64)

    def flat(self, F: np.ndarray, u: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Flat indices of turn-start states."""
        return (np.asarray(F, np.int64) * self.U + u) * self.Y + y

    def unflat(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(F, u, y)`` of flat indices."""
        idx = np.asarray(idx, np.int64)
        F, r = np.divmod(idx, self.U * self.Y)
        u, y = np.divmod(r, self.Y)
        return F, u, y

    def final_states(self) -> np.ndarray:
        """Flat indices of the states with every box filled (worth 0: the game is over)."""
        full = (1 << self.num_categories) - 1
        return self.flat(np.full(self.U * self.Y, full), np.repeat(np.arange(self.U), self.Y),
                         np.tile(np.arange(self.Y), self.U))

    @classmethod
    def of(cls, rules: RuleSet) -> TurnStartLayout:
        thr = rules.upper_bonus_threshold if rules.has_upper_bonus else 0
        return cls(rules.num_categories, int(thr), rules.five_kind_category if rules.has_five_kind_box else -1)
