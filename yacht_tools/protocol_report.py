"""``yacht bench report``: records of the benchmark protocol put together into tables, aggregates and curves.

Per budget: each task's table (a row per learner or agent: runs, interquartile mean of the score, of its percent of
optimal and of the normalised score, the optimality gap, each with its 95% stratified bootstrap interval, mean
regret per decision) and the evaluation games' own noise; the normalised score over all one-player tasks
(interquartile mean, mean, median and optimality gap, each with its interval) of the learners measured on every one
of them, the others in a table of their own; the probability of improvement between every two of those learners;
their performance profiles (the share of runs above each normalised score, with bands); and the learning curves
(the interquartile mean of the normalised score at each checkpoint with its band). A heads-up task's table gives the
chance to win against ``optimal-duel`` instead of the score, and the win rate against ``optimal``; the aggregate is
of the one-player tasks, whose normalised scores share one scale. An agent record without a budget (a reference
row: random, greedy, optimal) joins every budget's tables; one marked unverified (evaluated for a budget without its
training declared) is flagged and stays out of the aggregate. An entry (an outside learner, its training declared)
is a learner of its budget, flagged as declared. Intervals need two runs or more; a single run shows its value
alone.

The intervals cover training seeds, given the fixed evaluation games: every record plays the same games, so their
noise is common to every row (it moves the rows together, not apart) and is not resampled; the report states its
size per task from the records' own intervals over those games.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from yacht_tools import protocol as P
from yacht_tools.plots import figure, legend_below, save
from yacht_tools.protocol_stats import (
    DEGENERATE,
    PERCENTILE,
    SEPARATED,
    STATISTICS,
    Estimate,
    aggregate,
    performance_profile,
    pooled,
    probability_of_improvement,
    profile_taus,
    profile_without_band,
)

NO_BUDGET = "agents"
"""The section of a report whose records are all agents evaluated without a budget (no run to set one)."""

OVERALL_PANEL = "all one-player tasks"
"""The title of the learning curves' panel over every one-player task."""

RESAMPLES = 2000
"""Bootstrap resamples of every interval (seeded: a report is the same on every run)."""

PROFILE_STEP = 0.001
"""The step of a performance profile's thresholds on the normalised scale: 0 to 1 in 1,001 thresholds, fine enough
for runs within a few thousandths of optimal play."""

COVERS = ("95% stratified bootstrap percentile intervals over the training seeds, given the fixed evaluation games "
          "(every record plays the same games: their noise is common to every row and not resampled)")
"""What the report's intervals cover, as its JSON states it."""


def _estimate(runs_by_task: dict[str, list[float]], statistic: str) -> dict[str, Any]:
    """``statistic`` over the runs with its interval (None bounds where some task has one run)."""
    if all(len(v) >= 2 for v in runs_by_task.values()):
        e = aggregate(runs_by_task, statistic, resamples=RESAMPLES)
    else:
        e = Estimate(pooled(statistic, np.concatenate([np.asarray(v, dtype=np.float64)
                                                       for v in runs_by_task.values()])), float("nan"),
                     float("nan"), 0.95)
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
    row["optimality_gap"] = _estimate({"task": [f["normalised"] for f in finals]}, "optimality_gap")
    row["evaluation_noise_percent"] = _noise(recs)["percent_of_optimal"]
    row["mean_regret"] = float(np.mean([f["mean_regret"] for f in finals]))
    if all("against_optimal" in f for f in finals):  # heads-up: the win rate against the expected-score player
        row["against_optimal"] = _estimate({"task": [f["against_optimal"]["win_rate"] for f in finals]}, "iqm")
    walls = [r["wall_s"] for r in recs if isinstance(r.get("wall_s"), (int, float))]
    row["wall_s"] = float(np.sum(walls)) if walls else None
    return row


