"""The dice model of yacht_env.dice against brute force: every ordered outcome of the dice rolled, counted."""

from __future__ import annotations

import re
from itertools import product
from pathlib import Path

import numpy as np
import pytest

from yacht_env import dice as D


def _enumerated_row(keep: int) -> np.ndarray:
    """P(hand | keep) by rolling the free dice in every one of the 6**n orders."""
    kept = list(D.keep_faces(keep))
    n = D.NUM_DICE - len(kept)
    rolls = np.array(list(product(range(1, D.NUM_FACES + 1), repeat=n)), dtype=np.int64).reshape(D.NUM_FACES**n, n)
    hands = np.hstack([np.tile(np.array(kept, dtype=np.int64), (len(rolls), 1)), rolls])
    counts = np.bincount(D.hand_indices(hands), minlength=D.NUM_HANDS)
    return counts / float(D.NUM_FACES**n)


def test_probabilities_sum_to_one() -> None:
    np.testing.assert_allclose(D.TRANSITION.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert D.HAND_PROBABILITY.sum() == pytest.approx(1.0, abs=1e-12)
    assert (D.TRANSITION >= 0).all()


@pytest.mark.parametrize("size", range(D.NUM_DICE + 1))
def test_transition_matches_enumeration_of_ordered_rerolls(size: int) -> None:
    keeps = np.flatnonzero(D.KEEP_SIZE == size)
    assert len(keeps) == [1, 6, 21, 56, 126, 252][size]
    for k in keeps:
        np.testing.assert_allclose(D.TRANSITION[k], _enumerated_row(int(k)), rtol=1e-12, atol=1e-15)


def test_first_roll_is_keeping_nothing() -> None:
    assert D.keep_index([]) == 0
    np.testing.assert_allclose(D.HAND_PROBABILITY, _enumerated_row(0), rtol=1e-12, atol=1e-15)
    assert D.HAND_PROBABILITY[D.hand_index([1, 1, 1, 1, 1])] == pytest.approx(1 / 6**5)
    assert D.HAND_PROBABILITY[D.hand_index([1, 2, 3, 4, 5])] == pytest.approx(120 / 6**5)


def test_keeping_five_dice_is_certain() -> None:
    for h in range(D.NUM_HANDS):
        k = int(D.HAND_TO_KEEP[h])
        assert D.KEEP_TO_HAND[k] == h
        assert D.TRANSITION[k, h] == 1.0 and D.TRANSITION[k].sum() == 1.0


def test_indices_round_trip() -> None:
    for h, faces in enumerate(D.HANDS):
        assert D.hand_index(faces[::-1].tolist()) == h
        assert D.keep_faces(int(D.HAND_TO_KEEP[h])) == tuple(faces.tolist())
    for k in range(D.NUM_KEEPS):
        assert D.keep_index(D.keep_faces(k)) == k
    assert list(D.hand_indices(D.HANDS)) == list(range(D.NUM_HANDS))


def test_patterns_keep_the_faces_they_name() -> None:
    for h, faces in enumerate(D.HANDS):
        dice = faces.tolist()
        for p in range(D.NUM_PATTERNS):
            kept = D.pattern_faces(dice, p)
            assert D.PATTERN_KEEP[h, p] == D.keep_index(kept)
            canonical = D.pattern_for_faces(dice, kept)
            assert D.PATTERN_KEEP[h, canonical] == D.PATTERN_KEEP[h, p] and canonical <= p
            assert D.PATTERN_CANONICAL[h, p] == (canonical == p)
    with pytest.raises(ValueError, match="not all there"):
        D.pattern_for_faces([1, 2, 3, 4, 5], [6])


def test_keep_add_and_remove_are_inverse() -> None:
    for k in range(D.NUM_KEEPS):
        for f in range(D.NUM_FACES):
            up = int(D.KEEP_ADD[k, f])
            if up >= 0:
                assert D.KEEP_REMOVE[up, f] == k
                assert D.KEEP_SIZE[up] == D.KEEP_SIZE[k] + 1


def test_docs_example_runs() -> None:
    """The expectimax example of docs/dice_model.md is real code: run it."""
    doc = (Path(__file__).resolve().parent.parent / "docs" / "dice_model.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", doc, flags=re.S)
    assert blocks, "docs/dice_model.md has no python example"
    namespace: dict[str, object] = {"__name__": "docs_example"}
    for block in blocks:
        exec(compile(block, "docs/dice_model.md", "exec"), namespace)  # noqa: S102 - our own documentation
