"""The solver's disk cache read defensively: links to devices, pipes, folders, huge or hostile files."""

from __future__ import annotations

import hashlib
import json
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


# ==== a large table's checksum checked once: the stamp beside it ================================================

KEY = "s" * 64
WORDS = np.arange(5000, dtype="<u4")


@pytest.fixture
def stamped(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A mapped table of 20,000 bytes, stamped as large tables are (the threshold lowered for it), read once."""
    monkeypatch.setattr(solver_cache, "STAMP_BYTES", 1)
    path = solver_cache.save(R.YACHT, WORDS, key=KEY, mapped=True)
    assert path is not None and not solver_cache.stamp_path(path).exists()
    assert _load() is not None and solver_cache.stamp_path(path).exists()
    return path


def _load(mapped: bool = True) -> np.ndarray | None:
    return solver_cache.load(R.YACHT, WORDS.shape, key=KEY, dtype="<u4", mapped=mapped)


def _hashes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of payloads hashed from now on (one entry each)."""
    hashed: list[int] = []
    real = solver_cache._payload

    def counting(*args: Any) -> Any:
        hashed.append(1)
        return real(*args)

    monkeypatch.setattr(solver_cache, "_payload", counting)
    return hashed


def _keep_times(path: Path, change: Any) -> None:
    """``change(path)``, then the modification time set back to what it was (``touch -r``): size and mtime as before."""
    st = path.stat()
    change(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_a_stamped_table_is_read_again_without_hashing(stamped: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second load of a checked file hashes nothing and gives the same values, mapped or read."""
    hashed = _hashes(monkeypatch)
    again = _load()
    assert again is not None and again.tolist() == WORDS.tolist() and not again.flags.writeable
    assert _load(mapped=False) is None  # another layout: the header is still checked at every load
    assert hashed == []
    stamp = json.loads(solver_cache.stamp_path(stamped).read_text())
    assert stamp["size"] == stamped.stat().st_size and stamp["inode"] == stamped.stat().st_ino


def test_a_small_table_is_hashed_at_every_load_and_gets_no_stamp(cache_dir: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = solver_cache.save(R.YACHT, WORDS, key=KEY, mapped=True)
    hashed = _hashes(monkeypatch)
    assert _load() is not None and _load() is not None and len(hashed) == 2
    assert not solver_cache.stamp_path(path).exists() and len(WORDS) * 4 < solver_cache.STAMP_BYTES


@pytest.mark.parametrize("change", ["touched", "flipped, times kept", "truncated", "grown", "replaced"])
def test_a_table_changed_after_its_stamp_is_checked_again(change: str, stamped: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Any change to the file (even one that keeps its size and modification time: its change time moves) makes the
    next load hash it again; a damaged file is refused, a good one read (and stamped anew)."""
    if change == "touched":
        os.utime(stamped, ns=(stamped.stat().st_atime_ns, stamped.stat().st_mtime_ns + 10**9))
    elif change == "flipped, times kept":
        def flip(p: Path) -> None:
            with open(p, "r+b") as f:
                f.seek(-3, os.SEEK_END)
                f.write(b"\x99")

        _keep_times(stamped, flip)
    elif change == "truncated":
        _keep_times(stamped, lambda p: os.truncate(p, p.stat().st_size - 4))
    elif change == "grown":
        _keep_times(stamped, lambda p: p.open("ab").write(b"\0\0\0\0"))
    else:  # the same bytes in a new file (a copy, a restore)
        raw = stamped.read_bytes()
        stamped.unlink()
        stamped.write_bytes(raw)
    hashed = _hashes(monkeypatch)
    got = _load()
    assert len(hashed) == 1
    if change in ("touched", "replaced"):
        assert got is not None and got.tolist() == WORDS.tolist()
        assert _load() is not None and len(hashed) == 1  # stamped anew
    else:
        assert got is None


@pytest.mark.parametrize("forged", ["digest", "inode", "size", "ctime_ns", "extra field"])
def test_a_forged_stamp_does_not_make_a_damaged_table_load(forged: str, stamped: Path) -> None:
    """A stamp that differs from the damaged file in anything (its digest, a stat field, a field more) is not
    trusted: the file is hashed and refused."""
    def flip(p: Path) -> None:
        with open(p, "r+b") as f:
            f.seek(-3, os.SEEK_END)
            f.write(b"\x99")

    _keep_times(stamped, flip)
    st = stamped.stat()
    header = json.loads(stamped.read_bytes()[len(solver_cache.MAGIC) + 8:].split(b"}")[0] + b"}")
    stamp = {"device": st.st_dev, "inode": st.st_ino, "size": st.st_size, "mtime_ns": st.st_mtime_ns,
             "ctime_ns": st.st_ctime_ns, "sha256": header["sha256"]}
    assert solver_cache._identity(st, header["sha256"]) == stamp  # the true stamp of the damaged file, then one off
    if forged == "digest":
        stamp["sha256"] = hashlib.sha256(stamped.read_bytes()).hexdigest()
    elif forged == "extra field":
        stamp["verified"] = True
    else:
        stamp[forged] += 1
    solver_cache.stamp_path(stamped).write_text(json.dumps(stamp))
    assert _load() is None


@pytest.mark.parametrize("garbage", ["bytes", "a list", "cut short", "deep", "too long", "a folder", "a fifo",
                                     "/dev/zero"])
def test_a_stamp_that_is_garbage_means_a_full_check(garbage: str, stamped: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever lies at the stamp's path is read as data, bounded, and only compared: a full check, then the table
    is read (no crash, no hang); the stamp is written anew where a file can replace it."""
    where = solver_cache.stamp_path(stamped)
    where.unlink()
    if garbage == "a folder":
        where.mkdir()
    elif garbage == "a fifo":
        os.mkfifo(where)
    elif garbage == "/dev/zero":
        os.symlink("/dev/zero", where)
    else:
        where.write_bytes({"bytes": b"\xff\xfe\x00", "a list": b"[1, 2]", "cut short": b'{"size": ',
                           "deep": b"[" * 500 + b"]" * 500,
                           "too long": b" " * solver_cache.MAX_STAMP_BYTES + b"{}"}[garbage])
    hashed = _hashes(monkeypatch)
    assert _load() is not None and len(hashed) == 1
    assert _load() is not None and len(hashed) == (2 if garbage == "a folder" else 1)


def test_saving_a_table_removes_the_old_file_s_stamp(stamped: Path) -> None:
    solver_cache.save(R.YACHT, WORDS[::-1].copy(), key=KEY, mapped=True)
    assert not solver_cache.stamp_path(stamped).exists()
    assert _load().tolist() == WORDS[::-1].tolist() and solver_cache.stamp_path(stamped).exists()


def test_a_stamped_table_s_first_rows_are_read_and_its_values_still_checked(cache_dir: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """``rows`` from a stamped file reads those rows alone (nothing hashed); the values' checks run at every load."""
    monkeypatch.setattr(solver_cache, "STAMP_BYTES", 1)
    values = np.linspace(0.0, 1.0, 4000).reshape(100, 40)
    solver_cache.save(R.YACHT, values, key=KEY)
    assert solver_cache.load(R.YACHT, values.shape, key=KEY, value_range=(0.0, 1.0)) is not None
    hashed = _hashes(monkeypatch)
    first = solver_cache.load(R.YACHT, values.shape, key=KEY, rows=3, value_range=(0.0, 1.0))
    assert first is not None and np.array_equal(first, values[:3]) and hashed == []
    assert solver_cache.load(R.YACHT, values.shape, key=KEY, value_range=(0.0, 0.5)) is None  # values checked
