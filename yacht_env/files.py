"""Files that a later run reads are written atomically: a temporary file in the same folder, flushed and synced,
then renamed over the target. A reader sees the old file or the new one, never half of one, and a write that fails
(a full disk, a kill) leaves the previous good file in place."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; on leaving the block without an error it is synced and renamed
    over ``path``, on an error it is removed. For libraries that write to a path themselves."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
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


def write_atomic(path: str | Path, write: Callable[[BinaryIO], None]) -> Path:
    """Call ``write(file)`` on a temporary file beside ``path``, then sync it and rename it over ``path``."""
    target = Path(path)
    with atomic_path(target) as tmp, open(tmp, "wb") as f:
        write(f)
    return target


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
