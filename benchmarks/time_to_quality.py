"""Time to quality: percent of optimal at 5, 10, 15, 20 and 25 minutes of learning, from ``train.py`` run folders.

    python benchmarks/time_to_quality.py RUN_DIR [RUN_DIR ...] [--minutes 5 10 15 20 25] [--markdown PATH]

Each periodic evaluation of a run (any learner) records the learning seconds it came after (``learning_s`` in
``evaluations.json``; periodic evaluations are not counted as learning). A column gives the last periodic evaluation
at or before that many minutes (its games: ``eval.episodes`` of the config, so a 1,000-game mean is within about
±0.8% of optimal); the last columns give the final policy's evaluation (``eval.json``: its games, learning seconds
and steps). Runs are read, never changed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml

from yacht_tools.output_paths import check_output_path, write_user_text
from yacht_training.run_folder import load_evaluations


def read_run(run_dir: Path) -> dict[str, Any]:
    """The config, periodic evaluations and final evaluation of a run folder; ``ValueError`` naming what is missing."""
    need = [run_dir / n for n in ("config.yaml", "evaluations.json", "eval.json")]
    missing = [p.name for p in need if not p.is_file()]
    if missing:
        raise ValueError(f"{str(run_dir)!r} is not a finished train.py run folder: no {', '.join(missing)}")
    cfg = yaml.safe_load(need[0].read_text(encoding="utf-8"))
    evals = load_evaluations(run_dir)
    final = json.loads(need[2].read_text(encoding="utf-8"))
    if not any("learning_s" in e for e in evals):
        raise ValueError(f"{str(run_dir)!r}: its evaluations carry no learning_s (a run from before it was recorded)")
    return {"cfg": cfg, "evals": evals, "final": final}


def at_minutes(evals: list[dict[str, Any]], minutes: float) -> dict[str, Any] | None:
    """The last periodic evaluation at or before ``minutes`` of learning, or ``None``."""
    seen = [e for e in evals if "learning_s" in e and e["learning_s"] <= minutes * 60]
    return seen[-1] if seen else None


def table(runs: list[tuple[Path, dict[str, Any]]], minutes: list[float]) -> str:
    head = ["run", "rules", "seed", *[f"{m:g} min" for m in minutes], "final % of optimal", "final games",
            "learning s", "steps"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 3 + "---:|" * (len(head) - 3)]
    for path, run in runs:
        cells = [path.name, str(run["cfg"]["rules"]), str(run["cfg"]["seed"])]
        for m in minutes:
            e = at_minutes(run["evals"], m)
            cells.append("-" if e is None else f"{e['percent_of_optimal']:.2f}% ({e['timesteps'] / 1e6:.1f}M)")
        f = run["final"]
        half = (f["ci95"][1] - f["mean"]) / f["optimal_value"] * 100
        cells += [f"{f['percent_of_optimal']:.2f}% ± {half:.2f}", f"{f['episodes']:,}",
                  f"{f.get('training_wall_s', float('nan')):,.0f}", f"{f.get('training_timesteps', 0) / 1e6:.1f}M"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("runs", nargs="+", type=Path, help="train.py run folders")
    p.add_argument("--minutes", nargs="+", type=float, default=[5, 10, 15, 20, 25])
    p.add_argument("--markdown", type=Path, help="also write the table here")
    args = p.parse_args()
    if args.markdown:  # checked before the work; written as a shell's > would (a device: through)
        check_output_path(args.markdown, "--markdown")
    try:
        runs = [(r, read_run(r)) for r in args.runs]
    except (OSError, ValueError) as e:
        print(f"time_to_quality.py: error: {e}", file=sys.stderr)
        return 2
    text = table(runs, args.minutes)
    print(text)
    if args.markdown:
        write_user_text(args.markdown, text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
