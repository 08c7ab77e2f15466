"""Observation layout 2's derived features, ``bonus_now`` and ``joker``, against a brute force from GameState.

``bonus_now[k]``: scoring upper box k now secures the upper bonus (the box is legal, the bonus was not secured, and
after scoring it, it is). ``joker``: the dice are five of a kind, the rules have a Joker and its box is filled (the
Joker applies), in a game not over. The brute force plays the transition (``score_category``) and reads the
resulting state, so it shares no code with the encoder. That the single and vector environments write the same
bits as :func:`yacht_env.observation.encode` is checked for every column by ``tests/test_env.py``
(``test_kernel_env_plays_the_reference_transitions``) and ``tests/test_vector.py`` (the differential runs);
here the single environment's own observations are checked against the brute force too.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils import seeding

from yacht_env import RULESETS, get_rules
from yacht_env.actions import action_mask
from yacht_env.env import YachtEnv
from yacht_env.observation import NUM_UPPER, decode, encode, layout
from yacht_env.rules import JOKER_NONE
from yacht_env.state import GameState, new_game, parse, reroll_pattern, score_category

RULE_NAMES = list(RULESETS)


def brute_bonus_now(state: GameState) -> list[float]:
    """1 for each upper box whose scoring now turns the upper bonus from not secured to secured."""
    rs = state.ruleset
    out = [0.0] * NUM_UPPER
    if state.is_over:
        return out
    for k in range(NUM_UPPER):
        if k in state.legal_categories():
            after, _ = score_category(state, k, np.random.default_rng(0))
            out[k] = float(state.upper_bonus == 0 and after.upper_bonus == rs.upper_bonus > 0)
    return out


def brute_joker(state: GameState) -> float:
    rs = state.ruleset
    five = len(set(state.dice)) == 1
    return float(not state.is_over and five and rs.joker != JOKER_NONE and state.yahtzee_box is not None)


def check_features(obs: np.ndarray, state: GameState) -> tuple[int, int]:
    """Assert the two slices of ``obs`` equal the brute force of ``state``; return (bonus_now ones, joker ones)."""
    rs = state.ruleset
    lay = layout(rs)
    assert ("bonus_now" in lay) == rs.has_upper_bonus and ("joker" in lay) == (rs.joker != JOKER_NONE)
    ones = jokers = 0
    if "bonus_now" in lay:
        want = brute_bonus_now(state)
        assert obs[lay["bonus_now"]].tolist() == want, state.notation()
        ones = int(sum(want))
    if "joker" in lay:
        want_j = brute_joker(state)
        assert obs[lay["joker"].start] == want_j, state.notation()
        jokers = int(want_j)
    return ones, jokers


def _action(state: GameState, mask: np.ndarray, pick: np.random.Generator) -> int:
    """Chase five of a kind, then score it in its box where allowed (so that Joker turns are common); score the
    upper box of the most common face with the last roll half the time (so that bonus cases are common)."""
    dice = state.dice
    face = max(set(dice), key=dice.count)
    pattern = sum(1 << j for j in range(5) if dice[j] == face)
    if pattern != 31 and state.rolls_left and mask[pattern]:
        return pattern
    ycat = state.ruleset.five_kind_category
    if pattern == 31 and ycat >= 0 and mask[32 + ycat]:
        return 32 + ycat
    if mask[32 + face - 1] and pick.random() < 0.5:
        return 32 + face - 1
    return 32 + int(pick.choice(np.flatnonzero(mask[32:])))


@pytest.mark.parametrize("rules", RULE_NAMES)
def test_features_match_the_brute_force_on_reachable_states(rules: str) -> None:
    """encode(state) and the single environment's observations (the env and the pure transitions played in lockstep
    from the same seed) against the brute force, at every decision of 150 games."""
    env = YachtEnv(rules)
    pick = np.random.default_rng(11)
    seen_bonus = seen_joker = 0
    for seed in range(150):
        obs, _ = env.reset(seed=seed)
        rng = seeding.np_random(seed)[0]
        state = new_game(rules, rng)
        while True:
            assert env.state == state
            b, j = check_features(encode(state), state)
            check_features(obs, state)
            seen_bonus, seen_joker = seen_bonus + b, seen_joker + j
            if state.is_over:
                break
            a = _action(state, action_mask(state), pick)
            if a < 32:
                state = reroll_pattern(state, a, rng)
            else:
                state, _ = score_category(state, a - 32, rng)
            obs, *_ = env.step(a)
    rs = get_rules(rules)
    assert (seen_bonus > 0) == rs.has_upper_bonus  # the slices were exercised, not only zeros
    assert (seen_joker > 0) == (rs.joker != JOKER_NONE)


FORCED = [  # (state, bonus_now boxes, joker): hand-made cases around the Joker and the threshold
    # forced Joker, fours open: only Fours is legal, and its 20 takes 51 to 71
    ("yahtzee | dice 4 4 4 4 4 | rolls 1 | filled yahtzee=50,ones=3,twos=6,threes=9,fives=15,sixes=18",
     ["fours"], True),
    # forced Joker with the Yahtzee box at 0: still the Joker; fours open but 20 takes 30 only to 50
    ("yahtzee | dice 4 4 4 4 4 | rolls 0 | filled yahtzee=0,ones=3,twos=6,threes=9,sixes=12", [], True),
    # forced Joker, fours filled: a lower box must take it; the open Fives scores 0 and is not legal anyway
    ("yahtzee | dice 4 4 4 4 4 | rolls 0 | filled yahtzee=50,ones=3,twos=6,threes=9,fours=16,sixes=24", [], True),
    # the Yahtzee box open: no Joker; Fours would still secure the bonus
    ("yahtzee | dice 4 4 4 4 4 | rolls 2 | filled ones=3,twos=6,threes=9,fives=15,sixes=18", ["fours"], False),
    # free Joker: every open box legal; Fours secures, the other open upper box (Fives) scores 0
    ("yahtzee-free-joker | dice 4 4 4 4 4 | rolls 0 | filled yahtzee=50,ones=3,twos=6,threes=9,sixes=30",
     ["fours"], True),
    # exactly at the threshold: 48 + 15 = 63 secures; 48 + 12 (Threes) and 48 + 5 (Fives) fall short
    ("yahtzee | dice 3 3 5 5 5 | rolls 0 | filled ones=2,twos=6,fours=16,sixes=24", ["fives"], False),
    ("yahtzee | dice 3 3 3 3 5 | rolls 0 | filled ones=2,twos=6,fours=16,sixes=24", [], False),
    # the bonus already secured: nothing secures it again
    ("yahtzee | dice 6 6 6 6 6 | rolls 0 | filled sixes=24,fives=25,fours=16,yahtzee=50", [], True),
    # Yatzy: no Joker slice; two upper boxes can each reach 63 from 51
    ("yatzy | dice 4 4 4 6 6 | rolls 0 | filled ones=3,twos=6,threes=9,fives=15,sixes=18", ["fours"], None),
    ("yatzy | dice 4 4 4 6 6 | rolls 0 | filled ones=3,twos=6,threes=9,fives=15,fours=20", ["sixes"], None),
    ("yatzy | dice 4 4 4 6 6 | rolls 1 | filled ones=5,twos=10,threes=15,fives=25", ["fours", "sixes"], None),
]


@pytest.mark.parametrize(("text", "boxes", "joker"), FORCED)
def test_hand_made_joker_and_threshold_cases(text: str, boxes: list[str], joker: bool | None) -> None:
    state = parse(text)
    obs = encode(state)
    check_features(obs, state)
    d = decode(obs, state.ruleset)
    assert d["bonus_now"] == boxes
    assert d.get("joker") == joker
    env_obs, _ = YachtEnv(state.rules).reset(options={"state": text})
    assert np.array_equal(env_obs.view(np.uint32), obs.view(np.uint32))


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_a_card_awaiting_its_roll_shows_its_boxes_and_no_dice(rules: str) -> None:
    """Between its turns a seat holds no dice: the dice and rolls slices are 0, the boxes as they are, and
    nothing can be scored (points, bonus_now, joker 0)."""
    from yacht_env.state import end_turn, unrolled_game

    rolled = parse(f"{rules} | dice 3 3 3 5 6 | rolls 0")
    waiting = end_turn(rolled, get_rules(rules).category_ids[2])[0]
    obs, lay = encode(waiting), layout(rules)
    scored = encode(score_category(rolled, 2, seeding.np_random(0)[0])[0])
    for name in ("dice_counts", "dice_onehot", "rolls_left", "points"):
        assert not obs[lay[name]].any(), name
    for name in ("bonus_now", "joker"):
        if name in lay:
            assert not obs[lay[name]].any(), name
    for name in ("open", "turn", "upper_total", "upper_bonus", "yahtzee_box"):
        if name in lay:
            np.testing.assert_array_equal(obs[lay[name]], scored[lay[name]], err_msg=name)
    fresh = encode(unrolled_game(rules))
    assert fresh[lay["open"]].all() and not fresh[lay["dice_counts"]].any()
