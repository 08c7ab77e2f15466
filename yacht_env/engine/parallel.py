"""Work sharing for the vector engine's kernels: the calling thread plus helper threads take chunks of games from an
atomic counter.

Why not numba's ``parallel=True``: an OpenMP-style parallel region ends at a barrier that waits for every thread of
the team, so on a busy machine (other processes, or a learner's own threads) one descheduled worker stalls every step
for a scheduler time slice; measured on the 2-core development machine under load: 0.2-0.7 M steps/s with two
threads against 4.7 M/s with one. Here the calling thread never waits for a helper that has not claimed work: it
takes whatever chunks are left, so the worst case is the one-thread speed, and an idle machine gets all its cores.

Between jobs a helper spins for a short while (:data:`SPIN_CYCLES`, in a ``nogil`` numba loop on the job
number) before it blocks on its event; an idle pool blocks, burning no CPU.

A *chunk kernel* is a ``nogil`` numba function ``fn(counter, n_chunks, chunk, *args)`` over ``n`` games that loops
``lo, hi = claim_chunk(counter, n_chunks, chunk, n)`` while ``lo >= 0``, does games ``lo`` up to ``hi`` and then
``finish_chunk(counter)``; :class:`WorkPool` runs it. ``counter`` is :func:`new_counter`: the claimed and finished
counts sit on different cache lines, so that polling one does not slow the other.
"""

from __future__ import annotations

import platform
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from yacht_env.engine.cache import guard_numba_cache

guard_numba_cache(__file__)  # before any cached kernel below is compiled

CHUNK = 64  # games per work item: a few microseconds of work, so a preempted helper holds back little
FINISHED = 8  # index of the finished-chunks count in a counter (index 0: chunks claimed), 64 bytes further


def new_counter() -> np.ndarray:
    """A zeroed chunk counter for one run of a chunk kernel."""
    return np.zeros(FINISHED + 1, dtype=np.int64)


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


SPREAD = 8  # claims are dealt over this many regions of the batch (see chunk_index)


@numba.njit(cache=True, inline="always")
def chunk_index(c: int, n_chunks: int) -> int:
    """The chunk done for the ``c``-th claim: claims c, c + 1, ... (taken at about the same time by different
    threads) go to chunks in different regions of the batch, never neighbours, so that two threads do not write the
    same cache lines (the ends of neighbouring chunks of a one-byte array share lines unless 64-byte aligned): claim
    ``c`` is item ``c // SPREAD`` of region ``c % SPREAD``, the regions being the residue classes in order. A
    permutation of ``0..n_chunks - 1``."""
    q = c % SPREAD
    a, b = divmod(n_chunks, SPREAD)
    return q * a + min(q, b) + c // SPREAD


@numba.njit(cache=True, inline="always")
def claim_chunk(counter: np.ndarray, n_chunks: int, chunk: int, n: int) -> tuple[int, int]:
    """The next chunk of a chunk kernel as games ``(lo, hi)``, or ``(-1, -1)`` once every chunk is claimed."""
    c = atomic_add(counter, 0, 1)
    if c >= n_chunks:
        return -1, -1
    q = chunk_index(c, n_chunks)
    return q * chunk, min(n, (q + 1) * chunk)


@numba.njit(cache=True, inline="always")
def finish_chunk(counter: np.ndarray) -> None:
    """Count a chunk as done (after its writes: the atomic add orders them)."""
    atomic_add(counter, FINISHED, 1)


@intrinsic
def atomic_load(typingctx, arr, idx):
    """``arr[idx]`` as an atomic (acquire) load (int64 1-d array): polls without taking the cache line exclusively."""
    if not (isinstance(arr, types.Array) and arr.dtype == types.int64 and arr.ndim == 1):
        return None
    if not isinstance(idx, types.Integer):
        return None
    sig = types.int64(arr, idx)

    def codegen(context, builder, signature, args):
        arr_t = signature.args[0]
        ary = context.make_array(arr_t)(context, builder, args[0])
        i = context.cast(builder, args[1], signature.args[1], types.intp)
        ptr = cgutils.get_item_pointer(context, builder, arr_t, ary, [i])
        return builder.load_atomic(ptr, "acquire", 8)

    return sig, codegen


@numba.njit(cache=True, nogil=True)
def finished_chunks(counter: np.ndarray) -> int:
    """Chunks finished so far (an atomic read, so the chunks' writes are visible once it reports them)."""
    return atomic_load(counter, FINISHED)


_HAS_TSC = platform.machine().lower() in ("x86_64", "amd64")  # elsewhere the counter may trap in user space


@intrinsic
def _cycles(typingctx):
    """The time-stamp counter (``rdtsc``) on x86-64; 0 elsewhere (the spins are then bounded by their tries)."""
    sig = types.int64()

    def codegen(context, builder, signature, args):
        if not _HAS_TSC:
            return context.get_constant(types.int64, 0)
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(fn, [])

    return sig, codegen


SPIN_CYCLES = 150_000  # how long a helper spins for the next job before it blocks (about 50 us at 3 GHz): long
# enough to catch the next step of a loop that only samples actions in between, short enough to cost a learner that
# spends milliseconds between steps almost nothing. Measured with benchmarks/bench_engines.py on the idle 2-core
# machine, N=4096: 220-253x pyhtzee for Yacht with it against 185-232x without; with other processes busy on both
# cores, spinning (300_000) measured worse (median 5.6-5.9 M steps/s against 6.1-7.9 M without).
FINISH_SPIN_CYCLES = 100_000  # how long the caller spins for claimed chunks to finish before it sleeps-polls
_SPIN_TRIES = 50_000  # and at most this many looks (should the cycle counter not move)


