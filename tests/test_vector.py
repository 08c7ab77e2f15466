"""The vector engine: PCG64 in numba, the differential test against YachtEnv, autoreset, spaces, make_vec, seeds,
errors, states, the legal-action sampler and the SB3 adapter."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from conftest import hunt_five_of_a_kind
from gymnasium.vector import AutoresetMode

from yacht_env import ENV_IDS, RULESETS, get_rules
from yacht_env.engine import pcg64 as PCG
from yacht_env.env import YachtEnv
from yacht_env.observation import layout, size
from yacht_env.randomness import roll
from yacht_env.state import GameState, parse
from yacht_env.vector import LegalActionSampler, YachtVectorEnv

RULE_NAMES = list(RULESETS)
IDS = ENV_IDS
M128 = (1 << 128) - 1


def _bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)


# ---- PCG64 -----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 12345, 2**63 + 5, 10**30])
def test_pcg64_matches_numpy(seed: int) -> None:
    bg = np.random.PCG64(np.random.SeedSequence(seed))
    row = PCG.state_row(bg)
    assert np.array_equal(PCG.random_raw(row, 2000), bg.random_raw(2000))
    assert np.array_equal(row, PCG.state_row(bg))
    g = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
    row = PCG.state_row(g.bit_generator)
    assert PCG.roll_dice(row, 3000).tolist() == roll(g, 3000)
    copy = PCG.to_generator(row)
    assert copy.bit_generator.random_raw(5).tolist() == g.bit_generator.random_raw(5).tolist()
    assert np.array_equal(PCG.seed_states([seed])[0], PCG.state_row(np.random.PCG64(np.random.SeedSequence(seed))))


def test_mulhi64() -> None:
    vals = np.random.default_rng(3).integers(0, 2**64 - 1, size=(500, 2), dtype=np.uint64, endpoint=True)
    edge = np.array([[0, 0], [2**64 - 1, 2**64 - 1], [2**63, 2], [1, 2**64 - 1]], dtype=np.uint64)
    for a, b in np.concatenate([vals, edge]):
        want = (int(a) * int(b)) >> 64
        assert int(PCG.mulhi64(a, b)) == want


@pytest.mark.parametrize("raw", [0, 0xAAAAAAAAAAAAAAAB, 0x2AAAAAAAAAAAAAAB])
def test_rejected_raw_values_are_skipped_like_randomness_roll(raw: int) -> None:
    """Force the next raw output to be one of the 4 rejected values (6x mod 2**64 < 4) and check both engines skip
    it the same way."""
    assert raw * 6 % 2**64 < 4
    inc = int(np.random.PCG64(7).state["state"]["inc"])
    hi = 0x0123456789ABCDEF  # top 6 bits 0: no rotation, so the output is hi ^ lo
    new_state = (hi << 64) | (hi ^ raw)
    state = ((new_state - inc) * pow(PCG.MULT, -1, 1 << 128)) & M128
    bg = np.random.PCG64()
    bg.state = {"bit_generator": "PCG64", "state": {"state": state, "inc": inc}, "has_uint32": 0, "uinteger": 0}
    row = PCG.state_row(bg)
    assert int(PCG.to_generator(row).bit_generator.random_raw()) == raw
    dice = PCG.roll_dice(row.copy(), 6).tolist()
    assert dice == roll(np.random.Generator(bg), 6)
    # the first die comes from the second raw value
    second = int(PCG.random_raw(row.copy(), 2)[1])
    assert dice[0] == 1 + (second * 6 >> 64)


# ---- differential test against the single environment ----------------------------------------------------------------


def _hunt(state: GameState, mask: np.ndarray, pick: np.random.Generator) -> int:
    """:func:`conftest.hunt_five_of_a_kind`, else a random open box."""
    move = hunt_five_of_a_kind(state, mask)
    if move is not None:
        return move
    legal = np.flatnonzero(mask[32:])
    return 32 + int(legal[int(pick.integers(len(legal)))])


def _run_differential(rules: str, n: int, episodes: int, seed0: int, illegal_p: float, limit: int | None,
                      unique_keeps: bool = True, hunt: bool = False) -> dict[str, int]:
    """Play n games side by side in the vector env and in n YachtEnv's (same seeds, same actions) until every game
    finished ``episodes`` episodes; compare everything at every step. ``limit``: the vector env's
    ``max_episode_steps`` and the singles' Gymnasium ``TimeLimit`` (one truncation, the same in both). Returns counts
    of what happened."""
    vec = YachtVectorEnv(n, rules=rules, max_episode_steps=limit, unique_keeps=unique_keeps,
                         autoreset_mode="same_step")
    singles: list[Any] = [YachtEnv(rules, unique_keeps=unique_keeps, engine="python") for _ in range(n)]
    if limit is not None:
        singles = [gym.wrappers.TimeLimit(e, max_episode_steps=limit) for e in singles]
    seeds = [seed0 + 7919 * i for i in range(n)]
    obs, info = vec.reset(seed=seeds)
    first = [e.reset(seed=s) for e, s in zip(singles, seeds)]
    assert np.array_equal(_bits(obs), _bits(np.stack([o for o, _ in first])))
    assert np.array_equal(info["action_mask"], np.stack([i["action_mask"] for _, i in first]))
    sampler = LegalActionSampler(n, seed=seed0)
    pick = np.random.default_rng(seed0)
    wild_p = np.where(np.arange(n) % 8 == 0, 0.3, illegal_p)  # every 8th game often truncates
    done_count = np.zeros(n, dtype=np.int64)
    stats = {"finished": 0, "truncated": 0, "jokers": 0, "bonuses": 0}
    returns = np.zeros(n)
    while done_count.min() < episodes:
        masks = vec.action_masks()
        actions = sampler(masks)
        if hunt:
            actions = np.array([_hunt(e.unwrapped.state, masks[i], pick) for i, e in enumerate(singles)])
        wild = pick.random(n) < wild_p
        actions[wild] = pick.integers(0, vec.num_actions, size=int(wild.sum()))
        obs, reward, term, trunc, info = vec.step(actions)
        returns += reward
        s_obs = np.empty_like(obs)
        s_mask = np.empty_like(info["action_mask"])
        for i, env in enumerate(singles):
            st = env.unwrapped.state
            if st.dice[0] == st.dice[-1] and st.yahtzee_box is not None and actions[i] >= 32:
                stats["jokers"] += 1
            o, r, te, tr, inf = env.step(int(actions[i]))
            ended = te or tr  # an ended game's step info is in final_info (SAME_STEP), its top-level entry unset
            ill = info["final_info"]["illegal_action"][i] if ended else info["illegal_action"][i]
            assert (r, te, tr, inf["illegal_action"]) == (reward[i], term[i], trunc[i], ill), i
            if ended:
                assert info["_final_obs"][i] and info["_final_info"][i] and not info["_illegal_action"][i]
                assert np.array_equal(_bits(info["final_obs"][i]), _bits(o)), i
                fi = info["final_info"]
                assert np.array_equal(fi["action_mask"][i], inf["action_mask"])
                assert fi["illegal_action"][i] == inf["illegal_action"]
                assert fi.get("_final_score", np.zeros(n, dtype=bool))[i] == te
                if te:
                    assert inf["final_score"] == fi["final_score"][i] == returns[i]
                    card = {k: int(fi["scorecard"][k][i]) for k in inf["scorecard"]}
                    assert card == inf["scorecard"]
                    stats["bonuses"] += card["yahtzee_bonus"] // 100
                stats["finished"] += 1
                stats["truncated"] += bool(tr)
                done_count[i] += 1
                returns[i] = 0
                o, inf = env.reset()
            s_obs[i] = o
            s_mask[i] = inf["action_mask"]
        assert np.array_equal(_bits(obs), _bits(s_obs))
        assert np.array_equal(info["action_mask"], s_mask)
        assert np.array_equal(vec.action_masks(), s_mask.astype(bool))
        if "final_obs" not in info:
            assert not (term | trunc).any()
    for i in range(0, n, max(1, n // 50)):
        assert vec.state(i) == singles[i].unwrapped.state
        assert vec.generator(i).bit_generator.random_raw() == singles[i].np_random.bit_generator.random_raw()
    return stats


@pytest.mark.parametrize("rules", RULE_NAMES)
def test_differential_against_single_env(rules: str) -> None:
    """Thousands of games per rule set: random legal actions, random (mostly illegal, non-strict no-op) actions
    (5%, 30% in every 8th game), autoreset over several episodes, a tight time limit so that some games truncate."""
    c = get_rules(rules).num_categories
    n = 700 if c <= 13 else 1400  # a 15-turn game truncates less often at 3 C steps: twice the games
    stats = _run_differential(rules, n=n, episodes=3, seed0=2024, illegal_p=0.05, limit=3 * c,
                              unique_keeps=rules != "yahtzee-free-joker")
    assert stats["finished"] >= 2100
    assert 50 < stats["truncated"] < stats["finished"] // 4


@pytest.mark.parametrize("rules", ["yahtzee", "yahtzee-free-joker"])
def test_differential_joker_and_bonus(rules: str) -> None:
    """A policy that chases five of a kind, so that the Joker rule and the Yahtzee bonus occur many times."""
    stats = _run_differential(rules, n=300, episodes=2, seed0=99, illegal_p=0.02, limit=None,
                              unique_keeps=False, hunt=True)
    assert stats["jokers"] >= 150 and stats["bonuses"] >= 25, stats


# ---- autoreset and info ---------------------------------------------------------------------------------------------


def test_autoreset_same_step_and_final_info() -> None:
    env = YachtVectorEnv(64, rules="yahtzee", autoreset_mode="same_step")
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP == env.autoreset_mode
    obs, info = env.reset(seed=5)
    sampler = LegalActionSampler(64, seed=1)
    returns = np.zeros(64)
    seen_end = 0
    for _ in range(200):
        obs, reward, term, trunc, info = env.step(sampler(env.action_masks()))
        returns += reward
        assert env.observation_space.contains(obs)
        assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (64, env.num_actions)
        if "illegal_action" in info:
            assert info["illegal_action"].dtype == np.bool_ and not info["illegal_action"].any()
            assert np.array_equal(info["_illegal_action"], ~(term | trunc))
        if term.any():
            seen_end += int(term.sum())
            ended = np.flatnonzero(term)
            fo = info["final_obs"]
            assert fo.shape == (64,) and fo.dtype == object
            assert np.array_equal(info["_final_obs"], term | trunc)
            assert all(x is None for x in fo[~info["_final_obs"]])
            lay = layout("yahtzee")
            final = np.stack(fo[ended])
            assert final.dtype == np.float32 and final.shape == (ended.size, obs.shape[1])
            assert (final[:, lay["turn"]] == 1.0).all() and not final[:, lay["open"]].any()
            assert (obs[ended, lay["turn"]] == 0.0).all() and (obs[ended, lay["open"]] == 1.0).all()
            fi = info["final_info"]
            assert "final_score" not in info and fi["final_score"].dtype == np.int64
            assert np.array_equal(fi["final_score"][ended], returns[ended])
            assert np.array_equal(fi["_scorecard"], term) and fi["scorecard"]["total"].dtype == np.int64
            assert not fi["action_mask"][ended].any()
            for i in ended:
                assert env.state(int(i)).turn == 0 and env.state(int(i)).rolls_left == 2
            returns[ended] = 0
    assert seen_end > 64


def test_next_step_is_the_default_autoreset() -> None:
    """Gymnasium's default: the step after a game ends returns its new game (reward 0, flags False)."""
    env = gym.make_vec("Yacht-v0", 8, vectorization_mode="vector_entry_point")
    assert env.autoreset_mode is AutoresetMode.NEXT_STEP is env.metadata["autoreset_mode"]
    env.reset(seed=3)
    sampler = LegalActionSampler(8, seed=3)
    ended_before = np.zeros(8, dtype=bool)
    seen = 0
    for _ in range(120):
        obs, reward, term, trunc, info = env.step(sampler(env.unwrapped.action_masks()))
        if ended_before.any():
            assert (reward[ended_before] == 0).all() and not (term | trunc)[ended_before].any()
            assert (obs[ended_before, layout("yacht")["turn"]] == 0.0).all()
            assert not info.get("_illegal_action", np.zeros(8, dtype=bool))[ended_before].any()
            seen += int(ended_before.sum())
        if term.any():
            assert np.array_equal(info["_final_score"], term) and "final_obs" not in info
        ended_before = term | trunc
    assert seen >= 8