def _noise(recs: list[dict[str, Any]]) -> dict[str, Any]:
    """The evaluation games' own noise in ``recs``: the median half-width of the records' 95% intervals of their
    mean over the evaluation games, in percent of optimal play and on the normalised scale."""
    half = [(r["final"]["ci95"][1] - r["final"]["ci95"][0]) / 2 for r in recs]
    refs = recs[0]["references"]
    return {"percent_of_optimal": float(np.median([100.0 * h / r["references"]["optimal"]
                                                   for h, r in zip(half, recs)])),
            "normalised": float(np.median(half)) / (refs["optimal"] - refs["random"]),
            "games": recs[0]["final"]["episodes"], "records": len(recs)}


def _curve(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The interquartile mean of the runs' normalised scores at each checkpoint, with its band (``statistic``
    names it)."""
    by_k: dict[int, list[float]] = defaultdict(list)
    steps: dict[int, list[float]] = defaultdict(list)
    for r in recs:
        for p in r["curve"]:
            by_k[p["checkpoint"]].append(p["normalised"])
            steps[p["checkpoint"]].append(p["timesteps"])
    return [{"checkpoint": k, "timesteps": float(np.mean(steps[k])), "runs": len(by_k[k]), "statistic": "iqm",
             **_estimate({"task": by_k[k]}, "iqm")} for k in sorted(by_k)]


def _overall_curve(recs_by_task: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """A learner's learning curve over all its tasks: at each checkpoint every run of every task has, the
    interquartile mean of the normalised score with its stratified bootstrap band (``statistic`` names it)."""
    runs = [r for rs in recs_by_task.values() for r in rs]
    common = set.intersection(*({p["checkpoint"] for p in r["curve"]} for r in runs))
    out = []
    for k in sorted(common):
        at = {t: [next(p for p in r["curve"] if p["checkpoint"] == k) for r in rs] for t, rs in recs_by_task.items()}
        out.append({"checkpoint": k, "timesteps": float(np.mean([p["timesteps"] for ps in at.values() for p in ps])),
                    "runs": len(runs), "statistic": "iqm",
                    **_estimate({t: [p["normalised"] for p in ps] for t, ps in at.items()}, "iqm")})
    return out


def aggregate_records(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The report of ``records`` (checked records of one protocol) as a JSON-ready mapping (module docstring)."""
    versions = sorted({r["protocol"] for r in records})
    if len(versions) > 1:
        raise ValueError(f"records of {' and '.join(versions)} in one report: report each version apart ({P.V1}'s "
                         "runs passed their budgets by up to a rollout, so its rows are not at the budget)")
    out: dict[str, Any] = {"protocol": versions[0] if versions else P.PROTOCOL, "records": len(records),
                           "intervals": COVERS, "budgets": {}}
    for budget, tasks in _groups(records).items():
        section: dict[str, Any] = {"steps": P.BUDGETS.get(budget), "tasks": {}}
        by_learner: dict[str, dict[str, list[float]]] = defaultdict(dict)
        recs_by_learner: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(dict)
        kinds: dict[str, set[str]] = defaultdict(set)  # agents (reference rows) are no learners to compare
        for learners in tasks.values():
            for name, recs in learners.items():
                kinds[recs[0]["kind"]].add(name)
        for task in sorted(tasks, key=P.ALL_TASKS.index):
            learners = tasks[task]
            refs = learners[next(iter(learners))][0]["references"]
            section["tasks"][task] = {"references": refs,
                                      "evaluation_noise": _noise([r for rs in learners.values() for r in rs]),
                                      "rows": sorted((_row(n, rs) for n, rs in learners.items()),
                                                     key=lambda row: -row["normalised"]["value"]),
                                      "curves": {n: _curve(rs) for n, rs in learners.items()
                                                 if any(r["curve"] for r in rs)}}
            if P.task_players(task) == 1:  # the aggregate is of the one-player tasks: one scale, the score's
                for name, recs in learners.items():
                    if _label(recs[0]) != "unverified":
                        by_learner[name][task] = [r["final"]["normalised"] for r in recs]
                        recs_by_learner[name][task] = recs
        one_player = [t for t in section["tasks"] if P.task_players(t) == 1]
        section.update(_across_tasks(by_learner, one_player, kinds.get("agent", set())))
        for name, a in section["aggregate"].items():
            if len(one_player) > 1 and all(r["curve"] for rs in recs_by_learner[name].values() for r in rs):
                a["curve"] = _overall_curve(recs_by_learner[name])
        section["over_budget"] = _over_budget([r for learners in tasks.values() for rs in learners.values()
                                                for r in rs], section["steps"])
        out["budgets"][budget] = section
    return out


