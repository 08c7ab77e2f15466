"""numba's on-disk cache: damaged or unknown files are dropped and compiled again."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import child_env

from yacht_env.jit import numba_cache

# ==== a damaged numba cache is dropped and compiled again ====================================================

_ENV_STEP = ("import os, sys, numpy as np, gymnasium as gym, yacht_env\n"  # the vector engine: compiled kernels
             "e = gym.make_vec('Yacht-v0', num_envs=2, vectorization_mode='vector_entry_point')\n"
             "o, _ = e.reset(seed=0)\n"
             "print(o.tobytes().hex(), e.step(np.zeros(2, dtype=np.int64))[0].tobytes().hex())\n"
             "sys.stdout.flush()\n")


def _cache_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix in (".nbi", ".nbc"))


@pytest.mark.slow
def test_a_truncated_or_bit_flipped_numba_cache_is_recompiled(tmp_path: Path) -> None:
    cache = tmp_path / "numba"
    env = child_env(NUMBA_CACHE_DIR=str(cache))

    def step(code: str = _ENV_STEP) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600,
                              cwd=tmp_path)

    # warm the cache; the process ends without atexit handlers: the manifest is written as numba saves
    warm = step(_ENV_STEP + "os._exit(0)\n")
    assert warm.returncode == 0, warm.stderr
    found = _cache_files(cache)
    assert {p.suffix for p in found} == {".nbi", ".nbc"}
    for p in found:
        manifest = json.loads((p.parent / f"{p.name.split('.')[0]}.cache.json").read_text())
        assert manifest["files"][p.name] == hashlib.sha256(p.read_bytes()).hexdigest(), p.name
    # damage: every index truncated, every data file bit-flipped
    for p in found:
        data = bytearray(p.read_bytes())
        if p.suffix == ".nbi":
            data = data[: len(data) // 2]
        else:
            for i in range(64, len(data), 997):
                data[i] ^= 0xFF
        p.write_bytes(bytes(data))
    again = step()
    assert again.returncode == 0, again.stderr
    assert again.stdout == warm.stdout  # the same observations
    note, *progress = again.stderr.splitlines()  # one note, then at most the "still compiling" lines of a slow machine
    assert "damaged or unknown file(s)" in note and "Traceback" not in again.stderr
    assert all(line.startswith("yacht-env: still compiling numba kernels: ") for line in progress), progress
    third = step()  # the files compiled again are trusted again: loaded without a note
    assert third.returncode == 0 and third.stdout == warm.stdout and "damaged" not in third.stderr


def test_the_guard_drops_unknown_and_mismatching_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The guard on its own (no compiling): a file the manifest vouches for stays; one with another checksum, one
    it does not list and a whole stale cache (other sources) go."""
    src = tmp_path / "mod.py"
    src.write_text("x = 1\n")
    folder = tmp_path / "__pycache__"
    monkeypatch.setattr(numba_cache, "_numba_cache_dir", lambda path: folder)
    monkeypatch.setattr(numba_cache, "_NOTED", False)
    monkeypatch.setattr(numba_cache, "_GUARDED", {})
    monkeypatch.setattr(numba_cache._WATCH, "announced", numba_cache._WATCH.announced)
    numba_cache.guard_numba_cache(str(src))
    good, bad, unknown = (folder / f"mod.f-{i}.py311.nbi" for i in range(3))
    for p in (good, bad, unknown):
        p.write_bytes(b"index " + p.name.encode())
    digest = numba_cache.source_digest()
    numba_cache._write_manifest(folder / "mod.cache.json", digest, {
        good.name: hashlib.sha256(good.read_bytes()).hexdigest(), bad.name: "0" * 64})
    numba_cache.guard_numba_cache(str(src))
    assert good.exists() and not bad.exists() and not unknown.exists()
    assert capsys.readouterr().err.count("\n") == 1
    assert numba_cache._read_manifest(folder / "mod.cache.json")["files"] == {
        good.name: hashlib.sha256(good.read_bytes()).hexdigest()}
    numba_cache._write_manifest(folder / "mod.cache.json", "other sources", {
        good.name: hashlib.sha256(good.read_bytes()).hexdigest()})
    numba_cache.guard_numba_cache(str(src))
    assert not good.exists() and capsys.readouterr().err == ""  # a stale cache is no damage: no note
    (folder / "mod.cache.json").write_text('{"version": 1, "sources": [[[')  # a torn manifest: start afresh
    good.write_bytes(b"x")
    numba_cache.guard_numba_cache(str(src))
    assert not good.exists() and numba_cache._read_manifest(folder / "mod.cache.json")["sources"] == digest


def test_the_cache_folder_follows_numba_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from numba.core import config

    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path))
    folder = numba_cache._numba_cache_dir(numba_cache.__file__)
    assert folder.parent == tmp_path and folder.name.startswith("jit_")


