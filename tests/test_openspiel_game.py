"""Every rule set as an OpenSpiel game (yacht_env.openspiel_game), checked by OpenSpiel's own tests and bots, held
to our environment's scores, and to OpenSpiel's built-in ``yacht`` on Knizia's rules."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import yacht_env.openspiel_game  # noqa: E402,F401  (registers "yacht_env")
from yacht_env import dice as D  # noqa: E402
from yacht_env.chance import roll_outcomes  # noqa: E402
from yacht_env.env import YachtEnv  # noqa: E402
from yacht_env.rules import RULESETS, get_rules  # noqa: E402


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(Exception, match="players must be an int in 1..8"):
        pyspiel.load_game("yacht_env", {"players": 9})
    with pytest.raises(Exception, match="unknown rules"):
        pyspiel.load_game("yacht_env", {"rules": "chess"})


def _play_random(state, rng: random.Random):
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_chance_nodes_carry_the_dice_models_probabilities() -> None:
    game = pyspiel.load_game("yacht_env", {"rules": "yahtzee"})
    state = game.new_initial_state()
    first = dict(state.chance_outcomes())
    assert len(first) == 252 and sum(first.values()) == pytest.approx(1.0)
    assert first[D.hand_index((6, 6, 6, 6, 6))] == pytest.approx(6 ** -5)
    state.apply_action(D.hand_index((1, 2, 3, 5, 6)))
    state.apply_action(0b00111)  # keep 1 2 3
    got = dict(state.chance_outcomes())
    want = {D.hand_index(o.dice): o.probability for o in roll_outcomes(state.cards[0], 0b00111)}
    assert got == pytest.approx(want) and len(got) == 21


@pytest.mark.parametrize("rules", ["yacht", "yahtzee", "yatzy"])
def test_lock_step_with_the_environment(rules: str) -> None:
    """The same dice and moves in both: the same legal actions, rewards, observations and final score."""
    env = YachtEnv(rules)
    obs, info = env.reset(seed=11)
    game = pyspiel.load_game("yacht_env", {"rules": rules})
    state = game.new_initial_state()
    state.apply_action(D.hand_index(env.unwrapped.state.dice))
    rng = np.random.default_rng(5)
    done = False
    while not done:
        assert state.legal_actions() == np.flatnonzero(info["action_mask"]).tolist()
        np.testing.assert_array_equal(np.asarray(state.observation_tensor(0), np.float32), obs)
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, done, _, info = env.step(a)
        state.apply_action(a)
        assert state.rewards() == [reward]
        if state.is_chance_node():
            state.apply_action(D.hand_index(env.unwrapped.state.dice))
    assert state.is_terminal() and state.returns() == [info["final_score"]]


def test_several_players_win_draw_or_lose() -> None:
    game = pyspiel.load_game("yacht_env", {"rules": "yacht", "players": 3})
    for seed in range(4):
        state = _play_random(game.new_initial_state(), random.Random(seed))
        totals = [c.total for c in state.cards]
        top = [t == max(totals) for t in totals]
        want = [(1.0 if sum(top) == 1 else 0.0) if t else -1.0 for t in top]
        assert state.returns() == want
    two = pyspiel.load_game("yacht_env", {"rules": "yacht", "players": 2})
    assert two.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert sum(_play_random(two.new_initial_state(), random.Random(1)).returns()) == 0


def test_registered_rules_play_too() -> None:
    from yacht_env.rules import YACHT, RuleSet, register_rules

    name = "openspiel-upper-only"
    rs = RULESETS.get(name) or register_rules(RuleSet(name, "Upper boxes", YACHT.categories[:6]))
    game = pyspiel.load_game("yacht_env", {"rules": rs.name, "players": 2})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_an_openspiel_mcts_bot_plays_whole_games() -> None:
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("yacht_env", {"rules": "yacht", "players": 2})
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=4, evaluator=evaluator,
                       random_state=np.random.RandomState(1))
    rng = random.Random(2)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        elif state.current_player() == 0:
            state.apply_action(bot.step(state))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert all(c.is_over for c in state.cards) and sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


_BUILT_IN = {"Ones": "ones", "Twos": "twos", "Threes": "threes", "Fours": "fours", "Fives": "fives",
             "Sixes": "sixes", "Chance": "choice", "4Kind": "four_of_a_kind", "Full": "full_house",
             "SmStr": "little_straight", "LgStr": "big_straight", "Yacht": "yacht"}


def test_knizia_scores_agree_with_openspiels_built_in_yacht() -> None:
    """OpenSpiel's own ``yacht`` (Knizia's rules, two players): every box it fills holds our Knizia score of the
    dice it was filled with, and the winner is ours."""
    rs = get_rules("knizia")
    game = pyspiel.load_game("yacht")
    rng = random.Random(0)
    checked = 0
    for _ in range(20):
        state = game.new_initial_state()
        expected: list[dict[str, int]] = [{}, {}]
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            a = rng.choice(state.legal_actions())
            if a >= 32:
                text = str(state)
                player = int(text.split("Turn player: ")[1].split("\n")[0])
                dice = [int(f) for f in text.split("Dice: ")[1].split("\n")[0].split()]
                label = state.action_to_string(a)
                box = next(v for k, v in _BUILT_IN.items() if label.endswith(_long(k)))
                expected[player][box] = int(rs.score_table[D.hand_index(dice), rs.category_index(box)])
            state.apply_action(a)
        cards = _cards(str(state))
        for p in range(2):
            assert cards[p] == expected[p]
            checked += len(cards[p])
        totals = [sum(c.values()) for c in cards]
        assert state.returns() == ([0.0, 0.0] if totals[0] == totals[1] else
                                   [1.0, -1.0] if totals[0] > totals[1] else [-1.0, 1.0])
    assert checked == 20 * 2 * 12


def _long(short: str) -> str:
    return {"Chance": "Chance", "4Kind": "Four of a Kind", "Full": "Full House", "SmStr": "Small Straight",
            "LgStr": "Large Straight"}.get(short, short)


def _cards(text: str) -> list[dict[str, int]]:
    """Each player's filled boxes from the built-in game's text, by our box ids."""
    cards: list[dict[str, int]] = []
    for line in text.splitlines():
        if line.startswith("Player "):
            cards.append({})
        elif line.startswith("  ") and ":" in line and cards:
            k, v = line.strip().split(":")
            cards[-1][_BUILT_IN[k]] = int(v)
    return cards
