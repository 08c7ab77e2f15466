"""Every rule set as an OpenSpiel game (yacht_env.openspiel_game), checked by OpenSpiel's own tests and bots, held
to our environment's scores, and to OpenSpiel's built-in ``yacht`` on Knizia's rules."""

from __future__ import annotations

import copy
import itertools
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
    game = pyspiel.load_game("yacht_env", {"rules": rules, "step_rewards": True})
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
        if state.is_chance_node():  # a score's points come with the next turn's roll, as in rl_environment's step
            assert state.rewards() == [0.0]
            state.apply_action(D.hand_index(env.unwrapped.state.dice))
        assert state.rewards() == [reward]
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
                expected[player][box] = int(rs.box_scores[D.hand_index(dice), rs.category_index(box)])
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


# ---- serialisation: the history only, nothing unpickled -----------------------------------------------------------


class _Payload:
    """A pickle that runs a command when unpickled (how a pickled ``__dict__`` line would run code)."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        import os

        return os.system, (f"touch {self.marker}",)


def _games():
    return [pyspiel.load_game("yacht_env", {"rules": r, "players": n}) for r, n in
            (("yacht", 1), ("yahtzee", 2), ("yatzy", 3))]


def _midgame(game, seed: int, stop: str):
    """A state of a random game: 'chance' (at a roll), 'decision', or 'terminal'."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    n = 0
    while not state.is_terminal():
        if stop == "chance" and state.is_chance_node() and n > 20:
            return state
        if stop == "decision" and not state.is_chance_node() and n > 25:
            return state
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        n += 1
    return state


def _same(a, b) -> None:
    assert a.history() == b.history() and str(a) == str(b) and a.current_player() == b.current_player()
    assert a.returns() == b.returns() and a.rewards() == b.rewards()
    if not a.is_terminal():
        assert a.legal_actions() == b.legal_actions() and a.chance_outcomes() == b.chance_outcomes()
        assert a.observation_tensor(0) == b.observation_tensor(0)


@pytest.mark.parametrize("stop", ["chance", "decision", "terminal"])
def test_states_round_trip_through_every_entry_point(stop: str) -> None:
    import pickle

    for game in _games():
        for state in (game.new_initial_state(), _midgame(game, 3, stop)):
            text = pyspiel.serialize_game_and_state(game, state)
            _same(state, pyspiel.deserialize_game_and_state(text)[1])
            _same(state, game.deserialize_state(state.serialize()))
            _same(state, pickle.loads(pickle.dumps(state)))
            _same(state, copy.deepcopy(state))
            _same(state, state.clone())
            if not state.is_terminal():
                a = state.legal_actions()[0]
                child, clone = state.child(a), state.clone()
                clone.apply_action(a)
                _same(child, clone)  # a clone made in C++ (child) plays on as the state does


def test_a_serialised_state_says_history_only() -> None:
    game = pyspiel.load_game("yacht_env", {"rules": "yacht", "players": 2})
    lines = _midgame(game, 1, "decision").serialize().split("\n")
    assert [x.split("=")[0] for x in lines] == ["history", "move_number", "__dict__"]
    import base64
    import pickle

    assert pickle.loads(base64.b64decode(lines[2].split("=", 1)[1])) == {"serialized_as": "history"}


def _tampered(game, new_dict_line: str | None = None, history: str | None = None) -> tuple[str, str]:
    state = _midgame(game, 2, "decision")
    text = pyspiel.serialize_game_and_state(game, state)
    head, _, body = text.partition("[State]\n")
    lines = body.split("\n")
    if new_dict_line is not None:
        lines[2] = new_dict_line
    if history is not None:
        lines[0] = "history=" + history
        lines[1] = f"move_number={len(history.split(','))}"
    return head + "[State]\n" + "\n".join(lines), "\n".join(lines)


def _one_line_error(fn, *args) -> str:
    with pytest.raises(Exception) as info:
        fn(*args)
    message = str(info.value)
    assert "\n" not in message.strip(), message
    return message


def test_a_pickle_in_a_serialisation_is_never_run(tmp_path) -> None:
    import base64
    import pickle

    marker = tmp_path / "ran"
    payloads = (_Payload(str(marker)), {"serialized_as": "history", "x": _Payload(str(marker))},
                {"cards": [_Payload(str(marker))]})
    for game, payload, protocol in itertools.product(_games(), payloads, (0, pickle.DEFAULT_PROTOCOL)):
        # protocols 0 and 4+: the GLOBAL and STACK_GLOBAL opcodes, the ways a pickle names code
        line = "__dict__=" + base64.b64encode(pickle.dumps(payload, protocol=protocol)).decode()
        full, state_text = _tampered(game, line)
        for fn, arg in ((pyspiel.deserialize_game_and_state, full), (game.deserialize_state, state_text),
                        (pyspiel.load_game(str(game)).deserialize_state, state_text)):
            message = _one_line_error(fn, arg)
            assert "history only" in message and "nothing was unpickled" in message, message
            assert not marker.exists()
    # the guard leaves the process's own pickles alone, before and after
    assert pickle.loads(pickle.dumps(np.arange(3))).tolist() == [0, 1, 2]
    game = pyspiel.load_game("yacht_env")
    game.new_initial_state()
    assert pickle.loads(pickle.dumps(np.arange(3))).tolist() == [0, 1, 2]