_BEFORE_1_4 = tuple(int(x) for x in gym.__version__.split(".")[:2]) < (1, 4)


@pytest.mark.parametrize("mode", [
    "next_step",
    pytest.param("same_step", marks=pytest.mark.skipif(
        _BEFORE_1_4, reason="gymnasium's vector RecordEpisodeStatistics reads SAME_STEP autoreset from 1.4 on; before, "
                            "it drops the first reward of every episode after an autoreset (its bug, not ours)")),
])
def test_gymnasium_record_episode_statistics_reads_the_autoreset_mode(mode: str) -> None:
    """RecordEpisodeStatistics reads metadata["autoreset_mode"]: its episode returns equal our final scores."""
    envs = gym.wrappers.vector.RecordEpisodeStatistics(gym.make_vec("Yahtzee-v1", num_envs=32, autoreset_mode=mode))
    envs.reset(seed=0)
    sampler = LegalActionSampler(32, seed=0)
    seen = 0
    for _ in range(150):
        _, _, term, _, info = envs.step(sampler(envs.unwrapped.action_masks()))
        if term.any():
            scores = info["final_info"]["final_score"] if mode == "same_step" else info["final_score"]
            assert np.array_equal(info["_episode"], term)
            assert np.array_equal(info["episode"]["r"][term], scores[term])
            seen += int(term.sum())
    assert seen >= 32


