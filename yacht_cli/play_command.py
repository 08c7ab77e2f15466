"""``yacht play``: a person plays in the terminal, alone or against an agent (:mod:`yacht_tools.play`).

    yacht play --rules yacht [--seed N] [--hint] [--no-confirm] [--agent optimal|greedy|random|MODEL] [--lang xx]
"""

from __future__ import annotations

import argparse
import secrets
import sys
from typing import Any

from yacht_agents.loader import load_agent
from yacht_cli import options
from yacht_env.i18n import check_lang
from yacht_env.rules import RuleSet, get_rules
from yacht_solver import solve
from yacht_tools.coach import Coach
from yacht_tools.messages import text
from yacht_tools.objective_eval import check_objective
from yacht_tools.play import play_game
from yacht_tools.seeds import check_seed


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``play`` sub-parser."""
    p = subparsers.add_parser(
        "play",
        help="play a game in the terminal",
        description="Play in the terminal, alone or against an agent. Commands: keep <faces>, score <category>, "
                    "hint, show, help, quit.",
    )
    options.add_rules(p)
    options.add_seed(p, default=None, help_="fix the dice with this seed (default: random)")
    p.add_argument("--hint", action="store_true", help="show the optimal move and its expected value before each "
                                                       "decision (exact solver)")
    p.add_argument("--no-confirm", action="store_true",
                   help="score a 0 without asking, also where another box would score more")
    options.add_agent(p, default=None, help_="play against this agent (--vs is the same flag)", aliases=("--vs",))
    options.add_objective(p, win=True)
    options.add_lang(p)
    return p


def run(args: argparse.Namespace) -> int:
    """Play the game. Bad options raise ``ValueError``; a finished or abandoned game returns 0."""
    if sys.stdin is None:  # started with stdin closed (``<&-``): no moves can be read
        raise ValueError("standard input is closed; yacht play reads your moves from it")
    rules = get_rules(args.rules)
    lang = check_lang(args.lang)
    seed = secrets.randbelow(2**32) if args.seed is None else check_seed(args.seed)
    opponent = load_agent(args.agent, rules, seed) if args.agent is not None else None
    if args.hint:
        solve(rules)  # fail now, with a clear message, if the solver does not cover the rules
    if hasattr(sys.stdin, "reconfigure"):  # a line that is not valid text is an unknown command, not a crash
        sys.stdin.reconfigure(errors="replace")
    coach = play_coach(args, rules, lang)
    print(f"{rules.title} - {text('seed', lang)}: {seed} - help, quit", flush=True)
    try:
        play_game(rules, seed, lang=lang, hint=args.hint, opponent=opponent, coach=coach,
                  confirm=not args.no_confirm)
    except KeyboardInterrupt:
        print(f"\n{text('bye', lang)}", flush=True)
        return 130
    return 0


def play_coach(args: argparse.Namespace, rules: RuleSet, lang: str) -> Coach | None:
    """The coach of ``--objective reach --target T`` or ``--objective win`` (with ``--vs``), else None."""
    duel = args.agent is not None and args.agent.strip().lower() == "optimal-duel"
    if args.objective == "win" or (duel and args.hint and args.objective == "points"):
        if args.target is not None:
            raise ValueError("--target goes with --objective reach")
        if args.agent is None:
            raise ValueError("--objective win needs an opponent: --vs AGENT")
        return Coach(rules, "duel" if duel else "win", lang=lang)  # against optimal-duel: the exact chance
    if args.objective not in ("points", "reach"):
        raise ValueError(f"--objective must be one of points, reach, win, got {args.objective!r}")
    target = check_objective(args.objective, args.target)
    return None if target is None else Coach(rules, "reach", target, lang)
