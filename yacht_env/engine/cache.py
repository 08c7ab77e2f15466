"""numba's on-disk cache of the engine's kernels: kept fresh when a source changes.

numba's on-disk cache of a kernels module is checked against that module's own source only, yet its kernels contain
the rules, the dice tables, the encoder and whatever else they inline. :func:`guard_numba_cache` (called by each
module with cached kernels before it compiles anything) drops the module's cached kernels when any source of the
package changed, so that numba compiles afresh instead of loading kernels built on old code.

A first use compiles: the first compilation of a process is announced once on stderr, and the seconds spent
compiling are kept (:func:`compile_seconds`, :class:`Stopwatch`) so that no reported time counts them.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]


def _numba_cache_dir(path: str) -> Path:
    """The folder where numba caches the kernels of the module at ``path`` (as numba's own locators find it)."""
    try:
        from numba.core.caching import _CacheImpl

        for cls in _CacheImpl._locator_classes:
            loc = cls.from_function(_numba_cache_dir, path)
            if loc is not None:
                return Path(loc.get_cache_path())
    except Exception:  # a numba without these internals: its default place
        pass
    return Path(path).parent / "__pycache__"


def source_digest(extra: Iterable[str | None] = ()) -> str:
    """SHA-256 of every Python source of the ``yacht_env`` package (and of the files ``extra``): what compiled
    kernels can contain."""
    h = hashlib.sha256()
    for src in [*sorted(str(p) for p in _PACKAGE.rglob("*.py")), *extra]:
        if src:
            h.update(src.encode())
            h.update(Path(src).read_bytes())
    return h.hexdigest()


def guard_numba_cache(path: str, extra: Iterable[str | None] = ()) -> None:
    """Drop numba's cached kernels of the module at ``path`` if any source they may contain changed since they were
    cached (see the module docstring). Call it before the module defines any ``cache=True`` kernel.

    A digest of the sources (:func:`source_digest`) is kept next to the cache (``<module>.deps.sha256``); when it
    differs, the module's cache files are deleted, so that numba compiles afresh. A read-only installation is left
    alone (its files do not change either)."""
    digest = source_digest(extra)
    folder = _numba_cache_dir(path)
    stem = Path(path).stem
    marker = folder / f"{stem}.deps.sha256"
    try:
        if marker.read_text() == digest:
            return
    except OSError:
        pass
    try:
        for f in (*folder.glob(f"{stem}.*.nbi"), *folder.glob(f"{stem}.*.nbc")):
            f.unlink(missing_ok=True)
        folder.mkdir(parents=True, exist_ok=True)
        marker.write_text(digest)
    except OSError:  # a read-only installation
        pass





# ---- first use: compiling is announced once and its time kept apart ------------------------------------------------


class _CompileWatch:
    """A numba event listener: announces the first compilation of the process on stderr, once, and adds up the
    seconds spent compiling (outermost compilations only), so that reported times can leave them out."""

    def __init__(self) -> None:
        from numba.core import event

        self.seconds = 0.0
        self.announced = False
        self._depth = 0
        self._t0 = 0.0
        watch = self

        class Listener(event.Listener):
            def on_start(self, ev: event.Event) -> None:
                watch._start()

            def on_end(self, ev: event.Event) -> None:
                watch._end()

        event.register("numba:compile", Listener())

    def _start(self) -> None:
        if self._depth == 0:
            self._t0 = time.perf_counter()
            if not self.announced and not os.environ.get("YACHT_ENV_QUIET_COMPILE"):
                self.announced = True
                print("yacht-env: compiling the numba kernels this needs (first use only; later runs load them from "
                      "numba's cache)...", file=sys.stderr, flush=True)
        self._depth += 1

    def _end(self) -> None:
        self._depth = max(0, self._depth - 1)
        if self._depth == 0:
            self.seconds += time.perf_counter() - self._t0


_WATCH = _CompileWatch()


def compile_seconds() -> float:
    """Seconds this process has spent compiling numba kernels so far (subtract it from a measured time)."""
    return _WATCH.seconds


class Stopwatch:
    """Wall-clock seconds of a block, without the time numba spent compiling inside it.

    >>> with Stopwatch() as sw:
    ...     pass
    >>> sw.seconds >= 0
    True
    """

    def __enter__(self) -> Stopwatch:
        self._t0 = time.perf_counter()
        self._c0 = compile_seconds()
        self.seconds = 0.0
        self.compile_seconds = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.compile_seconds = compile_seconds() - self._c0
        self.seconds = max(0.0, time.perf_counter() - self._t0 - self.compile_seconds)


__all__ = ["Stopwatch", "compile_seconds", "guard_numba_cache", "source_digest"]