def test_spaces() -> None:
    env = YachtVectorEnv(5, rules="yacht")
    assert env.single_action_space == gym.spaces.Discrete(44)
    assert env.action_space == gym.spaces.MultiDiscrete([44] * 5)
    assert env.single_observation_space == YachtEnv("yacht").observation_space
    assert env.observation_space.shape == (5, 64)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert all(env.single_observation_space.contains(o) for o in obs)
    masks = env.action_masks()
    assert masks.dtype == np.bool_ and masks.shape == (5, 44)


@pytest.mark.parametrize("rules", RULE_NAMES)
def test_make_vec(rules: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        envs = gym.make_vec(IDS[rules], num_envs=4096, vectorization_mode="vector_entry_point")
    assert isinstance(envs, YachtVectorEnv) and envs.num_envs == 4096 and envs.rules.name == rules
    obs, info = envs.reset(seed=1)
    assert obs.shape == (4096, size(rules))
    obs, *_ = envs.step(LegalActionSampler(4096, 0)(envs.action_masks()))
    assert envs.observation_space.contains(obs)
    envs.close()
    # the default mode picks the vector entry point; the env's options pass through
    envs = gym.make_vec(IDS[rules], num_envs=3, strict=True, unique_keeps=False, max_episode_steps=100)
    assert isinstance(envs, YachtVectorEnv)
    assert envs.strict and not envs.unique_keeps and envs.max_episode_steps == 100
    # the sync mode still builds single envs
    sync = gym.make_vec(IDS[rules], num_envs=2, vectorization_mode="sync")
    assert not isinstance(sync, YachtVectorEnv)


# ---- seeds ----------------------------------------------------------------------------------------------------------


def test_seeds() -> None:
    a = YachtVectorEnv(6, rules="yacht")
    b = YachtVectorEnv(6, rules="yacht")
    o1, _ = a.reset(seed=10)
    o2, _ = b.reset(seed=[10, 11, 12, 13, 14, 15])
    assert np.array_equal(o1, o2)
    assert list(a.seeds) == [10, 11, 12, 13, 14, 15]
    # reset without a seed continues each game's generator, like YachtEnv.reset()
    single = YachtEnv("yacht")
    single.reset(seed=13)
    o_single, _ = single.reset()
    o_vec, _ = a.reset()
    assert np.array_equal(o_vec[3], o_single)
    # numpy ints are accepted
    o3, _ = b.reset(seed=np.int64(10))
    assert np.array_equal(o1, o3)
    # unseeded first reset draws seeds and records them
    c = YachtVectorEnv(3)
    c.reset()
    assert c.seeds is not None and len(c.seeds) == 3
    d = YachtVectorEnv(3)
    assert np.array_equal(d.reset(seed=list(c.seeds))[0], c.reset(seed=list(c.seeds))[0])


@pytest.mark.parametrize("bad", [-1, True, 1.5, "7", [1, 2], [1, 2, -3], [1, 2, 3.0], [1, None, -3], {1, 2, 3}])
def test_bad_seeds(bad: object) -> None:
    env = YachtVectorEnv(3)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=bad)  # type: ignore[arg-type]


