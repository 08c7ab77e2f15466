"""The game-state value type: conversion, notation and transitions."""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np
import pytest

from yacht_env import rules as R
from yacht_env.randomness import roll
from yacht_env.rules import get_rules
from yacht_env.state import ROLLS_PER_TURN, GameState, new_game, parse, reroll, reroll_pattern, score_category


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
        # parse goes through the constructor's one check: scores the rules cannot give
        ("yacht | dice 1 2 3 4 5 | rolls 2 | filled ones=-100", r"score of 'ones' .*\(0\.\.5\).*got -100"),
        ("yacht | dice 1 2 3 4 5 | rolls 2 | filled ones=7", r"score of 'ones'"),
        ("yahtzee | dice 1 2 3 4 5 | rolls 2 | filled ones=3 | bonus 1", r"without 50 in the 'yahtzee' box"),
        ("yacht | dice 1 2 3 4 5 | rolls 2 | filled choice=1.9", r"score of 'choice' must be an integer, got '1.9'"),
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


# ---- malformed and unreachable states are refused ====================================================


def _state_dict(rules: str = "yacht", **changes: Any) -> dict[str, Any]:
    ids = R.get_rules(rules).category_ids
    d: dict[str, Any] = {"rules": rules, "dice": [1, 2, 3, 4, 5], "rolls_left": 2,
                         "scores": dict.fromkeys(ids), "bonus_count": 0}
    for k, v in changes.items():
        if k in ids:
            d["scores"][k] = v
        else:
            d[k] = v
    return d


