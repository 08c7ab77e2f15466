"""First use: how long the first steps of a new user take with empty caches, and the same again warm.

    python benchmarks/bench_cold_start.py [--json out.json]

Each stage runs in a fresh process with its own empty numba cache (``NUMBA_CACHE_DIR``) and solver cache
(``YACHT_ENV_CACHE_DIR``): the first ``gym.make`` of every rule set, each with a reset and a whole random game (the
goal: at most 2 s in all); the first vector-engine step;
the first ``solve("yacht")``; the first optimal action; ``yacht eval --agent optimal`` of 100 games; and all of them
in one process, as a user meets them. Then each again with the caches its cold run filled (warm). Each
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

from yacht_tools.output_paths import check_output_path, write_user_text

STAGES = {
    "gym.make + reset + a random game, every rule set": (
        "import gymnasium as gym, numpy as np, yacht_env\n"
        "pick = np.random.default_rng(0)\n"
        "for env_id in yacht_env.ENV_IDS.values():\n"
        "    e = gym.make(env_id); o, info = e.reset(seed=0); done = False\n"
        "    while not done:\n"
        "        o, r, done, trunc, info = e.step(int(pick.choice(np.flatnonzero(info['action_mask']))))\n"),
    "first vector step": "import gymnasium as gym, yacht_env\n"
                         "v = gym.make_vec('Yacht-v0', num_envs=64, vectorization_mode='vector_entry_point')\n"
                         "v.reset(seed=0); v.step(v.unwrapped.action_masks().argmax(1))",
    "first solve (yacht)": "from yacht_solver import solve\nsolve('yacht')",
    "first optimal action": "from yacht_agents import OptimalAgent\nfrom yacht_env.env import YachtEnv\n"
                            "e = YachtEnv(); o, _ = e.reset(seed=0)\n"
                            "OptimalAgent('yacht').act(o, e.action_masks())",
    "yacht eval --agent optimal --episodes 100": "from yacht_cli import main\n"
                                                "main(['eval', '--agent', 'optimal', '--episodes', '100', "
                                                "'--no-progress'])",
}
ALL = "\n".join(STAGES.values())
# a stage that never loaded the engine compiled nothing
_REPORT = ("\nimport sys\n"
           "print('COMPILE', sys.modules['yacht_env.jit.numba_cache'].compile_seconds() "
           "if 'yacht_env.jit.numba_cache' in sys.modules else 0.0)\n")


def run(code: str, numba_dir: str, solver_dir: str) -> tuple[float, float]:
    env = dict(os.environ, NUMBA_CACHE_DIR=numba_dir, YACHT_ENV_CACHE_DIR=solver_dir)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code + _REPORT], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    compiled = float(out.stdout.rsplit("COMPILE", 1)[1])
    return wall, compiled


def _installed(module: str) -> bool:
    """Whether ``module`` is importable in this install (the training extras are optional)."""
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--json", help="also write the rows as JSON here")
    args = p.parse_args(argv)
    if args.json:  # checked before the work; written as a shell's > would (a device: through)
        check_output_path(args.json, "--json")
    rows = []
    install = "full install (training extras)" if _installed("stable_baselines3") else "install without extras"
    for name, code in [*STAGES.items(), ("all of them, one process", ALL)]:
        with tempfile.TemporaryDirectory() as nd, tempfile.TemporaryDirectory() as sd:
            for cache in ("cold", "warm"):
                try:
                    wall, comp = run(code, nd, sd)
                except RuntimeError as e:  # a stage this install cannot run (an extra missing): said, not timed
                    print(f"{name}: failed: {str(e).strip().splitlines()[-1]}", file=sys.stderr)
                    break
                rows.append({"stage": name, "cache": cache, "wall_s": wall, "compile_s": comp, "install": install})
    print(f"{install}; load average {os.getloadavg()[0]:.2f}")
    print("| stage | caches | wall s | of which numba compiling s |")
    print("|---|---|---:|---:|")
    for r in rows:
        print(f"| {r['stage']} | {r['cache']} | {r['wall_s']:.1f} | {r['compile_s']:.1f} |")
    if args.json:
        write_user_text(args.json, json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