@pytest.mark.parametrize("custom", [False, True])
def test_the_folder_found_without_numba_is_numbas_own(custom: bool, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """cache_manifest.numba_cache_folder (no numba import: the single env's engine="auto" looks there) names the
    folder numba's own locators give, with NUMBA_CACHE_DIR set and without."""
    from numba.core import config

    from yacht_env.jit.cache_manifest import numba_cache_folder

    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path) if custom else "")
    if custom:
        monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    else:
        monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    kernels = str(Path(numba_cache.__file__).parents[1] / "engine" / "batch_kernels.py")
    assert numba_cache_folder(kernels) == numba_cache._numba_cache_dir(kernels)
    assert (numba_cache_folder(kernels).parent == tmp_path) is custom


@pytest.mark.slow
def test_a_kernel_in_the_numba_cache_dir_counts_as_cached(tmp_path: Path) -> None:
    """With NUMBA_CACHE_DIR set, a child that finds the vector engine's kernel cached there takes the compiled engine
    at once (it counted as never cached there, so engine="auto" stayed in Python)."""
    env = child_env(NUMBA_CACHE_DIR=str(tmp_path))
    subprocess.run([sys.executable, "-c", _ENV_STEP], env=env, check=True, capture_output=True, timeout=600)
    code = ("import sys\nfrom yacht_env.single_engine import compiled_step_ready\n"
            "print(compiled_step_ready(), 'yacht_env.engine.batch_kernels' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True,
                         timeout=120).stdout
    assert out.split() == ["True", "False"]


# ==== several processes compile into one cache at once ==============================================================

_SEARCH = {  # two kernels of one module, each compiled by its own process
    "sweep": ("import numpy as np\nfrom yacht_env.rules import get_rules\n"
              "from yacht_solver.search import turn_search as TS, turn_tables as TT\n"
              "tb = TT.search_tables(get_rules('yacht'))\nz = np.zeros(1, dtype=np.int64)\n"
              "TS.turn_values(tb, np.zeros(1 << 16), TT.Starts(z, z, z), TS.keep_tables(0), np.empty(1))\n"),
    "decide": ("import numpy as np\nfrom yacht_env.rules import get_rules\n"
               "from yacht_env.actions import KEEP_MASK_UNIQUE\n"
               "from yacht_solver.search import turn_search as TS, turn_tables as TT\n"
               "tb = TT.search_tables(get_rules('yacht'))\nz = np.zeros(1, dtype=np.int64)\n"
               "pos = TS.Positions(z, z, z, z, np.full(1, 2, dtype=np.int64))\n"
               "rule = TT.DecisionRule(np.ascontiguousarray(KEEP_MASK_UNIQUE), False, TT.TIE_TOLERANCE)\n"
               "TS.decide(tb, np.zeros(1 << 16), pos, z, TS.keep_tables(1), rule, np.empty(1, dtype=np.int64),"
               " np.empty((0, 0)))\n"),
}
_REPORT = "from yacht_env.jit.numba_cache import compile_seconds\nprint('COMPILED', compile_seconds())\n"


def test_two_processes_compiling_into_one_cache_leave_it_whole(tmp_path: Path) -> None:
    """Two processes compile two kernels of one module at the same time; each saves and records under the module's
    lock, so the manifest vouches for both and a third process loads both without compiling or a note."""
    env = child_env(NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for code in _SEARCH.values()]
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-2000:]
    [manifest] = (tmp_path / "numba").glob("*/turn_search.cache.json")
    files = json.loads(manifest.read_text())["files"]
    assert any("_turn_values_kernel" in n for n in files) and any("_decide_kernel" in n for n in files), files
    third = subprocess.run([sys.executable, "-c", "".join(_SEARCH.values()) + _REPORT], env=env, capture_output=True,
                           text=True, timeout=600)
    assert third.returncode == 0, third.stderr[-2000:]
    assert float(third.stdout.split("COMPILED")[1]) == 0.0 and "damaged" not in third.stderr, third.stderr


def test_the_check_waits_while_another_process_saves(tmp_path: Path) -> None:
    """The guard checks the files under the module's lock: while another process holds it (saving a kernel and
    recording it), a process importing the module waits instead of judging a file not yet recorded."""
    from yacht_env.file_lock import LOCKS_WORK, FileLock

    if not LOCKS_WORK:
        pytest.skip("no file locks here")
    env = child_env(NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    code = "import yacht_solver.search.turn_tables\nprint('CHECKED')\n"
    subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, timeout=300)
    [lock_path] = (tmp_path / "numba").glob("*/turn_tables.cache.lock")
    lock = FileLock(lock_path)
    assert lock.acquire()
    try:
        p = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
        with pytest.raises(subprocess.TimeoutExpired):
            p.wait(timeout=5)
    finally:
        lock.release()
    out, _ = p.communicate(timeout=300)
    assert p.returncode == 0 and "CHECKED" in out
