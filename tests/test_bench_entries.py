"""Outside entries of the benchmark: ``yacht bench evaluate`` with a declared training (steps held to the budget as a
run's, a training seed, a learning curve read as data) is a learner of its budget; without it an agent is recorded
unverified, a reference row only; ``yacht bench report --with-baselines`` adds the published records; ``yacht bench
tune`` sweeps a learner's settings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_bench_protocol import TINY, tiny_budget  # noqa: F401 - the fixture of a tiny budget

from yacht_cli import main
from yacht_tools import entry_curve
from yacht_tools import protocol as P
from yacht_tools.protocol_report import FLAG_NOTE, aggregate_records, markdown_report

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
EVERY = TINY // P.CHECKPOINTS


def _evaluate(out: Path, *extra: str) -> int:
    """``yacht bench evaluate`` of the greedy player on yacht into ``out``, with ``extra`` flags."""
    return main(["bench", "evaluate", "--agent", "greedy", "--tasks", "yacht", "--out", str(out), "--no-progress",
                 *extra])


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    """The error's one line (the announcement of a first compile of the kernels, on a cold cache, left aside)."""
    lines = [ln for ln in capsys.readouterr().err.strip().splitlines() if not ln.startswith("yacht-env: compiling")]
    assert len(lines) == 1, lines
    return lines[0]


def test_an_entry_is_a_learner_of_its_budget_with_its_training_declared(tiny_budget: str,  # noqa: F811
                                                                        tmp_path: Path) -> None:
    curve = tmp_path / "curve.csv"
    curve.write_text("timesteps,mean\n" + "".join(f"{k * EVERY - 100},{100 + 10 * k}\n" for k in range(1, 6)))
    assert _evaluate(tmp_path, "--name", "mine", "--budget", tiny_budget, "--training-steps", str(TINY),
                     "--training-seed", "7", "--seeds", "3", "--curve", str(curve)) == 0
    rec = P.read_record(tmp_path / "records" / "yacht-mine-tiny-entry-s7.json")
    assert rec["kind"] == "entry" and rec["budget"] == tiny_budget and rec["budget_steps"] == TINY
    assert rec["seed"] == 7 and rec["agent_seed"] == 3
    assert rec["training"] == {"timesteps": TINY, "seed": 7, "source": "declared by the user"}
    refs = rec["references"]
    assert [(p["checkpoint"], p["timesteps"], p["mean"]) for p in rec["curve"]] == [
        (k, k * EVERY - 100, 100 + 10 * k) for k in range(1, 6)]
    assert rec["curve"][0]["normalised"] == pytest.approx((110 - refs["random"]) / (refs["optimal"] - refs["random"]))
    assert rec["curve"][0]["percent_of_optimal"] == pytest.approx(100 * 110 / refs["optimal"])
    report = aggregate_records([rec])
    section = report["budgets"][tiny_budget]
    assert [row["learner"] for row in section["tasks"]["yacht"]["rows"]] == ["mine"] and "mine" in section["aggregate"]
    assert section["tasks"]["yacht"]["curves"]["mine"]
    text = markdown_report(report)
    assert "| mine (declared) | 1 |" in text and FLAG_NOTE in text


