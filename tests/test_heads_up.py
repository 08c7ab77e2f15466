"""Heads-up: the self-play env (its shaping leaves each game's return its result, seats alternate, seeds repeat), the
chance to win against ``optimal-duel`` (exact for exact play, and in agreement with the win count), and the
protocol's heads-up task end to end on a small rule set (a run's record and an agent's, read by the report)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from yacht_agents.loader import load_agent
from yacht_cli import main
from yacht_env import multiplayer as MP
from yacht_tools import heads_up_eval as H
from yacht_tools import protocol as P
from yacht_tools.evaluation import evaluate
from yacht_tools.protocol_report import aggregate_records, markdown_report
from yacht_tools.tournament import run_tournament

pytest.importorskip("sb3_contrib")
from yacht_training.heads_up import HeadsUpVecEnv  # noqa: E402 - needs SB3

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


@pytest.fixture
def small(upper6: str) -> str:
    """A rule set of six boxes (conftest's): its two-player table solves in seconds."""
    return upper6


def _play(env: HeadsUpVecEnv, steps: int, seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    seen, rewards = [env.reset()], []
    for _ in range(steps):
        masks = env.action_masks()
        obs, r, done, _ = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        seen.append(obs)
        rewards.append(r)
    return seen, rewards


def test_each_games_shaped_rewards_add_up_to_its_result(small: str) -> None:
    env = HeadsUpVecEnv(6, small, seed=3, reward_scale=0.05)
    env.seed(3)
    env.reset()
    rng = np.random.default_rng(0)
    start = env.potential.copy()  # the potential at each game's first decision
    total = np.zeros(6)
    ended = 0
    seats = [[int(s)] for s in env.seats]
    while ended < 60:
        _, r, done, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()]))
        total += r
        for i in np.flatnonzero(done):
            assert total[i] + start[i] == pytest.approx(infos[i]["outcome"], abs=1e-5)
            assert infos[i]["outcome"] in (-1, 0, 1)
            assert infos[i]["terminal_observation"].shape == env.observation_space.shape
            total[i], start[i] = 0.0, env.potential[i]
            seats[i].append(int(env.seats[i]))
            ended += 1
    for i, s in enumerate(seats):  # slot i's game k has the learner in seat (i + k) mod 2
        assert s == [(i + k) % 2 for k in range(len(s))]


def test_the_same_seed_gives_the_same_games(small: str) -> None:
    a, ra = _play(HeadsUpVecEnv(4, small, seed=11), 40, seed=1)
    b, rb = _play(HeadsUpVecEnv(4, small, seed=11), 40, seed=1)
    c, _ = _play(HeadsUpVecEnv(4, small, seed=12), 40, seed=1)
    assert all(np.array_equal(x, y) for x, y in zip(a, b)) and all(np.array_equal(x, y) for x, y in zip(ra, rb))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))
    assert a[0].shape == (4, MP.size(small, 2))


def test_exact_play_has_exactly_half_the_chance_against_itself(small: str) -> None:
    res = H.chance_against_optimal_duel("optimal-duel", small, 40, seed=5)
    assert res["chance"] == pytest.approx(0.5, abs=1e-9) and res["mean_regret"] < 1e-9
    assert 0 < res["first_player_win"] < 1


@pytest.mark.parametrize(("agent", "sharper"), [("greedy", True), ("random", False)])
def test_the_chance_estimate_agrees_with_the_wins(agent: str, sharper: bool, small: str) -> None:
    res = H.chance_against_optimal_duel(agent, small, 2_000, seed=7)
    assert res["mean_regret"] > 0 and res["chance"] < 0.5
    lo, hi = res["chance_ci95"]
    wlo, whi = res["win_rate_ci95"]
    assert lo <= res["chance"] <= hi and max(lo, wlo) <= min(hi, whi)  # the two intervals overlap
    # a player close to exact play loses little per game: the estimate is the sharper; one that almost never wins
    # has a win count near 0 with little spread, and its many regrets spread more
    assert bool(hi - lo < whi - wlo) is sharper, (hi - lo, whi - wlo)
    assert res["regret_per_game"] == pytest.approx(res["mean_regret"] * res["decisions"] / 2_000)


def test_the_games_are_yacht_tournaments(small: str) -> None:
    """The heads-up evaluation plays the games ``yacht tournament --agents A optimal-duel --seed S`` plays."""
    res = H.chance_against_optimal_duel("greedy", small, 300, seed=21)
    same = run_tournament(["greedy", "optimal-duel"], 300, seed=21, rules=small, win_regret=True)["agents"]["greedy"]
    assert res["win_rate"] == same["win_rate"] and res["mean_score"] == same["mean_score"]
    assert res["mean_regret"] == pytest.approx(same["win_regret"]["mean_regret"])
    versus = H.against("greedy", "optimal", small, 300, seed=21)
    assert versus["win_rate"] == run_tournament(["greedy", "optimal"], 300, seed=21, rules=small)["agents"][
        "greedy"]["win_rate"]


