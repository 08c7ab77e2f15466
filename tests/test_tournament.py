"""Tournaments: deterministic for a seed, consistent statistics, replayable games, the command line, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from yacht_agents.base import Agent
from yacht_agents.random_agent import RandomAgent
from yacht_env import multiplayer as MP
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_tools.cli import main
from yacht_tools.tournament import game_seed, play_match, run_tournament, wilson_interval


class FirstOpen(Agent):
    """Scores the first legal category at once: deterministic, weak, not batched."""

    name = "first_open"
    needs_state = True

    def act(self, obs: np.ndarray, mask: np.ndarray, state=None) -> int:
        return int(np.flatnonzero(mask[NUM_KEEP_ACTIONS:])[0]) + NUM_KEEP_ACTIONS


class Cheater(Agent):
    """Plays keep-all, which is never legal."""

    name = "cheater"

    def act(self, obs: np.ndarray, mask: np.ndarray, state=None) -> int:
        return 31


def test_deterministic_for_a_seed() -> None:
    a = run_tournament(["greedy", "random", "random"], games=12, seed=3)
    b = run_tournament(["greedy", "random", "random"], games=12, seed=3)
    assert a == b
    c = run_tournament(["greedy", "random", "random"], games=12, seed=4)
    assert c["agents"] != a["agents"]
    assert list(a["agents"]) == ["greedy", "random", "random#2"]
    assert [m["agents"] for m in a["matches"]] == [["greedy", "random"], ["greedy", "random#2"],
                                                    ["random", "random#2"]]
    json.dumps(a)  # plain JSON types only


def test_learned_models_take_part() -> None:
    """Shipped models load with the tournament's 64-bit agent seeds and play; deterministic agents give the same
    result every time."""
    a = run_tournament(["ppo-expectimax-yacht", "td-yacht"], games=4, seed=0)
    assert a == run_tournament(["ppo-expectimax-yacht", "td-yacht"], games=4, seed=0)
    assert all(s["games"] == 4 for s in a["agents"].values())


@pytest.mark.parametrize("rules", ["yatzy", "knizia"])
def test_tournament_under_other_rules(rules: str) -> None:
    r = run_tournament(["greedy", "random"], games=10, seed=1, rules=rules)
    assert r["rules"] == rules and r["agents"]["greedy"]["mean_score"] > 2 * r["agents"]["random"]["mean_score"]


def test_statistics_are_consistent() -> None:
    r = run_tournament(["greedy", "random", FirstOpen("yacht")], games=20, seed=0)
    assert r["rules"] == "yacht" and r["games"] == 20 and r["seed"] == 0 and r["players"] == 2
    for s in r["agents"].values():
        assert s["games"] == 40 == s["wins"] + s["draws"] + s["losses"]
        lo, hi = s["win_rate_ci95"]
        assert 0.0 <= lo <= s["win_rate"] <= hi <= 1.0
        assert s["win_rate"] == pytest.approx((s["wins"] + s["draws"] / 2) / s["games"])
    for m in r["matches"]:
        rates = [m["stats"][n]["win_rate"] for n in m["agents"]]
        assert sum(rates) == pytest.approx(1.0)
    assert r["agents"]["greedy"]["win_rate"] > 0.9 and r["agents"]["greedy"]["mean_score"] > 120


def test_group_games_rotate_seats() -> None:
    r = run_tournament(["random", "random", "random", "greedy"], games=8, seed=1, players=3)
    assert len(r["matches"]) == 4 and all(len(m["agents"]) == 3 for m in r["matches"])
    assert r["agents"]["greedy"]["games"] == 3 * 8
    total_share = sum(m["stats"][n]["win_rate"] for m in r["matches"] for n in m["agents"])
    assert total_share == pytest.approx(len(r["matches"]))


def test_a_tournament_game_replays_in_the_environment() -> None:
    """Game g of match m: seat s is the match's agent (s + g) mod n, dice from reset(seed=game_seed(seed, m, g))."""
    pytest.importorskip("pettingzoo")
    from yacht_agents.greedy import GreedyAgent

    agents = [GreedyAgent("yacht"), FirstOpen("yacht"), GreedyAgent("yacht")]
    totals = play_match(agents, "yacht", games=4, seed=9, match=2, batch_size=3)
    for g in range(4):
        e = MP.env(3, "yacht")
        e.reset(seed=game_seed(9, 2, g))
        for name in e.agent_iter():
            obs, _, term, _, _ = e.last()
            if term:
                e.step(None)
                continue
            seat = e.unwrapped.agent_name_mapping[name]
            agent = agents[(seat + g) % 3]
            e.step(agent.act(e.unwrapped.single_observation(name), obs["action_mask"].astype(bool),
                             e.unwrapped.state_of(name)))
        by_seat = [e.unwrapped.state_of(f"player_{s}").total for s in range(3)]
        assert [by_seat[(slot - g) % 3] for slot in range(3)] == totals[g].tolist()


