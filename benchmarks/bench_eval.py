"""Whole ``yacht eval`` commands, warm caches: the evaluation targets (optimal, td-yacht, greedy) with regret.

    python benchmarks/bench_eval.py [--repeat 3] [--json out.json]

Each command runs once to fill numba's and the solver's caches, then ``--repeat`` times in fresh processes; a row
gives the best and the median wall time of the whole command (start-up, loading, games, regret, report) and the
"played in" time the command prints itself. The load average is printed with them: this machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

from yacht_tools.output_paths import check_output_path, write_user_text

COMMANDS = [  # (arguments of yacht eval, target in seconds for the whole command)
    (["--agent", "optimal", "--rules", "yacht", "--episodes", "10000", "--seed", "0"], 5.0),
    (["--agent", "td-yacht", "--rules", "yacht", "--episodes", "10000", "--seed", "0"], 15.0),
    (["--agent", "greedy", "--rules", "yahtzee", "--episodes", "4000", "--seed", "0"], 10.0),
    (["--agent", "ppo-expectimax-yacht", "--rules", "yacht", "--episodes", "10000", "--seed", "0"], None),
]


def run(args: list[str]) -> tuple[float, float]:
    """Wall seconds of ``yacht eval ARGS`` in a fresh process, and the seconds it reports for playing."""
    cmd = [sys.executable, "-m", "yacht_cli", "eval", *args, "--no-progress"]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if out.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{out.stderr[-2000:]}")
    played = re.search(r"played in ([0-9.]+) s", out.stdout)
    return wall, float(played.group(1)) if played else float("nan")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeat", type=int, default=3, help="timed runs of each command (default: 3)")
    p.add_argument("--json", help="also write the rows as JSON here")
    args = p.parse_args(argv)
    if args.json:  # checked before the work; written as a shell's > would (a device: through)
        check_output_path(args.json, "--json")
    if args.repeat < 1:
        p.error(f"--repeat must be a positive integer, got {args.repeat}")
    rows = []
    for cmd, target in COMMANDS:
        run(cmd)  # fills the caches
        times = [run(cmd) for _ in range(args.repeat)]
        walls = [w for w, _ in times]
        rows.append({"command": "yacht eval " + " ".join(cmd), "best_s": min(walls),
                     "median_s": statistics.median(walls), "played_s": min(t for _, t in times), "target_s": target})
    print(f"load average {os.getloadavg()[0]:.2f}, best and median of {args.repeat} runs, warm caches")
    print("| command | whole command, best s | median s | games and regret (printed) s | target s |")
    print("|---|---:|---:|---:|---:|")
    for r in rows:
        target = "-" if r["target_s"] is None else f"< {r['target_s']:g}"
        print(f"| `{r['command']}` | {r['best_s']:.2f} | {r['median_s']:.2f} | {r['played_s']:.2f} | {target} |")
    if args.json:
        write_user_text(args.json, json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
