"""numba's on-disk cache of the package's kernels, in a folder named by the digest of the sources; compiles announced.

numba checks a cached kernel against its own module only, not the modules it inlines (numba issue #1833, shown by
``python benchmarks/numba_cache_stale.py``): with changed sources, :func:`cached_njit` caches in a new folder."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import shutil
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import platformdirs

from yacht_env.jit.notice import SlowNotice, say

_PACKAGE = Path(__file__).resolve().parents[1]
_SOURCES = (_PACKAGE, _PACKAGE.parent / "yacht_solver")  # the solver's kernels inline the same compiled rules


@functools.cache
def source_digest() -> str:
    """SHA-256 of the names and bytes of every Python source of ``yacht_env`` and ``yacht_solver``, once a process."""
    h = hashlib.sha256()
    for src in sorted(p for d in _SOURCES for p in d.rglob("*.py")):
        h.update(f"{src.relative_to(_PACKAGE.parent).as_posix()}\0{src.stat().st_size}\0".encode() + src.read_bytes())
    return h.hexdigest()


def cache_root() -> Path:
    """``$NUMBA_CACHE_DIR`` (else ``numba`` in the user's cache folder) ``/yacht-env-<digest of the sources>``."""
    base = os.environ.get("NUMBA_CACHE_DIR") or Path(platformdirs.user_cache_dir("yacht-env")) / "numba"
    return Path(base).expanduser() / f"yacht-env-{source_digest()[:16]}"


def kernel_cached(module_file: str, kernel: str) -> bool:
    """Whether numba's cache holds ``kernel`` of ``module_file`` for these sources (looked up without numba)."""
    parent, stem = os.path.dirname(os.path.abspath(module_file)), Path(module_file).stem
    folder = cache_root() / f"{os.path.basename(parent)}_{hashlib.sha1(parent.encode()).hexdigest()}"
    return os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0") and all(
        any(folder.glob(f"{stem}.{kernel}-*{ext}")) for ext in (".nbi", ".nbc"))


_Compiles = types.SimpleNamespace(seconds=0.0, depth=0, announced=False)  # this process's compiles of our kernels


def compile_seconds() -> float:
    """Seconds this process has spent compiling the package's kernels so far (subtract it from a measured time)."""
    return _Compiles.seconds


def _compile(compile_extra: Callable[[Any], Any], func: Callable[..., Any]) -> Any:
    """numba's ``compile_extra(func)``; the outermost compile announced (once a process), said and timed."""
    if _Compiles.depth:
        return compile_extra(func)
    if not _Compiles.announced:
        _Compiles.announced = True
        say(f"compiling the numba kernels this command needs, starting with those of {func.__module__}: once per "
            f"machine (numba caches them in {cache_root()}; later commands load them)...")
    t0, _Compiles.depth = time.perf_counter(), 1
    try:
        with SlowNotice(f"compiling numba kernels: {func.__module__}", after=4.0, every=4.0, said=True,
                        before=_Compiles.seconds):
            return compile_extra(func)
    finally:
        _Compiles.depth, _Compiles.seconds = 0, _Compiles.seconds + time.perf_counter() - t0


@functools.cache
def _pipeline() -> type:
    """numba's compiler with :func:`_compile` around it (``pipeline_class``); first, old cache folders removed."""
    from numba.core.compiler import Compiler

    class Announced(Compiler):
        def compile_extra(self, func: Callable[..., Any]) -> Any:
            return _compile(super().compile_extra, func)

    for old in [] if cache_root().exists() else cache_root().parent.glob("yacht-env-*"):  # unused 30 days: gone
        with contextlib.suppress(OSError):  # a read-only folder, or one another process removed
            if time.time() - old.stat().st_mtime > 30 * 86400:
                shutil.rmtree(old, ignore_errors=True)
    return Announced


def cached_njit(f: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``numba.njit(f, cache=True, **options)`` cached in :func:`cache_root`; without ``f``, the decorator."""
    if f is None:
        return functools.partial(cached_njit, **options)
    import numba
    from numba.core import config
    pipeline = _pipeline()  # imported first: numba's first imports reread the config
    with mock.patch.object(config, "CACHE_DIR", str(cache_root())):  # numba reads it once, making this kernel's cache
        return numba.njit(f, cache=True, pipeline_class=pipeline, **options)
