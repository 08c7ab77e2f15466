"""The game-state value type: conversion, notation and transitions."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from yacht_env.randomness import roll
from yacht_env.state import GameState, new_game, parse, reroll, reroll_pattern, score_category


def test_roll_is_the_documented_mapping_of_raw_outputs() -> None:
    a, b = np.random.default_rng(7), np.random.default_rng(7)
    raws = b.bit_generator.random_raw(10).tolist()
    assert roll(a, 10) == [(x * 6 >> 64) + 1 for x in raws]


def test_roll_is_uniform() -> None:
    faces = np.array(roll(np.random.default_rng(1), 60_000))
    counts = np.bincount(faces, minlength=7)[1:]
    assert counts.sum() == 60_000 and np.all(np.abs(counts - 10_000) < 400)  # > 4 sigma


def test_round_trips() -> None:
    st = parse("yahtzee | dice 6 1 3 3 5 | rolls 1 | filled ones=3,yahtzee=50,chance=21 | bonus 2")
    assert st.dice == (1, 3, 3, 5, 6)
    assert st.notation() == "yahtzee | dice 1 3 3 5 6 | rolls 1 | filled ones=3,yahtzee=50,chance=21 | bonus 2"
    assert parse(st.notation()) == st
    assert GameState.from_dict(st.to_dict()) == st
    assert GameState.from_json(st.to_json()) == st
    assert copy.deepcopy(st) == st and hash(st) == hash(copy.copy(st))
    assert st.total == 3 + 50 + 21 + 200 and st.turn == 3 and st.yahtzee_box == 50
    assert st.filled == ("ones", "yahtzee", "chance")


def test_short_notation_forms() -> None:
    st = parse("dice 1 3 3 5 6 | rolls 2 | filled ones,choice", rules="yacht")
    assert st.filled == ("ones", "choice") and st.scores[0] == 0 and st.rolls_left == 2
    assert parse("yacht | dice 1 1 1 1 1 | rolls 0 | filled -").turn == 0


@pytest.mark.parametrize(
    "text,match",
    [
        ("yacht | dice 1 2 3 | rolls 2 | filled -", "5 integers"),
        ("yacht | dice 1 2 3 4 5 | rolls 3 | filled -", "rolls_left must be 0, 1 or 2"),
        ("yacht | dice 1 2 3 4 5 | rolls 2 | filled bogus=3", "unknown category 'bogus'"),
        ("yacht | dice 1 2 3 4 5 | rolls x | filled -", "must be integers"),
        ("dice 1 2 3 4 5 | rolls 2", "no rules named"),
        ("chess | dice 1 2 3 4 5 | rolls 2", "unknown rules 'chess'"),
        ("yacht | dice 1 2 3 4 5 | rolls 2 | bonus 1", "bonus_count 1 is not possible"),
        ("yacht | dice 1 2 3 4 5 | wat 2", "cannot parse field"),
    ],
)
def test_parse_errors_are_clear(text: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        parse(text)


def test_transitions() -> None:
    rng = np.random.default_rng(3)
    st = new_game("yacht", rng)
    assert st.rolls_left == 2 and st.turn == 0 and len(st.dice) == 5
    st2 = reroll(st, st.dice[:2], rng)
    assert st2.rolls_left == 1 and sorted(st2.dice[:0] + st.dice[:2]) == sorted(
        [d for d in st.dice[:2]]) and st2.scores == st.scores
    with pytest.raises(ValueError, match="cannot keep"):
        reroll(st2, [7], rng)
    st3 = reroll_pattern(st2, 0, rng)
    with pytest.raises(ValueError, match="no rolls left"):
        reroll_pattern(st3, 0, rng)
    st4, pts = score_category(st3, "choice", rng)
    assert pts == sum(st3.dice) and st4.turn == 1 and st4.rolls_left == 2
    with pytest.raises(ValueError, match="already filled"):
        score_category(st4, "choice", rng)


def test_transitions_are_deterministic_for_a_seed() -> None:
    def play(seed: int) -> list[str]:
        rng = np.random.default_rng(seed)
        st = new_game("yahtzee", rng)
        out = [st.notation()]
        while not st.is_over:
            st = reroll_pattern(st, 3, rng)
            st, _ = score_category(st, st.legal_categories()[0], rng)
            out.append(st.notation())
        return out

    assert play(5) == play(5) and play(5) != play(6)
