"""The solver's disk cache read defensively: links to devices, pipes, folders, huge or hostile files."""

from __future__ import annotations

import hashlib
import os
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from yacht_env import rules as R
from yacht_solver import clear_memory_cache, solve
from yacht_solver import table_cache as solver_cache
from yacht_solver.core import Layout

# ==== smaller: the solver cache reader, env arguments, undecodable input in yacht play =====================


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv(solver_cache.ENV_VAR, str(tmp_path))
    clear_memory_cache()
    yield tmp_path
    clear_memory_cache()


SHAPE = Layout.of(R.YACHT).shape


def test_a_solver_cache_linked_to_dev_zero_is_ignored_and_replaced(cache_dir: Path) -> None:
    path = solver_cache.cache_path(R.YACHT)
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink("/dev/zero", path)
    t0 = time.perf_counter()
    assert solver_cache.load(R.YACHT, SHAPE) is None
    assert time.perf_counter() - t0 < 1
    sol = solve("yacht")  # solves again and replaces the link by a good file
    assert not sol.from_cache and not path.is_symlink() and stat.S_ISREG(path.stat().st_mode)
    np.testing.assert_array_equal(solver_cache.load(R.YACHT, SHAPE), sol.values)


def test_a_huge_solver_cache_file_is_read_no_further_than_a_good_one(cache_dir: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A good header followed by a payload far longer than the table: read to one byte past a good file's size,
    then refused."""
    path = solver_cache.cache_path(R.YACHT)
    path.parent.mkdir(parents=True, exist_ok=True)
    zeros = np.zeros(SHAPE)
    header = solver_cache._header(R.YACHT, solver_cache.rules_key(R.YACHT), SHAPE, zeros.dtype,
                                  hashlib.sha256(zeros).hexdigest())
    with open(path, "wb") as f:
        f.write(solver_cache.MAGIC + len(header).to_bytes(8, "little") + header)
        try:
            f.truncate(1 << 34)  # 16 GiB, sparse: zeros, so the first table's worth of bytes hashes as the header says
        except OSError:
            pytest.skip("the file system holds no sparse 16 GiB file")
    read: list[int] = []
    real = solver_cache._payload

    class Counting:
        def __init__(self, f: Any) -> None:
            self.f = f

        def readinto(self, buffer: Any) -> int:
            read.append(self.f.readinto(buffer))
            return read[-1]

    monkeypatch.setattr(solver_cache, "_payload", lambda f, expected, keep: real(Counting(f), expected, keep))
    t0 = time.perf_counter()
    assert solver_cache.load(R.YACHT, SHAPE) is None
    assert sum(read) == int(np.prod(SHAPE)) * 8 + 1 and time.perf_counter() - t0 < 5


def test_the_first_rows_alone_are_kept_and_the_whole_file_is_checked(cache_dir: Path) -> None:
    """``rows`` keeps only a table's first rows (what the start's score distribution needs of a 13 GB table); a
    damaged byte past them still makes the file refused."""
    sol = solve("yacht")
    path = solver_cache.cache_path(R.YACHT)
    full = solver_cache.load(R.YACHT, SHAPE)
    first = solver_cache.load(R.YACHT, SHAPE, rows=1)
    assert first.shape == (1, *SHAPE[1:]) and not first.flags.writeable
    np.testing.assert_array_equal(first, full[:1])
    np.testing.assert_array_equal(full, sol.values)
    blob = bytearray(path.read_bytes())
    blob[-1] ^= 0xFF
    path.write_bytes(bytes(blob))
    assert solver_cache.load(R.YACHT, SHAPE, rows=1) is None and solver_cache.load(R.YACHT, SHAPE) is None


def test_a_pipe_or_a_folder_as_the_solver_cache_is_ignored(cache_dir: Path) -> None:
    path = solver_cache.cache_path(R.YACHT)
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    result: list[Any] = []
    reader = threading.Thread(target=lambda: result.append(solver_cache.load(R.YACHT, SHAPE)), daemon=True)
    reader.start()
    reader.join(10)
    assert not reader.is_alive() and result == [None]  # no hang waiting for a writer
    path.unlink()
    path.mkdir()
    assert solver_cache.load(R.YACHT, SHAPE) is None


@pytest.mark.parametrize("header", [b"[" * 30_000 + b"]" * 30_000, b'{"a": ' * 20_000 + b"1" + b"}" * 20_000,
                                    b"[1]", b"\xff\xfe", b"{}"])
def test_a_hostile_solver_cache_header_is_a_bad_file(header: bytes, cache_dir: Path) -> None:
    path = solver_cache.cache_path(R.YACHT)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(solver_cache.MAGIC + len(header).to_bytes(8, "little") + header + bytes(int(np.prod(SHAPE)) * 8))
    assert solver_cache.load(R.YACHT, SHAPE) is None
    sol = solve("yacht")
    assert not sol.from_cache and solver_cache.load(R.YACHT, SHAPE) is not None  # replaced by a good file


def test_a_solver_cache_header_over_the_cap_is_not_read(cache_dir: Path) -> None:
    path = solver_cache.cache_path(R.YACHT)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(solver_cache.MAGIC + (solver_cache.MAX_HEADER_BYTES + 1).to_bytes(8, "little") + b" " * 100)
    assert solver_cache.load(R.YACHT, SHAPE) is None


def test_the_cache_folder_expands_a_tilde(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``YACHT_ENV_CACHE_DIR='~/yc'`` (quoted in a profile, so the shell left the ~) is the home's yc, not ./~/yc."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv(solver_cache.ENV_VAR, "~/yc")
    assert solver_cache.cache_dir() == tmp_path / "yc"


@pytest.mark.parametrize("payload", ["nan", "too-large", "negative"])
def test_a_cache_table_of_impossible_values_with_a_good_checksum_is_solved_again(
        payload: str, cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A NaN payload whose checksum was recomputed was trusted: ``yacht solve`` printed "optimal expected score
    nan". The values are checked (NaN only where no game goes, within what the rules allow) before use."""
    from yacht_cli import main

    good = solve(R.YACHT).start_value
    bad = {"nan": np.full(SHAPE, np.nan), "too-large": np.full(SHAPE, 1000.0), "negative": np.full(SHAPE, -5.0)}
    solver_cache.save(R.YACHT, bad[payload])
    assert solver_cache.load(R.YACHT, SHAPE) is not None  # the file itself is whole: only its values are wrong
    clear_memory_cache()
    assert main(["solve", "--rules", "yacht"]) == 0
    assert f"optimal expected score {good:.7f} (solved in " in capsys.readouterr().out
    clear_memory_cache()
    assert solve(R.YACHT).from_cache  # the table solved again replaced the bad one


def test_objective_tables_are_probabilities_or_nan() -> None:
    from yacht_solver.table_cache import plausible

    table = np.full((3, 4), 0.5)
    table[2] = np.nan  # a state no game reaches
    assert plausible(table, (0.0, 1.0), 4)
    for cell, value in (((0, 1), np.nan), ((1, 1), 1.5), ((1, 2), -np.inf), ((2, 0), np.inf)):
        broken = table.copy()
        broken[cell] = value
        assert not plausible(broken, (0.0, 1.0), 4), (cell, value)


def test_a_killed_save_s_temporary_file_is_removed_by_a_later_read(cache_dir: Path) -> None:
    """A run that finds the table cached writes nothing: its read removes what a killed save left (item 6)."""
    import subprocess
    import sys

    solve(R.YACHT)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    left = solver_cache.cache_path(R.YACHT).parent / f".yacht.table.pid{dead.pid}.abcd1234.tmp"
    left.write_bytes(b"half a table")
    clear_memory_cache()
    assert solve(R.YACHT).from_cache and not left.exists()
