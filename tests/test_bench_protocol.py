"""The benchmark protocol's commands: a run of each learner writes a record the report reads, a run resumes where
it stopped, ``bench evaluate`` measures what ``yacht eval`` measures, and records of another protocol or task are
refused with one line."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from yacht_cli import main
from yacht_solver import solve
from yacht_solver.duel import DISK_BYTES
from yacht_tools import protocol as P
from yacht_tools.evaluation import evaluate
from yacht_tools.protocol_report import aggregate_records, markdown_report

pytest.importorskip("scipy")
CONFIGS = Path(__file__).resolve().parents[1] / "configs"
TINY = 24_000  # a budget of a few PPO rollouts / TD iterations: the commands' whole path in seconds


@pytest.fixture
def tiny_budget(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A budget ``tiny`` of :data:`TINY` steps beside the protocol's, and evaluations of 1,000 games instead of
    10,000 (in this process only; the references made meanwhile are forgotten after)."""
    monkeypatch.setitem(P.BUDGETS, "tiny", TINY)
    monkeypatch.setattr(P, "EVAL_GAMES", 1_000)
    P.references.cache_clear()
    yield "tiny"
    P.references.cache_clear()


@pytest.fixture(scope="module")
def greedy_records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bench")
    assert main(["bench", "evaluate", "--agent", "greedy", "--tasks", "yacht", "--out", str(out),
                 "--no-progress"]) == 0
    return out / "records"


def test_evaluate_measures_what_yacht_eval_measures(greedy_records: Path) -> None:
    rec = P.read_record(greedy_records / "yacht-greedy-agent-s0.json")
    same = evaluate("greedy", "yacht", P.EVAL_GAMES, P.EVAL_SEED, regret=True, compare=False)
    assert rec["final"]["mean"] == same["mean"] and rec["final"]["mean_regret"] == pytest.approx(same["mean_regret"])
    assert rec["final"]["episodes"] == P.EVAL_GAMES == 10_000
    refs = rec["references"]
    assert refs["optimal"] == solve("yacht").start_value
    assert refs["random"] == evaluate("random", "yacht", P.EVAL_GAMES, P.EVAL_SEED, regret=False)["mean"]
    assert rec["final"]["normalised"] == pytest.approx((same["mean"] - refs["random"])
                                                       / (refs["optimal"] - refs["random"]))


def test_a_report_of_agents_alone_is_not_headed_as_a_budget(greedy_records: Path) -> None:
    """Records of agents evaluated without ``--budget`` (your own agent, say) report under a heading that says so,
    not "Budget agents"."""
    text = markdown_report(aggregate_records(P.read_records([greedy_records])))
    assert text.startswith("## Agents evaluated without a training budget\n") and "Budget agents" not in text
    assert "| greedy | 1 |" in text


@pytest.mark.parametrize("learner", ["td=yacht_td.yaml",
                                     pytest.param("ppo=yacht_model_free.yaml", marks=pytest.mark.slow)])
def test_a_short_run_of_each_learner_writes_a_record_the_report_reads(learner: str, tiny_budget: str,
                                                                      tmp_path: Path) -> None:
    name, config = learner.split("=")
    argv = ["bench", "run", "--learner", f"{name}={CONFIGS / config}", "--tasks", "yacht", "--budget", tiny_budget,
            "--seeds", "0", "1", "--out", str(tmp_path), "--no-progress"]
    assert main(argv) == 0
    records = P.read_records([tmp_path / "records"])
    assert sorted(r["seed"] for r in records) == [0, 1]
    for r in records:
        assert r["kind"] == "run" and r["learner"] == name and r["budget_steps"] == TINY
        assert r["config"]["total_timesteps"] == TINY and r["config"]["rules"] == "yacht"
        assert P.MIN_BUDGET_USE * TINY <= r["training"]["timesteps"] <= TINY and r["curve"], r["training"]
        assert r["final"]["episodes"] == P.EVAL_GAMES and 0 < r["final"]["mean_regret"] < 10
    assert records[0]["final"]["mean"] != records[1]["final"]["mean"]  # two seeds, two networks
    report = aggregate_records(records)
    rows = {row["learner"]: row for row in report["budgets"][tiny_budget]["tasks"]["yacht"]["rows"]}
    assert set(rows) == {name} and rows[name]["runs"] == 2
    iqm = rows[name]["normalised"]
    assert iqm["low"] <= iqm["value"] <= iqm["high"]
    assert f"| {name} | 2 |" in markdown_report(report)
    before = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "records").iterdir()}
    assert main(argv) == 0  # everything recorded: read back, nothing run again
    assert before == {p.name: p.stat().st_mtime_ns for p in (tmp_path / "records").iterdir()}


