"""``yacht solve``: the optimal expected score of a rule set, and how long it took to get it."""

from __future__ import annotations

import argparse
import json
from typing import Any

from yacht_env.engine.cache import Stopwatch
from yacht_env.rules import get_rules
from yacht_env.solver import solve
from yacht_tools.cli import options


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``solve`` subcommand."""
    p = subparsers.add_parser(
        "solve",
        help="solve a rule set exactly: optimal expected final score",
        description="Solve a rule set by backward induction and print the optimal expected final score of a new "
        "game. The solved table is cached on disk ($YACHT_ENV_CACHE_DIR or the user cache directory). The time "
        "printed leaves out numba's compilation on first use.",
    )
    options.add_rules(p)
    p.add_argument("--json", action="store_true", help="print a JSON object: rules, start_value, seconds, cached")
    p.add_argument("--no-cache", action="store_true", help="solve again: neither read nor write the disk cache")
    return p


def run(args: argparse.Namespace) -> int:
    """Solve and print; returns the exit status."""
    rules = get_rules(args.rules)
    with Stopwatch() as sw:
        sol = solve(rules, cache=not args.no_cache)
    if args.json:
        print(json.dumps({"rules": sol.rules.name, "start_value": sol.start_value, "seconds": round(sw.seconds, 6),
                          "cached": sol.from_cache}))
    else:
        how = "loaded from cache" if sol.from_cache else "solved"
        print(f"{sol.rules.title}: optimal expected score {sol.start_value:.7f} ({how} in {sw.seconds:.3f} s)")
    return 0