def test_an_agent_given_a_budget_without_its_training_is_unverified_a_reference_row_only(
        tiny_budget: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    assert _evaluate(tmp_path, "--name", "claimed", "--budget", tiny_budget, "--seeds", "0", "1") == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["yacht bench evaluate: claimed is recorded unverified, a reference row, not a learner of tiny: give "
                   "--training-steps and --training-seed to enter it"]
    records = P.read_records([tmp_path / "records"])
    assert {(r["kind"], r["budget"], r["training"], r["verified"]) for r in records} == {("agent", None, None, False)}
    entry = json.loads(json.dumps(records[0]))  # two entries beside it: two learners of the budget
    entry.update(kind="entry", learner="mine", budget=tiny_budget, budget_steps=TINY, agent_seed=0)
    del entry["verified"]
    entries = []
    for seed in (4, 5):
        entries.append({**entry, "seed": seed, "training": P.entry_training(TINY, seed)})
        entries.append({**entries[-1], "learner": "other"})
    report = aggregate_records(records + [P.check_record(e, "entry") for e in entries])
    section = report["budgets"][tiny_budget]
    rows = {row["learner"]: row for row in section["tasks"]["yacht"]["rows"]}
    assert rows["claimed"]["verified"] is False and rows["claimed"]["runs"] == 2  # a reference row, flagged
    assert set(section["aggregate"]) == {"mine", "other"}  # never in the aggregate
    assert {(p["x"], p["y"]) for p in section["improvement"]} <= {("mine", "other"), ("other", "mine")}
    assert "| claimed (unverified) | 2 |" in markdown_report(report)


def test_reference_agents_are_not_compared_as_learners(tiny_budget: str, tmp_path: Path) -> None:  # noqa: F811
    """An agent of two seeds of its own draws is a reference row: the probability of improvement is between
    learners only."""
    assert _evaluate(tmp_path, "--seeds", "0", "1") == 0
    records = P.read_records([tmp_path / "records"])
    runs = [{**r, "kind": "entry", "learner": "mine", "budget": tiny_budget, "budget_steps": TINY, "seed": s,
             "agent_seed": 0, "training": P.entry_training(TINY, s)} for r, s in zip(records, (8, 9))]
    section = aggregate_records(records + runs)["budgets"][tiny_budget]
    assert "greedy" in section["aggregate"] and section["improvement"] == []


@pytest.mark.parametrize(("extra", "match"), [
    (["--training-steps", "24000"], "give both --training-steps and --training-seed"),
    (["--training-seed", "3"], "give both --training-steps and --training-seed"),
    (["--training-steps", "100000", "--training-seed", "3"], "need --budget"),
    (["--budget", "short", "--training-steps", "100001", "--training-seed", "3"],
     "the entry trained 100,001 steps, over its budget of 100,000: refused"),
    (["--budget", "short", "--training-steps", "98999", "--training-seed", "3"],
     "the entry trained 98,999 steps, under 99% of its budget of 100,000 (99,000)"),
    (["--budget", "short", "--training-steps", "1e5", "--training-seed", "3"], "--training-steps"),
    (["--budget", "short", "--training-steps", "100000", "--training-seed", "2000000000"],
     "--training-seed must be an integer in 0..1999999999"),
    (["--budget", "short", "--training-steps", "100000", "--training-seed", "3", "--seeds", "0", "1"],
     "an entry is one trained agent"),
    (["--curve", "c.csv"], "--curve is an entry's learning curve"),
    (["--budget", "short", "--training-steps", "100000", "--training-seed", "3", "--curve", "c.csv", "--tasks",
      "yacht", "yatzy"], "--curve is one task's learning curve"),
])
def test_a_declared_training_that_does_not_hold_is_refused_in_one_line(
        extra: list[str], match: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "evaluate", "--agent", "greedy", "--out", str(tmp_path), "--no-progress", *extra]) == 2
    err = _one_line_error(capsys)
    assert match in err, err
    assert not (tmp_path / "records").exists()  # refused before any evaluation


