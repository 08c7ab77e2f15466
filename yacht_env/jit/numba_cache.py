"""numba's on-disk cache of the package's kernels in a folder named by the sources, and their compiles announced.

numba checks a cached kernel against its own module only, not the modules it inlines (numba issue #1833, shown by
``python benchmarks/numba_cache_stale.py``). :func:`cached_njit` makes every kernel of ``yacht_env`` and
``yacht_solver`` and has numba cache it in :func:`cache_root`, named by the digest of all their sources: changed
sources, a new folder. A real compile (not a load) is announced once per process and timed (:func:`compile_seconds`).
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import platformdirs

from yacht_env.jit.notice import SlowNotice, say

_PACKAGE = Path(__file__).resolve().parents[1]
_SOURCES = (_PACKAGE, _PACKAGE.parent / "yacht_solver")  # the solver's kernels inline the same compiled rules


@functools.cache
def source_digest() -> str:
    """SHA-256 of the names and bytes of every Python source of ``yacht_env`` and ``yacht_solver``, once a process."""
    h = hashlib.sha256()
    for src in sorted(p for d in _SOURCES for p in d.rglob("*.py")):
        data = src.read_bytes()
        h.update(f"{src.relative_to(_PACKAGE.parent).as_posix()}\0{len(data)}\0".encode() + data)
    return h.hexdigest()


def cache_root() -> Path:
    """``$NUMBA_CACHE_DIR`` (else ``numba`` in the user's cache folder) ``/yacht-env-<digest of the sources>``."""
    base = os.environ.get("NUMBA_CACHE_DIR") or Path(platformdirs.user_cache_dir("yacht-env")) / "numba"
    return Path(base).expanduser() / f"yacht-env-{source_digest()[:16]}"


def kernel_cached(module_file: str, kernel: str) -> bool:
    """Whether numba's cache holds ``kernel`` of ``module_file`` for the current sources (in the subfolder numba names
    after the module's folder), looked up without importing numba; False under ``NUMBA_DISABLE_JIT``."""
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return False
    parent, stem = os.path.dirname(os.path.abspath(module_file)), Path(module_file).stem
    named = hashlib.sha1(parent.encode(), usedforsecurity=False).hexdigest()
    folder = cache_root() / f"{os.path.basename(parent)}_{named}"
    return all(any(folder.glob(f"{stem}.{kernel}-*{ext}")) for ext in (".nbi", ".nbc"))


class _Compiles:
    seconds, depth, announced = 0.0, 0, False


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

    root = cache_root()
    try:  # new sources: the folders made over 30 days ago go (one still in use is made again)
        for old in [] if root.exists() else root.parent.glob("yacht-env-*"):
            if time.time() - old.stat().st_mtime > 30 * 86400:
                shutil.rmtree(old, ignore_errors=True)
    except OSError:  # a read-only folder, or one another process removed
        pass
    return Announced


def cached_njit(f: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``numba.njit(f, cache=True, **options)`` cached in :func:`cache_root`; without ``f``, the decorator."""
    if f is None:
        return functools.partial(cached_njit, **options)
    import numba
    from numba.core import config
    pipeline, before = _pipeline(), config.CACHE_DIR
    config.CACHE_DIR = str(cache_root())  # numba reads it once, as it makes this kernel's cache
    try:
        return numba.njit(f, cache=True, pipeline_class=pipeline, **options)
    finally:
        config.CACHE_DIR = before
