"""Does the engine's hand-made machinery pay? Each piece against what numba gives without it, measured here.

    python benchmarks/bench_machinery.py [--seconds 2] [--num-envs 4096] [--json out.json]

Rows (steps or operations per second of CPU or wall time, best of several rounds):

- threads: the vector engine's step on the project's work pool (``yacht_env.engine.parallel``, the caller plus
  helpers that spin briefly on ``rdtsc`` between steps) against the same per-game step under numba's own
  ``prange`` (``parallel=True``), both on 2 threads, and one thread;
- masks: the legal-action mask written 8 bytes per store (``load_u64`` / ``store_u64``) against a loop per action;
- dice part: the 39 dice and rolls floats of the observation copied by one ``memcpy`` (``copy_row``) against an
  element loop;
- final rows: the ``final_obs`` rows of running games zeroed by fixed 8-float stores against an element loop;
- bits: popcount / count-trailing-zeros as one LLVM instruction against a loop over the bits;
- PCG64 in numba: the bit-for-bit contract needs numpy's PCG64 stream in every game; against drawing each game's
  dice from its numpy Generator in Python (the only other way to get the same dice).

The one-line comments at the call sites quote these factors.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable

import numba
import numpy as np
from numba import prange

from yacht_env.engine import parallel
from yacht_env.engine import pcg64 as P
from yacht_env.engine.game import step_game, write_mask
from yacht_env.engine.intrinsics import copy_row, ctz, popcount
from yacht_env.observation import HAND_PART
from yacht_env.vector import LegalActionSampler, YachtVectorEnv

ZERO8 = np.zeros((1, 8), dtype=np.float32)


def best_rate(fn: Callable[[], int], seconds: float, cpu: bool = True) -> float:
    """Operations per second of ``fn`` (it returns how many it did), best of rounds of about 0.2 s."""
    clock = time.process_time if cpu else time.perf_counter
    fn()
    best = 0.0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t0, n = clock(), 0
        while clock() - t0 < 0.2:
            n += fn()
        best = max(best, n / (clock() - t0))
    return best


@numba.njit(parallel=True, _nrt=True)
def step_prange(actions, st, tb, obs, mask, reward, terminated, truncated, illegal, final_obs, final_mask,
                final_card) -> None:
    """The vector step as numba's ``prange`` runs it (an OpenMP-style team with a barrier at the end)."""
    for i in prange(actions.shape[0]):
        step_game(i, actions[i], st, tb, obs, mask, reward, terminated, truncated, illegal, final_obs, final_mask,
                  final_card)


def threads_rows(n: int, seconds: float) -> dict[str, float]:
    out = {}
    for label, threads in (("work pool, 2 threads", 2), ("one thread", 1)):
        env = YachtVectorEnv(n, rules="yacht", num_threads=threads)
        env.reset(seed=0)
        sampler = LegalActionSampler(n, seed=0, threads=1)

        def step(env: YachtVectorEnv = env, sampler: LegalActionSampler = sampler) -> int:
            env.step(sampler(env._mask))
            return n

        out[f"vector step, {label} (steps/s wall)"] = best_rate(step, seconds, cpu=False)
        if threads == 2:
            spin = parallel.SPIN_CYCLES
            parallel.SPIN_CYCLES = 0  # helpers block at once between steps
            try:
                out["vector step, work pool without the spin, 2 threads (steps/s wall)"] = best_rate(step, seconds,
                                                                                                      cpu=False)
            finally:
                parallel.SPIN_CYCLES = spin
    env = YachtVectorEnv(n, rules="yacht", num_threads=1)
    env.reset(seed=0)
    sampler = LegalActionSampler(n, seed=0, threads=1)
    c = env.rules.num_categories
    bufs = (np.empty((n, env.obs_size), np.float32), np.empty(n), np.empty(n, np.bool_), np.empty(n, np.bool_),
            np.empty(n, np.bool_), np.empty((n, env.obs_size), np.float32), np.empty((n, env.num_actions), np.bool_),
            np.empty((n, c + 3), np.int32))
    numba.set_num_threads(2)

    def step_pr() -> int:
        a = sampler(env._mask)
        o, r, te, tr, il, fo, fm, fc = bufs
        step_prange(a, env._st, env._tb, o, env._mask, r, te, tr, il, fo, fm, fc)
        return n

    out["vector step, numba prange, 2 threads (steps/s wall)"] = best_rate(step_pr, seconds, cpu=False)
    return out


@numba.njit(_nrt=False)
def masks_wide(n, lbits, st, tb, out) -> None:
    for i in range(n):
        write_mask(i, lbits[i], out, st, tb)


