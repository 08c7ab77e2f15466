"""numba's on-disk cache of the engine's kernels: kept fresh when a source changes, and dropped where it is damaged.

numba's on-disk cache of a kernels module is checked against that module's own source only, yet its kernels contain
the rules, the dice tables, the encoder and whatever else they inline. :func:`guard_numba_cache` (called by each
module with cached kernels before it compiles anything) drops the module's cached kernels when any source of the
package changed, so that numba compiles afresh instead of loading kernels built on old code.

numba also trusts its cache files blindly: a truncated or bit-flipped ``.nbi`` / ``.nbc`` file (a full disk, a crash
before the file reached the disk, a bad sector) makes every later run fail (``UnpicklingError``, ``EOFError``, an
LLVM bitcode parsing error) or, worse, load damaged machine code. So the guard keeps a manifest of the module's cache
files beside them (``<module>.cache.json``: the sources' digest and the SHA-256 of every cache file numba wrote),
and before numba reads anything it deletes the files that are not in the manifest or do not match it: numba then
compiles those kernels again and rewrites them. The manifest is brought up to date when the process exits
(:mod:`atexit`), with the files numba wrote meanwhile; a process killed before that leaves its new files out of the
manifest, and the next run compiles them again (slower, never wrong). Why a manifest rather than catching the
failure: a flipped byte in machine code need not fail to load at all, and the check runs before numba unpickles
anything, with no reliance on numba's internals beyond its file names.

Kept for what it guards, not for speed (it adds a check of the cache files to every start): numba's own cache in a
folder keyed by the sources' digest would keep it fresh too, but a damaged file fails every later run (measured:
``python benchmarks/numba_cache_damage.py``: an ``.nbc`` cut in half, or with one byte flipped, fails each of the
next runs with ``UnpicklingError`` / ``can't skip to bit``); under the guard the same damage is compiled again
(``tests/test_numba_cache.py``).

Several processes may compile into one cache at once (two test workers, two commands on a cold cache). Saving a
kernel and recording it in the manifest (:func:`_save_overload`), and checking the files, hold the module's lock (a
file beside the manifest), so no process sees a file that is written but not yet in the manifest, and no two
processes overwrite each other's records.

A first use compiles: the first compilation of a process is announced once on stderr (what it compiles, and that it
happens once per machine), a long one says "still compiling" every few seconds, and the seconds spent compiling are
kept (:func:`compile_seconds`, :class:`Stopwatch`) so that no reported time counts them.
"""

from __future__ import annotations

import atexit
import hashlib
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from yacht_env.file_lock import FileLock
from yacht_env.jit.cache_manifest import (
    MANIFEST_SUFFIX,
    _read_manifest,
    _write_manifest,
    source_digest,
)
from yacht_env.jit.notice import SlowNotice, say


def _numba_cache_dir(path: str) -> Path:
    """The folder where numba caches the kernels of the module at ``path`` (as numba's own locators find it:
    ``NUMBA_CACHE_DIR`` if set, else ``__pycache__`` beside the module, else numba's user-wide folder)."""
    try:
        from numba.core import caching

        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in numba 0.61
        for cls in impl._locator_classes:
            loc = cls.from_function(_numba_cache_dir, path)
            if loc is not None:
                return Path(loc.get_cache_path())
    except Exception:  # a numba without these internals: its default place
        pass
    return Path(path).parent / "__pycache__"


def _cache_files(folder: Path, stem: str) -> list[Path]:
    """numba's index and data files of the module ``stem`` in ``folder`` (not its temporary files)."""
    return sorted(p for p in (*folder.glob(f"{stem}.*.nbi"), *folder.glob(f"{stem}.*.nbc")) if p.is_file())


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _signature(path: Path) -> tuple[int, int, int]:
    """What changes when numba replaces a file (it writes a new one and renames it over the old)."""
    st = path.stat()
    return st.st_ino, st.st_size, st.st_mtime_ns


