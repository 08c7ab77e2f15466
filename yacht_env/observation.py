"""The observation: a flat float32 vector with named slices, its one encoder and its one decoder.

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
| yahtzee_box | 3    | (five-of-a-kind bonus or Joker: Yahtzee) one-hot: open, scored (50), holds 0         |
| bonus_now   | 6    | (upper-bonus rules) 1 where scoring the upper box now brings the upper total to the  |
|             |      | threshold (the bonus is secured by this very action)                                 |
| joker       | 1    | (Joker rules: Yahtzee) 1 when the dice are five of a kind and the Yahtzee box is     |
|             |      | filled: the Joker applies                                                            |

It is Markov: dice, rolls left, open boxes, and (where the rules have them) the capped upper total and the Yahtzee
box determine every future reward. ``points``, ``bonus_now`` and ``joker`` are functions of the rest, computed from
the current state alone, there to help learners (model-free agents above all: :mod:`yacht_agents.model_free`).

Layout versions (:data:`LAYOUT_VERSION`): 1, the slices down to ``yahtzee_box``; 2 adds ``bonus_now`` and
``joker`` at the end (environment ids ``Yahtzee-v1``, ``YahtzeeFreeJoker-v1``, ``Yatzy-v1``; Yacht's and
Knizia's observations, without either, did not change). ``layout(rules, 1)`` and ``size(rules, 1)`` describe
layout 1, a prefix of layout 2: a model saved with it plays on the first columns (:mod:`yacht_agents.sb3_agent`).
The encoder is written once, :func:`write_observation`, on plain integers and arrays: :func:`encode` runs it in
Python for a :class:`~yacht_env.state.GameState`, and the compiled engine (:mod:`yacht_env.jit.compile`) compiles
the same function for the single and vector environments. Every float it writes comes from the arrays of
:func:`encoder_constants`. The decoder is :func:`decode` (one observation, readable fields) and :func:`decode_batch`
(arrays of the fields agents compute with).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

import numpy as np

from yacht_env import dice as D
from yacht_env.rules import (
    FIVE_KIND_FACE,
    JOKER_NONE,
    MAX_ACTION_POINTS,
    NUM_UPPER,
    HandRules,
    RuleSet,
    box_score,
    get_rules,
    joker_applies,
    legal_bits,
    points_for,
)
from yacht_env.state import ROLLS_PER_TURN, GameState

LAYOUT_VERSION = 2
"""Version of the observation layout (see the module docstring); model files record it."""
LAYOUT_VERSIONS = (1, 2)
"""Every layout version :func:`layout` and :func:`size` describe (models saved with any of them still play)."""
POINTS_SCALE = 50.0
"""The unit of the ``points`` slice: a unit of the layout, not a rule, the same for every rule set so that a point
weighs the same in every game's observation (and in a model trained on one)."""
POINTS_HIGH = MAX_ACTION_POINTS / POINTS_SCALE
"""The bound of the ``points`` slice in units of :data:`POINTS_SCALE`: the most points one action may add in any rule
set validation accepts (:data:`yacht_env.rules.definitions.MAX_ACTION_POINTS`, 200)."""
SCALAR_ENTRIES = 256  # entries of the scalar arrays: points one box adds, turns and upper totals stay below
HAND_PART = D.NUM_FACES + D.NUM_DICE * D.NUM_FACES + ROLLS_PER_TURN  # dice_counts, dice_onehot, rolls_left

# rows of EncoderConstants.scalars
S_POINTS, S_TURN, S_UPPER = range(3)
# entries of EncoderConstants.fields
(F_NUM_CAT, F_OPEN, F_POINTS, F_TURN, F_UPPER_TOTAL, F_UPPER_BONUS, F_YBOX, F_YCAT, F_THRESHOLD, F_BONUS_NOW,
 F_JOKER) = range(11)
ENGINE_HELPERS = ("copy_hand_part", "count_bits", "lowest_bit")
"""Helpers of :func:`write_observation` that the compiled engine replaces by single machine operations."""
_KNOWN = ("dice_counts", "dice_onehot", "rolls_left", "open", "points", "turn", "upper_total", "upper_bonus",
          "yahtzee_box", "bonus_now", "joker")
_ADDED = {2: ("bonus_now", "joker")}  # the slices each layout version appended at the end


