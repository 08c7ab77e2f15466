"""The game state of one player as a small immutable value, and the transitions of a turn.

A :class:`GameState` holds the sorted dice, the rolls left in the turn, the box of every category (``None`` while
open) and the count of five-of-a-kind bonuses; everything else (upper total, Yahtzee box, turn, total) is derived.
It compares by value, converts to a dict / JSON and back, and has a one-line notation that parses back::

    yacht | dice 1 3 3 5 6 | rolls 2 | filled ones=3,choice=18

Transitions take the random generator as an argument and return new states: :func:`new_game`, :func:`reroll`
and :func:`score_category`; :func:`reroll_to` and :func:`score_to` are the same with the roll's outcome given
instead of drawn (the outcomes and their chances: :mod:`yacht_env.chance`). They know nothing of gymnasium.

In a game of several players each seat rolls at the start of its own turn, so a seat between its turns holds no
dice: :func:`end_turn` fills a box and leaves the next turn's first roll to come (``dice ()``, ``rolls_left 3``,
:attr:`GameState.awaits_roll`; notation ``dice -``), :func:`unrolled_game` is a new scorecard whose first roll is to
come, and :func:`deal` (:func:`deal_to`, the outcome given) makes that roll when the seat's turn begins. Alone, a
player's next turn begins at once, so :func:`score_category` rolls it with the score.
"""

from __future__ import annotations

import json
import reprlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from yacht_env import dice as D
from yacht_env.digits import is_int, parse_digits
from yacht_env.i18n import category_name
from yacht_env.randomness import roll
from yacht_env.rules import (
    FIVE_KIND_FACE,
    NUM_UPPER,
    RuleSet,
    box_score,
    get_rules,
    legal_bits,
    points_for,
)

ROLLS_PER_TURN = 3
"""The rolls of a turn: the first, and two more of the dice not kept."""
MAX_NOTATION_CHARS = 10_000
"""The longest notation :func:`parse` reads (a full Yahtzee scorecard takes about 250 characters)."""
MAX_JSON_CHARS, MAX_JSON_NESTING = 100_000, 4
"""The longest JSON text :meth:`GameState.from_json` reads, and how deep it may nest (a state nests 2 deep)."""


def longest_game(rules: str | RuleSet) -> int:
    """Steps of the longest legal game of ``rules``: one turn per box, each at most ``ROLLS_PER_TURN`` steps (two
    keeps and the box). A step beyond it is an illegal action's (a no-op that counts a step)."""
    return ROLLS_PER_TURN * get_rules(rules).num_categories