def test_a_started_run_resumes_from_its_checkpoint(tiny_budget: str, tmp_path: Path) -> None:
    argv = ["bench", "run", "--learner", f"td={CONFIGS / 'yacht_td.yaml'}", "--tasks", "yacht", "--budget",
            tiny_budget, "--seeds", "3", "--out", str(tmp_path), "--no-progress"]
    assert main(argv) == 0
    run = tmp_path / "runs" / "yacht-td-tiny-s3"
    first = json.loads((tmp_path / "records" / "yacht-td-tiny-s3.json").read_text())
    (tmp_path / "records" / "yacht-td-tiny-s3.json").unlink()
    (run / "eval.json").unlink()  # as if stopped after its last checkpoint
    assert main(argv) == 0
    again = P.read_record(tmp_path / "records" / "yacht-td-tiny-s3.json")
    assert again["training"]["resumed"] is True
    assert again["final"]["mean"] == first["final"]["mean"]  # the same network, evaluated on the same games
    assert "yacht bench run" in (run / "command.txt").read_text()


def test_a_run_folder_of_another_config_is_not_taken_over(tiny_budget: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "run", "--learner", f"td={CONFIGS / 'yacht_td.yaml'}", "--tasks", "yacht", "--budget",
            tiny_budget, "--seeds", "4", "--out", str(tmp_path), "--no-progress"]
    assert main(argv) == 0
    (tmp_path / "records" / "yacht-td-tiny-s4.json").unlink()
    other = tmp_path / "other.yaml"  # another learner under the same name: a smaller network
    other.write_text((CONFIGS / "yacht_td.yaml").read_text().replace("hidden: [128, 128]", "hidden: [64, 64]"))
    argv[3] = f"td={other}"
    assert main(argv) == 1
    assert "was started with another config" in capsys.readouterr().err


def _record_text(greedy_records: Path, **change: object) -> str:
    rec = json.loads((greedy_records / "yacht-greedy-agent-s0.json").read_text())
    rec.update(change)
    return json.dumps(rec)