def _across_tasks(by_learner: dict[str, dict[str, list[float]]], tasks: list[str], agents: set[str]) -> dict[str, Any]:
    """A budget's statistics over the one-player ``tasks``: like with like, only the learners measured on every one
    of them enter the aggregate, the probabilities of improvement and the profiles; the others are ``partial``,
    with the tasks they lack. ``agents`` (reference rows) are no learners: they are never compared."""
    complete = {n: runs for n, runs in by_learner.items() if set(runs) == set(tasks)}
    out: dict[str, Any] = {
        "aggregate": {n: {"tasks": list(tasks), **{s: _estimate(runs, s) for s in STATISTICS}}
                      for n, runs in complete.items()},
        "partial": {n: {"tasks": [t for t in tasks if t in runs], "lacks": [t for t in tasks if t not in runs],
                        "iqm": _estimate(runs, "iqm")}
                    for n, runs in by_learner.items() if n not in complete},
        "improvement": [], "profiles": {}}
    trained = sorted((n for n, runs in complete.items() if all(len(v) >= 2 for v in runs.values())
                      and n not in agents),
                     key=lambda n: -out["aggregate"][n]["iqm"]["value"])  # X the stronger: P(X > Y)
    for i, x in enumerate(trained):
        for y in trained[i + 1:]:
            e = probability_of_improvement(complete[x], complete[y], resamples=RESAMPLES)
            out["improvement"].append({"x": x, "y": y, "value": e.value, "low": e.low, "high": e.high,
                                       "method": e.method})
    if complete:
        taus = profile_taus(PROFILE_STEP)
        out["profiles"] = {"thresholds": [float(t) for t in taus],
                           "statistic": "the share of runs whose normalised score is above each threshold, every "
                                        "task weighted equally, with its 95% stratified bootstrap band",
                           "learners": {n: _profile(runs, taus) for n, runs in complete.items()}}
    return out


def _profile(runs: dict[str, list[float]], taus: np.ndarray) -> dict[str, Any]:
    """A learner's performance profile as JSON: shares, and their band where every task has two runs or more."""
    def listed(a: np.ndarray) -> list[float]:
        return [round(float(v), 6) for v in a]

    if all(len(v) >= 2 for v in runs.values()):
        p = performance_profile(runs, taus, resamples=RESAMPLES)
        return {"runs": sum(map(len, runs.values())), "value": listed(p.value), "low": listed(p.low),
                "high": listed(p.high)}
    return {"runs": sum(map(len, runs.values())), "value": listed(profile_without_band(runs, taus)), "low": None,
            "high": None}


