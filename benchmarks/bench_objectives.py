"""Time and memory of the objective tables: the exact score distribution and the reach table, per rule set.

    python benchmarks/bench_objectives.py [--rules yacht knizia yahtzee yatzy] [--sample 64] [--json PATH]

Rule sets whose tables fit the memory limit (``YACHT_ENV_TABLE_GB``, default 4 GB: every rule set since the tables
are ragged, 1.16 GB for Yahtzee) are solved whole, one table in memory at a time, with no disk cache, and P*(T) is
printed for a few targets. For a rule set over a lower limit the sweep's kernels run on one thread on a random sample
of the states of every layer (a zeroed table stands in for the successors: the work per state does not depend on
their values), and the whole sweep's time is extrapolated from the time per state and the number of states, divided
among the sweep's threads (``numba.get_num_threads()``: the states of a layer are shared among them). The
extrapolation is an upper bound, about 3x too high for Yahtzee's reach table when it was measured: probably because
the states of a layer, swept in order, find their successors' rows in the CPU's caches, and a sample's scattered
states do not. Solve whole where memory allows.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time

import numba
import numpy as np

from yacht_env.actions import KEEP_MASK_UNIQUE
from yacht_env.rules import get_rules
from yacht_env.search.turn_tables import search_tables
from yacht_env.solver import distribution_kernels as DK
from yacht_env.solver import reach_kernels as RK
from yacht_env.solver import solve
from yacht_env.solver.core import turn_start_layers
from yacht_env.solver.reach import MEMORY_ENV, max_score, table_bytes

TARGETS = (100, 150, 200, 250)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def whole(rules: str) -> dict:
    """Solve both tables of ``rules`` with no disk cache."""
    from yacht_env.solver import distribution as DM
    from yacht_env.solver import reach as RM

    rs = get_rules(rules)
    sol = solve(rs)
    t0 = time.perf_counter()
    start = DM.compute_distribution(sol)[0]  # the table goes before the next: one in memory at a time
    t_dist = time.perf_counter() - t0
    t0 = time.perf_counter()
    curve = RM.compute_reach(rs)[0]
    t_reach = time.perf_counter() - t0
    plain = np.cumsum(start[::-1])[::-1]
    return {"rules": rs.name, "mode": "whole", "table_mb": table_bytes(rs) / 1e6, "distribution_s": t_dist,
            "reach_s": t_reach, "mean": float(np.arange(len(start)) @ start), "start_value": sol.start_value,
            "p_star": {t: float(curve[t]) for t in TARGETS},
            "expected_player": {t: float(plain[t]) for t in TARGETS}}


def sampled(rules: str, sample: int) -> dict:
    """Time per state of both sweeps on ``sample`` states spread over every layer (each searched up to its own most
    points still to come, as in the whole sweep), on one thread, extrapolated to every state and divided among the
    sweep's threads."""
    from yacht_env.solver.reach import most_points, new_table

    rs = get_rules(rules)
    tb = search_tables(rs)
    every = np.concatenate(turn_start_layers(rs))
    t0 = time.perf_counter()
    most_points(rs)  # timed: the bound of every row
    t_most = time.perf_counter() - t0
    states = np.sort(np.random.default_rng(0).choice(every, size=min(sample, len(every)), replace=False))
    N = max_score(rs) + 2
    table = new_table(rs)
    table.data[:] = 0.0
    E = np.zeros(table.shape[0])
    mask = np.ascontiguousarray(KEEP_MASK_UNIQUE)
    RK.reach_rows(tb, table.kernel, states[:2], N)  # compile
    t0 = time.perf_counter()
    RK.reach_rows(tb, table.kernel, states, N)
    per_reach = (time.perf_counter() - t0) / len(states)
    DK.distribution_rows(tb, E, table.kernel, states[:2], mask)
    t0 = time.perf_counter()
    DK.distribution_rows(tb, E, table.kernel, states, mask)
    per_dist = (time.perf_counter() - t0) / len(states)
    n, threads = len(every), numba.get_num_threads()
    return {"rules": rs.name, "mode": f"sampled {len(states)} states", "states": n, "table_mb": table_bytes(rs) / 1e6,
            "most_points_s": t_most, "reach_ms_per_state": 1e3 * per_reach,
            "distribution_ms_per_state": 1e3 * per_dist, "threads": threads,
            "reach_hours": per_reach * n / 3600 / threads, "distribution_hours": per_dist * n / 3600 / threads}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", nargs="+", default=["yacht", "knizia", "yahtzee", "yatzy"])
    p.add_argument("--sample", type=int, default=64, help="states timed for a rule set too large to solve whole")
    p.add_argument("--json", help="also write the results as JSON to this path")
    args = p.parse_args(argv)
    os.environ.setdefault("YACHT_ENV_CACHE_DIR", tempfile.mkdtemp(prefix="bench-objectives-"))
    limit = float(os.environ.get(MEMORY_ENV, "4")) * 1e9
    out = []
    for rules in args.rules:
        rs = get_rules(rules)
        res = whole(rules) if table_bytes(rs) <= limit else sampled(rules, args.sample)
        res["peak_rss_mb"] = _peak_mb()
        out.append(res)
        print(json.dumps(res), flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