def _check_version(version: int) -> int:
    if type(version) is not int or version not in LAYOUT_VERSIONS:
        raise ValueError(f"observation layout version {version!r}; accepted: "
                         f"{', '.join(map(str, LAYOUT_VERSIONS))}")
    return version


def layout(rules: str | RuleSet, version: int = LAYOUT_VERSION) -> dict[str, slice]:
    """Named slices of the observation vector for ``rules`` (a new dict; the slices are computed once); with
    ``version``, those of an older layout version: a prefix of the newest, since each version only appends."""
    return dict(_versioned(get_rules(rules), _check_version(version)))


def visible_columns(rules: str | RuleSet, ignore: Sequence[str] = ()) -> np.ndarray:
    """(size,) float32: 0 on the columns of the slices named in ``ignore``, 1 elsewhere. A network that multiplies
    its input by this never sees those slices (ablations of the features); a name the rules' layout lacks is an
    error that lists the accepted ones."""
    lay = layout(rules)
    mask = np.ones(size(rules), dtype=np.float32)
    for name in ignore:
        if name not in lay:
            raise ValueError(f"observation slice {name!r} is not in the layout of rules {get_rules(rules).name!r}; "
                             f"accepted: {', '.join(lay)}")
        mask[lay[name]] = 0.0
    return mask


@cache
def _versioned(rs: RuleSet, version: int) -> tuple[tuple[str, slice], ...]:
    added = {name for v, names in _ADDED.items() if v > version for name in names}
    return tuple((name, s) for name, s in _slices(rs) if name not in added)


@cache
def _slices(rs: RuleSet) -> tuple[tuple[str, slice], ...]:
    c = rs.num_categories
    sizes = [("dice_counts", D.NUM_FACES), ("dice_onehot", D.NUM_DICE * D.NUM_FACES),
             ("rolls_left", ROLLS_PER_TURN), ("open", c), ("points", c), ("turn", 1)]
    if rs.has_upper_bonus:
        sizes += [("upper_total", 1), ("upper_bonus", 1)]
    if rs.has_five_kind_box:
        sizes += [("yahtzee_box", 3)]
    if rs.has_upper_bonus:
        sizes += [("bonus_now", NUM_UPPER)]
    if rs.joker != JOKER_NONE:
        sizes += [("joker", 1)]
    out: list[tuple[str, slice]] = []
    i = 0
    for name, n in sizes:
        out.append((name, slice(i, i + n)))
        i += n
    return tuple(out)


def size(rules: str | RuleSet, version: int = LAYOUT_VERSION) -> int:
    """Length of the observation vector for ``rules`` (of layout ``version``: the first columns of the newest)."""
    return _versioned(get_rules(rules), _check_version(version))[-1][1].stop


def high(rules: str | RuleSet) -> np.ndarray:
    """Upper bounds of the observation (the lower bound is 0)."""
    hi = np.ones(size(rules), dtype=np.float32)
    hi[layout(rules)["points"]] = POINTS_HIGH
    return hi


# ---- the encoder ------------------------------------------------------------------------------------------------


class EncoderConstants(NamedTuple):
    """What :func:`write_observation` reads for one rule set (:func:`encoder_constants`; read-only arrays). numba
    compiles it, so the engine's kernels pass it as it is.

    - ``fields`` (11,) int64 (or a tuple of ints, as :func:`encode` passes it): category count, slice starts of
      ``open``, ``points``, ``turn``, ``upper_total``, ``upper_bonus``, ``yahtzee_box`` (-1 where absent), the
      five-of-a-kind category, the bonus threshold, and the slice starts of ``bonus_now`` and ``joker`` (-1 where
      absent);
    - ``hand_part`` (3 * 252, 39) float32: the dice and rolls slices, row ``rolls * 252 + hand``;
    - ``scalars`` (3, 256) float32: ``points / POINTS_SCALE``, ``turn / C`` and ``min(upper, threshold) /
      threshold``, each computed in float64 and rounded once to float32.
    """

    fields: Any
    hand_part: np.ndarray
    scalars: np.ndarray


