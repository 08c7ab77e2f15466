"""The built-in agents (random, greedy, optimal) and the loader that makes them from a name."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from yacht_agents.base import Agent
from yacht_agents.greedy import GreedyAgent
from yacht_agents.loader import AGENT_FACTORIES, load_agent, register_agent
from yacht_agents.random_agent import RandomAgent
from yacht_env import dice as D
from yacht_env.actions import NUM_KEEP_ACTIONS, action_mask, num_actions
from yacht_env.env import YachtEnv
from yacht_env.rules import RULESETS
from yacht_env.state import parse

RULE_NAMES = list(RULESETS)


def solver_available() -> bool:
    try:
        from yacht_solver import solve  # noqa: F401
    except ImportError:
        return False
    return True


needs_solver = pytest.mark.skipif(not solver_available(), reason="yacht_solver is not available")


def play_env_game(agent: Agent, rules: str, seed: int) -> float:
    """One game through the real environment with strict=True, which raises on any illegal action."""
    env = YachtEnv(rules, strict=True)
    obs, info = env.reset(seed=seed)
    agent.seed(seed)
    total = 0.0
    while True:
        mask = env.action_masks()
        a = agent.act(obs, mask, env.state)
        assert mask[a], f"{agent.name} chose illegal action {a} in {env.state}"
        obs, r, term, trunc, info = env.step(a)
        total += r
        if term or trunc:
            assert term and info["final_score"] == total
            return total


# ---- random -----------------------------------------------------------------------------------------------------


def test_random_batch_is_uniform_over_legal_actions() -> None:
    agent = RandomAgent("yacht", seed=1)
    mask = np.zeros(num_actions("yacht"), dtype=bool)
    legal = [0, 5, 17, 32, 40]
    mask[legal] = True
    picks = agent.act_batch(np.zeros((20000, 0)), np.tile(mask, (20000, 1)))
    assert set(picks.tolist()) == set(legal)
    counts = np.bincount(picks, minlength=mask.size)[legal]
    assert np.all(np.abs(counts / 20000 - 0.2) < 0.015)
    for _ in range(50):
        assert mask[agent.act(np.zeros(0), mask)]


def test_random_is_reproducible_for_a_seed() -> None:
    masks = np.random.default_rng(0).random((50, num_actions("yahtzee"))) < 0.3
    masks[:, 40] = True
    a = RandomAgent("yahtzee", seed=7).act_batch(np.zeros((50, 0)), masks)
    b = RandomAgent("yahtzee", seed=7).act_batch(np.zeros((50, 0)), masks)
    assert np.array_equal(a, b) and masks[np.arange(50), a].all()


def test_random_rejects_empty_mask() -> None:
    with pytest.raises(ValueError, match="no legal action"):
        RandomAgent("yacht", seed=0).act(np.zeros(0), np.zeros(44, dtype=bool))


# ---- greedy -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "notation, expected",
    [
        ("yacht | dice 6 6 6 6 6 | rolls 0 | filled -", "score yacht"),
        ("yacht | dice 1 2 3 4 5 | rolls 0 | filled -", "score little_straight"),
        ("yacht | dice 1 2 3 4 5 | rolls 2 | filled -", "score little_straight"),  # 30 now beats any reroll
        ("yacht | dice 1 1 3 4 6 | rolls 0 | filled ones,twos,threes,fours,fives,sixes,full_house,four_of_a_kind,"
         "little_straight,big_straight,choice", "score yacht"),  # the only open box, 0 points
        ("yacht | dice 1 1 2 5 6 | rolls 0 | filled -", "score choice"),
        ("yahtzee | dice 2 3 4 5 5 | rolls 0 | filled -", "score small_straight"),
        # forced Joker: five 4s with the Yahtzee box at 50 and Fours open must go to Fours (20 + 100 bonus)
        ("yahtzee | dice 4 4 4 4 4 | rolls 0 | filled yahtzee=50", "score fours"),
        # Fours filled: full value in a lower box; Large Straight 40 is the most
        ("yahtzee | dice 4 4 4 4 4 | rolls 0 | filled yahtzee=50,fours=12", "score large_straight"),
        # Yatzy: 6 6 5 5 1 is two pairs (22) against a pair of sixes (12); 1-2-3-4-5 is the 15 of Small Straight
        ("yatzy | dice 1 5 5 6 6 | rolls 0 | filled chance=20", "score two_pairs"),
        ("yatzy | dice 1 2 3 4 5 | rolls 0 | filled -", "score small_straight"),
        # Yatzy's upper bonus is 50: three 4s reaching 63 beat Chance and Three of a Kind
        ("yatzy | dice 4 4 4 5 6 | rolls 0 | filled ones=3,twos=6,threes=9,fives=15,sixes=18", "score fours"),
        # Knizia, Yacht filled: five 6s are 30 in Sixes, Full House, Four of a Kind and Choice; ties go to the first
        ("knizia | dice 6 6 6 6 6 | rolls 0 | filled yacht=0", "score sixes"),
    ],
)
def test_greedy_score_decisions(notation: str, expected: str) -> None:
    from yacht_env.actions import describe_action

    st = parse(notation)
    agent = GreedyAgent(st.rules)
    assert describe_action(agent.act(np.zeros(0), action_mask(st), st), st) == expected


def test_greedy_keeps_four_sixes() -> None:
    st = parse("yacht | dice 1 6 6 6 6 | rolls 2 | filled -")
    a = GreedyAgent("yacht").act(np.zeros(0), action_mask(st), st)
    assert D.pattern_faces(st.dice, a) == (6, 6, 6, 6)


def test_greedy_upper_bonus_counts_as_points_now() -> None:
    # three 5s in Fives reach 63 (48 + 15) and earn the 35 bonus now: 50 beats Three of a Kind or Chance (18)
    st = parse("yahtzee | dice 1 2 5 5 5 | rolls 0 | filled ones=3,twos=6,threes=9,fours=12,sixes=18")
    agent = GreedyAgent("yahtzee")
    a = agent.act(np.zeros(0), action_mask(st), st)
    assert a == NUM_KEEP_ACTIONS + 4


@pytest.mark.parametrize("rules", ["yacht", "yahtzee", "yatzy"])
def test_greedy_keep_values_match_enumeration(rules: str) -> None:
    """K1 (one roll left) equals a brute-force enumeration of every reroll, scored by GameState.points."""
    base = {"yacht": "filled ones=2,full_house=0,choice=20",
            "yahtzee": "filled ones=3,twos=6,threes=9,fours=12,yahtzee=50",
            "yatzy": "filled ones=3,twos=6,threes=9,fours=12,one_pair=8"}[rules]
    st = parse(f"{rules} | dice 1 3 3 5 6 | rolls 1 | {base}")
    agent = GreedyAgent(rules)
    turn = agent.turn(st)
    v0, k1 = turn.G.max(axis=1), turn.keep1[:, 0]
    for pattern in (0, 0b00110, 0b11000, 0b01111):
        kept = D.pattern_faces(st.dice, pattern)
        n = D.NUM_DICE - len(kept)
        total = 0.0
        for roll in itertools.product(range(1, 7), repeat=n):
            nxt = parse(f"{rules} | dice {' '.join(map(str, kept + roll))} | rolls 0 | {base}")
            total += max(nxt.points(c) for c in nxt.legal_categories())
        assert k1[D.PATTERN_KEEP[st.hand, pattern]] == pytest.approx(total / 6**n, abs=1e-9)
    assert v0[st.hand] == max(st.points(c) for c in st.legal_categories())


def test_greedy_needs_state() -> None:
    with pytest.raises(ValueError, match="GameState"):
        GreedyAgent("yacht").act(np.zeros(0), np.ones(44, dtype=bool))


# ---- legality through the real environment ----------------------------------------------------------------------


@pytest.mark.parametrize("rules", RULE_NAMES)
@pytest.mark.parametrize("name", ["random", "greedy"])
def test_agents_play_only_legal_actions(name: str, rules: str) -> None:
    agent = load_agent(name, rules, seed=3)
    for seed in range(15):
        play_env_game(agent, rules, seed)


@needs_solver
@pytest.mark.parametrize("rules", RULE_NAMES)
def test_optimal_plays_only_legal_actions(rules: str) -> None:
    agent = load_agent("optimal", rules)
    for seed in range(3):
        play_env_game(agent, rules, seed)


@needs_solver
def test_optimal_plays_only_legal_actions_and_is_deterministic() -> None:
    agent = load_agent("optimal", "yacht")
    scores = [play_env_game(agent, "yacht", seed) for seed in range(10)]
    assert scores == [play_env_game(agent, "yacht", seed) for seed in range(10)]


# ---- loader -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name, cls", [("random", RandomAgent), ("greedy", GreedyAgent), (" Greedy ", GreedyAgent)])
def test_load_agent_names(name: str, cls: type) -> None:
    agent = load_agent(name, "yahtzee", seed=0)
    assert isinstance(agent, cls) and agent.rules.name == "yahtzee"


@needs_solver
def test_load_optimal() -> None:
    from yacht_agents.optimal import OptimalAgent

    assert isinstance(load_agent("optimal", "yacht"), OptimalAgent)


def test_load_agent_unknown_name_lists_accepted() -> None:
    with pytest.raises(ValueError, match=r"unknown agent 'nope'; accepted: random, greedy, optimal"):
        load_agent("nope", "yacht")
    with pytest.raises(ValueError, match="non-empty"):
        load_agent("", "yacht")


def test_load_agent_bad_rules() -> None:
    with pytest.raises(ValueError, match="unknown rules 'chess'; accepted: yacht, yahtzee"):
        load_agent("random", "chess")


def test_load_agent_model_files(tmp_path) -> None:
    with pytest.raises(ValueError, match="model file not found"):
        load_agent(str(tmp_path / "missing.zip"), "yacht")
    for name, kind in (("model.pt", "TD model"), ("model.zip", "stable-baselines3 model")):
        model = tmp_path / name
        model.write_bytes(b"not a model")
        with pytest.raises(ValueError, match=f"cannot load .*{name}' as a {kind}"):
            load_agent(str(model), "yacht")
    other = tmp_path / "model.onnx"
    other.write_bytes(b"")
    with pytest.raises(ValueError, match="unknown agent"):
        load_agent(str(other), "yacht")


def test_register_agent_extension_point() -> None:
    register_agent("always-random", lambda rules, seed: RandomAgent(rules, seed=seed))
    try:
        assert isinstance(load_agent("always-random", "yacht", 0), RandomAgent)
    finally:
        del AGENT_FACTORIES["always-random"]
