"""Steps per second of the game engines, side by side, with random legal actions.

Rows: pyhtzee (the engine behind gym-yahtzee), our single environment (raw ``YachtEnv`` and through
``gymnasium.make``, which adds the ``PassiveEnvChecker`` and ``OrderEnforcing`` wrappers; each row names the engine
that stepped it: ``compiled``, the vector engine's kernel on one game, which ``engine="auto"`` takes once its kernel
is loaded or cached, or ``python``), the vector engine
(``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``) at N games, and the SB3 adapter over it. Each
row counts environment steps (one game, one action) per second of wall time, random legal action selection included
(for the vector engine it is done in numba too: :class:`yacht_env.vector.LegalActionSampler`), and memory per game.

    python benchmarks/bench_engines.py                 # Markdown table
    python benchmarks/bench_engines.py --json out.json --seconds 3 --num-envs 4096
    python benchmarks/bench_engines.py --profile       # where a single-env step spends its time
    python benchmarks/bench_engines.py --rules yacht yahtzee yahtzee-free-joker yatzy knizia --no-sb3 --rounds 3

The numba kernels are compiled (or loaded from numba's cache) before timing starts.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import platform
import pstats
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import yacht_env  # noqa: F401  (registers the ids)
from yacht_env.env import YachtEnv
from yacht_env.single_engine import AUTO_SWITCH_STEPS
from yacht_env.vector import LegalActionSampler, YachtVectorEnv
from yacht_tools.output_paths import check_output_path, write_user_text

RULE_IDS = yacht_env.ENV_IDS  # every rule set's Gymnasium id


@dataclass
class Row:
    engine: str
    rules: str
    num_envs: int
    steps: int
    seconds: float
    cpu_seconds: float
    bytes_per_game: float

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds

    @property
    def steps_per_cpu_s(self) -> float:
        return self.steps / max(self.cpu_seconds, 1e-9)


def _timed(step_batch: Callable[[], int], seconds: float, warmup: int = 3) -> tuple[int, float, float]:
    """Call ``step_batch`` (returns env steps done) until ``seconds`` of wall time have passed; return the steps,
    the wall time and the CPU time of the process (all its threads)."""
    for _ in range(warmup):
        step_batch()
    gc.collect()
    steps = 0
    c0 = time.process_time()
    t0 = time.perf_counter()
    while True:
        steps += step_batch()
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return steps, dt, time.process_time() - c0


def _bytes_per_object(make: Callable[[], Any], n: int = 200) -> float:
    """Traced Python memory per object for ``n`` objects made (and kept alive) by ``make``."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    keep = [make() for _ in range(n)]
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del keep
    return (after - before) / n


# ---- engines ------------------------------------------------------------------------------------------------------


def bench_pyhtzee(seconds: float) -> Row | None:
    try:
        from pyhtzee import Pyhtzee
    except ImportError:
        print("pyhtzee is not installed (pip install pyhtzee): its row is skipped", file=sys.stderr)
        return None
    state = {"game": Pyhtzee(seed=1), "games": 1}

    def batch() -> int:
        g = state["game"]
        for _ in range(100):
            g.take_action(g.sample_action())  # pyhtzee's own random legal action
            if g.is_finished():
                state["games"] += 1
                g = state["game"] = Pyhtzee(seed=state["games"])
        return 100

    steps, dt, cpu = _timed(batch, seconds)
    mem = _bytes_per_object(lambda: Pyhtzee(seed=1))
    return Row("pyhtzee (PyPI, engine of gym-yahtzee)", "yahtzee (free Joker)", 1, steps, dt, cpu, mem)


def _single_env_batch(env: gym.Env, seed: int) -> Callable[[], int]:
    """Random legal actions from ``info["action_mask"]``, cheaply (Python's random, not numpy's)."""
    pick = random.Random(seed)
    _, info = env.reset(seed=seed)
    state = {"info": info}

    def batch() -> int:
        info = state["info"]
        for _ in range(100):
            legal = np.flatnonzero(info["action_mask"])
            _, _, term, trunc, info = env.step(int(legal[int(pick.random() * len(legal))]))
            if term or trunc:
                _, info = env.reset()
        state["info"] = info
        return 100

    return batch


def _env_bytes(make: Callable[[], gym.Env]) -> float:
    def made() -> gym.Env:
        env = make()
        env.reset(seed=0)
        return env

    return _bytes_per_object(made, n=100)


