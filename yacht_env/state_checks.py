"""What a game state must hold to be one a game can reach: the checks :class:`~yacht_env.state.GameState` runs on
every state built from outside (its constructor, :func:`~yacht_env.state.parse`, ``from_dict`` / ``from_json``), each
naming the field and what is accepted. The transitions build their states without them (they are valid by
construction)."""

from __future__ import annotations

import reprlib
from collections.abc import Sequence

import numpy as np

from yacht_env.digits import is_int
from yacht_env.rules import RuleSet


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
