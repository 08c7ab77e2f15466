"""Evaluation: seeded and deterministic, legal play enforced, statistics, regret, the ``yacht eval`` command."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from yacht_agents.base import Agent
from yacht_agents.greedy import GreedyAgent
from yacht_agents.random_agent import RandomAgent
from yacht_cli import main
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.env import YachtEnv
from yacht_env.state import GameState
from yacht_tools.evaluation import RegretMeter, evaluate, play_games, summarise
from yacht_tools.regret import RegretTally
from yacht_tools.report import format_report, plot_scores
from yacht_tools.seeds import game_seed


def _solver_available() -> bool:
    try:
        from yacht_solver import solve  # noqa: F401
    except ImportError:
        return False
    return True


needs_solver = pytest.mark.skipif(not _solver_available(), reason="yacht_solver is not available")

REQUIRED_KEYS = {"mean", "std", "ci95", "median", "percent_of_optimal", "episodes", "categories"}
Z999 = 3.2905  # two-sided 99.9 % normal quantile


def strip_time(result: dict) -> dict:
    return {k: v for k, v in result.items() if k != "elapsed_s"}


def test_game_seed_is_deterministic_and_distinct() -> None:
    seeds = [game_seed(0, j) for j in range(1000)]
    assert seeds == [game_seed(0, j) for j in range(1000)]
    assert len(set(seeds) | {game_seed(1, j) for j in range(1000)}) == 2000


@pytest.mark.parametrize("agent_cls", [RandomAgent, GreedyAgent])
def test_evaluate_is_deterministic_for_a_seed(agent_cls: type) -> None:
    a = evaluate(agent_cls("yahtzee"), "yahtzee", 40, seed=5, regret=False)
    b = evaluate(agent_cls("yahtzee"), "yahtzee", 40, seed=5, regret=False)
    c = evaluate(agent_cls("yahtzee"), "yahtzee", 40, seed=6, regret=False)
    assert strip_time(a) == strip_time(b)
    assert a["scores"] != c["scores"]


def test_games_replay_in_the_environment() -> None:
    """Game j of an evaluation is the environment's game reset with game_seed(seed, j), action for action."""
    actions: dict[int, list[int]] = {}
    finals = play_games(GreedyAgent("yahtzee"), "yahtzee", [game_seed(9, j) for j in range(5)],
                        on_decision=lambda g, s, a: actions.setdefault(g, []).append(a), batch_size=2)
    for j, final in enumerate(finals):
        env = YachtEnv("yahtzee", strict=True)
        env.reset(seed=game_seed(9, j))
        for a in actions[j]:
            *_, info = env.step(a)
        assert env.state == final and info["final_score"] == final.total


def test_result_keys_and_statistics() -> None:
    r = evaluate(RandomAgent("yahtzee"), "yahtzee", 30, seed=0, regret=False)
    assert REQUIRED_KEYS <= set(r)
    assert {"upper_bonus_rate", "yahtzee_bonus_rate", "yahtzee_bonus_mean", "scores", "optimal_value"} <= set(r)
    scores = np.array(r["scores"])
    assert r["episodes"] == len(scores) == 30
    assert r["mean"] == pytest.approx(scores.mean()) and r["std"] == pytest.approx(scores.std(ddof=1))
    assert r["median"] == np.median(scores) and r["min"] == scores.min() and r["max"] == scores.max()
    lo, hi = r["ci95"]
    assert lo < r["mean"] < hi and (hi - lo) / 2 == pytest.approx(1.96 * r["std"] / math.sqrt(30), rel=1e-3)
    assert set(r["categories"]) == set(GameState("yahtzee", (1, 1, 1, 1, 1), 0, (None,) * 13).ruleset.category_ids)
    assert all(0 <= c["hit_rate"] <= 1 for c in r["categories"].values())
    card_sum = sum(c["mean"] for c in r["categories"].values()) + 35 * r["upper_bonus_rate"] + 100 * r[
        "yahtzee_bonus_mean"]
    assert card_sum == pytest.approx(r["mean"])
    text = format_report(r)
    assert "Three of a Kind" in text and "95% CI" in text
    json.dumps(r)


def test_yacht_result_has_no_bonus_fields() -> None:
    r = evaluate("random", "yacht", 5, seed=0, regret=False)
    assert "upper_bonus_rate" not in r and "yahtzee_bonus_rate" not in r and r["agent"] == "random"


def test_summarise_single_game() -> None:
    r = summarise("yacht", np.array([100]), np.zeros((1, 12)), np.zeros(1, bool), np.zeros(1), optimal_value=200.0)
    assert r["std"] == 0 and r["ci95"] == [100, 100] and r["percent_of_optimal"] == 50.0


@pytest.mark.parametrize("episodes", [0, -3, 1.5, "ten", True, None, "2.0"])
def test_bad_episodes(episodes: object) -> None:
    with pytest.raises(ValueError, match="episodes must be a positive integer"):
        evaluate("random", "yacht", episodes, seed=0)  # type: ignore[arg-type]


