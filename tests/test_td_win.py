"""The TD learner of the game of two: with the exact two-player values in place of its network it plays exactly as
``optimal-duel`` (every action's chance to win agrees), its model files load as agents of the game of two only, its
self-play holds its budget and repeats with its seed, and ``yacht bench run`` trains it on the heads-up task."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from yacht_agents.loader import load_agent
from yacht_agents.td_agent import TDAgent, ValueNet
from yacht_agents.td_win import TDWinAgent, WinNet, load_td_model
from yacht_cli import main
from yacht_env import multiplayer as MP
from yacht_env.rules import get_rules
from yacht_solver import solve_duel
from yacht_solver.duel import DuelSolution
from yacht_tools import protocol as P
from yacht_tools.heads_up_eval import chance_against_optimal_duel

torch = pytest.importorskip("torch")
from yacht_training.config import from_dict, load_config  # noqa: E402 - needs the train extra
from yacht_training.td_heads_up import HeadsUpSelfPlay  # noqa: E402

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


class ExactWin(WinNet):
    """A WinNet whose values are the exact two-player table's: W(a, b, lead) of the solved duel."""

    def __init__(self, duel: DuelSolution) -> None:
        super().__init__(duel.rules, hidden=[4])
        self.duel = duel

    def predict(self, samples: np.ndarray, batch: int = 65536) -> np.ndarray:
        from yacht_solver.duel import _movers

        s = self.space
        ix = self.duel.plan.index
        out = np.empty(len(samples))
        for i, (a, b, lead) in enumerate(np.asarray(samples, dtype=np.int64).reshape(-1, 3)):
            fa, fb = int(s.unflat(np.array([a]))[0][0]), int(s.unflat(np.array([b]))[0][0])
            t = bin(fa).count("1") + bin(fb).count("1")
            other = _movers(t)[1]
            pair = int(ix.rank[a]) * int(ix.start[other + 1] - ix.start[other]) + int(ix.rank[b])
            out[i] = self.duel.value(t, pair, int(lead))
        return out


def test_with_the_exact_values_it_plays_the_game_of_two_exactly(upper6: str) -> None:
    duel = solve_duel(upper6, cache=False)
    agent = TDWinAgent(upper6, model=ExactWin(duel))
    rng = np.random.default_rng(3)
    decisions = 0
    for game in range(12):
        game_rng = np.random.default_rng(game)
        states = MP.new_seating(upper6, 2, game_rng)
        while not MP.is_over(states):
            seat = MP.seat_to_act(states)
            me, other = states[seat], states[1 - seat]
            mine, action = agent.win_values(me, other)
            exact = duel.action_win_probabilities(me, other)
            assert np.array_equal(np.isnan(mine), np.isnan(exact))
            np.testing.assert_allclose(mine[~np.isnan(mine)], exact[~np.isnan(exact)], atol=2e-6)
            assert exact[action] >= np.nanmax(exact) - 2e-6  # its action is a best one
            decisions += 1
            legal = np.flatnonzero(~np.isnan(exact))
            states = MP.play(states, int(rng.choice(legal)) if rng.random() < 0.3 else action, game_rng)[0]
    assert decisions > 100


def test_its_model_files_load_as_the_agent_of_their_game(upper6: str, tmp_path: Path) -> None:
    WinNet(upper6, hidden=[8]).save(tmp_path / "two.pt")
    ValueNet(upper6, hidden=[8]).save(tmp_path / "one.pt")
    assert isinstance(load_td_model(tmp_path / "two.pt", upper6), TDWinAgent)
    assert isinstance(load_agent(str(tmp_path / "two.pt"), upper6), TDWinAgent)
    assert isinstance(load_td_model(tmp_path / "one.pt", upper6), TDAgent)
    with pytest.raises(ValueError, match="values the game of 2 players, not of 1"):
        ValueNet.load(tmp_path / "two.pt", upper6)
    with pytest.raises(ValueError, match="values the game of 1 players, not of 2"):
        WinNet.load(tmp_path / "one.pt", upper6)
    agent = load_td_model(tmp_path / "two.pt", upper6)
    with pytest.raises(ValueError, match="plays the game of two players only"):
        agent.act(np.zeros(1), np.ones(1, dtype=bool), None)


