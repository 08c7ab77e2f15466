"""The README's results section on the site's home page, read from ``README.md`` (one copy of the
numbers, so the front page and the site cannot disagree)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def readme_results(root: Path = ROOT) -> str:
    """The body of the README's ``## Results`` section, its links into ``docs/`` made relative to the site."""
    text = (root / "README.md").read_text(encoding="utf-8")
    if "\n## Results\n" not in text:
        raise ValueError("README.md has no '## Results' section for the site's home page")
    body = text.split("\n## Results\n", 1)[1].split("\n## ", 1)[0]
    return body.replace("](docs/", "](").strip() + "\n"