@pytest.mark.parametrize(("change", "match"), [
    ({"protocol": "yacht-bench v0"},
     "a record of protocol 'yacht-bench v0'; this version reads 'yacht-bench v1' and 'yacht-bench v2'"),
    ({"task": "backgammon"}, "unknown task 'backgammon'"),
    ({"budget": "primary", "budget_steps": 5}, "budget 'primary' is 500,000 steps"),
    ({"seed": -1}, "seed must be an integer"),
    ({"final": {"mean": 1}}, "final must hold"),
    ({"curve": [{"checkpoint": 9}]}, "each curve point needs a checkpoint"),
])
def test_records_that_do_not_match_the_protocol_are_refused_with_one_line(
        change: dict, match: str, greedy_records: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(_record_text(greedy_records, **change))
    assert main(["bench", "report", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and match in err and "bad.json" in err


@pytest.mark.parametrize(("argv", "match"), [
    (["bench", "run", "--learner", "x.yaml", "--tasks", "chess"], "unknown task 'chess'"),
    (["bench", "run", "--learner", "a=b=c.yaml"], "config file"),
    (["bench", "run", "--learner", "td=configs/yacht_td.yaml", "--budget", "day"], "unknown budget 'day'"),
    (["bench", "run", "--learner", "td=configs/yacht_td.yaml", "--seeds", "1", "1"], "repeats a seed"),
    (["bench", "run", "--learner", "td=configs/yacht_td.yaml", "--seeds", "2000000000"], "at most"),
    (["bench", "run", "--learner", "td=configs/yacht_td.yaml", "--learner", "td=configs/yacht_td.yaml"],
     "share a name"),
    (["bench", "evaluate"], "--agent is required"),
    (["bench", "report", "nowhere"], "no such record or folder"),
    (["bench"], "give a bench command"),
])
def test_bad_bench_input_is_one_line(argv: list[str], match: str, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and match in err, err


def test_the_protocol_page_states_the_protocol_the_code_runs() -> None:
    """Every figure of the page's protocol section is the code's: budgets, seeds, games, resamples, checkpoints."""
    from yacht_tools.protocol_report import RESAMPLES
    from yacht_training.tuning import GAMES

    page = (Path(__file__).resolve().parents[1] / "docs" / "benchmark.md").read_text(encoding="utf-8")
    protocol = " ".join(page.split("## The protocol, v2")[1].split("## Commands")[0].split())
    assert f"**`{P.PROTOCOL}`**" in page and f"`{P.V1}`" in page
    assert (f"**short {P.BUDGETS['short']:,}**, **primary {P.BUDGETS['primary']:,}** and "
            f"**long {P.BUDGETS['long']:,}**") in protocol
    assert f"less than {P.MIN_BUDGET_USE:.0%} of it" in protocol
    assert f"Training seeds {P.DEFAULT_SEEDS[0]} .. {P.DEFAULT_SEEDS[-1]} (ten runs" in protocol
    assert len(P.DEFAULT_SEEDS) == 10
    assert (f"tuning seeds {' and '.join(map(str, P.TUNING_SEEDS))}, each trial scored on {GAMES:,} tuning games "
            f"(seed {P.TUNING_GAME_SEED:,})") in protocol
    assert f"game_seed({P.EVAL_SEED:_}, j)" in protocol and f"`j` = 0 .. {P.EVAL_GAMES - 1:,}" in protocol
    assert f"seed {P.CURVE_SEED:,}, {P.CURVE_GAMES:,} games per point" in protocol
    assert f"every record plays the same {P.EVAL_GAMES:,} games" in protocol and f"{RESAMPLES:,} resamples" in protocol
    assert P.CHECKPOINTS == 5 and "each fifth of the budget" in protocol
    assert ", ".join(f"`{t}`" for t in P.TASKS) in protocol
    heads_up = protocol.split("**Heads-up**")[1]  # the heads-up task's games and the table it needs
    assert f"(`{next(iter(P.HEADS_UP))}`)" in protocol and f"the {P.EVAL_GAMES:,} evaluation games" in heads_up
    assert f"--games {P.EVAL_GAMES} --seed {P.EVAL_SEED}`" in heads_up
    assert f"curve's {P.CURVE_GAMES:,} games" in heads_up
    assert f"{DISK_BYTES[P.HEADS_UP['yacht-heads-up']] / 1e9:.1f} GB on disk" in heads_up


def test_the_committed_baselines_are_whole() -> None:
    """The baseline records the benchmark page reports: masked PPO and the TD learner on every one-player task at the
    primary budget, five seeds each, and masked PPO by self-play on the heads-up task; the three reference agents on
    every one-player task, and five on the heads-up one (the two players to win, optimal-win and optimal-duel, among
    them); all of this protocol."""
    records = P.read_records([Path(__file__).resolve().parents[1] / "docs" / "records" / "bench-v1"])
    runs = {(r["task"], r["learner"], r["seed"]) for r in records if r["kind"] == "run"}
    heads_up = [t for t in P.ALL_TASKS if P.task_players(t) == 2]
    v1_seeds = range(5)
    assert {r["protocol"] for r in records} == {P.V1}
    assert runs == ({(t, n, s) for t in P.TASKS for n in ("ppo", "td") for s in v1_seeds}
                    | {(t, "ppo", s) for t in heads_up for s in v1_seeds})
    assert all(r["budget"] == "primary" for r in records if r["kind"] == "run")
    refs = {(r["task"], r["learner"]) for r in records if r["kind"] == "agent"}
    two = ("random", "greedy", "optimal", "optimal-win", "optimal-duel")
    assert refs == ({(t, a) for t in P.TASKS for a in ("random", "greedy", "optimal")}
                    | {(t, a) for t in heads_up for a in two})
    for r in records:  # the ends of the normalised scale are what this code computes
        if P.task_players(r["task"]) == 1:
            assert r["references"] == P.references(r["task"]), r["task"]
    by = {(r["task"], r["learner"]): r for r in records if r["kind"] == "agent"}
    for t in heads_up:  # without the two-player table here: the random player's record is the scale's zero
        assert all(r["references"] == {"random": by[t, "random"]["final"]["mean"], "optimal": 0.5}
                   for r in records if r["task"] == t)
        exact = by[t, "optimal-duel"]["final"]  # its own regret is 0 up to rounding (ties within 1e-9 of the best)
        assert exact["mean"] == pytest.approx(0.5, abs=1e-9) and exact["mean_regret"] < 1e-9
    report = aggregate_records(records)
    assert set(report["budgets"]) == {"primary"} and set(report["budgets"]["primary"]["tasks"]) == set(P.ALL_TASKS)
    over = [r["training"]["timesteps"] for r in records if r["kind"] == "run"]  # v1's runs ended on whole rollouts
    assert min(over) > P.BUDGETS["primary"]
    assert report["budgets"]["primary"]["over_budget"] == {"runs": len(over), "of": len(over), "most": max(over)}
    assert (f"{len(over)} of {len(over)} runs trained past the budget (up to {max(over):,} steps for 500,000)"
            in markdown_report(report))
    assert set(report["budgets"]["primary"]["aggregate"]["ppo"]["tasks"]) == set(P.TASKS)


def test_the_heads_up_reference_rows_are_the_records() -> None:
    """The benchmark page's reference rows over many games (``benchmarks/heads_up_references.py``) quote the record:
    each agent's chance to win against optimal-duel and its win count, with their intervals and games; and for both
    the count lies within two standard errors of the estimate (optimal-win reads no roll that is not made)."""
    root = Path(__file__).resolve().parents[1]
    record = json.loads((root / "docs" / "records" / "heads-up-references.json").read_text())
    page = " ".join((root / "docs" / "benchmark.md").read_text(encoding="utf-8").split())
    assert record["opponent"] == "optimal-duel" and record["seed"] == P.EVAL_SEED
    assert set(record["agents"]) == {"optimal", "optimal-win"}
    assert record["agents"]["optimal-win"]["games"] >= 200_000  # the agreement is tested at a count's sharpness
    for name, r in record["agents"].items():
        assert r["games"] >= 10_000 and r["games"] % r["games_per_seed"] == 0
        assert r["seeds"] == [record["seed"], record["seed"] + r["games"] // r["games_per_seed"] - 1]
        lo, hi = r["chance_ci95"]
        wlo, whi = r["win_rate_ci95"]
        assert lo <= r["chance"] <= hi and wlo <= r["win_rate"] <= whi
        assert abs(r["gap_se"]) <= 2, (name, r["gap_se"])
        assert (f"`{name}` {r['chance']:.4f} [{lo:.4f}, {hi:.4f}] (counted: {r['win_rate']:.4f} "
                f"[{wlo:.4f}, {whi:.4f}], {r['games']:,} games)") in page, name


@pytest.mark.parametrize(("steps", "match"), [
    (100_001, "trained 100,001 steps, over its budget of 100,000: refused"),
    (98_999, "trained 98,999 steps, under 99% of its budget of 100,000 (99,000)"),
    (None, "a run record needs training.timesteps"),
])
def test_a_v2_run_must_hold_its_budget(steps: int | None, match: str, greedy_records: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "over.json"
    bad.write_text(_record_text(greedy_records, kind="run", budget="short", budget_steps=100_000,
                                training={"timesteps": steps}))
    assert main(["bench", "report", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and match in err, err
    bad.write_text(_record_text(greedy_records, kind="run", budget="short", budget_steps=100_000,
                                training={"timesteps": 99_000}))
    assert main(["bench", "report", str(bad)]) == 0  # 99% of the budget: held


def test_v1_records_are_read_but_never_reported_beside_v2(greedy_records: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    old = tmp_path / "old.json"
    old.write_text(_record_text(greedy_records, protocol=P.V1, learner="greedy-v1"))
    assert main(["bench", "report", str(old)]) == 0
    assert main(["bench", "report", str(old), str(greedy_records)]) == 2
    assert "records of yacht-bench v1 and yacht-bench v2 in one report" in capsys.readouterr().err
    long_v1 = tmp_path / "long.json"
    long_v1.write_text(_record_text(greedy_records, protocol=P.V1, budget="long", budget_steps=P.BUDGETS["long"]))
    assert main(["bench", "report", str(long_v1)]) == 2
    assert "yacht-bench v1 has the budgets short, primary, not 'long'" in capsys.readouterr().err


V2 = Path(__file__).resolve().parents[1] / "docs" / "records" / "bench-v2"


def test_the_committed_v2_baselines_are_whole() -> None:
    """The v2 baselines the page reports at the short and primary budgets: masked PPO (model-free) and the TD learner
    with their tuned configs, ten seeds on yacht and five on every other task, each run within its budget and every
    task's run of a learner and budget on one config; the untuned outside entry on yacht at the short budget; the
    three reference agents on every one-player task; on the heads-up task at the primary budget both learners for
    the game of two (five seeds, the same configs but for their players), the five reference agents and the primary
    one-player runs seated there as entries; all of v2."""
    records = P.read_records([V2])
    assert {r["protocol"] for r in records} == {P.PROTOCOL}
    runs = {(r["task"], r["learner"], r["budget"], r["seed"]) for r in records if r["kind"] == "run"}
    seeds = {t: range(10) if t == "yacht" else range(5) for t in P.TASKS}
    assert runs == ({(t, n, b, s) for t in P.TASKS for n in ("ppo", "td") for b in ("short", "primary")
                     for s in seeds[t]} | {("yacht", "outside-ppo", "short", s) for s in range(5)}
                    | {(h, n, "primary", s) for h in P.HEADS_UP for n in ("ppo", "td") for s in range(5)})
    entries = {(r["task"], r["learner"], r["seed"]) for r in records if r["kind"] == "entry"}
    assert entries == ({(h, "td-alone", s) for h in P.HEADS_UP for s in range(5)}
                       | {(h, "ppo-alone", s) for h in P.HEADS_UP for s in range(3)})
    configs: dict[tuple[str, str], list[dict]] = {}
    for r in records:
        if r["kind"] == "run":
            steps = P.BUDGETS[r["budget"]]
            assert P.MIN_BUDGET_USE * steps <= r["training"]["timesteps"] <= steps, r["training"]
            configs.setdefault((r["learner"], r["budget"]), []).append(
                {k: v for k, v in r["config"].items() if k not in ("rules", "seed", "players", "exact_budget")})
    assert all(c == cs[0] for cs in configs.values() for c in cs)
    refs = {(r["task"], r["learner"]) for r in records if r["kind"] == "agent"}
    two = ("random", "greedy", "optimal", "optimal-win", "optimal-duel")
    assert refs == ({(t, a) for t in P.TASKS for a in ("random", "greedy", "optimal")}
                    | {(h, a) for h in P.HEADS_UP for a in two})


def test_the_baselines_configs_are_their_sweeps_winners() -> None:
    """configs/bench/<learner>-<budget>.yaml is the winner of the learner's last sweep at that budget, as
    ``yacht bench tune --write-config`` writes it; the sweeps ran on the tuning seeds and games, on yacht; a later
    stage searched around the earlier stage's winner."""
    from yacht_training.config import load_config
    from yacht_training.tuning import GAMES, winner_config

    root = Path(__file__).resolve().parents[1]
    sweeps = {p.stem: json.loads(p.read_text()) for p in sorted((V2 / "tuning").glob("*.json"))}
    last = {"model-free-short": "model-free-short-3", "td-short": "td-short",
            "model-free-primary": "model-free-primary-2", "td-primary": "td-primary"}
    assert set(sweeps) == {"model-free-short", "model-free-short-2", "model-free-primary", *last.values()}
    for name, s in sweeps.items():
        assert s["seeds"] == list(P.TUNING_SEEDS) and s["game_seed"] == P.TUNING_GAME_SEED and s["games"] == GAMES
        assert s["task"] == "yacht" and name.endswith(("-" + s["budget"], f"-{s['budget']}-2", f"-{s['budget']}-3"))
        assert s["protocol"] == P.PROTOCOL and s["sweep"] == name
        assert len(s["trials"]) == len(list(itertools.product(*s["grid"].values())))
        assert s["winner"]["mean"] == max(t["mean"] for t in s["trials"])
    for config, sweep in last.items():
        kept = load_config(root / "configs" / "bench" / f"{config}.yaml").to_dict()
        assert kept == load_config_dict(winner_config(sweeps[sweep])), config
    for stage, before in (("model-free-short-2", "model-free-short"), ("model-free-short-3", "model-free-short-2"),
                          ("model-free-primary-2", "model-free-primary")):
        won = sweeps[before]["winner"]["change"]
        grid = sweeps[stage]["grid"]
        assert won["n_envs"] in grid["n_envs"] and all(v in grid[f"ppo.{k}"] for k, v in won["ppo"].items())


def load_config_dict(data: dict) -> dict:
    """``data`` as a config reads it (defaults filled in), as a mapping."""
    from yacht_training.config import from_dict

    return from_dict(data).to_dict()
