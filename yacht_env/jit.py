"""The turn logic of :mod:`yacht_env.rules` compiled once by numba, for every compiled engine, and the guard that
keeps numba's on-disk cache of those engines fresh.

:func:`legal_bits`, :func:`box_score`, :func:`points_for` (and :func:`joker_applies`, which they call) are the
functions of ``rules.py`` themselves, not rewrites: each is rebuilt from its own code object over a copy of the
module's globals in which its callees are the compiled versions, so the source, and so every rule, stays the one in
``rules.py`` (tracebacks and ``inspect`` point there). The solver (:mod:`yacht_env.solver.kernels`), the vector
engine and the single environment (:mod:`yacht_env.vector.kernels`) and the TD learner all call these.

How they are compiled, and why: ``_nrt=False``, without numba's runtime. They allocate nothing, so they need none,
and without it they take their array arguments (rows of the score tables, views made by the caller) with no
reference counting; with it, every call paid atomic reference-count updates for those arrays (``points_for`` ran
about 20 times slower in the vector engine). They are plain functions, not ``inline="always"``: LLVM inlines them
into the vector engine's kernels anyway (no call is left in ``step_chunks``), while the solver's kernels, which keep
the runtime because they allocate, ran 30% faster calling them than with them inlined at numba's IR level (where the
caller's reference counting applies to the inlined code). They are not cached on disk: numba would key that cache on
``rules.py`` and their bytecode, not on these options; they are compiled into their callers' cached kernels anyway,
and compiling the stand-alone versions (for calls from Python) takes a moment on first use.

numba's on-disk cache of a kernels module is checked against that module's own source only, yet its kernels contain
the rules, the dice tables and whatever else they inline. :func:`expire_stale_numba_cache` (called by each kernels
module before it compiles anything) drops the module's cached kernels when one of those sources changed, so that
numba compiles afresh instead of loading kernels built on old code.
"""

from __future__ import annotations

import hashlib
import types
from collections.abc import Iterable
from pathlib import Path

import numba

from yacht_env import dice as D
from yacht_env import rules as R
from yacht_env.rules import turn as RT

TURN_LOGIC = RT.TURN_LOGIC
_RULE_MODULES = (R, RT, *(getattr(R, m) for m in ("categories", "ruleset", "definitions")))


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


def expire_stale_numba_cache(path: str, deps: Iterable[types.ModuleType] = ()) -> None:
    """Drop numba's cached kernels of the module at ``path`` if ``rules.py``, ``dice.py``, this file or one of the
    modules ``deps`` changed since they were cached. Call it before the module defines any ``cache=True`` kernel.

    numba checks a cached kernel against its own module's source only (its content from numba 0.6x on, its mtime
    before), so touching that file is not enough; instead a digest of the sources the kernels depend on is kept
    next to the cache (``<module>.deps.sha256``) and, when it differs, the module's cache files are deleted, so that
    numba compiles afresh. A read-only installation is left alone (its files do not change either)."""
    h = hashlib.sha256()
    sources = [*(m.__file__ for m in _RULE_MODULES), D.__file__, __file__,
               *(getattr(m, "__file__", None) for m in deps)]
    for src in sources:
        if src:
            h.update(Path(src).read_bytes())
    digest = h.hexdigest()
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


def compile_rules() -> dict[str, numba.core.registry.CPUDispatcher]:
    """Compile the turn logic of :mod:`yacht_env.rules` (see the module docstring); returns the dispatchers by
    name. The module does it once at import; use its :data:`legal_bits` etc."""
    glob = dict(vars(RT))
    out: dict[str, numba.core.registry.CPUDispatcher] = {}
    for name in TURN_LOGIC:
        f = getattr(RT, name)
        g = types.FunctionType(f.__code__, glob, name, f.__defaults__, f.__closure__)
        g.__qualname__ = f.__qualname__
        g.__module__ = f.__module__
        g.__doc__ = f.__doc__
        glob[name] = out[name] = numba.njit(_nrt=False)(g)
    return out


_RULES = compile_rules()
joker_applies = _RULES["joker_applies"]
legal_bits = _RULES["legal_bits"]
box_score = _RULES["box_score"]
points_for = _RULES["points_for"]

__all__ = ["TURN_LOGIC", "box_score", "compile_rules", "expire_stale_numba_cache", "joker_applies", "legal_bits",
           "points_for"]
