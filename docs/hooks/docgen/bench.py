"""The benchmark page's results: the committed baseline records of ``yacht bench`` (``docs/records/bench-v1/``),
read through the report's own code (``yacht bench report``), so the page shows what the command
prints for the same records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
RECORDS = "docs/records/bench-v1"


def bench_records(root: Path = ROOT) -> list[dict[str, Any]]:
    """The committed records, checked as the report checks any record."""
    from yacht_tools.protocol import read_records

    return read_records([root / RECORDS])


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


def bench_results(root: Path = ROOT) -> str:
    """The report of the committed records (tables with intervals), one sentence per task above its table."""
    from yacht_tools.protocol_report import aggregate_records, markdown_report

    report = aggregate_records(bench_records(root))
    text = markdown_report(report, level=3)
    for section in report["budgets"].values():
        for task, table in section["tasks"].items():
            sentence = _sentence(task, table)
            if sentence:
                text = text.replace(f"#### {task}\n\n", f"#### {task}\n\n{sentence} ", 1)
    return (f"`yacht bench report {RECORDS}` (the curves: `--plot`, below):\n\n{text}\n\n"
            "![Learning curves of the baselines: the normalised score at each fifth of the budget, over all "
            "one-player tasks and per task, interquartile mean over the training seeds with its 95% bootstrap "
            "band](img/bench-curves.png)\n")


def bench_timing(root: Path = ROOT) -> str:
    """How long the committed records took: per group of tasks (the one-player tasks, the heads-up one), the runs'
    own wall times added up, and the first start to the last record (two runs side by side on two CPU cores)."""
    import datetime

    from yacht_tools.protocol import task_players

    records = bench_records(root)
    lines = []
    for players, what in ((1, "one-player"), (2, "heads-up")):
        runs = [r for r in records if r["kind"] == "run" and task_players(r["task"]) == players]
        if not runs:
            continue
        ends = [datetime.datetime.fromisoformat(r["created"]).timestamp() for r in runs]
        starts = [e - r["wall_s"] for e, r in zip(ends, runs)]
        hours = (max(ends) - min(starts)) / 3600
        cpu = sum(r["wall_s"] for r in runs) / 3600
        lines.append(f"The {len(runs)} {what} runs took {cpu:.1f} hours of one core each added up, and "
                     f"{hours:.1f} hours from the first start to the last record, two side by side (`--workers 2`) "
                     f"on two CPU cores.")
    return " ".join(lines)
