"""Speed of the turn search and of the TD learner: turn-start states searched per second (one at a time and in
lanes), self-play games per second, and evaluation games per second of a TD agent.

    python benchmarks/bench_td.py [--rules yahtzee] [--games 512]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from yacht_agents import td_agent
from yacht_env.rules import TurnStartLayout, get_rules
from yacht_solver.search import state_search as ST
from yacht_solver.search import turn_search as T
from yacht_solver.search.turn_constants import Starts, search_constants
from yacht_tools.evaluation import evaluate
from yacht_training.td_learner import SelfPlay


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
    cs = search_constants(rs)
    layout = TurnStartLayout.of(rs)
    E = np.random.default_rng(0).normal(100, 30, layout.size)
    F, u, y = 0b101, min(10, layout.threshold), 0
    ref = per_call(lambda: T.successor_table(cs, E, (F, u, y)), 500)
    one = per_call(lambda: ST.state_turn(cs, E, (F, u, y)), 500)
    n = 4096
    rng = np.random.default_rng(1)
    Fs = rng.integers(0, (1 << rs.num_categories) - 1, n)
    us = np.minimum(rng.integers(0, layout.U, n), layout.threshold)
    ys = np.zeros(n, dtype=np.int64)
    keeps = T.empty_keep_values(n)
    start = np.empty(n)
    lanes = per_call(lambda: T.turn_values(cs, E, Starts(Fs, us, ys), keeps, start), 5) / n
    print(f"{rs.name}: successor_table {ref * 1e6:.1f} us; one state's turn {one * 1e6:.1f} us; in lanes "
          f"(turn_values, {n} states) {lanes * 1e6:.2f} us per state")

    torch.manual_seed(0)
    model = td_agent.ValueNet(rs, [128, 128])
    player = SelfPlay(model)
    rng = np.random.default_rng(0)
    player.play(16, rng)
    t = time.perf_counter()
    _, _, steps, _ = player.play(args.games, rng)
    dt = time.perf_counter() - t
    print(f"self-play: {args.games / dt:,.0f} games/s ({steps / dt:,.0f} steps/s), "
          f"{player.memo.evaluated:,} network values")

    agent = td_agent.TDAgent(rs, model=model)
    t = time.perf_counter()
    r = evaluate(agent, rs, 2000, seed=0, regret=False)
    dt = time.perf_counter() - t
    print(f"evaluation on the vector engine: {2000 / dt:,.0f} games/s, mean {r['mean']:.1f} (untrained)")


if __name__ == "__main__":
    main()