def _over_budget(records: list[dict[str, Any]], steps: int | None) -> dict[str, int] | None:
    """The runs among ``records`` that trained past ``steps`` (only v1's can: v2 refuses them), or None."""
    runs = [r for r in records if r["kind"] == "run" and isinstance(r["training"], dict)]
    over = [r["training"]["timesteps"] for r in runs if steps is not None
            and isinstance(r["training"].get("timesteps"), int) and r["training"]["timesteps"] > steps]
    return {"runs": len(over), "of": len(runs), "most": max(over)} if over else None


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
        over = sec.get("over_budget")
        if over:
            lines += [f"{over['runs']} of {over['of']} runs trained past the budget (up to {over['most']:,} steps for "
                      f"{sec['steps']:,}): records of {P.V1}, whose runs ended on whole rollouts; {P.PROTOCOL} refuses "
                      "such a run.", ""]
        for task, t in sec["tasks"].items():
            refs = t["references"]
            if P.task_players(task) == 2:
                lines += [f"{h3} {task}", "", *_heads_up_table(t), "", _noise_line(t["evaluation_noise"]), ""]
                continue
            lines += [f"{h3} {task}", "",
                      f"Optimal play {refs['optimal']:.2f}, the random player {refs['random']:.2f}. Interquartile "
                      "means over runs with 95% bootstrap intervals over the training seeds; the optimality gap "
                      "(the mean shortfall of the normalised score from optimal play's 1): lower is better.", "",
                      "| learner | runs | score | % of optimal | normalised | optimality gap (lower is better) "
                      "| regret / decision |", "|---|---:|---:|---:|---:|---:|---:|"]
            for row in t["rows"]:
                lines.append(f"| {_row_name(row)} | {row['runs']} | {_cell(row['mean'], 2)} | "
                             f"{_cell(row['percent_of_optimal'], 2)} | {_cell(row['normalised'], 3)} | "
                             f"{_cell(row['optimality_gap'], 3)} | {row['mean_regret']:.3f} |")
            lines += [*_flag_note(t["rows"]), "", _noise_line(t["evaluation_noise"]), ""]
        lines += _across_tasks_lines(sec, h3)
        lines.append("")
    return "\n".join(lines).rstrip()


def _noise_line(noise: dict[str, Any]) -> str:
    """The sentence under a task's table: the evaluation games' own noise, and why the intervals leave it out."""
    return (f"The evaluation games' own noise: ±{noise['percent_of_optimal']:.2f}% of optimal "
            f"(±{noise['normalised']:.4f} normalised), the median half-width of the {noise['records']} records' 95% "
            f"intervals over the {noise['games']:,} games. Every row plays the same games, so this noise is common "
            "to all rows; the intervals above cover the training seeds, given these games.")


def _across_tasks_lines(sec: dict[str, Any], h3: str) -> list[str]:
    """The Markdown lines of a budget's aggregate over the one-player tasks, the probabilities of improvement
    between its learners, and the learners measured on some tasks only."""
    lines: list[str] = []
    if sec["aggregate"]:
        tasks = next(iter(sec["aggregate"].values()))["tasks"]
        lines += [f"{h3} All one-player tasks: the normalised score", "",
                  f"The learners measured on every one of the {len(tasks)} one-player tasks of this budget; 95% "
                  "stratified bootstrap intervals over the training seeds.", "",
                  "| learner | tasks | IQM | mean | median | optimality gap (lower is better) |",
                  "|---|---:|---:|---:|---:|---:|"]
    for name, a in sorted(sec["aggregate"].items(), key=lambda kv: -kv[1]["iqm"]["value"]):
        lines.append(f"| {_name(name)} | {len(a['tasks'])} | {_cell(a['iqm'], 3)} | {_cell(a['mean'], 3)} | "
                     f"{_cell(a['median'], 3)} | {_cell(a['optimality_gap'], 3)} |")
    if sec["improvement"]:
        lines += ["", "| P(X > Y) | X | Y |", "|---:|---|---|"]
        lines += [f"| {_cell(p, 3)}{_mark(p['method'])} | {_name(p['x'])} | {_name(p['y'])} |"
                  for p in sec["improvement"]]
        notes = sorted({p["method"] for p in sec["improvement"]} - {PERCENTILE})
        lines += ["", *[f"{IMPROVEMENT_NOTES[m][0]} {IMPROVEMENT_NOTES[m][1]}" for m in notes]] if notes else []
    if sec["partial"]:
        lines += ["", f"{h3} Learners measured on some tasks", "",
                  "Not in the all-task aggregate, which takes a learner only with every one-player task of this "
                  "budget (their IQM is over their own tasks: not comparable with it).", "",
                  "| learner | tasks | lacks | IQM over its tasks |", "|---|---:|---|---:|"]
        lines += [f"| {_name(n)} | {len(p['tasks'])} | {', '.join(p['lacks'])} | {_cell(p['iqm'], 3)} |"
                  for n, p in sorted(sec["partial"].items())]
    return lines


