"""The benchmark page's results: the committed baseline records of ``yacht bench`` (``docs/records/bench-v2/``, and
the first version's in ``docs/records/bench-v1/``), read through the report's own code (``yacht bench report``), so
the page shows what the command prints for the same records; and the sweeps that chose the baselines' settings
(``docs/records/bench-v2/tuning/``, written by ``yacht bench tune``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
RECORDS = "docs/records/bench-v2"
V1_RECORDS = "docs/records/bench-v1"
TUNING = "docs/records/bench-v2/tuning"


def bench_records(root: Path = ROOT, folder: str = RECORDS) -> list[dict[str, Any]]:
    """The committed records of ``folder``, checked as the report checks any record."""
    from yacht_tools.protocol import read_records

    return read_records([root / folder])


def tuning_records(root: Path = ROOT) -> list[dict[str, Any]]:
    """The committed sweeps (``yacht bench tune``'s results), in the order of their names."""
    import json
    import re

    from yacht_tools.protocol import BUDGETS

    sweeps = [json.loads(p.read_text(encoding="utf-8")) for p in (root / TUNING).glob("*.json")]

    def order(r: dict[str, Any]) -> tuple[int, str, int]:  # by budget, learner, then stage (name-2 after name)
        stem, _, stage = re.fullmatch(r"(.*?)(-(\d+))?", r["sweep"]).groups()[0:3]
        return list(BUDGETS).index(r["budget"]), stem, int(stage or 1)

    return sorted(sweeps, key=order)


def _sentence(task: str, table: dict[str, Any]) -> str:
    """What a task's numbers mean, in one sentence: the best learner against optimal play and the greedy player."""
    from yacht_tools.protocol import task_players

    rows = {r["learner"]: r for r in table["rows"]}
    runs = [r for r in table["rows"] if r["kind"] == "run"]
    if not runs:
        return ""
    best = runs[0]
    if task_players(task) == 2:
        greedy = rows.get("greedy")
        versus = "" if greedy is None else f" and the one-turn greedy player's {greedy['mean']['value']:.4f}"
        return (f"On {task}, {best['learner']}'s chance to win against exact two-player play is "
                f"{best['mean']['value']:.4f}, where exact play's own is 0.5{versus}: it gives up "
                f"{best['mean_regret']:.5f} of a win per decision; against the expected-score player optimal it "
                f"wins {best['against_optimal']['value']:.4f} of its games.")
    gap = best["percent_of_optimal"]["value"]
    greedy = rows.get("greedy")
    versus = ("" if greedy is None else
              f", {'above' if best['normalised']['value'] > greedy['normalised']['value'] else 'below'} the "
              "one-turn greedy player")
    return (f"On {task}, {best['learner']} comes closest to optimal play ({gap:.2f}% of its expected score, "
            f"{best['mean_regret']:.3f} points lost per decision){versus}.")


def _results(records: list[dict[str, Any]], folder: str, level: int) -> str:
    """The report of ``records`` as the page shows it: one sentence per task above its table."""
    from yacht_tools.protocol_report import aggregate_records, markdown_report

    report = aggregate_records(records)
    text = markdown_report(report, level=level)
    heading = "#" * (level + 1)
    at = 0
    for budget, section in report["budgets"].items():
        at = text.index(f"{'#' * level} Budget {budget} ", at)  # each budget's tables get its own sentences
        for task, table in section["tasks"].items():
            sentence = _sentence(task, table)
            if sentence:
                head = text.index(f"{heading} {task}\n\n", at) + len(f"{heading} {task}\n\n")
                text = text[:head] + f"{sentence} " + text[head:]
    return f"`yacht bench report {folder}`:\n\n{text}\n"


TARGETS = {"short": 75.0, "primary": 90.0, "long": 97.0}
"""The model-free baseline's targets on ``yacht``, an IQM of percent of optimal play per budget: what the benchmark
set out to reach with masked PPO and the model-free policy (no dice model, no search)."""


def model_free_targets(root: Path = ROOT) -> str:
    """Per budget of the committed v2 records: the model-free baseline's IQM on ``yacht`` against its target."""
    from yacht_tools.protocol_report import aggregate_records

    lines = []
    for budget, section in aggregate_records(bench_records(root)).get("budgets", {}).items():
        row = next((r for r in section["tasks"].get("yacht", {}).get("rows", []) if r["learner"] == "ppo"), None)
        if row is None or budget not in TARGETS:
            continue
        e, target = row["percent_of_optimal"], TARGETS[budget]
        lines.append(f"- {budget}: {e['value']:.2f}% [{e['low']:.2f}, {e['high']:.2f}] of optimal over {row['runs']} "
                     f"runs, against a target of {target:.0f}%: "
                     + ("reached." if e["value"] >= target
                        else f"not reached, {target - e['value']:.2f} points short."))
    return "The model-free baseline (`ppo`) on `yacht`, IQM with its 95% interval:\n\n" + "\n".join(lines) + "\n"


HEADS_UP_TARGET = 0.49
"""The heads-up target at the primary budget: the best learner's IQM chance to win against ``optimal-duel``."""


def heads_up_targets(root: Path = ROOT) -> str:
    """The heads-up task's two aims at the primary budget, from the committed records: the best learner's chance
    against its target, and the self-play PPO against the one-turn greedy player (and why, where it falls short)."""
    from yacht_tools.protocol import HEADS_UP
    from yacht_tools.protocol_report import aggregate_records

    section = aggregate_records(bench_records(root)).get("budgets", {}).get("primary", {}).get("tasks", {})
    task = next(iter(HEADS_UP))
    rows = {r["learner"]: r for r in section.get(task, {}).get("rows", [])}
    alone = {r["learner"]: r for r in section.get(HEADS_UP[task], {}).get("rows", [])}
    runs = [r for r in rows.values() if r["kind"] == "run"]
    if not runs or "greedy" not in rows:
        return ""
    best = max(runs, key=lambda r: r["mean"]["value"])
    e = best["mean"]
    lines = [f"- The best learner, `{best['learner']}`: {e['value']:.4f} [{e['low']:.4f}, {e['high']:.4f}] over "
             f"{best['runs']} runs, against a target of {HEADS_UP_TARGET}: "
             + ("reached." if e["value"] >= HEADS_UP_TARGET
                else f"not reached, {HEADS_UP_TARGET - e['value']:.4f} short.")]
    greedy = rows["greedy"]["mean"]["value"]
    ppo = rows.get("ppo")
    if ppo is not None:
        line = (f"- The self-play PPO (`ppo`): {ppo['mean']['value']:.4f} over {ppo['runs']} run"
                f"{'s' if ppo['runs'] != 1 else ''}, against the "
                f"one-turn greedy player's {greedy:.4f}: " + ("above." if ppo["mean"]["value"] > greedy else "below."))
        if ppo["mean"]["value"] <= greedy and "ppo" in alone and "greedy" in alone:
            mine, theirs = alone["ppo"]["percent_of_optimal"]["value"], alone["greedy"]["percent_of_optimal"]["value"]
            seated = rows.get("ppo-alone")
            line += (f" At this budget the same learner plays the game alone at {mine:.2f}% of optimal, the greedy "
                     f"player at {theirs:.2f}%: a player that scores less than the greedy one alone wins less often "
                     "against exact play, and self-play does not make up the points it loses on the dice"
                     + (f" (its one-player runs, seated as they are: {seated['mean']['value']:.4f})." if seated
                        else "."))
        lines.append(line)
    return "The heads-up task at the primary budget, the chance to win against `optimal-duel`:\n\n" + "\n".join(
        lines) + "\n"


def bench_results(root: Path = ROOT) -> str:
    """The report of the committed v2 records (tables with intervals) and its two pictures."""
    return (model_free_targets(root) + "\n" + heads_up_targets(root) + "\n"
            + _results(bench_records(root), RECORDS, 3) + "\n"
            "![Learning curves of the baselines: the normalised score at each fifth of the budget, over all "
            "one-player tasks and per task, interquartile mean over the training seeds with its 95% bootstrap "
            "band (yacht bench report --plot)](img/bench-curves.png)\n\n"
            "![Performance profiles of the baselines: the share of runs whose normalised score lies above each "
            "threshold, every task weighted equally, with its 95% stratified bootstrap band (yacht bench report "
            "--profiles)](img/bench-profiles.png)\n")


def heads_up_changes(root: Path = ROOT) -> str:
    """What replaying the heads-up reference rows under v2 changed: each reference agent's chance to win against
    ``optimal-duel`` in v1's record (its dice dealt before its turn) and in v2's (each seat rolls at its own turn)."""
    from yacht_tools.protocol import HEADS_UP

    def chances(folder: str) -> dict[str, float]:
        return {r["learner"]: r["final"]["mean"] for r in bench_records(root, folder)
                if r["task"] in HEADS_UP and r["kind"] == "agent"}

    old, new = chances(V1_RECORDS), chances(RECORDS)
    both = [a for a in new if a in old]
    if not both:
        return ""
    items = ", ".join(f"`{a}` {new[a]:.4f} (v1: {old[a]:.4f})" for a in both)
    return (f"The heads-up reference rows of v2 were played again with each seat rolling at the start of its own "
            f"turn; their chances to win against `optimal-duel` on the same evaluation games: {items}.\n")


def bench_v1_results(root: Path = ROOT) -> str:
    """The report of the first version's committed records, kept as they were made."""
    return _results(bench_records(root, V1_RECORDS), V1_RECORDS, 3)


def _setting(change: dict[str, Any], prefix: str = "") -> list[str]:
    """A trial's settings as ``key=value`` items, dotted keys."""
    out = []
    for key, value in change.items():
        if isinstance(value, dict):
            out += _setting(value, f"{prefix}{key}.")
        else:
            out.append(f"{prefix}{key}={value}")
    return out


def bench_tuning(root: Path = ROOT) -> str:
    """Each committed sweep: the grid's varied settings per trial, its score on the tuning games per tuning seed and
    their mean, the winner in bold, and what the sweep cost."""
    parts = []
    for r in tuning_records(root):
        varied = [k for k, v in r["grid"].items() if len(v) > 1]
        fixed = [f"{k}={v[0]}" for k, v in r["grid"].items() if len(v) == 1]
        seeds = [str(s) for s in r["seeds"]]
        lines = [f"**{r['sweep']}** (`configs/tuning/{r['sweep']}.yaml`): {r['task']}, budget {r['budget']} "
                 f"({r['budget_steps']:,} steps), {len(r['trials'])} trials, each from tuning seeds "
                 f"{' and '.join(seeds)} scored on {r['games']:,} tuning games; "
                 + (f"fixed: {', '.join(f'`{f}`' for f in fixed)}; " if fixed else "")
                 + f"{r['core_seconds'] / 3600:.2f} core-hours.", "",
                 "| trial | " + " | ".join(k.split(".")[-1] for k in varied) + " | "
                 + " | ".join(f"seed {s}" for s in seeds) + " | mean % of optimal |",
                 "|---:|" + "---|" * len(varied) + "---:|" * (len(seeds) + 1)]
        for t in r["trials"]:
            flat = dict(item.split("=", 1) for item in _setting(t["change"]))
            won = t["trial"] == r["winner"]["trial"]
            mean = f"**{t['mean']:.2f}**" if won else f"{t['mean']:.2f}"
            lines.append(f"| {t['trial']} | " + " | ".join(flat.get(k, "") for k in varied) + " | "
                         + " | ".join(f"{t['scores'][s]:.2f}" for s in seeds) + f" | {mean} |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def bench_timing(root: Path = ROOT) -> str:
    """What the committed v2 records cost, per budget: the runs' own wall times added up (core-hours: each run is one
    process of one torch thread), the sweeps' that chose its settings, and the first start to the last record (two
    runs side by side, ``--workers 2``, on two CPU cores); then the reference agents' evaluations."""
    import datetime

    records = bench_records(root)
    sweeps = tuning_records(root)
    lines = []
    from yacht_tools.protocol import BUDGETS

    for budget in sorted({r["budget"] for r in records if r["kind"] == "run"}, key=list(BUDGETS).index):
        runs = [r for r in records if r["kind"] == "run" and r["budget"] == budget]
        ends = [datetime.datetime.fromisoformat(r["created"]).timestamp() for r in runs]
        starts = [e - r["wall_s"] for e, r in zip(ends, runs)]
        tuned = sum(s["core_seconds"] for s in sweeps if s["budget"] == budget) / 3600
        cpu = sum(r["wall_s"] for r in runs) / 3600
        lines.append(f"Budget {budget}: the {len(runs)} runs took {cpu:.1f} core-hours added up and "
                     f"{(max(ends) - min(starts)) / 3600:.1f} hours from the first start to the last record on two "
                     f"cores; its sweeps {tuned:.1f} core-hours; in all {cpu + tuned:.1f} core-hours, about "
                     f"{(cpu + tuned) / 2:.1f} hours on two cores.")
    agents = [r for r in records if r["kind"] == "agent"]
    if agents:
        lines.append(f"The {len(agents)} reference rows' evaluations took "
                     f"{sum(r['wall_s'] for r in agents) / 3600:.2f} core-hours.")
    return " ".join(lines)
