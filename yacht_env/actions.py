"""The action encoding shared by every engine: ``Discrete(32 + C)``.

Actions 0..31 keep a subset of the sorted dice (bit i keeps die i) and roll the rest; action ``32 + k`` scores
category ``k``. Keeps are legal only while rolls remain and never keep all five dice (that would waste a roll).
With ``unique_keeps`` only the smallest pattern of each distinct kept multiset is legal (with sorted dice several
patterns can keep the same faces). Scores are legal for open categories that the Joker rule allows.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from yacht_env import dice as D
from yacht_env.rules import FIVE_KIND_FACE, RuleSet, get_rules, legal_bits
from yacht_env.state import GameState

NUM_KEEP_ACTIONS = D.NUM_PATTERNS  # 32
KEEP_ALL = NUM_KEEP_ACTIONS - 1  # 31, never legal


def num_actions(rules: str | RuleSet) -> int:
    return NUM_KEEP_ACTIONS + get_rules(rules).num_categories


def _keep_masks() -> tuple[np.ndarray, np.ndarray]:
    every = np.ones((D.NUM_HANDS, NUM_KEEP_ACTIONS), dtype=np.bool_)
    every[:, KEEP_ALL] = False
    unique = D.PATTERN_CANONICAL.copy()
    unique[:, KEEP_ALL] = False
    # keeping all five faces through another pattern is impossible (only 31 keeps five dice), nothing more to drop
    for a in (every, unique):
        a.setflags(write=False)
    return every, unique


KEEP_MASK_ALL, KEEP_MASK_UNIQUE = _keep_masks()
"""(252, 32) bool: legal keep patterns of each hand, with every pattern / one per kept multiset."""


def action_mask(state: GameState, unique_keeps: bool = True) -> np.ndarray:
    """Bool mask of the legal actions in ``state`` (all False once the game is over, and between two turns in a
    game of several, where the next move is the dice's: :attr:`~yacht_env.state.GameState.awaits_roll`)."""
    rs = state.ruleset
    mask = np.zeros(NUM_KEEP_ACTIONS + rs.num_categories, dtype=np.bool_)
    if state.is_over or state.awaits_roll:
        return mask
    h = state.hand
    if state.rolls_left > 0:
        mask[:NUM_KEEP_ACTIONS] = (KEEP_MASK_UNIQUE if unique_keeps else KEEP_MASK_ALL)[h]
    bits = legal_bits(rs.params, int(FIVE_KIND_FACE[h]), state.filled_bits)
    mask[NUM_KEEP_ACTIONS:] = _bit_row(bits, rs.num_categories)
    return mask


@functools.lru_cache(maxsize=8192)
def _bit_row(bits: int, n: int) -> np.ndarray:
    """(n,) bool: bit k of ``bits`` (remembered: a game meets few distinct sets)."""
    return np.array([bits >> k & 1 for k in range(n)], dtype=np.bool_)


def describe_action(action: int, state: GameState) -> str:
    """A short human description: ``keep 3 3 5`` or ``score full_house``."""
    if action < NUM_KEEP_ACTIONS:
        kept = D.pattern_faces(state.dice, action)
        return "keep " + " ".join(map(str, kept)) if kept else "reroll all"
    return "score " + state.ruleset.category_ids[action - NUM_KEEP_ACTIONS]


def check_action(action: Any, n: int) -> int:
    """Return ``action`` as an int if it is an integer in ``0..n-1``, else raise ``ValueError``."""
    if type(action) is int and 0 <= action < n:  # the common case, first
        return action
    a = action
    if isinstance(a, np.ndarray) and a.shape in ((), (1,)):
        a = a.reshape(())[()]
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
        raise ValueError(f"action must be an integer in 0..{n - 1}, got {action!r} of type {type(action).__name__}")
    if not 0 <= a < n:
        raise ValueError(f"action {int(a)} is outside the action space: accepted 0..{n - 1}")
    return int(a)


def illegal_reason(state: GameState | None, action: int, unique_keeps: bool = True) -> str:
    """Why ``action`` is illegal in ``state`` ("" if it is legal, or if there is no state)."""
    if state is None or action_mask(state, unique_keeps)[action]:
        return ""
    if state.is_over:
        return "the game is over"
    if action < NUM_KEEP_ACTIONS:
        if state.rolls_left == 0:
            return "no rolls left this turn; score a category"
        if action == KEEP_ALL:
            return "keeping all five dice wastes a roll; score a category instead"
        return "another keep action keeps the same dice (unique_keeps=True)"
    rules = state.ruleset
    k = action - NUM_KEEP_ACTIONS
    cid = rules.category_ids[k]
    if state.scores[k] is not None:
        return f"category {cid!r} is already filled"
    allowed = ", ".join(rules.category_ids[i] for i in state.legal_categories())
    return f"the Joker rule forbids {cid!r} with this Yahtzee; allowed: {allowed}"