def test_other_content_and_illegal_histories_are_refused_in_one_line() -> None:
    import base64
    import pickle

    game = pyspiel.load_game("yacht_env", {"rules": "yacht", "players": 2})
    plain = "__dict__=" + base64.b64encode(pickle.dumps({"serialized_as": "history", "seat": 1})).decode()
    full, text = _tampered(game, plain)
    assert "refused the attribute 'seat'" in _one_line_error(pyspiel.deserialize_game_and_state, full)
    assert "history only" in _one_line_error(game.deserialize_state, text)
    # a history with an illegal action (a keep-all, a chance action that is no hand)
    for history in ("-1:5,0:31", "-1:252", "-1:-5", "-1:5,1:3", "-1:5,0:32,-1:5,1:32,-1:5,0:32"):
        full, text = _tampered(game, history=history)
        for fn, arg in ((pyspiel.deserialize_game_and_state, full), (game.deserialize_state, text)):
            message = _one_line_error(fn, arg)
            assert "not legal" in message or "not an outcome" in message or "is player" in message, message
    full, text = _tampered(game, history="-1:5")
    full = full.replace("move_number=1", "move_number=7")
    assert "move_number" in _one_line_error(pyspiel.deserialize_game_and_state, full)


# ---- illegal moves are refused before anything changes ------------------------------------------------------------


def _refused(state, action, match: str) -> None:
    before = (state.history(), str(state), state.returns(), state.rewards())
    with pytest.raises(ValueError, match=match) as info:
        state.apply_action(action)
    assert "\n" not in str(info.value)
    assert (state.history(), str(state), state.returns(), state.rewards()) == before


def test_every_action_outside_the_legal_or_chance_outcomes_is_refused() -> None:
    game = pyspiel.load_game("yacht_env", {"rules": "yacht", "players": 1})
    state = game.new_initial_state()
    for bad in (-5, 252, 10**6):
        _refused(state, bad, rf"chance action {bad} is not an outcome of this roll; accepted: a hand index in 0..251")
    state.apply_action(D.hand_index((5, 5, 5, 5, 5)))
    for bad in (-2, 31, 44, 10**6):
        _refused(state, bad, rf"action {bad} is not legal for player 0.*accepted: \[0, ")
    state.apply_action(32 + get_rules("yacht").category_index("yacht"))
    assert state.returns() == [0.0] and state.is_chance_node()
    state.apply_action(D.hand_index((5, 5, 5, 5, 5)))
    _refused(state, 32 + get_rules("yacht").category_index("yacht"), "'yacht' is already filled")
    state.apply_action(0b00011)  # keep two dice, roll three: 56 hands hold them
    _refused(state, D.hand_index((1, 1, 1, 1, 1)), "accepted: the indices of the 56 hands that hold the kept dice 5 5")


# ---- each seat's dice are rolled at its own turn ------------------------------------------------------------------


def test_each_seat_is_dealt_its_dice_when_its_turn_begins() -> None:
    game = pyspiel.load_game("yacht_env", {"rules": "yacht", "players": 2})
    size = game.observation_tensor_size() // 2 - 1
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 252
    assert all(c.awaits_roll for c in state.cards)
    state.apply_action(D.hand_index((1, 2, 3, 4, 6)))
    assert not state.cards[0].awaits_roll and state.cards[1].awaits_roll
    state.apply_action(32)  # p0 scores Ones: its turn ends, p1's first roll comes next
    assert state.cards[0].awaits_roll and state.is_chance_node() and state.seat == 1
    state.apply_action(D.hand_index((2, 2, 3, 4, 6)))
    before = np.asarray(state.observation_tensor(0))
    assert not before[2:2 + 39].any()  # p0's own card shows no dice between its turns
    state.apply_action(33)  # p1 scores Twos
    after = np.asarray(state.observation_tensor(0))
    mine, theirs = slice(2, 2 + size), slice(2 + size, None)
    np.testing.assert_array_equal(after[mine], before[mine])  # only p1's box (and the seat to move) changed
    assert (after[theirs] != before[theirs]).any() and state.is_chance_node() and state.seat == 0
    state.apply_action(D.hand_index((6, 6, 6, 6, 6)))  # the roll that follows is p0's own
    assert state.cards[0].dice == (6, 6, 6, 6, 6) and state.cards[1].awaits_roll
    rolled = np.asarray(state.observation_tensor(0))
    assert (rolled[2:2 + 39] != after[2:2 + 39]).any() and np.array_equal(rolled[theirs], after[theirs])


def test_alone_the_next_turns_roll_is_a_chance_node_of_the_same_seat() -> None:
    game = pyspiel.load_game("yacht_env", {"rules": "yahtzee"})
    state = game.new_initial_state()
    state.apply_action(D.hand_index((1, 2, 3, 4, 6)))
    state.apply_action(32)
    assert state.is_chance_node() and state.seat == 0 and state.cards[0].awaits_roll
    assert len(state.chance_outcomes()) == 252