def test_bad_seed_rules_agent() -> None:
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        evaluate("random", "yacht", 5, seed=-1)
    with pytest.raises(ValueError, match="unknown rules"):
        evaluate("random", "poker", 5, seed=0)
    with pytest.raises(ValueError, match="unknown agent"):
        evaluate("oracle", "yacht", 5, seed=0)
    with pytest.raises(ValueError, match="plays rules 'yacht', not 'yahtzee'"):
        evaluate(RandomAgent("yacht"), "yahtzee", 5, seed=0)


class _Cheater(Agent):
    """Keeps all five dice (action 31), which is never legal."""

    name = "cheater"

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        return 31


def test_illegal_actions_are_refused() -> None:
    with pytest.raises(ValueError, match="illegal action 31"):
        evaluate(_Cheater("yacht"), "yacht", 2, seed=0, regret=False)


def test_observations_reach_agents_that_read_them() -> None:
    seen = []

    class Obs(RandomAgent):
        needs_obs = True

        def act_batch(self, obs, masks, states=None):
            seen.append(obs.shape)
            return super().act_batch(obs, masks, states)

    evaluate(Obs("yacht"), "yacht", 3, seed=0, regret=False)
    assert seen and all(s[1] > 0 for s in seen)


class _FakeSolution:
    """Action values that make action 32 + k worth k (scores) and keeps worth 0: regret is easy to predict."""

    start_value = 100.0

    def action_values(self, state: GameState, unique_keeps: bool = True) -> np.ndarray:
        q = np.full(NUM_KEEP_ACTIONS + 12, np.nan)
        q[:NUM_KEEP_ACTIONS] = 0.0
        q[NUM_KEEP_ACTIONS:] = np.arange(12.0)
        return q


def test_regret_meter_with_a_fake_solution() -> None:
    meter = RegretMeter(lambda s: _FakeSolution().action_values(s), RegretTally("yacht", 2))
    st = GameState("yacht", (1, 2, 3, 4, 5), 0, (None,) * 12)
    meter(0, st, NUM_KEEP_ACTIONS + 11)  # best: 0
    meter(0, st, NUM_KEEP_ACTIONS + 1)  # 10
    meter(1, st, 3)  # keep: 11
    meter.flush()
    s = meter.tally.summary()
    assert s["decisions"] == 3 and s["mean_regret"] == pytest.approx(7.0)
    assert s["regret_per_game"] == pytest.approx(10.5) and s["mean_regret_keep"] == 11.0
    r = evaluate(RandomAgent("yacht"), "yacht", 4, seed=0, solution=_FakeSolution())
    assert r["percent_of_optimal"] == pytest.approx(r["mean"]) and r["decisions"] > 4 * 12


# ---- plot and command line --------------------------------------------------------------------------------------


def test_plot_is_png(tmp_path) -> None:
    r = evaluate("greedy", "yacht", 20, seed=0, regret=False)
    path = tmp_path / "hist.png"
    plot_scores(r, path, optimal_scores=[150, 200, 210, 260])
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    plot_scores(r, tmp_path / "alone.png")
    assert (tmp_path / "alone.png").read_bytes()[:4] == b"\x89PNG"


def test_cli_eval_writes_json_and_plot(tmp_path, capsys) -> None:
    js, png = tmp_path / "r.json", tmp_path / "r.png"
    rc = main(["eval", "--agent", "greedy", "--rules", "yahtzee", "--episodes", "12", "--seed", "3", "--json",
               str(js), "--plot", str(png), "--no-regret", "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0 and "greedy on Yahtzee: 12 games, seed 3" in out and "Full House" in out
    data = json.loads(js.read_text())
    assert REQUIRED_KEYS <= set(data) and data["episodes"] == 12 and len(data["scores"]) == 12
    assert png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--agent", "oracle"], "unknown agent 'oracle'; accepted: random, greedy, optimal"),
        (["--rules", "poker"], "unknown rules 'poker'; accepted: yacht, yahtzee"),
        (["--episodes", "0"], "episodes must be a positive integer, got '0'"),
        (["--episodes", "2.5"], "episodes must be a positive integer, got '2.5'"),
        (["--episodes", "many"], "episodes must be a positive integer"),
        (["--seed", "-2"], "seed must be a non-negative integer"),
    ],
)
def test_cli_eval_bad_input(args: list[str], message: str, capsys) -> None:
    rc = main(["eval", "--agent", "random", "--episodes", "3", "--no-regret", "--no-progress", *args])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("yacht eval: error: ") and message in err and err.count("\n") == 1


# ---- against the exact solver -----------------------------------------------------------------------------------


@needs_solver
def test_optimal_mean_matches_start_value() -> None:
    """The optimal agent's simulated mean lies within the 99.9 % interval of the solver's expected score."""
    r = evaluate("optimal", "yacht", 1000, seed=0, regret=False)
    half = Z999 * r["std"] / math.sqrt(r["episodes"])
    assert abs(r["mean"] - r["optimal_value"]) < half
    assert r["percent_of_optimal"] == pytest.approx(100 * r["mean"] / r["optimal_value"])


