"""Time and memory of the objective tables: the exact score distribution and the reach table, per rule set.

    python benchmarks/bench_objectives.py [--rules yacht knizia yahtzee yatzy] [--sample 64] [--json PATH]
    python benchmarks/bench_objectives.py --parts [--rules yahtzee yatzy] [--sample 48]

Rule sets whose tables fit the memory limit (``YACHT_ENV_TABLE_GB``, default 4 GB: every rule set since the tables
are ragged, 1.16 GB for Yahtzee) are solved whole, one table in memory at a time, with no disk cache, and P*(T) is
printed for a few targets. For a rule set over a lower limit the sweep's kernels run on one thread on a random sample
of the states of every layer (a zeroed table stands in for the successors: the work per state does not depend on
their values), and the whole sweep's time is extrapolated from the time per state and the number of states, divided
among the sweep's threads (``numba.get_num_threads()``: the states of a layer are shared among them). The
extrapolation is an upper bound, about 3x too high for Yahtzee's reach table when it was measured: probably because
the states of a layer, swept in order, find their successors' rows in the CPU's caches, and a sample's scattered
states do not. Solve whole where memory allows.

``--parts`` times the steps of the reach sweep side by side with the way each was done before, on one thread, on
``--sample`` consecutive states from the middle of every layer (a table of random rows stands in for the
successors), extrapolated to the whole sweep by each layer's number of states: the hand values as the decisions search
them, one look-up per need (``reach_hand_values``), against the sweep's one shifted successor row per box class
(``state_hand_values``); the keep tree's means over one more die summed row after row into a buffer (as before, in
this script) against one pass over the lanes (``_expect_keeps``); and the sweep's whole kernel (``reach_rows``).
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
from numba import njit

from yacht_env.actions import KEEP_MASK_UNIQUE
from yacht_env.rules import get_rules
from yacht_solver import distribution_kernels as DISTK
from yacht_solver import reach_kernels as RK
from yacht_solver import solve
from yacht_solver.core import turn_start_layers
from yacht_solver.memory_limit import table_limit_gb
from yacht_solver.reach import max_score, table_bytes
from yacht_solver.search import turn_search as TS
from yacht_solver.search.turn_constants import (
    HAND0,
    KEEP_ADD,
    NUM_FACES,
    NUM_HANDS,
    NUM_KEEPS,
    Starts,
    search_constants,
)

TARGETS = (100, 150, 200, 250)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def whole(rules: str) -> dict:
    """Solve both tables of ``rules`` with no disk cache."""
    from yacht_solver import distribution as DM
    from yacht_solver import reach as RM

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
    from yacht_solver.reach import most_points, new_table

    rs = get_rules(rules)
    cs = search_constants(rs)
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
    RK.reach_rows(cs, table.kernel, states[:2], N)  # compile
    t0 = time.perf_counter()
    RK.reach_rows(cs, table.kernel, states, N)
    per_reach = (time.perf_counter() - t0) / len(states)
    DISTK.distribution_rows(cs, E, table.kernel, states[:2], mask)
    t0 = time.perf_counter()
    DISTK.distribution_rows(cs, E, table.kernel, states, mask)
    per_dist = (time.perf_counter() - t0) / len(states)
    n, threads = len(every), numba.get_num_threads()
    return {"rules": rs.name, "mode": f"sampled {len(states)} states", "states": n, "table_mb": table_bytes(rs) / 1e6,
            "most_points_s": t_most, "reach_ms_per_state": 1e3 * per_reach,
            "distribution_ms_per_state": 1e3 * per_dist, "threads": threads,
            "reach_hours": per_reach * n / 3600 / threads, "distribution_hours": per_dist * n / 3600 / threads}


@njit
def _expect_rows(K: np.ndarray, acc: np.ndarray) -> None:
    """The keep tree's means over one more die as they were summed before: row after row into a buffer."""
    nl = K.shape[1]
    for k in range(HAND0 - 1, -1, -1):
        acc[:nl] = 0.0
        for f in range(NUM_FACES):
            j = KEEP_ADD[k, f]
            for b in range(nl):
                acc[b] += K[j, b]
        for b in range(nl):
            K[k, b] = acc[b] / NUM_FACES