def test_self_play_counts_both_seats_and_repeats_with_its_seed(upper6: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import yacht_training.td_heads_up as H

    torch.manual_seed(0)
    net = WinNet(upper6, hidden=[16])
    per_turn: list[int] = []
    play = H.play_lookup_turns

    def counted(*args: object) -> None:
        play(*args)
        per_turn.append(int(args[-1].steps.sum()))

    monkeypatch.setattr(H, "play_lookup_turns", counted)
    a = HeadsUpSelfPlay(net).play(5, np.random.default_rng(9), td_lambda=0.5, explore=0.2)
    b = HeadsUpSelfPlay(net).play(5, np.random.default_rng(9), td_lambda=0.5, explore=0.2)
    samples, targets, steps, totals = a
    categories = get_rules(upper6).num_categories
    assert len(per_turn) == 2 * 2 * categories and steps == sum(per_turn[:2 * categories])  # every turn of both seats
    assert samples.shape == (2 * categories * 5, 3) and targets.shape == (2 * categories * 5,)
    assert ((0 <= targets) & (targets <= 1)).all() and totals.shape == (5, 2)
    assert all(np.array_equal(x, y) for x, y in zip(a[:2] + a[3:], b[:2] + b[3:])) and a[2] == b[2]
    first, second = samples[:5], samples[5:10]  # turn 0 (seat 0 to move), turn 1 (seat 1 to move)
    assert (first[:, 2] == 0).all() and (second[:, 1] != first[:, 0]).all()  # seat 0 has scored a box since
    assert (second[:, 0] == first[:, 1]).all() and (second[:, 2] <= 0).all()  # seat 1 behind by seat 0's points


def test_with_lambda_1_each_target_is_the_movers_result(upper6: str) -> None:
    from yacht_agents.td_win import final_share

    samples, targets, _, totals = HeadsUpSelfPlay(WinNet(upper6, hidden=[8])).play(6, np.random.default_rng(2),
                                                                                  td_lambda=1.0)
    turns = 2 * get_rules(upper6).num_categories
    targets = targets.reshape(turns, 6)
    for t in range(turns):
        mover, other = t % 2, 1 - t % 2
        np.testing.assert_allclose(targets[t], final_share(totals[:, mover] - totals[:, other]))


def test_a_model_of_one_game_is_refused_by_the_agent_of_the_other(upper6: str) -> None:
    with pytest.raises(ValueError, match="TDAgent plays the game alone"):
        TDAgent(upper6, model=WinNet(upper6, hidden=[8]))
    with pytest.raises(ValueError, match="TDWinAgent needs a WinNet"):
        TDWinAgent(upper6, model=ValueNet(upper6, hidden=[8]))


def test_td_with_players_2_is_a_heads_up_learner_and_other_learners_are_refused() -> None:
    base = load_config(CONFIGS / "yacht_td_heads_up.yaml").to_dict()
    assert from_dict(base).players == 2
    with pytest.raises(ValueError, match="'td.value_scale' does not apply with players: 2"):
        from_dict({**base, "td": {**base["td"], "value_scale": 50.0}})
    rl = load_config(CONFIGS / "yacht_rllib_ppo.yaml").to_dict()
    with pytest.raises(ValueError, match=r"'players': 2 \(the game of two\) needs algo maskable_ppo or td"):
        from_dict({**rl, "players": 2})


@pytest.mark.slow
def test_bench_run_trains_it_on_the_heads_up_task_within_its_budget(upper6: str, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(P.HEADS_UP, "yacht-heads-up", upper6)
    monkeypatch.setattr(P, "EVAL_GAMES", 200)
    monkeypatch.setitem(P.BUDGETS, "tiny", 20_000)
    P.references.cache_clear()
    try:
        argv = ["bench", "run", "--learner", f"td={CONFIGS / 'yacht_td_heads_up.yaml'}", "--tasks", "yacht-heads-up",
                "--budget", "tiny", "--seeds", "0", "--out", str(tmp_path), "--no-progress"]
        assert main(argv) == 0
        (record,) = P.read_records([tmp_path / "records"])
    finally:
        P.references.cache_clear()
    assert record["config"]["players"] == 2 and record["config"]["algo"] == "td"
    assert 0.99 * 20_000 <= record["training"]["timesteps"] <= 20_000
    assert 0 <= record["final"]["mean"] <= 1 and record["final"]["episodes"] == 200
    agent = load_agent(str(tmp_path / "runs" / "yacht-heads-up-td-tiny-s0"), upper6)
    assert isinstance(agent, TDWinAgent)
    # it learned something: against exact play it does better than the player who plays at random
    assert record["final"]["mean"] > chance_against_optimal_duel("random", upper6, 200, P.EVAL_SEED)["chance"]


def test_with_the_exact_values_its_self_play_targets_are_exact(upper6: str) -> None:
    """Many games searched side by side, each reading its own end-of-turn values: the TD target of every position
    is then the exact chance to win there (the start value of a turn whose ends are valued exactly)."""
    exact = ExactWin(solve_duel(upper6, cache=False))
    samples, targets, _, _ = HeadsUpSelfPlay(exact).play(40, np.random.default_rng(4), explore=0.3)
    np.testing.assert_allclose(targets, exact.predict(samples), atol=2e-6)
