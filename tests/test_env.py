"""The Gymnasium environment: API checks, invariants over thousands of seeded games, bad actions, rendering."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest

import yacht_env  # noqa: F401  (registers the ids)
from yacht_env.env import YachtEnv
from yacht_env.observation import decode, layout
from yacht_env.state import parse

RULE_NAMES = ["yacht", "yahtzee", "yahtzee-free-joker"]

IDS = {"yacht": "Yacht-v0", "yahtzee": "Yahtzee-v0", "yahtzee-free-joker": "YahtzeeFreeJoker-v0"}


@pytest.mark.parametrize("env_id", list(IDS.values()))
def test_checkers_pass_without_warnings(env_id: str) -> None:
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gym_check(gym.make(env_id).unwrapped)
        sb3_check(gym.make(env_id), warn=True)


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


def test_illegal_actions_alone_end_in_truncation() -> None:
    env = YachtEnv("yacht", max_steps=40)
    env.reset(seed=0)
    results = [env.step(31)[2:4] for _ in range(40)]
    assert results[-1] == (False, True) and all(r == (False, False) for r in results[:-1])


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
    with pytest.raises(ValueError, match="unknown rules 'yatzy'"):
        YachtEnv("yatzy")
    with pytest.raises(ValueError, match="render_mode"):
        YachtEnv("yacht", render_mode="rgb_array")


def test_render_modes(capsys: pytest.CaptureFixture[str]) -> None:
    env = gym.make("Yahtzee-v0", render_mode="ansi")
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
                         "upper_bonus", "yahtzee_box"]
    assert list(layout("yacht")) == ["dice_counts", "dice_onehot", "rolls_left", "open", "points", "turn"]
    env = YachtEnv("yahtzee")
    obs, _ = env.reset(options={"state": "yahtzee | dice 6 6 6 6 6 | rolls 0 | filled sixes=24,fives=25,"
                                         "fours=16,yahtzee=50"})
    d = decode(obs, "yahtzee")
    assert d["upper_total_capped"] == 63 and d["upper_bonus_secured"] and d["yahtzee_box"] == 50
    assert d["points"]["chance"] == 130 and d["points"]["full_house"] == 125 and "sixes" not in d["points"]


def test_maskable_ppo_trains_on_gymnasium_make_without_wrappers() -> None:
    from sb3_contrib import MaskablePPO

    env = gym.make("Yacht-v0")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(128)
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert env.unwrapped.action_masks()[int(action)]