class _Guarded:
    """The cache files of one guarded module as they were checked, to add what numba writes later to the manifest
    at exit."""

    def __init__(self, folder: Path, stem: str, digest: str, seen: dict[str, tuple[int, int, int]]) -> None:
        self.folder, self.stem, self.digest, self.seen = folder, stem, digest, seen

    def lock(self) -> FileLock:
        """The lock of the module's cache files and manifest: held while one process checks them, or saves a kernel
        and records it, so that no process ever sees a file that is written but not yet in the manifest."""
        return _module_lock(self.folder, self.stem)

    def record(self) -> None:
        """:meth:`record_locked` under :meth:`lock`."""
        try:
            with self.lock():
                self.record_locked()
        except OSError:  # a read-only or vanished folder: the next run checks again
            pass

    def record_locked(self) -> None:
        """Add the files numba wrote since the check to the manifest (read afresh: another process may have added
        its own), and drop those that are gone."""
        try:
            now = {p.name: p for p in _cache_files(self.folder, self.stem)}
            changed = [n for n, p in now.items() if self.seen.get(n) != _signature(p)]
            if not changed and set(now) == set(self.seen):
                return
            path = self.folder / f"{self.stem}{MANIFEST_SUFFIX}"
            manifest = _read_manifest(path)
            if manifest is None or manifest["sources"] != self.digest:
                return  # a run of other sources took the folder over since: its files are not ours to vouch for
            files = {n: h for n, h in manifest["files"].items() if n in now}  # type: ignore[union-attr]
            seen = {n: _signature(p) for n, p in now.items()}
            files.update({n: _sha256(now[n]) for n in changed})
            _write_manifest(path, self.digest, files)
            self.seen = seen
        except OSError:  # a read-only or vanished folder: the next run checks again
            pass


_GUARDED: dict[tuple[Path, str], _Guarded] = {}
_NOTED = False


@atexit.register
def _record_all() -> None:
    """At exit: whatever numba wrote that the saves' hook (below) did not see."""
    for g in _GUARDED.values():
        g.record()


def _module_lock(folder: Path, stem: str) -> FileLock:
    return FileLock(folder / f"{stem}.cache.lock")


def _guarded_of(cache: object) -> _Guarded | None:
    """The guarded module whose kernel ``cache`` (a numba ``FunctionCache``) belongs to, if any."""
    try:
        key = (Path(cache._cache_path), Path(cache._py_func.__code__.co_filename).stem)  # type: ignore[attr-defined]
    except (AttributeError, TypeError):
        return None
    return _GUARDED.get(key)


def _save_overload(cache: Any, sig: Any, data: Any) -> None:
    """numba's save, and the files it wrote added to the manifest at once, under the module's lock (so that another
    process started meanwhile finds them vouched for)."""
    guarded = _guarded_of(cache)
    lock = guarded.lock() if guarded is not None else None
    try:
        if lock is not None:
            lock.acquire(float("inf"))
    except OSError:  # a folder where no lock file can be made: numba's own save, recorded at exit
        lock = None
    try:
        _SAVE(cache, sig, data)
        if lock is not None and guarded is not None:
            guarded.record_locked()
    finally:
        if lock is not None:
            lock.release()


def _install() -> Any:
    """Route numba's saves of cached functions through :func:`_save_overload` (it does nothing more for the functions
    of modules that are not guarded); numba's own save, which it calls."""
    try:
        from numba.core.caching import FunctionCache
    except ImportError:  # a numba without it: the files are recorded at exit
        return None
    save = FunctionCache.save_overload
    if not getattr(save, "_yacht_env", False):
        _save_overload._yacht_env = True  # type: ignore[attr-defined]
        FunctionCache.save_overload = _save_overload
    return save


_SAVE = _install()


def guard_numba_cache(path: str, extra: Iterable[str | None] = ()) -> None:
    """Check numba's cached kernels of the module at ``path`` before it compiles anything (see the module
    docstring): drop them all if any source they may contain changed since they were cached, and drop every file
    that is not the one numba wrote (not in the manifest, or another SHA-256). Call it before the module defines
    any ``cache=True`` kernel. A damaged cache gets one line on stderr; a read-only installation is left alone (its
    files do not change either)."""
    global _NOTED
    digest = source_digest(extra)
    folder = _numba_cache_dir(path)
    stem = Path(path).stem
    manifest_path = folder / f"{stem}{MANIFEST_SUFFIX}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with _module_lock(folder, stem):
            manifest = _read_manifest(manifest_path)
            fresh = manifest is not None and manifest["sources"] == digest
            known: dict[str, str] = dict(manifest["files"]) if fresh else {}  # type: ignore[arg-type, index]
            kept: dict[str, str] = {}
            damaged = 0
            for f in _cache_files(folder, stem):
                want = known.get(f.name)
                if want is not None and _sha256(f) == want:
                    kept[f.name] = want
                    continue
                damaged += fresh  # with stale sources every file goes, and that is no damage
                f.unlink(missing_ok=True)
            (folder / f"{stem}.deps.sha256").unlink(missing_ok=True)  # the marker of earlier versions
            if not fresh or kept != known:
                _write_manifest(manifest_path, digest, kept)
            _GUARDED[(folder, stem)] = _Guarded(folder, stem, digest,
                                                {n: _signature(folder / n) for n in kept})
    except OSError:  # a read-only installation
        return
    if damaged and not _NOTED:
        _NOTED = True
        _WATCH.announced = True  # this note says it: no second line when the compilation starts
        print(f"yacht-env: numba's cache of the kernels had {damaged} damaged or unknown file(s) in {folder} "
              "(dropped): compiling those kernels again...", file=sys.stderr, flush=True)