@pytest.mark.parametrize("data,match", [
    (_state_dict(ones=-100), r"score of 'ones' must be an integer the box can hold under rules 'yacht' \(0\.\.5\)"),
    (_state_dict(ones=7), r"score of 'ones' .* \(0\.\.5\) or None while open, got 7"),
    (_state_dict(twos=3), r"score of 'twos' .* \(0, 2, 4, 6, 8, 10\)"),
    (_state_dict(full_house=1.9), r"score of 'full_house' .* \(0, 7\.\.9, 11\.\.24, 26\.\.28\) .*got 1.9"),
    (_state_dict(choice=12.0), r"score of 'choice' .* \(5\.\.30\) or None while open, got 12.0"),
    (_state_dict(choice=0), r"score of 'choice' .* \(5\.\.30\)"),
    (_state_dict(yacht=True), r"score of 'yacht' .* \(0, 50\) .*got True"),
    (_state_dict(yacht="50"), r"score of 'yacht' .*got '50'"),
    (_state_dict(rolls_left=True), r"rolls_left must be 0, 1 or 2 \(an integer\), got True"),
    (_state_dict(rolls_left=3), r"rolls_left must be 0, 1 or 2"),
    (_state_dict(rolls_left=1.0), r"rolls_left must be 0, 1 or 2 \(an integer\), got 1.0"),
    (_state_dict(rolls_left=None), r"rolls_left must be"),
    (_state_dict("yahtzee", bonus_count=1), r"bonus_count 1 is not possible without 50 in the 'yahtzee' box "
                                            r"\(it holds None; accepted: 0\)"),
    (_state_dict("yahtzee", yahtzee=0, ones=5, bonus_count=1), r"without 50 in the 'yahtzee' box \(it holds 0"),
    (_state_dict("yahtzee", yahtzee=50, bonus_count=1), r"bonus_count 1 is not possible with 0 filled box\(es\) "
                                                        r"besides 'yahtzee'"),
    (_state_dict("yahtzee", yahtzee=50, fives=25, bonus_count=2), r"accepted: 0\.\.1"),
    (_state_dict("yahtzee", bonus_count=-1), r"bonus_count must be a non-negative integer, got -1"),
    (_state_dict("yahtzee", bonus_count=1.5), r"bonus_count must be a non-negative integer, got 1.5"),
    (_state_dict(bonus_count=1, yacht=50, ones=5), r"not possible under rules 'yacht': it has no five-of-a-kind bonus"),
    (_state_dict(dice=[1, 2, 3, 4, 7]), r"each die must be an integer in 1\.\.6, got 7"),
    (_state_dict(dice=[1, 2, 3, 4]), r"dice must be 5 integers in 1\.\.6, got 4 values"),
    (_state_dict(dice="12345"), r"dice must be a list of 5 integers in 1\.\.6, got '12345'"),
    (_state_dict(dice=[1, 2, 3, 4, 5.0]), r"each die must be an integer"),
    (_state_dict(scores=5), r"scores must be a dict of category id to score \(or null\), or a list of 12"),
    (_state_dict(scores="ones"), r"scores must be a dict"),
    (_state_dict(scores=[None] * 11), r"scores must have 12 entries for rules 'yacht', got 11"),
    (_state_dict(scores={"ones": 1}), r"scores lacks twos, threes, .*: give every category of 'yacht', null"),
    (_state_dict(scores={**dict.fromkeys(R.get_rules("yacht").category_ids), "bogus": 1}),
     r"scores: unknown categories \['bogus'\]; accepted: ones, twos"),
    ({**_state_dict(), "rules": "poker"}, r"unknown rules 'poker'; accepted: yacht"),
    ({**_state_dict(), "rules": ["yacht"]}, r"unknown rules \['yacht'\]"),
    ({k: v for k, v in _state_dict().items() if k != "dice"}, r"the game state lacks dice; accepted keys: rules"),
    ({**_state_dict(), "turn": 3}, r"the game state has unknown keys turn; accepted keys"),
    ([1, 2, 3], r"a game state must be a dict with the keys rules, dice, rolls_left, scores, bonus_count"),
    ("yacht", r"a game state must be a dict"),
    (None, r"a game state must be a dict"),
])
def test_from_dict_refuses_malformed_and_unreachable_states(data: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        GameState.from_dict(data)
    with pytest.raises(ValueError, match=match):
        GameState.from_json(json.dumps(data))


@pytest.mark.parametrize("text", ["", "{", "[" * 100_000, "NaN-ish", '{"rules": "yacht"'])
def test_from_json_refuses_text_that_is_not_json(text: str) -> None:
    with pytest.raises(ValueError, match="a game state must be JSON text"):
        GameState.from_json(text)


@pytest.mark.parametrize("args,match", [
    (("yacht", (1, 2, 3, 4, 5), 2, (7,) + (None,) * 11), r"score of 'ones'"),
    (("yacht", (1, 2, 3, 4, 5), 2, {"ones": 1}), r"scores must be a sequence of 12 box scores"),
    (("yacht", (1, 2, 3, 4, 5), 2, None), r"scores must be a sequence"),
    (("yacht", (1, 2, 3, 4, 5), np.int64(1), (np.int64(3),) + (None,) * 11, np.int8(0)), None),
    (("yacht", (1, 2, 3, 4, 5), 2, (np.float64(3),) + (None,) * 11), r"score of 'ones' .*got (np.float64\()?3.0"),
    (("yacht", (1, 2, 3, 4, 5), np.bool_(True), (None,) * 12), r"rolls_left must be"),
])
def test_the_constructor_is_the_one_check(args: tuple[Any, ...], match: str | None) -> None:
    if match is None:
        st = GameState(*args)
        assert type(st.rolls_left) is int and type(st.scores[0]) is int and type(st.bonus_count) is int
        assert GameState.from_json(st.to_json()) == st == parse(st.notation())
        return
    with pytest.raises(ValueError, match=match):
        GameState(*args)


@pytest.mark.parametrize("rules", list(R.RULESETS))
def test_every_state_of_a_game_is_accepted_and_round_trips(rules: str) -> None:
    """What the transitions reach (the Joker and bonuses included) passes the checks, through every conversion."""
    rng = np.random.default_rng(5)
    seen = 0
    for _ in range(30):
        st = new_game(rules, rng)
        while not st.is_over:
            for _ in range(st.rolls_left):  # keep the most common face: five of a kind comes up
                counts = np.bincount(st.dice, minlength=7)
                face = int(np.argmax(counts))
                st = reroll_pattern(st, sum(1 << i for i, d in enumerate(st.dice) if d == face), rng)
            legal = st.legal_categories()
            st, _ = score_category(st, legal[int(rng.integers(len(legal)))], rng)
            assert GameState.from_dict(st.to_dict()) == st == GameState.from_json(st.to_json())
            assert parse(st.notation()) == st
            seen += 1
    assert seen == 30 * R.get_rules(rules).num_categories


def test_the_allowed_scores_come_from_the_rules() -> None:
    yahtzee = R.get_rules("yahtzee")
    ids = yahtzee.category_ids
    values = dict(zip(ids, yahtzee.box_values))
    assert values["ones"] == frozenset(range(6)) and values["full_house"] == {0, 25}
    assert values["chance"] == frozenset(range(5, 31)) and values["yahtzee"] == {0, 50}
    assert values["large_straight"] == {0, 40}  # and 40 by the Joker: the same value
    yacht = dict(zip(R.get_rules("yacht").category_ids, R.get_rules("yacht").box_values))
    assert 25 not in yacht["full_house"] and 30 not in yacht["full_house"]  # 5 + 5 + 5 + 5 + 5 is no Full House
    assert parse("dice 1 3 3 5 6 | rolls 2 | filled ones,choice", rules="yacht").scores[10] == 5


def test_parse_refuses_a_box_or_a_field_given_twice() -> None:
    """A box named 200,000 times was taken (the last score won)."""
    with pytest.raises(ValueError, match=r"^box 'ones' is filled twice in .*: name each box once$"):
        parse("yacht | dice 1 1 1 1 1 | rolls 0 | filled ones=3,choice=20,ones=4")
    with pytest.raises(ValueError, match=r"^field 'dice' is given twice in .*: give each field once$"):
        parse("yacht | dice 1 1 1 1 1 | rolls 0 | dice 2 2 2 2 2")
    with pytest.raises(ValueError, match=r"^a game state's notation is a line of at most 10,000 characters"):
        parse("yacht | dice 1 1 1 1 1 | filled " + ",".join(["ones=3"] * 200_000))
    with pytest.raises(ValueError, match=r"^dice, rolls and bonus must be integers \(ASCII digits\)"):
        parse("yacht | dice 1 1 1 1 \u0667 | rolls 0")


def test_from_json_bounds_the_nesting_before_parsing() -> None:
    """100,000 nested brackets were handed to the JSON parser; a state nests two deep."""
    state = new_game("yacht", np.random.default_rng(0))
    assert GameState.from_json(state.to_json()) == state
    with pytest.raises(ValueError, match="^unknown rules "):  # brackets inside a string do not nest
        GameState.from_json(json.dumps({**state.to_dict(), "rules": "[[[[[[[[[[\\\"[[[["}))
    with pytest.raises(ValueError, match=r"^a game state must be JSON text nested at most 4 deep"):
        GameState.from_json("[" * 40_000 + "]" * 40_000)
    with pytest.raises(ValueError, match=r"^a game state must be JSON text of at most 100,000 characters"):
        GameState.from_json(" " * 200_000)


def test_a_state_that_could_lie_about_itself_cannot_be_made() -> None:
    """A subclass whose is_over lied was taken by reset(options={"state": ...}) of a finished game."""
    with pytest.raises(TypeError, match=r"^Liar: GameState cannot be subclassed"):
        class Liar(GameState):
            @property
            def is_over(self) -> bool:
                return False


# ---- a seat between its turns: no dice until its own turn's first roll ---------------------------------------


def test_end_turn_leaves_the_next_roll_to_come_and_deal_makes_it():
    from yacht_env.actions import action_mask
    from yacht_env.state import deal, deal_to, end_turn, score_category

    st = parse("yacht | dice 2 2 3 3 3 | rolls 0")
    waiting, pts = end_turn(st, "full_house")
    assert pts == score_category(st, "full_house", np.random.default_rng(0))[1]
    assert waiting.awaits_roll and waiting.dice == () and waiting.rolls_left == ROLLS_PER_TURN
    assert waiting.scores == score_category(st, "full_house", np.random.default_rng(0))[0].scores
    assert not action_mask(waiting).any()
    with pytest.raises(ValueError, match="first roll is still to come"):
        reroll(waiting, [], np.random.default_rng(0))
    with pytest.raises(ValueError, match="first roll is still to come"):
        end_turn(waiting, "choice")
    with pytest.raises(ValueError, match="no dice yet"):
        waiting.points(0)
    dealt = deal_to(waiting, (6, 1, 1, 1, 1))
    assert dealt.dice == (1, 1, 1, 1, 6) and dealt.rolls_left == ROLLS_PER_TURN - 1
    assert dealt.scores == waiting.scores and not dealt.awaits_roll
    with pytest.raises(ValueError, match="made already"):
        deal_to(dealt, (1, 1, 1, 1, 1))
    a, b = deal(waiting, np.random.default_rng(7)), deal(waiting, np.random.default_rng(7))
    assert a == b and len(a.dice) == 5


def test_a_state_between_turns_round_trips_and_is_checked():
    from yacht_env.state import end_turn, unrolled_game

    fresh = unrolled_game("yahtzee")
    assert fresh.awaits_roll and fresh.turn == 0
    waiting, _ = end_turn(parse("yacht | dice 1 1 1 1 1 | rolls 2"), "yacht")
    for st in (fresh, waiting):
        assert parse(st.notation()) == st
        assert GameState.from_json(st.to_json()) == st
        assert "dice -" in st.notation()
    with pytest.raises(ValueError, match="rolls_left 3"):
        GameState("yacht", (), 2, (None,) * 12)
    with pytest.raises(ValueError, match="rolls_left must be 0, 1 or 2"):
        GameState("yacht", (1, 2, 3, 4, 5), 3, (None,) * 12)
    full = parse("yacht | dice 1 1 1 1 1 | rolls 0 | filled " + ",".join(
        c for c in get_rules("yacht").category_ids))
    with pytest.raises(ValueError, match="needs an open box"):
        GameState("yacht", (), 3, full.scores)
    last = parse("yacht | dice 1 1 1 1 1 | rolls 0 | filled " + ",".join(
        c for c in get_rules("yacht").category_ids if c != "yacht"))
    over, _ = end_turn(last, "yacht")
    assert over.is_over and over.dice == (1, 1, 1, 1, 1) and not over.awaits_roll
