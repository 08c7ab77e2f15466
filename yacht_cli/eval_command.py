"""``yacht eval``: evaluate any policy over seeded games and report its scores against optimal play.

    yacht eval --agent optimal --rules yacht --episodes 10000 --seed 0 [--json PATH] [--plot PATH] [--no-regret]
    yacht eval --agent optimal-reach:200 --rules yacht --objective reach --target 200 --episodes 10000
"""

from __future__ import annotations

import argparse
from typing import Any

from yacht_agents.loader import check_seats, load_agent
from yacht_cli import options
from yacht_env.extras import require
from yacht_env.rules import get_rules
from yacht_solver import score_distribution
from yacht_tools.evaluation import MAX_EPISODES, check_evaluation_memory, evaluate
from yacht_tools.messages import shown
from yacht_tools.objective_eval import check_objective, run_reach
from yacht_tools.output_paths import agent_inputs, check_output_paths
from yacht_tools.report import format_report, plot_scores, write_json
from yacht_tools.seeds import check_episodes, check_seed


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``eval`` sub-parser."""
    p = subparsers.add_parser(
        "eval",
        help="evaluate an agent or any policy over seeded games",
        description="Play seeded games with an agent and report mean, confidence interval, per-category scores, "
                    "bonus rates beside the optimal player's on the same seeds, percent of optimal, and the regret "
                    "against the exact solver: per decision, per game, by decision, by turn and by box.",
    )
    options.add_agent(p, help_="the agent or policy")
    options.add_rules(p)
    p.add_argument("--episodes", default="1000", help=f"number of games, 1..{MAX_EPISODES:,} (default: 1000)")
    options.add_seed(p, help_="seed of the evaluation")
    options.add_objective(p)
    p.add_argument("--json", metavar="PATH", help="write the statistics and the per-game scores as JSON")
    p.add_argument("--plot", metavar="PATH", help="write a PNG: the scores over the optimal player's, and where "
                                                  "the points are lost")
    p.add_argument("--no-regret", dest="regret", action="store_false",
                   help="skip the regret and the optimal player's games on the same seeds (faster)")
    options.add_progress(p)
    return p


def run(args: argparse.Namespace) -> int:
    """Run the evaluation, print the report, write the requested files. Bad input raises ``ValueError`` before any
    game is played."""
    rules = get_rules(args.rules)
    episodes = check_episodes(args.episodes)
    if episodes > MAX_EPISODES:
        raise ValueError(f"episodes must be at most {MAX_EPISODES:,}, got {episodes:,}")
    seed = check_seed(args.seed)
    check_objective(args.objective, args.target)
    outputs = check_output_paths({"--json": args.json, "--plot": args.plot}, agent_inputs([args.agent]))
    json_path, plot_path = outputs["--json"], outputs["--plot"]
    if plot_path is not None:
        require("matplotlib", what="--plot")
    target = check_objective(args.objective, args.target)
    check_evaluation_memory(rules, episodes, regret=args.regret, compare=target is None and (
        args.regret or plot_path is not None), json_out=json_path is not None)  # before any table or agent is made
    if target is not None:  # the expected-score player's table is built (or read) and let go before an agent's reach
        score_distribution(rules)  # table is loaded: one table in memory at a time
    check_seats(args.agent, 1)
    agent = load_agent(args.agent, rules, seed)
    if target is not None:
        result = run_reach(agent, rules, episodes, seed, target, regret=args.regret, progress=options.progress(args),
                           json_path=json_path)
        if plot_path is not None:  # the scores; the regret here is in probability, not in points
            plot_scores({k: v for k, v in result.items() if not k.startswith("regret")}, plot_path)
            print(f"wrote {shown(args.plot)}")
        return 0
    result = evaluate(agent, rules, episodes, seed, regret=args.regret, compare=args.regret or plot_path is not None,
                      progress=options.progress(args))
    print(format_report(result))
    if json_path is not None:
        write_json(result, json_path)
        print(f"wrote {shown(args.json)}")
    if plot_path is not None:
        plot_scores(result, plot_path)
        print(f"wrote {shown(args.plot)}")
    return 0
