"""``yacht tournament``: all-play-all between agents, win rates and mean scores (:mod:`yacht_tools.tournament`).

    yacht tournament --agents optimal td-yacht greedy random --games 2000 --seed 0 [--players 2] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from yacht_cli import options
from yacht_env.rules import get_rules
from yacht_tools.messages import shown
from yacht_tools.output_paths import agent_inputs, check_output_path, write_user_text
from yacht_tools.seeds import check_int, check_seed
from yacht_tools.tournament import DEFAULT_BATCH, MAX_GAMES, format_report, run_tournament


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """The ``yacht tournament`` sub-parser."""
    p = subparsers.add_parser(
        "tournament", help="all-play-all between agents: win rates and mean scores",
        description="Every pair (or group of --players) of the agents plays --games games with rotating seats; "
                    "prints win rates (ties shared, Wilson 95% interval) and mean scores per agent and "
                    "head-to-head. Deterministic for a seed.")
    options.add_agents(p, help_="the agents (at least --players of them)")
    p.add_argument("--games", default="1000", help=f"games per match, 1..{MAX_GAMES:,} (default 1000)")
    options.add_seed(p, help_="seed of the dice and the agents")
    options.add_rules(p)
    p.add_argument("--players", default="2", help="players per game, 2 to 8 (default 2)")
    p.add_argument("--batch-size", default=str(DEFAULT_BATCH), help=argparse.SUPPRESS)
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    p.add_argument("--win-regret", action="store_true",
                   help="two players: the exact win-regret of every decision of each agent, max_a W(a) - W(chosen), "
                        "from the solved game of two (yacht solve --objective duel), by decision type and turn")
    options.add_progress(p)
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``yacht tournament``: print the table, write the JSON if asked."""
    json_path = check_output_path(args.json, "--json", agent_inputs(args.agents)) if args.json is not None else None
    rules = get_rules(args.rules)
    result = run_tournament(args.agents, check_int(args.games, "games", 1, MAX_GAMES), check_seed(args.seed),
                            rules.name,
                            check_int(args.players, "players", 2, 8),
                            batch_size=check_int(args.batch_size, "batch size", 1),
                            progress=options.progress(args), win_regret=args.win_regret)
    print(format_report(result))
    if json_path is not None:
        write_user_text(json_path, json.dumps(result, indent=2) + "\n")
        print(f"\nwrote {shown(args.json)}", file=sys.stderr)
    return 0
