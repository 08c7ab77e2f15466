"""numba's cache of the package's kernels: a folder named by the sources, found without numba, shared by processes."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import child_env

from yacht_env.jit import numba_cache

_ENV_STEP = ("import os, sys, numpy as np, gymnasium as gym, yacht_env\n"  # the vector engine: compiled kernels
             "e = gym.make_vec('Yacht-v0', num_envs=2, vectorization_mode='vector_entry_point')\n"
             "o, _ = e.reset(seed=0)\n"
             "print(o.tobytes().hex(), e.step(np.zeros(2, dtype=np.int64))[0].tobytes().hex())\n"
             "sys.stdout.flush()\n")

# ==== the folder is named by the sources ============================================================================

_KERNEL = ("import numba\n\n@numba.njit\ndef helper(x):\n    return x + {n}\n\n"
           "def twice(x):\n    return 2 * helper(x)\n\ndef thrice(x):\n    return 3 * x\n")


def _module(folder: Path, n: int = 1) -> object:
    """A fresh module at ``folder/kern.py``: plain functions ``twice`` (calls the compiled ``helper``: ``x + n``) and
    ``thrice``."""
    folder.mkdir(exist_ok=True)
    path = folder / "kern.py"
    path.write_text(_KERNEL.format(n=n))
    spec = importlib.util.spec_from_file_location(f"kern_{n}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def test_changed_sources_name_another_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The digest covers every source (an edit of any module a kernel inlines changes it) and names the folder."""
    pkg = tmp_path / "pkg"
    _module(pkg)
    monkeypatch.setattr(numba_cache, "_PACKAGE", pkg)
    monkeypatch.setattr(numba_cache, "_SOURCES", (pkg,))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    numba_cache.source_digest.cache_clear()
    try:
        before = numba_cache.cache_root()
        (pkg / "kern.py").write_text(_KERNEL.format(n=2))
        numba_cache.source_digest.cache_clear()
        after = numba_cache.cache_root()
    finally:
        numba_cache.source_digest.cache_clear()
    assert before != after and before.parent == after.parent == tmp_path / "numba"


