"""The rule sets: one definition each. Adding a variant means adding a definition to :data:`RULESETS`, or, for a
rule set of one's own, :func:`register_rules` at run time.

The statement of every rule set, with its sources, is the documentation's Rules page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from yacht_env import dice as D
from yacht_env.digits import is_int
from yacht_env.rules.categories import Category
from yacht_env.rules.ruleset import JOKER_FORCED, JOKER_FREE, JOKER_NONE, NUM_UPPER, RuleSet

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

CLUBHOUSE = RuleSet(
    name="clubhouse",
    title="Yacht (Clubhouse Games)",
    categories=_UPPER
    + (
        Category("choice", "Choice", "sum"),
        Category("four_of_a_kind", "Four of a Kind", "kind_sum", 4),
        Category("full_house", "Full House", "full_house_sum"),
        Category("small_straight", "Small Straight", "straight_run", 15, run=4),
        Category("large_straight", "Large Straight", "straight_run", 30, run=5),
        Category("yacht", "Yacht", "five_kind", 50),
    ),
    upper_bonus_threshold=63,
    upper_bonus=35,
    description="Yacht as in Nintendo's Clubhouse Games: 51 Worldwide Classics: upper bonus 35 at 63, Four of a "
    "Kind the sum of all dice, straights of four (15) and five (30) in a row.",
    env_id="ClubhouseYacht-v0",
)

RULESETS: dict[str, RuleSet] = {r.name: r for r in (YACHT, YAHTZEE, YAHTZEE_FREE_JOKER, YATZY, KNIZIA, CLUBHOUSE)}


MAX_CATEGORIES = 20
"""The most boxes a registered rule set may have: every solver indexes the filled boxes as a bit set of 2**C states."""
MAX_ACTION_POINTS = 200
"""The most points one action may add (its box, the upper bonus and a five-of-a-kind bonus together): the bound of
the observation's ``points`` feature and of the encoder's arrays."""
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
_KINDS = ("upper", "full_house_sum", "full_house_fixed", "full_house_sum_or_five", "kind_face_times", "kind_sum",
          "two_pairs", "straight_exact", "straight_run", "sum", "five_kind")


MAX_TITLE = 80
"""The longest title of a rule set (the headline of its scorecards and replays)."""
MAX_BOX_NAME = 40
"""The longest name of a box (a row of the scorecards)."""


def _check_shown_text(what: str, text: object, most: int) -> None:
    """``ValueError`` unless ``text``, which the scorecards, replays and the terminal game show as it is, is 1 to
    ``most`` printable characters, not all blank: no control character (an escape sequence, a newline, NUL) reaches
    a terminal from it. The value is shown as ``repr``, cut short, so the message itself holds none either."""
    if not isinstance(text, str) or not text.strip() or len(text) > most or not text.isprintable():
        shown = repr(text) if len(repr(text)) <= 60 else repr(text)[:57] + "..."
        raise ValueError(f"{what} {shown} must be 1-{most} printable characters, no control characters such as "
                         "escapes or newlines (the scorecards, replays and the terminal game show it)")


def _check_category(rs: RuleSet, i: int, c: object) -> None:
    """``ValueError`` naming what is wrong with box ``i`` of a rule set being registered."""
    where = f"rule set {rs.name!r}, category {i}"
    if not isinstance(c, Category):
        raise ValueError(f"{where}: expected a yacht_env.rules.Category, got {type(c).__name__}")
    if not isinstance(c.id, str) or not _NAME.fullmatch(c.id):
        raise ValueError(f"{where}: id {c.id!r} must be 1-40 characters of a-z, 0-9, '_' or '-'")
    _check_shown_text(f"{where} ({c.id!r}): name", c.name, MAX_BOX_NAME)
    if c.kind not in _KINDS:
        raise ValueError(f"{where} ({c.id!r}): unknown kind {c.kind!r}; accepted: {', '.join(_KINDS)}")
    if c.kind == "upper" and i >= NUM_UPPER:
        raise ValueError(f"{where} ({c.id!r}): only the first {NUM_UPPER} boxes are upper boxes")
    if not is_int(c.param) or not 0 <= c.param <= 1000:
        raise ValueError(f"{where} ({c.id!r}): param must be an integer 0..1000, got {c.param!r}")
    if not is_int(c.run) or not isinstance(c.faces, tuple) or not all(is_int(f) for f in c.faces):
        raise ValueError(f"{where} ({c.id!r}): run must be an integer and faces a tuple of integers, got run "
                         f"{c.run!r}, faces {c.faces!r}")
    if c.kind in ("kind_face_times", "kind_sum") and not 2 <= c.param <= D.NUM_DICE:
        raise ValueError(f"{where} ({c.id!r}): kind {c.kind!r} needs param 2..{D.NUM_DICE} (dice of one face), "
                         f"got {c.param!r}")
    if c.kind in ("full_house_fixed", "straight_exact", "straight_run", "five_kind") and not 0 < c.param <= 1000:
        raise ValueError(f"{where} ({c.id!r}): kind {c.kind!r} needs param 1..1000 (its points), got {c.param!r}")
    if c.kind == "straight_exact" and (len(c.faces) != D.NUM_DICE or not all(1 <= f <= D.NUM_FACES for f in c.faces)):
        raise ValueError(f"{where} ({c.id!r}): straight_exact needs faces, {D.NUM_DICE} faces 1..{D.NUM_FACES}, "
                         f"got {c.faces!r}")
    if c.kind == "straight_run" and not 2 <= c.run <= D.NUM_DICE:
        raise ValueError(f"{where} ({c.id!r}): straight_run needs run 2..{D.NUM_DICE}, got {c.run!r}")


def validate_rules(rs: object) -> RuleSet:
    """``rs`` if it is a rule set every part of the project can play and solve, else ``ValueError`` naming what is
    wrong and what is accepted (its upper boxes and its five-of-a-kind box are checked when the RuleSet is built)."""
    if not isinstance(rs, RuleSet):
        raise ValueError(f"expected a yacht_env.rules.RuleSet, got {type(rs).__name__}")
    if not isinstance(rs.name, str) or not _NAME.fullmatch(rs.name):
        raise ValueError(f"rule set name {rs.name!r}: 1-40 characters of a-z, 0-9, '_' or '-', starting with a "
                         "letter or digit")
    _check_shown_text(f"rule set {rs.name!r}: title", rs.title, MAX_TITLE)
    if not isinstance(rs.categories, tuple) or not NUM_UPPER <= len(rs.categories) <= MAX_CATEGORIES:
        raise ValueError(f"rule set {rs.name!r}: {NUM_UPPER} to {MAX_CATEGORIES} categories (a tuple) accepted, got "
                         f"{len(rs.categories) if isinstance(rs.categories, tuple) else type(rs.categories).__name__}")
    for i, c in enumerate(rs.categories):
        _check_category(rs, i, c)
    ids = [c.id for c in rs.categories]
    dup = sorted({x for x in ids if ids.count(x) > 1})
    if dup:
        raise ValueError(f"rule set {rs.name!r}: category ids must be distinct, repeated: {', '.join(dup)}")
    ints = {"upper_bonus_threshold": rs.upper_bonus_threshold, "upper_bonus": rs.upper_bonus,
            "five_kind_bonus": rs.five_kind_bonus}
    for key, v in ints.items():
        if not is_int(v) or not 0 <= v <= 1000:
            raise ValueError(f"rule set {rs.name!r}: {key} must be an integer 0..1000, got {v!r}")
    if (rs.upper_bonus > 0) != (rs.upper_bonus_threshold > 0):
        raise ValueError(f"rule set {rs.name!r}: an upper bonus needs a threshold and a threshold a bonus (both > 0 "
                         f"or both 0), got bonus {rs.upper_bonus} at {rs.upper_bonus_threshold}")
    if rs.upper_bonus_threshold > 5 * 21:
        raise ValueError(f"rule set {rs.name!r}: upper_bonus_threshold {rs.upper_bonus_threshold} cannot be reached "
                         "(the upper boxes hold at most 105)")
    if not is_int(rs.joker) or rs.joker not in (JOKER_NONE, JOKER_FORCED, JOKER_FREE):
        raise ValueError(f"rule set {rs.name!r}: joker must be JOKER_NONE, JOKER_FORCED or JOKER_FREE "
                         f"({JOKER_NONE}, {JOKER_FORCED}, {JOKER_FREE}), got {rs.joker!r}")
    y = rs.five_kind_category
    if not is_int(y) or not -1 <= y < len(rs.categories):
        raise ValueError(f"rule set {rs.name!r}: five_kind_category must be -1 (none) or a category index "
                         f"0..{len(rs.categories) - 1}, got {y!r}")
    if y < 0 and (rs.five_kind_bonus or rs.joker != JOKER_NONE):
        raise ValueError(f"rule set {rs.name!r}: a five-of-a-kind bonus or a Joker needs a five_kind_category")
    most = int(max(rs.box_scores.max(), rs.joker_scores.max())) + rs.upper_bonus + rs.five_kind_bonus
    if most > MAX_ACTION_POINTS:
        raise ValueError(f"rule set {rs.name!r}: one action can add {most} points (its best box "
                         f"{int(max(rs.box_scores.max(), rs.joker_scores.max()))}, upper bonus {rs.upper_bonus}, "
                         f"five-of-a-kind bonus {rs.five_kind_bonus}); at most {MAX_ACTION_POINTS} accepted (the "
                         "observation's bound)")
    return rs


def register_rules(ruleset: RuleSet) -> RuleSet:
    """Make a rule set of one's own usable by name everywhere (:class:`~yacht_env.state.GameState`, the solvers,
    the environments, the command line run in this process), after :func:`validate_rules`. ``ValueError`` if its
    name (or its Gymnasium id) is taken or it is not valid. Returns it.

    >>> from yacht_env.rules import Category, RuleSet, register_rules, YACHT
    >>> upper = register_rules(RuleSet("upper-only", "Upper boxes", YACHT.categories[:6]))  # doctest: +SKIP
    """
    rs = validate_rules(ruleset)
    if rs.name in RULESETS:
        raise ValueError(f"rules name {rs.name!r} is taken; taken: {', '.join(RULESETS)}")
    if rs.env_id:
        raise ValueError(f"rule set {rs.name!r}: a registered rule set has no Gymnasium id of its own; leave env_id "
                         f"empty and make its environments with YachtEnv(rules={rs.name!r}) or YachtVectorEnv(n, "
                         f"rules={rs.name!r})")
    RULESETS[rs.name] = rs
    return rs


_CHECKED: dict[int, RuleSet] = {}
"""Rule sets given as objects that passed :func:`validate_rules`, by ``id`` (kept alive here, so an id is never
reused): each is checked once."""


def get_rules(rules: str | RuleSet) -> RuleSet:
    """Return the rule set named ``rules``, or ``rules`` itself once :func:`validate_rules` accepts it and no other
    rule set is registered under its name; else ``ValueError`` naming what is wrong and what is accepted."""
    if isinstance(rules, RuleSet):
        if RULESETS.get(rules.name) is rules or _CHECKED.get(id(rules)) is rules:
            return rules
        validate_rules(rules)
        known = RULESETS.get(rules.name)
        if known is not None and known != rules:
            raise ValueError(f"rule set {rules.name!r} differs from the registered rule set of that name; give it "
                             "a name of its own (and register_rules it to use it by name)")
        _CHECKED[id(rules)] = rules
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
    return int(rs.box_scores[D.hand_index(dice), c])