@dataclass(frozen=True)
class GameState:
    """One player's game between two decisions. Dice are sorted ascending.

    Derived values used on hot paths (hand index, filled bits, upper total) are computed once per state and
    cached: the state is immutable.
    """

    rules: str
    dice: tuple[int, ...]
    rolls_left: int
    scores: tuple[int | None, ...]
    bonus_count: int = 0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Refused: the environments, the solver and the agents trust what a state derives (``is_over``, ``total``,
        the legal boxes), so a subclass could lie to them (an over game taken as unfinished by ``reset``). Only
        :class:`GameState` itself is a state."""
        raise TypeError(f"{cls.__name__}: GameState cannot be subclassed; build a GameState (or parse its notation) "
                        "and keep what else you need beside it")

    def __post_init__(self) -> None:
        """Check that the state is one a game can reach (the one place of validation: :func:`parse` and
        :meth:`from_dict` come here too), naming the field and what is accepted."""
        rs = get_rules(self.rules)
        unrolled = isinstance(self.dice, (tuple, list)) and len(self.dice) == 0
        if unrolled:
            if not is_int(self.rolls_left) or self.rolls_left != ROLLS_PER_TURN:
                raise ValueError(f"a state without dice (its turn's first roll still to come) has rolls_left "
                                 f"{ROLLS_PER_TURN}, got {self.rolls_left!r}")
            object.__setattr__(self, "dice", ())
        else:
            object.__setattr__(self, "dice", tuple(sorted(D.validate_dice(self.dice))))
            if not is_int(self.rolls_left) or not 0 <= self.rolls_left < ROLLS_PER_TURN:
                raise ValueError(f"rolls_left must be 0, 1 or 2 (an integer), got {self.rolls_left!r} ("
                                 f"{ROLLS_PER_TURN} goes with no dice, before the turn's first roll)")
        object.__setattr__(self, "rolls_left", int(self.rolls_left))
        object.__setattr__(self, "scores", check_scores(rs, self.scores))
        object.__setattr__(self, "bonus_count", check_bonus(rs, self.scores, self.bonus_count))
        if unrolled and self.is_over:
            raise ValueError("a finished game keeps the dice of its last box: dice () (a turn's first roll still to "
                             "come) needs an open box")

    # ---- derived -------------------------------------------------------------------------------------------
    @cached_property
    def ruleset(self) -> RuleSet:
        return get_rules(self.rules)

    @cached_property
    def filled_bits(self) -> int:
        return sum(1 << i for i, s in enumerate(self.scores) if s is not None)

    @property
    def filled(self) -> tuple[str, ...]:
        ids = self.ruleset.category_ids
        return tuple(ids[i] for i, s in enumerate(self.scores) if s is not None)

    @property
    def open_categories(self) -> tuple[str, ...]:
        ids = self.ruleset.category_ids
        return tuple(ids[i] for i, s in enumerate(self.scores) if s is None)

    @cached_property
    def turn(self) -> int:
        """0-based index of the current turn (= number of filled boxes)."""
        return len(self.scores) - self.scores.count(None)

    @cached_property
    def is_over(self) -> bool:
        return all(s is not None for s in self.scores)

    @cached_property
    def upper_total(self) -> int:
        return sum(s for s in self.scores[:NUM_UPPER] if s is not None)

    @property
    def upper_bonus(self) -> int:
        rs = self.ruleset
        return rs.upper_bonus if rs.upper_bonus and self.upper_total >= rs.upper_bonus_threshold else 0

    @property
    def yahtzee_box(self) -> int | None:
        """The five-of-a-kind box (Yacht's or Yahtzee's): ``None`` while open, else its score."""
        c = self.ruleset.five_kind_category
        return self.scores[c] if c >= 0 else None

    @property
    def awaits_roll(self) -> bool:
        """True between a seat's two turns: the box of the last turn is filled and the next turn's first roll is
        still to come (no dice; :func:`deal` makes the roll)."""
        return not self.dice

    @cached_property
    def hand(self) -> int:
        if not self.dice:
            raise ValueError(f"no dice yet: the turn's first roll is still to come (deal it first) in {self}")
        return _HAND_OF_SORTED[self.dice]

    @cached_property
    def total(self) -> int:
        """Score so far: boxes, upper bonus and five-of-a-kind bonuses."""
        boxes = sum(filter(None, self.scores))  # the filled boxes' scores (a 0 adds nothing)
        return boxes + self.upper_bonus + self.bonus_count * self.ruleset.five_kind_bonus

    def legal_categories(self) -> tuple[int, ...]:
        """Indices of the categories that may be scored now (the Joker rule may restrict them)."""
        bits = legal_bits(self.ruleset.params, int(FIVE_KIND_FACE[self.hand]), self.filled_bits)
        return tuple(i for i in range(self.ruleset.num_categories) if bits >> i & 1)

    def legal_category_ids(self) -> tuple[str, ...]:
        """The ids of :meth:`legal_categories` (``"full_house"``, ...), as :func:`~yacht_env.rules.score` and
        ``yacht play`` take them."""
        ids = self.ruleset.category_ids
        return tuple(ids[k] for k in self.legal_categories())

    def legal_category_names(self, lang: str = "en") -> tuple[str, ...]:
        """The display names of :meth:`legal_categories` in ``lang`` (``"Full House"``; the renderers' names)."""
        return tuple(category_name(c, lang, self.ruleset) for c in self.legal_category_ids())

    def points(self, category: int) -> int:
        """Points that scoring ``category`` now would add (box plus any bonus earned by it)."""
        rs = self.ruleset
        h = self.hand
        return int(
            points_for(rs.params, rs.box_scores[h], rs.joker_scores[h], int(FIVE_KIND_FACE[h]), self.filled_bits,
                       self.upper_total, self.yahtzee_box == rs.five_kind_box_score, category)
        )

    # ---- conversion ----------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "dice": list(self.dice),
            "rolls_left": self.rolls_left,
            "scores": dict(zip(self.ruleset.category_ids, self.scores)),
            "bonus_count": self.bonus_count,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameState:
        """The state :meth:`to_dict` wrote: keys ``rules``, ``dice`` (a list), ``rolls_left``, ``scores`` (a dict of
        every category id to its score or ``null``, or a list in the rule set's order) and optionally
        ``bonus_count``. Anything else, or a state no game can reach, is a ``ValueError`` naming the field."""
        if not isinstance(data, dict):
            raise ValueError(f"a game state must be a dict with the keys {', '.join(_DICT_KEYS)}, got "
                             f"{reprlib.repr(data)}")
        missing = [k for k in _DICT_KEYS if k != "bonus_count" and k not in data]
        extra = sorted(map(str, set(data) - set(_DICT_KEYS)))
        if missing or extra:
            what = "lacks " + ", ".join(missing) if missing else "has unknown keys " + ", ".join(extra)
            raise ValueError(f"the game state {what}; accepted keys: {', '.join(_DICT_KEYS)} (bonus_count may be "
                             "left out)")
        rs = get_rules(data["rules"])
        dice, sc = data["dice"], data["scores"]
        if not isinstance(dice, (list, tuple)):
            raise ValueError(f"dice must be a list of {D.NUM_DICE} integers in 1..6, got {reprlib.repr(dice)}")
        if isinstance(sc, dict):
            unknown = sorted(map(str, set(sc) - set(rs.category_ids)))
            if unknown:
                raise ValueError(f"scores: unknown categories {unknown}; accepted: {', '.join(rs.category_ids)}")
            absent = [c for c in rs.category_ids if c not in sc]
            if absent:
                raise ValueError(f"scores lacks {', '.join(absent)}: give every category of {rs.name!r}, null for an "
                                 "open box")
            scores = tuple(sc[c] for c in rs.category_ids)
        elif isinstance(sc, (list, tuple)):
            scores = tuple(sc)
        else:
            raise ValueError(f"scores must be a dict of category id to score (or null), or a list of "
                             f"{rs.num_categories} of them in the order {', '.join(rs.category_ids)}; got "
                             f"{reprlib.repr(sc)}")
        return cls(rs.name, tuple(dice), data["rolls_left"], scores, data.get("bonus_count", 0))

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> GameState:
        """:meth:`from_dict` of a JSON text (``ValueError`` if it is not JSON)."""
        if not isinstance(text, (str, bytes, bytearray)) or len(text) > MAX_JSON_CHARS:
            raise ValueError(f"a game state must be JSON text of at most {MAX_JSON_CHARS:,} characters, got "
                             f"{reprlib.repr(text)}")
        decoded = text if isinstance(text, str) else bytes(text).decode("utf-8", "replace")
        if json_nesting(decoded) > MAX_JSON_NESTING:
            raise ValueError(f"a game state must be JSON text nested at most {MAX_JSON_NESTING} deep (an object "
                             "holding the list of boxes); this text is nested deeper")
        try:
            data = json.loads(text)
        except (TypeError, ValueError, RecursionError) as e:
            raise ValueError(f"a game state must be JSON text: {e}") from None
        return cls.from_dict(data)

    def notation(self) -> str:
        """One readable line that :func:`parse` turns back into this state."""
        ids = self.ruleset.category_ids
        filled = ",".join(f"{ids[i]}={s}" for i, s in enumerate(self.scores) if s is not None)
        parts = [self.rules, "dice " + (" ".join(map(str, self.dice)) or "-"), f"rolls {self.rolls_left}",
                 f"filled {filled or '-'}"]
        if self.bonus_count:
            parts.append(f"bonus {self.bonus_count}")
        return " | ".join(parts)

    def __str__(self) -> str:
        return self.notation()


_DICT_KEYS = ("rules", "dice", "rolls_left", "scores", "bonus_count")
_HAND_OF_SORTED: dict[tuple[int, ...], int] = {tuple(int(f) for f in h): i for i, h in enumerate(D.HANDS)}
"""Sorted dice -> hand index (a state's dice are sorted Python ints)."""


def _made(rs: RuleSet, dice: tuple[int, ...], rolls_left: int, scores: tuple[int | None, ...], bonus_count: int,
          same_boxes: GameState | None = None) -> GameState:
    """A state the transitions made from a valid one, without the checks of ``__post_init__`` (which cost more than
    the transition itself): ``dice`` five Python ints in 1..6 (sorted here) or ``()`` (the turn's first roll still
    to come), the rest valid by construction. The
    derived values are filled in at once (``same_boxes``: a state with the same boxes to take them from)."""
    st = object.__new__(GameState)
    dice = tuple(sorted(dice))
    d = st.__dict__
    d.update(rules=rs.name, dice=dice, rolls_left=rolls_left, scores=scores, bonus_count=bonus_count, ruleset=rs)
    if dice:
        d["hand"] = _HAND_OF_SORTED[dice]
    if same_boxes is not None:
        d.update(filled_bits=same_boxes.filled_bits, is_over=same_boxes.is_over, upper_total=same_boxes.upper_total,
                 turn=same_boxes.turn, total=same_boxes.total)
    else:
        d["turn"] = len(scores) - scores.count(None)
    return st


def parse(text: str, rules: str | None = None) -> GameState:
    """Parse :meth:`GameState.notation`. The leading rules field may be left out if ``rules`` is given.

    A filled box may be written without its score (``filled ones,choice``): it then holds the least score the box
    can hold, 0 (5 for Choice / Chance: the sum of five dice).
    """
    if not isinstance(text, str) or len(text) > MAX_NOTATION_CHARS:
        raise ValueError(f"a game state's notation is a line of at most {MAX_NOTATION_CHARS:,} characters, got "
                         f"{reprlib.repr(text)}")
    fields = [f.strip() for f in text.strip().split("|")]
    rs_name = rules
    values: dict[str, str] = {}
    for f in fields:
        key, _, rest = f.partition(" ")
        if key in values:
            raise ValueError(f"field {key!r} is given twice in {reprlib.repr(text)}: give each field once")
        if key in ("dice", "rolls", "filled", "bonus"):
            values[key] = rest.strip()
        elif not rest and rs_name is None or key == rs_name:
            rs_name = key
        else:
            raise ValueError(f"cannot parse field {f!r} in {text!r}; expected 'RULES | dice d d d d d | rolls N | "
                             "filled id=score,... [| bonus N]'")
    if rs_name is None:
        raise ValueError(f"no rules named in {text!r}; start it with one of the rule sets or pass rules=")
    rs = get_rules(rs_name)
    if "dice" not in values:
        raise ValueError(f"no 'dice' field in {text!r}")
    faces = [] if values["dice"] == "-" else values["dice"].split()
    numbers = [parse_digits(x) for x in (*faces, values.get("rolls", "0"), values.get("bonus", "0"))]
    if None in numbers:
        raise ValueError(f"dice, rolls and bonus must be integers (ASCII digits) in {reprlib.repr(text)}")
    *dice_vals, rolls, bonus = numbers
    scores: list[int | None] = [None] * rs.num_categories
    filled = values.get("filled", "-")
    if filled not in ("", "-"):
        for item in filled.split(","):
            cid, _, val = item.strip().partition("=")
            i = rs.category_index(cid)
            if scores[i] is not None:
                raise ValueError(f"box {cid!r} is filled twice in {reprlib.repr(text)}: name each box once")
            score = parse_digits(val) if val else min(rs.box_values[i])
            if score is None:
                raise ValueError(f"score of {cid!r} must be an integer, got {reprlib.repr(val)} (ASCII digits)")
            scores[i] = score
    return GameState(rs.name, tuple(dice_vals), rolls, tuple(scores), bonus)  # type: ignore[arg-type]


# ---- transitions ------------------------------------------------------------------------------------------------


def new_game(rules: str | RuleSet, rng: np.random.Generator) -> GameState:
    """A new game: empty scorecard, first roll of the first turn made."""
    rs = get_rules(rules)
    return _made(rs, tuple(roll(rng, D.NUM_DICE)), ROLLS_PER_TURN - 1, (None,) * rs.num_categories, 0)


def unrolled_game(rules: str | RuleSet) -> GameState:
    """A new game whose first roll is still to come: the seats after the first of a game of several (:func:`deal` rolls
    it when the seat's first turn begins)."""
    rs = get_rules(rules)
    return _made(rs, (), ROLLS_PER_TURN, (None,) * rs.num_categories, 0)


def deal(state: GameState, rng: np.random.Generator) -> GameState:
    """The first roll of the turn of a state that awaits it (:attr:`GameState.awaits_roll`): five dice drawn."""
    _check_awaits(state)
    return _made(state.ruleset, tuple(roll(rng, D.NUM_DICE)), ROLLS_PER_TURN - 1, state.scores, state.bonus_count,
                 state)


def deal_to(state: GameState, dice: Sequence[int]) -> GameState:
    """:func:`deal` with the roll's outcome given: ``dice``, five faces (each hand's chance:
    :data:`yacht_env.dice.HAND_PROBABILITY`)."""
    _check_awaits(state)
    hand = tuple(int(f) for f in D.validate_dice(dice))
    return _made(state.ruleset, hand, ROLLS_PER_TURN - 1, state.scores, state.bonus_count, state)


def _check_awaits(state: GameState) -> None:
    if not state.awaits_roll:
        raise ValueError(f"the turn's first roll is made already (dice {list(state.dice)}, rolls left "
                         f"{state.rolls_left}): only a state between turns (no dice) is dealt its roll")


def reroll(state: GameState, kept: Sequence[int], rng: np.random.Generator) -> GameState:
    """Keep the faces ``kept`` (a sub-multiset of the dice) and roll the others."""
    taken = _kept_faces(state, kept)
    return _rerolled(state, tuple(taken + roll(rng, D.NUM_DICE - len(taken))))


def reroll_to(state: GameState, kept: Sequence[int], dice: Sequence[int]) -> GameState:
    """Keep the faces ``kept`` and let the dice rolled come out so that the hand is ``dice`` (five faces holding
    ``kept``): the roll of :func:`reroll` with its outcome given instead of drawn (tree search, replays; the outcomes
    and their chances are :func:`yacht_env.chance.roll_outcomes`)."""
    taken = _kept_faces(state, kept)
    hand = D.validate_dice(dice)
    rest = list(hand)
    for f in taken:
        if f not in rest:
            raise ValueError(f"dice {sorted(hand)} do not hold the kept faces {sorted(taken)}")
        rest.remove(f)
    return _rerolled(state, tuple(int(f) for f in hand))


def _kept_faces(state: GameState, kept: Sequence[int]) -> list[int]:
    """The kept faces as the state's own ints, checked: a roll is left and ``kept`` is a sub-multiset of the dice."""
    if state.is_over:
        raise ValueError("the game is over: no more rolls")
    if state.awaits_roll:
        raise ValueError("the turn's first roll is still to come (deal it first): nothing to keep")
    if state.rolls_left == 0:
        raise ValueError("no rolls left this turn: score a category")
    remaining = list(state.dice)
    taken: list[int] = []
    for f in kept:
        if isinstance(f, (bool, np.bool_)) or f not in remaining:
            raise ValueError(f"cannot keep {sorted(kept)} from dice {list(state.dice)}")
        taken.append(remaining.pop(remaining.index(f)))
    return taken


def _rerolled(state: GameState, dice: tuple[int, ...]) -> GameState:
    return _made(state.ruleset, dice, state.rolls_left - 1, state.scores, state.bonus_count, state)


def reroll_pattern(state: GameState, pattern: int, rng: np.random.Generator) -> GameState:
    """Keep the sorted dice selected by the bits of ``pattern`` (bit i keeps die i) and roll the others."""
    return reroll(state, D.pattern_faces(state.dice, pattern), rng)


def score_category(state: GameState, category: int | str, rng: np.random.Generator) -> tuple[GameState, int]:
    """Score the dice in ``category``; return the new state (next turn rolled, unless the game ended) and the
    points added. Raises ``ValueError`` if the category is filled or the Joker rule forbids it."""
    c = _open_category(state, category)
    last = state.turn == state.ruleset.num_categories - 1
    return _scored(state, c, None if last else tuple(roll(rng, D.NUM_DICE)))


def score_to(state: GameState, category: int | str, dice: Sequence[int] | None) -> tuple[GameState, int]:
    """:func:`score_category` with the next turn's first roll given instead of drawn: ``dice`` (five faces), or
    ``None`` when this box is the last one (the game ends, nothing is rolled)."""
    c = _open_category(state, category)
    last = state.turn == state.ruleset.num_categories - 1
    if last != (dice is None):
        raise ValueError("dice must be None when the last box is scored (the game ends), and five faces otherwise, "
                         f"got {dice!r}")
    return _scored(state, c, None if dice is None else tuple(int(f) for f in D.validate_dice(dice)))


def end_turn(state: GameState, category: int | str) -> tuple[GameState, int]:
    """Score the dice in ``category`` and end the turn without rolling: the new state awaits the next turn's first
    roll (:func:`deal`), or the game is over. Returns it and the points added. The transition of a seat in a game
    of several players, who rolls only when its next turn begins."""
    c = _open_category(state, category)
    last = state.turn == state.ruleset.num_categories - 1
    return _scored(state, c, None if last else ())


def _open_category(state: GameState, category: int | str) -> int:
    """The index of ``category``, checked: in range, open, and allowed by the Joker rule."""
    rs = state.ruleset
    c = rs.category_index(category) if isinstance(category, str) else int(category)
    if not 0 <= c < rs.num_categories:
        raise ValueError(f"category index {c} out of range 0..{rs.num_categories - 1}")
    if state.is_over:
        raise ValueError("the game is over: every category is filled")
    if state.awaits_roll:
        raise ValueError("the turn's first roll is still to come (deal it first): nothing to score")
    if state.scores[c] is not None:
        raise ValueError(f"category {rs.category_ids[c]!r} is already filled")
    if c not in state.legal_categories():
        allowed = ", ".join(rs.category_ids[i] for i in state.legal_categories())
        raise ValueError(f"the Joker rule forbids {rs.category_ids[c]!r} with dice {list(state.dice)}; "
                         f"allowed: {allowed}")
    return c


def _scored(state: GameState, c: int, dice: tuple[int, ...] | None) -> tuple[GameState, int]:
    """Box ``c`` (checked) filled with the state's dice, the next turn starting with ``dice`` (None: game over; ``()``:
    its first roll still to come)."""
    rs = state.ruleset
    h = state.hand
    face = int(FIVE_KIND_FACE[h])
    box = int(box_score(rs.params, rs.box_scores[h], rs.joker_scores[h], face, state.filled_bits, c))
    pts = state.points(c)
    earns = face and rs.five_kind_bonus and state.yahtzee_box == rs.five_kind_box_score
    bonus = state.bonus_count + (1 if earns else 0)
    scores = list(state.scores)
    scores[c] = box
    if dice is None:
        return _made(rs, state.dice, 0, tuple(scores), bonus), pts
    if not dice:
        return _made(rs, (), ROLLS_PER_TURN, tuple(scores), bonus), pts
    return _made(rs, dice, ROLLS_PER_TURN - 1, tuple(scores), bonus), pts


def scorecard(state: GameState) -> dict[str, Any]:
    """The scorecard of a state: every box, the bonuses and the total."""
    card: dict[str, Any] = dict(zip(state.ruleset.category_ids, state.scores))
    card["upper_bonus"] = state.upper_bonus
    card["yahtzee_bonus"] = state.bonus_count * state.ruleset.five_kind_bonus
    card["total"] = state.total
    return card


# ---- the checks of a state built from outside -------------------------------------------------------------------
# What a game state must hold to be one a game can reach: GameState runs them on every state built from outside (its
# constructor, parse, from_dict / from_json), each naming the field and what is accepted. The transitions build their
# states without them (they are valid by construction).


def json_nesting(text: str) -> int:
    """How deep the brackets of a JSON text nest (those inside strings left out), read without parsing it."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def ranges(values: frozenset[int]) -> str:
    """``0, 7..9, 11..29``: a set of integers written shortly."""
    runs: list[list[int]] = []
    for v in sorted(values):
        if runs and runs[-1][1] == v - 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    return ", ".join(str(a) if a == b else f"{a}, {b}" if b == a + 1 else f"{a}..{b}" for a, b in runs)


def check_scores(rs: RuleSet, scores: object) -> tuple[int | None, ...]:
    """The boxes as a tuple of ints and Nones, each a score its category can hold under ``rs``."""
    if type(scores) is not tuple:
        if isinstance(scores, (str, bytes, dict)) or not isinstance(scores, (Sequence, np.ndarray)):
            raise ValueError(f"scores must be a sequence of {rs.num_categories} box scores (None for an open box), "
                             f"got {reprlib.repr(scores)}")
        scores = tuple(scores)
    if len(scores) != rs.num_categories:
        raise ValueError(f"scores must have {rs.num_categories} entries for rules {rs.name!r}, got {len(scores)}")
    allowed = rs.box_values
    plain = True  # the usual case, on the hot path of the transitions: a tuple of Python ints and Nones, all fine
    for c, v in enumerate(scores):
        if v is None:
            continue
        if type(v) is not int:
            plain = False
        if not is_int(v) or int(v) not in allowed[c]:
            raise ValueError(f"score of {rs.category_ids[c]!r} must be an integer the box can hold under rules "
                             f"{rs.name!r} ({ranges(allowed[c])}) or None while open, got {v!r}")
    return scores if plain else tuple(None if v is None else int(v) for v in scores)


def check_bonus(rs: RuleSet, scores: tuple[int | None, ...], bonus: object) -> int:
    """The count of five-of-a-kind bonuses, if a game can have earned it with these boxes: only with the
    five-of-a-kind box scored (:attr:`RuleSet.five_kind_box_score`), at most one per other filled box."""
    if not is_int(bonus) or bonus < 0:
        raise ValueError(f"bonus_count must be a non-negative integer, got {bonus!r}")
    bonus = int(bonus)
    if bonus:
        c = rs.five_kind_category
        if not rs.five_kind_bonus or c < 0:
            raise ValueError(f"bonus_count {bonus!r} is not possible under rules {rs.name!r}: it has no "
                             "five-of-a-kind bonus (accepted: 0)")
        if scores[c] != rs.five_kind_box_score:
            raise ValueError(f"bonus_count {bonus!r} is not possible without {rs.five_kind_box_score} in the "
                             f"{rs.category_ids[c]!r} box "
                             f"(it holds {scores[c]!r}; accepted: 0)")
        most = sum(s is not None for s in scores) - 1
        if bonus > most:
            raise ValueError(f"bonus_count {bonus!r} is not possible with {most} filled box(es) besides "
                             f"{rs.category_ids[c]!r}: each bonus fills one (accepted: 0..{most})")
    return bonus