# ---- rewards ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "step_rewards"), [(1, False), (1, True), (2, False), (3, False)])
def test_the_rewards_of_a_game_sum_to_its_returns(players: int, step_rewards: bool) -> None:
    game = pyspiel.load_game("yacht_env", {"rules": "yahtzee", "players": players, "step_rewards": step_rewards})
    want = pyspiel.GameType.RewardModel.REWARDS if step_rewards else pyspiel.GameType.RewardModel.TERMINAL
    assert game.get_type().reward_model == want
    for seed in range(3):
        rng = random.Random(seed)
        state = game.new_initial_state()
        total = np.zeros(players)
        while not state.is_terminal():
            chance = state.is_chance_node()
            if chance:
                deal = len(state.chance_outcomes()) == 252
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                if not (step_rewards and deal):  # a roll earns 0; with step_rewards a deal brings the score's points
                    assert state.rewards() == [0.0] * players
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            total += state.rewards()
            if not step_rewards and not state.is_terminal():
                assert state.returns() == [0.0] * players
        assert total.tolist() == state.returns()
        if players == 1:
            assert state.returns() == [float(state.cards[0].total)]


def test_step_rewards_is_for_one_player() -> None:
    with pytest.raises(Exception, match="step_rewards=True is for one player"):
        pyspiel.load_game("yacht_env", {"players": 2, "step_rewards": True})


def test_an_openspiel_mcts_bot_plays_a_one_player_game() -> None:
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("yacht_env", {"rules": "yacht", "players": 1})
    assert game.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL  # what MCTS and AlphaZero need
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=4, evaluator=evaluator,
                       random_state=np.random.RandomState(1))
    rng = random.Random(2)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(bot.step(state))
    assert state.cards[0].is_over and state.returns() == [float(state.cards[0].total)]


@pytest.mark.parametrize("players", [1, 2, 3])
def test_openspiels_own_checks_pass(players: int) -> None:
    game = pyspiel.load_game("yacht_env", {"rules": "yahtzee" if players < 3 else "yacht", "players": players})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    from open_spiel.python.algorithms import generate_playthrough

    text = generate_playthrough.playthrough(f"yacht_env(players={players},rules=yacht)", None, 3)
    assert "Returns" in text


def test_chance_outcomes_are_a_new_list_each_call() -> None:
    """OpenSpiel's MCTS shuffles the outcomes it is given: a shuffle must not reach the next call."""
    game = pyspiel.load_game("yacht_env", {"rules": "yacht"})
    state = game.new_initial_state()
    first = state.chance_outcomes()
    first.reverse()
    assert state.chance_outcomes()[0][0] == 0
    state.apply_action(D.hand_index((1, 2, 3, 4, 6)))
    state.apply_action(0b00111)
    keep = state.chance_outcomes()
    keep.reverse()
    assert state.chance_outcomes() == keep[::-1]


def test_the_search_bots_requirements_hold_for_one_and_two_players() -> None:
    """OpenSpiel's MCTS and AlphaZero (which takes two players only) check terminal rewards and sequential turns."""
    T = pyspiel.GameType
    for players in (1, 2):
        kind = pyspiel.load_game("yacht_env", {"rules": "yahtzee", "players": players}).get_type()
        assert kind.reward_model == T.RewardModel.TERMINAL and kind.dynamics == T.Dynamics.SEQUENTIAL


def test_rl_environment_gets_each_boxs_points_with_step_rewards() -> None:
    from open_spiel.python import rl_environment

    game = pyspiel.load_game("yacht_env", {"rules": "yahtzee", "step_rewards": True})
    env = rl_environment.Environment(game, seed=0)
    rng = np.random.default_rng(0)
    step = env.reset()
    total, points = 0.0, []
    while not step.last():
        action = int(rng.choice(step.observations["legal_actions"][0]))
        step = env.step([action])
        total += step.rewards[0]
        points.append(step.rewards[0])
    card = env.get_state.cards[0]
    assert total == env.get_state.returns()[0] == card.total > 0
    assert sum(p > 0 for p in points) == sum(1 for x in card.scores if x)  # every box's points, at its own step


def test_a_serialisation_without_the_history_line_is_checked_at_first_use() -> None:
    """An empty ``__dict__`` line gives OpenSpiel nothing to set, so nothing of the game runs while it deserialises;
    the history is replayed through the checks when the state is first used."""
    import base64
    import pickle

    game = pyspiel.load_game("yacht_env", {"rules": "yacht", "players": 2})
    empty = "__dict__=" + base64.b64encode(pickle.dumps({})).decode()
    full, _ = _tampered(game, empty, history="-1:3,0:31")
    state = pyspiel.deserialize_game_and_state(full)[1]
    assert "keeping all five dice" in _one_line_error(state.current_player)
    full, _ = _tampered(game, empty, history="-1:3,0:7")
    assert pyspiel.deserialize_game_and_state(full)[1].chance_outcomes()  # a legal history plays on
