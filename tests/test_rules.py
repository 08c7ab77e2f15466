"""Scoring of every category of both rule sets, the documents' examples and traps, bonuses and the Joker."""

from __future__ import annotations

import numpy as np
import pytest

from yacht_env import dice as D
from yacht_env.rules import RULESETS, get_rules, score
from yacht_env.state import GameState, parse, score_category

YACHT_CASES = [
    # dice, category, expected
    ([5, 5, 5, 2, 1], "fives", 15),  # the documents' example
    ([5, 5, 5, 2, 1], "ones", 1),
    ([5, 5, 5, 2, 1], "twos", 2),
    ([5, 5, 5, 2, 1], "threes", 0),
    ([4, 4, 1, 4, 2], "fours", 12),
    ([6, 6, 6, 6, 6], "sixes", 30),
    ([3, 3, 3, 5, 5], "full_house", 19),
    ([5, 3, 5, 3, 3], "full_house", 19),
    ([3, 3, 3, 3, 3], "full_house", 0),  # five of a kind is not a Full House
    ([3, 3, 3, 3, 5], "full_house", 0),
    ([2, 2, 3, 3, 4], "full_house", 0),
    ([3, 3, 3, 3, 5], "four_of_a_kind", 12),  # 4 x face, the fifth die never counts
    ([3, 3, 3, 3, 3], "four_of_a_kind", 12),  # five of a kind is a Four of a Kind
    ([6, 6, 6, 1, 6], "four_of_a_kind", 24),
    ([6, 6, 6, 1, 1], "four_of_a_kind", 0),
    ([1, 2, 3, 4, 5], "little_straight", 30),
    ([5, 4, 3, 2, 1], "little_straight", 30),
    ([1, 1, 2, 3, 4], "little_straight", 0),
    ([2, 3, 4, 5, 6], "little_straight", 0),
    ([2, 3, 4, 5, 6], "big_straight", 30),
    ([1, 2, 3, 4, 5], "big_straight", 0),  # straights are exact in Yacht
    ([2, 3, 4, 5, 5], "big_straight", 0),
    ([1, 2, 3, 4, 6], "choice", 16),
    ([6, 6, 6, 6, 6], "choice", 30),
    ([2, 2, 2, 2, 2], "yacht", 50),
    ([2, 2, 2, 2, 3], "yacht", 0),
]

YAHTZEE_CASES = [
    ([3, 3, 3, 2, 4], "threes", 9),  # the document's upper-section example
    ([3, 3, 3, 2, 4], "twos", 2),
    ([3, 3, 3, 2, 4], "fours", 4),
    ([1, 1, 1, 6, 6], "ones", 3),
    ([3, 3, 3, 2, 4], "three_of_a_kind", 15),
    ([3, 3, 2, 2, 4], "three_of_a_kind", 0),
    ([5, 5, 5, 5, 1], "three_of_a_kind", 21),
    ([5, 5, 5, 5, 1], "four_of_a_kind", 21),  # sum of all five dice
    ([5, 5, 5, 1, 1], "four_of_a_kind", 0),
    ([6, 6, 6, 6, 6], "four_of_a_kind", 30),
    ([2, 2, 2, 6, 6], "full_house", 25),
    ([6, 6, 6, 6, 6], "full_house", 0),  # only a Joker makes five of a kind a Full House
    ([1, 2, 3, 4, 6], "small_straight", 30),
    ([2, 3, 4, 5, 5], "small_straight", 30),
    ([3, 4, 5, 6, 1], "small_straight", 30),
    ([1, 2, 3, 5, 6], "small_straight", 0),
    ([1, 2, 3, 4, 5], "small_straight", 30),
    ([1, 2, 3, 4, 5], "large_straight", 40),
    ([2, 3, 4, 5, 6], "large_straight", 40),
    ([1, 2, 3, 4, 6], "large_straight", 0),
    ([4, 4, 4, 4, 4], "yahtzee", 50),
    ([4, 4, 4, 4, 3], "yahtzee", 0),
    ([1, 2, 3, 4, 6], "chance", 16),
]


