"""The solved tables on disk: one file per rule set and solver version, checked before it is trusted.

Where: ``$YACHT_ENV_CACHE_DIR`` if set, else ``platformdirs.user_cache_dir("yacht-env")``. The file name holds the
rules' name, a hash of everything that decides the values (the rule set definition, its score arrays, the source of the
turn logic and the dice arrays) and :data:`SOLVER_VERSION`. The file itself is a magic line, a JSON header
(versions, key, shape, type, SHA-256 of the payload) and the payload: float64, or for the large objective tables
float32 starting at a multiple of :data:`ALIGN` bytes, so that it can be memory-mapped (``mapped=True``: the file is
checked once, read in chunks, then its pages are read from disk only when a row is used). Anything that does not
match (other version or key, wrong size, bad checksum, unreadable, not a regular file) makes :func:`load` return
``None``, so the caller solves again and :func:`save` replaces the bad file. The reader reads no more than a good
file holds (a cache path linked to ``/dev/zero`` or to a huge file costs nothing), caps the header, and can keep
only a table's first rows. Writes go to a temporary file that is then renamed over the old one
(:func:`yacht_env.files.write_atomic`), so a reader never sees half a file.

A large file's checksum is checked once, not at every load (hashing Yacht's 4.9 GB two-player table takes seconds):
once a file of at least :data:`STAMP_BYTES` passes the full check, a small stamp beside it (``<table>.verified``,
written atomically) records the file's identity as ``os.stat`` gives it (device, inode, size, modification and
change times in ns) and its digest. A later load whose open file has that identity, whose header declares that digest
and whose size is exactly a good file's skips the hashing; the header and every check of the values are done as
always. Anything else (no stamp, an unreadable or foreign one, any field off) means the full check again, which
refuses a bad file as before. The stamp is read as data (a few hundred bytes at most) and only compared. What this
gives up: a change of the bytes that keeps all of the file's stat fields, that is bit rot on the disk after the check,
or a write in place within the same tick of the file system's clock as the check's end, is no longer caught by the
checksum. Removing the ``.verified`` files (or the cache folder) makes the next load check everything again.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import mmap
import os
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import numpy as np

from yacht_env import dice as D
from yacht_env import rules as R
from yacht_env.files import open_regular, read_regular, remove_stale_temporaries, write_atomic, write_text_atomic

SOLVER_VERSION = 1
"""Bump when the solver's output or the file format changes: older files are then ignored."""

ENV_VAR = "YACHT_ENV_CACHE_DIR"
MAGIC = b"YACHT-ENV SOLVER TABLE\n"
_HEADER_LEN_BYTES = 8
MAX_HEADER_BYTES = 1 << 16
"""The largest JSON header a table file may have (a good one is about 300 bytes)."""
ALIGN = 4096
"""Where a memory-mapped payload starts: a multiple of this many bytes (a page)."""
STAMP_BYTES = 1 << 26
"""The smallest payload whose passed check is stamped (module docstring): a smaller one hashes in well under a tenth
of a second, less than a stamp saves, and its folder holds no stamps."""
STAMP_SUFFIX = ".verified"
MAX_STAMP_BYTES = 1024
"""The largest stamp read (a good one is about 200 bytes)."""


def cache_dir() -> Path:
    """The directory of the solved tables: ``$YACHT_ENV_CACHE_DIR`` (an absolute folder; ``~`` is expanded) or the
    user's cache folder. ``ValueError`` in one line for a value that names no usable folder: blank, relative (it
    would change with the folder a command runs from), a ``~user`` that does not exist, or an existing file."""
    env = os.environ.get(ENV_VAR)
    if env is not None:
        where = f"{ENV_VAR}={env!r}"
        if not env.strip():
            raise ValueError(f"{where} is blank: set it to an absolute folder, or unset it for the user's cache folder")
        try:
            path = Path(env).expanduser()  # '~/yc' as written in a shell profile or a quoted assignment
        except RuntimeError:  # ~user of no such user (Python 3.10 and 3.11; later versions leave it as it is)
            path = Path(env)
        if env.startswith("~") and str(path).startswith("~"):
            raise ValueError(f"{where}: {env.split('/')[0]!r} names no home folder here; give an absolute folder")
        if not path.is_absolute():
            raise ValueError(f"{where} is a relative path (it would change with the folder a command runs from); "
                             "give an absolute folder")
        if path.exists() and not path.is_dir():
            raise ValueError(f"{where} is a file, not a folder; give a folder for the solver's tables")
        return path
    import platformdirs

    return Path(platformdirs.user_cache_dir("yacht-env"))


