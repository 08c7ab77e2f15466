"""The multiplayer game: turn order, rewards, winners and ties, observation, render (PettingZoo's own API and
seed tests are in tests/test_api_contract.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from yacht_env import multiplayer as MP  # noqa: E402
from yacht_env import observation as O  # noqa: E402
from yacht_env.actions import NUM_KEEP_ACTIONS, action_mask  # noqa: E402
from yacht_env.rules import get_rules  # noqa: E402
from yacht_env.state import GameState  # noqa: E402


def _play_random(e, seed: int, pick: np.random.Generator) -> tuple[list, dict[str, float], list[str]]:
    """Play a whole game with random legal actions; return the trace, the rewards summed per agent and the order
    of the agents that acted."""
    e.reset(seed=seed)
    trace, summed, order = [], {a: 0.0 for a in e.possible_agents}, []
    for agent in e.agent_iter():
        obs, rew, term, trunc, info = e.last()
        summed[agent] += rew
        trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), rew, term))
        if term or trunc:
            e.step(None)
            continue
        order.append(agent)
        e.step(int(pick.choice(np.flatnonzero(obs["action_mask"]))))
    return trace, summed, order


@pytest.mark.parametrize("num_players,rules", [(2, "yacht"), (3, "yahtzee"), (2, "yatzy")])
def test_same_seed_and_actions_same_game_and_core_agrees(num_players: int, rules: str) -> None:
    e1, e2 = MP.env(num_players, rules), MP.env(num_players, rules)
    t1, _, _ = _play_random(e1, 7, np.random.default_rng(1))
    t2, _, _ = _play_random(e2, 7, np.random.default_rng(1))
    assert t1 == t2
    t3, _, _ = _play_random(e2, 8, np.random.default_rng(1))
    assert t1 != t3
    # the game logic without the environment, with the generator the environment installs, plays the same game
    e = MP.raw_env(num_players, rules)
    e.reset(seed=11)
    rng = np.random.default_rng(11)
    states = MP.new_seating(rules, num_players, rng)
    pick = np.random.default_rng(2)
    while e.agents and not e.terminations[e.agent_selection]:
        assert e.states == states
        seat = MP.seat_to_act(states)
        assert e.agent_selection == f"player_{seat}"
        a = int(pick.choice(np.flatnonzero(action_mask(states[seat]))))
        e.step(a)
        states, acted, _ = MP.play(states, a, rng)
        assert acted == seat
    assert e.states == states and MP.is_over(states)


@pytest.mark.parametrize("num_players,rules", [(2, "yacht"), (4, "yahtzee")])
def test_turns_rotate_and_points_sum_to_final_scores(num_players: int, rules: str) -> None:
    e = MP.env(num_players, rules, reward="points")
    for seed in range(3):
        e.reset(seed=seed)
        summed = {a: 0.0 for a in e.possible_agents}
        expected_seat, scores_seen = 0, 0
        while True:
            agent = e.agent_selection
            obs, rew, term, trunc, info = e.last()
            if term:
                break
            summed[agent] += rew
            assert agent == f"player_{expected_seat}"
            st = e.unwrapped.state_of(agent)
            assert st.turn == scores_seen // num_players
            a = int(np.flatnonzero(obs["action_mask"])[0])  # keeps first: the turn uses its rolls
            e.step(a)
            if a >= NUM_KEEP_ACTIONS:
                scores_seen += 1
                expected_seat = (expected_seat + 1) % num_players
        assert scores_seen == num_players * get_rules(rules).num_categories
        infos = dict(e.infos)
        for _ in list(e.agents):
            _, rew, term, _, _ = e.last()
            summed[e.agent_selection] += rew
            assert term
            e.step(None)
        assert not e.agents
        for agent, s in summed.items():
            assert s == infos[agent]["final_score"] == infos[agent]["scorecard"]["total"]


def test_random_games_end_with_consistent_outcomes() -> None:
    pick = np.random.default_rng(5)
    for n, rules in [(2, "yacht"), (3, "yahtzee"), (6, "yacht")]:
        e = MP.env(n, rules, reward="win")
        for seed in range(4):
            _, summed, order = _play_random(e, seed, pick)
            assert order[0] == "player_0"
            totals = [e.unwrapped.state_of(a).total for a in e.possible_agents]
            assert [summed[a] for a in e.possible_agents] == MP.outcome(totals)


def test_outcome_shares_and_ranks() -> None:
    assert MP.outcome([120, 100]) == [1, -1]
    assert MP.outcome([100, 100]) == [0, 0]
    assert MP.outcome([90, 100, 100]) == [-1, 0, 0]
    assert MP.outcome([100, 100, 100, 100]) == [0, 0, 0, 0]
    assert MP.outcome([80, 80, 99, 10]) == [-1, -1, 1, -1]
    assert MP.win_shares([100, 100]) == [0.5, 0.5]
    assert MP.win_shares([90, 100, 100, 100]) == [0.0, 1 / 3, 1 / 3, 1 / 3]
    assert MP.win_shares([5, 7, 1]) == [0.0, 1.0, 0.0]
    assert MP.ranks([90, 100, 100, 50]) == [3, 1, 1, 4]


def _card(scores: dict[str, int], rules: str = "yacht", dice: tuple[int, ...] = (1, 2, 3, 4, 6),
          rolls_left: int = 0) -> GameState:
    ids = get_rules(rules).category_ids
    return GameState(rules, dice, rolls_left, tuple(scores.get(c) for c in ids))


FULL = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18, "full_house": 0,
        "four_of_a_kind": 0, "little_straight": 0, "big_straight": 0, "choice": 20, "yacht": 0}  # total 83
FULL_BUT_CHOICE = {k: v for k, v in FULL.items() if k != "choice"}  # 63, then Choice with 4 4 4 4 4 = 20 -> 83


@pytest.mark.parametrize("reward", ["win", "points"])
def test_forced_two_player_tie_is_a_draw(reward: str) -> None:
    e = MP.env(2, "yacht", reward=reward)
    e.reset(seed=0, options={"states": [_card(FULL), _card(FULL_BUT_CHOICE, dice=(4, 4, 4, 4, 4))]})
    assert e.agent_selection == "player_1"  # player 0 is done: the seat to act follows from the scorecards
    obs, *_ = e.last()
    assert np.flatnonzero(obs["action_mask"]).tolist() == [NUM_KEEP_ACTIONS + 10]  # only Choice is open
    e.step(NUM_KEEP_ACTIONS + 10)
    assert all(e.terminations.values())
    assert [e.infos[a]["outcome"] for a in e.possible_agents] == ["draw", "draw"]
    assert [e.infos[a]["rank"] for a in e.possible_agents] == [1, 1]
    assert e.infos["player_0"]["final_scores"] == {"player_0": 83, "player_1": 83}
    expected = {"win": {"player_0": 0.0, "player_1": 0.0}, "points": {"player_0": 0.0, "player_1": 20.0}}[reward]
    got = {}
    for _ in list(e.agents):
        _, rew, term, _, _ = e.last()
        got[e.agent_selection] = rew
        e.step(None)
    assert got == expected


@pytest.mark.parametrize("dice,outcomes", [
    ((4, 4, 4, 4, 4), ["draw", "loss", "draw"]),  # 83, 70, 83: two share the top, the third loses
    ((6, 6, 6, 6, 6), ["loss", "loss", "win"]),  # 93 beats 83
    ((1, 1, 1, 1, 1), ["win", "loss", "loss"]),  # 68 below 83 and 70
])
def test_three_players_win_draw_loss(dice: tuple[int, ...], outcomes: list[str]) -> None:
    e = MP.env(3, "yacht", reward="win")
    low = dict(FULL, choice=7)  # 70
    e.reset(options={"states": [_card(FULL), _card(low), _card(FULL_BUT_CHOICE, dice=dice)]})
    assert e.agent_selection == "player_2"
    e.step(NUM_KEEP_ACTIONS + 10)
    assert [e.infos[a]["outcome"] for a in e.possible_agents] == outcomes
    assert [e.rewards[a] for a in e.possible_agents] == [{"win": 1.0, "draw": 0.0, "loss": -1.0}[o] for o in outcomes]
    text = MP.render_seating(e.unwrapped.states)
    assert ("Tie at 83: " if outcomes.count("draw") else "Winner: ") in text


def test_observation_layout_and_decode() -> None:
    rules, n = "yahtzee", 3
    lay = MP.layout(rules, n)
    assert lay["dice_counts"] == O.layout(rules)["dice_counts"]  # the single-player observation comes first
    assert lay["total"].start == O.size(rules)
    assert MP.size(rules, n) == O.size(rules) + 3 + n + (n - 1) * (1 + 13 + 1 + 3)
    ids = get_rules(rules).category_ids
    p0 = GameState(rules, (2, 2, 3, 5, 6), 1, tuple([3, None, 12] + [None] * 8 + [50, None]))  # 65
    p1 = GameState(rules, (1, 1, 1, 1, 1), 2, tuple([3, 8] + [None] * 11))  # 11
    p2 = GameState(rules, (1, 2, 3, 4, 5), 2, tuple([None] * 11 + [0, 25]))  # 25
    states = (p0, p1, p2)
    d = MP.decode(MP.encode(states, 1), rules, n)
    assert d["dice"] == [1, 1, 1, 1, 1] and d["rolls_left"] == 2
    assert d["total"] == 11 and d["lead"] == 11 - 65 and d["rank"] == 2 and d["seat"] == 1
    first, second = d["opponents"]  # in playing order after seat 1: seat 2, then seat 0
    assert first == {"total": 25, "open": list(ids[:11]), "upper_total_capped": 0, "yahtzee_box": 0}
    assert second["total"] == 65 and second["yahtzee_box"] == 50 and second["upper_total_capped"] == 15
    assert second["open"] == [c for c in ids if c not in ("ones", "threes", "yahtzee")]
    d0 = MP.decode(MP.encode(states, 0), rules, n)
    assert d0["lead"] == 40 and d0["rank"] == 0 and d0["seat"] == 0
    low, high = MP.bounds(rules, n)
    for seat in range(n):
        obs = MP.encode(states, seat)
        assert obs.dtype == np.float32 and np.all(obs >= low) and np.all(obs <= high)
        np.testing.assert_array_equal(obs[: O.size(rules)], O.encode(states[seat]))
    with pytest.raises(ValueError, match="shape"):
        MP.decode(np.zeros(3), rules, n)


def test_max_total() -> None:
    assert MP.max_total("yacht") == 297
    assert MP.max_total("yahtzee") == 1575
    # Yatzy: 105 upper + 50 bonus + 12 + 22 + 18 + 24 + 15 + 20 + 28 + 30 + 50
    assert MP.max_total("yatzy") == 374
    assert MP.max_total("knizia") == 105 + 30 + 30 + 30 + 30 + 30 + 50  # Full House and Four of a Kind: 6 6 6 6 6


def test_single_player_agents_play_through_state_of() -> None:
    from yacht_agents.greedy import GreedyAgent
    from yacht_agents.random_agent import RandomAgent

    e = MP.env(3, "yahtzee", reward="win")
    players = {"player_0": GreedyAgent("yahtzee"), "player_1": RandomAgent("yahtzee", seed=1),
               "player_2": GreedyAgent("yahtzee")}
    e.reset(seed=3)
    for agent in e.agent_iter():
        obs, _, term, _, _ = e.last()
        if term:
            e.step(None)
            continue
        raw = e.unwrapped
        st = raw.state_of(agent)
        mask = raw.action_masks(agent)
        np.testing.assert_array_equal(mask, obs["action_mask"].astype(bool))
        np.testing.assert_array_equal(mask, action_mask(st))
        assert not raw.action_masks([a for a in e.possible_agents if a != agent][0]).any()  # off turn: nothing
        e.step(players[agent].act(raw.single_observation(agent), mask, st))
    totals = e.unwrapped.totals()
    assert totals["player_1"] < min(totals["player_0"], totals["player_2"])


def test_bad_arguments_and_actions() -> None:
    for n in (1, 9, "2", 2.0, True):
        with pytest.raises(ValueError, match="num_players"):
            MP.env(num_players=n)
    with pytest.raises(ValueError, match="reward"):
        MP.env(reward="score")
    with pytest.raises(ValueError, match="rules"):
        MP.env(rules="poker")
    with pytest.raises(ValueError, match="render_mode"):
        MP.env(render_mode="rgb_array")
    e = MP.env(2)
    e.reset(seed=0)
    with pytest.raises(ValueError, match="outside the action space"):
        e.step(99)
    with pytest.raises(ValueError, match="player_0: action 31 .* wastes a roll"):
        e.step(31)
    with pytest.raises(ValueError, match="list of 2"):
        e.reset(options={"states": [_card(FULL)]})
    with pytest.raises(ValueError, match="finished game"):
        e.reset(options={"states": [_card(FULL), _card(FULL)]})
    with pytest.raises(ValueError, match="yacht GameStates"):
        e.reset(options={"states": [_card(FULL), GameState("yahtzee", (1, 2, 3, 4, 5), 2, (None,) * 13)]})
    with pytest.raises(ValueError, match=r"seat 0 is between its turns .* holds dice .*\('dice -'"):
        e.reset(options={"states": ["yacht | dice 1 2 3 4 5 | rolls 0 | filled choice=20", "dice 6 6 6 6 6 | rolls 2"]})
    e.reset(options={"states": ["yacht | dice - | rolls 3 | filled choice=20", "dice 6 6 6 6 6 | rolls 2"]})
    assert e.agent_selection == "player_1"  # player_0 has filled one box more
    e.step(NUM_KEEP_ACTIONS + 11)  # player_1 scores Yacht: 50
    assert e.agent_selection == "player_0" and e.unwrapped.state_of("player_1").scores[11] == 50
    mine = e.unwrapped.state_of("player_0")
    assert mine.rolls_left == 2 and len(mine.dice) == 5  # its first roll, made as its turn began
    assert e.unwrapped.state_of("player_1").awaits_roll  # and player_1's next one is not made yet
    with pytest.raises(ValueError, match="'choice' is already filled"):
        e.step(NUM_KEEP_ACTIONS + 10)
    e.step(NUM_KEEP_ACTIONS + 9)  # Big Straight
    assert e.agent_selection == "player_1" and e.unwrapped.state_of("player_0").scores[9] == mine.points(9)
    e.reset(seed=4, options={"states": ["yacht | dice - | rolls 3 | filled -"] * 2})  # the seat to act rolls
    assert e.unwrapped.state_of("player_0").rolls_left == 2 and e.unwrapped.state_of("player_1").awaits_roll


def test_illegal_reward_wrapper_ends_the_game() -> None:
    e = MP.env(3, illegal_reward=-5)
    e.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo warns on the illegal move
        e.step(31)
    assert all(e.terminations.values()) or all(e.truncations.values())
    assert e.rewards["player_0"] == -5.0


def test_render(capsys: pytest.CaptureFixture[str]) -> None:
    e = MP.env(3, "yahtzee", render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert isinstance(text, str)
    for name in ("*player_0", "player_1", "player_2", "Total", "Upper bonus", "Yahtzee bonus", "Dice"):
        assert name in text
    h = MP.env(2, render_mode="human")
    h.reset(seed=0)
    assert "player_1" in capsys.readouterr().out
    assert h.render() is None
    n = MP.env(2)
    n.reset(seed=0)
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert n.render() is None


def test_step_for_an_agent_not_to_act_before_reset_or_after_the_end_is_refused() -> None:
    """Setting agent_selection to the other player filled player_0's box and gave player_1 the points; a step
    after every agent had left was ignored in silence; a step before reset was an AttributeError."""
    e = MP.raw_env(2, "yacht")
    with pytest.raises(ValueError, match=r"^step\(\) before reset\(\): call reset\(\) to start a game$"):
        e.step(32)
    e.reset(seed=0)
    before = e.states
    e.agent_selection = "player_1"
    with pytest.raises(ValueError, match=r"^agent_selection is 'player_1', but it is the turn of 'player_0': "
                                         r"the environment chooses the agent to act"):
        e.step(32)
    assert e.states == before and e.rewards == {"player_0": 0.0, "player_1": 0.0}
    e.agent_selection = "player_0"
    while e.agents:
        agent = e.agent_selection
        if e.terminations[agent]:
            e.step(None)
        else:
            e.step(int(np.flatnonzero(e.action_masks())[-1]))
    with pytest.raises(ValueError, match=r"^step\(\) after the game ended and every agent left: call reset\(\)"):
        e.step(None)


def test_a_seat_rolls_at_the_start_of_its_own_turn() -> None:
    """Dice are dealt at the start of each seat's turn, never before: after the second player scores, the chance
    outcome that follows is the first player's own next roll (a different draw, different dice for player 0, the
    same for player 1), and in a new game only seat 0 has rolled."""
    seating = MP.new_seating("yacht", 2, np.random.default_rng(0))
    assert len(seating[0].dice) == 5 and seating[1].awaits_roll
    seating, _, _ = MP.play(seating, NUM_KEEP_ACTIONS + 11, np.random.default_rng(1))  # seat 0 scores Yacht
    assert seating[0].awaits_roll and len(seating[1].dice) == 5 and seating[1].rolls_left == 2
    box = NUM_KEEP_ACTIONS + seating[1].legal_categories()[0]
    after = [MP.play(seating, box, np.random.default_rng(s))[0] for s in range(6)]  # seat 1 scores; then the dice
    assert all(t[1] == after[0][1] and t[1].awaits_roll for t in after)  # the scorer's state: no dice, whatever roll
    assert len({t[0].dice for t in after}) > 1  # the roll that follows is seat 0's own
    assert all(t[0].rolls_left == 2 and t[0].scores == seating[0].scores for t in after)


@pytest.mark.parametrize("num_players", [2, 3])
def test_no_seat_holds_dice_between_its_turns(num_players: int) -> None:
    """At every decision of a PettingZoo game, every seat but the one to act awaits its roll (or has finished), and
    its observation, seen from any seat, shows no dice."""
    e = MP.env(num_players, "yahtzee")
    e.reset(seed=5)
    pick = np.random.default_rng(3)
    hand = slice(0, O.HAND_PART)
    decisions = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        for other in e.possible_agents:
            st = e.unwrapped.state_of(other)
            if other != agent and not st.is_over:
                assert st.awaits_roll
                assert not e.observe(other)["observation"][hand].any()
        assert e.observe(agent)["observation"][hand].any()
        e.step(int(pick.choice(np.flatnonzero(obs["action_mask"]))))
        decisions += 1
    assert decisions >= num_players * 13


def test_a_table_of_one_rolls_as_the_single_player_game() -> None:
    """A one-seat game (evaluation plays them) draws the same dice as the single-player transitions: a score rolls
    the next turn at once, from the same draws."""
    from yacht_env.state import new_game, reroll_pattern, score_category, unrolled_game

    rng_a, rng_b, pick = np.random.default_rng(9), np.random.default_rng(9), np.random.default_rng(1)
    seating = MP.deal_turn((unrolled_game("yacht"),), rng_a)
    alone = new_game("yacht", rng_b)
    while not alone.is_over:
        assert seating == (alone,)
        a = int(pick.choice(np.flatnonzero(action_mask(alone))))
        seating = MP.play(seating, a, rng_a)[0]
        alone = reroll_pattern(alone, a, rng_b) if a < NUM_KEEP_ACTIONS else score_category(
            alone, a - NUM_KEEP_ACTIONS, rng_b)[0]
    assert seating == (alone,) and rng_a.bit_generator.state == rng_b.bit_generator.state


def test_a_step_after_every_agent_left_is_refused() -> None:
    """A finished agent steps None once (PettingZoo's dead step); a step once every agent has left is refused."""
    e = MP.env(2)
    e.reset(seed=2)
    pick = np.random.default_rng(0)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(pick.choice(np.flatnonzero(obs["action_mask"]))))
    assert e.agents == []
    for action in (None, 0):
        with pytest.raises(ValueError, match="every agent left: call reset"):
            e.step(action)
