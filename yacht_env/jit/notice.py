"""A line on stderr while something slow runs: no pause over a couple of seconds goes unexplained, also when stderr
is not a terminal (a log file, a pipe).

>>> with SlowNotice("solving yacht"):
...     pass  # quick: nothing printed
"""

from __future__ import annotations

import os
import sys
import threading
import time

QUIET_ENV = "YACHT_ENV_QUIET"
"""Set (to anything but empty) to silence these lines (and the compile announcement)."""


def quiet() -> bool:
    """Whether the user asked for no progress lines from the engine."""
    return bool(os.environ.get(QUIET_ENV) or os.environ.get("YACHT_ENV_QUIET_COMPILE"))


def say(text: str) -> None:
    """One line ``yacht-env: text`` on stderr, flushed at once (unless :func:`quiet`)."""
    if not quiet():
        print(f"yacht-env: {text}", file=sys.stderr, flush=True)


def _terminal() -> bool:
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # replaced by an object without it, or closed
        return False


class SlowNotice:
    """Context manager: if the block runs longer than ``after`` seconds, say ``what`` on stderr, then every
    ``every`` seconds the time so far, from a daemon thread (the block may hold the GIL only briefly at a time,
    as numba's compiler and the nogil kernels do). On a terminal the "still ..." report is one line redrawn in place
    and erased when the block ends; elsewhere (a log, a pipe) each report is a line of its own."""

    def __init__(self, what: str, after: float = 2.0, every: float = 5.0, said: bool = False,
                 before: float = 0.0) -> None:
        """``said``: ``what`` was already announced, so every line is a "still ..." line; ``before``: seconds spent
        on it before this block, counted in the "so far" of those lines."""
        self.what, self.after, self.every, self.said, self.before = what, after, every, said, before
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._drawn = False  # a "still ..." line is on the terminal, not ended by a newline

    def __enter__(self) -> SlowNotice:
        self._t0 = time.perf_counter()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True, name="yacht-env-notice")
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
        if self._drawn:
            sys.stderr.write("\r\x1b[K")  # the block is over: its progress line goes, the next output starts clean
            sys.stderr.flush()
            self._drawn = False

    def _so_far(self) -> float:
        return self.before + time.perf_counter() - self._t0

    def _run(self) -> None:
        if self._stop.wait(self.after):
            return
        if self.said:
            self._still()
        else:
            say(f"{self.what}...")
        while not self._stop.wait(self.every):
            self._still()

    def _still(self) -> None:
        line = f"still {self.what} ({self._so_far():.0f} s so far)"
        if quiet() or not _terminal():
            say(line)
            return
        sys.stderr.write(f"\r\x1b[Kyacht-env: {line}")
        sys.stderr.flush()
        self._drawn = True


__all__ = ["QUIET_ENV", "SlowNotice", "quiet", "say"]
