"""The documentation's committed pictures (``docs/img/``, ``docs/replays/``): every one a page links is in the
repository, they stay small, and none is stale (its data and drawing code hash to the digest recorded beside it in
``docs/img/pictures.json``; ``python docs/hooks/generate.py`` redraws the stale ones)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "hooks"))

from docgen.pictures import PICTURES, Picture, digest  # noqa: E402
from generate import MANIFEST, pages  # noqa: E402

LIMIT = 2_000_000  # bytes of every committed picture together: the repository stays light


def linked() -> set[str]:
    """The local pictures and pages the documentation links (``![..](img/..)``, ``src="img/.."``), relative to
    ``docs/``."""
    out = set()
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(((?:img|replays)/[^)\s]+)\)|src=\"((?:img|replays)/[^\"]+)\"", text):
            out |= {t for t in target if t}
    return out


def test_every_linked_picture_is_committed_and_listed() -> None:
    links = linked()
    assert len(links) >= 19
    assert not [p for p in links if not (DOCS / p).is_file()], "linked pictures missing from docs/"
    assert links <= set(PICTURES), sorted(links - set(PICTURES))
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    assert sorted(manifest) == sorted(PICTURES) and all((DOCS / p).is_file() for p in PICTURES)


def test_pictures_are_small() -> None:
    sizes = {p: (DOCS / p).stat().st_size for p in PICTURES}
    assert sum(sizes.values()) <= LIMIT, f"{sum(sizes.values()):,} bytes of pictures: {sizes}"
    assert all(size <= 250_000 for size in sizes.values()), sizes


def test_a_change_of_data_or_drawing_code_changes_the_digest() -> None:
    picture = Picture(lambda: [1.0, 2.0], lambda data: b"", ("docgen.table",))
    other_code = picture._replace(code=("docgen.readme",))
    assert digest(picture, [1.0, 2.0]) == digest(picture, [1.0 + 1e-14, 2.0])  # the last bits of a float
    assert digest(picture, [1.0, 2.0]) != digest(picture, [1.0, 2.5])
    assert digest(picture, [1.0, 2.0]) != digest(other_code, [1.0, 2.0])


@pytest.mark.slow  # solves Yacht and Knizia's Yacht and plays 1,000 games: about 15 s
def test_no_generated_part_or_picture_is_stale() -> None:
    import subprocess

    # in a process of its own, as the command runs: no rule set or agent another test registered
    p = subprocess.run([sys.executable, "docs/hooks/generate.py", "--check"], cwd=ROOT, capture_output=True,
                       text=True, timeout=900)
    assert p.returncode == 0, f"stale pictures (run python docs/hooks/generate.py):\n{p.stdout}{p.stderr}"
