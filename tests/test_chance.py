"""The chance-outcome API (yacht_env.chance): exact probabilities that sum to 1, match the environments' sampled
dice, and a step with a given outcome that is the environment's step."""

from __future__ import annotations

import numpy as np
import pytest

from yacht_env import parse
from yacht_env.actions import NUM_KEEP_ACTIONS, action_mask
from yacht_env.chance import all_outcomes, roll_outcomes, step_outcome
from yacht_env.rules import RULESETS
from yacht_env.state import end_turn, new_game, reroll_pattern, score_category, unrolled_game


def _random_states(rules: str, n: int, seed: int):
    """States met along games of random legal actions."""
    rng = np.random.default_rng(seed)
    st = new_game(rules, rng)
    out = []
    while len(out) < n:
        out.append(st)
        a = int(rng.choice(np.flatnonzero(action_mask(st))))
        st = reroll_pattern(st, a, rng) if a < NUM_KEEP_ACTIONS else score_category(st, a - NUM_KEEP_ACTIONS, rng)[0]
        if st.is_over:
            st = new_game(rules, rng)
    return out


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_probabilities_sum_to_one_and_outcomes_hold_the_kept_dice(rules: str) -> None:
    for st in _random_states(rules, 60, seed=1):
        for a in np.flatnonzero(action_mask(st)).tolist():
            outs = roll_outcomes(st, a)
            if a >= NUM_KEEP_ACTIONS and st.turn == st.ruleset.num_categories - 1:
                assert outs == ()
                continue
            assert sum(o.probability for o in outs) == pytest.approx(1.0, abs=1e-12)
            assert len({o.dice for o in outs}) == len(outs) and all(o.probability > 0 for o in outs)
            if a < NUM_KEEP_ACTIONS:
                kept = [st.dice[i] for i in range(5) if a >> i & 1]
                for o in outs:
                    rest = list(o.dice)
                    for f in kept:
                        rest.remove(f)  # raises if the outcome lost a kept die
                assert len(outs) == {0: 1, 1: 6, 2: 21, 3: 56, 4: 126, 5: 252}[5 - len(kept)]
            else:
                assert len(outs) == 252


def test_probabilities_match_the_dice_the_environment_rolls() -> None:
    st = parse("yacht | dice 1 2 3 5 6 | rolls 2")
    pattern = 0b00111  # keep 1 2 3, roll two dice
    outs = roll_outcomes(st, pattern)
    rng = np.random.default_rng(7)
    n = 40_000
    counts: dict[tuple[int, ...], int] = {}
    for _ in range(n):
        d = reroll_pattern(st, pattern, rng).dice
        counts[d] = counts.get(d, 0) + 1
    assert set(counts) == {o.dice for o in outs}
    for o in outs:
        se = (o.probability * (1 - o.probability) / n) ** 0.5
        assert abs(counts[o.dice] / n - o.probability) < 5 * se, o


@pytest.mark.parametrize("rules", ["yacht", "yahtzee", "yatzy"])
def test_step_outcome_is_the_environments_step(rules: str) -> None:
    rng = np.random.default_rng(3)
    st = new_game(rules, rng)
    while not st.is_over:
        a = int(rng.choice(np.flatnonzero(action_mask(st))))
        if a < NUM_KEEP_ACTIONS:
            nxt, pts = reroll_pattern(st, a, rng), 0
        else:
            nxt, pts = score_category(st, a - NUM_KEEP_ACTIONS, rng)
        dice = None if nxt.is_over else nxt.dice
        assert dice is None or dice in {o.dice for o in roll_outcomes(st, a)}
        assert step_outcome(st, a, dice) == (nxt, pts)
        st = nxt


