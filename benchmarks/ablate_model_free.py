"""Equal-budget ablations of the model-free recipe: the same config with one ingredient changed, each a full
``train.py`` run with the same steps and seed, scored on the same held-out games.

    python benchmarks/ablate_model_free.py --config configs/yacht_model_free.yaml --timesteps 2000000 \\
        --final-episodes 2000 --run-dir runs/ablations [--variants base lambda_0 ...] [--seed 0] \\
        [--base-variants clip_0.2 ...]

Each variant's config (the base config with the variant's keys replaced, the steps and the final evaluation set
from the command line) is written under ``RUN_DIR/configs/`` and run by ``python train.py --config ...``, one after
the other; a variant whose result is already in ``RUN_DIR/ablations.json`` for the same base config (its contents),
steps, games and seed is not run again, and a variant that leaves the base config as it is is not run at all. The
table (Markdown, ``RUN_DIR/ablations.md``) gives per variant the % of optimal with its 95% interval, the regret per
decision, the points a game lost after the first and second roll and at scoring, and the learning seconds.
``--base-variants`` changes the config first, for every run (the base row included): an earlier recipe is measured
without a copy of its config.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from yacht_env.files import write_text_atomic
from yacht_training.config import merge

ROOT = Path(__file__).resolve().parent.parent

VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {  # name: (what changes, config keys replaced)
    "base": ("the recipe as in the config", {}),
    "lambda_0": ("GAE lambda 0 (TD(0) targets, as in Pape 2025)", {"ppo": {"gae_lambda": 0.0}}),
    "lambda_0.95": ("GAE lambda 0.95 (SB3's default)", {"ppo": {"gae_lambda": 0.95}}),
    "one_entropy": ("one entropy weight 0.01 on every row instead of one per decision type",
                    {"ppo": {"ent_coef": 0.01, "ent_coef_keep": None, "ent_coef_score": None}}),
    "no_points": ("the network does not see the points each box would score now",
                  {"policy": {"ignore_observation": ["points"]}}),
    "no_bonus_joker": ("the network does not see bonus_now and joker (layout 2's additions)",
                       {"policy": {"ignore_observation": ["bonus_now", "joker"]}}),
    "multiset_keep": ("keep head: multiset (patterns scored by the dice they keep)",
                      {"policy": {"keep_head": "multiset"}}),
    "trunk_2x256": ("trunk 2 x 256 instead of 3 x 256", {"policy": {"net_arch": [256, 256]}}),
    "wide_trunk": ("trunk 3 x 512", {"policy": {"net_arch": [512, 512, 512]}}),
    "lr_1e-4": ("learning rate 1e-4 decaying to 0 instead of 3e-4", {"ppo": {"learning_rate": "lin_1e-4"}}),
    "batch_512": ("minibatches of 512 instead of 2,048", {"ppo": {"batch_size": 512}}),
    "envs_64": ("64 envs x 128 steps instead of 256 x 32 (same 8,192 steps per update)",
                {"n_envs": 64, "ppo": {"n_steps": 128}}),
    "reward_unscaled": ("rewards in points instead of / 50", {"reward_scale": 1.0}),
    "multiset_lambda_0": ("multiset keep head and GAE lambda 0", {"policy": {"keep_head": "multiset"},
                                                                  "ppo": {"gae_lambda": 0.0}}),
    "multiset_batch_512": ("multiset keep head and minibatches of 512 (lambda 0.8)",
                           {"policy": {"keep_head": "multiset"}, "ppo": {"batch_size": 512}}),
    "multiset_lambda_0_batch_512": ("multiset keep head, GAE lambda 0, minibatches of 512",
                                    {"policy": {"keep_head": "multiset"},
                                     "ppo": {"gae_lambda": 0.0, "batch_size": 512}}),
    "batch_256": ("minibatches of 256", {"ppo": {"batch_size": 256}}),
    "epochs_8": ("8 epochs over each rollout instead of 4", {"ppo": {"n_epochs": 8}}),
    "lr_5e-4": ("learning rate 5e-4 decaying to 0", {"ppo": {"learning_rate": "lin_5e-4"}}),
    "clip_0.1": ("PPO clip range 0.1 instead of 0.2", {"ppo": {"clip_range": 0.1}}),
    "clip_0.2": ("PPO clip range 0.2 (SB3's default) instead of 0.1", {"ppo": {"clip_range": 0.2}}),
    "keep_hidden_128": ("multiset keep head 128 wide instead of 64", {"policy": {"keep_hidden": 128}}),
}


def run_variant(config: Path, run_dir: Path, seed: int) -> Path:
    """Run ``train.py`` on ``config``; the run folder it made."""
    cmd = [sys.executable, str(ROOT / "train.py"), "--config", str(config), "--seed", str(seed), "--run-dir",
           str(run_dir / "runs"), "--no-progress"]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed (exit {out.returncode}):\n{out.stderr[-3000:]}")
    found = re.search(r"run folder: (.+)", out.stdout + out.stderr)
    if not found:
        raise RuntimeError(f"{' '.join(cmd)} did not print its run folder")
    return Path(found.group(1).strip())


def summary(run: Path) -> dict[str, Any]:
    """The numbers of the table, from the run's eval.json (train.py's final evaluation, learning seconds included)."""
    ev = json.loads((run / "eval.json").read_text(encoding="utf-8"))
    lo, hi = ev["ci95"]
    by = ev.get("regret_by_decision", {})
    return {"run": str(run), "percent": ev["percent_of_optimal"], "mean": ev["mean"], "half_width": (hi - lo) / 2,
            "optimal": ev["optimal_value"], "regret": ev.get("mean_regret"), "first_keep": by.get("first_keep"),
            "second_keep": by.get("second_keep"), "score": by.get("score"),
            "upper_bonus_rate": ev.get("upper_bonus_rate"),
            "learning_s": ev["training_wall_s"]}


def load_results(path: Path) -> dict[str, dict[str, Any]]:
    """The results measured so far in ``path`` (ablations.json): {key: {variant: summary}}."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def record(path: Path, key: str, name: str, row: dict[str, Any]) -> None:
    """Add one variant's result to ``path``, read again just before the write so that another command using the
    same run folder (another seed, say) keeps the results it wrote meanwhile."""
    results = load_results(path)
    results.setdefault(key, {})[name] = row
    write_text_atomic(path, json.dumps(results, indent=2))