@pytest.fixture
def heads_up_on_small(small: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The heads-up task played on the small rule set, a budget ``tiny`` and 200 evaluation games."""
    monkeypatch.setitem(P.HEADS_UP, "yacht-heads-up", small)
    monkeypatch.setattr(P, "EVAL_GAMES", 200)
    monkeypatch.setitem(P.BUDGETS, "tiny", 16_384)
    P.references.cache_clear()
    yield "yacht-heads-up"
    P.references.cache_clear()


@pytest.mark.slow
def test_a_heads_up_run_and_an_agent_write_records_the_report_reads(heads_up_on_small: str, tmp_path: Path) -> None:
    task = heads_up_on_small
    argv = ["bench", "run", "--learner", f"selfplay={CONFIGS / 'yacht_heads_up.yaml'}", "--tasks", task,
            "--budget", "tiny", "--seeds", "0", "1", "--out", str(tmp_path), "--no-progress"]
    assert main(argv) == 0
    assert main(["bench", "evaluate", "--agent", "greedy", "--tasks", task, "--out", str(tmp_path),
                 "--no-progress"]) == 0
    records = P.read_records([tmp_path / "records"])
    runs = [r for r in records if r["kind"] == "run"]
    assert sorted(r["seed"] for r in runs) == [0, 1]
    for r in runs:
        assert r["config"]["players"] == 2 and r["config"]["rules"] == P.HEADS_UP[task]
        assert r["final"]["episodes"] == 200 and 0 <= r["final"]["mean_regret"] and r["curve"]
        assert 0 <= r["final"]["against_optimal"]["win_rate"] <= 1
        assert r["references"]["optimal"] == 0.5
    report = aggregate_records(records)
    rows = {row["learner"]: row for row in report["budgets"]["tiny"]["tasks"][task]["rows"]}
    assert set(rows) == {"selfplay", "greedy"} and rows["selfplay"]["runs"] == 2
    assert "against_optimal" in rows["greedy"]
    text = markdown_report(report)
    assert "chance to win vs optimal-duel" in text and "| selfplay | 2 |" in text
    agent = load_agent(
        str(tmp_path / "runs" / "yacht-heads-up-selfplay-tiny-s0"), P.HEADS_UP[task])
    assert agent.multiplayer_obs and agent.max_players == 2
    with pytest.raises(ValueError, match="plays in games of 2 players"):
        evaluate(agent, P.HEADS_UP[task], 2)


def test_heads_up_settings_that_cannot_work_are_refused_in_one_line(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from yacht_training.config import from_dict, load_config

    base = load_config(CONFIGS / "yacht_heads_up.yaml").to_dict()
    with pytest.raises(ValueError, match=r"'ppo.gamma' must be 1.0 with players: 2"):
        from_dict({**base, "ppo": {**base["ppo"], "gamma": 0.99}})
    argv = ["bench", "evaluate", "--agent", "greedy", "--tasks", "yacht-heads-up", "--seeds", "0", "1", "--out",
            str(tmp_path), "--no-progress"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "every seed gives the same record: leave --seeds out" in err
    assert not (tmp_path / "records").exists()


@pytest.mark.parametrize(("change", "match"), [
    (lambda f, r: f.update(against_optimal=5), "needs against_optimal"),
    (lambda f, r: f["against_optimal"].update(win_rate="x"), "against_optimal.win_rate must be a finite number"),
    (lambda f, r: f.update(win_rate=1.5), "final.win_rate must be a share in 0..1"),
    (lambda f, r: r.update(optimal=0.6), "references.optimal is exact play's chance to win, 0.5"),
])
def test_a_heads_up_record_with_bad_fields_is_refused(change: Any, match: str) -> None:
    path = Path(__file__).resolve().parents[1] / "docs" / "records" / "bench-v1" / "yacht-heads-up-greedy-agent-s0.json"
    record = json.loads(path.read_text())
    change(record["final"], record["references"])
    with pytest.raises(ValueError, match=match):
        P.check_record(record, "the record")


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"num_envs": 0}, r"num_envs must be an integer in 1\.\."),
    ({"reward_scale": float("nan")}, r"reward_scale must be a finite number in 0\.\..*got nan"),
    ({"reward_scale": 1e300}, r"reward_scale must be a finite number .*float32 rewards"),
    ({"reward_scale": -0.5}, r"reward_scale must be a finite number in 0\.\."),
    ({"reward_scale": "0.1"}, r"reward_scale must be a finite number"),
])
def test_self_play_settings_that_cannot_work_are_refused_in_one_line(kwargs: dict[str, Any], match: str,
                                                                     small: str) -> None:
    args = {"num_envs": 2, **kwargs}
    with pytest.raises(ValueError, match=match):
        HeadsUpVecEnv(args.pop("num_envs"), small, **args)


def test_a_bad_learner_action_is_refused_and_no_game_moves(small: str) -> None:
    env = HeadsUpVecEnv(2, small, seed=1)
    env.reset()
    before = list(env.seatings)
    legal = [int(np.flatnonzero(m)[0]) for m in env.action_masks()]
    for actions, match in [([999, legal[1]], r"action 999 is outside the action space: accepted 0\.\."),
                           ([legal[0]], "one action per game: 2 actions, got 1"),
                           ([legal[0], 2.5], "action must be an integer"),
                           ([legal[0], 31], r"game 1: action 31 .* is illegal")]:
        with pytest.raises(ValueError, match=match):
            env.step(np.array(actions, dtype=object if 2.5 in actions else None))
        assert env.seatings == before


def test_no_seat_holds_dice_between_its_turns_in_self_play(small: str) -> None:
    """At each of the learner's decisions the other seat awaits its roll (or has finished)."""
    env = HeadsUpVecEnv(4, small, seed=2)
    _, _ = _play(env, 0, seed=0)
    rng = np.random.default_rng(5)
    for _ in range(60):
        for seating, seat in zip(env.seatings, env.seats.tolist()):
            assert not seating[seat].awaits_roll and (seating[1 - seat].awaits_roll or seating[1 - seat].is_over)
        env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()]))


def test_optimal_win_estimate_and_count_agree(small: str) -> None:
    """optimal-win's chance to win by the exact win-regret and its win count agree: it reads no roll that is not
    made, so the estimate has no gap to the count."""
    res = H.chance_against_optimal_duel("optimal-win", small, 2_000, seed=3)
    lo, hi = res["chance_ci95"]
    wlo, whi = res["win_rate_ci95"]
    assert max(lo, wlo) <= min(hi, whi)
