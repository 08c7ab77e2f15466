"""Property tests: scoring laws that hold for every hand, and the observation's Markov property."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from yacht_env import dice as D
from yacht_env.env import YachtEnv
from yacht_env.observation import encode
from yacht_env.rules import RULESETS, get_rules, score
from yacht_env.state import GameState

dice5 = st.lists(st.integers(1, 6), min_size=5, max_size=5)
rules_names = st.sampled_from(list(RULESETS))


@given(dice5, st.permutations(range(5)), rules_names)
def test_scores_do_not_depend_on_dice_order(dice: list[int], perm: list[int], rules: str) -> None:
    shuffled = [dice[i] for i in perm]
    for c in get_rules(rules).category_ids:
        assert score(c, dice, rules) == score(c, shuffled, rules)


@given(dice5)
def test_sum_categories_and_upper_boxes(dice: list[int]) -> None:
    assert score("choice", dice) == sum(dice) == score("chance", dice, "yahtzee")
    upper = ["ones", "twos", "threes", "fours", "fives", "sixes"]
    assert sum(score(c, dice) for c in upper) == sum(dice)
    for f, c in enumerate(upper, start=1):
        assert score(c, dice) == f * dice.count(f)


@given(dice5)
def test_kind_categories(dice: list[int]) -> None:
    most = max(dice.count(f) for f in range(1, 7))
    face = max(range(1, 7), key=dice.count)
    assert score("four_of_a_kind", dice) == (4 * face if most >= 4 else 0)
    assert score("four_of_a_kind", dice, "yahtzee") == (sum(dice) if most >= 4 else 0)
    assert score("three_of_a_kind", dice, "yahtzee") == (sum(dice) if most >= 3 else 0)
    assert score("yacht", dice) == (50 if most == 5 else 0) == score("yahtzee", dice, "yahtzee")
    fh = sorted(dice.count(f) for f in set(dice)) == [2, 3]
    assert score("full_house", dice) == (sum(dice) if fh else 0)
    assert score("full_house", dice, "yahtzee") == (25 if fh else 0)
    assert score("full_house", dice, "knizia") == (sum(dice) if fh or most == 5 else 0)
    assert score("four_of_a_kind", dice, "knizia") == score("four_of_a_kind", dice, "yahtzee")


@given(dice5)
def test_yatzy_sets(dice: list[int]) -> None:
    """Yatzy's sets count only their own dice: the highest pair, two different pairs, three / four of one face."""
    counts = {f: dice.count(f) for f in range(1, 7)}
    pairs = [f for f in range(1, 7) if counts[f] >= 2]
    assert score("one_pair", dice, "yatzy") == (2 * max(pairs) if pairs else 0)
    assert score("two_pairs", dice, "yatzy") == (2 * sum(pairs) if len(pairs) == 2 else 0)
    for n, cid in ((3, "three_of_a_kind"), (4, "four_of_a_kind")):
        assert score(cid, dice, "yatzy") == next((n * f for f in range(1, 7) if counts[f] >= n), 0)
    fh = sorted(c for c in counts.values() if c) == [2, 3]
    assert score("full_house", dice, "yatzy") == (sum(dice) if fh else 0)
    assert score("yatzy", dice, "yatzy") == (50 if len(set(dice)) == 1 else 0)
    assert score("chance", dice, "yatzy") == sum(dice)


@given(dice5)
def test_straights(dice: list[int]) -> None:
    s = sorted(dice)
    assert score("little_straight", dice) == (30 if s == [1, 2, 3, 4, 5] else 0)
    assert score("big_straight", dice) == (30 if s == [2, 3, 4, 5, 6] else 0)
    faces = set(dice)
    small = any({a, a + 1, a + 2, a + 3} <= faces for a in (1, 2, 3))
    assert score("small_straight", dice, "yahtzee") == (30 if small else 0)
    assert score("large_straight", dice, "yahtzee") == (40 if len(faces) == 5 and s[4] - s[0] == 4 else 0)
    if score("large_straight", dice, "yahtzee"):
        assert score("small_straight", dice, "yahtzee") == 30
    assert score("small_straight", dice, "yatzy") == (15 if s == [1, 2, 3, 4, 5] else 0)
    assert score("large_straight", dice, "yatzy") == (20 if s == [2, 3, 4, 5, 6] else 0)


@given(dice5, st.integers(0, 31))
def test_keep_patterns_keep_sub_multisets(dice: list[int], pattern: int) -> None:
    kept = D.pattern_faces(dice, pattern)
    rest = sorted(dice)
    for f in kept:
        rest.remove(f)
    assert len(kept) == bin(pattern).count("1")
    p = D.pattern_for_faces(dice, kept)
    assert D.pattern_faces(dice, p) == kept and p <= pattern


def _future_key(state: GameState) -> tuple:
    """Everything that decides the future of a state: the Markov content an observation must separate."""
    rs = state.ruleset
    up = min(state.upper_total, rs.upper_bonus_threshold) if rs.has_upper_bonus else 0
    box = state.yahtzee_box if rs.has_five_kind_box else None
    return state.dice, state.rolls_left, state.filled_bits, up, box


@settings(max_examples=30, deadline=None)
@given(rules_names, st.integers(0, 2**31 - 1))
def test_observation_is_markov(rules: str, seed: int) -> None:
    """States with different futures never share an observation (over many random games)."""
    env = YachtEnv(rules)
    rng = np.random.default_rng(seed)
    seen: dict[bytes, tuple] = {}
    for game in range(20):
        env.reset(seed=seed + game)
        done = False
        while not done:
            key = _future_key(env.state)
            obs = encode(env.state).tobytes()
            assert seen.setdefault(obs, key) == key
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            done = env.step(a)[2]
