"""``yacht bench report``'s statistics on synthetic records: like with like in the aggregate, the optimality gap,
the evaluation games' noise, the interquartile-mean learning curves, the performance profiles (JSON and picture)
and the note under a probability of improvement whose runs are separated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from yacht_cli import main
from yacht_tools import protocol as P

pytest.importorskip("scipy")
from yacht_tools.protocol_report import aggregate_records, markdown_report  # noqa: E402
from yacht_tools.protocol_stats import DEGENERATE, SEPARATED, iqm, optimality_gap, performance_profile  # noqa: E402

BENCH = Path(__file__).resolve().parents[1] / "docs" / "records" / "bench-v1"
B_YAHTZEE = (0.6, 0.62, 0.64, 0.7, 0.85)
"""``b``'s runs on yahtzee: skewed, so their interquartile mean (0.653) is not their mean (0.682)."""


def _run(task: str, learner: str, seed: int, score: float, half: float = 0.5) -> dict[str, Any]:
    """A v2 run record of ``learner`` on ``task`` whose final normalised score is ``score`` and whose interval over
    the evaluation games is its mean ± ``half`` points; its curve climbs to ``score`` (the committed TD record of
    the task gives the rest)."""
    rec = json.loads((BENCH / f"{task}-td-primary-s0.json").read_text())
    refs = rec["references"]

    def at(norm: float) -> dict[str, float]:
        mean = refs["random"] + norm * (refs["optimal"] - refs["random"])
        return {"mean": mean, "percent_of_optimal": 100.0 * mean / refs["optimal"], "normalised": norm}

    final = at(score)
    rec.update(protocol=P.PROTOCOL, learner=learner, seed=seed, training={"timesteps": rec["budget_steps"]})
    rec["final"].update(final, ci95=[final["mean"] - half, final["mean"] + half])
    rec["curve"] = [{"checkpoint": k, "timesteps": k * 100_000, **at(score * k / 5)} for k in range(1, 6)]
    return P.check_record(rec, f"{task}-{learner}-s{seed}")


def _records() -> list[dict[str, Any]]:
    """``a`` on yacht and yahtzee, ``b`` on both and below ``a`` on every run, ``c`` on yacht alone."""
    out = []
    for i in range(5):
        out += [_run("yacht", "a", i, 0.95 + 0.01 * i, half=0.6 + 0.1 * i), _run("yahtzee", "a", i, 0.9 + 0.01 * i),
                _run("yacht", "b", i, 0.7 + 0.02 * i), _run("yahtzee", "b", i, B_YAHTZEE[i]),
                _run("yacht", "c", i, 0.99)]
    return out


def test_the_aggregate_takes_a_learner_only_with_every_task() -> None:
    report = aggregate_records(_records())
    sec = report["budgets"]["primary"]
    assert set(sec["aggregate"]) == {"a", "b"} and sec["aggregate"]["a"]["tasks"] == ["yacht", "yahtzee"]
    assert sec["partial"] == {"c": {"tasks": ["yacht"], "lacks": ["yahtzee"],
                                    "iqm": {"value": pytest.approx(0.99), "low": pytest.approx(0.99),
                                            "high": pytest.approx(0.99)}}}
    assert [(p["x"], p["y"]) for p in sec["improvement"]] == [("a", "b")]  # c, the best on yacht, is not compared
    assert set(sec["profiles"]["learners"]) == {"a", "b"}
    text = markdown_report(report)
    assert "### Learners measured on some tasks" in text and "| c | 1 | yahtzee | 0.990 [0.990, 0.990] |" in text
    aggregate = text.split("### All one-player tasks")[1].split("### Learners measured")[0]
    assert "| a | 2 |" in aggregate and "| c |" not in aggregate


def test_the_optimality_gap_is_reported_per_row_and_over_the_tasks() -> None:
    sec = aggregate_records(_records())["budgets"]["primary"]
    a_yacht = next(row for row in sec["tasks"]["yacht"]["rows"] if row["learner"] == "a")
    assert a_yacht["optimality_gap"]["value"] == pytest.approx(np.mean([0.05, 0.04, 0.03, 0.02, 0.01]))
    pooled = [0.95 + 0.01 * i for i in range(5)] + [0.9 + 0.01 * i for i in range(5)]
    gap = sec["aggregate"]["a"]["optimality_gap"]
    assert gap["value"] == pytest.approx(optimality_gap(pooled)) and gap["low"] < gap["value"] < gap["high"]
    assert "optimality gap (lower is better)" in markdown_report({"budgets": {"primary": sec}})


