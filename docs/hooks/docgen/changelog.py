"""The changelog: the repository's git history, one entry per commit (its subject line), grouped by day."""

from __future__ import annotations

import html
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def changelog(root: Path = ROOT) -> str:
    """Markdown of ``git log`` (newest first). Built outside a git checkout (an unpacked sdist), the page says so
    instead of listing nothing."""
    try:
        out = subprocess.run(["git", "log", "--date=short", "--format=%ad%x09%h%x09%s"], cwd=root, check=True,
                             capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ("*This copy of the site was built outside a git checkout: the changelog is the repository's git "
                "history (`git log`).*\n")
    days: dict[str, list[str]] = {}
    for line in out.splitlines():
        day, short, subject = line.split("\t", 2)
        days.setdefault(day, []).append(f"- {html.escape(subject, quote=False)} (`{short}`)")
    return "\n".join(f"### {day}\n\n" + "\n".join(items) + "\n" for day, items in days.items())
