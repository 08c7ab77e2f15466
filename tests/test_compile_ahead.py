"""Compiling ahead (:mod:`yacht_env.engine.compile_ahead`): the helper's kernels are the ones first use calls, a
kernel is compiled by one process while another that needs it waits and loads it, the helper goes past a kernel
another process is compiling, and a process stops its helper when it exits."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import child_env

from yacht_env.file_lock import LOCKS_WORK, FileLock

pytestmark = pytest.mark.skipif(not LOCKS_WORK, reason="compiling ahead needs file locks")

# the kernels of first use, and which compile events a process saw
LISTEN = """
import sys, time
from numba.core import event
COMPILED = []
class L(event.Listener):
    def on_start(self, ev):
        name = ev.data["dispatcher"].py_func.__qualname__
        if name in sys.argv[1:]:
            print("STARTED", name, flush=True)
            time.sleep(3)  # holding the kernel's lock: time for another process to come and wait
    def on_end(self, ev):
        COMPILED.append(ev.data["dispatcher"].py_func.__qualname__)
event.register("numba:compile", L())
"""
FIRST_USE = LISTEN + """
import gymnasium as gym, yacht_env
from yacht_agents import GreedyAgent, OptimalAgent
from yacht_env.env import YachtEnv
for env_id in ("Yacht-v0", "Yahtzee-v1"):
    v = gym.make_vec(env_id, num_envs=8, vectorization_mode="vector_entry_point")
    v.reset(seed=0)
    v.step(v.unwrapped.action_masks().argmax(1))
for agent, rules in ((OptimalAgent("yacht"), "yacht"), (GreedyAgent("yatzy"), "yatzy")):
    e = YachtEnv(rules=rules)
    o, _ = e.reset(seed=1)
    agent.act(o, e.action_masks())
print("COMPILED", sorted(set(COMPILED)))
"""
TASKS = "from yacht_env.engine import compile_ahead_tasks as CA\nprint('FAILED', CA.run_tasks(sys.argv[1:]))\n"
DECIDE = LISTEN + ("from yacht_env.engine import compile_ahead_tasks as CA\nCA.TASKS['decide']()\n"
                   "print('COMPILED', COMPILED)\n")


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = child_env(**{"NUMBA_CACHE_DIR": str(tmp_path / "numba"), "YACHT_ENV_CACHE_DIR": str(tmp_path / "solver"),
                       "YACHT_ENV_COMPILE_AHEAD": "0", **extra})
    env.pop("YACHT_ENV_QUIET", None)
    return env


def _run(code: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out


def _cache_folder(tmp_path: Path) -> Path:
    """The folder of the engine's kernels in this test's numba cache."""
    [folder] = (tmp_path / "numba").glob("engine_*")
    return folder


@pytest.mark.slow
def test_the_helper_compiles_the_kernels_first_use_calls(tmp_path: Path) -> None:
    """After the helper's tasks, vector steps of two rule sets and the optimal and greedy agents' first actions
    compile nothing: the tasks call each kernel with the types the engine passes it."""
    env = _env(tmp_path)
    assert "FAILED []" in _run("import sys\n" + TASKS, env, "turn_values", "decide", "step").stdout
    out = _run(FIRST_USE, env).stdout
    assert "COMPILED []" in out, out


def test_a_kernel_is_compiled_by_one_process_while_another_waits_for_it(tmp_path: Path) -> None:
    env = _env(tmp_path)
    first = subprocess.Popen([sys.executable, "-c", DECIDE, "_decide_kernel"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert first.stdout is not None
        for line in first.stdout:  # the first process holds the kernel's lock from before it starts compiling
            if line.startswith("STARTED _decide_kernel"):
                break
        second = _run(DECIDE, env)
        rest, err = first.communicate(timeout=300)
    finally:
        first.kill()
    assert first.returncode == 0, err[-3000:]
    assert "_decide_kernel" in rest  # the first compiled it ...
    assert "_decide_kernel" not in second.stdout.split("COMPILED", 1)[1]  # ... the second loaded it
    assert "compiling" in second.stderr  # and said what it waited for
    assert "damaged" not in second.stderr + err


def test_the_helper_goes_past_a_kernel_another_process_compiles(tmp_path: Path) -> None:
    """With the turn search's sweep locked (another process compiling it), the helper compiles the decisions first,
    and the sweep once the lock is free."""
    env = _env(tmp_path)
    _run("import yacht_env.engine.turn_search", env)  # makes the cache folder
    folder = _cache_folder(tmp_path)
    lock = FileLock(folder / "turn_search._turn_values_kernel.lock")
    assert lock.acquire()
    helper = subprocess.Popen([sys.executable, "-c", "import sys\n" + TASKS, "turn_values", "decide"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while not list(folder.glob("turn_search._decide_kernel-*.nbi")) and helper.poll() is None:
            assert time.monotonic() < deadline, "the helper did not compile the decisions"
            time.sleep(0.2)
        assert helper.poll() is None  # still waiting to compile the sweep
        assert not list(folder.glob("turn_search._turn_values_kernel-*"))
    finally:
        lock.release()
    out, err = helper.communicate(timeout=300)
    assert helper.returncode == 0 and "FAILED []" in out, err[-3000:]
    assert list(folder.glob("turn_search._turn_values_kernel-*.nbi"))


def test_a_process_stops_its_helper_when_it_exits(tmp_path: Path) -> None:
    code = ("from yacht_env.engine import compile_ahead as CA, compile_ahead_tasks as T\nT.TASKS['decide']()\n"
            "print('HELPER', CA._HELPER.pid)\n")
    out = _run(code, _env(tmp_path, YACHT_ENV_COMPILE_AHEAD="1"))
    pid = int(out.stdout.split("HELPER", 1)[1])
    deadline = time.monotonic() + 30
    while _alive(pid):
        assert time.monotonic() < deadline, "the helper outlived its process"
        time.sleep(0.1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie is gone for good
        return f.read().split(")")[-1].split()[0] != "Z"


def test_no_helper_when_it_is_switched_off_or_there_is_one_core(monkeypatch: pytest.MonkeyPatch) -> None:
    from yacht_env.engine import compile_ahead as CA

    monkeypatch.setenv(CA.ENV, "0")
    assert not CA.enabled()
    monkeypatch.setenv(CA.ENV, "1")
    monkeypatch.setattr(CA, "_cores", lambda: 1)
    assert not CA.enabled()
    monkeypatch.setattr(CA, "_cores", lambda: 2)
    assert CA.enabled()


def test_a_file_lock_excludes_another_process(tmp_path: Path) -> None:
    lock = FileLock(tmp_path / "x.lock")
    assert lock.acquire()
    probe = ("import sys\nfrom yacht_env.file_lock import FileLock\n"
             "print(FileLock(sys.argv[1]).acquire(float(sys.argv[2])))\n")
    env = child_env()
    busy = subprocess.run([sys.executable, "-c", probe, str(lock.path), "0.2"], env=env, capture_output=True,
                          text=True)
    lock.release()
    free = subprocess.run([sys.executable, "-c", probe, str(lock.path), "0"], env=env, capture_output=True, text=True)
    assert (busy.stdout.strip(), free.stdout.strip()) == ("False", "True")