BAD_CURVES = [
    ("c.txt", "timesteps,mean\n1,2\n", "c.txt: a learning curve is a .csv or .json file: a CSV with the header"),
    ("c.csv", "steps,mean\n1,2\n", "c.csv: line 1: the header must be timesteps,mean or timesteps,percent_of_optimal"),
    ("c.csv", "timesteps,mean\n4800,100\n9600,1,2\n", "c.csv: line 3: a row is two numbers"),
    ("c.csv", "timesteps,mean\n4800,nan\n", "c.csv: line 2: mean must be a finite decimal number, got 'nan'"),
    ("c.csv", "timesteps,mean\n4800,1e999\n", "c.csv: line 2: mean must be a finite decimal number"),
    ("c.csv", "timesteps,mean\n4800.5,100\n", "c.csv: line 2: timesteps must be a whole number of steps"),
    ("c.csv", "timesteps,mean\n9600,100\n4800,100\n", "c.csv: line 3: timesteps must increase"),
    ("c.csv", "timesteps,mean\n24001,100\n", "c.csv: line 2: timesteps 24,001 is past the 24,000 steps the entry "
                                            "declares"),
    ("c.csv", "timesteps,mean\n" + "".join(f"{i},1\n" for i in range(10_001)), "more than 10,000 points"),
    ("c.csv", "timesteps,mean\n" + "1,1\n" * 300_000, "is 1,200,015 bytes, more than the limit of 1,048,576"),
    ("c.csv", "timesteps,mean\n", "c.csv: no points"),
    ("c.csv", "timesteps,mean\n100,150\n", "c.csv: no point lies near a fifth of the budget tiny (4,800, 9,600"),
    ("c.csv", b"timesteps,mean\n\xff\n", "c.csv: not UTF-8 text"),
    ("c.csv", "timesteps,mean\n4800,1\x00\n", "c.csv: line 2: mean must be a finite decimal number, got '1\\x00'"),
    ("c.csv", "timesteps,mean\n4800," + "1" * 200_000 + "\n", "c.csv: not a CSV curve (field larger than field limit"),
    ("c.json", "{\"timesteps\": 1}", "c.json: a JSON curve is a non-empty list"),
    ("c.json", "[{\"timesteps\": 4800, \"mean\": NaN}]", "c.json: point 1: mean must be a finite number"),
    ("c.json", "[{\"timesteps\": true, \"mean\": 1}]", "c.json: point 1: timesteps must be a whole number"),
    ("c.json", "[{\"timesteps\": 4800, \"mean\": 1}, {\"timesteps\": 9600, \"score\": 1}]",
     "c.json: point 2: each point is {\"timesteps\": N, \"mean\": X}"),
    ("c.json", "[{\"timesteps\": 4800, ", "c.json: not JSON"),
    ("c.json", "[{\"timesteps\": " + "9" * 5000 + ", \"mean\": 1}]", "c.json: not JSON"),
]


@pytest.mark.parametrize(("name", "content", "match"), BAD_CURVES)
def test_a_bad_curve_file_is_refused_in_one_line_naming_the_file_and_row(
        name: str, content: str | bytes, match: str, tiny_budget: str, tmp_path: Path,  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    assert _evaluate(tmp_path, "--budget", tiny_budget, "--training-steps", str(TINY), "--training-seed", "0",
                     "--curve", str(path)) == 2
    err = _one_line_error(capsys)
    assert match in err and str(tmp_path) in err, err
    assert not (tmp_path / "records").exists()


def test_a_curve_on_a_heads_up_task_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "c.csv").write_text("timesteps,mean\n100000,0.3\n")
    assert main(["bench", "evaluate", "--agent", "greedy", "--tasks", "yacht-heads-up", "--budget", "short",
                 "--training-steps", "100000", "--training-seed", "0", "--curve", str(tmp_path / "c.csv"),
                 "--out", str(tmp_path)]) == 2
    assert "a learning curve is read for the one-player tasks" in _one_line_error(capsys)


def test_a_curve_keeps_the_point_nearest_each_fifth_and_reads_percent_of_optimal(tiny_budget: str,  # noqa: F811
                                                                                 tmp_path: Path) -> None:
    optimal = P.references("yacht")["optimal"]
    csv = tmp_path / "c.csv"
    csv.write_text("timesteps,percent_of_optimal\n0,20\n4000,50\n4700,60\n5200,70\n9600,80\n24000,90\n")
    curve = entry_curve.read_curve(csv, "yacht", tiny_budget, TINY)
    assert [(p["checkpoint"], p["timesteps"]) for p in curve] == [(1, 4700), (2, 9600), (5, 24000)]
    assert curve[0]["mean"] == pytest.approx(60 * optimal / 100) and curve[0]["percent_of_optimal"] == 60
    js = tmp_path / "c.json"
    js.write_text(json.dumps([{"timesteps": t, "percent_of_optimal": v} for t, v in
                              ((0, 20), (4000, 50), (4700, 60), (5200, 70), (9600, 80), (24000, 90))]))
    assert entry_curve.read_curve(js, "yacht", tiny_budget, TINY) == curve


def _entry(greedy: dict[str, Any], **change: Any) -> dict[str, Any]:
    rec = {**greedy, "kind": "entry", "budget": "short", "budget_steps": 100_000, "seed": 5, "agent_seed": 0,
           "training": P.entry_training(100_000, 5)}
    rec.update(change)
    return rec


