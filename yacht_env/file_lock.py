"""Exclusive locks on files between processes (``flock``): the kernel drops one when its process ends, however it
ends, so a crashed holder never leaves it stuck.

Where the system has no ``flock`` (Windows), :data:`LOCKS_WORK` is false and a lock is always acquired at once: the
callers then behave as a single process would.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

LOCKS_WORK = fcntl is not None
"""Whether locks exclude other processes here."""
_POLL = 0.02  # seconds between two tries while waiting


class FileLock:
    """An exclusive lock on ``path`` (created if missing; its content is the holder's business, see :attr:`fd`).

    >>> import tempfile, pathlib
    >>> lock = FileLock(pathlib.Path(tempfile.mkdtemp()) / "x.lock")
    >>> lock.acquire(), lock.held
    (True, True)
    >>> lock.release(); lock.held
    False
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.fd: int | None = None
        """The open descriptor while the lock is held."""

    @property
    def held(self) -> bool:
        return self.fd is not None

    def acquire(self, wait: float = 0.0) -> bool:
        """Take the lock, trying for up to ``wait`` seconds (``float("inf")``: until it is free); whether it is held
        now. ``OSError`` if the file cannot be opened (a read-only folder)."""
        if self.fd is not None:
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + wait
        while fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    return False
                time.sleep(_POLL)
        self.fd = fd
        return True

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the only descriptor releases the flock
            self.fd = None

    def __enter__(self) -> FileLock:
        self.acquire(float("inf"))
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


__all__ = ["LOCKS_WORK", "FileLock"]