def test_bad_constructor_args_and_options() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        YachtVectorEnv(0)
    with pytest.raises(ValueError, match="rules"):
        YachtVectorEnv(2, rules="poker")
    with pytest.raises(ValueError, match="max_episode_steps"):
        YachtVectorEnv(2, max_episode_steps=0)
    with pytest.raises(ValueError, match="render_mode"):
        YachtVectorEnv(2, render_mode="rgb")
    env = YachtVectorEnv(2)
    with pytest.raises(ValueError, match="options"):
        env.reset(options={"state": "x"})
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, dtype=np.int64))


# ---- actions --------------------------------------------------------------------------------------------------------


def test_bad_actions_raise_before_any_game_moves() -> None:
    env = YachtVectorEnv(4, rules="yacht")
    env.reset(seed=0)
    before = [env.state(i) for i in range(4)]
    for bad, match in [
        (np.zeros(3, dtype=np.int64), "shape"),
        (np.zeros((4, 1), dtype=np.int64), "shape"),
        (np.zeros(4, dtype=np.float64), "integers"),
        (np.array([0, 1, 2, 44]), "game 3 is outside"),
        (np.array([0, -1, 2, 3]), "game 1 is outside"),
        (np.array([0, 0, 0, 2**64 - 1], dtype=np.uint64), "integers"),
        ([0, 1, "a", 2], "integers"),
    ]:
        with pytest.raises(ValueError, match=match):
            env.step(bad)
    assert [env.state(i) for i in range(4)] == before


