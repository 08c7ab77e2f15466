"""Benchmark the exact solver against the PyPI package yatzy-solver, side by side in one process.

    python benchmarks/bench_solver.py [--repeat 3] [--rules yahtzee yatzy] [--json out.json] [--games 10000]

For each rule set of ``--rules`` (default: both), times our solve (``cache=False``, after a warm-up that compiles or
loads the numba kernels) and ``yatzy_solver.Solver.build`` of the same rules (Yahtzee with the forced Joker:
``american+forced-joker``; Scandinavian Yatzy: ``yatzy-scandinavian``), alternating them ``--repeat`` times, and
prints the best time of each, the optimal value each finds and the ratio ours / theirs. For Yatzy it also compares
the value of every reachable turn-start state (filled boxes and capped upper total) with yatzy-solver's
``state_values``. Also times the Yacht solve, loading the Yahtzee table from the disk cache (a temporary directory)
and, with ``--games N``, N Yacht games of optimal play (``best_action`` through the game-state transitions), whose
mean must agree with the solved value.
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

THEIR_VARIANTS = {"yahtzee": "american+forced-joker", "yatzy": "yatzy-scandinavian"}
"""Our rule set -> the yatzy-solver variant with the same rules."""


def _ours(rules: str) -> tuple[float, float]:
    from yacht_solver import solve

    t0 = time.perf_counter()
    sol = solve(rules, cache=False)
    return time.perf_counter() - t0, sol.start_value


def _theirs(rules: str) -> tuple[float, float, Any]:
    """Seconds to build yatzy-solver's table of the same rules, its start value, and the solver."""
    import yatzy_solver as ys

    t0 = time.perf_counter()
    solver = ys.Solver.build(ys.Variant(THEIR_VARIANTS[rules]))
    seconds = time.perf_counter() - t0
    return seconds, float(solver.state_value("upper 0 | filled -")), solver


def _compare_states(rules: str, solver: Any) -> dict[str, Any]:
    """Every reachable turn-start state of a rule set without a five-of-a-kind box (``filled`` bits in box order,
    upper total capped at the threshold): our value against the yatzy-solver ``solver``'s ``state_values``."""
    from yacht_solver import solve

    sol = solve(rules)
    if sol.layout.Y != 1:
        raise ValueError(f"state comparison needs a rule set without a five-of-a-kind box, not {rules!r}")
    variant = solver.variant
    if list(variant.categories) != list(sol.rules.category_ids):
        raise AssertionError(f"{variant.id}: boxes {variant.categories} differ from ours {sol.rules.category_ids}")
    F, u = np.nonzero(np.isfinite(sol.values[:, :, 0]))
    theirs = solver.state_values(F.astype(np.uint32), u.astype(np.uint16), np.zeros(len(F), dtype=np.bool_))
    diff = np.abs(np.asarray(theirs) - sol.values[F, u, 0])
    return {"states": int(len(F)), "max_abs_diff": float(diff.max()), "variant": variant.id}


def _load_time() -> float:
    """Seconds for ``solve("yahtzee")`` to load a table from the disk cache (fresh process memory)."""
    from yacht_solver import clear_memory_cache, solve

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
    from yacht_env.state import new_game, reroll_pattern, score_category
    from yacht_solver import solve

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
    parser.add_argument("--rules", nargs="+", default=list(THEIR_VARIANTS), choices=list(THEIR_VARIANTS),
                        help="rule sets to time against yatzy-solver (default: all)")
    parser.add_argument("--threads", type=int, help="numba threads (default: all cores)")
    args = parser.parse_args(argv)

    os.environ["YACHT_ENV_CACHE_DIR"] = tempfile.mkdtemp(prefix="yacht-bench-")  # leave the user's cache alone
    if args.json:  # checked before the work; written as a shell's > would (a device: through)
        from yacht_tools.output_paths import check_output_path

        check_output_path(args.json, "--json")
    import numba

    if args.threads:
        numba.set_num_threads(args.threads)
    import yatzy_solver

    t0 = time.perf_counter()
    _ours("yacht")  # warm-up: compile, or load the compiled kernels
    warmup = time.perf_counter() - t0
    result: dict[str, Any] = {"threads": numba.get_num_threads(), "cpus": os.cpu_count(), "warmup_seconds": warmup,
                              "yatzy_solver_version": yatzy_solver.__version__, "pairs": {}}
    rows = []
    ok = True
    for rules in args.rules:
        ours, theirs = [], []
        for _ in range(args.repeat):
            ours.append(_ours(rules))
            theirs.append(_theirs(rules))
        best_ours, best_theirs = min(t for t, _ in ours), min(t[0] for t in theirs)
        pair: dict[str, Any] = {
            "yacht_env": {"seconds": [t for t, _ in ours], "best": best_ours, "value": ours[0][1]},
            "yatzy_solver": {"variant": THEIR_VARIANTS[rules], "seconds": [t[0] for t in theirs], "best": best_theirs,
                             "value": theirs[0][1]},
            "ratio": best_ours / best_theirs,
        }
        ok = ok and pair["ratio"] <= 1.0 and abs(ours[0][1] - theirs[0][1]) < 1e-6
        if rules == "yatzy":
            pair["states"] = _compare_states(rules, theirs[-1][2])
            ok = ok and pair["states"]["max_abs_diff"] < 1e-6
        result["pairs"][rules] = pair
        rows += [(f"yacht-env  {rules}", best_ours, ours[0][1], pair["ratio"]),
                 (f"yatzy-solver {yatzy_solver.__version__} {THEIR_VARIANTS[rules]}", best_theirs, theirs[0][1], 1.0)]
    yacht = [_ours("yacht") for _ in range(max(3, args.repeat))]
    load = _load_time()
    result["yacht"] = {"seconds": [t for t, _ in yacht], "best": min(t for t, _ in yacht), "value": yacht[0][1]}
    result["load_seconds"] = load
    print(f"threads: {result['threads']}, repeat: {args.repeat} (best time shown), warm-up {warmup:.2f} s")
    print(f"{'solver':<44} {'seconds':>9} {'value':>14} {'ratio':>7}")
    for name, sec, val, r in rows:
        print(f"{name:<44} {sec:>9.3f} {val:>14.7f} {r:>7.3f}")
    if "yatzy" in result["pairs"]:
        st = result["pairs"]["yatzy"]["states"]
        print(f"yatzy: {st['states']:,} turn-start states against {st['variant']}: largest difference "
              f"{st['max_abs_diff']:.2e}")
    print(f"{'yacht-env  yacht':<44} {result['yacht']['best']:>9.4f} {result['yacht']['value']:>14.7f}")
    print(f"load yahtzee table from the disk cache: {load:.3f} s")
    if args.games:
        g = _games(args.games)
        result["simulation"] = g
        print(f"{g['games']} optimal Yacht games in {g['seconds']:.1f} s: "
              f"mean {g['mean']:.3f} ± {g['half_width_99_9']:.3f}"
              f" (99.9 %), solved {g['start_value']:.3f}: {'agrees' if g['agrees'] else 'DISAGREES'}")
    if args.json:
        from yacht_tools.output_paths import write_user_text

        write_user_text(args.json, json.dumps(result, indent=2) + "\n")
    ok = ok and result.get("simulation", {}).get("agrees", True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