def rules_key(rules: R.RuleSet) -> str:
    """SHA-256 (hex) of everything the optimal values depend on: the rule set's definition, its score and Joker
    arrays, the source of the turn logic in :mod:`yacht_env.rules` and the dice arrays."""
    h = hashlib.sha256()
    definition = {
        "name": rules.name,
        "categories": [[c.id, c.kind, c.param, list(c.faces), c.run] for c in rules.categories],
        "params": [int(p) for p in rules.params],
        "upper_bonus_threshold": rules.upper_bonus_threshold,
        "five_kind_category": rules.five_kind_category,
    }
    h.update(json.dumps(definition, sort_keys=True).encode())
    for array in (rules.box_scores, rules.joker_scores, R.FIVE_KIND_FACE, D.TRANSITION, D.KEEP_ADD, D.KEEP_REMOVE):
        h.update(np.ascontiguousarray(array).tobytes())
    for fn in (getattr(R, name) for name in (*R.TURN_LOGIC, *R.TURNSTART_LOGIC)):
        h.update(inspect.getsource(fn).encode())
    return h.hexdigest()


def cache_path(rules: R.RuleSet, key: str | None = None) -> Path:
    """Path of the table file of ``rules`` for this solver version."""
    key = key or rules_key(rules)
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", rules.name)
    return cache_dir() / f"{safe}-{key[:16]}-v{SOLVER_VERSION}.table"


def _header(rules: R.RuleSet, key: str, shape: tuple[int, ...], dtype: np.dtype, sha256: str, align: int = 1) -> bytes:
    """The JSON header of a table: what :func:`load` checks before it reads the payload."""
    head: dict[str, object] = {
        "solver_version": SOLVER_VERSION,
        "rules": rules.name,
        "key": key,
        "shape": list(shape),
        "dtype": dtype.str,
        "nbytes": int(np.prod(shape)) * dtype.itemsize,
        "sha256": sha256,
    }
    if align > 1:
        head["align"] = align
    return json.dumps(head, sort_keys=True).encode()


