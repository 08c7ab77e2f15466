"""Games a second of ``optimal-win`` against ``optimal`` (seats rotating, one thread), beside the same tournament of
``optimal`` against itself (the game loop and the expected-score player without the search for the win), measured
in one run, per rule set; as JSON lines.

    python benchmarks/bench_optimal_win.py [--rules yacht knizia yahtzee] [--games 300] [--seed 6]

The tables are loaded (or solved, once) and the kernels compiled before the clock starts. Yahtzee's and Yatzy's
reach and distribution tables take 15 to 25 minutes each to solve the first time (``yacht solve --rules yahtzee
--objective reach`` and ``--distribution``). ``cpu_games_per_s`` counts process CPU time, for a busy machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from yacht_tools.tournament import run_tournament


def rate(agents: list[str], rules: str, games: int, seed: int) -> dict[str, float]:
    """Wall and CPU games per second of one tournament (after a warm-up of two games)."""
    run_tournament(agents, 2, seed=seed + 1000, rules=rules)
    wall, cpu = time.perf_counter(), time.process_time()
    run_tournament(agents, games, seed=seed, rules=rules)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"games_per_s": games / wall, "cpu_games_per_s": games / cpu}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", nargs="+", default=["yacht", "knizia"])
    p.add_argument("--games", type=int, default=300)
    p.add_argument("--seed", type=int, default=6)
    args = p.parse_args(argv)
    if args.games < 1:
        p.error(f"--games must be a positive number of games, got {args.games}")
    for rules in args.rules:
        win = rate(["optimal-win", "optimal"], rules, args.games, args.seed)
        peer = rate(["optimal", "optimal"], rules, args.games, args.seed)
        print(json.dumps({"rules": rules, "games": args.games, "optimal_win": win, "optimal_only": peer,
                          "cost_ratio": peer["cpu_games_per_s"] / win["cpu_games_per_s"]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
