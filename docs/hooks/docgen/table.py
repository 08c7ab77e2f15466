"""Markdown tables from rows of cells (the one table writer of the generators)."""

from __future__ import annotations

import html
from collections.abc import Sequence


def cell(text: object) -> str:
    """A table cell: pipes escaped, line breaks joined, ``<`` and ``&`` outside code spans escaped (``lin_<start>``
    is text, not a tag), so any text stays in its cell as written."""
    parts = " ".join(str(text).split()).replace("|", "\\|").split("`")
    return "`".join(p if i % 2 else html.escape(p, quote=False) for i, p in enumerate(parts))


def table(header: Sequence[str], rows: Sequence[Sequence[object]], align: str = "") -> str:
    """A Markdown table; ``align`` holds one of ``l``/``r`` per column (default: all left)."""
    marks = [("---:" if a == "r" else "---") for a in (align or "l" * len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(marks) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"
