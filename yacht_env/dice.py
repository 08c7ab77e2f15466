"""The dice model: every hand, every keep, and the chances between them.

Five six-sided dice are order-free for scoring, so a *hand* is a multiset of five faces (252 of them) and a *keep*
is a multiset of zero to five faces (462 of them). This module numbers both, once and for all, and tabulates
the probability of each hand after keeping a keep and rolling the rest. The rules, the exact solver, the vector
engine and model-based agents all read these arrays; nothing else recomputes them.

Indices are stable: hands are the sorted 5-tuples in lexicographic order; keeps are ordered by size, then
lexicographically. A keep of five dice *is* a hand: ``KEEP_TO_HAND`` / ``HAND_TO_KEEP`` map between the two.

Keep *patterns* are what the environment's actions use: with the hand's dice sorted ascending, bit ``i`` of a
pattern (0..31) keeps die ``i``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations_with_replacement
from math import factorial
from typing import NamedTuple

import numpy as np

NUM_DICE = 5
NUM_FACES = 6
NUM_PATTERNS = 1 << NUM_DICE  # 32 keep patterns over the sorted dice

_KEY_BASE = NUM_DICE + 1  # face counts are 0..5, read as base-6 digits


def counts_key(counts: Sequence[int]) -> int:
    """Return the integer key of face counts (count of face f is base-6 digit f-1)."""
    key = 0
    for f in range(NUM_FACES - 1, -1, -1):
        key = key * _KEY_BASE + int(counts[f])
    return key


def _build() -> dict[str, np.ndarray]:
    hands = list(combinations_with_replacement(range(1, NUM_FACES + 1), NUM_DICE))
    keeps: list[tuple[int, ...]] = []
    for size in range(NUM_DICE + 1):
        keeps.extend(combinations_with_replacement(range(1, NUM_FACES + 1), size))

    def counts_of(faces: Sequence[int]) -> list[int]:
        c = [0] * NUM_FACES
        for f in faces:
            c[f - 1] += 1
        return c

    n_keys = _KEY_BASE**NUM_FACES
    key_to_hand = np.full(n_keys, -1, dtype=np.int32)
    key_to_keep = np.full(n_keys, -1, dtype=np.int32)
    hand_counts = np.zeros((len(hands), NUM_FACES), dtype=np.int8)
    keep_counts = np.zeros((len(keeps), NUM_FACES), dtype=np.int8)
    for i, h in enumerate(hands):
        c = counts_of(h)
        hand_counts[i] = c
        key_to_hand[counts_key(c)] = i
    for i, k in enumerate(keeps):
        c = counts_of(k)
        keep_counts[i] = c
        key_to_keep[counts_key(c)] = i

    keep_size = keep_counts.sum(axis=1).astype(np.int8)
    keep_add = np.full((len(keeps), NUM_FACES), -1, dtype=np.int32)
    keep_remove = np.full((len(keeps), NUM_FACES), -1, dtype=np.int32)
    for i in range(len(keeps)):
        for f in range(NUM_FACES):
            c = keep_counts[i].astype(np.int64).copy()
            if keep_size[i] < NUM_DICE:
                c[f] += 1
                keep_add[i, f] = key_to_keep[counts_key(c)]
                c[f] -= 1
            if c[f] > 0:
                c[f] -= 1
                keep_remove[i, f] = key_to_keep[counts_key(c)]

    keep_to_hand = np.full(len(keeps), -1, dtype=np.int32)
    hand_to_keep = np.zeros(len(hands), dtype=np.int32)
    for i in range(len(hands)):
        k = key_to_keep[counts_key(hand_counts[i])]
        hand_to_keep[i] = k
        keep_to_hand[k] = i

    # P(hand | keep): multinomial over the rerolled dice.
    fact = np.array([factorial(i) for i in range(NUM_DICE + 1)], dtype=np.float64)
    extra = hand_counts[None, :, :].astype(np.int64) - keep_counts[:, None, :]
    possible = (extra >= 0).all(axis=2)
    rolled = NUM_DICE - keep_size.astype(np.int64)
    ways = fact[rolled][:, None] / np.prod(fact[np.clip(extra, 0, NUM_DICE)], axis=2)
    transition = np.where(possible, ways / float(NUM_FACES) ** rolled[:, None], 0.0)

    # Keep patterns over the sorted dice of each hand.
    hands_arr = np.array(hands, dtype=np.int8)
    pattern_keep = np.zeros((len(hands), NUM_PATTERNS), dtype=np.int32)
    pattern_canonical = np.zeros((len(hands), NUM_PATTERNS), dtype=np.bool_)
    canonical_pattern = np.zeros((len(hands), NUM_PATTERNS), dtype=np.int64)
    for h in range(len(hands)):
        first: dict[int, int] = {}
        for p in range(NUM_PATTERNS):
            kept = [int(hands_arr[h, i]) for i in range(NUM_DICE) if p >> i & 1]
            k = int(key_to_keep[counts_key(counts_of(kept))])
            pattern_keep[h, p] = k
            if k not in first:  # the smallest pattern that keeps this multiset stands for it
                first[k] = p
                pattern_canonical[h, p] = True
            canonical_pattern[h, p] = first[k]

    hand_probability = transition[0].copy()  # keep nothing = the first roll of a turn
    out = dict(
        HANDS=hands_arr,
        HAND_COUNTS=hand_counts,
        KEEPS_COUNTS=keep_counts,
        KEEP_SIZE=keep_size,
        KEEP_ADD=keep_add,
        KEEP_REMOVE=keep_remove,
        KEEP_TO_HAND=keep_to_hand,
        HAND_TO_KEEP=hand_to_keep,
        KEY_TO_HAND=key_to_hand,
        KEY_TO_KEEP=key_to_keep,
        TRANSITION=transition,
        HAND_PROBABILITY=hand_probability,
        PATTERN_KEEP=pattern_keep,
        PATTERN_CANONICAL=pattern_canonical,
        CANONICAL_PATTERN=canonical_pattern,
    )
    for a in out.values():
        a.setflags(write=False)
    return out


_T = _build()

HANDS: np.ndarray = _T["HANDS"]
"""(252, 5) int8: the sorted faces of each hand."""
HAND_COUNTS: np.ndarray = _T["HAND_COUNTS"]
"""(252, 6) int8: face counts of each hand (column f-1 counts face f)."""
KEEPS_COUNTS: np.ndarray = _T["KEEPS_COUNTS"]
"""(462, 6) int8: face counts of each keep."""
KEEP_SIZE: np.ndarray = _T["KEEP_SIZE"]
"""(462,) int8: number of dice kept."""
KEEP_ADD: np.ndarray = _T["KEEP_ADD"]
"""(462, 6) int32: the keep with one more die of face f+1, or -1 for a keep of five."""
KEEP_REMOVE: np.ndarray = _T["KEEP_REMOVE"]
"""(462, 6) int32: the keep with one die of face f+1 removed, or -1 if it holds none."""
KEEP_TO_HAND: np.ndarray = _T["KEEP_TO_HAND"]
"""(462,) int32: the hand a five-dice keep is, else -1."""
HAND_TO_KEEP: np.ndarray = _T["HAND_TO_KEEP"]
"""(252,) int32: the keep index of each hand (keeping all five dice)."""
KEY_TO_HAND: np.ndarray = _T["KEY_TO_HAND"]
"""(6**6,) int32: hand index from :func:`counts_key`, -1 where the counts are not five dice."""
KEY_TO_KEEP: np.ndarray = _T["KEY_TO_KEEP"]
"""(6**6,) int32: keep index from :func:`counts_key`."""
TRANSITION: np.ndarray = _T["TRANSITION"]
"""(462, 252) float64: P(hand | keep), rolling the dice not kept. Rows sum to 1."""
HAND_PROBABILITY: np.ndarray = _T["HAND_PROBABILITY"]
"""(252,) float64: P(hand) for a roll of all five dice."""
PATTERN_KEEP: np.ndarray = _T["PATTERN_KEEP"]
"""(252, 32) int32: the keep made by applying keep pattern p to the sorted dice of hand h."""
PATTERN_CANONICAL: np.ndarray = _T["PATTERN_CANONICAL"]
"""(252, 32) bool: p is the smallest pattern of hand h that keeps its multiset."""
CANONICAL_PATTERN: np.ndarray = _T["CANONICAL_PATTERN"]
"""(252, 32) int64: the smallest pattern of hand h that keeps the same multiset as pattern p."""

FIVE_KIND_FACE = np.array([h[0] if h[0] == h[-1] else 0 for h in HANDS], dtype=np.int64)
"""(252,) int64: the face of a five-of-a-kind hand, 0 for any other hand."""
FIVE_KIND_FACE.setflags(write=False)

NUM_HANDS = len(HANDS)  # 252
NUM_KEEPS = len(KEEPS_COUNTS)  # 462


class DiceConstants(NamedTuple):
    """The dice model's arrays that a roll and a keep read, as compiled kernels take them (one argument; numba
    compiles a named tuple's fields like separate arguments): the module's own read-only arrays, no copies. The one
    instance is :data:`DICE_CONSTANTS`."""

    five_face: np.ndarray  # (252,) int64: FIVE_KIND_FACE
    pattern_keep: np.ndarray  # (252, 32) int32: PATTERN_KEEP
    keep_size: np.ndarray  # (462,) int8: KEEP_SIZE
    keep_add: np.ndarray  # (462, 6) int32: KEEP_ADD
    keep_to_hand: np.ndarray  # (462,) int32: KEEP_TO_HAND


DICE_CONSTANTS = DiceConstants(FIVE_KIND_FACE, PATTERN_KEEP, KEEP_SIZE, KEEP_ADD, KEEP_TO_HAND)
"""The :class:`DiceConstants` (the engine's kernels and the turn search read these arrays)."""

_POW = _KEY_BASE ** np.arange(NUM_FACES, dtype=np.int64)


def validate_dice(dice: Sequence[int]) -> tuple[int, ...]:
    """Return the dice as a tuple of ints, or raise ``ValueError`` unless they are five integers in 1..6."""
    try:
        values = list(dice)
    except TypeError:
        raise ValueError(f"dice must be a sequence of {NUM_DICE} integers in 1..6, got {dice!r}") from None
    if len(values) != NUM_DICE:
        raise ValueError(f"dice must be {NUM_DICE} integers in 1..6, got {len(values)} values: {values!r}")
    out = []
    for v in values:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or not 1 <= v <= NUM_FACES:
            raise ValueError(f"each die must be an integer in 1..6, got {v!r} in {values!r}")
        out.append(int(v))
    return tuple(out)


def hand_index(dice: Sequence[int]) -> int:
    """Index (0..251) of the hand made by five dice in any order."""
    counts = [0] * NUM_FACES
    for f in validate_dice(dice):
        counts[f - 1] += 1
    return int(KEY_TO_HAND[counts_key(counts)])


def hand_indices(dice: np.ndarray) -> np.ndarray:
    """Vectorised :func:`hand_index` for an (N, 5) array of valid dice."""
    dice = np.asarray(dice)
    counts = (dice[..., :, None] == np.arange(1, NUM_FACES + 1)).sum(axis=-2)
    return KEY_TO_HAND[counts @ _POW]


def keep_index(kept: Sequence[int]) -> int:
    """Index (0..461) of the keep holding these faces (zero to five dice, any order)."""
    values = list(kept)
    if len(values) > NUM_DICE or any(
        isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 1 <= v <= NUM_FACES for v in values
    ):
        raise ValueError(f"a keep is 0 to {NUM_DICE} integers in 1..6, got {values!r}")
    counts = [0] * NUM_FACES
    for f in values:
        counts[int(f) - 1] += 1
    return int(KEY_TO_KEEP[counts_key(counts)])


def keep_faces(keep: int) -> tuple[int, ...]:
    """The sorted faces of keep ``keep``."""
    return tuple(f + 1 for f in range(NUM_FACES) for _ in range(int(KEEPS_COUNTS[keep, f])))


def pattern_for_faces(dice: Sequence[int], kept: Sequence[int]) -> int:
    """The canonical keep pattern over ``sorted(dice)`` that keeps the faces ``kept``.

    Raises ``ValueError`` if ``kept`` is not a sub-multiset of ``dice``.
    """
    h = hand_index(dice)
    k = keep_index(kept)
    for p in range(NUM_PATTERNS):
        if PATTERN_KEEP[h, p] == k:
            return p
    raise ValueError(f"cannot keep {sorted(kept)} from dice {sorted(dice)}: those faces are not all there")


def pattern_faces(dice: Sequence[int], pattern: int) -> tuple[int, ...]:
    """The faces that keep pattern ``pattern`` keeps from ``sorted(dice)``."""
    s = sorted(dice)
    return tuple(s[i] for i in range(NUM_DICE) if pattern >> i & 1)
