"""The help of the command lines reads as written: argparse expands ``%`` in an argument's ``help`` (where a
percent sign is ``%%``) but not in a parser's ``description`` or ``epilog`` (where ``%%`` would show as is)."""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import pytest

import train
from yacht_cli import build_parser

REPO = Path(__file__).resolve().parents[1]
SOURCES = [p for d in ("yacht_env", "agents", "yacht_tools", "yacht_training", "yacht_cli", "benchmarks")
           for p in (REPO / d).rglob("*.py")] + [REPO / "train.py"]


def _helps() -> dict[str, str]:
    """The rendered help of ``yacht``, of each of its subcommands and of ``train.py``."""
    parser = build_parser()
    out = {"yacht": parser.format_help()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            out.update({f"yacht {name}": sub.format_help() for name, sub in action.choices.items()})
    try:
        train.parse_args(["--help"])
    except SystemExit:
        pass
    return out


def test_rendered_help_has_no_doubled_percent(capsys: pytest.CaptureFixture[str]) -> None:
    helps = _helps()
    helps["train.py"] = capsys.readouterr().out
    assert {"yacht eval", "yacht tournament", "yacht play", "yacht replay", "yacht solve"} <= set(helps)
    for name, text in helps.items():
        assert "%%" not in text and "%(" not in text, f"{name} --help:\n{text}"
    assert "Wilson 95% interval" in " ".join(helps["yacht tournament"].split())
    assert "(default: " in helps["train.py"] and "yacht_td.yaml" in helps["train.py"]


def _strings(node: ast.AST) -> list[str]:
    """The literal text of a string expression (the constant parts of an f-string)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    if isinstance(node, ast.BinOp):
        return _strings(node.left) + _strings(node.right)
    return []


def test_percent_signs_in_every_parser_source() -> None:
    """Everywhere a parser is built: a description or epilog has no ``%%``; an argument's help has no lone ``%``
    (argparse would fail on it, or swallow the next letter)."""
    bad = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            for kw in node.keywords:
                for s in _strings(kw.value) if kw.arg in ("description", "epilog", "help") else []:
                    lone = re.sub(r"%%|%\(\w+\)[sdr]", "", s)
                    if (kw.arg != "help" and "%%" in s) or (kw.arg == "help" and "%" in lone):
                        bad.append(f"{path.relative_to(REPO)}:{node.lineno} {kw.arg}={s!r}")
    assert not bad, "\n".join(bad)
