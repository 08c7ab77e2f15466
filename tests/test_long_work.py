"""Long work: a table that takes minutes says so before it starts (what, how big, about how long), and Ctrl-C stops
it within a moment, keeping no file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import REPO, child_env, sigint_default

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
    env = child_env(YACHT_ENV_CACHE_DIR=str(tmp_path / "cache"), PYTHONUNBUFFERED="1",
                    YACHT_ENV_TABLE_GB="1000")  # its reach table, tens of GB, allowed: the sizing sweep starts
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


SWALLOWED = """
import ctypes, os, signal, sys, time
from yacht_env.interrupt import prompt_interrupts
prompt_interrupts()
CMP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)

def compare(a, b):  # as llvmlite's callbacks while numba compiles: Python code called from C
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(100_000):  # the KeyboardInterrupt is raised in here, and ctypes reports it as ignored
        pass
    return 0

try:
    values = (ctypes.c_int * 2)(2, 1)
    ctypes.CDLL(None).qsort(values, 2, ctypes.sizeof(ctypes.c_int), CMP(compare))
    for _ in range(200):  # the work after it: the interrupt must come in here, not be lost
        time.sleep(0.01)
    print("lost", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def test_an_interrupt_that_a_ctypes_callback_swallows_is_raised_again() -> None:
    """A SIGINT during a numba compile can be handled inside one of llvmlite's ctypes callbacks, where Python reports
    the KeyboardInterrupt as ignored: the work ran on to its end. It is raised again at once, and no "Exception
    ignored" traceback is printed."""
    p = subprocess.run([sys.executable, "-c", SWALLOWED], capture_output=True, text=True, env=child_env(),
                       preexec_fn=sigint_default, timeout=120)
    assert p.stdout == "interrupted\n" and "Exception ignored" not in p.stderr, (p.stdout, p.stderr[-2000:])


def _interrupt_when(proc: subprocess.Popen, ready: Callable[[], bool], limit_s: float = 600) -> float:
    """SIGINT to ``proc``'s process group (as Ctrl-C in a terminal) once ``ready()``; the seconds until it exits."""
    t0 = time.perf_counter()
    while not ready():
        assert proc.poll() is None, "the process ended before it was interrupted"
        assert time.perf_counter() - t0 < limit_s, "never ready"
        time.sleep(0.2)
    sent = time.perf_counter()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    return time.perf_counter() - sent


def _checkpoints_load(run: Path) -> list[int]:
    """The steps of ``run``'s checkpoints, each read back whole."""
    from yacht_agents.nets import load_torch_file

    steps = []
    for ck in (run / "checkpoints").glob("step_*.pt"):
        data = load_torch_file(ck)
        assert set(data) >= {"state_dict", "counters", "optimizer"}
        steps.append(int(data["counters"]["timesteps"]))
    return sorted(steps)


CTRL_C_BOUND_S = 5.0
"""How soon a command must end after Ctrl-C in these tests: generous for a loaded machine (measured about 0.6 s on two
shared cores; the interpreter's last garbage collection alone took 2 to 8 s before)."""


@pytest.mark.slow
def test_ctrl_c_ends_td_training_at_once_with_its_checkpoint(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    runs, config = tmp_path / "runs", tmp_path / "td.yaml"
    text = (REPO / "configs/yacht_td.yaml").read_text(encoding="utf-8")
    config.write_text(text.replace("checkpoint_freq: 1000000", "checkpoint_freq: 20000"), encoding="utf-8")
    proc = subprocess.Popen([sys.executable, str(REPO / "train.py"), "--config", str(config), "--run-dir", str(runs),
                             "--no-progress", "--eval-every", "1000000"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=str(tmp_path),
                            env=child_env(), preexec_fn=sigint_default, start_new_session=True)

    def training() -> bool:  # its first periodic checkpoint is written: the training loop runs
        return any(runs.glob("*/checkpoints/step_*.pt"))

    took = _interrupt_when(proc, training)
    out = proc.stdout.read() if proc.stdout else ""
    assert proc.returncode == 130 and took < CTRL_C_BOUND_S, (proc.returncode, took, out[-2000:])
    (run,) = runs.iterdir()
    steps = _checkpoints_load(run)
    assert steps[-1] >= 20_000 and f"interrupted at step {steps[-1]:,}: checkpoint saved" in out, (
        steps, out[-2000:])


@pytest.mark.slow
def test_ctrl_c_ends_a_bench_of_two_workers_at_once_with_their_checkpoints(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "bench"
    proc = subprocess.Popen([sys.executable, "-m", "yacht_cli", "bench", "run", "--learner",
                             str(REPO / "configs/yacht_td.yaml"), "--tasks", "yacht", "--budget", "short", "--seeds",
                             "0", "1", "--workers", "2", "--out", str(out), "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=str(tmp_path),
                            env=child_env(), preexec_fn=sigint_default, start_new_session=True)

    def both_training() -> bool:
        return len({p.parent.parent for p in out.glob("runs/*/checkpoints/step_*.pt")}) == 2

    took = _interrupt_when(proc, both_training)
    said = proc.stdout.read() if proc.stdout else ""
    assert proc.returncode == 130 and took < CTRL_C_BOUND_S, (proc.returncode, took, said[-2000:])
    assert said.count("checkpoint saved") == 2 and said.rstrip().endswith("yacht bench: interrupted"), said[-2000:]
    for run in (out / "runs").iterdir():
        assert _checkpoints_load(run), run
