"""The environment's share of an RLlib env runner's sampling time: engine adapter vs SyncVectorEnv of YachtEnv.

    python benchmarks/bench_rllib_env.py [--envs 64] [--repeat 7]

1. The environments alone: steps per second of ``YachtRLlibVectorEnv`` (the engine, NEXT_STEP adapter) and of
   gymnasium's ``SyncVectorEnv`` of ``YachtRLlibEnv`` (what RLlib's ``sync`` mode builds), random legal actions.
2. RLlib's local env runner (``num_env_runners: 0``, no Ray actor): ``runner.sample(num_timesteps=8192)`` with the
   config's module, both modes alternated, median of ``--repeat``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def env_alone(make, n: int, steps: int) -> float:
    """Env steps per second with random legal actions (the sampler's cost excluded)."""
    import numpy as np

    env = make()
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    masks = [obs["action_mask"]]
    t0 = time.perf_counter()
    done = 0
    while done < steps:
        m = masks[-1] > 0
        u = rng.random(m.shape) * m
        a = u.argmax(axis=1)
        obs, *_ = env.step(a)
        masks[-1] = obs["action_mask"]
        done += n
    dt = time.perf_counter() - t0
    env.close()
    return done / dt


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--envs", type=int, default=64)
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args()
    import gymnasium as gym
    import torch

    from yacht_training import rllib_ppo as RLLIB
    from yacht_training.config import load_config
    from yacht_training.rllib_env import YachtRLlibEnv, YachtRLlibVectorEnv

    torch.set_num_threads(1)
    n = args.envs
    ec = {"rules": "yacht", "reward_scale": 0.02, "seed": 0, "rllib_seed": 0}
    makers = {"engine": lambda: YachtRLlibVectorEnv(n, ec),
              "sync": lambda: gym.vector.SyncVectorEnv([lambda: YachtRLlibEnv(ec) for _ in range(n)])}
    for name, make in makers.items():
        env_alone(make, n, 4 * n)  # compile / warm up
        rates = [env_alone(make, n, 65536) for _ in range(3)]
        print(f"env alone, {name}: {statistics.median(rates):,.0f} env steps/s ({n} games)", flush=True)

    cfg = load_config(ROOT / "configs" / "yacht_rllib_ppo.yaml")
    cfg.rllib.num_env_runners = 0
    cfg.rllib.num_envs_per_env_runner = n
    RLLIB.start_ray(cfg, None)
    runners = {}
    for mode in ("engine", "sync"):
        cfg.rllib.vectorize = mode
        runners[mode] = RLLIB.ppo_config(cfg).build_algo()
        runners[mode].env_runner.sample(num_timesteps=8192)
    times: dict[str, list[float]] = {"engine": [], "sync": []}
    for _ in range(args.repeat):
        for mode, algo in runners.items():
            t0 = time.perf_counter()
            eps = algo.env_runner.sample(num_timesteps=8192)
            times[mode].append(sum(len(e) for e in eps) / (time.perf_counter() - t0))
    for mode, rates in times.items():
        print(f"RLlib local env runner, {mode}: median {statistics.median(rates):,.0f} env steps/s "
              f"(runs: {', '.join(f'{r:,.0f}' for r in rates)})")
    for algo in runners.values():
        algo.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