# ---- first use: compiling is announced once and its time kept apart ------------------------------------------------


_KERNELS_OF = {
    "batch_kernels": "the vector engine", "game": "the vector engine", "batch": "the vector engine",
    "one_game": "the vector engine", "pcg64": "the random number generator", "sampler": "the dice sampler",
    "rule_tables": "the rule tables", "self_play": "TD self-play", "turn_search": "the turn search",
    "turn_successors": "the turn search", "turn_tables": "the turn search", "state_search": "the turn search",
}
"""What the kernels of a module of :mod:`yacht_env.engine`, :mod:`yacht_solver.search` or :mod:`yacht_env.jit` (by its
last name) are for, in the words of the compile announcement."""


_OURS = (__package__.split(".")[0], "yacht_solver")  # the packages whose kernels the announcement names in words


def kernels_of(module: str) -> str:
    """What the kernels of ``module`` are for, e.g. ``"the vector engine"`` (the solver's own modules: ``"the
    solver"``; any other: the module's name)."""
    package, _, name = module.rpartition(".")
    if package.split(".")[0] not in _OURS:
        return module
    if name in _KERNELS_OF:
        return _KERNELS_OF[name]
    return "the solver" if package == "yacht_solver" else module


def _compiled(ev: Any) -> tuple[str, Path | None]:
    """What the compilation of numba event ``ev`` is for, and where numba caches it (None if unknown)."""
    try:
        f = ev.data["dispatcher"].py_func
        return kernels_of(f.__module__), _numba_cache_dir(f.__code__.co_filename)
    except (AttributeError, KeyError, TypeError):
        return "numba kernels", None


class _CompileWatch:
    """A numba event listener: announces the first compilation of the process on stderr, once (what it compiles,
    and that it happens once per machine: numba caches the kernels), and adds up the seconds spent compiling
    (outermost compilations only), so that reported times can leave them out. A long compilation later says
    "still compiling" with what it compiles, never a second announcement."""

    def __init__(self) -> None:
        from numba.core import event

        self.seconds = 0.0
        self.announced = False
        self._depth = 0
        self._t0 = 0.0
        self._notice: SlowNotice | None = None
        watch = self

        class Listener(event.Listener):
            def on_start(self, ev: event.Event) -> None:
                watch._start(ev)

            def on_end(self, ev: event.Event) -> None:
                watch._end()

        event.register("numba:compile", Listener())

    def _start(self, ev: Any = None) -> None:
        if self._depth == 0:
            self._t0 = time.perf_counter()
            what, folder = _compiled(ev)
            if not self.announced:
                self.announced = True
                where = f"numba caches them in {folder}" if folder is not None else "numba caches them"
                say(f"compiling the numba kernels this command needs, starting with {what}: once per machine "
                    f"({where}; later commands load them)...")
            self._notice = SlowNotice(f"compiling numba kernels: {what}", after=_STILL_EVERY, every=_STILL_EVERY,
                                      said=True, before=self.seconds)
            self._notice.__enter__()
        self._depth += 1

    def _end(self) -> None:
        self._depth = max(0, self._depth - 1)
        if self._depth == 0:
            self.seconds += time.perf_counter() - self._t0
            if self._notice is not None:
                self._notice.__exit__()
                self._notice = None


_STILL_EVERY = 4.0  # seconds between the "still compiling" lines of a long compilation
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
