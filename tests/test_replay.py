"""``yacht replay``: the record agrees with the rules, the environment's dice and the solver; text and languages."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import numpy as np
import pytest

from yacht_agents.greedy import GreedyAgent
from yacht_cli import main
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.env import YachtEnv
from yacht_env.i18n import category_name
from yacht_env.render import render_scorecard
from yacht_env.rules import get_rules
from yacht_env.state import GameState
from yacht_tools.replay import format_replay, replay_game


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``yacht replay ARGV``: exit code, stdout, and stderr without the one-time notices of long work (numba's
    compile, the first solve), which depend on what this worker process did before."""
    code = main(["replay", *argv])
    out = capsys.readouterr()
    err = "".join(line for line in out.err.splitlines(keepends=True) if not line.startswith("yacht-env: "))
    return code, out.out, err


def check_record(rec: dict[str, Any], rules: str, seed: int) -> None:
    """Everything a replay must satisfy under the rules, against the environment with the same seed."""
    rs = get_rules(rules)
    turns = rec["turns"]
    assert rec["rules"] == rules and rec["seed"] == seed
    assert len(turns) == rs.num_categories
    assert Counter(t["category"] for t in turns) == Counter(rs.category_ids)  # each category exactly once
    assert sum(t["points"] for t in turns) == rec["final_score"] == rec["scorecard"]["total"]
    running = 0
    for t in turns:
        running += t["points"]
        assert t["total"] == running
        assert t["box"] == rec["scorecard"][t["category"]]
        assert 1 <= len(t["rolls"]) <= 3 and len(t["kept"]) == len(t["rolls"]) - 1
        assert len(t["decisions"]) == len(t["rolls"])
        for before, kept, after in zip(t["rolls"], t["kept"], t["rolls"][1:]):
            assert not Counter(kept) - Counter(before), "kept dice must be among the dice"
            assert not Counter(kept) - Counter(after), "kept dice stay"
            assert len(kept) < 5
        for roll, dice in enumerate(t["rolls"]):
            assert dice == sorted(dice) and len(dice) == 5 and all(1 <= d <= 6 for d in dice)
            assert t["decisions"][roll]["dice"] == dice and t["decisions"][roll]["roll"] == roll + 1
        assert t["decisions"][-1]["action"] == NUM_KEEP_ACTIONS + rs.category_index(t["category"])
        if t["regret"] is not None:
            assert t["regret"] == pytest.approx(sum(d["regret"] for d in t["decisions"]))
            for d in t["decisions"]:
                assert d["regret"] >= 0
                assert d["regret"] == pytest.approx(d["best_value"] - d["value"])
    # the same game as the environment with this seed: replay the recorded actions, compare every roll
    env = YachtEnv(rules)
    env.reset(seed=seed)
    assert env.state is not None
    for t in turns:
        for roll, d in enumerate(t["decisions"]):
            assert list(env.state.dice) == t["rolls"][roll]
            _, reward, terminated, _, info = env.step(d["action"])
            assert not info["illegal_action"]
        assert reward == t["points"]
    assert terminated and info["final_score"] == rec["final_score"]
    assert GameState.from_dict(rec["final_state"]) == env.state


def test_optimal_json_yacht(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "--agent", "optimal", "--rules", "yacht", "--seed", "5", "--format", "json")
    assert code == 0 and err == ""
    rec = json.loads(out)
    assert {"rules", "agent", "seed", "final_score", "turns"} <= set(rec)
    assert rec["agent"] == "optimal"
    check_record(rec, "yacht", 5)
    assert rec["regret"] == 0
    for t in rec["turns"]:
        assert t["regret"] == 0
        for d in t["decisions"]:
            assert d["action"] == d["best_action"] and d["move"] == d["best_move"] and d["regret"] == 0
    assert rec["optimal_value"] == pytest.approx(166.9550677, abs=1e-6)


@pytest.mark.parametrize(("agent", "rules", "seed"), [("greedy", "yahtzee", 11), ("random", "yacht", 2),
                                                       ("greedy", "yahtzee-free-joker", 4), ("greedy", "yatzy", 3),
                                                       ("greedy", "knizia", 6)])
