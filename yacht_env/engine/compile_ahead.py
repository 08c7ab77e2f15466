"""Compiling ahead: when a process first compiles one of the engine's kernels (numba's cache is empty), a helper
process compiles the other big kernels of first use into the cache meanwhile, on another core.

First use compiles three big kernels: the turn search's two (the solver's sweep and the decisions of every
turn-search agent) and the vector engine's step, each a few seconds. A new user's first command needs two or three of
them, one after the other; numba compiles one at a time per process. The helper starts when a process imports a
module whose big kernel is not in the cache, or at its first compilation, whichever comes first. It takes the
kernels in order, going past one that the process is compiling already (:mod:`.compile_ahead_tasks`); the process,
when it comes to a kernel the helper is compiling, waits for it and loads it from the cache (:mod:`.numba_cache`
holds each kernel's lock while one process compiles it). Nothing is compiled twice, and the kernels are the same as
when the process compiles them itself (the helper's tasks call them with the types the engine passes;
``tests/test_compile_ahead.py`` holds it).

The helper runs only with two or more cores available, with file locks (not on Windows), and unless
``YACHT_ENV_COMPILE_AHEAD=0``; it is stopped when its process exits.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

ENV = "YACHT_ENV_COMPILE_AHEAD"
"""Set to ``0`` for no helper process."""
LOG_ENV = "YACHT_ENV_COMPILE_AHEAD_LOG"
"""A file to append the helper's stderr to (else it is discarded): what it compiled, skipped or failed on."""
_STARTED = False
_HELPER: subprocess.Popen[bytes] | None = None
KERNELS = {"turn_search": ("_turn_values_kernel", "_decide_kernel"), "batch_kernels": ("step_games",)}
"""The helper's kernels by module: a process that imports one of these modules while one of its kernels is not in
numba's cache starts the helper there (it is about to need it), ahead of its first compilation."""
TASKS_FILE = "compile_ahead_tasks.py"
"""The helper's script, beside this module (:mod:`yacht_env.engine.compile_ahead_tasks`)."""


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def enabled() -> bool:
    """Whether this process may start a helper (see the module docstring)."""
    from yacht_env.file_lock import LOCKS_WORK

    return os.environ.get(ENV, "1") != "0" and LOCKS_WORK and _cores() >= 2 and bool(sys.executable)


def start_if_missing(stem: str, cached: Iterable[str]) -> None:
    """:func:`start` if the module ``stem`` holds a helper's kernel that is not among the cache files ``cached``."""
    names = tuple(cached)
    if any(not any(n.startswith(f"{stem}.{k}-") for n in names) for k in KERNELS.get(stem, ())):
        start()


def start() -> None:
    """Start the helper, once per process, where :func:`enabled`."""
    global _STARTED, _HELPER
    if _STARTED:
        return
    _STARTED = True
    if not enabled():
        return
    here = Path(__file__).resolve()
    root = str(here.parents[2])  # where this package is imported from, for the helper too
    run = "import runpy, sys; sys.path.append(sys.argv.pop(1)); runpy.run_path(sys.argv[1], run_name='__main__')"
    log = os.environ.get(LOG_ENV)
    try:
        with open(log, "ab") if log else open(os.devnull, "wb") as err:
            _HELPER = subprocess.Popen([sys.executable, "-c", run, root, str(here.with_name(TASKS_FILE))],
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                       env=dict(os.environ, **{ENV: "0"}))
    except OSError:
        return
    atexit.register(stop)


def stop() -> None:
    """Ask the helper to stop if it still runs (it exits at its next Python step, recording what it saved; this
    process does not wait for it)."""
    helper = _HELPER
    if helper is not None and helper.poll() is None:
        helper.terminate()


__all__ = ["ENV", "LOG_ENV", "enabled", "start", "stop"]
