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

The probabilities are the dice model's (:data:`yacht_env.dice.TRANSITION`: each hand's multinomial chance), so they
sum to 1 (to float rounding) and the environments' sampled dice follow them (``tests/test_chance.py`` checks both).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

from yacht_env import dice as D
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.state import GameState, reroll_to, score_to

__all__ = ["Outcome", "roll_outcomes", "step_outcome"]


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
    n = NUM_KEEP_ACTIONS + state.ruleset.num_categories
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < n:
        raise ValueError(f"action must be an int in 0..{n - 1} (0..31 keep, 32+k score box k), got {action!r}")
    if state.is_over:
        raise ValueError("the game is over: no action has an outcome")
    if action < NUM_KEEP_ACTIONS and state.rolls_left == 0:
        raise ValueError(f"action {action} keeps dice, but no roll is left this turn: score a box (32..{n - 1})")
    return int(action)


def roll_outcomes(state: GameState, action: int) -> tuple[Outcome, ...]:
    """The distinct outcomes of the roll that ``action`` brings about in ``state``, with their probabilities.

    A keep (``0..31``): the hands the kept dice and the rolled ones can make. A score (``32 + k``): the first roll of
    the next turn (all 252 hands), or ``()`` when that box is the last one and the game ends with nothing rolled.
    ``ValueError`` for an action out of range, a keep with no roll left, or a game that is over. The score action's
    legality (an open box the Joker rule allows) is checked by :func:`step_outcome`, not here."""
    a = _check(state, action)
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
