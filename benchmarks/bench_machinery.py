"""Does the engine's hand-made machinery pay? What is left of it against the plain alternative, measured here.

    python benchmarks/bench_machinery.py [--seconds 2] [--num-envs 4096] [--json out.json]

Rows (operations per second of CPU or wall time, best of several rounds):

- threads: the vector engine's step on one thread (the engine as it is: its work pool of helper threads measured
  no faster on the commands users run and was removed) against the same per-game step under numba's ``prange``
  (``parallel=True``) on 2 threads;
- PCG64 in numba: the bit-for-bit contract needs numpy's PCG64 stream in every game; against drawing each game's
  dice from its numpy Generator in Python (the only other way to get the same dice).

The measurements on the commands users run (``yacht eval``, ``yacht solve``, the SB3 vector env) are in the
engine's history; the one-line comments at the call sites quote the factors.
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

from yacht_env.engine import pcg64 as PCG
from yacht_env.engine.batch import StepOutputs
from yacht_env.engine.game import step_game
from yacht_env.vector import LegalActionSampler, YachtVectorEnv


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
def step_prange(actions, st, ki, out) -> None:
    """The vector step as numba's ``prange`` runs it (an OpenMP-style team with a barrier at the end)."""
    for i in prange(actions.shape[0]):
        step_game(i, actions[i], st, ki, out)


def threads_rows(n: int, seconds: float) -> dict[str, float]:
    env = YachtVectorEnv(n, rules="yacht", autoreset_mode="same_step")
    env.reset(seed=0)
    sampler = LegalActionSampler(n, seed=0)

    def step() -> int:
        env.step(sampler(env._mask))
        return n

    out = {"vector step, one thread (steps/s wall)": best_rate(step, seconds, cpu=False)}
    c = env.rules.num_categories
    bufs = (np.empty((n, env.obs_size), np.float32), np.empty(n), np.empty(n, np.bool_), np.empty(n, np.bool_),
            np.empty(n, np.bool_), np.empty((n, env.obs_size), np.float32), np.empty((n, env.num_actions), np.bool_),
            np.empty((n, c + 3), np.int64))
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))

    def step_pr() -> int:
        a = sampler(env._mask)
        o, r, te, tr, il, fo, fm, fc = bufs
        step_prange(a, env._b, env._inputs, StepOutputs(o, env._mask, r, te, tr, il, fo, fm, fc))
        return n

    out[f"vector step, numba prange, {numba.get_num_threads()} threads (steps/s wall)"] = best_rate(
        step_pr, seconds, cpu=False)
    return out


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

    gens = [np.random.Generator(np.random.PCG64(np.random.SeedSequence(i))) for i in range(n)]
    state = PCG.seed_states(list(range(n)))

    def dice_numba() -> int:
        PCG.roll_dice(state[0], 5 * n)
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
