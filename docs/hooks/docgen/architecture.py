"""The architecture page's layers, read from the import-linter contracts in ``pyproject.toml`` (the
contracts the test command checks), with each module's first docstring line: the page is the rule the code keeps."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[3]
FOLDERS = {"yacht_agents": "agents"}  # installed names whose source folder has another name


def contracts(root: Path = ROOT) -> list[dict[str, Any]]:
    """The import-linter contracts of ``pyproject.toml``, in their order."""
    data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    return data["tool"]["importlinter"]["contracts"]


def summary(module: str, root: Path = ROOT) -> str:
    """The first sentence of a module's (or package's) docstring; empty where there is none."""
    top, *rest = module.split(".")
    base = root / FOLDERS.get(top, top) / Path(*rest) if rest else root / FOLDERS.get(top, top)
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
            line = " ".join(doc.split("\n\n")[0].split())
            line = re.split(r"(?<=[a-z)`])\. ", line, maxsplit=1)[0].rstrip(".")  # its first sentence
            if not line:
                return ""
            line += "."
            line = re.sub(r":\w+:`~?([^`]+)`", r"`\1`", line)  # Sphinx roles, as Markdown code
            return line.replace("``", "`")
    return ""


def architecture(root: Path = ROOT) -> str:
    """Each contract as a section: a layers contract as a table from the top layer down (a module imports only
    modules of the rows below its own), an independence or forbidden contract as a sentence."""
    parts = []
    for c in contracts(root):
        parts.append(f"### {c['name']}\n")
        if c["type"] == "layers":
            prefix = f"{c['containers'][0]}." if c.get("containers") else ""
            parts.append("| layer | modules |\n|---:|---|")
            for depth, layer in enumerate(c["layers"], 1):
                names = [n.strip() for n in layer.split("|")]
                cells = "<br>".join(f"`{prefix}{n}`: {summary(prefix + n, root)}".rstrip(": ") for n in names)
                parts.append(f"| {depth} | {cells} |")
        elif c["type"] == "independence":
            parts.append("None of " + ", ".join(f"`{m}`" for m in c["modules"]) + " imports another.")
        elif c["type"] == "forbidden":
            parts.append(", ".join(f"`{m}`" for m in c["source_modules"]) + " never imports "
                         + ", ".join(f"`{m}`" for m in c["forbidden_modules"]) + ".")
        parts.append("")
    return "\n".join(parts)