def test_batch_size_does_not_change_deterministic_agents() -> None:
    a = run_tournament(["greedy", FirstOpen("yacht")], games=10, seed=2, batch_size=3)
    b = run_tournament(["greedy", FirstOpen("yacht")], games=10, seed=2, batch_size=10)
    assert a["agents"] == b["agents"]


def test_wilson_interval() -> None:
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    assert wilson_interval(10, 10)[1] == 1.0 and wilson_interval(10, 10)[0] == pytest.approx(0.7225, abs=1e-4)
    assert wilson_interval(7.5, 10)[0] < 0.75 < wilson_interval(7.5, 10)[1]  # ties counted as halves


@pytest.mark.parametrize("kwargs,match", [
    (dict(games=0), "games must be"),
    (dict(games=-3), "games must be"),
    (dict(games=2.5), "games must be"),
    (dict(games=True), "games must be"),
    (dict(seed=-1), "seed must be"),
    (dict(rules="poker"), "unknown rules 'poker'"),
    (dict(players=1), "players must be"),
    (dict(players=9), "players must be"),
    (dict(players=3), "needs at least 3 agents"),
    (dict(agent_specs=["greedy", "nobody"]), "unknown agent 'nobody'"),
    (dict(agent_specs="greedy"), "needs at least 2 agents"),
    (dict(agent_specs=["greedy", RandomAgent("yahtzee")]), "plays rules 'yahtzee', not 'yacht'"),
    (dict(agent_specs=["greedy", Cheater("yacht")]), "agent 'cheater' played illegal action 31"),
])
def test_bad_input_fails_clearly(kwargs: dict, match: str) -> None:
    args = dict(agent_specs=["greedy", "random"], games=4, seed=0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        run_tournament(**args)


def test_same_agent_object_twice_is_refused() -> None:
    a = FirstOpen("yacht")
    with pytest.raises(ValueError, match="twice"):
        run_tournament([a, a], games=2, seed=0)


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.json"
    rc = main(["tournament", "--agents", "greedy", "random", "--games", "6", "--seed", "0", "--json", str(out),
               "--no-progress"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "win rate" in text and "Head-to-head" in text and "greedy" in text
    data = json.loads(out.read_text())
    assert set(data) >= {"agents", "matches", "rules", "games", "seed"}
    assert set(data["agents"]["greedy"]) >= {"win_rate", "win_rate_ci95", "mean_score", "games"}
    assert data == run_tournament(["greedy", "random"], games=6, seed=0)

    rc = main(["tournament", "--agents", "greedy", "random", "random", "--players", "3", "--games", "3",
               "--rules", "yahtzee", "--no-progress"])
    assert rc == 0 and "Matches" in capsys.readouterr().out

    for argv, msg in [(["--agents", "greedy", "bogus"], "unknown agent 'bogus'"),
                      (["--agents", "greedy", "random", "--games", "0"], "games must be"),
                      (["--agents", "greedy", "random", "--rules", "poker"], "unknown rules"),
                      (["--agents", "greedy", "random", "--json", str(tmp_path / "no" / "x.json")], "does not exist")]:
        assert main(["tournament", *argv, "--no-progress"]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("yacht tournament: error:") and msg in err and "\n" not in err