@pytest.mark.parametrize(("change", "match"), [
    ({"protocol": P.V1}, "an entry record is of yacht-bench v2, not yacht-bench v1"),
    ({"budget": None, "budget_steps": None}, "an entry record needs its budget"),
    ({"training": None}, "an entry's training holds exactly timesteps, seed and source"),
    ({"training": {"timesteps": 100_001, "seed": 5, "source": P.DECLARED}}, "the entry trained 100,001 steps, over"),
    ({"training": {"timesteps": 100_000, "seed": 6, "source": P.DECLARED}}, "an entry's training.seed is its "
                                                                           "record's seed (5), got 6"),
    ({"training": {"timesteps": 100_000, "seed": 5, "source": "me"}}, "an entry's training.source is 'declared by"),
    ({"agent_seed": None}, "an entry needs agent_seed"),
    ({"agent_seed": -1}, "an entry needs agent_seed"),
    ({"kind": "agent", "training": None, "agent_seed": None}, "an agent record has no budget"),
    ({"kind": "agent", "budget": None, "budget_steps": None, "training": None, "verified": True},
     "verified is only ever false"),
    ({"verified": False}, "verified is only ever false, on an agent record"),
])
def test_entry_records_that_do_not_hold_are_refused_with_one_line(
        change: dict[str, Any], match: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _evaluate(tmp_path) == 0
    greedy = json.loads((tmp_path / "records" / "yacht-greedy-agent-s0.json").read_text())
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_entry(greedy)))
    assert main(["bench", "report", str(good)]) == 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_entry(greedy, **change)))
    capsys.readouterr()
    assert main(["bench", "report", str(bad)]) == 2
    err = _one_line_error(capsys)
    assert match in err and "bad.json" in err, err