def _start(header_end: int, align: int) -> int:
    """Where the payload starts: the first multiple of ``align`` at or after the header's end."""
    return -(-header_end // align) * align


def _payload(f: BinaryIO, expected: int, keep: int, check: Callable[[memoryview], bool] | None = None
             ) -> tuple[bytearray, str] | None:
    """The first ``keep`` bytes of a payload of ``expected`` bytes and the SHA-256 of all of it, read in chunks (the
    rest is hashed and, with ``check``, checked, not kept), or ``None`` if the file holds fewer or more bytes or a
    chunk fails ``check``."""
    data, scratch = bytearray(keep), bytearray(min(1 << 24, expected + 1))
    view, spare, h, got = memoryview(data), memoryview(scratch), hashlib.sha256(), 0
    while True:
        chunk = view[got : min(keep, got + len(scratch))] if got < keep else spare[: expected + 1 - got]
        n = f.readinto(chunk) if len(chunk) else 0
        if not n:
            break
        h.update(chunk[:n])
        if got >= keep and check is not None and got + n <= expected and not check(chunk[:n]):
            view.release()
            return None
        got += n
    view.release()
    return (data, h.hexdigest()) if got == expected else None


def _unhashed(f: BinaryIO, expected: int, keep: int, check: Callable[[memoryview], bool] | None = None
              ) -> tuple[bytearray, None] | None:
    """:func:`_payload` of a file whose checksum was checked before (its size is checked by the caller): the first
    ``keep`` bytes, and with ``check`` the rest read in chunks and checked, nothing hashed; ``None`` if a read falls
    short or a chunk fails ``check``."""
    data, step = bytearray(keep), 1 << 24
    with memoryview(data) as view:
        for at in range(0, keep, step):
            if f.readinto(view[at:at + step]) != len(view[at:at + step]):
                return None
    if check is not None:
        with memoryview(bytearray(min(step, max(expected - keep, 1)))) as scratch:
            for at in range(keep, expected, step):
                chunk = scratch[:min(step, expected - at)]
                if f.readinto(chunk) != len(chunk) or not check(chunk):
                    return None
    return data, None


def plausible(values: np.ndarray, value_range: tuple[float, float], start_cells: int) -> bool:
    """Whether a table's values can be the solver's: each NaN (a state no game reaches) or within ``value_range``,
    and its first ``start_cells`` values (those of the start of a game) numbers. Checked in slices: no copy of a
    table of many GB. A file with a recomputed checksum over NaN or out-of-range values is caught here."""
    lo, hi = value_range
    flat = values.reshape(-1)
    if flat.size < start_cells or not np.isfinite(flat[:start_cells]).all():
        return False
    step = 1 << 22
    return not any(((c < lo) | (c > hi)).any() for c in (flat[i:i + step] for i in range(0, flat.size, step)))


def _in_range(values: np.ndarray, value_range: tuple[float, float]) -> bool:
    """Every value a number within ``value_range`` (NaN fails: a ragged table has no rows of unreached states)."""
    lo, hi = value_range
    return bool(((values >= lo) & (values <= hi)).all())


def _read_header(f: BinaryIO) -> tuple[object, int]:
    """The JSON header of an open table file and its length in bytes; ``(None, 0)`` where the file does not start
    with :data:`MAGIC` and a header length within :data:`MAX_HEADER_BYTES`."""
    head = f.read(len(MAGIC) + _HEADER_LEN_BYTES)
    n = int.from_bytes(head[len(MAGIC):], "little")
    if not head.startswith(MAGIC) or len(head) != len(MAGIC) + _HEADER_LEN_BYTES or n > MAX_HEADER_BYTES:
        return None, 0
    return json.loads(f.read(n).decode()), n


def stamp_path(path: Path) -> Path:
    """Where the stamp of the table file ``path`` is: ``<table>.verified`` beside it."""
    return path.with_name(path.name + STAMP_SUFFIX)


def _identity(st: os.stat_result, sha256: object) -> dict[str, object]:
    """What a stamp holds: the file's identity (``os.stat``) and the digest its check found."""
    return {"device": st.st_dev, "inode": st.st_ino, "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "ctime_ns": st.st_ctime_ns, "sha256": sha256}


def _stamped(path: Path, st: os.stat_result, sha256: object) -> bool:
    """Whether the stamp beside ``path`` says that this very file (``st``, the open file's) passed the full check
    with digest ``sha256``. A missing, oversized, unreadable or malformed stamp says no."""
    try:
        stamp = json.loads(read_regular(stamp_path(path), MAX_STAMP_BYTES).decode())
    except (ValueError, OSError, UnicodeDecodeError, RecursionError):  # json's errors are ValueErrors
        return False
    return isinstance(stamp, dict) and stamp == _identity(st, sha256)


def _stamp(path: Path, st: os.stat_result, sha256: str) -> None:
    """Record that the file at ``path`` (``st``, read before its check) passed the full check, unless it changed
    while it was read or the folder is not writable (the next load then checks it fully again)."""
    try:
        if _identity(os.stat(path), sha256) != _identity(st, sha256):  # replaced or written to meanwhile
            return
        write_text_atomic(stamp_path(path), json.dumps(_identity(st, sha256), sort_keys=True))
    except OSError:
        return


def stored_shape(rules: R.RuleSet, key: str) -> tuple[int, ...] | None:
    """The shape the header of the table file of ``rules`` and ``key`` declares, or ``None`` if there is no such
    file or its header is off (a table written with ``at_most``, :func:`save_in_pieces`: the caller bounds it, then
    :func:`load` checks the file against it)."""
    try:
        f = open_regular(cache_path(rules, key))
    except ValueError:
        return None
    try:
        with f:
            header = _read_header(f)[0]
            shape = header.get("shape") if isinstance(header, dict) else None
    except (OSError, ValueError, UnicodeDecodeError, AttributeError, RecursionError):
        return None
    ok = isinstance(shape, list) and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in shape)
    return tuple(shape) if ok else None


def load(rules: R.RuleSet, shape: tuple[int, ...], key: str | None = None, *, rows: int | None = None,
         value_range: tuple[float, float] | None = None, dtype: str = "<f8", row_offsets: np.ndarray | None = None,
         mapped: bool = False) -> np.ndarray | None:
    """The table of ``rules`` from disk (read-only array of ``shape`` and ``dtype``), or ``None`` if it is missing or
    anything about it is off (corrupt, truncated, too long, other version, other rules, other type, not a regular
    file, or, with ``value_range``, values that are not :func:`plausible`: the caller then computes it again). With
    ``rows``, only its first rows are kept, in memory (the whole file is still checked): a caller who needs the start
    of a table of many GB holds only that; ``row_offsets``: where the rows of a ragged (1-D) payload start. With
    ``mapped``, the payload (aligned, :data:`ALIGN`) is memory-mapped once checked: each NaN-free value within
    ``value_range``. The file is read once, in chunks, never past the size a good file has; a large file that a
    stamp says was checked before (module docstring) is not hashed again, and with ``rows`` only those are read."""
    key = key or rules_key(rules)
    item = np.dtype(dtype).itemsize
    expected = int(np.prod(shape)) * item
    if row_offsets is not None:
        kept_bytes = expected if rows is None else int(row_offsets[min(rows, len(row_offsets) - 1)]) * item
    else:
        row_bytes = int(np.prod(shape[1:])) * item
        kept_bytes = (shape[0] if rows is None else min(rows, shape[0])) * row_bytes
    if mapped and rows is None:
        kept_bytes = 0
    align = ALIGN if mapped else 1
    check = None
    if mapped and value_range is not None:
        vr = value_range

        def check(chunk: memoryview) -> bool:
            return _in_range(np.frombuffer(chunk, dtype=dtype, count=len(chunk) // item), vr)

    path = cache_path(rules, key)
    remove_stale_temporaries(path.parent)  # a killed save's file (GBs for Yahtzee's largest)
    try:
        f = open_regular(path)  # a regular file, opened without blocking (a pipe cannot hang it)
    except ValueError:
        return None
    try:
        with f:
            st = os.fstat(f.fileno())
            header, n = _read_header(f)
            if (
                not isinstance(header, dict)
                or header.get("solver_version") != SOLVER_VERSION
                or header.get("rules") != rules.name
                or header.get("key") != key
                or header.get("dtype") != np.dtype(dtype).str
                or tuple(header.get("shape", ())) != tuple(shape)
                or header.get("nbytes") != expected
                or header.get("align", 1) != align
            ):
                return None
            start = _start(len(MAGIC) + _HEADER_LEN_BYTES + n, align)
            f.seek(start)
            stamped = (expected >= STAMP_BYTES and st.st_size == start + expected
                       and _stamped(path, st, header.get("sha256")))
            if stamped:  # checked before: the kept rows read, the rest checked by ``check`` alone, never hashed
                read = _unhashed(f, expected, kept_bytes, check)
            else:
                read = _payload(f, expected, kept_bytes) if check is None else _payload(f, expected, kept_bytes,
                                                                                        check)
            if read is None or (not stamped and read[1] != header.get("sha256")):
                return None
            passed = None if stamped or expected < STAMP_BYTES else read[1]  # a digest to stamp once all is checked
            if mapped and rows is None:
                if expected == 0:
                    return np.zeros(shape, dtype=dtype)
                mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)  # the map outlives the file object
                values = np.frombuffer(mm, dtype=dtype, count=expected // item, offset=start).reshape(shape)
                if passed is not None:
                    _stamp(path, st, passed)
                return values  # read-only: the map is
        kept_shape = (kept_bytes // item,) if row_offsets is not None else (kept_bytes // max(row_bytes, 1),
                                                                            *shape[1:])
        values = np.frombuffer(read[0], dtype=dtype).reshape(kept_shape)
    except (OSError, ValueError, UnicodeDecodeError, TypeError, AttributeError, RecursionError):
        return None
    if value_range is not None and not plausible(values, value_range, 1):
        return None
    if passed is not None:
        _stamp(path, st, passed)
    values.setflags(write=False)
    return values


def save(rules: R.RuleSet, values: np.ndarray, key: str | None = None, mapped: bool = False) -> Path | None:
    """Write the table atomically (temporary file, then rename; whatever was at the path, a link included, is
    replaced); ``mapped``: its payload aligned for :func:`load`'s ``mapped`` (any type, float32 for the large
    objective tables; else float64). Returns the path, or ``None`` with a warning if the cache directory is not
    writable (or the disk is full): the cache is an optimisation, never a requirement."""
    values = np.ascontiguousarray(values if mapped else np.asarray(values, dtype="<f8"))
    try:
        return save_in_pieces(rules, key or rules_key(rules), values.shape, values.dtype.str,
                              lambda write: write(values), mapped=mapped)
    except OSError as e:
        warnings.warn(f"could not write the solver cache {cache_path(rules, key)}: {e}", RuntimeWarning, stacklevel=2)
        return None


def save_in_pieces(rules: R.RuleSet, key: str, shape: tuple[int, ...], dtype: str,
                   fill: Callable[[Callable[[np.ndarray], None]], None], mapped: bool = True, *,
                   at_most: bool = False) -> Path:
    """Write a table whose values come in pieces, in file order: ``fill(write)`` calls ``write(piece)`` until the
    ``prod(shape)`` values are written, so a table of many GB (the game of two players) is never whole in memory.
    ``at_most``: ``shape`` (one dimension) is a bound, ``fill`` may write fewer values and the header declares
    those (read back with :func:`stored_shape`, then :func:`load`). The header's checksum goes in last, over a
    placeholder of the same length (padded with spaces). Atomic: what ``fill`` or the disk raises (Ctrl-C included)
    leaves no file."""
    dt = np.dtype(dtype)
    align = ALIGN if mapped else 1
    expected = int(np.prod(shape)) * dt.itemsize
    if at_most and len(shape) != 1:
        raise ValueError(f"at_most takes a table of one dimension, not of shape {tuple(shape)}")
    placeholder = _header(rules, key, shape, dt, "0" * 64, align)
    end = len(MAGIC) + _HEADER_LEN_BYTES + len(placeholder)

    def write(f: BinaryIO) -> None:
        f.write(MAGIC)
        f.write(len(placeholder).to_bytes(_HEADER_LEN_BYTES, "little"))
        f.write(placeholder)
        f.write(bytes(_start(end, align) - end))
        h, written = hashlib.sha256(), 0

        def piece(values: np.ndarray) -> None:
            nonlocal written
            data = np.ascontiguousarray(values, dtype=dt).data  # no copy of a table of many GB
            h.update(data)
            f.write(data)
            written += data.nbytes

        fill(piece)
        if written != expected and not (at_most and written < expected and written % dt.itemsize == 0):
            raise ValueError(f"a table of shape {tuple(shape)} holds {expected:,} bytes; {written:,} were written")
        final = (written // dt.itemsize,) if at_most else shape
        f.seek(len(MAGIC) + _HEADER_LEN_BYTES)  # the placeholder's length: hex digests, no more digits than the bound
        f.write(_header(rules, key, final, dt, h.hexdigest(), align).ljust(len(placeholder)))

    path = cache_path(rules, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, write)
    with contextlib.suppress(OSError):
        stamp_path(path).unlink(missing_ok=True)  # the old file's: it cannot match the new one, which is checked anew
    return path
