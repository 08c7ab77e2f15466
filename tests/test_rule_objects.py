"""Rule sets given as objects: every entry point validates them (once), a rule set that calls itself by a registered
name but differs from it is refused, malformed ones fail when built with the reason, and what validation accepts
every part can encode."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from yacht_env.env import YachtEnv
from yacht_env.observation import POINTS_HIGH, POINTS_SCALE, encoder_constants
from yacht_env.rules import MAX_ACTION_POINTS, YACHT, YAHTZEE, Category, RuleSet, get_rules, validate_rules
from yacht_env.vector import YachtVectorEnv
from yacht_solver import solve

IMPOSTOR = dataclasses.replace(YAHTZEE, name="yacht", env_id="")  # Yahtzee's boxes under Yacht's name


@pytest.mark.parametrize("make", [
    lambda rs: YachtEnv(rules=rs),
    lambda rs: YachtVectorEnv(2, rules=rs),
    lambda rs: solve(rs),
    lambda rs: get_rules(rs),
], ids=["YachtEnv", "YachtVectorEnv", "solve", "get_rules"])
def test_a_rule_set_that_takes_a_registered_name_is_refused_everywhere(make) -> None:  # noqa: ANN001
    with pytest.raises(ValueError, match="differs from the registered rule set of that name"):
        make(IMPOSTOR)


def test_an_unregistered_valid_rule_set_plays_and_is_checked_once() -> None:
    mine = dataclasses.replace(YACHT, name="yacht-copy-unregistered", env_id="")
    env = YachtEnv(rules=mine)
    env.reset(seed=0)
    assert env.rules is mine and get_rules(mine) is mine


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"categories": YACHT.categories[:3]}, "categories must be a tuple of at least 6"),
    ({"categories": tuple(c.id for c in YACHT.categories)}, "categories must be a tuple"),
    ({"categories": list(YACHT.categories)}, "categories must be a tuple"),
    ({"categories": YACHT.categories, "five_kind_category": 11.0}, "five_kind_category must be an integer"),
    ({"categories": YACHT.categories, "five_kind_category": True}, "five_kind_category must be an integer"),
])
def test_a_rule_set_that_cannot_be_built_says_why(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        RuleSet("broken", "Broken", **kwargs)


def _with(**change: object) -> RuleSet:
    return dataclasses.replace(YAHTZEE, name="variant", env_id="", **change)


def _box(**change: object) -> RuleSet:
    last = dataclasses.replace(YACHT.categories[6], **change)
    return dataclasses.replace(YACHT, name="variant", env_id="", categories=(*YACHT.categories[:6], last,
                                                                             *YACHT.categories[7:]))


@pytest.mark.parametrize(("make", "match"), [
    (lambda: _with(joker=True), "joker must be"),
    (lambda: _with(five_kind_bonus=True), "five_kind_bonus must be an integer"),
    (lambda: _with(five_kind_bonus=200), "one action can add 285 points"),
    (lambda: _box(param=object()), "param must be an integer"),
    (lambda: _box(param=2.0), "param must be an integer"),
    (lambda: _box(param=True), "param must be an integer"),
    (lambda: _box(run="4"), "run must be an integer"),
])
def test_validation_refuses_what_a_part_could_not_handle(make, match: str) -> None:  # noqa: ANN001
    with pytest.raises(ValueError, match=match):
        validate_rules(make())


def test_the_largest_bonus_validation_accepts_is_encoded_within_the_observation_bound() -> None:
    assert POINTS_HIGH * POINTS_SCALE == MAX_ACTION_POINTS
    rs = _with(five_kind_bonus=MAX_ACTION_POINTS - 50 - YAHTZEE.upper_bonus)  # a box of 50, the upper bonus: 200
    validate_rules(rs)
    encoder_constants(rs)  # the encoder's arrays take it
    env = YachtEnv(rules=rs)
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(200):
        obs, _, term, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        assert env.observation_space.contains(obs)
        if term:
            obs, _ = env.reset()


def test_a_box_of_its_own_with_an_unused_param_keeps_a_number_there() -> None:
    rs = dataclasses.replace(YACHT, name="variant", env_id="",
                             categories=(*YACHT.categories, Category("chance2", "Chance Two", "sum", param=0)))
    assert validate_rules(rs) is rs
