"""Work sharing for the vector engine's kernels: the calling thread plus helper threads take chunks of games from an
atomic counter.

Why not numba's ``parallel=True``: an OpenMP-style parallel region ends at a barrier that waits for every thread of
the team, so on a busy machine (other processes, or a learner's own threads) one descheduled worker stalls every step
for a scheduler time slice; measured on the 2-core development machine under load: 0.2-0.7 M steps/s with two
threads against 4.7 M/s with one. Here the calling thread never waits for a helper that has not claimed work: it
takes whatever chunks are left, so the worst case is the one-thread speed, and an idle machine gets all its cores.

A *chunk kernel* is a ``nogil`` numba function ``fn(counter, n_chunks, chunk, *args)`` that loops
``c = atomic_add(counter, 0, 1)`` while ``c < n_chunks``, does chunk ``c`` (games ``c * chunk`` up to
``(c + 1) * chunk``) and then ``atomic_add(counter, 1, 1)``; :class:`WorkPool` runs it.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

CHUNK = 64  # games per work item: a few microseconds of work, so a preempted helper holds back little


@intrinsic
def atomic_add(typingctx, arr, idx, val):
    """``old = arr[idx]; arr[idx] += val`` as one sequentially consistent atomic operation (int64 1-d array)."""
    if not (isinstance(arr, types.Array) and arr.dtype == types.int64 and arr.ndim == 1):
        return None
    if not isinstance(idx, types.Integer) or not isinstance(val, types.Integer):
        return None
    sig = types.int64(arr, idx, val)

    def codegen(context, builder, signature, args):
        arr_t = signature.args[0]
        ary = context.make_array(arr_t)(context, builder, args[0])
        i = context.cast(builder, args[1], signature.args[1], types.intp)
        v = context.cast(builder, args[2], signature.args[2], types.int64)
        ptr = cgutils.get_item_pointer(context, builder, arr_t, ary, [i])
        return builder.atomic_rmw("add", ptr, v, "seq_cst")

    return sig, codegen


@numba.njit(cache=True, nogil=True)
def finished_chunks(counter: np.ndarray) -> int:
    """Chunks finished so far (an atomic read, so the chunks' writes are visible once it reports them)."""
    return atomic_add(counter, 1, 0)


class WorkPool:
    """Runs chunk kernels on the calling thread and ``helpers`` daemon threads."""

    def __init__(self, helpers: int) -> None:
        self.helpers = max(0, int(helpers))
        self._job: tuple[Any, ...] | None = None
        self._lock = threading.Lock()
        self._events = [threading.Event() for _ in range(self.helpers)]
        self._threads = []
        ref = weakref.ref(self)
        for ev in self._events:
            t = threading.Thread(target=_helper_loop, args=(ref, ev), daemon=True, name="yacht-vector-helper")
            t.start()
            self._threads.append(t)

    def run(self, fn: Callable[..., None], n_items: int, args: tuple[Any, ...], chunk: int = CHUNK) -> None:
        """Run chunk kernel ``fn`` over ``n_items`` games; returns once every chunk is done."""
        n_chunks = (n_items + chunk - 1) // chunk
        counter = np.zeros(2, dtype=np.int64)
        if self.helpers == 0 or n_chunks < 2 or not self._lock.acquire(blocking=False):
            fn(counter, n_chunks, chunk, *args)  # alone (or another thread is using the helpers)
            return
        try:
            self._job = (fn, counter, n_chunks, chunk, args)
            for ev in self._events:
                ev.set()
            fn(counter, n_chunks, chunk, *args)
            # only chunks a helper has claimed can be unfinished here
            while finished_chunks(counter) < n_chunks:
                time.sleep(0)
        finally:
            self._job = None
            self._lock.release()

    def close(self) -> None:
        """Stop the helper threads."""
        self._job = None
        self.helpers = 0
        for ev in self._events:
            ev.set()


def _helper_loop(ref: weakref.ref[WorkPool], ev: threading.Event) -> None:
    while True:
        ev.wait()
        ev.clear()
        pool = ref()
        if pool is None or pool.helpers == 0:
            return
        job = pool._job
        del pool
        if job is not None:
            fn, counter, n_chunks, chunk, args = job
            fn(counter, n_chunks, chunk, *args)  # a stale job finds no chunk left and returns at once


_POOLS: dict[int, WorkPool] = {}
_POOLS_LOCK = threading.Lock()


def default_threads() -> int:
    """Threads to use by default: numba's thread count (``NUMBA_NUM_THREADS``, else the CPUs available)."""
    return max(1, int(numba.config.NUMBA_NUM_THREADS))


def get_pool(threads: int) -> WorkPool:
    """The shared pool that runs on ``threads`` threads in all (the caller plus ``threads - 1`` helpers)."""
    with _POOLS_LOCK:
        pool = _POOLS.get(threads)
        if pool is None:
            pool = _POOLS[threads] = WorkPool(threads - 1)
        return pool