def _hand_part_rows() -> np.ndarray:
    out = np.zeros((ROLLS_PER_TURN * D.NUM_HANDS, HAND_PART), dtype=np.float32)
    onehot = D.NUM_FACES
    rolls = onehot + D.NUM_DICE * D.NUM_FACES
    for r in range(ROLLS_PER_TURN):
        for h in range(D.NUM_HANDS):
            row = out[r * D.NUM_HANDS + h]
            row[:D.NUM_FACES] = D.HAND_COUNTS[h] / D.NUM_DICE
            for i, f in enumerate(D.HANDS[h]):
                row[onehot + i * D.NUM_FACES + int(f) - 1] = 1.0
            row[rolls + r] = 1.0
    return out


@cache
def encoder_constants(rules: str | RuleSet) -> EncoderConstants:
    """The arrays of the encoder for ``rules`` (built once; shared by every engine)."""
    rs = get_rules(rules)
    lay = layout(rs)
    if tuple(lay)[:3] != _KNOWN[:3] or lay["rolls_left"].stop != HAND_PART or not set(lay) <= set(_KNOWN):
        raise AssertionError(f"the encoder expects the slices {_KNOWN}, in this order")
    most = int(max(rs.box_scores.max(), rs.joker_scores.max())) + rs.upper_bonus + rs.five_kind_bonus
    if max(most, rs.upper_bonus_threshold, rs.num_categories) >= SCALAR_ENTRIES:
        raise ValueError(f"rules {rs.name!r} exceed the encoder's scalar arrays ({SCALAR_ENTRIES} entries)")
    if most > POINTS_HIGH * POINTS_SCALE:
        raise ValueError(f"rules {rs.name!r}: one action can add {most} points, above the observation's bound "
                         f"{POINTS_HIGH * POINTS_SCALE:g} (POINTS_HIGH units of POINTS_SCALE)")
    fields = np.array([rs.num_categories, lay["open"].start, lay["points"].start, lay["turn"].start,
                       lay["upper_total"].start if "upper_total" in lay else -1,
                       lay["upper_bonus"].start if "upper_bonus" in lay else -1,
                       lay["yahtzee_box"].start if "yahtzee_box" in lay else -1,
                       rs.five_kind_category, rs.upper_bonus_threshold,
                       lay["bonus_now"].start if "bonus_now" in lay else -1,
                       lay["joker"].start if "joker" in lay else -1], dtype=np.int64)
    x = range(SCALAR_ENTRIES)
    thr = rs.upper_bonus_threshold
    scalars = np.zeros((3, SCALAR_ENTRIES), dtype=np.float32)
    scalars[S_POINTS] = [v / POINTS_SCALE for v in x]
    scalars[S_TURN] = [v / rs.num_categories for v in x]
    if thr:
        scalars[S_UPPER] = [min(v, thr) / thr for v in x]
    t = EncoderConstants(fields, _hand_part_rows(), scalars)
    for a in (t.fields, t.hand_part, t.scalars):
        a.setflags(write=False)
    return t


def copy_hand_part(row: np.ndarray, hand_part: np.ndarray, index: int) -> None:
    """``row[:HAND_PART] = hand_part[index]``: the dice and rolls slices (the engine compiles a memcpy instead)."""
    row[:HAND_PART] = hand_part[index]


def count_bits(x: int) -> int:
    """Number of set bits of ``x`` >= 0 (the engine compiles one instruction instead)."""
    return bin(int(x)).count("1")


def lowest_bit(x: int) -> int:
    """Index of the lowest set bit of ``x`` > 0 (the engine compiles one instruction instead)."""
    return (int(x) & -int(x)).bit_length() - 1


class Position(NamedTuple):
    """What the observation shows of a game: the hand with ``rolls`` rolls left, the filled bits, the upper total,
    the score in the five-of-a-kind box (-1 while open or untracked) and the legal score bits (0 once the game is
    over)."""

    hand: int
    rolls: int
    filled: int
    upper: int
    five_box: int
    legal: int


