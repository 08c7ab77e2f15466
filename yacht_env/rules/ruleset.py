"""A rule set as data: its categories, bonuses and Joker mode, and the arrays every engine reads.

A :class:`RuleSet` is a definition (the definitions themselves are in :mod:`yacht_env.rules.definitions`). From it
come arrays over the 252 hands of :mod:`yacht_env.dice` (base box scores, Joker box scores) and the integer
parameters the turn logic of :mod:`yacht_env.rules.scoring` takes; :class:`ScoringConstants` holds the three as every
compiled engine takes them (:attr:`RuleSet.scoring`), and :class:`HandRules` one hand's view of them.
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from yacht_env import dice as D
from yacht_env.digits import is_int
from yacht_env.rules.categories import Category

JOKER_NONE = 0
JOKER_FORCED = 1
JOKER_FREE = 2
_JOKER_NAMES = {JOKER_NONE: "none", JOKER_FORCED: "forced", JOKER_FREE: "free"}
NUM_UPPER = 6  # categories 0..5 are the upper section (ones..sixes) in every rule set

# Indices into RuleSet.params
P_NUM_CAT, P_UPPER_THRESHOLD, P_UPPER_BONUS, P_FIVE_CAT, P_FIVE_BONUS, P_JOKER = range(6)

FIVE_KIND_FACE = D.FIVE_KIND_FACE  # a fact of the dice (defined there); the turn logic's ``face`` argument


class ScoringConstants(NamedTuple):
    """A rule set's scoring data as the compiled engines take it (:attr:`RuleSet.scoring`, built once per rule set;
    numba compiles a named tuple's fields like separate arguments): ``params``, :attr:`RuleSet.params` as a tuple of
    ints (the one type in which every kernel passes it to the rules: one compiled copy of each, and stores into other
    arrays cannot alias it), and the read-only (252, C) int32 :attr:`RuleSet.box_scores` and
    :attr:`RuleSet.joker_scores`."""

    params: tuple[int, ...]
    box_scores: np.ndarray
    joker_scores: np.ndarray


class HandRules(NamedTuple):
    """The rules as they apply to one hand, the first four arguments of ``legal_bits`` / ``box_score`` /
    ``points_for``: the :class:`ScoringConstants` ``params``, the hand's rows of its score and Joker arrays, and the
    hand's five-of-a-kind face (0 if none). Any sequences of ints (the Python encoder passes lists: faster there)."""

    params: Any
    score_row: Any
    joker_row: Any
    face: int


