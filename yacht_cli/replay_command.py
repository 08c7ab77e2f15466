"""``yacht replay``: one game of an agent, turn by turn, with the optimal action and the regret of each decision.

    yacht replay --agent greedy --rules yacht --seed 7 [--lang ms] [--format text|json|html] [--output PATH]
    yacht replay --agents optimal greedy random --players 2 --seed 0 --match 1 --game 3 --format html --output g.html

With ``--agents`` it replays game ``--game`` of match ``--match`` of ``yacht tournament`` with the same ``--agents``,
``--players``, ``--seed`` and ``--rules`` (:mod:`yacht_tools.multiplayer_replay`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from yacht_agents.loader import check_seats, load_agent
from yacht_cli import options
from yacht_env.i18n import check_lang
from yacht_env.rules import get_rules
from yacht_tools.coach import Coach
from yacht_tools.messages import shown
from yacht_tools.multiplayer_replay import format_multiplayer_replay, replay_multiplayer
from yacht_tools.objective_eval import check_objective
from yacht_tools.output_paths import agent_inputs, check_output_path, write_user_text
from yacht_tools.replay import FORMATS, format_replay, replay_game, to_json
from yacht_tools.replay_page import page_html
from yacht_tools.seeds import check_int, check_seed


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``replay`` sub-parser."""
    p = subparsers.add_parser(
        "replay",
        help="show one game of an agent turn by turn",
        description="Play one seeded game with an agent and print it turn by turn: the dice after each roll, the "
                    "dice kept, the category and its points, the running total, the optimal action and the "
                    "expected points lost at each decision (exact solver), and the final scorecard. With --agents: "
                    "a game of several players from 'yacht tournament'. --format html writes one page to step "
                    "through with the arrow keys.",
    )
    who = p.add_mutually_exclusive_group()
    options.add_agent(who)
    who.add_argument("--agents", nargs="+", metavar="SPEC",
                     help="a game of several players from 'yacht tournament' with these agents (see --match, --game)")
    p.add_argument("--vs", metavar="SPEC", help="with --agent: a game of two against this agent (the same as "
                                                 "--agents AGENT SPEC; --vs means the opponent, as in yacht play)")
    p.add_argument("--players", default="2", help="with --agents: players per game, as in yacht tournament (default 2)")
    p.add_argument("--match", default="0", help="with --agents: the match, as numbered in the tournament's JSON "
                                                 "(default 0)")
    p.add_argument("--game", default="0", help="with --agents: the game within the match, from 0 (default 0)")
    options.add_rules(p)
    options.add_seed(p, help_="seed of the game, as in YachtEnv.reset(seed=...); with --agents the tournament's seed")
    options.add_lang(p)
    options.add_objective(p)
    p.add_argument("--format", default="text", choices=FORMATS,
                   help="text, json, or html: one self-contained page to step through (default: text)")
    p.add_argument("--output", metavar="PATH", help="write to PATH instead of printing")
    p.add_argument("--win-regret", action="store_true",
                   help="with --agents, two players: each decision's exact chance to win, after the move played and "
                        "after the best one (the solved game of two, as optimal-duel plays it)")
    p.add_argument("--no-regret", dest="regret", action="store_false",
                   help="skip the optimal actions and regrets (no solver)")
    return p


def run(args: argparse.Namespace) -> int:
    """Replay the game and print it or write it to ``--output``. Bad input raises ``ValueError``."""
    specs = [args.agent, args.vs, *(args.agents or [])]
    out = check_output_path(args.output, "--output", agent_inputs(specs)) if args.output is not None else None
    rules = get_rules(args.rules)
    lang = check_lang(args.lang)
    seed = check_seed(args.seed)
    target = check_objective(args.objective, args.target)
    if args.vs is not None:
        if args.agents:
            raise ValueError("--vs goes with --agent (a game of two: --agent AGENT --vs SPEC), not with --agents")
        args.agents = [args.agent, args.vs]
    if args.win_regret and not args.agents:
        raise ValueError("--win-regret goes with --agents or --vs (a game of two players)")
    if args.agents:
        if target is not None:
            raise ValueError("--objective reach applies to the replay of one agent (--agent), not to --agents")
        record = replay_multiplayer(args.agents, rules.name, seed, players=check_int(args.players, "players", 2, 8),
                                    match=args.match, game=args.game, lang=lang, regret=args.regret,
                                    win_regret=args.win_regret)
        text = format_multiplayer_replay(record, lang)
    else:
        check_seats(args.agent, 1)  # optimal-duel alone: refused before its table is loaded or solved
        agent = load_agent(args.agent, rules, seed)
        coach = None if target is None else Coach(rules, "reach", target, lang)
        record = replay_game(agent, rules, seed, lang=lang, regret=args.regret, coach=coach)
        text = format_replay(record, lang)
    if args.format == "json":
        text = to_json(record)
    elif args.format == "html":
        text = page_html(record, lang)
    if out is None:
        print(text)
    else:
        write_user_text(out, text + "\n")
        print(f"wrote {shown(args.output)}", file=sys.stderr)
    return 0
