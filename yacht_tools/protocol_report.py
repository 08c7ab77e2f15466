"""``yacht bench report``: records of the benchmark protocol put together into tables, aggregates and curves.

Per budget: each task's table (a row per learner or agent: runs, interquartile mean of the score, of its percent of
optimal and of the normalised score with 95% stratified bootstrap intervals, mean regret per decision), the
normalised score over all tasks (interquartile mean, mean and median, each with its interval), the probability of
improvement between every two learners, and the learning curves (mean normalised score at each checkpoint with its
interval). A heads-up task's table gives the chance to win against ``optimal-duel`` instead of the score, and the
win rate against ``optimal``; the aggregate is of the one-player tasks, whose normalised scores share one scale. An
agent record (a reference row: random, greedy, optimal) joins every budget's tables; one marked unverified (evaluated
for a budget without its training declared) is flagged and stays out of the aggregate. An entry (an outside learner,
its training declared) is a learner of its budget, flagged as declared. Intervals need two runs or more; a single
run shows its value alone.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from yacht_tools import protocol as P
from yacht_tools.plots import figure, legend_below, save
from yacht_tools.protocol_stats import STATISTICS, Estimate, aggregate, iqm, probability_of_improvement

NO_BUDGET = "agents"
"""The section of a report whose records are all agents evaluated without a budget (no run to set one)."""

RESAMPLES = 2000
"""Bootstrap resamples of every interval (seeded: a report is the same on every run)."""


def _estimate(runs_by_task: dict[str, list[float]], statistic: str) -> dict[str, Any]:
    """``statistic`` over the runs with its interval (None bounds where some task has one run)."""
    if all(len(v) >= 2 for v in runs_by_task.values()):
        e = aggregate(runs_by_task, statistic, resamples=RESAMPLES)
    else:
        flat = np.concatenate([np.asarray(v, dtype=np.float64) for v in runs_by_task.values()])
        value = {"iqm": iqm, "mean": np.mean, "median": np.median}[statistic](flat)
        e = Estimate(float(value), float("nan"), float("nan"), 0.95)
    return {"value": e.value, "low": None if np.isnan(e.low) else e.low, "high": None if np.isnan(e.high) else e.high}


def _groups(records: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, list[dict[str, Any]]]]]:
    """budget -> task -> learner -> records; budget-less agent records go into every budget (or ``agents``)."""
    budgets = sorted({r["budget"] for r in records if r["budget"]}, key=list(P.BUDGETS).index) or [NO_BUDGET]
    out: dict[str, dict[str, dict[str, list[dict[str, Any]]]]] = {
        b: defaultdict(lambda: defaultdict(list)) for b in budgets}
    seen: set[tuple[Any, ...]] = set()
    first: dict[str, dict[str, Any]] = {}
    for r in records:
        key = (r["budget"], r["task"], r["learner"], r["seed"])
        if key in seen:
            raise ValueError(f"two records of {r['learner']} on {r['task']} (budget {r['budget']}, seed "
                             f"{r['seed']}): give each run once")
        seen.add(key)
        other = first.setdefault(r["task"], r)
        if other["references"] != r["references"]:
            raise ValueError(f"the records of {r['task']} disagree on the references: {other['learner']} (seed "
                             f"{other['seed']}) has {other['references']}, {r['learner']} (seed {r['seed']}) has "
                             f"{r['references']}; records of one protocol share them")
        for b in ([r["budget"]] if r["budget"] else budgets):
            rows = out[b][r["task"]][r["learner"]]
            if rows and _label(rows[0]) != _label(r):
                raise ValueError(f"{r['learner']} on {r['task']} names records of two kinds ({_label(rows[0])} and "
                                 f"{_label(r)}): a run, an entry and an agent each need a name of their own (yacht "
                                 "bench evaluate --name)")
            rows.append(r)
    return out


def _label(record: dict[str, Any]) -> str:
    """What a record's row is: ``run``, ``entry`` (declared training), ``agent`` or ``unverified`` (an agent)."""
    return "unverified" if record.get("verified") is False else record["kind"]


def _row(learner: str, recs: list[dict[str, Any]]) -> dict[str, Any]:
    finals = [r["final"] for r in recs]
    row = {"learner": learner, "kind": recs[0]["kind"], "verified": recs[0].get("verified", True), "runs": len(recs),
           "seeds": sorted(r["seed"] for r in recs)}
    for key in ("mean", "percent_of_optimal", "normalised"):
        row[key] = _estimate({"task": [f[key] for f in finals]}, "iqm")
    row["mean_regret"] = float(np.mean([f["mean_regret"] for f in finals]))
    if all("against_optimal" in f for f in finals):  # heads-up: the win rate against the expected-score player
        row["against_optimal"] = _estimate({"task": [f["against_optimal"]["win_rate"] for f in finals]}, "iqm")
    walls = [r["wall_s"] for r in recs if isinstance(r.get("wall_s"), (int, float))]
    row["wall_s"] = float(np.sum(walls)) if walls else None
    return row