def test_a_name_of_two_kinds_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An entry named as a baseline learner (or agent) would join its rows: refused, in one line."""
    assert _evaluate(tmp_path) == 0
    greedy = json.loads((tmp_path / "records" / "yacht-greedy-agent-s0.json").read_text())
    (tmp_path / "records" / "entry.json").write_text(json.dumps(_entry(greedy)))
    assert main(["bench", "report", str(tmp_path / "records")]) == 2
    assert "greedy on yacht names records of two kinds (entry and agent)" in _one_line_error(capsys)


def test_report_with_baselines_puts_your_records_beside_the_published_ones(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    baselines, mine = tmp_path / "published", tmp_path / "mine"
    assert _evaluate(baselines) == 0
    assert _evaluate(mine, "--name", "mine", "--budget", "short", "--training-steps", "100000", "--training-seed",
                     "2") == 0
    monkeypatch.setattr(P, "BASELINE_RECORDS", baselines / "records")
    capsys.readouterr()
    out = tmp_path / "report.json"
    assert main(["bench", "report", str(mine / "records"), "--with-baselines", "--json", str(out)]) == 0
    rows = {r["learner"] for r in json.loads(out.read_text())["budgets"]["short"]["tasks"]["yacht"]["rows"]}
    assert rows == {"mine", "greedy"}
    assert "| mine (declared) | 1 |" in capsys.readouterr().out
    assert main(["bench", "report", str(baselines / "records"), "--with-baselines"]) == 0  # given twice: read once
    assert main(["bench", "report", "--with-baselines"]) == 0  # the baselines alone
    monkeypatch.setattr(P, "BASELINE_RECORDS", tmp_path / "absent")
    capsys.readouterr()
    assert main(["bench", "report", str(mine / "records"), "--with-baselines"]) == 2
    err = _one_line_error(capsys)
    assert "the published baseline records are not in this install" in err and "docs/records/bench-v2" in err
    assert main(["bench", "report"]) == 2
    assert "give the records to report" in _one_line_error(capsys)


def _tune_in_a_child(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """``yacht bench tune`` in a process of its own (its workers are spawned: pytest's own script would start again
    in them) with the tiny budget and 200 tuning games a trial."""
    code = ("import sys\nfrom yacht_tools import protocol as P\nfrom yacht_training import tuning\n"
            f"P.BUDGETS['tiny'] = {TINY}\ntuning.GAMES = 200\nfrom yacht_cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=600,
                          check=False)


def test_tune_runs_a_sweep_keeps_finished_trials_and_writes_the_winner(tmp_path: Path) -> None:
    from yacht_training.config import load_config

    sweep = tmp_path / "td-tiny.yaml"
    sweep.write_text(f"base: {CONFIGS / 'yacht_td.yaml'}\ntask: yacht\nbudget: tiny\n"
                     "grid:\n  td.epochs_per_iteration: [1, 2]\n")
    out, config = tmp_path / "tuning", tmp_path / "winner.yaml"
    argv = ["bench", "tune", str(sweep), "--out", str(out), "--write-config", str(config), "--no-progress"]
    done = _tune_in_a_child(argv)
    assert done.returncode == 0, done.stderr
    result = json.loads((out / "td-tiny.json").read_text())
    assert result["budget_steps"] == TINY and result["seeds"] == list(P.TUNING_SEEDS) and result["games"] == 200
    assert [t["change"] for t in result["trials"]] == [{"td": {"epochs_per_iteration": k}} for k in (1, 2)]
    for t in result["trials"]:
        assert set(t["scores"]) == {str(s) for s in P.TUNING_SEEDS}
        assert all(P.MIN_BUDGET_USE * TINY <= s <= TINY for s in t["steps"].values())
    best = max(result["trials"], key=lambda t: t["mean"])
    assert result["winner"]["trial"] == best["trial"]
    assert f"winner trial {best['trial']} (td.epochs_per_iteration=" in done.stdout and "core-hours" in done.stdout
    assert load_config(config).to_dict()["td"]["epochs_per_iteration"] == best["change"]["td"]["epochs_per_iteration"]
    runs = {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()}
    again = _tune_in_a_child(argv)  # everything done: kept, nothing trained again
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "td-tiny.json").read_text())["trials"] == result["trials"]
    assert runs == {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()}
    stopped = {**result, "trials": result["trials"][:1]}  # as if stopped after the first trial
    (out / "td-tiny.json").write_text(json.dumps(stopped))
    assert _tune_in_a_child(argv).returncode == 0
    assert json.loads((out / "td-tiny.json").read_text())["trials"][0] == result["trials"][0]
    now = {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()}
    assert {n for n in runs if runs[n] != now[n]} == {f"td-tiny-t1-s{s}" for s in P.TUNING_SEEDS}


@pytest.mark.parametrize(("text", "match"), [
    ("base: x.yaml\ntask: yacht\n", "a sweep holds exactly base (a train.py config), task, budget and grid"),
    ("base: BASE\ntask: yacht\nbudget: short\ngrid: {}\n", "grid maps dotted config keys"),
    ("base: BASE\ntask: yacht\nbudget: short\ngrid:\n  td.hidden: []\n", "grid maps dotted config keys"),
    ("base: BASE\ntask: chess\nbudget: short\ngrid:\n  td.explore: [0.0]\n", "unknown task 'chess'"),
    ("base: BASE\ntask: yacht\nbudget: day\ngrid:\n  td.explore: [0.0]\n", "unknown budget 'day'"),
    ("base: BASE\ntask: yacht\nbudget: short\ngrid:\n  td.nope: [1]\n", "nope"),
    ("base: BASE\ntask: yacht\nbudget: short\ngrid:\n" + "".join(f"  td.k{i}: [1, 2]\n" for i in range(10)),
     "the grid has 1,024 points, more than 1,000"),
    ("base: [\n", "s.yaml' is not valid YAML: while parsing a flow node"),
    ("base: BASE\ntask: yacht\ntask: yacht\nbudget: short\ngrid: {td.explore: [0.0]}\n", "key 'task' is given twice"),
    ("base: [1]\ntask: yacht\nbudget: short\ngrid:\n  td.explore: [0.0]\n", "base is the path of a train.py config"),
])
def test_a_bad_sweep_is_refused_in_one_line(text: str, match: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    sweep = tmp_path / "s.yaml"
    sweep.write_text(text.replace("BASE", str(CONFIGS / "yacht_td.yaml")))
    assert main(["bench", "tune", str(sweep), "--out", str(tmp_path / "out")]) == 2
    err = _one_line_error(capsys)
    assert match in err, err
    assert not (tmp_path / "out").exists()
