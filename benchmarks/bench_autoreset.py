"""Steps per second of the vector engine in each autoreset mode, side by side with an earlier revision's engine.

Each measurement runs in a fresh process (kernels loaded from numba's cache and warmed up before timing), stepping N
games with random legal actions drawn by :class:`yacht_env.vector.LegalActionSampler`; in ``disabled`` mode the loop
also restarts the ended games with ``reset(options={"reset_mask": ...})``, as a user of that mode does. Rounds
interleave the configurations, so that a change in the machine's load touches them all alike; the table gives each
one's median and its ratio to the baseline.

    python benchmarks/bench_autoreset.py                             # the three modes of this tree
    python benchmarks/bench_autoreset.py --baseline REV --rounds 5 --json out.json
    python benchmarks/bench_autoreset.py --baseline REV --clock cpu     # busy cores: steps per CPU second

``--baseline REV`` checks REV out into a temporary git worktree and measures its default vector engine the same way
(the revision's own code, in its own process).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODES = ("next_step", "same_step", "disabled")

WORKER = r"""
import json, sys, time
from yacht_env.vector import LegalActionSampler, YachtVectorEnv
rules, n, mode, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
env = YachtVectorEnv(n, rules=rules, **({} if mode == "default" else {"autoreset_mode": mode}))
env.reset(seed=0)
sampler = LegalActionSampler(n, seed=0)
def step():
    _, _, te, tr, _ = env.step(sampler(env.action_masks()))
    if mode == "disabled":
        done = te | tr
        if done.any():
            env.reset(options={"reset_mask": done})
for _ in range(30):
    step()
t0, c0, k = time.perf_counter(), time.process_time(), 0
while time.perf_counter() - t0 < seconds:
    step()
    k += 1
print(json.dumps({"wall": k * n / (time.perf_counter() - t0), "cpu": k * n / (time.process_time() - c0)}))
"""


def measure(tree: Path, rules: str, n: int, mode: str, seconds: float, clock: str = "wall") -> float:
    """Steps/s of the engine of ``tree`` in ``mode`` (``default``: the tree's own default), in a new process, per
    second of ``clock``: ``wall`` (elapsed) or ``cpu`` (the process's own CPU time, steadier on busy cores)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", WORKER, rules, str(n), mode, str(seconds)], cwd=tree, env=env,
                         capture_output=True, text=True, check=True)
    return float(json.loads(out.stdout.strip().splitlines()[-1])[clock])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rules", default="yacht")
    ap.add_argument("--num-envs", type=int, default=4096)
    ap.add_argument("--seconds", type=float, default=2.0, help="timed seconds per measurement (default 2)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="steps per second of elapsed time (default) or of the process's CPU time (steadier when "
                         "other work shares the cores)")
    ap.add_argument("--baseline", help="a git revision whose default engine is measured beside this tree's")
    ap.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = ap.parse_args(argv)
    if args.json:  # checked before the work; written as a shell's > would (a device: through)
        from yacht_tools.output_paths import check_output_path

        check_output_path(args.json, "--json")
    configs: list[tuple[str, Path, str]] = [(f"this tree, {m}", ROOT, m) for m in MODES]
    with tempfile.TemporaryDirectory() as tmp:
        if args.baseline:
            base_tree = Path(tmp) / "baseline"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base_tree), args.baseline],
                           check=True, capture_output=True)
            configs.insert(0, (f"{args.baseline}, its default", base_tree, "default"))
        try:
            for _, tree, mode in configs:  # compile or load each tree's kernels once, untimed
                measure(tree, args.rules, args.num_envs, mode, 0.2)
            runs: dict[str, list[float]] = {name: [] for name, _, _ in configs}
            for r in range(args.rounds):
                for name, tree, mode in configs:
                    runs[name].append(measure(tree, args.rules, args.num_envs, mode, args.seconds, args.clock))
                print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
        finally:
            if args.baseline:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base_tree)],
                               capture_output=True)
    medians = {name: statistics.median(v) for name, v in runs.items()}
    ref = medians[configs[0][0]]
    print(f"{args.rules}, N={args.num_envs}, {args.rounds} interleaved rounds of {args.seconds:g} s, "
          f"steps per {args.clock} second\n")
    print(f"| engine | steps/s (median) | × {configs[0][0]} | every round |")
    print("|---|---:|---:|---|")
    for name, v in runs.items():
        print(f"| {name} | {medians[name]:,.0f} | {medians[name] / ref:.3f} | "
              f"{', '.join(f'{x:,.0f}' for x in v)} |")
    if args.json:
        from yacht_tools.output_paths import write_user_text

        write_user_text(args.json, json.dumps({"rules": args.rules, "num_envs": args.num_envs, "clock": args.clock,
                                                 "runs": runs,
                                                 "medians": medians, "reference": configs[0][0]}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
