"""The rule sets: one definition each. Adding a variant means adding a definition to :data:`RULESETS`.

The statement of every rule set, with its sources, is ``docs/rules.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

from yacht_env import dice as D
from yacht_env.rules.categories import Category
from yacht_env.rules.ruleset import JOKER_FORCED, JOKER_FREE, RuleSet

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
    env_id="Yacht-v0",
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
    env_id="Yahtzee-v1",
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
    env_id="YahtzeeFreeJoker-v1",
)

YATZY = RuleSet(
    name="yatzy",
    title="Yatzy",
    categories=_UPPER
    + (
        Category("one_pair", "One Pair", "kind_face_times", 2),
        Category("two_pairs", "Two Pairs", "two_pairs"),
        Category("three_of_a_kind", "Three of a Kind", "kind_face_times", 3),
        Category("four_of_a_kind", "Four of a Kind", "kind_face_times", 4),
        Category("small_straight", "Small Straight", "straight_exact", 15, faces=(1, 2, 3, 4, 5)),
        Category("large_straight", "Large Straight", "straight_exact", 20, faces=(2, 3, 4, 5, 6)),
        Category("full_house", "Full House", "full_house_sum"),
        Category("chance", "Chance", "sum"),
        Category("yatzy", "Yatzy", "five_kind", 50),
    ),
    upper_bonus_threshold=63,
    upper_bonus=50,
    description="Scandinavian Yatzy: 15 categories, upper bonus 50 at 63, no Joker, no extra-Yatzy bonus.",
    env_id="Yatzy-v1",
)

KNIZIA = RuleSet(
    name="knizia",
    title="Yacht (Knizia)",
    categories=_UPPER
    + (
        Category("full_house", "Full House", "full_house_sum_or_five"),
        Category("four_of_a_kind", "Four of a Kind", "kind_sum", 4),
    )
    + YACHT.categories[8:],
    description="Yacht as in Knizia (1999) and OpenSpiel: Four of a Kind and Full House (five of a kind included) "
    "score the sum of all dice.",
    env_id="KniziaYacht-v0",
)

RULESETS: dict[str, RuleSet] = {r.name: r for r in (YACHT, YAHTZEE, YAHTZEE_FREE_JOKER, YATZY, KNIZIA)}


def get_rules(rules: str | RuleSet) -> RuleSet:
    """Return the rule set named ``rules`` (or ``rules`` itself), or ``ValueError`` naming those accepted."""
    if isinstance(rules, RuleSet):
        return rules
    try:
        return RULESETS[rules]
    except (KeyError, TypeError):
        accepted = ", ".join(RULESETS)
        raise ValueError(f"unknown rules {rules!r}; accepted: {accepted} (each stated on the documentation's Rules "
                         "page, rules.html)") from None


def score(category: str, dice: Sequence[int], rules: str = "yacht") -> int:
    """Box score of ``category`` for five ``dice`` under ``rules``, without Joker context.

    >>> score("fives", [5, 5, 5, 2, 1])
    15
    """
    rs = get_rules(rules)
    c = rs.category_index(category)
    return int(rs.score_table[D.hand_index(dice), c])