@dataclass(frozen=True)
class RuleSet:
    """A complete rule set. Categories 0..5 are always the upper section (ones..sixes)."""

    name: str
    title: str
    categories: tuple[Category, ...]
    upper_bonus_threshold: int = 0
    upper_bonus: int = 0
    five_kind_category: int = -1  # the five-of-a-kind box whose score makes later five-of-a-kinds earn the bonus
    five_kind_bonus: int = 0
    joker: int = JOKER_NONE
    description: str = ""
    env_id: str = ""  # the Gymnasium id ``import yacht_env`` registers for it ("": none)
    _ids: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        cats = self.categories
        if not isinstance(cats, tuple) or len(cats) < NUM_UPPER or not all(isinstance(c, Category) for c in cats):
            raise ValueError(f"rule set {self.name!r}: categories must be a tuple of at least {NUM_UPPER} "
                             f"yacht_env.rules.Category (the upper boxes first), got {reprlib.repr(cats)}")
        if not is_int(self.five_kind_category):
            raise ValueError(f"rule set {self.name!r}: five_kind_category must be an integer (-1 for none), got "
                             f"{self.five_kind_category!r}")
        self._ids.update({c.id: i for i, c in enumerate(self.categories)})
        for f in range(NUM_UPPER):
            c = self.categories[f]
            if c.kind != "upper" or c.param != f + 1:
                raise ValueError(f"rule set {self.name!r}: category {f} must be the upper box of face {f + 1}")
        y = self.five_kind_category
        if y >= 0 and (y >= self.num_categories or self.categories[y].kind != "five_kind"
                       or self.categories[y].param <= 0):
            raise ValueError(f"rule set {self.name!r}: five_kind_category {y} must be a box of kind 'five_kind' "
                             f"with positive points (or -1 for none)")

    @property
    def num_categories(self) -> int:
        return len(self.categories)

    @property
    def category_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.categories)

    @property
    def has_upper_bonus(self) -> bool:
        return self.upper_bonus > 0

    @property
    def has_five_kind_box(self) -> bool:
        return self.five_kind_category >= 0 and (self.five_kind_bonus > 0 or self.joker != JOKER_NONE)

    @cached_property
    def five_kind_box_score(self) -> int:
        """What the five-of-a-kind box (``five_kind_category``) holds once five of a kind is scored there (0 where
        the rules name no such box). That box holds either this or 0 (its kind scores five of a kind only, and the
        Joker gives it the same), so the engines' kernels read "it was scored with five of a kind" as "it holds
        points"."""
        y = self.five_kind_category
        return 0 if y < 0 else int(self.box_scores[D.hand_index([1] * D.NUM_DICE), y])

    @property
    def joker_name(self) -> str:
        return _JOKER_NAMES[self.joker]

    @property
    def all_bits(self) -> int:
        return (1 << self.num_categories) - 1

    @property
    def lower_bits(self) -> int:
        return self.all_bits & ~((1 << NUM_UPPER) - 1)

    def category_index(self, category: str) -> int:
        """Index of a category id, or ``ValueError`` naming the accepted ids."""
        try:
            return self._ids[category]
        except (KeyError, TypeError):
            raise ValueError(
                f"unknown category {category!r} for rules {self.name!r}; accepted: {', '.join(self.category_ids)}"
            ) from None

    def __hash__(self) -> int:
        """The name's hash (equal rule sets have equal names): the caches keyed by a rule set hash it often."""
        return hash(self.name)

    @cached_property
    def box_scores(self) -> np.ndarray:
        """(252, C) int32: base box score of every hand in every category (no Joker)."""
        t = np.array([[c.score_counts(h) for c in self.categories] for h in D.HAND_COUNTS], dtype=np.int32)
        t.setflags(write=False)
        return t

    @cached_property
    def joker_scores(self) -> np.ndarray:
        """(252, C) int32: box scores under the Joker's full values (rows of non-five-of-a-kind hands = base)."""
        t = self.box_scores.copy()
        for h in range(D.NUM_HANDS):
            face = int(FIVE_KIND_FACE[h])
            if face:
                t[h] = [c.joker_score(face) for c in self.categories]
        t.setflags(write=False)
        return t

    @cached_property
    def box_values(self) -> tuple[frozenset[int], ...]:
        """Per category, every score its box can hold in some game: the base scores of all hands, and, where a
        Joker rule grants full values, the Joker scores too. Checked when a state is built
        (:class:`yacht_env.state.GameState`)."""
        joker = self.joker != JOKER_NONE
        return tuple(frozenset(int(v) for v in self.box_scores[:, c]) | (
            frozenset(int(v) for v in self.joker_scores[:, c]) if joker else frozenset())
            for c in range(self.num_categories))

    @cached_property
    def params(self) -> np.ndarray:
        """Integer parameters for the compiled turn logic: see :func:`legal_bits` and :func:`points_for`."""
        p = np.array(
            [
                self.num_categories,
                self.upper_bonus_threshold,
                self.upper_bonus,
                self.five_kind_category,
                self.five_kind_bonus,
                self.joker,
            ],
            dtype=np.int64,
        )
        p.setflags(write=False)
        return p

    @cached_property
    def scoring(self) -> ScoringConstants:
        """The :class:`ScoringConstants` of the rule set: its parameters, score and Joker arrays as every compiled
        engine takes them."""
        return ScoringConstants(tuple(int(p) for p in self.params), self.box_scores, self.joker_scores)