def test_each_task_states_the_evaluation_games_noise_from_its_records() -> None:
    """The median half-width of the records' intervals over the evaluation games, in percent of optimal play, and
    the sentence that the intervals cover the training seeds given those games."""
    records = _records()
    report = aggregate_records(records)
    noise = report["budgets"]["primary"]["tasks"]["yacht"]["evaluation_noise"]
    opt = records[0]["references"]["optimal"]
    halves = sorted(0.5 if r["learner"] != "a" else 0.6 + 0.1 * r["seed"] for r in records if r["task"] == "yacht")
    assert noise["records"] == 15 and noise["games"] == P.EVAL_GAMES
    assert noise["percent_of_optimal"] == pytest.approx(100 * np.median(halves) / opt)
    row = next(row for row in report["budgets"]["primary"]["tasks"]["yacht"]["rows"] if row["learner"] == "a")
    assert row["evaluation_noise_percent"] == pytest.approx(100 * 0.8 / opt)
    assert "training seeds, given the fixed evaluation games" in report["intervals"]
    text = markdown_report(report)
    assert f"The evaluation games' own noise: ±{100 * 0.5 / opt:.2f}% of optimal" in text
    assert text.count("Every row plays the same games, so this noise is common to all rows") == 2  # one per task


def test_the_learning_curves_are_interquartile_means() -> None:
    sec = aggregate_records(_records())["budgets"]["primary"]
    points = sec["tasks"]["yahtzee"]["curves"]["b"]
    assert [p["checkpoint"] for p in points] == [1, 2, 3, 4, 5] and {p["statistic"] for p in points} == {"iqm"}
    assert points[-1]["value"] == pytest.approx(iqm(B_YAHTZEE)) == pytest.approx((0.62 + 0.64 + 0.7) / 3)
    assert points[-1]["value"] < np.mean(B_YAHTZEE) - 0.02  # not the mean, which the curves were before
    assert points[-1]["low"] < points[-1]["value"] < points[-1]["high"]


