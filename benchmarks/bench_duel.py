"""Solve the two-player game of each rule set exactly (:func:`yacht_solver.solve_duel`) and print, per rule set,
the first player's chance to win, the table's size and the sweep's time, as JSON lines.

    python benchmarks/bench_duel.py [--rules yacht knizia]

The table is solved into the disk cache (``$YACHT_ENV_CACHE_DIR``) and read back memory-mapped; a table already
there is loaded instead (``"cached": true``). A progress line goes to stderr every few seconds. Peak memory: run it
under ``/usr/bin/time -v``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numba

from yacht_env.rules import get_rules
from yacht_solver.duel import duel_plan, solve_duel


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", nargs="+", default=["yacht", "knizia"])
    args = p.parse_args(argv)
    for name in args.rules:
        rs = get_rules(name)
        plan = duel_plan(rs)
        total, done, last = sum(plan.cells), [0], [time.perf_counter()]

        def progress(n: int, total: int = total, done: list[int] = done, last: list[float] = last,
                     name: str = rs.name) -> None:
            done[0] += n
            if time.perf_counter() - last[0] > 30:
                last[0] = time.perf_counter()
                print(f"{name}: {100 * done[0] / total:.1f}% of {total:,} values", file=sys.stderr, flush=True)

        sol = solve_duel(rs, progress=progress)
        print(json.dumps({"rules": rs.name, "first_player_win": sol.first_player_win, "seconds": round(sol.seconds, 1),
                          "cached": sol.from_cache, "table_bytes": sol.table_bytes, "values": total,
                          "pairs": sum(plan.pairs), "threads": numba.get_num_threads()}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
