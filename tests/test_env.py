"""The Gymnasium environment: API checks, invariants over thousands of seeded games, bad actions, rendering, and the
env against the pure transitions of yacht_env.state (the vector engine is held to it in tests/test_vector.py)."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest
from conftest import hunt_five_of_a_kind
from gymnasium.utils import seeding

from yacht_env import ENV_IDS, RULESETS, get_rules
from yacht_env.actions import action_mask
from yacht_env.engine.batch import Batch
from yacht_env.env import YachtEnv
from yacht_env.observation import decode, encode, layout
from yacht_env.randomness import roll
from yacht_env.state import GameState, new_game, parse, reroll_pattern, score_category, scorecard

RULE_NAMES = list(RULESETS)
IDS = ENV_IDS


def test_every_rule_set_has_its_id() -> None:
    # rule sets that tests register (register_rules) have no id of their own
    assert set(IDS) == {name for name, rs in RULESETS.items() if rs.env_id}
    assert set(IDS) == {"yacht", "yahtzee", "yahtzee-free-joker", "yatzy", "knizia", "clubhouse"}
    assert IDS["yatzy"] == "Yatzy-v1" and IDS["yahtzee-free-joker"] == "YahtzeeFreeJoker-v1"


def _play(env: YachtEnv, seed: int, pick: np.random.Generator) -> tuple[list, list]:
    obs, info = env.reset(seed=seed)
    trace, actions = [obs.tobytes()], []
    n_scores, total, done = 0, 0.0, False
    while not done:
        mask = env.action_masks()
        assert mask.any(), "mask empty before the end"
        assert np.array_equal(mask, info["action_mask"].astype(bool)) and info["action_mask"].dtype == np.int8
        assert env.observation_space.contains(obs)
        a = int(pick.choice(np.flatnonzero(mask)))
        actions.append(a)
        obs, r, done, trunc, info = env.step(a)
        assert not trunc and not info["illegal_action"]
        n_scores += a >= 32
        if a < 32:
            assert r == 0
        total += r
        trace.append((obs.tobytes(), r))
    assert env.observation_space.contains(obs)
    assert n_scores == env.rules.num_categories
    assert total == info["final_score"] == info["scorecard"]["total"] == env.state.total
    card = info["scorecard"]
    assert card["total"] == sum(card[c] for c in env.rules.category_ids) + card["upper_bonus"] + card[
        "yahtzee_bonus"]
    assert not info["action_mask"].any()
    return trace, actions


@pytest.mark.parametrize("rules", RULE_NAMES)
def test_invariants_over_thousands_of_random_games(rules: str) -> None:
    env = YachtEnv(rules)
    pick = np.random.default_rng(0)
    for seed in range(1500):
        _play(env, seed, pick)


@pytest.mark.parametrize("rules", RULE_NAMES)
def test_same_seed_and_actions_same_game(rules: str) -> None:
    env = YachtEnv(rules)
    for seed in (0, 1, 99):
        t1, acts = _play(env, seed, np.random.default_rng(seed))
        obs, _ = env.reset(seed=seed)
        t2 = [obs.tobytes()]
        for a in acts:
            obs, r, *_ = env.step(a)
            t2.append((obs.tobytes(), r))
        assert t1 == t2
    # and through gymnasium.make
    e1, e2 = gym.make(IDS[rules]), gym.make(IDS[rules])
    assert np.array_equal(e1.reset(seed=4)[0], e2.reset(seed=4)[0])


def test_bad_actions_raise_clear_errors() -> None:
    env = gym.make("Yacht-v0")
    env.reset(seed=0)
    for bad in (-1, 44, 2.5, "3", None, True, np.array([1, 2])):
        with pytest.raises(ValueError, match=r"action"):
            env.step(bad)
    env.step(np.int64(32 + 10))  # numpy integers are fine


def test_illegal_in_space_action_is_a_noop_by_default() -> None:
    env = YachtEnv("yacht")
    obs, _ = env.reset(seed=1)
    before = env.state
    obs2, r, term, trunc, info = env.step(31)  # keep-all is never legal
    assert info["illegal_action"] and r == 0 and not term and not trunc
    assert env.state == before and np.array_equal(obs, obs2)
    env.step(32 + 10)  # choice
    filled_state = env.state
    _, r, *_, info = env.step(32 + 10)  # choice again: filled
    assert info["illegal_action"] and r == 0 and env.state == filled_state


def test_illegal_actions_alone_end_in_truncation_by_the_time_limit() -> None:
    """Truncation is Gymnasium's ``TimeLimit`` alone: ``gym.make`` adds it at the longest legal game (36 steps of
    Yacht) or at ``max_episode_steps``; the class by itself never truncates."""
    for env, limit in ((gym.make("Yacht-v0"), 36), (gym.make("Yacht-v0", max_episode_steps=40), 40)):
        env.reset(seed=0)
        results = [env.step(31)[2:4] for _ in range(limit)]
        assert results[-1] == (False, True) and all(r == (False, False) for r in results[:-1])
    bare = YachtEnv("yacht")
    bare.reset(seed=0)
    assert not any(bare.step(31)[3] for _ in range(1000))


def test_strict_mode_names_the_action_and_why() -> None:
    env = gym.make("Yacht-v0", strict=True)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action 31 \(keep .*\) is illegal: keeping all five dice"):
        env.step(31)
    env.step(32)
    with pytest.raises(ValueError, match=r"action 32 \(score ones\) is illegal: category 'ones' is already filled"):
        env.step(32)
    env.step(0)
    env.step(0)
    with pytest.raises(ValueError, match="no rolls left"):
        env.step(0)
    env2 = YachtEnv("yahtzee", strict=True)
    env2.reset(options={"state": "yahtzee | dice 4 4 4 4 4 | rolls 0 | filled yahtzee=50"})
    with pytest.raises(ValueError, match="Joker rule forbids 'chance'.*allowed: fours"):
        env2.step(32 + 12)


def test_unique_keeps_option() -> None:
    st = "yacht | dice 2 2 5 5 5 | rolls 2 | filled -"
    uniq, every = YachtEnv("yacht"), YachtEnv("yacht", unique_keeps=False)
    uniq.reset(options={"state": st})
    every.reset(options={"state": st})
    # kept multisets of 2 2 5 5 5: 3 x 4 = 12, minus keep-all
    assert uniq.action_masks()[:32].sum() == 11
    assert every.action_masks()[:32].sum() == 31
    assert not uniq.action_masks()[31] and not every.action_masks()[31]


def test_reset_from_state_and_errors() -> None:
    env = YachtEnv("yahtzee")
    obs, info = env.reset(options={"state": parse("yahtzee | dice 1 2 3 4 5 | rolls 1 | filled chance=20")})
    d = decode(obs, "yahtzee")
    assert d["dice"] == [1, 2, 3, 4, 5] and d["rolls_left"] == 1 and "chance" not in d["open"] and d["turn"] == 1
    with pytest.raises(ValueError, match="options\\['state'\\] must be"):
        env.reset(options={"state": 42})
    with pytest.raises(ValueError, match="unknown rules 'poker'"):
        YachtEnv("poker")
    with pytest.raises(ValueError, match="render_mode"):
        YachtEnv("yacht", render_mode="rgb")


def test_render_modes(capsys: pytest.CaptureFixture[str]) -> None:
    env = gym.make("Yahtzee-v1", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "Dice:" in text and "Aces" in text and "Upper bonus" in text and "Total" in text
    human = gym.make("Yacht-v0", render_mode="human")
    human.reset(seed=0)
    out = capsys.readouterr().out
    assert "Little Straight" in out and "Rolls left: 2" in out


def test_observation_layout_is_documented_and_decodes() -> None:
    lay = layout("yahtzee")
    assert list(lay) == ["dice_counts", "dice_onehot", "rolls_left", "open", "points", "turn", "upper_total",
                         "upper_bonus", "yahtzee_box", "bonus_now", "joker"]
    assert list(layout("yacht")) == ["dice_counts", "dice_onehot", "rolls_left", "open", "points", "turn"]
    env = YachtEnv("yahtzee")
    obs, _ = env.reset(options={"state": "yahtzee | dice 6 6 6 6 6 | rolls 0 | filled sixes=24,fives=25,"
                                         "fours=16,yahtzee=50"})
    d = decode(obs, "yahtzee")
    assert d["upper_total_capped"] == 63 and d["upper_bonus_secured"] and d["yahtzee_box"] == 50
    assert d["points"]["chance"] == 130 and d["points"]["full_house"] == 125 and "sixes" not in d["points"]


def test_yatzy_observation_carries_the_upper_total() -> None:
    """Yatzy's upper bonus makes the upper total part of the Markov state; it has no five-of-a-kind box to track."""
    assert list(layout("yatzy")) == ["dice_counts", "dice_onehot", "rolls_left", "open", "points", "turn",
                                     "upper_total", "upper_bonus", "bonus_now"]
    env = YachtEnv("yatzy")
    obs, _ = env.reset(options={"state": "yatzy | dice 4 4 4 1 2 | rolls 0 | filled ones=3,twos=6,threes=9,"
                                         "fives=15,sixes=18"})
    d = decode(obs, "yatzy")
    assert d["upper_total_capped"] == 51 and not d["upper_bonus_secured"]
    assert d["points"]["fours"] == 12 + 50 and d["points"]["three_of_a_kind"] == 12 and d["points"]["one_pair"] == 8
    obs, reward, *_ = env.step(32 + 3)
    assert reward == 62 and decode(obs, "yatzy")["upper_bonus_secured"]