@njit
def _hand_values(cs: TS.SearchConstants, R: object, states: np.ndarray, width: int, per_lane: bool) -> None:
    """The hand values of each of ``states`` at its needs ``0 .. L - 1``: one look-up per need, or the sweep's
    shifted rows."""
    rows = max(cs.BOXV.shape[1], cs.scoring.box_scores.shape[1])
    Wb, Tb = np.empty(NUM_HANDS * width), np.empty(rows * width)
    lanes = Starts(np.empty(width, dtype=np.int64), np.empty(width, dtype=np.int64), np.empty(width, dtype=np.int64))
    needs, bits = np.arange(width), np.empty(width, dtype=np.int64)
    UY = cs.U * cs.Y
    for i in range(states.shape[0]):
        s = states[i]
        L = R.offsets[s + 1] - R.offsets[s]
        F, r = s // UY, s % UY
        W, T = Wb[:NUM_HANDS * L].reshape((NUM_HANDS, L)), Tb[:rows * L].reshape((rows, L))
        if per_lane:
            lanes.F[:] = F
            lanes.u[:] = r // cs.Y
            lanes.y[:] = r % cs.Y
            RK.reach_hand_values(cs, R, Starts(lanes.F[:L], lanes.u[:L], lanes.y[:L]), needs[:L], W, T, bits[:L])
        else:
            RK.state_hand_values(cs, R, (F, r // cs.Y, r % cs.Y), W, T)


@njit
def _keep_means(lengths: np.ndarray, width: int, fused: bool) -> None:
    """The keep tree's two rounds of means over one more die at each of ``lengths`` lanes."""
    Kb, acc = np.full(NUM_KEEPS * width, 0.5), np.empty(width)
    for L in lengths:
        K = Kb[:NUM_KEEPS * L].reshape((NUM_KEEPS, L))
        for _ in range(2):
            if fused:
                TS._expect_keeps(K)
            else:
                _expect_rows(K, acc)


def parts(rules: str, sample: int) -> dict:
    """The reach sweep's steps against the way each was done before (see the module docstring): seconds of the
    whole sweep on one thread, extrapolated from ``sample`` states of every layer."""
    from yacht_solver.reach import new_table

    rs = get_rules(rules)
    cs = search_constants(rs)
    table = new_table(rs)
    table.data[:] = np.random.default_rng(0).random(table.data.shape[0], dtype=np.float32)
    table.data[table.offsets[:-1][np.diff(table.offsets) > 0]] = 1.0  # each row starts with 1, as the sweep's
    width = max_score(rs) + 2
    lengths = np.diff(table.offsets)
    steps = {
        "hand_values_per_lane": lambda st: _hand_values(cs, table.kernel, st, width, True),
        "hand_values_shifted": lambda st: _hand_values(cs, table.kernel, st, width, False),
        "keep_means_rows": lambda st: _keep_means(lengths[st], width, False),
        "keep_means_fused": lambda st: _keep_means(lengths[st], width, True),
        "reach_rows": lambda st: RK.reach_rows(cs, table.kernel, st, width),
    }
    layers = [s for s in turn_start_layers(rs) if len(s)]
    for step in steps.values():
        step(layers[-1][:1])  # compile
    seconds = dict.fromkeys(steps, 0.0)
    for states in layers:
        mid = len(states) // 2
        chunk = np.ascontiguousarray(states[max(mid - sample // 2, 0):][:sample])
        for name, step in steps.items():
            t0 = time.perf_counter()
            step(chunk)
            seconds[name] += (time.perf_counter() - t0) / len(chunk) * len(states)
    out = {"rules": rs.name, "mode": f"parts, {sample} states a layer, one thread",
           "states": int(sum(len(s) for s in layers))}
    out.update({f"{k}_s": round(v, 1) for k, v in seconds.items()})
    out["hand_values_factor"] = round(seconds["hand_values_per_lane"] / seconds["hand_values_shifted"], 2)
    out["keep_means_factor"] = round(seconds["keep_means_rows"] / seconds["keep_means_fused"], 2)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", nargs="+", default=["yacht", "knizia", "yahtzee", "yatzy"])
    p.add_argument("--sample", type=int, default=64, help="states timed for a rule set too large to solve whole")
    p.add_argument("--json", help="also write the results as JSON to this path")
    p.add_argument("--parts", action="store_true",
                   help="time the reach sweep's steps against the way each was done before (see above)")
    args = p.parse_args(argv)
    os.environ.setdefault("YACHT_ENV_CACHE_DIR", tempfile.mkdtemp(prefix="bench-objectives-"))
    limit = table_limit_gb() * 1e9
    out = []
    for rules in args.rules:
        rs = get_rules(rules)
        if args.parts:
            res = parts(rules, args.sample)
        else:
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