def bench_single(rules: str, seconds: float, through_make: bool, engine: str = "auto") -> Row:
    """The single env with ``engine`` (the default ``auto`` is what ``gym.make(id)`` gives)."""
    if through_make:
        make: Callable[[], gym.Env] = lambda: gym.make(RULE_IDS[rules], engine=engine)  # noqa: E731
        name = f'YachtEnv via gymnasium.make("{RULE_IDS[rules]}")'
    else:
        make = lambda: YachtEnv(rules, engine=engine)  # noqa: E731
        name = "YachtEnv (raw)"
    env = make()
    # the warm-up covers the steps after which engine="auto" moves to the compiled kernel
    steps, dt, cpu = _timed(_single_env_batch(env, seed=0), seconds, warmup=AUTO_SWITCH_STEPS // 100 + 5)
    return Row(f"{name}, {env.unwrapped.engine} engine", rules, 1, steps, dt, cpu, _env_bytes(make))


def bench_vector(rules: str, n: int, seconds: float) -> Row:
    envs = gym.make_vec(RULE_IDS[rules], num_envs=n, vectorization_mode="vector_entry_point")
    assert isinstance(envs, YachtVectorEnv)
    envs.reset(seed=0)
    sampler = LegalActionSampler(n, seed=0)

    def batch() -> int:
        for _ in range(5):
            envs.step(sampler(envs.action_masks()))
        return 5 * n

    steps, dt, cpu = _timed(batch, seconds)
    mem = envs.memory_per_game()["total"]
    return Row(f"YachtVectorEnv via make_vec, N={n}", rules, n, steps, dt, cpu, mem)


def bench_sb3(rules: str, n: int, seconds: float) -> Row | None:
    try:
        from yacht_training.sb3_vec_env import YachtSB3VecEnv
    except ImportError:
        print("stable-baselines3 is not installed: the SB3 adapter row is skipped", file=sys.stderr)
        return None
    venv = YachtSB3VecEnv(n, rules=rules, seed=0)
    venv.reset()
    sampler = LegalActionSampler(n, seed=0)

    def batch() -> int:
        for _ in range(5):
            venv.step(sampler(venv.action_masks()))
        return 5 * n

    steps, dt, cpu = _timed(batch, seconds)
    return Row(f"YachtSB3VecEnv (SB3 VecEnv adapter), N={n}", rules, n, steps, dt, cpu,
               venv.venv.memory_per_game()["total"])


# ---- output -------------------------------------------------------------------------------------------------------


def markdown(rows: list[Row], base: float | None) -> str:
    """The rows as a Markdown table; ``base`` is pyhtzee's steps/s (wall) for the ratio column."""
    lines = ["| engine | rules | games | steps/s (wall) | × pyhtzee | steps per CPU-s | memory/game |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        ratio = f"{r.steps_per_s / base:,.1f}" if base else "n/a"
        mem = f"{r.bytes_per_game / 1024:,.1f} KiB" if r.bytes_per_game >= 4096 else f"{r.bytes_per_game:,.0f} B"
        lines.append(f"| {r.engine} | {r.rules} | {r.num_envs} | {r.steps_per_s:,.0f} | {ratio} | "
                     f"{r.steps_per_cpu_s:,.0f} | {mem} |")
    return "\n".join(lines)


def machine() -> dict[str, Any]:
    import numba

    return {"python": platform.python_version(), "cpus": os.cpu_count(), "numba_threads": numba.get_num_threads(),
            "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
            "platform": platform.platform()}


def profile_single(rules: str, steps: int = 20000) -> str:
    """cProfile of raw YachtEnv steps with random legal actions: the top functions by own time."""
    batch = _single_env_batch(YachtEnv(rules), seed=0)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(steps // 100):
        batch()
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(18)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="wall time per row (default 2)")
    ap.add_argument("--num-envs", type=int, default=4096, help="games in the vector engine (default 4096)")
    ap.add_argument("--rules", nargs="+", default=["yacht", "yahtzee"], choices=list(RULE_IDS))
    ap.add_argument("--json", type=Path, help="also write the rows as JSON here")
    ap.add_argument("--no-sb3", action="store_true", help="skip the SB3 adapter row")
    ap.add_argument("--rounds", type=int, default=1,
                    help="interleaved rounds of every row; each row reports its median round (default 1)")
    ap.add_argument("--profile", action="store_true", help="print a cProfile of single-env steps and exit")
    args = ap.parse_args(argv)
    if args.json:  # checked before the work; written as a shell's > would (a device: through)
        check_output_path(args.json, "--json")

    if args.profile:
        print(profile_single(args.rules[0]))
        return 0

    # compile (or load) the numba kernels before any timing
    warm = YachtVectorEnv(args.num_envs, rules=args.rules[0])
    warm.reset(seed=0)
    warm.step(LegalActionSampler(args.num_envs, 0)(warm.action_masks()))
    small = YachtVectorEnv(1)
    small.reset(seed=0)
    single = YachtEnv(args.rules[0])
    single.reset(seed=0)
    single.step(0)

    rounds: list[list[Row]] = []
    for _ in range(max(1, args.rounds)):  # every row once a round, so that the machine's load touches them alike
        rows: list[Row] = []
        py = bench_pyhtzee(args.seconds)
        if py is not None:
            rows.append(py)
        for rules in args.rules:
            rows.append(bench_single(rules, args.seconds, through_make=False))
            rows.append(bench_single(rules, args.seconds, through_make=True))
            rows.append(bench_single(rules, args.seconds, through_make=True, engine="python"))
            rows.append(bench_vector(rules, args.num_envs, args.seconds))
            rows.append(bench_vector(rules, 1, args.seconds))
            if not args.no_sb3:
                sb3 = bench_sb3(rules, args.num_envs, args.seconds)
                if sb3 is not None:
                    rows.append(sb3)
        rounds.append(rows)
    rows = [sorted(same, key=lambda r: r.steps_per_s)[len(same) // 2] for same in zip(*rounds)]
    py = rows[0] if rows and rows[0].engine.startswith("pyhtzee") else None
    base = py.steps_per_s if py is not None else None
    info = machine()
    print(f"machine: {info['cpus']} CPUs, numba threads {info['numba_threads']}, load average "
          f"{info['load_average']}, Python {info['python']}\n")
    print(markdown(rows, base))
    if args.json:
        data = {"machine": info, "pyhtzee_steps_per_s": base,
                "rows": [dict(asdict(r), steps_per_s=r.steps_per_s, steps_per_cpu_s=r.steps_per_cpu_s,
                              vs_pyhtzee=(r.steps_per_s / base if base else None)) for r in rows]}
        write_user_text(args.json, json.dumps(data, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