@needs_solver
def test_optimal_has_no_regret_and_greedy_some() -> None:
    opt = evaluate("optimal", "yacht", 20, seed=1)
    assert opt["mean_regret"] == pytest.approx(0.0, abs=1e-9) and opt["decisions"] > 20 * 12
    greedy = evaluate("greedy", "yacht", 200, seed=1)
    assert greedy["mean_regret"] > 0.1
    # expected loss against optimal = expected regret per game (both estimated on the same games)
    loss = greedy["optimal_value"] - greedy["mean"]
    assert abs(loss - greedy["regret_per_game"]) < 4 * greedy["std"] / math.sqrt(200)


@needs_solver
@pytest.mark.parametrize("rules", ["yacht", "yahtzee", "yatzy"])
def test_greedy_between_random_and_optimal(rules: str) -> None:
    greedy = evaluate("greedy", rules, 200, seed=2, regret=False)
    random = evaluate("random", rules, 200, seed=2, regret=False)
    se = greedy["std"] / math.sqrt(200)
    assert greedy["mean"] + 4 * se < greedy["optimal_value"]
    assert greedy["mean"] > 3 * random["mean"]


def test_greedy_far_above_random_without_solver() -> None:
    greedy = evaluate("greedy", "yacht", 100, seed=4, regret=False)
    random = evaluate("random", "yacht", 100, seed=4, regret=False)
    assert greedy["mean"] > 3 * random["mean"]


class _ObsHashAgent(Agent):
    """Deterministic, batched, reads only observation and mask: a legal action chosen by a hash of the obs."""

    name = "obs-hash"
    batched = True

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[int(np.round(obs * 997).sum()) % legal.size])


@pytest.mark.parametrize("rules", ["yacht", "yahtzee", "yatzy"])
def test_vector_engine_plays_the_same_games(rules: str) -> None:
    agent = _ObsHashAgent(rules)
    a = evaluate(agent, rules, 300, seed=11, regret=False, engine="python")
    b = evaluate(agent, rules, 300, seed=11, regret=False, engine="vector")
    c = evaluate(agent, rules, 300, seed=11, regret=False)  # auto picks the vector engine for this agent
    assert (a["engine"], b["engine"], c["engine"]) == ("python", "vector", "vector")
    for key in ("scores", "mean", "categories", "median", "min", "max"):
        assert a[key] == b[key] == c[key], key


def test_engine_errors() -> None:
    with pytest.raises(ValueError, match="unknown engine 'gpu'; accepted: auto, python, vector"):
        evaluate("random", "yacht", 3, engine="gpu")
    with pytest.raises(ValueError, match="measures regret from the solver's value table"):
        evaluate("random", "yacht", 3, engine="vector", regret=True, solution=_FakeSolution())


@pytest.mark.parametrize(("argv", "message"), [
    (["--episodes", "1_0"], "episodes must be a positive integer in ASCII digits 0-9, got '1_0'"),
    (["--seed", "\u0667"], "seed must be a non-negative integer in ASCII digits 0-9, got '\u0667'"),
    (["--episodes", "\uff15"], "episodes must be a positive integer in ASCII digits 0-9, got '\uff15'"),
    (["--episodes", "1" * 5000], "episodes must be a positive integer, got '1111111111"),
])
def test_numbers_on_the_command_line_are_ascii_digits(argv: list[str], message: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """``--episodes 1_0`` and ``--seed ٧`` (an Arabic-Indic seven) were accepted; 5,000 digits gave Python's advice
    about sys.set_int_max_str_digits."""
    from yacht_cli import main

    assert main(["eval", "--agent", "random", "--no-regret", "--no-progress", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"yacht eval: error: {message}") and err.count("\n") == 1 and len(err) < 200


def test_names_from_file_names_reach_the_terminal_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Escape codes and bidirectional overrides in a model's file name reached the terminal raw (a clear-screen
    did): the name is printed with them escaped, the JSON keeps it as it is."""
    import shutil

    from yacht_agents.loader import SHIPPED_MODELS_DIR
    from yacht_cli import main
    from yacht_tools.messages import shown

    hostile = "\x1b[2J\u202eevil"
    model = tmp_path / f"{hostile}.pt"
    shutil.copy(SHIPPED_MODELS_DIR / "td-yacht.pt", model)
    out_json = tmp_path / f"{hostile}.json"
    assert main(["eval", "--agent", str(model), "--episodes", "2", "--no-regret", "--no-progress", "--json",
                 str(out_json)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out
    assert out.startswith("\\x1b[2J\\u202eevil on Yacht: 2 games") and f"wrote {shown(out_json)}" in out
    assert json.loads(out_json.read_text())["agent"] == hostile
    assert shown("a\tb\u200fc" + "d" * 300, 10) == "a\\tb\\u200fcddddd... (295 more characters)"
