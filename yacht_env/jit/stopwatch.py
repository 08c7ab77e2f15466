"""Wall-clock seconds of a block without the seconds spent compiling the package's numba kernels in it."""

from __future__ import annotations

import time

from yacht_env.jit.numba_cache import compile_seconds


class Stopwatch:
    """Wall-clock seconds of a block, without the time numba spent compiling the package's kernels inside it.

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


__all__ = ["Stopwatch"]
