"""The built site: its pictures are there and are pictures, it works opened from disk, and (in headless Chromium) the
CLI reference keeps every flag whole in its table cell, wide or narrow.

Builds the site with ``mkdocs build`` into a temporary folder (seconds; the pictures are the committed ones of
``docs/img/``), then reads the files and the laid-out page. Needs
Chromium as tests/test_replay_page.py does (its ``browser`` fixture); screenshots go beside that test's.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_replay_page import browser  # noqa: F401 - the fixture, shared

pytestmark = pytest.mark.slow  # the site's build takes about 17 s: in --full (the test command, CI) only

pytest.importorskip("mkdocs")

ROOT = Path(__file__).resolve().parents[1]
ARTEFACTS = ROOT / "build" / "test-artefacts" / "docs"

_FLAGS = """
const codes = [...document.querySelectorAll('.cli-flags td:first-child code')];
const inText = [...document.querySelectorAll('.cli-flags p code, .cli-flags td:last-child code')]
  .filter(c => c.textContent.startsWith('--'));
return {count: codes.length, tables: document.querySelectorAll('.cli-flags table').length,
  in_text: inText.length,
  broken: [...codes, ...inText].filter(c => c.getClientRects().length !== 1).map(c => c.textContent),
  names: codes.map(c => c.textContent)};
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    # not -q: mkdocs's quiet mode drops the warnings that --strict counts (a stale part or broken link would pass)
    p = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)], cwd=ROOT,
                       capture_output=True, text=True, timeout=600, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert p.returncode == 0, p.stderr[-3000:]
    return out


def _sources(page: Path, tag: str) -> list[str]:
    return re.findall(rf'<{tag}\b[^>]*\bsrc="([^"]+)"', page.read_text(encoding="utf-8"))


def test_site_shows_the_pictures(site: Path) -> None:
    """At least six real pictures, each page that describes something visual shows one, and every animation moves."""
    from PIL import Image

    shown = {p.name: _sources(p, "img") for p in site.glob("*.html")}
    pictures = {(site / s).resolve() for srcs in shown.values() for s in srcs if not s.startswith(("http", "data:"))}
    assert len(pictures) >= 6, shown
    for page in ("index.html", "environments.html", "objectives.html", "evaluation.html", "training.html",
                 "time_to_quality.html"):
        assert [s for s in shown[page] if s.startswith("img/")], f"{page} shows no picture"
    for path in pictures:
        with Image.open(path) as im:
            assert im.width >= 300 and im.height >= 200, path
            if path.suffix == ".gif":
                assert im.n_frames > 20, f"{path.name}: {im.n_frames} frames"
    games = {s for s in shown["environments.html"] if "game-" in s}
    from yacht_env import ENV_IDS

    assert games == {f"img/game-{r}.gif" for r in ENV_IDS}, games
    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    from docgen.pictures import LEARNING_CURVES

    drawn = {s for page in ("training.html", "time_to_quality.html", "agents.html") for s in shown[page]}
    assert set(LEARNING_CURVES) <= drawn, sorted(set(LEARNING_CURVES) - drawn)  # every shipped agent's curve
    replay = _sources(site / "evaluation.html", "iframe")
    assert replay and (site / replay[0]).is_file() and "<script" in (site / replay[0]).read_text(encoding="utf-8")


def test_built_pages_speak_to_users(site: Path) -> None:
    """The built pages, generated parts and API reference included, hold no lab-notebook phrase either."""
    import html

    from test_docs import LAB_NOTEBOOK

    found = []
    for page in site.rglob("*.html"):
        if page.name in ("changelog.html", "greedy-yacht-seed7.html"):
            continue
        text = html.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8")))
        found += [f"{page.relative_to(site)}: {m.group(0)!r}" for m in LAB_NOTEBOOK.finditer(text)]
    assert not found, found


def test_site_works_from_disk(site: Path) -> None:
    """Every link between pages names a file (no folder links: from disk a folder shows its listing), and search
    works without a server (the offline plugin inlines its index)."""
    bad = []
    for page in (p for p in site.rglob("*.html") if p.name != "404.html"):  # a server's page, linked from "/"
        for href in re.findall(r'<a\b[^>]*\bhref="([^"#?]*)[^"]*"', page.read_text(encoding="utf-8")):
            if not href or href.startswith(("http:", "https:", "mailto:", "javascript:")):
                continue
            target = (page.parent / href).resolve()
            if not target.is_file():
                bad.append(f"{page.relative_to(site)} -> {href}")
    assert not bad, bad[:20]
    assert list((site / "search").glob("*.js")), "the search index as a script, for file://"


@pytest.mark.parametrize("width", [1400, 900, 600])
def test_cli_reference_keeps_flags_whole(browser: Any, site: Path, width: int,  # noqa: F811
                                         capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs" / "hooks"))
    from docgen.cli import subcommands  # the reference's own list: bench's commands have tables of their own

    browser.set_window_size(width, 1000)
    try:
        browser.get((site / "cli.html").as_uri())
        got = browser.execute_script(_FLAGS)
        assert got["tables"] == len(subcommands()) + 1, "one table per subcommand (bench's own too) and train.py's"
        assert "--distribution" in got["names"] and "--no-confirm" in got["names"] and got["count"] > 40
        assert got["in_text"] > 10, "the flags named in the descriptions and meanings are code too"
        assert not got["broken"], f"flags broken across lines at {width} px: {got['broken']}"
        browser.execute_script("[...document.querySelectorAll('h2')].find(h => h.textContent.includes('yacht "
                               "solve')).scrollIntoView()")
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(ARTEFACTS / f"cli-reference-{width}px.png"))
        with capsys.disabled():
            print(f"\ncli reference screenshot: {ARTEFACTS / f'cli-reference-{width}px.png'}")
        unstyled = browser.execute_script("document.querySelectorAll('link[href*=\"extra.css\"]').forEach(l => "
                                          "l.remove());" + _FLAGS)
        if width <= 900:  # the check itself: without the style, the theme breaks some flag at narrow widths
            assert unstyled["broken"], "expected broken flags without docs/stylesheets/extra.css"
    finally:
        browser.set_window_size(1400, 1000)


_OVERFLOW = """
return [...document.querySelectorAll('.md-typeset table')].map(t => {
  const box = t.closest('.md-typeset__scrollwrap') || t.parentElement;
  return {over: t.scrollWidth - box.clientWidth,
          head: [...t.querySelectorAll('th')].slice(0, 3).map(h => h.textContent.trim()).join(' | ')};
}).filter(t => t.over > 1);
"""


def test_every_table_fits_a_1280_pixel_window(browser: Any, site: Path) -> None:  # noqa: F811
    """No table of the site needs a sideways scroll in a 1280-pixel-wide window (the theme would hide its last
    columns behind a scroll bar)."""
    browser.set_window_size(1280, 1000)
    wide = {}
    try:
        for page in sorted(site.glob("**/*.html")):
            browser.get(page.as_uri())
            over = browser.execute_script(_OVERFLOW)
            if over:
                wide[page.relative_to(site).as_posix()] = over
    finally:
        browser.set_window_size(1400, 1000)
    assert not wide, f"tables wider than a 1280-pixel window (by px): {wide}"
