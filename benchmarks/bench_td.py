"""Speed of the TD learner's pieces: the fast successor table against the solver's reference, self-play games per
second, and the agent's decisions per second.

    python benchmarks/bench_td.py [--rules yahtzee] [--games 512]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents import td  # noqa: E402
from agents.evaluation import evaluate  # noqa: E402
from yacht_env.rules import get_rules  # noqa: E402
from yacht_env.solver import successor_table, turn_tables  # noqa: E402
from yacht_env.solver.kernels import fast_successor_table  # noqa: E402


def per_call(fn, n: int) -> float:  # noqa: ANN001 - any zero-argument callable
    fn()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rules", default="yahtzee")
    p.add_argument("--games", type=int, default=512)
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    args = p.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    rs = get_rules(args.rules)
    a = td.RulesArrays(rs)
    s = a.space
    E = np.random.default_rng(0).normal(100, 30, s.size)
    F, u, y = 0b101, min(10, s.threshold), 0
    ref = per_call(lambda: successor_table(*a.tables[:3], E, F, u, y, *a.dims()), 500)
    fast = per_call(lambda: fast_successor_table(*a.tables, E, F, u, y, *a.dims()), 2000)
    G = fast_successor_table(*a.tables, E, F, u, y, *a.dims())
    tt = per_call(lambda: turn_tables(G), 2000)
    print(f"{rs.name}: successor_table {ref * 1e6:.1f} us, fast_successor_table {fast * 1e6:.1f} us, "
          f"turn_tables {tt * 1e6:.1f} us per turn-start state")

    torch.manual_seed(0)
    model = td.ValueNet(rs, [128, 128])
    player = td.SelfPlay(model)
    rng = np.random.default_rng(0)
    player.play(16, rng)
    t = time.perf_counter()
    _, _, steps, _ = player.play(args.games, rng)
    dt = time.perf_counter() - t
    print(f"self-play: {args.games / dt:,.0f} games/s ({steps / dt:,.0f} steps/s), "
          f"{player.memo.evaluated:,} network values")

    agent = td.TDAgent(rs, model=model)
    t = time.perf_counter()
    r = evaluate(agent, rs, 500, seed=0, regret=False)
    dt = time.perf_counter() - t
    print(f"evaluation (agents.evaluation.play_games): {500 / dt:,.0f} games/s, mean {r['mean']:.1f} (untrained)")


if __name__ == "__main__":
    main()