@numba.njit(cache=True, nogil=True)
def _spin_while(arr: np.ndarray, idx: int, value: int, cycles: int) -> int:
    """Spin (without the GIL) while ``arr[idx] == value``, for at most about ``cycles`` cycles; return
    ``arr[idx]`` (atomic reads)."""
    t0 = _cycles()
    tries = 0
    while True:
        now = atomic_load(arr, idx)
        if now != value:
            return now
        tries += 1
        if tries >= _SPIN_TRIES or _cycles() - t0 > cycles:
            return now


@numba.njit(cache=True, nogil=True)
def _spin_finished(counter: np.ndarray, n_chunks: int, cycles: int) -> bool:
    """Spin (without the GIL) until ``n_chunks`` chunks are finished, for at most about ``cycles`` cycles;
    return whether they are."""
    t0 = _cycles()
    tries = 0
    while atomic_load(counter, FINISHED) < n_chunks:
        tries += 1
        if tries >= _SPIN_TRIES or _cycles() - t0 > cycles:
            return False
    return True


@numba.njit(cache=True, nogil=True)
def _atomic_add(arr: np.ndarray, idx: int, val: int) -> int:
    """:func:`atomic_add` callable from Python."""
    return atomic_add(arr, idx, val)


@numba.njit(cache=True, nogil=True)
def _post(ctl: np.ndarray) -> int:
    """Publish a new job (``ctl[0] += 1``, a full barrier) and return the sleeping helpers as a bit set
    (``ctl[1 + k]`` set while helper k blocks)."""
    atomic_add(ctl, 0, 1)
    sleeping = 0
    for k in range(1, ctl.shape[0]):
        if atomic_add(ctl, k, 0) != 0:
            sleeping |= 1 << (k - 1)
    return sleeping


class WorkPool:
    """Runs chunk kernels on the calling thread and ``helpers`` daemon threads.

    A helper that finished a job spins (without the GIL, on ``ctl[0]``, the job number) for up to
    :data:`SPIN_CYCLES` for the next one, then blocks on its event (``ctl[1 + k]`` tells :meth:`run` to set it).
    The calling thread still never waits for a helper that has not claimed a chunk."""

    def __init__(self, helpers: int) -> None:
        self.helpers = max(0, int(helpers))
        self._job: tuple[Any, ...] | None = None
        self._lock = threading.Lock()
        self._ctl = np.zeros(1 + self.helpers, dtype=np.int64)
        self._events = [threading.Event() for _ in range(self.helpers)]
        self._threads = []
        ref = weakref.ref(self)
        for k, ev in enumerate(self._events):
            t = threading.Thread(target=_helper_loop, args=(ref, ev, self._ctl, k), daemon=True,
                                 name="yacht-vector-helper")
            t.start()
            self._threads.append(t)

    def run(self, fn: Callable[..., None], n_items: int, args: tuple[Any, ...], chunk: int = CHUNK) -> None:
        """Run chunk kernel ``fn`` over ``n_items`` games; returns once every chunk is done."""
        n_chunks = (n_items + chunk - 1) // chunk
        counter = new_counter()
        if self.helpers == 0 or n_chunks < 2 or not self._lock.acquire(blocking=False):
            fn(counter, n_chunks, chunk, *args)  # alone (or another thread is using the helpers)
            return
        try:
            self._job = (fn, counter, n_chunks, chunk, args)
            sleeping = _post(self._ctl)
            if sleeping:
                for k, ev in enumerate(self._events):
                    if sleeping >> k & 1:
                        ev.set()
            fn(counter, n_chunks, chunk, *args)
            # only chunks a helper has claimed can be unfinished here: spin a little (a chunk takes microseconds),
            # then yield the CPU (a preempted helper)
            if not _spin_finished(counter, n_chunks, FINISH_SPIN_CYCLES):
                while finished_chunks(counter) < n_chunks:
                    time.sleep(0)
        finally:
            self._job = None
            self._lock.release()

    def close(self) -> None:
        """Stop the helper threads."""
        self._job = None
        self.helpers = 0
        _post(self._ctl)
        for ev in self._events:
            ev.set()


def _helper_loop(ref: weakref.ref[WorkPool], ev: threading.Event, ctl: np.ndarray, k: int) -> None:
    seen = 0
    while True:
        seq = _spin_while(ctl, 0, seen, SPIN_CYCLES)
        if seq == seen:  # no job for a while: block until run() sets the event
            _atomic_add(ctl, 1 + k, 1)
            seq = _atomic_add(ctl, 0, 0)
            if seq == seen:
                ev.wait()
            ev.clear()
            _atomic_add(ctl, 1 + k, -1)
            seq = _atomic_add(ctl, 0, 0)
            if seq == seen:
                continue
        seen = seq
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


PARALLEL_MIN_GAMES = 512  # below this many games one thread does it all (handing work over costs more)


def run_chunks(fn: Callable[..., None], n: int, args: tuple[Any, ...], threads: int | None = None,
               chunk: int = CHUNK, min_parallel: int = PARALLEL_MIN_GAMES) -> None:
    """Run chunk kernel ``fn`` over ``n`` items (games, states) in chunks of ``chunk`` on up to ``threads`` threads
    (default: :func:`default_threads`; one below ``min_parallel`` items)."""
    threads = default_threads() if threads is None else threads
    if threads <= 1 or n < min_parallel:
        fn(new_counter(), 1, max(n, 1), *args)
    else:
        get_pool(threads).run(fn, n, args, chunk)
