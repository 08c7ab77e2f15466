"""RLlib PPO on Yacht: Ray start-up time and memory, env-runner sampling throughput, training-iteration throughput.

    python benchmarks/bench_rllib.py --runners 1 2 [--vectorize engine sync] [--envs 64] [--iterations 3]

For each (vectorisation, number of env runners): build the algorithm of ``configs/yacht_rllib_ppo.yaml`` (its
network, batch sizes and epochs; ``--envs`` games per env runner), run two warm-up iterations (first sampling, numba
caches, torch warm-up), then time ``--iterations`` whole ``algo.train()`` calls (sampling + learner update + weight
sync; steps from RLlib's lifetime counter), then ``--iterations`` samplings of one train batch exactly as PPO's
``training_step`` does it (``synchronous_parallel_sample`` over the env runners). Memory: the proportional set size
(PSS, shared pages split between the processes sharing them) of this process and every process it started (Ray's
GCS, raylet, workers, env runners), read from ``/proc``. Prints one JSON line per case and a table.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                ppid = int(open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    return kids


def tree_pss_mib(root: int) -> tuple[float, int]:
    """PSS in MiB of ``root`` and all its descendants, and their number."""
    kids = _children()
    todo, seen, total = [root], 0, 0
    while todo:
        pid = todo.pop()
        todo += kids.get(pid, [])
        try:
            for line in open(f"/proc/{pid}/smaps_rollup"):
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
                    seen += 1
                    break
        except OSError:
            continue
    return total / 1024, seen


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--config", default=str(ROOT / "configs" / "yacht_rllib_ppo.yaml"))
    p.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    p.add_argument("--vectorize", nargs="+", default=["engine"], choices=["engine", "sync"])
    p.add_argument("--envs", type=int, help="games per env runner (default: the config's)")
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--torch-threads", type=int, help="the learner's torch threads (default: the config's)")
    args = p.parse_args()

    import torch

    from yacht_training.config import load_config

    cfg = load_config(args.config)
    if args.torch_threads:
        cfg.torch_threads = args.torch_threads
    torch.set_num_threads(cfg.torch_threads)
    if args.envs:
        cfg.rllib.num_envs_per_env_runner = args.envs
    cfg.rllib.num_env_runners = max(args.runners)

    t0 = time.perf_counter()
    import ray
    from ray.rllib.execution.rollout_ops import synchronous_parallel_sample

    from yacht_training import rllib_ppo as RLLIB

    t_import = time.perf_counter() - t0
    pss0, _ = tree_pss_mib(os.getpid())
    t0 = time.perf_counter()
    RLLIB.start_ray(cfg, None)
    t_init = time.perf_counter() - t0
    time.sleep(2.0)
    pss_ray, nproc_ray = tree_pss_mib(os.getpid())
    print(json.dumps({"import_ray_rllib_s": round(t_import, 2), "ray_init_s": round(t_init, 2),
                      "pss_before_init_mib": round(pss0), "pss_after_init_mib": round(pss_ray),
                      "processes_after_init": nproc_ray}), flush=True)
    rows = []
    for mode in args.vectorize:
        for n in args.runners:
            cfg.rllib.num_env_runners = n
            cfg.rllib.vectorize = mode
            t0 = time.perf_counter()
            algo = RLLIB.ppo_config(cfg).build_algo()
            t_build = time.perf_counter() - t0
            t0 = time.perf_counter()
            algo.train()  # warm-up
            t_warm = time.perf_counter() - t0
            pss, nproc = tree_pss_mib(os.getpid())
            trains = []
            res = algo.train()  # second warm-up: the first iteration's timers and caches are behind us
            last = float(res["env_runners"]["num_env_steps_sampled_lifetime"])
            for _ in range(args.iterations):
                t0 = time.perf_counter()
                res = algo.train()
                dt = time.perf_counter() - t0
                now = float(res["env_runners"]["num_env_steps_sampled_lifetime"])
                trains.append((now - last) / dt)
                last = now
            samples = []  # after the iterations: these samples' metrics would be counted by the next train()
            for _ in range(args.iterations):
                t0 = time.perf_counter()
                eps = synchronous_parallel_sample(worker_set=algo.env_runner_group,
                                                  max_env_steps=cfg.rllib.train_batch_size,
                                                  _uses_new_env_runners=True)
                dt = time.perf_counter() - t0
                samples.append(sum(len(e) for e in eps) / dt)
            algo.stop()
            row = {"vectorize": mode, "env_runners": n, "learner_torch_threads": cfg.torch_threads,
                   "envs_per_runner": cfg.rllib.num_envs_per_env_runner,
                   "train_batch_size": cfg.rllib.train_batch_size, "build_s": round(t_build, 1),
                   "warmup_iteration_s": round(t_warm, 1),
                   "sample_steps_per_s": [round(x) for x in samples],
                   "iteration_steps_per_s": [round(x) for x in trains],
                   "pss_mib_during": round(pss), "processes": nproc}
            rows.append(row)
            print(json.dumps(row), flush=True)
    print()
    print("| vectorize | env runners | envs each | learner threads | sampling, env steps/s (median) | training "
          "iteration, env steps/s (median) | PSS of all processes |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        med = sorted(r["sample_steps_per_s"])[len(r["sample_steps_per_s"]) // 2]
        medt = sorted(r["iteration_steps_per_s"])[len(r["iteration_steps_per_s"]) // 2]
        print(f"| {r['vectorize']} | {r['env_runners']} | {r['envs_per_runner']} | {r['learner_torch_threads']} | "
              f"{med:,} | {medt:,} | "
              f"{r['pss_mib_during']:,} MiB |")
    ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
