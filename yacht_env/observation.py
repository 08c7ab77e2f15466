"""The observation: a flat float32 vector with named slices, and its decoder.

Layout for a rule set with C categories (slices in this order; see :func:`layout`):

| name        | size | meaning                                                                              |
|-------------|------|--------------------------------------------------------------------------------------|
| dice_counts | 6    | number of dice showing face f, / 5                                                   |
| dice_onehot | 30   | sorted dice, die i one-hot over faces (5 x 6)                                        |
| rolls_left  | 3    | one-hot of 0, 1, 2 rolls left                                                        |
| open        | C    | 1 where the category is open                                                         |
| points      | C    | points scoring it now would add (bonuses included), / 50; 0 if not legal             |
| turn        | 1    | turn index / C                                                                       |
| upper_total | 1    | (upper-bonus rules: Yahtzee, Yatzy) upper total capped at the threshold, / threshold |
| upper_bonus | 1    | (upper-bonus rules) 1 once the upper bonus is secured                                |
| yahtzee_box | 3    | (five-of-a-kind bonus or Joker: Yahtzee) one-hot: open, holds 50, holds 0            |

It is Markov: dice, rolls left, open boxes, and (where the rules have them) the capped upper total and the Yahtzee
box determine every future reward. ``points`` is a function of the rest, there to help learners.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from yacht_env import dice as D
from yacht_env.rules import FIVE_KIND_FACE, NUM_UPPER, RuleSet, get_rules, legal_bits, points_for
from yacht_env.state import ROLLS_PER_TURN, GameState

POINTS_SCALE = 50.0
POINTS_HIGH = 4.0  # 30 upper + 35 bonus + 100 Yahtzee bonus = 165 < 4 * 50


def layout(rules: str | RuleSet) -> dict[str, slice]:
    """Named slices of the observation vector for ``rules`` (a new dict; the slices are computed once)."""
    return dict(_slices(get_rules(rules)))


@cache
def _slices(rs: RuleSet) -> tuple[tuple[str, slice], ...]:
    c = rs.num_categories
    sizes = [("dice_counts", D.NUM_FACES), ("dice_onehot", D.NUM_DICE * D.NUM_FACES),
             ("rolls_left", ROLLS_PER_TURN), ("open", c), ("points", c), ("turn", 1)]
    if rs.has_upper_bonus:
        sizes += [("upper_total", 1), ("upper_bonus", 1)]
    if rs.has_five_kind_box:
        sizes += [("yahtzee_box", 3)]
    out: list[tuple[str, slice]] = []
    i = 0
    for name, n in sizes:
        out.append((name, slice(i, i + n)))
        i += n
    return tuple(out)


def size(rules: str | RuleSet) -> int:
    return _slices(get_rules(rules))[-1][1].stop


def high(rules: str | RuleSet) -> np.ndarray:
    """Upper bounds of the observation (the lower bound is 0)."""
    hi = np.ones(size(rules), dtype=np.float32)
    hi[layout(rules)["points"]] = POINTS_HIGH
    return hi


def encode(state: GameState, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``state`` (a new float32 array, or written into ``out``)."""
    rs = state.ruleset
    lay = layout(rs)
    obs = np.zeros(size(rs), dtype=np.float32) if out is None else out
    if out is not None:
        obs[:] = 0.0
    h = state.hand
    obs[lay["dice_counts"]] = D.HAND_COUNTS[h] / D.NUM_DICE
    onehot = obs[lay["dice_onehot"]].reshape(D.NUM_DICE, D.NUM_FACES)
    onehot[np.arange(D.NUM_DICE), D.HANDS[h] - 1] = 1.0
    obs[lay["rolls_left"].start + state.rolls_left] = 1.0
    filled = state.filled_bits
    face = int(FIVE_KIND_FACE[h])
    upper = state.upper_total
    y50 = state.yahtzee_box == 50
    legal = legal_bits(rs.params, face, filled) if not state.is_over else 0
    o, p = lay["open"].start, lay["points"].start
    for k in range(rs.num_categories):
        if not filled >> k & 1:
            obs[o + k] = 1.0
        if legal >> k & 1:
            obs[p + k] = points_for(rs.params, rs.score_table[h], rs.joker_table[h], face, filled, upper, y50,
                                    k) / POINTS_SCALE
    obs[lay["turn"].start] = state.turn / rs.num_categories
    if rs.has_upper_bonus:
        thr = rs.upper_bonus_threshold
        obs[lay["upper_total"].start] = min(upper, thr) / thr
        obs[lay["upper_bonus"].start] = float(upper >= thr)
    if rs.has_five_kind_box:
        box = state.yahtzee_box
        obs[lay["yahtzee_box"].start + (0 if box is None else 1 if box > 0 else 2)] = 1.0
    return obs


def decode(obs: np.ndarray, rules: str | RuleSet) -> dict[str, Any]:
    """Readable fields of an observation: dice, rolls left, open categories, turn, and the bonus fields."""
    rs = get_rules(rules)
    obs = np.asarray(obs, dtype=np.float64)
    if obs.shape != (size(rs),):
        raise ValueError(f"observation for rules {rs.name!r} must have shape ({size(rs)},), got {obs.shape}")
    lay = layout(rs)
    onehot = obs[lay["dice_onehot"]].reshape(D.NUM_DICE, D.NUM_FACES)
    out: dict[str, Any] = {
        "dice": [int(i) + 1 for i in onehot.argmax(axis=1)],
        "dice_counts": [round(x * D.NUM_DICE) for x in obs[lay["dice_counts"]]],
        "rolls_left": int(obs[lay["rolls_left"]].argmax()),
        "open": [c for c, v in zip(rs.category_ids, obs[lay["open"]]) if v > 0.5],
        "points": {c: round(v * POINTS_SCALE) for c, v in zip(rs.category_ids, obs[lay["points"]]) if v > 0},
        "turn": round(obs[lay["turn"].start] * rs.num_categories),
    }
    if rs.has_upper_bonus:
        out["upper_total_capped"] = round(obs[lay["upper_total"].start] * rs.upper_bonus_threshold)
        out["upper_bonus_secured"] = bool(obs[lay["upper_bonus"].start] > 0.5)
    if rs.has_five_kind_box:
        out["yahtzee_box"] = [None, 50, 0][int(obs[lay["yahtzee_box"]].argmax())]
    return out


__all__ = ["layout", "size", "high", "encode", "decode", "NUM_UPPER"]
