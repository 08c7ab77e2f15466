"""The outputs of an evaluation: a readable report, the JSON file, and a picture of where the points go."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from yacht_env.rules import get_rules
from yacht_tools.messages import shown
from yacht_tools.output_paths import write_user_text
from yacht_tools.plots import figure, legend_below, save
from yacht_tools.regret import DECISIONS

_DECISION_NAMES = {"first_keep": "after roll 1", "second_keep": "after roll 2", "score": "after roll 3"}


def write_json(result: dict[str, Any], path: str | Path) -> None:
    """Write ``result`` as JSON (``scores`` included) to a path the user named (atomically, or through a device)."""
    write_user_text(path, json.dumps(result, indent=1) + "\n")


def format_report(result: dict[str, Any]) -> str:
    """A readable multi-line report of an :func:`~yacht_tools.evaluation.evaluate` result."""
    rs = get_rules(result["rules"])
    lo, hi = result["ci95"]
    opt = result.get("optimal_same_seeds") or {}
    lines = [
        f"{shown(result['agent'])} on {rs.title}: {result['episodes']} games, seed {result['seed']}",
        f"  mean     {result['mean']:.2f}   (95% CI {lo:.2f} .. {hi:.2f})",
        f"  std      {result['std']:.2f}",
        f"  median   {result['median']:g}   min {result['min']}   max {result['max']}",
    ]
    if result.get("optimal_value") is not None:
        lines.append(f"  optimal  {result['optimal_value']:.4f} expected -> {result['percent_of_optimal']:.2f} % "
                     "of optimal" + (f"; the optimal player scores {opt['mean']:.2f} on these seeds" if opt else ""))
    else:
        lines.append("  optimal  n/a (the solver does not cover these rules)")

    def rate(key: str, label: str, extra: str = "") -> None:
        if key in result:
            beside = f"   (optimal player: {100 * opt[key]:.1f} %)" if key in opt else ""
            lines.append(f"  {label:<17}{100 * result[key]:.1f} % of games{extra}{beside}")

    rate("upper_bonus_rate", "upper bonus")
    rate("five_of_a_kind_rate", "five of a kind")
    if "yahtzee_bonus_rate" in result:
        rate("yahtzee_bonus_rate", "Yahtzee bonus", f", {result['yahtzee_bonus_mean']:.3f} per game")
    if "mean_regret" in result:
        lines.append(f"  regret   {result['mean_regret']:.4f} per decision ({result['decisions']} decisions: "
                     f"keep {result['mean_regret_keep']:.4f}, score {result['mean_regret_score']:.4f}), "
                     f"{result['regret_per_game']:.3f} per game")
        by = result["regret_by_decision"]
        lines.append("  regret per game by decision: " + ", ".join(
            f"{_DECISION_NAMES[d]} {by[d]:.3f}" for d in DECISIONS))
        turns = result["regret_by_turn"]
        lines.append("  regret per game by turn: " + " ".join(f"{x:.2f}" for x in turns))
    lines.append("")
    head = f"  {'category':<18}{'mean':>8}{'hit rate':>10}"
    if "regret_by_box" in result:
        head += f"{'regret/game':>13}"
    lines.append(head)
    for cid, c in result["categories"].items():
        row = f"  {c['name']:<18}{c['mean']:>8.2f}{100 * c['hit_rate']:>9.1f}%"
        if "regret_by_box" in result:
            row += f"{result['regret_by_box'][cid]:>13.3f}"
        lines.append(row)
    if "elapsed_s" in result:
        lines.append("")
        lines.append(f"  played in {result['elapsed_s']:.1f} s")
    return "\n".join(lines)


def plot_scores(result: dict[str, Any], path: str | Path, optimal_scores: Sequence[int] | None = None) -> None:
    """Save a PNG: the histogram of ``result['scores']`` over the optimal player's scores on the same seeds, and,
    where the result has the regret, where the points are lost (per game, by turn and by decision)."""
    save(scores_figure(result, optimal_scores), path)


def scores_figure(result: dict[str, Any], optimal_scores: Sequence[int] | None = None) -> Any:
    """The matplotlib figure of :func:`plot_scores`; its numbers are printed as :func:`format_report` prints them,
    its legends lie below the axes (nothing covers a bar)."""
    if optimal_scores is None:
        optimal_scores = (result.get("optimal_same_seeds") or {}).get("scores")
    with_regret = "regret_by_turn" in result
    fig = figure((13 if with_regret else 8, 5))
    axes = fig.subplots(1, 2, width_ratios=[1.3, 1]) if with_regret else [fig.add_subplot()]
    _histogram(axes[0], result, optimal_scores)
    if with_regret:
        ax = axes[1]
        turns = np.arange(1, len(result["regret_by_turn"]) + 1)
        ax.bar(turns, result["regret_by_turn"], color="C1", label="expected points lost in the turn, per game")
        ax.set_xlabel("turn")
        ax.set_ylabel("expected points lost per game (points)")
        by = result["regret_by_decision"]
        by_decision = " / ".join(f"{by[d]:.3f}" for d in DECISIONS)
        ax.set_title(f"where the points go: {result['regret_per_game']:.3f} per game\n"
                     f"by decision (after roll 1 / 2 / 3): {by_decision}")
        ax.set_xticks(turns)
        legend_below(ax)
    return fig


def _histogram(ax: Any, result: dict[str, Any], optimal_scores: Sequence[int] | None) -> None:
    scores = np.asarray(result["scores"])
    both = scores if optimal_scores is None else np.concatenate([scores, np.asarray(optimal_scores)])
    width = 5
    bins = np.arange(width * (int(both.min()) // width), int(both.max()) + 2 * width, width)
    if optimal_scores is not None:
        opt = np.asarray(optimal_scores)
        ax.hist(opt, bins=bins, color="0.75", label=f"optimal player on these seeds (mean {opt.mean():.2f})")
    ax.hist(scores, bins=bins, histtype="step", linewidth=1.8, color="C0",
            label=f"{result.get('agent', 'agent')} (mean {scores.mean():.2f}, dashed)")
    ax.axvline(scores.mean(), color="C0", linestyle="--", linewidth=1)
    if result.get("optimal_value"):
        ax.axvline(result["optimal_value"], color="C3", linestyle=":", linewidth=1.2,
                   label=f"optimal expected {result['optimal_value']:.4f}")
    title = get_rules(result["rules"]).title if "rules" in result else ""
    ax.set_title(f"{title}: final scores, {scores.size:,} games")
    ax.set_xlabel(f"final score (points; bins of {width})")
    ax.set_ylabel("games")
    legend_below(ax, ncols=2)

