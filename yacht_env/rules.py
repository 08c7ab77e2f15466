"""Rule sets of Yacht and Yahtzee, as data, and the pure scoring logic they share.

A :class:`RuleSet` is a definition: its categories (each a scoring *kind* with parameters), the upper bonus, the
extra-Yahtzee bonus and the Joker mode. Adding a variant means adding a definition to :data:`RULESETS`.

From each rule set come tables over the 252 hands of :mod:`yacht_env.dice` (base box scores, Joker box scores,
the face of a five-of-a-kind). The turn logic below (:func:`legal_bits`, :func:`box_score`, :func:`points_for`) is
written on plain integers and arrays so that the same source runs in Python (single environment) and compiled by
numba (solver, vector engine): one source of truth for every rule.

This module knows nothing of gymnasium.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from yacht_env import dice as D

JOKER_NONE = 0
JOKER_FORCED = 1
JOKER_FREE = 2
_JOKER_NAMES = {JOKER_NONE: "none", JOKER_FORCED: "forced", JOKER_FREE: "free"}
NUM_UPPER = 6  # categories 0..5 are the upper section (ones..sixes) in every rule set


@dataclass(frozen=True)
class Category:
    """One box on the scorecard.

    ``kind`` names the scoring rule and ``param`` parametrises it:

    - ``upper``: sum of the dice showing face ``param``.
    - ``full_house_sum`` / ``full_house_fixed``: exactly three of one face and two of another; the dice sum /
      ``param`` points.
    - ``kind_face_times``: at least ``param`` dice of one face; ``param`` × that face (Yacht's Four of a Kind).
    - ``kind_sum``: at least ``param`` dice of one face; sum of all dice.
    - ``straight_exact``: the dice are exactly the faces in ``faces``; ``param`` points.
    - ``straight_run``: ``run`` consecutive faces among the dice; ``param`` points.
    - ``sum``: sum of all dice.
    - ``five_kind``: all five dice the same; ``param`` points.
    """

    id: str
    name: str
    kind: str
    param: int = 0
    faces: tuple[int, ...] = ()
    run: int = 0

    def score_counts(self, counts: Sequence[int]) -> int:
        """Box score of a hand given as face counts (``counts[f-1]`` dice show ``f``)."""
        total = sum((f + 1) * c for f, c in enumerate(counts))
        k = self.kind
        if k == "upper":
            return self.param * int(counts[self.param - 1])
        if k in ("full_house_sum", "full_house_fixed"):
            if sorted(c for c in counts if c) == [2, 3]:
                return total if k == "full_house_sum" else self.param
            return 0
        if k == "kind_face_times":
            for f, c in enumerate(counts):
                if c >= self.param:
                    return self.param * (f + 1)
            return 0
        if k == "kind_sum":
            return total if max(counts) >= self.param else 0
        if k == "straight_exact":
            want = [0] * D.NUM_FACES
            for f in self.faces:
                want[f - 1] += 1
            return self.param if list(counts) == want else 0
        if k == "straight_run":
            run = best = 0
            for c in counts:
                run = run + 1 if c else 0
                best = max(best, run)
            return self.param if best >= self.run else 0
        if k == "sum":
            return total
        if k == "five_kind":
            return self.param if max(counts) == D.NUM_DICE else 0
        raise ValueError(f"unknown category kind {k!r}")

    def joker_score(self, face: int) -> int:
        """Box score of five ``face``s when the Joker rule grants full value (Full House, straights at par)."""
        if self.kind == "full_house_fixed":
            return self.param
        if self.kind in ("straight_exact", "straight_run"):
            return self.param
        counts = [0] * D.NUM_FACES
        counts[face - 1] = D.NUM_DICE
        return self.score_counts(counts)


@dataclass(frozen=True)
class RuleSet:
    """A complete rule set. Categories 0..5 are always the upper section (ones..sixes)."""

    name: str
    title: str
    categories: tuple[Category, ...]
    upper_bonus_threshold: int = 0
    upper_bonus: int = 0
    five_kind_category: int = -1  # the box whose 50 makes later five-of-a-kinds earn the bonus, -1 if none
    five_kind_bonus: int = 0
    joker: int = JOKER_NONE
    description: str = ""
    _ids: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._ids.update({c.id: i for i, c in enumerate(self.categories)})
        for f in range(NUM_UPPER):
            c = self.categories[f]
            if c.kind != "upper" or c.param != f + 1:
                raise ValueError(f"rule set {self.name!r}: category {f} must be the upper box of face {f + 1}")

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

    @cached_property
    def score_table(self) -> np.ndarray:
        """(252, C) int32: base box score of every hand in every category (no Joker)."""
        t = np.array([[c.score_counts(h) for c in self.categories] for h in D.HAND_COUNTS], dtype=np.int32)
        t.setflags(write=False)
        return t

    @cached_property
    def joker_table(self) -> np.ndarray:
        """(252, C) int32: box scores under the Joker's full values (rows of non-five-of-a-kind hands = base)."""
        t = self.score_table.copy()
        for h in range(D.NUM_HANDS):
            face = int(FIVE_KIND_FACE[h])
            if face:
                t[h] = [c.joker_score(face) for c in self.categories]
        t.setflags(write=False)
        return t

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


# Indices into RuleSet.params
P_NUM_CAT, P_UPPER_THRESHOLD, P_UPPER_BONUS, P_FIVE_CAT, P_FIVE_BONUS, P_JOKER = range(6)

FIVE_KIND_FACE = np.array([h[0] if h[0] == h[-1] else 0 for h in D.HANDS], dtype=np.int64)
"""(252,) the face of a five-of-a-kind hand, 0 for any other hand."""
FIVE_KIND_FACE.setflags(write=False)

_UPPER = tuple(
    Category(cid, name, "upper", f + 1)
    for f, (cid, name) in enumerate(
        [("ones", "Ones"), ("twos", "Twos"), ("threes", "Threes"), ("fours", "Fours"), ("fives", "Fives"),
         ("sixes", "Sixes")]
    )
)
_YAHTZEE_UPPER = tuple(
    Category(c.id, n, c.kind, c.param) for c, n in zip(_UPPER, ["Aces", "Twos", "Threes", "Fours", "Fives", "Sixes"])
)

YACHT = RuleSet(
    name="yacht",
    title="Yacht",
    categories=_UPPER
    + (
        Category("full_house", "Full House", "full_house_sum"),
        Category("four_of_a_kind", "Four of a Kind", "kind_face_times", 4),
        Category("little_straight", "Little Straight", "straight_exact", 30, faces=(1, 2, 3, 4, 5)),
        Category("big_straight", "Big Straight", "straight_exact", 30, faces=(2, 3, 4, 5, 6)),
        Category("choice", "Choice", "sum"),
        Category("yacht", "Yacht", "five_kind", 50),
    ),
    description="Traditional Yacht: 12 categories, no bonuses, no Joker.",
)

_YAHTZEE_LOWER = (
    Category("three_of_a_kind", "Three of a Kind", "kind_sum", 3),
    Category("four_of_a_kind", "Four of a Kind", "kind_sum", 4),
    Category("full_house", "Full House", "full_house_fixed", 25),
    Category("small_straight", "Small Straight", "straight_run", 30, run=4),
    Category("large_straight", "Large Straight", "straight_run", 40, run=5),
    Category("yahtzee", "Yahtzee", "five_kind", 50),
    Category("chance", "Chance", "sum"),
)

YAHTZEE = RuleSet(
    name="yahtzee",
    title="Yahtzee",
    categories=_YAHTZEE_UPPER + _YAHTZEE_LOWER,
    upper_bonus_threshold=63,
    upper_bonus=35,
    five_kind_category=11,
    five_kind_bonus=100,
    joker=JOKER_FORCED,
    description="Official Yahtzee: upper bonus 35 at 63, Yahtzee bonus 100, forced Joker.",
)

YAHTZEE_FREE_JOKER = RuleSet(
    name="yahtzee-free-joker",
    title="Yahtzee (free-choice Joker)",
    categories=_YAHTZEE_UPPER + _YAHTZEE_LOWER,
    upper_bonus_threshold=63,
    upper_bonus=35,
    five_kind_category=11,
    five_kind_bonus=100,
    joker=JOKER_FREE,
    description="Yahtzee with the free-choice Joker of the literature (Verhoeff 1999).",
)

RULESETS: dict[str, RuleSet] = {r.name: r for r in (YACHT, YAHTZEE, YAHTZEE_FREE_JOKER)}


def get_rules(rules: str | RuleSet) -> RuleSet:
    """Return the rule set named ``rules`` (or ``rules`` itself), or ``ValueError`` naming those accepted."""
    if isinstance(rules, RuleSet):
        return rules
    try:
        return RULESETS[rules]
    except (KeyError, TypeError):
        raise ValueError(f"unknown rules {rules!r}; accepted: {', '.join(RULESETS)}") from None


def score(category: str, dice: Sequence[int], rules: str = "yacht") -> int:
    """Box score of ``category`` for five ``dice`` under ``rules``, without Joker context.

    >>> score("fives", [5, 5, 5, 2, 1])
    15
    """
    rs = get_rules(rules)
    c = rs.category_index(category)
    return int(rs.score_table[D.hand_index(dice), c])


# ----------------------------------------------------------------------------------------------------------------
# Turn logic on plain integers. numba compiles these same functions (see yacht_env.jit); keep them to ints,
# int arrays and simple control flow.
# ----------------------------------------------------------------------------------------------------------------


def joker_applies(params: np.ndarray, face: int, filled: int) -> bool:
    """A five-of-a-kind of ``face`` with the five-of-a-kind box already filled: the Joker situation."""
    ycat = params[P_FIVE_CAT]
    return params[P_JOKER] != JOKER_NONE and face > 0 and ycat >= 0 and (filled >> ycat) & 1 == 1


def legal_bits(params: np.ndarray, face: int, filled: int) -> int:
    """Bit set of the categories that may be scored with a hand (five-of-a-kind face ``face`` or 0) given the
    bit set ``filled`` of filled categories. Forced Joker: the matching upper box if open, else any open lower
    box, else any open upper box."""
    open_bits = ((1 << params[P_NUM_CAT]) - 1) & ~filled
    if params[P_JOKER] == JOKER_FORCED and joker_applies(params, face, filled):
        upper = 1 << (face - 1)
        if open_bits & upper:
            return upper
        lower = open_bits & ~((1 << NUM_UPPER) - 1)
        if lower:
            return lower
    return open_bits


def box_score(params: np.ndarray, base_row: np.ndarray, joker_row: np.ndarray, face: int, filled: int,
              cat: int) -> int:
    """What goes in box ``cat``: the base score, or the Joker's full value where the rule grants it.

    Forced Joker: full values whenever the Joker applies. Free Joker: only once the matching upper box is
    filled too."""
    if joker_applies(params, face, filled):
        if params[P_JOKER] == JOKER_FORCED or (filled >> (face - 1)) & 1 == 1:
            return joker_row[cat]
    return base_row[cat]


def points_for(params: np.ndarray, base_row: np.ndarray, joker_row: np.ndarray, face: int, filled: int,
               upper_total: int, five_kind_50: bool, cat: int) -> int:
    """Points added by scoring category ``cat``: the box, plus the upper bonus when this box brings the upper
    total to the threshold, plus the five-of-a-kind bonus for a further five-of-a-kind after a 50 in its box."""
    pts = box_score(params, base_row, joker_row, face, filled, cat)
    total = pts
    if cat < NUM_UPPER and params[P_UPPER_BONUS] > 0:
        thr = params[P_UPPER_THRESHOLD]
        if upper_total < thr <= upper_total + pts:
            total += params[P_UPPER_BONUS]
    if face > 0 and five_kind_50 and params[P_FIVE_BONUS] > 0:
        total += params[P_FIVE_BONUS]
    return total