def test_strict_illegal_action_raises_with_reason() -> None:
    env = YachtVectorEnv(3, rules="yacht", strict=True)
    env.reset(seed=0)
    before = [env.state(i) for i in range(3)]
    with pytest.raises(ValueError, match=r"game 1: action 31 \(keep .*\) is illegal: keeping all five dice"):
        env.step(np.array([32, 31, 33]))
    assert [env.state(i) for i in range(3)] == before
    _, r, *_ = env.step(np.array([32, 32, 33]))
    with pytest.raises(ValueError, match="game 0: .* already filled"):
        env.step(np.array([32, 34, 34]))


def test_illegal_actions_are_noops_when_not_strict() -> None:
    env = YachtVectorEnv(2, rules="yacht")
    obs, _ = env.reset(seed=0)
    before = [env.state(i) for i in range(2)]
    obs2, r, term, trunc, info = env.step(np.array([31, 31]))
    assert info["illegal_action"].all() and not r.any() and not (term | trunc).any()
    assert np.array_equal(obs, obs2)
    assert [env.state(i) for i in range(2)] == before


# ---- states, hand-off, rendering, memory --------------------------------------------------------------------------


def test_state_and_generator_hand_off_to_single_env() -> None:
    """Game i's state and generator let a single env continue it exactly."""
    env = YachtVectorEnv(8, rules="yahtzee")
    env.reset(seed=42)
    sampler = LegalActionSampler(8, seed=0)
    for _ in range(10):
        env.step(sampler(env.action_masks()))
    i = 5
    single = YachtEnv("yahtzee")
    single.reset(options={"state": env.state(i)})
    single.np_random = env.generator(i)
    for _ in range(25):
        a = sampler(env.action_masks())
        obs, r, te, tr, info = env.step(a)
        o, rs, tes, trs, infs = single.step(int(a[i]))
        assert rs == r[i] and tes == te[i]
        if tes:
            break
        assert np.array_equal(_bits(o), _bits(obs[i]))
    with pytest.raises(IndexError):
        env.state(8)


def test_states_parse_and_render() -> None:
    env = YachtVectorEnv(3, rules="yacht", render_mode="ansi")
    assert env.render() is None
    env.reset(seed=0)
    texts = env.render()
    assert isinstance(texts, tuple) and len(texts) == 3 and all(isinstance(t, str) for t in texts)
    for st in env.states():
        assert parse(st.notation()) == st
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert YachtVectorEnv(2).render() is None


def test_memory_per_game() -> None:
    env = YachtVectorEnv(4096, rules="yahtzee")
    mem = env.memory_per_game()
    assert 50 < mem["state"] < 200 and mem["state"] + 2 * mem["step_outputs"] < mem["total"] < 3000


