"""P*(T) of the reach table and the expected-score player's P(final >= T), at the targets of the objectives page.

    python benchmarks/objective_curves.py --rules yahtzee yahtzee-free-joker yatzy
    python benchmarks/objective_curves.py --rules yahtzee yahtzee-free-joker yatzy --record

Reads the cached tables (or computes them: minutes each for the large rule sets), one rule set at a time.
``--record`` also writes ``docs/records/<rules>-objective-curves.json`` (atomically), from which the site draws the
pictures of the rule sets whose tables are too large to solve in a build: the start-of-game distribution of the
expected-score optimal player's final score (``distribution[s]`` = P(final = s), s = 0 .. the highest score), its
mean, and ``reach[T]`` = P*(T) for T = 0 .. the highest score, each rounded to :data:`DIGITS` significant digits.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

import numpy as np

from yacht_env.files import write_text_atomic
from yacht_env.objective import max_final_score
from yacht_env.rules import get_rules
from yacht_env.solver import ScoreDistribution, score_distribution, solve_reach

TARGETS = (150, 200, 250, 300, 350, 400, 500)
RECORDS = Path(__file__).resolve().parents[1] / "docs" / "records"
DIGITS = 9  # significant digits of each recorded probability: a float32 table's entries survive the round trip


def record_path(rules: str, folder: Path = RECORDS) -> Path:
    """Where ``--record`` writes the curves of ``rules``."""
    return folder / f"{rules}-objective-curves.json"


def _shown(p: float) -> str:
    """Five decimals; a small non-zero probability with its first significant digit."""
    return f"{p:.5f}" if p >= 1e-5 or p == 0 else f"{p:.1g}"


def _at(curve: np.ndarray, t: int) -> float:
    """``curve[t]``, 0 past its end (a target above the highest score)."""
    return float(curve[t]) if t < len(curve) else 0.0


def _rounded(values: np.ndarray, top: int) -> list[float]:
    """``values[0 .. top]`` to :data:`DIGITS` significant digits; what lies beyond ``top`` must be 0 (no game
    scores more than the highest score)."""
    if np.any(values[top + 1:] != 0):
        raise ValueError(f"a curve has non-zero entries beyond the highest score {top}")
    return [float(f"{float(v):.{DIGITS}g}") for v in values[: top + 1]]


def record(rules: str, dist: ScoreDistribution, best: np.ndarray, command: str) -> dict[str, object]:
    """The record of ``rules``: the expected-score player's distribution ``dist`` and its mean, and ``best``
    (P*(T)), cut at the highest score and rounded; ``command``: the command line that made it."""
    top = max_final_score(get_rules(rules))
    return {"rules": rules, "command": command, "max_score": top, "mean": float(f"{dist.mean:.10g}"),
            "distribution": _rounded(dist.probabilities, top), "reach": _rounded(best, top)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", nargs="+", default=["yahtzee", "yahtzee-free-joker", "yatzy"])
    p.add_argument("--record", action="store_true",
                   help="also write docs/records/<rules>-objective-curves.json for each rule set")
    args = p.parse_args(argv)
    for rules in args.rules:
        t0 = time.perf_counter()
        dist = score_distribution(rules)  # first: one table in memory at a time
        plain = dist.at_least()
        best = solve_reach(rules).curve()
        print(f"{rules}: P* {' | '.join(_shown(_at(best, t)) for t in TARGETS)}")
        print(f"{rules}: expected-score player {' | '.join(_shown(_at(plain, t)) for t in TARGETS)} "
              f"({time.perf_counter() - t0:.1f} s)", flush=True)
        if args.record:
            command = shlex.join(["python", "benchmarks/objective_curves.py", "--rules", rules, "--record"])
            text = json.dumps(record(rules, dist, best, command), indent=1) + "\n"
            print(f"wrote {write_text_atomic(record_path(rules), text)} ({len(text):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
