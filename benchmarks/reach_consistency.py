"""Do the reach agent's decisions realise its table? At a turn start, the mean over the first roll's hands of the
best action's probability (``ReachSolution.decide``, what ``optimal-reach:T`` plays) must equal the table's entry.

    python benchmarks/reach_consistency.py --rules yatzy [--states 30]

Checks the start and ``--states`` turn-start states drawn at random (seed 0), for the needs 1, 50, 150, 250 and
300 (those the table holds), and prints the largest difference.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from yacht_solver.reach import solve_reach
from yacht_solver.search.turn_constants import HAND_PROBABILITY
from yacht_solver.search.turn_search import Positions

NEEDS = (1, 50, 150, 250, 300)


def largest_gap(rules: str, states: int) -> tuple[int, float]:
    """(states checked, largest |E[best action's probability] - R[s, need]|)."""
    rs = solve_reach(rules)
    n = len(HAND_PROBABILITY)
    playable = np.flatnonzero(np.isfinite(rs.table[:, 0]) & (rs.table[:, 1] > 0))
    keys = [0, *np.random.default_rng(0).choice(playable, min(states, len(playable)), replace=False).tolist()]
    UY = rs.layout.U * rs.layout.Y
    worst = 0.0
    for s in keys:
        F, rest = divmod(int(s), UY)
        u, y = divmod(rest, rs.layout.Y)
        for need in (k for k in NEEDS if k < rs.width):
            pos = Positions(np.full(n, F), np.full(n, u), np.full(n, y), np.arange(n), np.full(n, 2))
            _, values = rs.decide(pos, np.full(n, need), values=True)
            worst = max(worst, abs(float(HAND_PROBABILITY @ values.max(axis=1)) - float(rs.table[s, need])))
    return len(keys), worst


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="yacht")
    p.add_argument("--states", type=int, default=30, help="turn-start states drawn at random besides the start")
    args = p.parse_args(argv)
    checked, worst = largest_gap(args.rules, args.states)
    print(f"{args.rules}: {checked} turn-start states, needs {NEEDS}: largest |E[best action] - R[s, need]| = "
          f"{worst:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
