"""numba's on-disk cache of the package's kernels, in a folder named by the sources, and their first compile announced.

numba checks a cached kernel against its own module only, not against the modules it inlines (the rules, the dice
tables, the encoder): after an edit of one of those it loads the kernel built on the old code (numba issue #1833;
``python benchmarks/numba_cache_stale.py`` shows it). So every kernel of ``yacht_env`` and ``yacht_solver`` is made by
:func:`cached_njit`, which has numba cache it under :func:`cache_root`: ``$NUMBA_CACHE_DIR`` (else the user's cache
folder) ``/yacht-env-<digest>``, the digest of every source of the two packages, read once per process. Changed
sources name a new folder, where no stale kernel can be found; the folders of sources unused for a month are removed.
Other numba functions of the process keep numba's own cache places.

A real compile of one of these kernels (not a load from the cache) is announced on stderr once per process (what it
compiles, that it happens once per machine, and where numba caches it), a long one says "still compiling" every few
seconds, and the seconds are kept (:func:`compile_seconds`) so that no reported time counts them. This module imports
numba only when it makes a kernel: :func:`kernel_cached` looks into the cache without it.
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

from yacht_env.jit.notice import SlowNotice, say

_PACKAGE = Path(__file__).resolve().parents[1]
_SOURCES = (_PACKAGE, _PACKAGE.parent / "yacht_solver")  # the solver's kernels inline the same compiled rules
_KEEP_S = 30 * 86400  # a cache folder of other sources unused this long is removed
_STILL_EVERY = 4.0  # seconds between the "still compiling" lines of a long compile
_WHAT = {"batch_kernels": "the vector engine", "game": "the vector engine", "pcg64": "the random number generator",
         "sampler": "the dice sampler", "rule_tables": "the rule tables", "self_play": "TD self-play",
         "turn_search": "the turn search", "turn_successors": "the turn search", "turn_tables": "the turn search",
         "state_search": "the turn search"}
"""What the kernels of a module (by its last name) are for, in the words of the announcement."""


@functools.cache
def source_digest() -> str:
    """SHA-256 of every Python source of ``yacht_env`` and ``yacht_solver`` (names and bytes): what kernels contain."""
    h = hashlib.sha256()
    for src in sorted(p for d in _SOURCES for p in d.rglob("*.py")):
        data = src.read_bytes()
        h.update(f"{src.relative_to(_PACKAGE.parent).as_posix()}\0{len(data)}\0".encode() + data)
    return h.hexdigest()


def cache_root() -> Path:
    """The folder numba caches the package's kernels in, for the current sources."""
    import platformdirs

    base = os.environ.get("NUMBA_CACHE_DIR") or Path(platformdirs.user_cache_dir("yacht-env")) / "numba"
    return Path(base).expanduser() / f"yacht-env-{source_digest()[:16]}"


def numba_cache_folder(module_file: str) -> Path:
    """Where numba puts the cached kernels of ``module_file``: its subfolder of :func:`cache_root` for the module's
    folder (``<folder name>_<SHA-1 of the folder's path>``, as numba names it)."""
    folder = os.path.dirname(os.path.abspath(module_file))
    named = hashlib.sha1(folder.encode(), usedforsecurity=False).hexdigest()
    return cache_root() / f"{os.path.basename(folder)}_{named}"


def kernel_cached(module_file: str, kernel: str) -> bool:
    """Whether numba's cache holds ``kernel`` of ``module_file`` for the current sources (its index and data files),
    looked up without importing numba; False where numba compiles nothing (``NUMBA_DISABLE_JIT``)."""
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return False
    folder, stem = numba_cache_folder(module_file), Path(module_file).stem
    return all(any(folder.glob(f"{stem}.{kernel}-*{ext}")) for ext in (".nbi", ".nbc"))


class _Compiles:
    """This process's compiles of the package's kernels: seconds, nesting depth, whether announced."""

    seconds, depth, announced = 0.0, 0, False


def compile_seconds() -> float:
    """Seconds this process has spent compiling the package's kernels so far (subtract it from a measured time)."""
    return _Compiles.seconds


def _compile(compile_extra: Callable[[Any], Any], func: Callable[..., Any]) -> Any:
    """numba's ``compile_extra(func)``, the outermost compile announced, timed, and said while it lasts."""
    if _Compiles.depth:
        return compile_extra(func)
    module = func.__module__
    what = _WHAT.get(module.rpartition(".")[2], "the solver" if module.startswith("yacht_solver") else module)
    if not _Compiles.announced:
        _Compiles.announced = True
        say(f"compiling the numba kernels this command needs, starting with {what}: once per machine (numba caches "
            f"them in {cache_root()}; later commands load them)...")
    t0, _Compiles.depth = time.perf_counter(), 1
    try:
        with SlowNotice(f"compiling numba kernels: {what}", after=_STILL_EVERY, every=_STILL_EVERY, said=True,
                        before=_Compiles.seconds):
            return compile_extra(func)
    finally:
        _Compiles.depth = 0
        _Compiles.seconds += time.perf_counter() - t0


@functools.cache
def _pipeline() -> type:
    """numba's compiler pipeline with :func:`_compile` around it (numba's ``pipeline_class`` option)."""
    from numba.core.compiler import Compiler

    class Announced(Compiler):
        def compile_extra(self, func: Callable[..., Any]) -> Any:
            return _compile(super().compile_extra, func)

    root = cache_root()
    try:  # once per process: this folder marked used, long-unused ones removed
        for old in root.parent.glob("yacht-env-*"):
            if old != root and time.time() - old.stat().st_mtime > _KEEP_S:
                shutil.rmtree(old, ignore_errors=True)
        if root.is_dir():
            os.utime(root)
    except OSError:  # a read-only or vanished folder
        pass
    return Announced


def cached_njit(f: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``numba.njit(f, cache=True, **options)``, cached under :func:`cache_root` and its compiles announced; without
    ``f``, the decorator."""
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


__all__ = ["cache_root", "cached_njit", "compile_seconds", "kernel_cached", "numba_cache_folder", "source_digest"]