def write_observation(row: np.ndarray, enc: EncoderConstants, rules_row: HandRules, pos: Position) -> None:
    """Write the observation of ``pos`` into the float32 vector ``row``: the one encoder (see the module
    docstring). Every slot is written. Written on ints, arrays and tuples only: numba compiles this function as it
    is, with its helpers :func:`copy_hand_part`, :func:`count_bits` and :func:`lowest_bit` replaced by single machine
    operations (:mod:`yacht_env.jit.compile`)."""
    fields, hand_part, scalars = enc
    params, score_row, joker_row, face = rules_row
    hand, rolls, filled, upper, five_box, legal = pos
    copy_hand_part(row, hand_part, rolls * D.NUM_HANDS + hand)
    c = fields[F_NUM_CAT]
    o = fields[F_OPEN]
    p = fields[F_POINTS]
    for k in range(c):
        row[o + k] = 1 - ((filled >> k) & 1)
    for k in range(c):
        row[p + k] = 0.0
    turn = count_bits(filled)
    scored5 = five_box > 0  # the five-of-a-kind box holds its five-of-a-kind score (-1 open, 0 scratched)
    lb = legal
    while lb != 0:  # the legal boxes only; an illegal box shows 0
        k = lowest_bit(lb)
        lb &= lb - 1
        pts = points_for(params, score_row, joker_row, face, filled, upper, scored5, k)
        row[p + k] = scalars[S_POINTS, min(pts, SCALAR_ENTRIES - 1)]
    row[fields[F_TURN]] = scalars[S_TURN, turn]
    ut = fields[F_UPPER_TOTAL]
    if ut >= 0:
        thr = fields[F_THRESHOLD]
        row[ut] = scalars[S_UPPER, min(upper, thr)]
        row[fields[F_UPPER_BONUS]] = 1.0 if upper >= thr else 0.0
        bn = fields[F_BONUS_NOW]
        for k in range(NUM_UPPER):  # the upper boxes whose score now reaches the threshold
            secures = False
            if (legal >> k) & 1 == 1 and upper < thr:
                secures = upper + box_score(params, score_row, joker_row, face, filled, k) >= thr
            row[bn + k] = 1.0 if secures else 0.0
    jk = fields[F_JOKER]
    if jk >= 0:
        row[jk] = 1.0 if legal != 0 and joker_applies(params, face, filled) else 0.0
    yb = fields[F_YBOX]
    if yb >= 0:
        row[yb] = 1.0 if five_box < 0 else 0.0
        row[yb + 1] = 1.0 if five_box > 0 else 0.0
        row[yb + 2] = 1.0 if five_box == 0 else 0.0


@cache
def _python_constants(rules: str) -> tuple[tuple[int, ...], tuple[int, ...], list[list[int]], list[list[int]]]:
    """The encoder's integer arrays of ``rules`` as Python ints (fields, params, score and Joker rows): the encoder
    runs several times faster in Python on them than on numpy scalars, with the same results."""
    rs = get_rules(rules)
    return (tuple(encoder_constants(rules).fields.tolist()), tuple(rs.params.tolist()), rs.box_scores.tolist(),
            rs.joker_scores.tolist())


