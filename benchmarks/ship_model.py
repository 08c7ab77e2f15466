"""Ship a trained MaskablePPO model: copy a run's final model into ``agents/models/`` and write its card from the
run folders (the shipped run first, then the other seeds of the same config).

    python benchmarks/ship_model.py --name ppo-yacht --kind "model-free: ..." --algo "MaskablePPO ..." \\
        --note "learning seconds ..." RUN_DIR [RUN_DIR ...]

The card holds what ``yacht eval`` and ``agents.md`` report: the config and the command that reproduce the run, its
steps and learning seconds, and each run's final evaluation (``eval.json``: the 10,000 held-out games with seeds
from ``eval.seed + 10,000,000``, the regret per decision type). Runs are read, never changed; the model file and the
card are written atomically.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml

from yacht_env.files import write_bytes_atomic, write_text_atomic

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "agents" / "models"
_EVAL_KEYS = ("episodes", "mean", "ci95", "percent_of_optimal", "regret_per_game", "regret_by_decision",
              "five_of_a_kind_rate", "upper_bonus_rate")


def run_record(run_dir: Path, config: str) -> dict[str, Any]:
    """One run's seed, command (``train.py`` on ``config``), steps, learning seconds and final evaluation, from its
    folder."""
    cfg = yaml.safe_load((run_dir / "config.yaml").read_text(encoding="utf-8"))
    final = json.loads((run_dir / "eval.json").read_text(encoding="utf-8"))
    command = f"python train.py --config {config}" + (f" --seed {cfg['seed']}" if cfg["seed"] else "")
    steps, seconds = int(final["training_timesteps"]), float(final["training_wall_s"])
    ev = {k: final[k] for k in _EVAL_KEYS if k in final}
    ev["regret_per_decision"] = final.get("mean_regret")
    ev["optimal_same_seeds"] = {k: v for k, v in final.get("optimal_same_seeds", {}).items() if k != "scores"}
    ev["seeds"] = f"yacht_tools.seeds.game_seed({final['seed']}, j), j < {final['episodes']}"
    return {"seed": cfg["seed"], "config": cfg, "eval_seed": final["seed"], "command": command, "timesteps": steps,
            "learning_s": round(seconds),
            "learner_steps_per_s": round(steps / seconds), "final_eval": ev}


def card(name: str, text: argparse.Namespace, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The model card of ``runs[0]``'s final model, listing every run (``text``: the kind, algo, config and note)."""
    first = runs[0]
    rules = first["config"]["rules"]
    return {"agent": name, "rules": rules, "kind": text.kind, "algo": text.algo, "config": text.config,
            "command": first["command"],
            "model": f"final_model.zip of the seed-{first['seed']} run (the last policy)",
            "observation_layout": 2, "timesteps": first["timesteps"], "training_wall_s": first["learning_s"],
            "training_note": text.note,
            "final_eval": {**first["final_eval"], "command": f"yacht eval --agent {name} --rules {rules} --episodes "
                           f"{first['final_eval']['episodes']} --seed {first['eval_seed']}"},
            "runs": [{k: v for k, v in r.items() if k not in ("config", "eval_seed")} for r in runs]}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("runs", nargs="+", type=Path, help="run folders; the first one's final model is shipped")
    p.add_argument("--name", required=True, help="the agent's name (ppo-yacht, ...)")
    p.add_argument("--kind", required=True, help="what the agent is, in a line")
    p.add_argument("--algo", required=True, help="the algorithm and its network, in a line")
    p.add_argument("--note", required=True, help="how training_wall_s was measured")
    p.add_argument("--config", required=True, help="the config file that reproduces the runs (configs/...)")
    args = p.parse_args()
    try:
        runs = [run_record(r, args.config) for r in args.runs]
    except (OSError, ValueError, KeyError) as e:
        print(f"ship_model.py: error: cannot read the run folders: {e}", file=sys.stderr)
        return 2
    if len({r["config"]["rules"] for r in runs}) != 1:
        print("ship_model.py: error: the runs are of different rule sets", file=sys.stderr)
        return 2
    write_bytes_atomic(MODELS / f"{args.name}.zip", (args.runs[0] / "final_model.zip").read_bytes())
    write_text_atomic(MODELS / f"{args.name}.json", json.dumps(card(args.name, args, runs), indent=1) + "\n")
    print(f"shipped {MODELS / (args.name + '.zip')} and its card")
    return 0


if __name__ == "__main__":
    sys.exit(main())
