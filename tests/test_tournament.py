"""Tournaments: deterministic for a seed, consistent statistics, replayable games, the command line, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from yacht_agents.base import Agent
from yacht_agents.random_agent import RandomAgent
from yacht_cli import main
from yacht_env import multiplayer as MP
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_tools.tournament import format_report, game_seed, play_match, run_tournament, wilson_interval


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


def test_short_names_of_model_files() -> None:
    from yacht_tools.tournament import short_names

    got = short_names(["runs/yacht/seed0/best_model.zip", "runs/yacht/seed1/best_model.zip", "greedy",
                       "agents/models/td-yacht.pt", "optimal-reach:180"])
    assert got == {"runs/yacht/seed0/best_model.zip": "seed0/best_model",
                   "runs/yacht/seed1/best_model.zip": "seed1/best_model", "greedy": "greedy",
                   "agents/models/td-yacht.pt": "td-yacht", "optimal-reach:180": "optimal-reach:180"}
    assert short_names(["m/a.zip", "m/a.zip#2"]) == {"m/a.zip": "a", "m/a.zip#2": "a#2"}  # the same file twice
    assert short_names(["a/greedy.pt", "greedy"]) == {"a/greedy.pt": "a/greedy", "greedy": "greedy"}
    assert short_names(["greedy.pt", "greedy"]) == {"greedy.pt": "greedy.pt", "greedy": "greedy"}, "whole if need be"


def test_model_paths_are_listed_once_and_the_tables_fit_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Two runs' best_model.pt, a shipped model and greedy: short names in the tables, each path once above them,
    and no line of the report wider than an 80-column terminal (the head-to-head in blocks of columns)."""
    pytest.importorskip("torch")
    monkeypatch.setenv("COLUMNS", "80")
    shipped = Path(__file__).resolve().parents[1] / "agents" / "models" / "td-yacht.pt"
    paths = []
    for seed in (0, 1):
        folder = tmp_path / "runs" / "yacht_td" / f"seed{seed}"
        folder.mkdir(parents=True)
        paths.append(str(folder / "best_model.pt"))
        Path(paths[-1]).write_bytes(shipped.read_bytes())
    assert main(["tournament", "--agents", *paths, "greedy", str(shipped), "--games", "2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    for p in [*paths, str(shipped)]:
        assert out.count(p) == 1, f"{p} is named once, above the tables"
    agents_at, table_at = lines.index("Agents:"), next(i for i, ln in enumerate(lines) if ln.startswith("agent "))
    listed = [ln.split() for ln in lines[agents_at + 1:table_at] if ln.strip()]
    assert listed == [["seed0/best_model", paths[0]], ["seed1/best_model", paths[1]], ["td-yacht", str(shipped)]]
    listing = set(range(agents_at + 1, table_at))
    too_wide = [ln for i, ln in enumerate(lines) if len(ln) > 80 and i not in listing]
    assert not too_wide, "\n".join(too_wide)
    rows = {ln.split()[0] for ln in lines[table_at + 1:table_at + 5]}
    assert rows == {"seed0/best_model", "seed1/best_model", "greedy", "td-yacht"}
    head = [ln.split() for ln in lines[table_at:] if ln.startswith(" " * 10)]
    assert sorted(sum(head, [])) == sorted(rows), "every column once, over the blocks"
    wide = format_report(run_tournament([*paths, "greedy", str(shipped)], games=2), width=200)
    assert sum(ln.startswith(" " * 10) for ln in wide.splitlines()) == 1, "a wide terminal: one block"


@pytest.mark.parametrize("rules", ["yacht", "yahtzee"])
def test_turn_search_agents_get_their_states_and_decide_as_from_observations(rules: str) -> None:
    """The turn-search agents (``state_suffices``) are handed their states and an empty observation by the game
    loop, no encoded one, and decide from the states exactly as from the observations, at every position of 30 games
    of random play (with Yahtzee's bonus and Joker boxes)."""
    from yacht_agents.loader import load_agent
    from yacht_agents.optimal import OptimalAgent
    from yacht_env import observation as O
    from yacht_env.actions import action_mask
    from yacht_tools.games import Seating, play_seatings

    states: list = []
    seatings = [Seating(MP.new_seating(rules, 2, rng), rng) for rng in map(np.random.default_rng, range(30))]
    walker = RandomAgent(rules, seed=5)
    play_seatings(seatings, lambda i, seat: walker, on_decision=lambda i, seat, st, a: states.append(st))
    masks = np.stack([action_mask(s) for s in states])
    for name in ("optimal", "greedy"):
        agent = load_agent(name, rules)
        assert agent.state_suffices and agent.needs_obs and not agent.needs_state
        from_obs = agent.act_batch(np.stack([O.encode(s) for s in states]), masks)
        from_states = agent.act_batch(np.zeros((len(states), 0), dtype=np.float32), masks, states)
        assert from_obs.tolist() == from_states.tolist()
    seen = []

    class Spy(OptimalAgent):
        def act_batch(self, obs: np.ndarray, masks: np.ndarray, states: Any = None) -> np.ndarray:
            seen.append((obs.shape[1], states is not None and len(states) == len(masks)))
            return super().act_batch(obs, masks, states)

    run_tournament([Spy(rules), "random"], 4, rules=rules)
    assert seen and set(seen) == {(0, True)}