def test_maskable_ppo_trains_on_gymnasium_make_without_wrappers() -> None:
    from sb3_contrib import MaskablePPO

    env = gym.make("Yacht-v0")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(128)
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert env.unwrapped.action_masks()[int(action)]


# ---- the env against the readable reference (yacht_env.state) ------------------------------------------------------


def _reference_action(ref: GameState, mask: np.ndarray, pick: np.random.Generator, hunt: bool) -> int:
    """A random legal action, or one that chases five of a kind (so that Joker and bonus cases are common), or now
    and then any action at all (illegal ones must be no-ops)."""
    if pick.random() < 0.03:
        return int(pick.integers(len(mask)))
    if hunt:
        move = hunt_five_of_a_kind(ref, mask)
        if move is not None:
            return move
        if ref.rolls_left == 0 or len(set(ref.dice)) == 1:  # a box must be scored (or five of a kind kept)
            return 32 + int(pick.choice(np.flatnonzero(mask[32:])))
    return int(pick.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("rules", RULE_NAMES)
def test_kernel_env_plays_the_reference_transitions(rules: str) -> None:
    """YachtEnv and the pure transitions of yacht_env.state (new_game / reroll_pattern /
    score_category) with a Generator seeded the same play identical games: dice, rewards, observations, masks,
    final scores and the generator's state, over 600 games with random, five-of-a-kind-hunting and illegal
    actions."""
    unique = rules != "yahtzee-free-joker"
    env = YachtEnv(rules, unique_keeps=unique)
    pick = np.random.default_rng(7)
    jokers = bonuses = 0
    for seed in range(600):
        obs, info = env.reset(seed=seed)
        rng = seeding.np_random(seed)[0]
        ref = new_game(rules, rng)
        hunt = seed % 4 != 0
        done = False
        while not done:
            mask = action_mask(ref, unique)
            assert env.state == ref
            assert np.array_equal(obs.view(np.uint32), encode(ref).view(np.uint32))
            assert np.array_equal(info["action_mask"], mask.astype(np.int8))
            a = _reference_action(ref, mask, pick, hunt)
            points = 0
            if mask[a] and a < 32:
                ref = reroll_pattern(ref, a, rng)
            elif mask[a]:
                if ref.dice[0] == ref.dice[-1] and ref.yahtzee_box is not None:
                    jokers += 1
                ref, points = score_category(ref, a - 32, rng)
            obs, reward, done, trunc, info = env.step(a)
            assert (reward, info["illegal_action"], trunc) == (points, not mask[a], False)
        assert ref.is_over and info["final_score"] == ref.total == env.state.total
        assert info["scorecard"] == scorecard(ref)
        bonuses += ref.bonus_count
        assert env.np_random.bit_generator.state == rng.bit_generator.state
    if get_rules(rules).five_kind_bonus:
        assert jokers >= 100 and bonuses >= 30, (jokers, bonuses)


def test_np_random_is_the_dice_stream() -> None:
    """Draws from env.np_random continue the dice stream, and the dice continue after them; a Generator set as
    np_random rolls the next dice."""
    env = YachtEnv("yahtzee")
    env.reset(seed=3)
    rng = seeding.np_random(3)[0]
    ref = new_game("yahtzee", rng)
    env.step(0)
    ref = reroll_pattern(ref, 0, rng)
    assert env.np_random.integers(1000, size=5).tolist() == rng.integers(1000, size=5).tolist()
    env.step(32)
    ref, _ = score_category(ref, 0, rng)
    assert env.state == ref
    env.np_random = np.random.Generator(np.random.PCG64(99))
    rng = np.random.Generator(np.random.PCG64(99))
    env.step(0)
    assert env.state == reroll_pattern(ref, 0, rng)
    assert env.np_random.bit_generator.state == rng.bit_generator.state
    with pytest.raises(ValueError, match="PCG64"):
        env.np_random = np.random.Generator(np.random.MT19937(1))
    # an unseeded first reset seeds np_random at random, and the dice come from it
    fresh = YachtEnv("yacht")
    fresh.reset()
    copy = np.random.Generator(np.random.PCG64())
    copy.bit_generator.state = fresh.np_random.bit_generator.state
    fresh.step(0)
    assert fresh.state.dice == tuple(sorted(roll(copy, 5)))


def test_reset_from_any_state_and_back() -> None:
    """Loading a GameState (into the env, and into the vector engine's arrays and reading it back) gives the same
    state, with the observation and mask of the pure encoder; play continues from it."""
    pick = np.random.default_rng(5)
    for rules in RULE_NAMES:
        env = YachtEnv(rules)
        rs = env.rules
        for _ in range(200):
            rng = seeding.np_random(int(pick.integers(1000)))[0]
            ref = new_game(rules, rng)
            for _ in range(int(pick.integers(0, 3 * rs.num_categories))):
                mask = action_mask(ref)
                a = _reference_action(ref, mask, pick, hunt=True)
                if not mask[a]:
                    continue
                ref = reroll_pattern(ref, a, rng) if a < 32 else score_category(ref, a - 32, rng)[0]
                if ref.is_over:
                    break
            if ref.is_over:
                continue
            obs, info = env.reset(options={"state": ref.notation() if pick.random() < 0.5 else ref})
            assert env.state == ref
            batch = Batch.empty(1, rs.num_categories)  # the vector engine's arrays hold it too
            batch.load_state(0, ref)
            assert batch.game_state(0, rs) == ref
            assert np.array_equal(obs.view(np.uint32), encode(ref).view(np.uint32))
            assert np.array_equal(info["action_mask"], action_mask(ref).astype(np.int8))
            env.np_random = np.random.Generator(np.random.PCG64())  # a generator in the state of rng
            env.np_random.bit_generator.state = rng.bit_generator.state
            a = int(np.flatnonzero(action_mask(ref))[-1])
            _, reward, *_ = env.step(a)
            want, pts = (reroll_pattern(ref, a, rng), 0) if a < 32 else score_category(ref, a - 32, rng)
            assert env.state == want and reward == pts
    env = YachtEnv("yahtzee")
    with pytest.raises(ValueError, match=r"score of 'chance' must be an integer the box can hold .* \(5\.\.30\)"):
        env.reset(options={"state": "yahtzee | dice 1 2 3 4 5 | rolls 1 | filled chance=-3"})


def test_pickle_and_state_cache() -> None:
    env = YachtEnv("yahtzee")
    env.reset(seed=11)
    env.step(3)
    st = env.state
    assert env.state is st  # cached until the next step
    clone = pickle.loads(pickle.dumps(env))
    assert clone.state == st
    for a in (32, 0, 44, 31, 40):
        r1, r2 = env.step(a), clone.step(a)
        assert np.array_equal(r1[0], r2[0]) and r1[1:4] == r2[1:4]
    assert env.state == clone.state and env.state is not st
