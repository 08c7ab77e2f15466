"""The dice's chance outcomes, exactly: what a roll can give and with what probability, and a step with a given roll.

For tree search over the game's pure functions (expectimax, MCTS with chance nodes, AlphaZero-style search, CFR):
a search needs the distinct outcomes of a roll with their exact probabilities, and a way to follow one of them,
without a copy of the dice model. Two functions give both, for any :class:`~yacht_env.state.GameState` and any
action of the environments' action space (``0..31`` keep the sorted dice picked by the bits, ``32 + k`` score box
``k``)::

    >>> from yacht_env import parse
    >>> from yacht_env.chance import roll_outcomes, step_outcome
    >>> st = parse("yacht | dice 2 3 4 5 6 | rolls 1")
    >>> outs = roll_outcomes(st, 0b11110)          # keep 3 4 5 6, roll one die: six outcomes of 1/6
    >>> [(o.dice, round(o.probability, 4)) for o in outs][:2]
    [((1, 3, 4, 5, 6), 0.1667), ((2, 3, 4, 5, 6), 0.1667)]
    >>> step_outcome(st, 0b11110, (3, 3, 4, 5, 6))[0].dice
    (3, 3, 4, 5, 6)

:func:`all_outcomes` expands every legal action of a state at once (a search node's children). Actions are checked
against the environments' mask (:func:`yacht_env.actions.action_mask`): an action it refuses (keeping all five dice,
a second keep of the same dice, a filled box) is a ``ValueError``, as is anything that is not a
:class:`~yacht_env.state.GameState`. Any integer type is an action (numpy's from ``np.flatnonzero(mask)`` too).

The probabilities are the dice model's (:data:`yacht_env.dice.TRANSITION`: each hand's multinomial chance), so they
sum to 1 (to float rounding) and the environments' sampled dice follow them (``tests/test_chance.py`` checks both).
"""

from __future__ import annotations

import reprlib
from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

import numpy as np

from yacht_env import dice as D
from yacht_env.actions import NUM_KEEP_ACTIONS, action_mask, illegal_reason
from yacht_env.state import GameState, reroll_to, score_to

__all__ = ["Outcome", "all_outcomes", "roll_outcomes", "step_outcome"]


class Outcome(NamedTuple):
    """One outcome of a roll: the sorted five dice after it, and its exact probability."""

    dice: tuple[int, ...]
    probability: float


@cache
def _after_keep(keep: int) -> tuple[Outcome, ...]:
    """The outcomes of keeping keep ``keep`` (an index of :mod:`yacht_env.dice`) and rolling the other dice."""
    row = D.TRANSITION[keep]
    return tuple(Outcome(tuple(int(f) for f in D.HANDS[h]), float(row[h])) for h in range(D.NUM_HANDS) if row[h] > 0)


def _check(state: GameState, action: int) -> int:
    """``action`` as an int, checked: ``state`` a :class:`GameState` and ``action`` an integer the mask allows."""
    if not isinstance(state, GameState):
        raise ValueError(f"state must be a yacht_env GameState (yacht_env.parse or GameState.from_dict make one), got "
                         f"{reprlib.repr(state)} of type {type(state).__name__}")
    n = NUM_KEEP_ACTIONS + state.ruleset.num_categories
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) or not 0 <= action < n:
        raise ValueError(f"action must be an int in 0..{n - 1} (0..31 keep, 32+k score box k), got "
                         f"{reprlib.repr(action)}")
    a = int(action)
    if state.is_over:
        raise ValueError("the game is over: no action has an outcome")
    if state.awaits_roll:
        raise ValueError("the turn's first roll is still to come (yacht_env.state.deal): no action has an outcome yet")
    if a < NUM_KEEP_ACTIONS and state.rolls_left == 0:
        raise ValueError(f"action {a} keeps dice, but no roll is left this turn: score a box (32..{n - 1})")
    if not action_mask(state)[a]:
        legal = np.flatnonzero(action_mask(state)).tolist()
        raise ValueError(f"action {a} is not legal here ({illegal_reason(state, a)}); the legal actions: {legal}")
    return a


def roll_outcomes(state: GameState, action: int) -> tuple[Outcome, ...]:
    """The distinct outcomes of the roll that ``action`` brings about in ``state``, with their probabilities.

    A keep (``0..31``): the hands the kept dice and the rolled ones can make. A score (``32 + k``): the first roll of
    the next turn (all 252 hands), or ``()`` when that box is the last one and the game ends with nothing rolled.
    ``ValueError`` for anything but an action the environments' mask allows in ``state`` (out of range, keep-all, a
    second keep of the same dice, a keep with no roll left, a filled box, a game that is over)."""
    return _outcomes(state, _check(state, action))


def _outcomes(state: GameState, a: int) -> tuple[Outcome, ...]:
    """:func:`roll_outcomes` of an action already checked."""
    if a < NUM_KEEP_ACTIONS:
        return _after_keep(D.keep_index(D.pattern_faces(state.dice, a)))
    if state.turn == state.ruleset.num_categories - 1:
        return ()
    return _after_keep(D.keep_index(()))


def step_outcome(state: GameState, action: int, dice: Sequence[int] | None) -> tuple[GameState, int]:
    """``action`` taken in ``state`` with its roll coming out as ``dice`` (one of :func:`roll_outcomes`; ``None``
    for the last box, when nothing is rolled): the next state and the points the action adds (0 for a keep).
    Raises ``ValueError`` for an illegal action or dice the roll cannot give."""
    a = _check(state, action)
    if a < NUM_KEEP_ACTIONS:
        if dice is None:
            raise ValueError("a keep rolls the other dice: give the five dice after the roll")
        return reroll_to(state, D.pattern_faces(state.dice, a), dice), 0
    return score_to(state, a - NUM_KEEP_ACTIONS, dice)


def all_outcomes(state: GameState) -> dict[int, tuple[Outcome, ...]]:
    """Every legal action of ``state`` (the environments' mask, in order) with its :func:`roll_outcomes`: a search
    node's children in one call. Empty once the game is over or while the turn's first roll is to come."""
    if not isinstance(state, GameState):
        _check(state, 0)  # the one message for a wrong state
    return {a: _outcomes(state, a) for a in np.flatnonzero(action_mask(state)).tolist()}