@numba.njit
def masks_loop(n, lbits, st, tb, out) -> None:
    keep_mask, c = tb[5], tb[1][0]
    for i in range(n):
        row = out[i]
        if st[1][i] > 0 and lbits[i] != 0:
            krow = keep_mask[st[0][i]]
            for a in range(32):
                row[a] = krow[a]
        else:
            for a in range(32):
                row[a] = False
        for k in range(c):
            row[32 + k] = (lbits[i] >> k) & 1 == 1


@numba.njit(_nrt=False)
def copy_memcpy(n, rows, table, idx) -> None:
    for i in range(n):
        copy_row(rows[i], 0, table, idx[i], HAND_PART)


@numba.njit
def copy_loop(n, rows, table, idx) -> None:
    for i in range(n):
        r = rows[i]
        for j in range(HAND_PART):
            r[j] = table[idx[i], j]


@numba.njit(_nrt=False)
def zero_stores(n, rows) -> None:
    for i in range(n):
        r = rows[i]
        d = r.shape[0]
        for j in range(0, d - 8, 8):
            copy_row(r, j, ZERO8, 0, 8)
        copy_row(r, d - 8, ZERO8, 0, 8)


@numba.njit
def zero_loop(n, rows) -> None:
    for i in range(n):
        r = rows[i]
        for j in range(r.shape[0]):
            r[j] = 0.0


@numba.njit
def bits_llvm(x) -> np.int64:
    acc = np.int64(0)
    for i in range(x.shape[0]):
        v = x[i]
        acc += popcount(v) + ctz(v | np.int64(1) << 40)
    return acc


@numba.njit
def bits_loop(x) -> np.int64:
    acc = np.int64(0)
    for i in range(x.shape[0]):
        v = x[i]
        n = 0
        while v:
            v &= v - 1
            n += 1
        w = x[i] | np.int64(1) << 40
        z = 0
        while not (w >> z) & 1:
            z += 1
        acc += n + z
    return acc


def pair(fast: Callable[[], int], slow: Callable[[], int], seconds: float) -> tuple[float, float]:
    return best_rate(fast, seconds), best_rate(slow, seconds)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--num-envs", type=int, default=4096)
    p.add_argument("--json", help="also write the rows as JSON here")
    args = p.parse_args(argv)
    n, s = args.num_envs, args.seconds
    rows: dict[str, float] = threads_rows(n, s)

    env = YachtVectorEnv(n, rules="yahtzee", num_threads=1)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    lbits = rng.integers(0, 1 << 13, n).astype(np.int64)
    out = np.empty((n, env.num_actions), np.bool_)
    f, g = pair(lambda: (masks_wide(n, lbits, env._st, env._tb, out), n)[1],
                lambda: (masks_loop(n, lbits, env._st, env._tb, out), n)[1], s)
    rows["masks, 8 bytes per store (games/s)"], rows["masks, loop per action (games/s)"] = f, g
    table = env._t.hand_part
    idx = rng.integers(0, table.shape[0], n)
    obs = np.empty((n, env.obs_size), np.float32)
    f, g = pair(lambda: (copy_memcpy(n, obs, table, idx), n)[1], lambda: (copy_loop(n, obs, table, idx), n)[1], s)
    rows["dice part, memcpy (games/s)"], rows["dice part, element loop (games/s)"] = f, g
    f, g = pair(lambda: (zero_stores(n, obs), n)[1], lambda: (zero_loop(n, obs), n)[1], s)
    rows["final rows zeroed, 8-float stores (games/s)"], rows["final rows zeroed, element loop (games/s)"] = f, g
    x = rng.integers(0, 1 << 13, 1 << 16, dtype=np.int64)
    f, g = pair(lambda: (bits_llvm(x), x.size)[1], lambda: (bits_loop(x), x.size)[1], s)
    rows["bits, popcount + ctz instructions (per s)"], rows["bits, loops over the bits (per s)"] = f, g
    gens = [np.random.Generator(np.random.PCG64(np.random.SeedSequence(i))) for i in range(n)]
    state = P.seed_states(list(range(n)))

    def dice_numba() -> int:
        P.roll_dice(state[0], 5 * n)
        return n

    def dice_numpy() -> int:
        for gen in gens:
            gen.bit_generator.random_raw(5)
        return n

    rows["5 dice per game, numba PCG64 (games/s)"], rows["5 dice per game, numpy Generator per game (games/s)"] = \
        pair(dice_numba, dice_numpy, s)
    width = max(len(k) for k in rows)
    print(f"numba threads {numba.config.NUMBA_NUM_THREADS}, load average {os.getloadavg()[0]:.2f}")
    for key, v in rows.items():
        print(f"{key:<{width}}  {v:>16,.0f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
