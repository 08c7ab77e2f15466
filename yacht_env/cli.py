"""The ``yacht`` command line tool: one entry point, one module per subcommand.

Each subcommand lives in its own module exposing ``add_parser(subparsers)`` (which returns the sub-parser) and
``run(args) -> int``. Modules are imported when the parser is built; they import heavy libraries (torch) only
inside ``run``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

# subcommand -> module; modules listed here that are not installed yet are skipped
COMMANDS: dict[str, str] = {
    "solve": "yacht_env.solver.cli",
    "eval": "agents.evaluate_cli",
    "replay": "agents.replay",
    "play": "agents.play",
    "tournament": "agents.tournament",
}


def build_parser() -> argparse.ArgumentParser:
    from yacht_env import __version__

    parser = argparse.ArgumentParser(prog="yacht", description="Yacht and Yahtzee: solve, evaluate, replay, play.")
    parser.add_argument("--version", action="version", version=f"yacht-env {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS.values():
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name and (module == e.name or module.startswith(e.name + ".")):
                continue  # subcommand not part of this installation
            raise
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
    except ValueError as e:  # bad input: one clear line, no traceback
        print(f"yacht {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (``yacht eval ... | head``): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
