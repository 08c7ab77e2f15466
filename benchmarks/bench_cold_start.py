"""First use: how long the first steps of a new user take with empty caches, and the same again warm.

    python benchmarks/bench_cold_start.py [--json out.json]

Each stage runs in a fresh process with its own empty numba cache (``NUMBA_CACHE_DIR``) and solver cache
(``YACHT_ENV_CACHE_DIR``): the first ``gym.make("Yacht-v0")`` with a reset and a step; the first vector-engine step;
the first ``solve("yacht")``; the first optimal action; ``yacht eval --agent optimal`` of 100 games; and all of them
in one process, as a user meets them. Then the last one again with the caches the cold run filled (warm). Each
row gives the wall time of the stage and the seconds numba spent compiling in it (``compile_seconds``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from yacht_env.files import write_text_atomic

STAGES = {
    "gym.make + reset + step": "import gymnasium as gym, yacht_env\n"
                               "e = gym.make('Yacht-v0'); e.reset(seed=0); e.step(0)",
    "first vector step": "import gymnasium as gym, yacht_env\n"
                         "v = gym.make_vec('Yacht-v0', num_envs=64, vectorization_mode='vector_entry_point')\n"
                         "v.reset(seed=0); v.step(v.unwrapped.action_masks().argmax(1))",
    "first solve (yacht)": "from yacht_env.solver import solve\nsolve('yacht')",
    "first optimal action": "from yacht_agents import OptimalAgent\nfrom yacht_env.env import YachtEnv\n"
                            "e = YachtEnv(); o, _ = e.reset(seed=0)\n"
                            "OptimalAgent('yacht').act(o, e.action_masks())",
    "yacht eval --agent optimal --episodes 100": "from yacht_tools.cli import main\n"
                                                "main(['eval', '--agent', 'optimal', '--episodes', '100', "
                                                "'--no-progress'])",
}
ALL = "\n".join(STAGES.values())
_REPORT = "\nfrom yacht_env.engine.cache import compile_seconds\nprint('COMPILE', compile_seconds())\n"


def run(code: str, numba_dir: str, solver_dir: str) -> tuple[float, float]:
    env = dict(os.environ, NUMBA_CACHE_DIR=numba_dir, YACHT_ENV_CACHE_DIR=solver_dir)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code + _REPORT], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    compiled = float(out.stdout.rsplit("COMPILE", 1)[1])
    return wall, compiled


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--json", help="also write the rows as JSON here")
    args = p.parse_args(argv)
    rows = []
    for name, code in [*STAGES.items(), ("all of them, one process", ALL)]:
        with tempfile.TemporaryDirectory() as nd, tempfile.TemporaryDirectory() as sd:
            wall, comp = run(code, nd, sd)
            rows.append({"stage": name, "cache": "cold", "wall_s": wall, "compile_s": comp})
            if name.startswith("all"):
                wall, comp = run(code, nd, sd)
                rows.append({"stage": name, "cache": "warm", "wall_s": wall, "compile_s": comp})
    print(f"load average {os.getloadavg()[0]:.2f}")
    print("| stage | caches | wall s | of which numba compiling s |")
    print("|---|---|---:|---:|")
    for r in rows:
        print(f"| {r['stage']} | {r['cache']} | {r['wall_s']:.1f} | {r['compile_s']:.1f} |")
    if args.json:
        write_text_atomic(args.json, json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