def test_bad_calls_name_what_is_wrong() -> None:
    st = parse("yacht | dice 1 2 3 5 6 | rolls 0")
    with pytest.raises(ValueError, match="no roll is left"):
        roll_outcomes(st, 3)
    with pytest.raises(ValueError, match="action must be an int in 0..43"):
        roll_outcomes(st, 44)
    with pytest.raises(ValueError, match="action must be an int"):
        roll_outcomes(st, True)
    st2 = parse("yacht | dice 1 2 3 5 6 | rolls 2")
    with pytest.raises(ValueError, match="do not hold the kept faces"):
        step_outcome(st2, 0b00001, (2, 2, 3, 5, 6))  # keeps the 1
    with pytest.raises(ValueError, match="give the five dice"):
        step_outcome(st2, 0b00001, None)
    with pytest.raises(ValueError, match="dice must be None when the last box"):
        step_outcome(st2, 32, None)  # not the last box: the next turn is rolled


def test_any_integer_type_is_an_action() -> None:
    st = parse("yacht | dice 1 2 3 5 6 | rolls 2")
    for a in np.flatnonzero(action_mask(st)):  # numpy ints, as a mask gives them
        assert roll_outcomes(st, a) == roll_outcomes(st, int(a))
    assert step_outcome(st, np.int32(0b00111), (1, 2, 3, 3, 3)) == step_outcome(st, 0b00111, (1, 2, 3, 3, 3))


def test_every_action_the_mask_refuses_is_refused_in_one_line() -> None:
    st = parse("yacht | dice 2 2 3 5 6 | rolls 2 | filled ones=1")
    mask = action_mask(st)
    for a in range(len(mask)):
        if mask[a]:
            continue
        for fn, args in ((roll_outcomes, (st, a)), (step_outcome, (st, a, st.dice))):
            want = rf"action {a} is not legal here \(.*\); the legal actions: \[0, 1,"
            with pytest.raises(ValueError, match=want) as e:
                fn(*args)
            assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="keeping all five dice wastes a roll"):
        roll_outcomes(st, 31)
    with pytest.raises(ValueError, match="another keep action keeps the same dice"):
        roll_outcomes(st, 0b00010)  # the second 2: pattern 0b00001 keeps the same faces
    with pytest.raises(ValueError, match="'ones' is already filled"):
        roll_outcomes(st, NUM_KEEP_ACTIONS)


@pytest.mark.parametrize("bad", [None, {}, "yacht | dice 1 2 3 5 6 | rolls 2", 3, [1, 2, 3, 4, 5]])
def test_a_state_that_is_not_a_game_state_is_a_value_error(bad) -> None:
    for call in (lambda: roll_outcomes(bad, 0), lambda: step_outcome(bad, 0, (1, 1, 1, 1, 1)),
                 lambda: all_outcomes(bad)):
        with pytest.raises(ValueError, match="state must be a yacht_env GameState"):
            call()


def test_a_state_awaiting_its_roll_has_no_outcomes_yet() -> None:
    st = end_turn(parse("yacht | dice 1 2 3 5 6 | rolls 2"), "choice")[0]
    assert st.awaits_roll and all_outcomes(st) == {} and all_outcomes(unrolled_game("yacht")) == {}
    with pytest.raises(ValueError, match="first roll is still to come"):
        roll_outcomes(st, 0)


@pytest.mark.parametrize("rules", ["yacht", "yahtzee"])
def test_all_outcomes_is_every_legal_actions_outcomes(rules: str) -> None:
    for st in _random_states(rules, 40, seed=4):
        got = all_outcomes(st)
        legal = np.flatnonzero(action_mask(st)).tolist()
        assert list(got) == legal
        assert all(got[a] == roll_outcomes(st, a) for a in legal)


@pytest.mark.parametrize("bad", ["12356", {}, {"dice": [1, 2, 3, 5, 6]}, [1, 2, 3], (1, 2, 3, 3, 9), 7])
def test_dice_that_are_not_five_faces_are_a_value_error(bad) -> None:
    with pytest.raises(ValueError, match="dice must be 5 integers|each die must be an integer|must be"):
        step_outcome(parse("yacht | dice 1 2 3 5 6 | rolls 2"), 0b00111, bad)
