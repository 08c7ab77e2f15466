"""The command-line reference: every flag of every ``yacht`` subcommand and of ``train.py``, read from their
argparse parsers (:func:`yacht_cli.build_parser`, ``train.build_parser``)."""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from pathlib import Path
from typing import NamedTuple

from docgen.table import table

ROOT = Path(__file__).resolve().parents[3]


class Flag(NamedTuple):
    """One option of a parser, as the reference shows it."""

    names: str  # "--agent, --vs"
    value: str  # "SPEC", or "" for a switch
    default: str
    help: str


def _children(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The subcommands of ``parser`` (name -> parser), or none."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """``yacht``'s subcommand name -> its parser, in the order of ``yacht --help``; a subcommand with commands of
    its own (``bench``) is followed by each of them (``bench run``, ...)."""
    from yacht_cli import build_parser

    top = _children(build_parser())
    if not top:
        raise ValueError("yacht_cli.build_parser() has no subcommands")
    out: dict[str, argparse.ArgumentParser] = {}
    for name, parser in top.items():
        out[name] = parser
        out.update({f"{name} {sub}": p for sub, p in _children(parser).items()})
    return out


def train_parser() -> argparse.ArgumentParser:
    """The parser of ``train.py`` at the repository root (loaded from its file: it is a script, not a module)."""
    if "train" not in sys.modules:
        spec = importlib.util.spec_from_file_location("train", ROOT / "train.py")
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        sys.modules["train"] = module
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    return sys.modules["train"].build_parser()


def flags(parser: argparse.ArgumentParser) -> list[Flag]:
    """Every option of ``parser`` but ``--help`` and those argparse hides (``help=SUPPRESS``)."""
    out = []
    for a in parser._actions:
        if isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)) or a.help == argparse.SUPPRESS:
            continue
        takes_value = a.nargs != 0
        if a.choices:
            value = "{" + ",".join(map(str, a.choices)) + "}"
        else:
            value = (a.metavar or a.dest.upper()) if takes_value else ""
        if takes_value and a.nargs in ("+", "*"):
            value += " ..."
        default = "" if a.default in (None, argparse.SUPPRESS) or not takes_value else _shown(a.default)
        names = ", ".join(a.option_strings) or a.dest
        out.append(Flag(names, value, default, (a.help or "") % {"default": default, "prog": parser.prog}))
    return out


def _shown(default: object) -> str:
    """A default as the reference shows it: a path inside the repository relative to its root."""
    if isinstance(default, Path) and default.is_absolute() and default.is_relative_to(ROOT):
        return default.relative_to(ROOT).as_posix()
    return str(default)


def _section(title: str, parser: argparse.ArgumentParser) -> str:
    """A subcommand's heading, description and table of flags. Each flag name is a code span of its own, and the
    table sits in a ``cli-flags`` block whose style (``docs/stylesheets/extra.css``) keeps those spans whole on
    one line: a narrow column wraps between two names, never inside one (``--distributio n``)."""
    rows = [(", ".join(f"`{n}`" for n in f.names.split(", ")), f"`{f.value}`" if f.value else "",
             f"`{f.default}`" if f.default else "", _code_flags(f.help)) for f in flags(parser)]
    return (f"## `{title}`\n\n<div class=\"cli-flags\" markdown>\n\n{_code_flags(parser.description or '')}\n\n"
            + table(["flag", "value", "default", "meaning"], rows) + "\n</div>\n")


_FLAG = re.compile(r"(?<![\w`-])(--[a-z][a-z0-9-]*)")


def _code_flags(text: str) -> str:
    """``text`` with each ``--flag`` outside code spans made a code span (kept whole on one line by the style)."""
    parts = text.split("`")
    return "`".join(p if i % 2 else _FLAG.sub(r"`\1`", p) for i, p in enumerate(parts))


def cli_reference() -> str:
    """One section per ``yacht`` subcommand and one for ``train.py``."""
    parts = [_section(f"yacht {name}", p) for name, p in subcommands().items()]
    parts.append(_section("python train.py", train_parser()))
    return "\n".join(parts)
