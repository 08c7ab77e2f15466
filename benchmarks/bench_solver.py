"""Benchmark the exact solver against the PyPI package yatzy-solver, side by side in one process.

    python benchmarks/bench_solver.py [--repeat 3] [--json out.json] [--games 10000]

Times our Yahtzee solve (``cache=False``, after a warm-up that compiles or loads the numba kernels) and
``yatzy_solver.Solver.build(Variant("american+forced-joker"))`` (the same rules: official Yahtzee, forced Joker),
alternating them ``--repeat`` times, and prints the best time of each, the optimal value each finds, and the ratio
ours / theirs. Also times the Yacht solve, loading the Yahtzee table from the disk cache (a temporary directory) and,
with ``--games N``, N Yacht games of optimal play (``best_action`` through the game-state transitions), whose mean
must agree with the solved value.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

THEIR_VARIANT = "american+forced-joker"


def _ours(rules: str) -> tuple[float, float]:
    from yacht_env.solver import solve

    t0 = time.perf_counter()
    sol = solve(rules, cache=False)
    return time.perf_counter() - t0, sol.start_value


def _theirs() -> tuple[float, float]:
    import yatzy_solver as ys

    t0 = time.perf_counter()
    solver = ys.Solver.build(ys.Variant(THEIR_VARIANT))
    seconds = time.perf_counter() - t0
    return seconds, float(solver.state_value("upper 0 | filled -"))


def _load_time() -> float:
    """Seconds for ``solve("yahtzee")`` to load a table from the disk cache (fresh process memory)."""
    from yacht_env.solver import clear_memory_cache, solve

    solve("yahtzee")  # writes the table if it is not there
    clear_memory_cache()
    t0 = time.perf_counter()
    sol = solve("yahtzee")
    seconds = time.perf_counter() - t0
    assert sol.from_cache
    clear_memory_cache()
    return seconds


def _games(n: int, seed: int = 0) -> dict[str, Any]:
    """Play n Yacht games optimally through the state transitions."""
    from yacht_env.actions import NUM_KEEP_ACTIONS
    from yacht_env.solver import solve
    from yacht_env.state import new_game, reroll_pattern, score_category

    t0 = time.perf_counter()
    sol = solve("yacht")
    scores = np.empty(n)
    for i in range(n):
        rng = np.random.default_rng(seed + i)
        st = new_game("yacht", rng)
        while not st.is_over:
            a = sol.best_action(st)
            if a < NUM_KEEP_ACTIONS:
                st = reroll_pattern(st, a, rng)
            else:
                st, _ = score_category(st, a - NUM_KEEP_ACTIONS, rng)
        scores[i] = st.total
    seconds = time.perf_counter() - t0
    half = 3.2905 * scores.std(ddof=1) / math.sqrt(n) if n > 1 else math.inf
    return {"games": n, "seconds": seconds, "mean": float(scores.mean()), "std": float(scores.std(ddof=1)),
            "half_width_99_9": half, "start_value": sol.start_value,
            "agrees": bool(abs(scores.mean() - sol.start_value) < half)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each solver (best counts)")
    parser.add_argument("--json", type=Path, help="also write the results to this JSON file")
    parser.add_argument("--games", type=int, default=0, help="also play this many optimal Yacht games")
    parser.add_argument("--threads", type=int, help="numba threads (default: all cores)")
    args = parser.parse_args(argv)

    os.environ["YACHT_ENV_CACHE_DIR"] = tempfile.mkdtemp(prefix="yacht-bench-")  # leave the user's cache alone
    import numba

    if args.threads:
        numba.set_num_threads(args.threads)
    import yatzy_solver

    t0 = time.perf_counter()
    _ours("yacht")  # warm-up: compile, or load the compiled kernels
    warmup = time.perf_counter() - t0
    ours, theirs = [], []
    for _ in range(args.repeat):
        ours.append(_ours("yahtzee"))
        theirs.append(_theirs())
    yacht = [_ours("yacht") for _ in range(max(3, args.repeat))]
    load = _load_time()
    best_ours, best_theirs = min(t for t, _ in ours), min(t for t, _ in theirs)
    ratio = best_ours / best_theirs
    result: dict[str, Any] = {
        "threads": numba.get_num_threads(),
        "cpus": os.cpu_count(),
        "warmup_seconds": warmup,
        "yacht_env": {"rules": "yahtzee", "seconds": [t for t, _ in ours], "best": best_ours,
                      "value": ours[0][1]},
        "yatzy_solver": {"version": yatzy_solver.__version__, "variant": THEIR_VARIANT,
                         "seconds": [t for t, _ in theirs], "best": best_theirs, "value": theirs[0][1]},
        "ratio": ratio,
        "yacht": {"seconds": [t for t, _ in yacht], "best": min(t for t, _ in yacht), "value": yacht[0][1]},
        "load_seconds": load,
    }
    rows = [
        ("yacht-env  yahtzee (forced Joker)", best_ours, ours[0][1], ratio),
        (f"yatzy-solver {yatzy_solver.__version__} {THEIR_VARIANT}", best_theirs, theirs[0][1], 1.0),
    ]
    print(f"threads: {result['threads']}, repeat: {args.repeat} (best time shown), warm-up {warmup:.2f} s")
    print(f"{'solver':<44} {'seconds':>9} {'value':>14} {'ratio':>7}")
    for name, sec, val, r in rows:
        print(f"{name:<44} {sec:>9.3f} {val:>14.7f} {r:>7.3f}")
    print(f"{'yacht-env  yacht':<44} {result['yacht']['best']:>9.4f} {result['yacht']['value']:>14.7f}")
    print(f"load yahtzee table from the disk cache: {load:.3f} s")
    if args.games:
        g = _games(args.games)
        result["simulation"] = g
        print(f"{g['games']} optimal Yacht games in {g['seconds']:.1f} s: "
              f"mean {g['mean']:.3f} ± {g['half_width_99_9']:.3f}"
              f" (99.9 %), solved {g['start_value']:.3f}: {'agrees' if g['agrees'] else 'DISAGREES'}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    ok = ratio <= 1.0 and abs(ours[0][1] - theirs[0][1]) < 1e-6 and result.get("simulation", {}).get("agrees", True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