def _curve(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_k: dict[int, list[float]] = defaultdict(list)
    steps: dict[int, list[float]] = defaultdict(list)
    for r in recs:
        for p in r["curve"]:
            by_k[p["checkpoint"]].append(p["normalised"])
            steps[p["checkpoint"]].append(p["timesteps"])
    return [{"checkpoint": k, "timesteps": float(np.mean(steps[k])), "runs": len(by_k[k]),
             **_estimate({"task": by_k[k]}, "mean")} for k in sorted(by_k)]


def aggregate_records(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The report of ``records`` (checked records of one protocol) as a JSON-ready mapping (module docstring)."""
    versions = sorted({r["protocol"] for r in records})
    if len(versions) > 1:
        raise ValueError(f"records of {' and '.join(versions)} in one report: report each version apart ({P.V1}'s "
                         "runs passed their budgets by up to a rollout, so its rows are not at the budget)")
    out: dict[str, Any] = {"protocol": versions[0] if versions else P.PROTOCOL, "records": len(records),
                           "budgets": {}}
    for budget, tasks in _groups(records).items():
        section: dict[str, Any] = {"steps": P.BUDGETS.get(budget), "tasks": {}, "aggregate": {}, "improvement": []}
        by_learner: dict[str, dict[str, list[float]]] = defaultdict(dict)
        kinds: dict[str, set[str]] = defaultdict(set)  # agents (reference rows) are no learners to compare
        for learners in tasks.values():
            for name, recs in learners.items():
                kinds[recs[0]["kind"]].add(name)
        for task in sorted(tasks, key=P.ALL_TASKS.index):
            learners = tasks[task]
            refs = learners[next(iter(learners))][0]["references"]
            section["tasks"][task] = {"references": refs,
                                      "rows": sorted((_row(n, rs) for n, rs in learners.items()),
                                                     key=lambda row: -row["normalised"]["value"]),
                                      "curves": {n: _curve(rs) for n, rs in learners.items()
                                                 if any(r["curve"] for r in rs)}}
            if P.task_players(task) == 1:  # the aggregate is of the one-player tasks: one scale, the score's
                for name, recs in learners.items():
                    if _label(recs[0]) != "unverified":
                        by_learner[name][task] = [r["final"]["normalised"] for r in recs]
        for name, runs in by_learner.items():
            section["aggregate"][name] = {"tasks": sorted(runs, key=P.ALL_TASKS.index),
                                          **{s: _estimate(runs, s) for s in STATISTICS}}
        trained = sorted((n for n, runs in by_learner.items() if all(len(v) >= 2 for v in runs.values())
                          and n not in kinds.get("agent", ())),
                         key=lambda n: -section["aggregate"][n]["iqm"]["value"])  # X the stronger: P(X > Y)
        for i, x in enumerate(trained):
            for y in trained[i + 1:]:
                if set(by_learner[x]) & set(by_learner[y]):
                    e = probability_of_improvement(by_learner[x], by_learner[y], resamples=RESAMPLES)
                    section["improvement"].append({"x": x, "y": y, "value": e.value, "low": e.low, "high": e.high})
        out["budgets"][budget] = section
    return out


def _name(text: str) -> str:
    """A learner's name as a Markdown table cell: its pipes escaped (a name cannot add columns or rows; records hold
    names of one line)."""
    return text.replace("\\", "\\\\").replace("|", "\\|")


FLAGS = {"entry": "declared", "unverified": "unverified"}
"""The flag a row's learner cell carries after its name, by what its records are (:func:`_label`)."""
FLAG_NOTE = ("(declared): an outside entry, trained by its author for the steps and from the seed they declared "
             "(yacht bench evaluate --training-steps --training-seed), evaluated here. (unverified): an agent "
             "evaluated for a budget without its training declared: a reference row, not in the aggregate.")


def _row_name(row: dict[str, Any]) -> str:
    """A row's learner cell: its name, flagged ``(declared)`` for an entry and ``(unverified)`` for an agent whose
    training was not declared."""
    label = "unverified" if row.get("verified") is False else row["kind"]
    return _name(row["learner"]) + (f" ({FLAGS[label]})" if label in FLAGS else "")


def _flag_note(rows: list[dict[str, Any]]) -> list[str]:
    """The lines under a table that say what its flags mean: none where no row is flagged."""
    return ["", FLAG_NOTE] if any(_row_name(r) != _name(r["learner"]) for r in rows) else []


def _cell(e: dict[str, Any], digits: int, scale: float = 1.0) -> str:
    v = f"{e['value'] * scale:.{digits}f}"
    if e["low"] is None:
        return v
    return f"{v} [{e['low'] * scale:.{digits}f}, {e['high'] * scale:.{digits}f}]"


def markdown_report(report: dict[str, Any], level: int = 2) -> str:
    """The report as Markdown tables: per budget, the tasks, the aggregate and the probabilities of improvement
    (``level``: the depth of the budgets' headings)."""
    h2, h3 = "#" * level, "#" * (level + 1)
    lines: list[str] = []
    for budget, sec in report["budgets"].items():
        steps = f" ({sec['steps']:,} environment steps)" if sec["steps"] else ""
        title = "Agents evaluated without a training budget" if budget == NO_BUDGET else f"Budget {budget}{steps}"
        lines += [f"{h2} {title}", ""]
        for task, t in sec["tasks"].items():
            refs = t["references"]
            if P.task_players(task) == 2:
                lines += [f"{h3} {task}", "", *_heads_up_table(t), ""]
                continue
            lines += [f"{h3} {task}", "",
                      f"Optimal play {refs['optimal']:.2f}, the random player {refs['random']:.2f}. Interquartile "
                      "means over runs with 95% bootstrap intervals.", "",
                      "| learner | runs | score | % of optimal | normalised | regret / decision |",
                      "|---|---:|---:|---:|---:|---:|"]
            for row in t["rows"]:
                lines.append(f"| {_row_name(row)} | {row['runs']} | {_cell(row['mean'], 2)} | "
                             f"{_cell(row['percent_of_optimal'], 2)} | {_cell(row['normalised'], 3)} | "
                             f"{row['mean_regret']:.3f} |")
            lines += [*_flag_note(t["rows"]), ""]
        if sec["aggregate"]:
            lines += [f"{h3} All one-player tasks: the normalised score", "",
                      "| learner | tasks | IQM | mean | median |", "|---|---:|---:|---:|---:|"]
        for name, a in sorted(sec["aggregate"].items(), key=lambda kv: -kv[1]["iqm"]["value"]):
            lines.append(f"| {_name(name)} | {len(a['tasks'])} | {_cell(a['iqm'], 3)} | {_cell(a['mean'], 3)} | "
                         f"{_cell(a['median'], 3)} |")
        if sec["improvement"]:
            lines += ["", "| P(X > Y) | X | Y |", "|---:|---|---|"]
            lines += [f"| {_cell(p, 3)} | {_name(p['x'])} | {_name(p['y'])} |" for p in sec["improvement"]]
        lines.append("")
    return "\n".join(lines).rstrip()


def _heads_up_table(t: dict[str, Any]) -> list[str]:
    """The Markdown lines of a heads-up task's table."""
    refs = t["references"]
    lines = [f"The chance to win against optimal-duel: optimal play {refs['optimal']:.2f}, the random player "
             f"{refs['random']:.4f}. Interquartile means over runs with 95% bootstrap intervals.", "",
             "| learner | runs | chance to win vs optimal-duel | % of optimal | normalised | win-regret / decision "
             "| win rate vs optimal |", "|---|---:|---:|---:|---:|---:|---:|"]
    for row in t["rows"]:
        versus = _cell(row["against_optimal"], 4) if "against_optimal" in row else ""
        lines.append(f"| {_row_name(row)} | {row['runs']} | {_cell(row['mean'], 4)} | "
                     f"{_cell(row['percent_of_optimal'], 2)} | {_cell(row['normalised'], 3)} | "
                     f"{row['mean_regret']:.5f} | {versus} |")
    return lines + _flag_note(t["rows"])


def plot_curves(records: list[dict[str, Any]], path: str | Path, user_path: bool = True) -> None:
    """:func:`curves_figure` saved as a PNG at ``path``."""
    save(curves_figure(records), path, user_path=user_path)


def curves_figure(records: list[dict[str, Any]]) -> Any:
    """The learning curves of ``records``: per task, each learner's mean normalised score at each checkpoint with
    its 95% bootstrap band; one panel per task and budget (the budget in the title where there are several)."""
    report = aggregate_records(records)
    panels = [(budget, task, t["curves"]) for budget, s in report["budgets"].items()
              for task, t in s["tasks"].items() if t["curves"]]
    if not panels:
        raise ValueError("no record has a learning curve (agent records have none): give run records")
    several = len({budget for budget, _, _ in panels}) > 1
    cols = min(3, len(panels))
    rows = -(-len(panels) // cols)
    fig = figure((4.2 * cols, 3.4 * rows))
    axes = np.atleast_1d(fig.subplots(rows, cols)).ravel()
    for ax, (budget, task, curves) in zip(axes, panels):
        for name, pts in sorted(curves.items()):
            x = [p["timesteps"] for p in pts]
            line, = ax.plot(x, [p["value"] for p in pts], marker="o", label=name)
            if all(p["low"] is not None for p in pts):
                ax.fill_between(x, [p["low"] for p in pts], [p["high"] for p in pts], alpha=0.2,
                                color=line.get_color())
        ax.set_title(f"{task}, budget {budget}" if several else task)
        ax.set_xlabel("environment steps")
        ax.set_ylabel("win rate against optimal" if P.task_players(task) == 2
                      else "normalised score (random 0, optimal 1)")
        legend_below(ax, ncols=2)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    return fig
