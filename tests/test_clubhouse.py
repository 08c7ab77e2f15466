"""The Clubhouse Games rules (``clubhouse``): every box as Nintendo's Clubhouse Games: 51 Worldwide Classics scores
it, the upper bonus, and the published optimum."""

from __future__ import annotations

import gymnasium as gym
import pytest

import yacht_env
from yacht_env import parse
from yacht_env.rules import get_rules, score


@pytest.mark.parametrize(("dice", "box", "points"), [
    ((2, 2, 3, 3, 3), "full_house", 13),        # three and two: the sum
    ((5, 5, 5, 5, 5), "full_house", 0),         # five of a kind is not a full house
    ((4, 4, 4, 2, 2), "full_house", 16),
    ((4, 4, 4, 4, 2), "four_of_a_kind", 18),    # the sum of all five dice
    ((6, 6, 6, 6, 6), "four_of_a_kind", 30),
    ((4, 4, 4, 2, 2), "four_of_a_kind", 0),
    ((1, 2, 3, 4, 6), "small_straight", 15),    # any four in a row
    ((3, 4, 5, 6, 6), "small_straight", 15),
    ((1, 2, 3, 4, 5), "small_straight", 15),
    ((1, 2, 3, 5, 6), "small_straight", 0),
    ((1, 2, 3, 4, 5), "large_straight", 30),    # five in a row
    ((2, 3, 4, 5, 6), "large_straight", 30),
    ((1, 2, 3, 4, 6), "large_straight", 0),
    ((3, 3, 3, 3, 3), "yacht", 50),
    ((3, 3, 3, 3, 2), "yacht", 0),
    ((1, 3, 4, 6, 6), "choice", 20),
    ((5, 5, 5, 2, 1), "fives", 15),
])
def test_every_box_scores_as_the_game_does(dice: tuple[int, ...], box: str, points: int) -> None:
    assert score(box, dice, "clubhouse") == points


def test_the_scorecard_order_and_the_upper_bonus() -> None:
    rs = get_rules("clubhouse")
    assert rs.category_ids == ("ones", "twos", "threes", "fours", "fives", "sixes", "choice", "four_of_a_kind",
                               "full_house", "small_straight", "large_straight", "yacht")
    assert (rs.upper_bonus, rs.upper_bonus_threshold, rs.five_kind_bonus) == (35, 63, 0)
    st = parse("clubhouse | dice 6 6 6 6 1 | rolls 0 | filled ones=3,twos=6,threes=9,fours=12,fives=15")
    assert st.points(5) == 24 + 35  # the sixes bring the upper total to 69: the bonus comes with them
    assert yacht_env.ENV_IDS["clubhouse"] == "ClubhouseYacht-v0"
    env = gym.make("ClubhouseYacht-v0")
    assert env.action_space.n == 32 + 12


def test_the_published_optimum() -> None:
    """191.7608798: the optimal expected score hkurokawa/yacht-solver publishes for these rules."""
    from yacht_solver import solve

    assert round(solve("clubhouse").start_value, 7) == 191.7608798
