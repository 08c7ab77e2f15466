"""The ``yacht`` command line tool: one entry point, one module per subcommand.

Each subcommand module has ``add_parser(subparsers)`` (returning its sub-parser) and ``run(args) -> int``; the
shared flags are :mod:`.options`. Bad input raises ``ValueError`` (one line, exit status 2), a missing optional
dependency ``ModuleNotFoundError`` naming the extra to install.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from yacht_env import __version__
from yacht_tools.cli import eval as eval_cmd
from yacht_tools.cli import play, replay, solve, tournament

COMMANDS = (solve, eval_cmd, replay, play, tournament)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="yacht", description="Yacht and its relatives: solve, evaluate, replay, "
                                                               "play, compare.")
    parser.add_argument("--version", action="version", version=f"yacht-env {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in COMMANDS:
        p = mod.add_parser(sub)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 0
    try:
        return int(args._run(args) or 0)
    except (ValueError, ModuleNotFoundError) as e:  # bad input or a missing extra: one clear line, no traceback
        print(f"yacht {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (``yacht eval ... | head``): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
