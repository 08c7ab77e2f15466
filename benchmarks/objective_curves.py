"""P*(T) of the reach table and the expected-score player's P(final >= T), at the targets of the objectives page.

    python benchmarks/objective_curves.py --rules yahtzee yahtzee-free-joker yatzy
    python benchmarks/objective_curves.py --rules yahtzee --record

Reads the cached tables (or computes them: minutes each for the large rule sets), one rule set at a time.
``--record`` also writes each rule set's curves, whole, to ``docs/records/<rules>-objective-curves.json``
(:mod:`yacht_tools.objective_records`), from which the site draws the pictures of the rule sets whose tables are too
large to solve in a build.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

import numpy as np

from yacht_solver import score_distribution, solve_reach
from yacht_tools.objective_records import Curves, write_record

TARGETS = (150, 200, 250, 300, 350, 400, 500)
RECORDS = Path(__file__).resolve().parents[1] / "docs" / "records"


def _shown(p: float) -> str:
    """Five decimals; a small non-zero probability with its first significant digit."""
    return f"{p:.5f}" if p >= 1e-5 or p == 0 else f"{p:.1g}"


def _at(curve: np.ndarray, t: int) -> float:
    """``curve[t]``, 0 past its end (a target above the highest score)."""
    return float(curve[t]) if t < len(curve) else 0.0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", nargs="+", default=["yahtzee", "yahtzee-free-joker", "yatzy"])
    p.add_argument("--record", action="store_true",
                   help="also write docs/records/<rules>-objective-curves.json for each rule set")
    args = p.parse_args(argv)
    for rules in args.rules:
        t0 = time.perf_counter()
        dist = score_distribution(rules)  # first: one table in memory at a time
        plain, best = dist.at_least(), solve_reach(rules).curve()
        print(f"{rules}: P* {' | '.join(_shown(_at(best, t)) for t in TARGETS)}")
        print(f"{rules}: expected-score player {' | '.join(_shown(_at(plain, t)) for t in TARGETS)} "
              f"({time.perf_counter() - t0:.1f} s)", flush=True)
        if args.record:
            command = shlex.join(["python", "benchmarks/objective_curves.py", "--rules", rules, "--record"])
            print(f"wrote {write_record(Curves(rules, dist, best), command, RECORDS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
