"""Long work: a table that takes minutes says so before it starts (what, how big, about how long), and Ctrl-C stops
it within a moment, keeping no file."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import child_env, sigint_default

TWENTY = """
import sys
from yacht_env.rules import YACHT, Category, RuleSet, register_rules
from yacht_solver import solve, solve_reach
boxes = (*YACHT.categories[:6], *(Category(f"sum{i}", f"Sum {i}", "sum") for i in range(14)))
rs = register_rules(RuleSet("twenty", "Twenty boxes", boxes, upper_bonus_threshold=63, upper_bonus=35))
{call}("yacht")  # the kernels compiled (and Yacht's table made) before the long work starts
print("warm", file=sys.stderr, flush=True)
{call}(rs)
"""


@pytest.mark.parametrize("call", ["solve", "solve_reach"])
def test_a_twenty_box_table_is_announced_and_ctrl_c_stops_it(call: str, tmp_path: Path) -> None:
    """A registered rule set of 20 boxes: 67 million turn-start states, minutes of work. The first line says what
    and about how long; SIGINT (Ctrl-C) ends the process within seconds (it used to finish the layer, or the whole
    sizing sweep, first) and no table or temporary file is left in the cache."""
    env = child_env(YACHT_ENV_CACHE_DIR=str(tmp_path / "cache"), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-c", TWENTY.replace("{call}", call)], stderr=subprocess.PIPE, text=True,
                            env=env, preexec_fn=sigint_default)
    assert proc.stderr is not None
    lines = []
    warm = False
    for line in proc.stderr:  # read until the twenty-box work is announced, after the warm-up
        lines.append(line)
        warm = warm or line.strip() == "warm"
        if warm and "Ctrl-C stops it" in line and "twenty" in line:
            break
    said = lines[-1]
    assert "twenty" in said and "67,108,864 turn-start states" in said and "minutes" in said, lines
    time.sleep(3)  # well into the sweep
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    took = time.perf_counter() - t0
    assert proc.returncode != 0 and took < 5, (proc.returncode, took)
    left = [p.name for p in (tmp_path / "cache").iterdir()]  # Yacht's table, of the warm-up, and nothing else
    assert left and all(n.startswith("yacht-") and not n.startswith(".") and "tmp" not in n for n in left), left
