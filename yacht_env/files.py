"""Files that a later run reads are written atomically: a temporary file in the same folder, flushed and synced,
then renamed over the target. A reader sees the old file or the new one, never half of one, and a write that fails
(a full disk, a kill) leaves the previous good file in place. A temporary file's name holds its writer's process
id, so that the next write to that folder removes those a killed writer left (:func:`remove_stale_temporaries`).

These are the project's own files (caches, checkpoints, run folders): always replaced by a regular file. Files from
elsewhere are read only if they are regular files of bounded size (:func:`open_regular`). A path the user names on
the command line (``--json``, ``--plot``) follows the command line's policy, ``yacht_tools.output_paths``.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def kind_of(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, for messages: ``"a regular file"``, ``"a folder"``, ``"a FIFO (named
    pipe)"``, ``"a character device"`` (``/dev/zero``)..."""
    return "a regular file" if stat.S_ISREG(mode) else next((k for test, k in _KINDS if test(mode)), "not a file")


def open_regular(path: str | Path, limit: int | None = None, name: str | None = None) -> BinaryIO:
    """The regular file at ``path`` (a symlink followed) open for reading: files from elsewhere are read only if
    they are regular files, opened without blocking (a FIFO cannot hang the reader) and, with ``limit``, of at most
    ``limit`` bytes. ``ValueError`` saying what the path is otherwise (missing, a folder, a FIFO, a device such as
    ``/dev/zero``), naming it as ``name`` (default: the path quoted)."""
    name = repr(str(path)) if name is None else name
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise ValueError(f"{name} does not exist") from None
    except OSError as e:
        raise ValueError(f"cannot read {name}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{name} is {kind_of(st.st_mode)}, not a regular file")
        if limit is not None and st.st_size > limit:
            raise ValueError(f"{name} is {st.st_size:,} bytes, more than the limit of {limit:,}")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def append_own(path: str | Path, text: str) -> None:
    """Append ``text`` to one of the project's own files (a run folder's ``command.txt``), creating it: only a
    regular file, never through a symlink (its target is not ours to write) and never blocking on a FIFO;
    ``ValueError`` naming the path and what it is otherwise."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as e:
        what = "a symlink" if os.path.islink(path) else kind_of(os.stat(path).st_mode) if os.path.exists(path) \
            else e.strerror
        raise ValueError(f"{str(path)!r} is {what}, not a regular file: the run folder's own files are regular "
                         "files, never links or pipes") from None
    with os.fdopen(fd, "a", encoding="utf-8") as f:
        mode = os.fstat(f.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise ValueError(f"{str(path)!r} is {kind_of(mode)}, not a regular file: the run folder's own files are "
                             "regular files, never links or pipes")
        f.write(text)


def read_regular(path: str | Path, limit: int, name: str | None = None) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them (:func:`open_regular`; a file that grows
    past the limit while read is refused too)."""
    with open_regular(path, limit, name) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{repr(str(path)) if name is None else name} is more than the limit of {limit:,} bytes")
    return data


def regular_file_problem(path: str | Path) -> str | None:
    """``None`` if ``path`` is a regular file (a symlink followed), else what it is instead: ``"does not exist"``,
    ``"is a FIFO (named pipe), not a regular file"``... (checked without opening it)."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "does not exist"
    except OSError as e:
        return f"cannot be read ({e.strerror or e})"
    return None if stat.S_ISREG(mode) else f"is {kind_of(mode)}, not a regular file"


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; on leaving the block without an error it is synced and renamed
    over ``path`` (whatever ``path`` was: a link or a device there is replaced by the regular file), on an error it
    is removed. For libraries that write to a path themselves."""
    target = Path(path)
    remove_stale_temporaries(target.parent)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.pid{os.getpid()}.", suffix=".tmp")
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        with open(tmp_path, "rb+") as f:
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp_path, _mode_for(target))
        os.replace(tmp_path, target)
        _sync_folder(target.parent)
    finally:
        tmp_path.unlink(missing_ok=True)


_TEMPORARY = re.compile(r"\..+\.pid(\d+)\.[A-Za-z0-9_]+\.tmp")
"""The name of a temporary file of :func:`atomic_path`: ``.<target>.pid<writer's pid>.<random>.tmp``."""


def _process_start(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch), or ``None`` if there is no such process (or the system
    does not say: then a live process is taken to be the writer)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except OSError:  # alive, another user's
        pass
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            ticks = int(f.read().rsplit(b")", 1)[1].split()[19])  # field 22, after the name in parentheses
        with open("/proc/stat", "rb") as f:
            boot = next(int(line.split()[1]) for line in f if line.startswith(b"btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return -math.inf


def remove_stale_temporaries(folder: str | Path) -> list[Path]:
    """Remove the temporary files :func:`atomic_path` left in ``folder`` when its writer was killed (``kill -9``, a
    crash): those whose writer process is gone, or whose process id now belongs to a process that started after
    the file was last written. A live writer's file is never touched. Returns the files removed."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        m = _TEMPORARY.fullmatch(entry.name)
        if m is None or int(m.group(1)) == os.getpid():
            continue
        try:
            written = entry.stat(follow_symlinks=False).st_mtime
            started = _process_start(int(m.group(1)))
            if started is None or started > written + 1:  # 1 s: the clock ticks of the start time
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:  # removed meanwhile, or not ours to remove
            continue
    return removed


def write_atomic(path: str | Path, write: Callable[[BinaryIO], None]) -> Path:
    """Call ``write(file)`` on a temporary file beside ``path``, then sync it and rename it over ``path``."""
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        write(f)
    return Path(path)


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically."""
    return write_atomic(path, lambda f: f.write(data))


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def _mode_for(target: Path) -> int:
    """The permissions the new file gets: the old file's (if it is a regular file), else those of a new file under
    the umask (the temporary file is created private)."""
    try:
        st = target.stat()
        if stat.S_ISREG(st.st_mode):
            return st.st_mode & 0o777
    except OSError:
        pass
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _sync_folder(folder: Path) -> None:
    """Make a rename durable (where the platform can sync a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
