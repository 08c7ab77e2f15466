"""The turn logic on plain integers: which boxes a hand may fill, what goes in the box, the points it adds.

:func:`legal_bits`, :func:`box_score` and :func:`points_for` are written on ints, int arrays and simple control flow
so that the same source runs in Python (the reference transitions of :mod:`yacht_env.state`) and compiled by numba
(:mod:`yacht_env.jit.compile`, for the solver, the vector engine and the agents): one source of truth for every
rule. Keep them to ints, int arrays and simple control flow.
"""

from __future__ import annotations

import numpy as np

from yacht_env.rules.ruleset import (
    JOKER_FORCED,
    JOKER_NONE,
    NUM_UPPER,
    P_FIVE_BONUS,
    P_FIVE_CAT,
    P_JOKER,
    P_NUM_CAT,
    P_UPPER_BONUS,
    P_UPPER_THRESHOLD,
)

TURN_LOGIC = ("joker_applies", "legal_bits", "box_score", "points_for")
"""The functions of this module that the engine compiles, callees first."""


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
               upper_total: int, five_kind_scored: bool, cat: int) -> int:
    """Points added by scoring category ``cat``: the box, plus the upper bonus when this box brings the upper
    total to the threshold, plus the five-of-a-kind bonus for a further five-of-a-kind once the five-of-a-kind box
    was scored with one (``five_kind_scored``: it holds :attr:`~yacht_env.rules.RuleSet.five_kind_box_score`)."""
    pts = box_score(params, base_row, joker_row, face, filled, cat)
    total = pts
    if cat < NUM_UPPER and params[P_UPPER_BONUS] > 0:
        thr = params[P_UPPER_THRESHOLD]
        if upper_total < thr <= upper_total + pts:
            total += params[P_UPPER_BONUS]
    if face > 0 and five_kind_scored and params[P_FIVE_BONUS] > 0:
        total += params[P_FIVE_BONUS]
    return total
