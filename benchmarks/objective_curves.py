"""P*(T) of the reach table and the expected-score player's P(final >= T), at the targets of the objectives page.

    python benchmarks/objective_curves.py --rules yahtzee yahtzee-free-joker yatzy

Reads the cached tables (or computes them: minutes each for the large rule sets), one rule set at a time.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from yacht_env.solver import score_distribution, solve_reach

TARGETS = (150, 200, 250, 300, 350, 400, 500)


def _shown(p: float) -> str:
    """Five decimals; a small non-zero probability with its first significant digit."""
    return f"{p:.5f}" if p >= 1e-5 or p == 0 else f"{p:.1g}"


def _at(curve: np.ndarray, t: int) -> float:
    """``curve[t]``, 0 past its end (a target above the highest score)."""
    return float(curve[t]) if t < len(curve) else 0.0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", nargs="+", default=["yahtzee", "yahtzee-free-joker", "yatzy"])
    args = p.parse_args(argv)
    for rules in args.rules:
        t0 = time.perf_counter()
        plain = score_distribution(rules).at_least()  # first: one table in memory at a time
        best = solve_reach(rules).curve()
        print(f"{rules}: P* {' | '.join(_shown(_at(best, t)) for t in TARGETS)}")
        print(f"{rules}: expected-score player {' | '.join(_shown(_at(plain, t)) for t in TARGETS)} "
              f"({time.perf_counter() - t0:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