def test_other_agents_regret_nonnegative(agent: str, rules: str, seed: int) -> None:
    rec = replay_game(agent, rules, seed)
    check_record(rec, rules, seed)
    assert rec["regret"] >= 0
    if agent == "random":
        assert rec["regret"] > 0  # a random game is far from optimal


def test_function_matches_cli(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--agent", "greedy", "--seed", "9", "--format", "json")
    assert code == 0
    assert json.loads(out) == json.loads(json.dumps(replay_game(GreedyAgent("yacht"), "yacht", 9)))


def test_same_seed_same_game_different_seed_different_game() -> None:
    a, b, c = (replay_game("greedy", "yacht", s, regret=False) for s in (3, 3, 4))
    assert a == b
    assert a["turns"][0]["rolls"][0] != c["turns"][0]["rolls"][0] or a["final_score"] != c["final_score"]
    env = YachtEnv("yacht")
    env.reset(seed=3)
    assert env.state is not None and list(env.state.dice) == a["turns"][0]["rolls"][0]


def test_no_regret_without_solver(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--agent", "greedy", "--seed", "1", "--format", "json", "--no-regret")
    rec = json.loads(out)
    assert code == 0 and rec["regret"] is None and rec["optimal_value"] is None
    assert all(t["regret"] is None for t in rec["turns"])
    check_record(rec, "yacht", 1)


def test_text_replay_has_turns_and_scorecard(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "--agent", "greedy", "--seed", "7")
    assert code == 0 and err == ""
    rec = replay_game("greedy", "yacht", 7)
    final = GameState.from_dict(rec["final_state"])
    assert render_scorecard(final) in out
    assert f"Final score: {rec['final_score']}" in out
    assert "Turn 12/12" in out and "Roll 1:" in out and "best" in out
    for t in rec["turns"]:
        assert f"score {t['category_name']} = {t['points']}   Total {t['total']}" in out
    assert out.strip() == format_replay(rec).strip()


@pytest.mark.parametrize("lang", ["ms", "el", "et", "te"])
def test_text_replay_in_other_languages(capsys: pytest.CaptureFixture[str], lang: str) -> None:
    code, out, _ = run_cli(capsys, "--agent", "greedy", "--rules", "yahtzee", "--seed", "2", "--lang", lang)
    assert code == 0
    for cid in get_rules("yahtzee").category_ids:
        assert category_name(cid, lang, "yahtzee") in out
    assert "Final score" not in out and "Turn 1/" not in out


@pytest.mark.parametrize("lang", ["en", "ms", "el", "et", "te"])
def test_every_number_of_a_text_replay_says_what_it_is(capsys: pytest.CaptureFixture[str], lang: str) -> None:
    """Each decision line is a roll, dice, a move, for a score ``= points  Total T``, and a bracket of one of the
    two forms; a legend above the first turn names each of them (in the replay's language)."""
    from yacht_tools.messages import text

    code, out, _ = run_cli(capsys, "--agent", "greedy", "--seed", "3", "--lang", lang)
    assert code == 0
    lines = out.splitlines()
    first_turn = next(i for i, line in enumerate(lines) if line.startswith(text("turn", lang) + " 1/"))
    legend = "\n".join(lines[1:first_turn])
    best, regret, total, roll = (re.escape(text(k, lang)) for k in ("best", "regret", "total", "roll"))
    assert f"[{text('best', lang)} (V)]" in legend
    assert f"[{text('best', lang)}: M (V); {text('regret', lang)} R]" in legend
    assert "= " in legend and "V" in legend and "R" in legend
    decision = re.compile(rf"  {roll} [123]: [1-6]( [1-6]){{4}}   -> [^=\[]+?( = \d+   {total} \d+)?"
                          rf"(   \[{best} \(\d+\.\d\d\)\]|"
                          rf"   \[{best}: [^(]+ \(\d+\.\d\d\); {regret} (\d+\.\d\d|< 0\.01)\])")
    decision_lines = [line for line in lines[first_turn:] if line.startswith("  " + text("roll", lang))]
    assert len(decision_lines) >= 12
    for line in decision_lines:
        assert decision.fullmatch(line), line
    assert sum(text("turn", lang) in line for line in lines[:first_turn]) == 0, "the legend comes first"


def test_a_tournament_replay_has_a_legend(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--agents", "greedy", "optimal", "--seed", "0", "--match", "0", "--game", "0")
    assert code == 0
    head, legend, brackets = out.splitlines()[:3]
    assert legend.startswith("Each line: roll, dice -> move; a score shows = the points it adds and the total so far")
    assert brackets.startswith("[best: M; regret R]: M was the optimal move")
    assert "[best: " in out.split(brackets, 1)[1]


def test_vs_replays_the_game_of_two_of_agents(capsys: pytest.CaptureFixture[str]) -> None:
    """``--agent A --vs B`` is the game ``--agents A B`` of the tournament; with --agents it is refused."""
    code, vs, _ = run_cli(capsys, "--agent", "greedy", "--vs", "optimal", "--seed", "3", "--format", "json")
    code2, agents, _ = run_cli(capsys, "--agents", "greedy", "optimal", "--seed", "3", "--format", "json")
    assert code == code2 == 0 and vs == agents and '"players"' in vs
    code, out, err = run_cli(capsys, "--agents", "greedy", "optimal", "--vs", "random")
    assert code == 2 and "--vs goes with --agent" in err


@pytest.mark.parametrize(("argv", "message"), [
    (["--lang", "xx"], "unknown language 'xx'; accepted: en, ms, el, et, te"),
    (["--agent", "nobody"], "unknown agent 'nobody'; accepted: random, greedy, optimal"),
    (["--agent", "missing.zip"], "model file not found"),
    (["--rules", "poker"], "unknown rules 'poker'; accepted: yacht, yahtzee, yahtzee-free-joker"),
    (["--seed", "-1"], "seed must be a non-negative integer"),
    (["--seed", "abc"], "seed must be a non-negative integer"),
    (["--agents", "greedy"], "a game of 2 players needs at least 2 agents (--agents), got ['greedy']"),
    (["--agents", "greedy", "optimal", "--match", "1"], "match must be"),
    (["--agents", "greedy", "optimal", "--game", "-1"], "game must be"),
    (["--agents", "greedy", "optimal", "--players", "9"], "players must be"),
    (["--format", "html", "--output", "/nonexistent/game.html"], "folder '/nonexistent' does not exist"),
])
def test_bad_options_fail_clearly(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("yacht replay: error: ") and message in err and len(err.strip().splitlines()) == 1


def test_bad_format_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["replay", "--format", "xml"])
    assert e.value.code == 2
    assert "invalid choice: 'xml'" in capsys.readouterr().err


def test_agent_of_other_rules_is_refused() -> None:
    with pytest.raises(ValueError, match="plays rules 'yahtzee'"):
        replay_game(GreedyAgent("yahtzee"), "yacht", 0)


def test_regret_matches_value_difference() -> None:
    """The summed regret estimates the agent's expected loss: each decision's regret is the solver's value gap."""
    rec = replay_game("random", "yacht", 8)
    vals = [d for t in rec["turns"] for d in t["decisions"]]
    assert any(d["regret"] > 0 for d in vals)
    assert rec["regret"] == pytest.approx(float(np.sum([d["regret"] for d in vals])))


def test_a_move_that_is_not_optimal_never_reads_a_zero_regret() -> None:
    """Greedy's game of seed 3 has a decision that loses 0.0019 points: the text replay and the page say ``< 0.01``,
    not ``0.00`` beside a move marked as not the best."""
    from yacht_tools.messages import regret_text
    from yacht_tools.replay_page import page_data

    assert [regret_text(x) for x in (0.0, 0.0019, 0.005, 1.234, None)] == ["0.00", "< 0.01", "0.01", "1.23", None]
    record = replay_game("greedy", "yacht", seed=3)
    tiny = [d for t in record["turns"] for d in t["decisions"] if d["regret"] and 0 < d["regret"] < 0.005]
    assert tiny and tiny[0]["action"] != tiny[0]["best_action"]
    assert "regret < 0.01]" in format_replay(record)
    steps = page_data(record)["steps"]
    assert any(s["regret"] == "< 0.01" for s in steps)
    assert not any(s["regret"] == "0.00" and s["lost"] > 0 for s in steps if s.get("lost") is not None)
