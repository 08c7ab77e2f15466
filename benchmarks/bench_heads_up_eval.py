"""How long the heads-up evaluation takes once the two-player table is on disk: ``yacht tournament --agents optimal
optimal-duel --games N --win-regret``'s games, timed in one process with the table loaded (after a few games that
compile the kernels), with each turn's search shared by its decisions and each decision asked twice (its choice,
then its win-regret) answered once (as the solver does), and with every turn searched and every decision computed
again each time it is asked, and the results of the two compared.

    python benchmarks/bench_heads_up_eval.py [--games 10000] [--rules yacht]

Prints one JSON line: the seconds of each, the load's, and whether the two reports are equal.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from yacht_solver.duel import solve_duel
from yacht_tools.tournament import run_tournament


class _Forgetful(dict):
    """A memo that keeps nothing: every decision searches its turn and computes its values again."""

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=10000)
    p.add_argument("--rules", default="yacht")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    sol = solve_duel(args.rules)
    out: dict[str, Any] = {"rules": args.rules, "games": args.games, "load_s": round(time.perf_counter() - t0, 1),
                           "from_cache": sol.from_cache}
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