def test_new_sources_remove_the_cache_folders_made_over_30_days_before(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The first kernel of new sources removes the folders of other sources made more than 30 days before; newer ones
    (another checkout, another version in use) stay, and so does whatever else is in ``NUMBA_CACHE_DIR``."""
    import os
    import time

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    old, recent, other = tmp_path / "yacht-env-0123", tmp_path / "yacht-env-4567", tmp_path / "users_own_abc"
    for folder in (old, recent, other):
        (folder / "sub").mkdir(parents=True)
    long_ago = time.time() - 31 * 86400
    for folder in (old, other):
        os.utime(folder, (long_ago, long_ago))
    numba_cache._pipeline.__wrapped__()
    assert not old.exists() and recent.is_dir() and other.is_dir()


def test_a_kernel_loads_only_from_the_folder_of_its_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """numba caches a kernel in the folder :func:`kernel_cached` looks into (no numba there); the same sources load it,
    other sources (another digest) compile afresh: a kernel built on old code is never loaded. The first compile is
    announced with the folder, and its seconds are counted."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.delenv("YACHT_ENV_QUIET", raising=False)
    monkeypatch.delenv("YACHT_ENV_QUIET_COMPILE", raising=False)
    monkeypatch.setattr(numba_cache._Compiles, "announced", False)
    mod = _module(tmp_path / "src")

    def run(digest: str) -> tuple[int, int]:
        monkeypatch.setattr(numba_cache, "source_digest", lambda: digest)
        k = numba_cache.cached_njit(mod.twice)
        assert k(3) == 8 and Path(k.stats.cache_path).parent == numba_cache.cache_root()
        return k.stats.cache_hits[k.signatures[0]], k.stats.cache_misses[k.signatures[0]]

    compiled = numba_cache.compile_seconds()
    assert run("a" * 64) == (0, 1) and numba_cache.kernel_cached(mod.__file__, "twice")
    assert numba_cache.compile_seconds() > compiled
    err = capsys.readouterr().err
    assert "once per machine" in err and str(tmp_path / "numba" / ("yacht-env-" + "a" * 16)) in err
    assert run("a" * 64) == (1, 0)  # loaded
    monkeypatch.setattr(numba_cache, "source_digest", lambda: "b" * 64)
    assert not numba_cache.kernel_cached(mod.__file__, "twice")
    assert run("b" * 64) == (0, 1)  # compiled afresh
    assert capsys.readouterr().err.count("once per machine") == 0  # announced once per process


def test_a_users_own_numba_functions_are_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A numba function of the user's, compiled in the same process: numba's own cache place, no announcement, no
    seconds counted as the package's."""
    import numba

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(numba_cache, "cache_root", lambda: tmp_path / "ours")
    mod = _module(tmp_path / "user")
    assert numba_cache.cached_njit(mod.thrice)(1) == 3  # one of ours made and compiled first
    capsys.readouterr()
    compiled = numba_cache.compile_seconds()
    k = numba.njit(mod.twice, cache=True)
    assert k(3) == 8 and k.stats.cache_path == str(tmp_path / "user" / "__pycache__")
    assert numba_cache.compile_seconds() == compiled and capsys.readouterr().err == ""


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
              "from yacht_solver.search import turn_search as TS, turn_constants as TT\n"
              "tb = TT.search_constants(get_rules('yacht'))\nz = np.zeros(1, dtype=np.int64)\n"
              "TS.turn_values(tb, np.zeros(1 << 16), TT.Starts(z, z, z), TS.empty_keep_values(0), np.empty(1))\n"),
    "decide": ("import numpy as np\nfrom yacht_env.rules import get_rules\n"
               "from yacht_env.actions import KEEP_MASK_UNIQUE\n"
               "from yacht_solver.search import turn_search as TS, turn_constants as TT\n"
               "tb = TT.search_constants(get_rules('yacht'))\nz = np.zeros(1, dtype=np.int64)\n"
               "pos = TS.Positions(z, z, z, z, np.full(1, 2, dtype=np.int64))\n"
               "rule = TT.DecisionRule(np.ascontiguousarray(KEEP_MASK_UNIQUE), False, TT.TIE_TOLERANCE)\n"
               "TS.decide(tb, np.zeros(1 << 16), pos, z, TS.empty_keep_values(1), rule, np.empty(1, dtype=np.int64),"
               " np.empty((0, 0)))\n"),
}
_REPORT = "from yacht_env.jit.numba_cache import compile_seconds\nprint('COMPILED', compile_seconds())\n"


def test_two_processes_compiling_into_one_cache_leave_it_whole(tmp_path: Path) -> None:
    """Two processes compile two kernels of one module into one cache at the same time (numba writes each file whole,
    by a rename); a third process loads both without compiling."""
    env = child_env(NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for code in _SEARCH.values()]
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-2000:]
    files = [p.name for p in (tmp_path / "numba").glob("*/*/turn_search.*.nbi")]
    assert any("_turn_values_kernel" in n for n in files) and any("_decide_kernel" in n for n in files), files
    third = subprocess.run([sys.executable, "-c", "".join(_SEARCH.values()) + _REPORT], env=env, capture_output=True,
                           text=True, timeout=600)
    assert third.returncode == 0, third.stderr[-2000:]
    assert float(third.stdout.split("COMPILED")[1]) == 0.0 and "compiling" not in third.stderr, third.stderr


@pytest.mark.slow
def test_a_changed_inlined_module_compiles_afresh_in_a_new_process(tmp_path: Path) -> None:
    """The stale-cache case of ``benchmarks/numba_cache_stale.py`` in fresh processes, where numba's first imports
    reread its config: a kernel inlining a changed module is compiled again (numba's own cache would load it)."""
    spec = importlib.util.spec_from_file_location(
        "numba_cache_stale", Path(__file__).resolve().parents[1] / "benchmarks" / "numba_cache_stale.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)  # type: ignore[union-attr]
    (tmp_path / "kernel.py").write_text(bench.KERNEL)
    answers = []
    for n in (1, 2):
        (tmp_path / "inlined.py").write_text(bench.INLINED.format(n=n))
        answers.append(bench._run(tmp_path, "ours"))
    assert answers == ["2", "3"]