def encode(state: GameState, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``state`` (a new float32 array, or written into ``out``). A state between two turns in a
    game of several (:attr:`~yacht_env.state.GameState.awaits_roll`: no dice yet) shows its boxes with the dice and
    rolls slices all 0, and no points, bonus or Joker (nothing can be scored before the roll)."""
    rs = state.ruleset
    t = encoder_constants(rs.name)
    fields, params, score, joker = _python_constants(rs.name)
    obs = np.empty(size(rs), dtype=np.float32) if out is None else out
    unrolled = state.awaits_roll
    h = 0 if unrolled else state.hand
    face = int(FIVE_KIND_FACE[h])
    filled = state.filled_bits
    legal = 0 if state.is_over or unrolled else legal_bits(params, face, filled)
    box = state.yahtzee_box if rs.has_five_kind_box else None
    rolls = 0 if unrolled else state.rolls_left
    write_observation(obs, t._replace(fields=fields), HandRules(params, score[h], joker[h], face),
                      Position(h, rolls, filled, state.upper_total, -1 if box is None else box, legal))
    if unrolled:
        obs[:HAND_PART] = 0.0
    return obs


# ---- the decoder ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DecodedBatch:
    """The fields of a batch of observations that agents compute with (see :func:`decode_batch`).

    ``hand`` (N,) hand index; ``rolls`` (N,) rolls left; ``open`` (N, C) bool; ``upper`` (N,) upper total capped at
    the bonus threshold (0 without an upper bonus); ``five_box`` (N,) the five-of-a-kind box: -1 open, else its score
    (:attr:`~yacht_env.rules.RuleSet.five_kind_box_score` or 0; -1 where the rules do not track it)."""

    hand: np.ndarray
    rolls: np.ndarray
    open: np.ndarray
    upper: np.ndarray
    five_box: np.ndarray


_COUNT_POW = (D.NUM_DICE + 1) ** np.arange(D.NUM_FACES)


def decode_batch(obs: np.ndarray, rules: str | RuleSet) -> DecodedBatch:
    """Decode an (N, D) batch of observations of ``rules`` into arrays (:class:`DecodedBatch`). The fields read are
    in every layout version, so an observation of an older layout (its first columns: ``D = size(rules, v)``)
    decodes too: models saved with it decode what they are fed."""
    rs = get_rules(rules)
    obs = np.asarray(obs)
    widths = sorted({size(rs, v) for v in LAYOUT_VERSIONS})
    if obs.ndim != 2 or obs.shape[1] not in widths:
        raise ValueError(f"observations for rules {rs.name!r} must have shape (N, D), D one of "
                         f"{', '.join(map(str, widths))} (layout versions {', '.join(map(str, LAYOUT_VERSIONS))}), "
                         f"got {obs.shape}")
    lay = layout(rs)
    counts = np.rint(obs[:, lay["dice_counts"]] * D.NUM_DICE).astype(np.int64)
    hand = D.KEY_TO_HAND[counts @ _COUNT_POW].astype(np.int64)
    rolls = obs[:, lay["rolls_left"]].argmax(axis=1).astype(np.int64)
    open_ = obs[:, lay["open"]] > 0.5
    n = obs.shape[0]
    if rs.has_upper_bonus:
        thr = rs.upper_bonus_threshold
        upper = np.rint(obs[:, lay["upper_total"].start] * thr).astype(np.int64)
    else:
        upper = np.zeros(n, dtype=np.int64)
    five = np.full(n, -1, dtype=np.int64)
    if rs.has_five_kind_box:
        five = np.array([-1, rs.five_kind_box_score, 0], dtype=np.int64)[obs[:, lay["yahtzee_box"]].argmax(axis=1)]
    return DecodedBatch(hand, rolls, open_, upper, five)


def decode(obs: np.ndarray, rules: str | RuleSet) -> dict[str, Any]:
    """Readable fields of an observation: dice, rolls left, open categories, turn, the bonus fields, and (layout 2)
    the upper boxes that secure the bonus now and whether the Joker applies. Zeros in the dice and rolls slices (a
    seat between its turns in a game of several) read as no dice and 3 rolls left."""
    rs = get_rules(rules)
    obs = np.asarray(obs, dtype=np.float64)
    if obs.shape != (size(rs),):
        raise ValueError(f"observation for rules {rs.name!r} must have shape ({size(rs)},), got {obs.shape}")
    lay = layout(rs)
    b = decode_batch(obs[None], rs)
    unrolled = not obs[:HAND_PART].any()  # between a seat's two turns: the turn's first roll is still to come
    out: dict[str, Any] = {
        "dice": [] if unrolled else [int(f) for f in D.HANDS[b.hand[0]]],
        "dice_counts": [0] * D.NUM_FACES if unrolled else [int(c) for c in D.HAND_COUNTS[b.hand[0]]],
        "rolls_left": ROLLS_PER_TURN if unrolled else int(b.rolls[0]),
        "open": [c for c, v in zip(rs.category_ids, b.open[0]) if v],
        "points": {c: round(v * POINTS_SCALE) for c, v in zip(rs.category_ids, obs[lay["points"]]) if v > 0},
        "turn": round(obs[lay["turn"].start] * rs.num_categories),
    }
    if rs.has_upper_bonus:
        out["upper_total_capped"] = int(b.upper[0])
        out["upper_bonus_secured"] = bool(obs[lay["upper_bonus"].start] > 0.5)
    if rs.has_five_kind_box:
        out["yahtzee_box"] = None if b.five_box[0] < 0 else int(b.five_box[0])
    if "bonus_now" in lay:
        out["bonus_now"] = [c for c, v in zip(rs.category_ids, obs[lay["bonus_now"]]) if v > 0.5]
    if "joker" in lay:
        out["joker"] = bool(obs[lay["joker"].start] > 0.5)
    return out


__all__ = ["LAYOUT_VERSION", "LAYOUT_VERSIONS", "NUM_UPPER", "DecodedBatch", "EncoderConstants", "decode",
           "decode_batch", "encode", "encoder_constants", "high", "layout", "size", "visible_columns",
           "write_observation"]