YATZY_CASES = [
    ([5, 5, 5, 2, 1], "fives", 15),
    ([3, 3, 5, 5, 6], "one_pair", 10),  # the highest pair
    ([3, 3, 5, 6, 1], "one_pair", 6),
    ([1, 2, 3, 4, 6], "one_pair", 0),
    ([4, 4, 4, 4, 2], "one_pair", 8),
    ([3, 3, 5, 5, 6], "two_pairs", 16),  # the four dice of the pairs
    ([2, 2, 2, 6, 6], "two_pairs", 16),  # a full house holds two pairs
    ([4, 4, 4, 4, 2], "two_pairs", 0),  # four of a kind is not two pairs
    ([6, 6, 6, 6, 6], "two_pairs", 0),
    ([3, 3, 5, 6, 1], "two_pairs", 0),
    ([4, 4, 4, 2, 6], "three_of_a_kind", 12),  # the other dice never count
    ([4, 4, 4, 4, 6], "three_of_a_kind", 12),
    ([4, 4, 2, 2, 6], "three_of_a_kind", 0),
    ([5, 5, 5, 5, 1], "four_of_a_kind", 20),
    ([5, 5, 5, 5, 5], "four_of_a_kind", 20),
    ([5, 5, 5, 1, 1], "four_of_a_kind", 0),
    ([1, 2, 3, 4, 5], "small_straight", 15),
    ([2, 3, 4, 5, 6], "small_straight", 0),
    ([1, 2, 3, 4, 6], "small_straight", 0),
    ([2, 3, 4, 5, 6], "large_straight", 20),
    ([1, 2, 3, 4, 5], "large_straight", 0),
    ([2, 2, 2, 6, 6], "full_house", 18),  # the sum of all dice
    ([6, 6, 6, 6, 6], "full_house", 0),  # five of a kind is not a full house
    ([6, 6, 6, 6, 1], "full_house", 0),
    ([1, 2, 3, 4, 6], "chance", 16),
    ([3, 3, 3, 3, 3], "yatzy", 50),
    ([3, 3, 3, 3, 2], "yatzy", 0),
]


# Knizia's Yacht: Yacht's boxes, but Four of a Kind and Full House (five of a kind included) score the dice sum
KNIZIA_CASES = [
    ([3, 3, 3, 5, 5], "full_house", 19),
    ([3, 3, 3, 3, 3], "full_house", 15),  # five of a kind is a Full House here
    ([3, 3, 3, 3, 5], "full_house", 0),
    ([2, 2, 3, 3, 4], "full_house", 0),
    ([3, 3, 3, 3, 5], "four_of_a_kind", 17),  # the sum of all five dice
    ([6, 6, 6, 6, 6], "four_of_a_kind", 30),
    ([6, 6, 6, 1, 1], "four_of_a_kind", 0),
    ([1, 2, 3, 4, 5], "little_straight", 30),
    ([1, 2, 3, 4, 5], "big_straight", 0),
    ([2, 3, 4, 5, 6], "big_straight", 30),
    ([1, 2, 3, 4, 6], "choice", 16),
    ([2, 2, 2, 2, 2], "yacht", 50),
    ([5, 5, 5, 2, 1], "fives", 15),
]


@pytest.mark.parametrize("dice,category,expected", KNIZIA_CASES)
def test_knizia_scores(dice: list[int], category: str, expected: int) -> None:
    assert score(category, dice, "knizia") == expected


@pytest.mark.parametrize("dice,category,expected", YACHT_CASES)
def test_yacht_scores(dice: list[int], category: str, expected: int) -> None:
    assert score(category, dice, "yacht") == expected


@pytest.mark.parametrize("dice,category,expected", YAHTZEE_CASES)
@pytest.mark.parametrize("rules", ["yahtzee", "yahtzee-free-joker"])
def test_yahtzee_scores(dice: list[int], category: str, expected: int, rules: str) -> None:
    assert score(category, dice, rules) == expected


@pytest.mark.parametrize("dice,category,expected", YATZY_CASES)
def test_yatzy_scores(dice: list[int], category: str, expected: int) -> None:
    assert score(category, dice, "yatzy") == expected


def test_category_orders_are_the_documented_ones() -> None:
    assert get_rules("yacht").category_ids == (
        "ones", "twos", "threes", "fours", "fives", "sixes", "full_house", "four_of_a_kind", "little_straight",
        "big_straight", "choice", "yacht")
    assert get_rules("yahtzee").category_ids == (
        "ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind", "four_of_a_kind", "full_house",
        "small_straight", "large_straight", "yahtzee", "chance")
    assert get_rules("knizia").category_ids == get_rules("yacht").category_ids
    assert get_rules("yatzy").category_ids == (
        "ones", "twos", "threes", "fours", "fives", "sixes", "one_pair", "two_pairs", "three_of_a_kind",
        "four_of_a_kind", "small_straight", "large_straight", "full_house", "chance", "yatzy")


def test_score_tables_match_scoring_functions_for_every_hand() -> None:
    for rs in RULESETS.values():
        for h, faces in enumerate(D.HANDS):
            for k, c in enumerate(rs.categories):
                assert rs.box_scores[h, k] == c.score_counts(D.HAND_COUNTS[h]), (rs.name, faces, c.id)


