"""``yacht replay``: one game of an agent, turn by turn, with the optimal action and the regret of each decision.

    yacht replay --agent greedy --rules yacht --seed 7 [--lang ms] [--format text|json] [--no-regret]
"""

from __future__ import annotations

import argparse
from typing import Any

from yacht_agents.loader import load_agent
from yacht_env.i18n import check_lang
from yacht_env.rules import get_rules
from yacht_tools.cli import options
from yacht_tools.coach import Coach
from yacht_tools.objective_eval import check_objective
from yacht_tools.replay import FORMATS, format_replay, replay_game, to_json
from yacht_tools.seeds import check_seed


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``replay`` sub-parser."""
    p = subparsers.add_parser(
        "replay",
        help="show one game of an agent turn by turn",
        description="Play one seeded game with an agent and print it turn by turn: the dice after each roll, the "
                    "dice kept, the category and its points, the running total, the optimal action and the "
                    "expected points lost at each decision (exact solver), and the final scorecard.",
    )
    options.add_agent(p)
    options.add_rules(p)
    options.add_seed(p, help_="seed of the game, as in YachtEnv.reset(seed=...)")
    options.add_lang(p)
    options.add_objective(p)
    p.add_argument("--format", default="text", choices=FORMATS, help="text or json (default: text)")
    p.add_argument("--no-regret", dest="regret", action="store_false",
                   help="skip the optimal actions and regrets (no solver)")
    return p


def run(args: argparse.Namespace) -> int:
    """Replay the game and print it. Bad input raises ``ValueError``."""
    rules = get_rules(args.rules)
    lang = check_lang(args.lang)
    seed = check_seed(args.seed)
    target = check_objective(args.objective, args.target)
    agent = load_agent(args.agent, rules, seed)
    coach = None if target is None else Coach(rules, "reach", target, lang)
    record = replay_game(agent, rules, seed, lang=lang, regret=args.regret, coach=coach)
    print(to_json(record) if args.format == "json" else format_replay(record, lang))
    return 0
