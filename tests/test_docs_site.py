"""The built site in headless Chromium: the CLI reference keeps every flag whole in its table cell, wide or narrow.

Builds the site with ``mkdocs build`` into a temporary folder (a few seconds), then reads the laid-out page. Needs
Chromium as tests/test_replay_page.py does (its ``browser`` fixture); screenshots go beside that test's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_replay_page import browser  # noqa: F401 - the fixture, shared

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
    p = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)], cwd=ROOT,
                       capture_output=True, text=True, timeout=600, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert p.returncode == 0, p.stderr[-3000:]
    return out


@pytest.mark.parametrize("width", [1400, 900, 600])
def test_cli_reference_keeps_flags_whole(browser: Any, site: Path, width: int,  # noqa: F811
                                         capsys: pytest.CaptureFixture[str]) -> None:
    from yacht_tools.cli import build_parser

    browser.set_window_size(width, 1000)
    try:
        browser.get((site / "cli" / "index.html").as_uri())
        got = browser.execute_script(_FLAGS)
        subcommands = [a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction"][0].choices
        assert got["tables"] == len(subcommands) + 1, "one table per subcommand and one for train.py"
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