@pytest.mark.parametrize(
    "args,match",
    [
        (("sevens", [1, 2, 3, 4, 5], "yacht"), r"unknown category 'sevens'.*accepted: ones"),
        (("yahtzee", [1, 2, 3, 4, 5], "yacht"), r"unknown category 'yahtzee' for rules 'yacht'"),
        (("ones", [1, 2, 3, 4, 5], "poker"), r"unknown rules 'poker'; accepted: yacht, yahtzee"),
        (("ones", [1, 2, 3, 4], "yacht"), r"5 integers in 1..6, got 4 values"),
        (("ones", [1, 2, 3, 4, 7], "yacht"), r"integer in 1..6, got 7"),
        (("ones", [1, 2, 3, 4, 0], "yacht"), r"integer in 1..6, got 0"),
        (("ones", [1, 2, 3, 4, 2.5], "yacht"), r"integer in 1..6, got 2.5"),
        (("ones", "12345", "yacht"), r"integer in 1..6, got '1'"),
        (("ones", None, "yacht"), r"sequence of 5 integers"),
    ],
)
def test_bad_input_is_named(args: tuple, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        score(*args)


# ---- bonuses and the Joker -------------------------------------------------------------------------------------

def _state(notation: str) -> GameState:
    return parse(notation)


def _outcome(state: GameState, category: str) -> tuple[int, GameState]:
    new, pts = score_category(state, category, np.random.default_rng(0))
    return pts, new


def test_upper_bonus_when_reaching_63() -> None:
    st = _state("yahtzee | dice 4 4 4 4 1 | rolls 0 | filled ones=3,twos=6,threes=9,fives=15,sixes=18")
    assert st.upper_total == 51
    pts, new = _outcome(st, "fours")
    assert pts == 16 + 35 and new.upper_bonus == 35 and new.total == 51 + 16 + 35
    # exactly 63 earns it
    st1 = _state("yahtzee | dice 6 6 6 1 1 | rolls 0 | filled ones=3,twos=6,threes=9,fours=12,fives=15")
    assert _outcome(st1, "sixes")[0] == 18 + 35
    # already at 63: no second bonus
    st2 = _state("yahtzee | dice 6 6 6 1 1 | rolls 0 | filled ones=3,twos=6,threes=9,fours=20,fives=25")
    assert st2.upper_bonus == 35 and _outcome(st2, "sixes")[0] == 18
    st3 = _state("yahtzee | dice 1 1 2 2 3 | rolls 0 | filled threes=9,fours=20,fives=25,sixes=30")
    assert st3.upper_bonus == 35 and _outcome(st3, "ones")[0] == 2


def test_yatzy_upper_bonus_is_50_and_nothing_else() -> None:
    st = _state("yatzy | dice 4 4 4 1 2 | rolls 0 | filled ones=3,twos=6,threes=9,fives=15,sixes=18")
    pts, new = _outcome(st, "fours")
    assert pts == 12 + 50 and new.upper_bonus == 50 and new.total == 51 + 12 + 50
    st1 = _state("yatzy | dice 4 4 4 1 2 | rolls 0 | filled ones=3,twos=6,threes=9,fives=15,sixes=12")
    assert _outcome(st1, "fours")[0] == 12  # 57: no bonus
    # no Joker, no extra-Yatzy bonus: a second Yatzy scores as any hand
    st2 = _state("yatzy | dice 6 6 6 6 6 | rolls 0 | filled yatzy=50")
    assert st2.legal_categories() == tuple(range(14))
    assert _outcome(st2, "full_house")[0] == 0 and _outcome(st2, "chance")[0] == 30
    assert _outcome(st2, "large_straight")[0] == 0 and _outcome(st2, "two_pairs")[0] == 0


def test_no_bonuses_in_yacht() -> None:
    st = _state("yacht | dice 4 4 4 4 4 | rolls 0 | filled ones=3,twos=6,threes=9,fives=25,sixes=30,yacht=50")
    pts, new = _outcome(st, "fours")
    assert pts == 20 and new.total == 3 + 6 + 9 + 25 + 30 + 50 + 20
    # no Joker: five of a kind with the Yacht box filled is still 0 as Full House, 4 x face as Four of a Kind
    assert st.points(6) == 0 and st.points(7) == 16 and st.legal_categories() == (3, 6, 7, 8, 9, 10)


FORCED = "yahtzee"
FREE = "yahtzee-free-joker"


@pytest.mark.parametrize("rules", [FORCED, FREE])
def test_first_yahtzee_is_plain(rules: str) -> None:
    st = _state(f"{rules} | dice 4 4 4 4 4 | rolls 0 | filled -")
    assert st.legal_categories() == tuple(range(13))
    assert _outcome(st, "yahtzee")[0] == 50
    assert _outcome(st, "full_house")[0] == 0  # no Joker while the Yahtzee box is open
    assert _outcome(st, "fours")[0] == 20


def test_forced_joker_matching_upper_box_open() -> None:
    st = _state(f"{FORCED} | dice 4 4 4 4 4 | rolls 0 | filled yahtzee=50")
    assert st.legal_categories() == (3,)
    pts, new = _outcome(st, "fours")
    assert pts == 20 + 100 and new.bonus_count == 1 and new.total == 50 + 20 + 100
    with pytest.raises(ValueError, match="Joker rule forbids 'chance'.*allowed: fours"):
        _outcome(st, "chance")


@pytest.mark.parametrize("box,bonus", [(50, 100), (0, 0)])
def test_forced_joker_lower_boxes_at_full_value(box: int, bonus: int) -> None:
    st = _state(f"{FORCED} | dice 4 4 4 4 4 | rolls 0 | filled fours=12,yahtzee={box},chance=20")
    assert st.legal_categories() == (6, 7, 8, 9, 10)  # open lower boxes only
    expected = {"three_of_a_kind": 20, "four_of_a_kind": 20, "full_house": 25, "small_straight": 30,
                "large_straight": 40}
    for cat, val in expected.items():
        pts, new = _outcome(st, cat)
        assert pts == val + bonus, cat
        assert new.scores[new.ruleset.category_index(cat)] == val
        assert new.bonus_count == (1 if bonus else 0)
    with pytest.raises(ValueError, match="Joker rule forbids 'ones'"):
        _outcome(st, "ones")


@pytest.mark.parametrize("box,bonus", [(50, 100), (0, 0)])
def test_forced_joker_all_lower_filled_zero_in_upper(box: int, bonus: int) -> None:
    lower = f"three_of_a_kind=20,four_of_a_kind=0,full_house=25,small_straight=30,large_straight=0,yahtzee={box}," \
            "chance=22"
    st = _state(f"{FORCED} | dice 4 4 4 4 4 | rolls 0 | filled fours=12,{lower}")
    assert st.legal_categories() == (0, 1, 2, 4, 5)
    for cat in ("ones", "twos", "threes", "fives", "sixes"):
        pts, new = _outcome(st, cat)
        assert pts == bonus and new.scores[new.ruleset.category_index(cat)] == 0


def test_free_joker_any_box_values_need_upper_filled() -> None:
    # matching upper box open: any open box, but Full House / straights get no Joker value
    st = _state(f"{FREE} | dice 4 4 4 4 4 | rolls 0 | filled yahtzee=50")
    assert st.legal_categories() == tuple(i for i in range(13) if i != 11)
    assert _outcome(st, "full_house")[0] == 0 + 100
    assert _outcome(st, "large_straight")[0] == 0 + 100
    assert _outcome(st, "fours")[0] == 20 + 100
    assert _outcome(st, "ones")[0] == 0 + 100
    assert _outcome(st, "chance")[0] == 20 + 100
    # matching upper box filled: full values
    st2 = _state(f"{FREE} | dice 4 4 4 4 4 | rolls 0 | filled fours=8,yahtzee=50")
    assert st2.legal_categories() == tuple(i for i in range(13) if i not in (3, 11))
    assert _outcome(st2, "full_house")[0] == 25 + 100
    assert _outcome(st2, "small_straight")[0] == 30 + 100
    assert _outcome(st2, "large_straight")[0] == 40 + 100
    assert _outcome(st2, "sixes")[0] == 0 + 100
    # Yahtzee box holding 0: Joker values, no bonus
    st3 = _state(f"{FREE} | dice 4 4 4 4 4 | rolls 0 | filled fours=8,yahtzee=0")
    assert _outcome(st3, "full_house")[0] == 25 and _outcome(st3, "four_of_a_kind")[0] == 20


@pytest.mark.parametrize("rules", [FORCED, FREE])
def test_yahtzee_bonus_repeats_without_limit(rules: str) -> None:
    st = _state(f"{rules} | dice 6 6 6 6 6 | rolls 0 | filled sixes=24,full_house=0,small_straight=0,"
                "large_straight=0,yahtzee=50 | bonus 3")  # three bonuses: three boxes filled besides the Yahtzee
    pts, new = _outcome(st, "chance")
    assert pts == 30 + 100 and new.bonus_count == 4 and new.total == 24 + 50 + 30 + 400


def test_non_yahtzee_hand_with_filled_yahtzee_box_is_normal() -> None:
    st = _state(f"{FORCED} | dice 4 4 4 4 3 | rolls 0 | filled yahtzee=50")
    assert st.legal_categories() == tuple(i for i in range(13) if i != 11)
    assert _outcome(st, "full_house")[0] == 0 and _outcome(st, "four_of_a_kind")[0] == 19