def table(rows: dict[str, dict[str, Any]], header: str) -> str:
    def num(v: Any, fmt: str) -> str:
        return "-" if v is None else format(v, fmt)

    lines = [header, "", "| variant | what changes | % of optimal (mean ± 95%) | regret / decision | lost after "
             "roll 1 / roll 2 / at scoring (points a game) | upper bonus | learning s |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for name, r in rows.items():
        pct_half = 100 * r["half_width"] / r["optimal"]
        lost = " / ".join(num(r[k], ".2f") for k in ("first_keep", "second_keep", "score"))
        bonus = "-" if r.get("upper_bonus_rate") is None else f"{100 * r['upper_bonus_rate']:.1f}%"
        lines.append(f"| {name} | {VARIANTS[name][0]} | {r['percent']:.2f}% ± {pct_half:.2f} ({r['mean']:.2f}) | "
                     f"{num(r['regret'], '.3f')} | {lost} | {bonus} | {num(r['learning_s'], ',.0f')} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--config", type=Path, required=True, help="the base config (a model-free MaskablePPO config)")
    p.add_argument("--timesteps", type=int, required=True, help="steps of every run (the equal budget)")
    p.add_argument("--final-episodes", type=int, default=2000, help="held-out games of each final evaluation")
    p.add_argument("--seed", type=int, default=0, help="the seed of every run")
    p.add_argument("--run-dir", type=Path, required=True, help="folder for the configs, the runs and the table")
    p.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS), metavar="VARIANT",
                   help=f"which variants, in this order (default: all; accepted: {', '.join(VARIANTS)})")
    p.add_argument("--base-variants", nargs="+", default=[], choices=list(VARIANTS), metavar="VARIANT",
                   help="variants applied to the config first, in this order, so that every run (base included) "
                        "starts from the changed config: an earlier recipe without a copy of its config")
    args = p.parse_args(argv)
    if args.timesteps < 1 or args.final_episodes < 1:
        p.error("--timesteps and --final-episodes must be positive integers")
    if "base" in args.base_variants:
        p.error("--base-variants: 'base' changes nothing; name the variants that change the config")
    base = yaml.safe_load(args.config.read_text(encoding="utf-8"))
    if not isinstance(base, dict):
        p.error(f"--config {args.config}: not a YAML mapping")
    for name in args.base_variants:
        base = merge(base, VARIANTS[name][1])
    stem = "+".join([args.config.stem, *args.base_variants])
    (args.run_dir / "configs").mkdir(parents=True, exist_ok=True)
    results_path = args.run_dir / "ablations.json"
    # a result is reused only for the same base config (its contents, not its file name), steps, games and seed
    digest = hashlib.sha256(json.dumps(base, sort_keys=True).encode()).hexdigest()[:12]
    key = f"{digest}|{args.timesteps}|{args.final_episodes}|{args.seed}"
    done = load_results(results_path).get(key, {})
    for name in args.variants:
        if name in done:
            print(f"{name}: already measured ({done[name]['percent']:.2f}%)", flush=True)
            continue
        cfg = merge(base, VARIANTS[name][1])
        if name != "base" and cfg == base:
            print(f"{name}: the base config already has {VARIANTS[name][1]}; not run (see the base row)", flush=True)
            continue
        cfg["total_timesteps"] = args.timesteps
        cfg.setdefault("eval", {})["final_episodes"] = args.final_episodes
        path = args.run_dir / "configs" / f"{stem}-{name}.yaml"
        write_text_atomic(path, yaml.safe_dump(cfg, sort_keys=False))
        print(f"{name}: python train.py --config {path} --seed {args.seed}", flush=True)
        done[name] = summary(run_variant(path, args.run_dir, args.seed))
        print(f"{name}: {done[name]['percent']:.2f}% of optimal", flush=True)
        record(results_path, key, name, done[name])
    changed = "".join(f" with {n}" for n in args.base_variants)
    header = (f"Base `{args.config}`{changed}, {args.timesteps:,} steps, seed {args.seed}, final policy on "
              f"{args.final_episodes:,} held-out games")
    write_text_atomic(args.run_dir / "ablations.md", table({n: done[n] for n in args.variants if n in done}, header))
    print((args.run_dir / "ablations.md").read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
