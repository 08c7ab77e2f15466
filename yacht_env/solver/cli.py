"""``yacht solve``: the optimal expected score of a rule set, and how long it took to get it."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from yacht_env.rules import RULESETS


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``solve`` subcommand."""
    p = subparsers.add_parser(
        "solve",
        help="solve a rule set exactly: optimal expected final score",
        description="Solve a rule set by backward induction and print the optimal expected final score of a new "
        "game. The solved table is cached on disk ($YACHT_ENV_CACHE_DIR or the user cache directory).",
    )
    p.add_argument("--rules", default="yacht", choices=list(RULESETS), help="rule set (default: yacht)")
    p.add_argument("--json", action="store_true", help="print a JSON object: rules, start_value, seconds, cached")
    p.add_argument("--no-cache", action="store_true", help="solve again: neither read nor write the disk cache")
    return p


def run(args: argparse.Namespace) -> int:
    """Solve and print; returns the exit status."""
    from yacht_env.solver import solve  # numba is imported here, not when the parser is built

    t0 = time.perf_counter()
    sol = solve(args.rules, cache=not args.no_cache)
    seconds = time.perf_counter() - t0
    if args.json:
        print(json.dumps({"rules": sol.rules.name, "start_value": sol.start_value, "seconds": round(seconds, 6),
                          "cached": sol.from_cache}))
    else:
        how = "loaded from cache" if sol.from_cache else "solved"
        print(f"{sol.rules.title}: optimal expected score {sol.start_value:.7f} ({how} in {seconds:.3f} s)")
    return 0
