"""The list of benchmarks: every script in ``benchmarks/`` with what it measures and its command, read from the
script's own docstring (its first line, and its usage lines: indented lines that start with ``python
benchmarks/``)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[3]


class Benchmark(NamedTuple):
    """One benchmark script as the Performance page lists it."""

    script: str  # "benchmarks/bench_engines.py"
    summary: str  # the docstring's first line
    commands: list[str]


def benchmarks(root: Path = ROOT) -> list[Benchmark]:
    """Every ``benchmarks/*.py`` script, in name order; a script without a docstring fails the build."""
    out = []
    for path in sorted((root / "benchmarks").glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        script = path.relative_to(root).as_posix()
        if not doc:
            raise ValueError(f"{script} has no docstring saying what it measures and how to run it")
        commands: list[str] = []
        for line in doc.replace("\\\n", " ").splitlines():
            if line.startswith("    python benchmarks/"):
                commands.append(" ".join(line.split()))
        out.append(Benchmark(script, " ".join(doc.split("\n\n")[0].split()), commands or [f"python {script}"]))
    return out


def benchmarks_list() -> str:
    """A section per benchmark: what it measures and its command (optional parts in brackets)."""
    parts = []
    for b in benchmarks():
        cmds = "\n".join(b.commands)
        parts.append(f"### `{b.script}`\n\n{b.summary}\n\n```bash\n{cmds}\n```\n")
    return "\n".join(parts)
