"""Learner throughput: environment steps per second of learning (rollout and update together), each setting side
by side in one run, on one config.

    python benchmarks/bench_learner.py [--config configs/yacht_model_free.yaml] [--rollouts 6]
        [--variants sb3 sb3_bf16 ...] [--json PATH]

Each variant builds the config's model with a few keys changed (:data:`VARIANTS`), learns one rollout to warm up
(allocations) and then ``--rollouts`` more, timed; the table gives the steps per second of the
timed rollouts, the seconds of the warm-up, and the factor against the first variant. Run it alone on the machine:
every other process takes the cores it measures.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from yacht_tools.output_paths import check_output_path, write_user_text
from yacht_training.config import TrainConfig, from_dict, load_config, merge

ROOT = Path(__file__).resolve().parent.parent

VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {  # name: (what changes, config keys replaced)
    "sb3": ("sb3-contrib's MaskablePPO, the config as it is", {}),
    "sb3_bf16": ("bfloat16 autocast", {"ppo": {"autocast": "bfloat16"}}),
    "sb3_2_threads": ("two torch threads", {"torch_threads": 2}),
    "sb3_bf16_2_threads": ("bfloat16, two torch threads", {"torch_threads": 2, "ppo": {"autocast": "bfloat16"}}),
    "sb3_bf16_batch_2048": ("bfloat16, minibatches of 2,048", {"ppo": {"autocast": "bfloat16", "batch_size": 2048}}),
    "sb3_bf16_2_epochs": ("bfloat16, 2 epochs", {"ppo": {"autocast": "bfloat16", "n_epochs": 2}}),
    "sb3_trunk_2x256": ("trunk 2 x 256", {"policy": {"net_arch": [256, 256]}}),
    "sb3_trunk_3x128": ("trunk 3 x 128", {"policy": {"net_arch": [128, 128, 128]}}),
}


def measure(cfg: TrainConfig, rollouts: int) -> dict[str, float]:
    """Steps per second of ``rollouts`` timed rollouts after one warm-up rollout."""
    from yacht_training.sb3_ppo import build_model
    from yacht_training.sb3_vec_env import YachtSB3VecEnv

    torch.set_num_threads(cfg.torch_threads)
    env = YachtSB3VecEnv(num_envs=cfg.n_envs, rules=cfg.rules, seed=cfg.seed, unique_keeps=cfg.unique_keeps,
                         reward_scale=cfg.reward_scale)
    per_rollout = cfg.n_envs * cfg.ppo.n_steps
    with tempfile.TemporaryDirectory() as tmp:
        model = build_model(cfg, env, Path(tmp))
        t0 = time.perf_counter()
        model.learn(per_rollout, reset_num_timesteps=True)
        warm = time.perf_counter() - t0
        t0 = time.perf_counter()
        model.learn(per_rollout * rollouts, reset_num_timesteps=False)
        timed = time.perf_counter() - t0
    return {"steps_per_s": per_rollout * rollouts / timed, "warmup_s": warm, "timed_steps": per_rollout * rollouts}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--config", type=Path, default=ROOT / "configs" / "yacht_model_free.yaml")
    p.add_argument("--rollouts", type=int, default=6, help="timed rollouts per variant (after one warm-up)")
    p.add_argument("--variants", nargs="+", default=["sb3", "sb3_bf16", "sb3_2_threads", "sb3_bf16_2_threads"],
                   choices=list(VARIANTS))
    p.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = p.parse_args()
    if args.json:  # checked before the work; written as a shell's > would (a device: through)
        check_output_path(args.json, "--json")
    base = load_config(args.config).to_dict()
    rows = []
    print(f"config {args.config.name}: {base['n_envs']} games x {base['ppo']['n_steps']} steps a rollout, "
          f"{args.rollouts} timed rollouts; torch {torch.__version__}", flush=True)
    print("| variant | what | env steps/s of learning | vs first | warm-up s |\n|---|---|---:|---:|---:|", flush=True)
    for name in args.variants:
        what, change = VARIANTS[name]
        cfg = from_dict(merge(base, change))
        m = measure(cfg, args.rollouts)
        rows.append({"variant": name, "what": what, **m})
        factor = m["steps_per_s"] / rows[0]["steps_per_s"]
        print(f"| {name} | {what} | {m['steps_per_s']:,.0f} | {factor:.2f}x | {m['warmup_s']:.1f} |", flush=True)
    if args.json:
        write_user_text(args.json, json.dumps({"config": str(args.config), "rows": rows}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