def test_the_profiles_are_in_the_json_and_drawn_a_panel_per_budget(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "records"
    for r in _records():
        P.write_record(r, folder)
    out = tmp_path / "report.json"
    pytest.importorskip("matplotlib")
    assert main(["bench", "report", str(folder), "--json", str(out), "--profiles", str(tmp_path / "p.png")]) == 0
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"
    prof = json.loads(out.read_text())["budgets"]["primary"]["profiles"]
    taus = np.asarray(prof["thresholds"])
    assert len(taus) == 1001 and taus[0] == 0 and taus[-1] == 1
    runs = {"yacht": [0.7 + 0.02 * i for i in range(5)], "yahtzee": list(B_YAHTZEE)}
    direct = performance_profile(runs, taus, resamples=2000)
    assert prof["learners"]["b"]["value"] == pytest.approx(direct.value, abs=1e-6)
    assert prof["learners"]["b"]["low"] == pytest.approx(direct.low, abs=1e-6)
    agent = tmp_path / "agent.json"
    agent.write_text((BENCH / "yacht-greedy-agent-s0.json").read_text())
    capsys.readouterr()
    assert main(["bench", "report", str(agent), "--profiles", str(tmp_path / "q.png")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--profiles: no run records" in err and not (tmp_path / "q.png").exists()


def test_a_separated_probability_of_improvement_has_an_interval_and_a_note() -> None:
    """Every run of ``a`` beats every run of ``b`` on both tasks: the bootstrap's [1, 1] is replaced by the exact
    interval of 2 tasks x 5 pairs, and a note says why."""
    report = aggregate_records(_records())
    (p,) = report["budgets"]["primary"]["improvement"]
    assert p["value"] == 1.0 and p["method"] == SEPARATED and p["low"] == pytest.approx(0.025 ** (1 / 10))
    text = markdown_report(report)
    assert f"| 1.000 [{0.025 ** 0.1:.3f}, 1.000] \\* | a | b |" in text
    assert "\\* Every run of X beat every run of Y on every task" in text


def test_the_committed_baselines_compare_with_an_interval_that_is_not_a_point() -> None:
    """The baselines: TD beat masked PPO on every run of all 6 one-player tasks, so P(TD > PPO) is 1 with the exact
    interval of 30 pairs, [0.884, 1], not [1, 1]."""
    report = aggregate_records(P.read_records([BENCH]))
    (p,) = report["budgets"]["primary"]["improvement"]
    assert (p["x"], p["y"], p["value"], p["method"]) == ("td", "ppo", 1.0, SEPARATED)
    assert f"{p['low']:.3f}" == "0.884" and p["high"] == 1.0
    noise = report["budgets"]["primary"]["tasks"]["yacht"]["evaluation_noise"]["percent_of_optimal"]
    assert 0.35 < noise < 0.45  # about ±0.4% of optimal over 10,000 games


def test_a_point_interval_of_opposite_separations_is_marked_and_explained() -> None:
    """``x`` beats ``y`` on every run of yacht, ``y`` beats ``x`` on every run of yahtzee: every resample gives
    1/2, and the table says that the point interval shows no spread."""
    records = []
    for i in range(3):
        records += [_run("yacht", "x", i, 0.9 + 0.01 * i), _run("yahtzee", "x", i, 0.5 + 0.01 * i),
                    _run("yacht", "y", i, 0.5 + 0.01 * i), _run("yahtzee", "y", i, 0.9 + 0.01 * i)]
    report = aggregate_records(records)
    (p,) = report["budgets"]["primary"]["improvement"]
    assert p["value"] == p["low"] == p["high"] == 0.5 and p["method"] == DEGENERATE
    text = markdown_report(report)
    assert "| 0.500 [0.500, 0.500] † |" in text and "† Each task's runs are separated (or tied)" in text
    assert "Every run of X beat every run of Y" not in text


def test_the_learning_curve_over_all_tasks_is_the_iqm_of_every_run_and_drawn_first() -> None:
    """Per learner measured on every task: at each checkpoint, the IQM of the normalised scores of every run of every
    task (stratified band), in the JSON and as the first panel of ``--plot``; not for a learner of some tasks."""
    records = _records()
    sec = aggregate_records(records)["budgets"]["primary"]
    curve = sec["aggregate"]["b"]["curve"]
    assert [p["checkpoint"] for p in curve] == [1, 2, 3, 4, 5] and curve[-1]["runs"] == 10
    last = [0.7 + 0.02 * i for i in range(5)] + list(B_YAHTZEE)  # the synthetic curves end at the final score
    assert curve[-1]["value"] == pytest.approx(iqm(last)) == pytest.approx(sec["aggregate"]["b"]["iqm"]["value"])
    assert curve[0]["value"] == pytest.approx(iqm([v / 5 for v in last]))
    assert curve[0]["low"] < curve[0]["value"] < curve[0]["high"] and "c" not in sec["aggregate"]
    pytest.importorskip("matplotlib")
    from yacht_tools.protocol_report import curves_figure

    titles = [ax.get_title() for ax in curves_figure(records).axes if ax.get_visible()]
    assert titles == ["all one-player tasks", "yacht", "yahtzee"]


def test_profiles_of_learners_that_lack_a_task_are_refused_in_one_line(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Runs of ``c`` on yacht alone beside a reference agent on yacht and yahtzee: no learner with runs has every
    task, so there is no profile to draw (the profiles pool the tasks)."""
    pytest.importorskip("matplotlib")
    folder = tmp_path / "records"
    for r in _records():
        if r["learner"] == "c":
            P.write_record(r, folder)
    for task in ("yacht", "yahtzee"):
        agent = json.loads((BENCH / f"{task}-greedy-agent-s0.json").read_text())
        P.write_record(P.check_record({**agent, "protocol": P.PROTOCOL}, task), folder)
    assert main(["bench", "report", str(folder), "--profiles", str(tmp_path / "p.png")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no learner with runs was measured on every one-player task" in err
    assert not (tmp_path / "p.png").exists()