# ---- legal-action sampler --------------------------------------------------------------------------------------------


def test_sampler_picks_legal_actions_uniformly() -> None:
    masks = np.zeros((3, 45), dtype=np.bool_)
    masks[0, [3, 40]] = True
    masks[1, :] = True
    sampler = LegalActionSampler(3, seed=0)
    counts = np.zeros((3, 45))
    for _ in range(4000):
        a = sampler(masks)
        assert a[2] == -1
        counts[0, a[0]] += 1
        counts[1, a[1]] += 1
    assert counts[0].sum() == counts[0, 3] + counts[0, 40] and abs(counts[0, 3] - 2000) < 200
    assert counts[1].min() > 40
    again = LegalActionSampler(3, seed=0)
    assert np.array_equal(again(masks), LegalActionSampler(3, seed=0)(masks))


# ---- SB3 adapter ----------------------------------------------------------------------------------------------------


def test_sb3_adapter_basics() -> None:
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from yacht_training.sb3_vec_env import YachtSB3VecEnv

    venv = YachtSB3VecEnv(4, rules="yacht", reward_scale=0.5, seed=7)
    assert is_masking_supported(venv)
    obs = venv.reset()
    ref = YachtVectorEnv(4, rules="yacht", autoreset_mode="same_step")
    ref_obs, _ = ref.reset(seed=7)
    assert np.array_equal(obs, ref_obs)
    masks = get_action_masks(venv)
    assert masks.shape == (4, 44) and masks.dtype == np.bool_
    assert np.array_equal(masks, ref.action_masks())
    sampler = LegalActionSampler(4, seed=0)
    ended = 0
    for _ in range(200):
        a = sampler(venv.action_masks())
        obs, rew, dones, infos = venv.step(a)
        _, r_ref, te, tr, info = ref.step(a)
        assert rew.dtype == np.float32 and np.array_equal(rew, (r_ref * 0.5).astype(np.float32))
        assert np.array_equal(dones, te | tr)
        for i in np.flatnonzero(dones):
            ended += 1
            assert np.array_equal(infos[i]["terminal_observation"], info["final_obs"][i])
            assert infos[i]["TimeLimit.truncated"] is False
            assert infos[i]["final_score"] == info["final_info"]["final_score"][i]
    assert ended >= 4
    assert venv.env_method("state", indices=[1])[0] == ref.state(1)
    assert venv.get_attr("rules") == [ref.rules] * 4
    assert venv.env_is_wrapped(gym.Wrapper) == [False] * 4


def test_maskable_ppo_trains_on_adapter() -> None:
    import torch
    from sb3_contrib import MaskablePPO

    from yacht_training.sb3_vec_env import YachtSB3VecEnv

    torch.set_num_threads(1)
    env = YachtSB3VecEnv(16, rules="yacht", reward_scale=1 / 50, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=256, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    model.learn(total_timesteps=3072)
    assert model.num_timesteps >= 3072
    obs = env.reset()
    actions, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[np.arange(16), actions].all()


# ---- seeding ---------------------------------------------------------------------------------------------------------


def test_seeding_is_numpys() -> None:
    """The vector engine's generator rows are numpy's PCG64(SeedSequence(seed)) states and the games' seeds numpy's
    SeedSequence spawns, seed for seed, small and huge seeds alike."""
    from yacht_tools.seeds import game_seed, game_seeds

    rng = np.random.default_rng(7)
    seeds = [0, 1, 2**32 - 1, 2**32, 2**64 - 1, 2**64, 10**30, *(int(x) for x in rng.integers(0, 2**63, 300))]
    want = np.array([PCG.state_row(np.random.PCG64(np.random.SeedSequence(s))) for s in seeds])
    np.testing.assert_array_equal(PCG.seed_states(seeds), want)
    for s in (0, 3, 2**40 + 5, 10**25):
        keys = [0, 1, 2, 1000, 2**32, 2**45 + 1]
        want = [int(np.random.SeedSequence(s, spawn_key=(k,)).generate_state(1, np.uint64)[0]) for k in keys]
        assert [game_seed(s, k) for k in keys] == want
        assert game_seeds(s, 0, 3) == want[:3]
