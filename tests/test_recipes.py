"""The recipes of the Other toolboxes page that are not Python examples of the page: the single-file PPO script."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from conftest import REPO, child_env

SCRIPT = REPO / "examples" / "cleanrl_masked_ppo.py"
PAGE = REPO / "docs" / "integrations.md"
LINE = re.compile(r"yacht: ([\d.]+) over ([\d,]+) games = ([\d.]+)% of optimal, after ([\d,]+) steps in \d+ s")


def _run(*args: str) -> str:
    out = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=child_env(),
                         timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_the_single_file_ppo_trains_and_measures_itself() -> None:
    last = _run("--total-timesteps", "4096", "--num-envs", "16", "--num-steps", "64", "--eval-episodes", "50")
    found = LINE.search(last)
    assert found, last[-2000:]
    assert found.group(2) == "50" and found.group(4) == "4,096"
    assert 0 < float(found.group(3)) < 100


@pytest.mark.slow
def test_the_single_file_ppo_reaches_what_the_page_says() -> None:
    """The page's command, run as the page shows it, ends with the page's line (steps and games exactly; the
    arithmetic of another processor moves the percentage a little)."""
    page = PAGE.read_text(encoding="utf-8")
    said = LINE.search(page)
    command = re.search(r"^python examples/cleanrl_masked_ppo\.py (.*)$", page, re.MULTILINE)
    assert said and command, "the page shows the command and quotes the script's last line"
    got = LINE.search(_run(*command.group(1).split()))
    assert got and got.group(4) == said.group(4)
    assert abs(float(got.group(3)) - float(said.group(3))) < 5.0, (got.group(0), said.group(0))
