"""The ``yacht`` command line tool: one entry point, one module per subcommand.

Each subcommand module has ``add_parser(subparsers)`` (returning its sub-parser) and ``run(args) -> int``; the
shared flags are :mod:`.options`. Bad input raises ``ValueError`` (one line, exit status 2), a missing optional
dependency ``ModuleNotFoundError`` naming the extra to install. No traceback reaches the user: an ``OSError`` (a full
disk, a closed stream) or running out of memory is one line and exit status 1, Ctrl-C one line and 130, a reader
gone (``| head``) 141.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from yacht_cli import (
    bench_command,
    eval_command,
    play_command,
    replay_command,
    solve_command,
    tournament_command,
)
from yacht_env import __version__
from yacht_env.interrupt import prompt_interrupts

COMMANDS = (solve_command, eval_command, replay_command, play_command, tournament_command, bench_command)


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
    if argv is None:  # the process's own command line (``yacht``, ``python -m yacht_cli``): Ctrl-C ends it at once
        prompt_interrupts()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 0
    name = f"yacht {args.command}"
    try:
        if sys.stdout is None:  # started with stdout closed (``>&-``): nowhere to print the results
            raise ValueError("standard output is closed; give the command somewhere to print (a file, a pipe)")
        status = int(args._run(args) or 0)
        sys.stdout.flush()  # a full disk (``> /dev/full``) fails here, inside the handlers, not at exit
        return status
    except (ValueError, ModuleNotFoundError, RecursionError) as e:  # bad input or a missing extra: one line
        _say(f"{name}: error: {e if not isinstance(e, RecursionError) else 'the input is nested too deeply'}")
        return 2
    except MemoryError as e:  # a table or a run larger than the machine (numpy says how much it asked for)
        _say(f"{name}: error: out of memory{f': {e}' if str(e) else ''}")
        return 1
    except BrokenPipeError:  # the reader went away (``yacht eval ... | head``): stop quietly
        _silence_stdout()
        return 141
    except OSError as e:  # a full disk, a closed stream, a folder gone: one line (files written so far are whole)
        _silence_stdout()
        _say(f"{name}: error: {e.strerror or e}{f': {e.filename!r}' if e.filename else ''}")
        return 1
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's status for SIGINT
        _say(f"\n{name}: interrupted")
        return 130


def _say(line: str) -> None:
    """One line on stderr (if there is one)."""
    if sys.stderr is not None:
        try:
            print(line, file=sys.stderr, flush=True)
        except OSError:
            pass


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that Python's flush at exit does not fail a second time."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, AttributeError, ValueError):
        pass