def _mark(method: str) -> str:
    """The mark after a probability of improvement whose interval is not the bootstrap's percentiles."""
    return f" {IMPROVEMENT_NOTES[method][0]}" if method in IMPROVEMENT_NOTES else ""


IMPROVEMENT_NOTES = {
    SEPARATED: ("\\*", "Every run of X beat every run of Y on every task, so every bootstrap resample gives 1 and its "
                        "interval would be the point [1, 1]; the interval shown is exact instead: with k tasks and n "
                        "runs each (the fewest), k·n disjoint pairs all won by X put P(X > Y) at 0.025^(1/(k·n)) or "
                        "above with 97.5% confidence (a binomial bound, conservative)."),
    DEGENERATE: ("†", "Each task's runs are separated (or tied), so every bootstrap resample gives the same value: the "
                      "interval is that point and shows no spread of the seeds."),
}
"""The mark and the note under the probabilities of improvement whose interval is not the bootstrap's
percentiles."""


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
    """The learning curves of ``records``: per task, each learner's interquartile mean of the normalised score at
    each checkpoint with its 95% bootstrap band; one panel per task and budget (the budget in the title where there
    are several), after a first panel of all one-player tasks together (the learners measured on each of them, where
    there are two tasks or more)."""
    report = aggregate_records(records)
    panels = []
    for budget, s in report["budgets"].items():
        overall = {n: a["curve"] for n, a in s["aggregate"].items() if a.get("curve")}
        panels += [(budget, OVERALL_PANEL, overall)] if overall else []
        panels += [(budget, task, t["curves"]) for task, t in s["tasks"].items() if t["curves"]]
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
        ax.set_ylabel("IQM win rate against optimal" if task != OVERALL_PANEL and P.task_players(task) == 2
                      else "IQM, normalised (random 0, optimal 1)")
        legend_below(ax, ncols=2)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    return fig


def profiles_figure(records: list[dict[str, Any]]) -> Any:
    """The performance profiles of ``records``' trained learners: per budget, the share of runs whose normalised
    score is above each threshold (every one-player task weighted equally) with its 95% stratified bootstrap band,
    a line per learner measured on every one-player task; one panel per budget, the thresholds from just below the
    lowest run to optimal play. ``ValueError`` where no record is a run (an agent's profile is a step, not runs')."""
    runs = [r for r in records if r["kind"] == "run"]
    if not runs:
        raise ValueError("--profiles: no run records among the records (performance profiles are of training runs: "
                         "give the records of yacht bench run)")
    report = aggregate_records(records)
    learners = {(r["budget"], r["learner"]) for r in runs}
    panels = [(budget, s["profiles"], [n for n in s["profiles"]["learners"] if (budget, n) in learners])
              for budget, s in report["budgets"].items() if s["profiles"]]
    panels = [p for p in panels if p[2]]
    if not panels:
        raise ValueError("--profiles: no learner with runs was measured on every one-player task of its budget (the "
                         "profiles pool the tasks: like with like)")
    fig = figure((5.2 * len(panels), 3.8), what="--profiles")
    axes = np.atleast_1d(fig.subplots(1, len(panels))).ravel()
    for ax, (budget, prof, names) in zip(axes, panels):
        taus = np.asarray(prof["thresholds"])
        lowest = min(r["final"]["normalised"] for r in runs if r["budget"] == budget and r["learner"] in names)
        for name in sorted(names):
            p = prof["learners"][name]
            line, = ax.plot(taus, p["value"], label=name, drawstyle="steps-post")
            if p["low"] is not None:
                ax.fill_between(taus, p["low"], p["high"], alpha=0.2, color=line.get_color(), step="post")
        ax.set_xlim(max(0.0, min(lowest, 1.0) - 0.02), 1.0)
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"budget {budget}")
        ax.set_xlabel("normalised score threshold (random 0, optimal 1)")
        ax.set_ylabel("share of runs above the threshold")
        legend_below(ax, ncols=2)
    return fig

