"""How long the heads-up evaluation takes once the two-player table is on disk: ``yacht tournament --agents optimal
optimal-duel --games N --win-regret``'s games, timed in one process with the table loaded (after a few games that
compile the kernels), with each turn's search shared by its decisions and each decision asked twice (its choice,
then its win-regret) answered once (as the solver does), and with every turn searched and every decision computed
again each time it is asked, and the results of the two compared.

    python benchmarks/bench_heads_up_eval.py [--games 10000] [--rules yacht] [--synthetic]

``--synthetic``: no table is loaded or solved; the games are played on a table of the rules' exact shape (every pair
of scorecards, rows of at most 32 kept values rising from 0 to 1 around a tie, 0.7 GB for Yacht, built in seconds),
so the game loop and the kernels cost what they cost on the solved table (its memory's misses aside) on a machine
that does not hold it. The decisions are not Yacht's optimal ones: time them, do not read them.

Prints one JSON line: the seconds of each, the load's (or the synthetic table's build), and whether the two reports
are equal.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np

from yacht_env.rules import get_rules
from yacht_solver import duel as DU
from yacht_solver import duel_kernels as DUELK
from yacht_solver.duel import DuelSolution, solve_duel
from yacht_tools.tournament import run_tournament

KEPT = 32
"""The most values a row of the synthetic table keeps."""


def synthetic(rules: str) -> DuelSolution:
    """A solution of ``rules``'s exact shape whose rows keep at most :data:`KEPT` values rising from 0 to 1 around a
    tie (0.5 at the game's end), installed as the process's solution of ``rules`` (what ``optimal-duel`` and the
    win-regret then read)."""
    rs = get_rules(rules)
    plan = DU.duel_plan(rs)
    layers = []
    for t in range(len(plan.cells)):
        length = np.diff(plan.offsets(t))
        kept = np.minimum(length, KEPT).astype(np.int32)
        zeros = np.clip(-plan.lowest(t).astype(np.int64) - kept // 2, 0, length - kept).astype(np.int32)
        off = np.zeros(len(kept) + 1, dtype=np.int64)
        np.cumsum(kept, out=off[1:])
        j = np.arange(off[-1]) - np.repeat(off[:-1], kept)
        data = ((j + 0.5) / np.repeat(kept, kept)).astype(np.float32)
        if t == len(plan.cells) - 1:
            data[:] = 0.5
        layer = DU.layer_of(plan, t, DUELK.Stripped(data, zeros, kept))
        for a in layer[:3]:
            a.setflags(write=False)
        layers.append(layer)
    path = DU.duel_path(rs, DU.duel_key(rs))
    DU._MEMO[str(path)] = DuelSolution(rs, layers, path=path)
    return DU._MEMO[str(path)]


class _Forgetful(dict):
    """A memo that keeps nothing: every decision searches its turn and computes its values again."""

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=10000)
    p.add_argument("--rules", default="yacht")
    p.add_argument("--synthetic", action="store_true", help="play on a synthetic table of the rules' shape")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    sol = synthetic(args.rules) if args.synthetic else solve_duel(args.rules)
    out: dict[str, Any] = {"rules": args.rules, "games": args.games, "load_s": round(time.perf_counter() - t0, 1),
                           "from_cache": sol.from_cache, "synthetic": args.synthetic}
    run_tournament(["optimal", "optimal-duel"], 20, rules=args.rules, win_regret=True)  # compiles; one-player table
    reports = {}
    for name, memo in (("shared_turns", dict), ("every_decision", _Forgetful)):
        sol._turns, sol._decisions = memo(), memo()
        t = time.perf_counter()
        reports[name] = run_tournament(["optimal", "optimal-duel"], args.games, rules=args.rules, win_regret=True)
        out[f"{name}_s"] = round(time.perf_counter() - t, 1)
    same = json.dumps(reports["shared_turns"]["agents"], sort_keys=True, default=str) == json.dumps(
        reports["every_decision"]["agents"], sort_keys=True, default=str)
    out["same_report"] = same
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
