"""The flags the subcommands share, defined once so that each means one thing everywhere.

``--agent`` one agent spec; ``--agents`` several; ``--rules`` a rule set (checked with the accepted names listed);
``--seed`` a non-negative integer; ``--objective`` / ``--target`` the objective (points, or reach a target);
``--lang`` a language; ``--progress`` / ``--no-progress`` progress on stderr (default: on; a bar on a terminal, else
a line every few seconds: :mod:`yacht_tools.progress`). Values are checked in the subcommand's ``run`` with the
library's own checks, so a bad value gets one line naming it and what is accepted.
"""

from __future__ import annotations

import argparse

from yacht_agents.loader import accepted_specs
from yacht_env.i18n import LANGUAGES
from yacht_env.rules import RULESETS
from yacht_tools.progress import DELAY_S, LINE_INTERVAL_S


def add_agent(p: argparse.ArgumentParser, default: str | None = "optimal", help_: str = "the agent",
              aliases: tuple[str, ...] = ()) -> None:
    p.add_argument("--agent", *aliases, dest="agent", default=default, metavar="SPEC",
                   help=f"{help_}: {accepted_specs()}" + (f" (default: {default})" if default else ""))


def add_agents(p: argparse.ArgumentParser, help_: str = "the agents") -> None:
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC", help=f"{help_}: {accepted_specs()}")


def add_rules(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", default="yacht", metavar="RULES",
                   help=f"rule set: {', '.join(RULESETS)} (default: yacht; the documentation's Rules page)")


def add_seed(p: argparse.ArgumentParser, default: str | None = "0", help_: str = "seed") -> None:
    p.add_argument("--seed", default=default, help=f"{help_}, a non-negative integer"
                   + (f" (default: {default})" if default is not None else ""))


def add_objective(p: argparse.ArgumentParser, win: bool = False) -> None:
    p.add_argument("--objective", default="points", help="what to maximise: points (the expected final score, "
                   "default) or reach (the probability of a final score >= --target)"
                   + (", or win (the probability to finish first, with an opponent)" if win else ""))
    p.add_argument("--target", default=None, help="the target score of --objective reach, a non-negative integer")


def add_lang(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lang", default="en", help=f"language: {', '.join(LANGUAGES)} (default: en)")


def add_progress(p: argparse.ArgumentParser) -> None:
    bar = p.add_mutually_exclusive_group()
    bar.add_argument("--progress", dest="progress", action="store_true", default=None,
                     help="report progress on stderr (the default): a bar on a terminal, else a line every "
                          f"{LINE_INTERVAL_S:g} s once a run takes over {DELAY_S:g} s")
    bar.add_argument("--no-progress", dest="progress", action="store_false", help="no progress report")


def progress(args: argparse.Namespace) -> bool:
    """Whether to report progress: as asked, else yes (also when stderr is not a terminal: a pipe or a log file
    gets a line every few seconds, never a silent wait)."""
    return args.progress is not False
