"""``yacht eval``: evaluate an agent over seeded games and report its scores against optimal play.

    yacht eval --agent optimal --rules yacht --episodes 10000 --seed 0 [--json PATH] [--plot PATH] [--no-regret]
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from yacht_env.rules import RULESETS


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``eval`` sub-parser."""
    p = subparsers.add_parser(
        "eval",
        help="evaluate an agent over seeded games",
        description="Play seeded games with an agent and report mean, confidence interval, per-category scores, "
                    "bonus rates, percent of optimal and the mean regret per decision against the exact solver.",
    )
    p.add_argument("--agent", default="optimal",
                   help="random, greedy, optimal, or a saved model (.zip / .pt) (default: optimal)")
    p.add_argument("--rules", default="yacht", help=f"rule set: {', '.join(RULESETS)} (default: yacht)")
    p.add_argument("--episodes", default="1000", help="number of games, a positive integer (default: 1000)")
    p.add_argument("--seed", default="0", help="seed of the evaluation, a non-negative integer (default: 0)")
    p.add_argument("--json", metavar="PATH", help="write the statistics and the per-game scores as JSON")
    p.add_argument("--plot", metavar="PATH", help="write a PNG histogram of the scores over the optimal player's")
    p.add_argument("--no-regret", dest="regret", action="store_false",
                   help="skip the regret against the solver (faster)")
    bar = p.add_mutually_exclusive_group()
    bar.add_argument("--progress", dest="progress", action="store_true", default=None,
                     help="show a progress bar (default: when stderr is a terminal)")
    bar.add_argument("--no-progress", dest="progress", action="store_false")
    return p


def run(args: argparse.Namespace) -> int:
    """Run the evaluation, print the report, write the requested files. Bad input raises ``ValueError``."""
    from agents.evaluation import (
        check_episodes,
        check_seed,
        evaluate,
        format_report,
        optimal_solution,
        plot_scores,
        write_json,
    )
    from agents.loader import load_agent
    from agents.optimal import OptimalAgent
    from yacht_env.rules import get_rules

    rules = get_rules(args.rules)
    episodes = check_episodes(args.episodes)
    seed = check_seed(args.seed)
    agent = load_agent(args.agent, rules, seed)
    progress = sys.stderr.isatty() if args.progress is None else bool(args.progress)
    result = evaluate(agent, rules, episodes, seed, regret=args.regret, progress=progress)
    print(format_report(result))
    if args.json:
        write_json(result, args.json)
        print(f"wrote {args.json}")
    if args.plot:
        optimal_scores = None
        sol = None if isinstance(agent, OptimalAgent) else optimal_solution(rules, agent)
        if sol is not None:  # the optimal player on the same seeds, for the background histogram
            opt = evaluate(OptimalAgent(rules, solution=sol), rules, episodes, seed, regret=False,
                           progress=progress, solution=sol)
            optimal_scores = opt["scores"]
        plot_scores(result, args.plot, optimal_scores)
        print(f"wrote {args.plot}")
    return 0
