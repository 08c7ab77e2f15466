"""Ship a trained agent: copy a run's final model into ``agents/models/``, write its card from the run folders (the
shipped run first, then the other seeds of the same config) and ship the run's periodic evaluations as
``docs/records/NAME-evaluations.json``, from which the site draws the agent's learning curve.

    python benchmarks/ship_model.py --name ppo-yacht --config configs/yacht_model_free_20min.yaml \\
        --kind "model-free: ..." --algo "MaskablePPO ..." --note "learning seconds ..." RUN_DIR [RUN_DIR ...]

The card holds what ``yacht eval`` and ``agents.md`` report: the config and the command that reproduce the run, its
steps and learning seconds, and each run's final evaluation (``eval.json``: the 10,000 held-out games with seeds
from ``eval.seed + 10,000,000``, the regret per decision type where it was measured). Any learner's run folder
works (a MaskablePPO ``final_model.zip``, a TD ``final_model.pt``). Runs are read, never changed; the model file,
the card and the record are written atomically.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from yacht_env.files import read_regular, write_bytes_atomic, write_text_atomic
from yacht_training.run_folder import load_evaluations

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "agents" / "models"
RECORDS = ROOT / "docs" / "records"
MODEL_FILES = ("final_model.zip", "final_model.pt")  # what the learners save: MaskablePPO, TD
_EVAL_KEYS = ("episodes", "mean", "ci95", "percent_of_optimal", "regret_per_game", "regret_by_decision",
              "five_of_a_kind_rate", "upper_bonus_rate")


MAX_RUN_FILE_BYTES = 1 << 20  # a run's config.yaml and eval.json are a few kB
MAX_MODEL_BYTES = 1 << 30  # the shipped models are under 10 MB
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")


def _object(path: Path, parse: Any) -> dict[str, Any]:
    """The mapping a run's file holds (read bounded, a regular file), else ``ValueError`` naming the file."""
    data = parse(read_regular(path, MAX_RUN_FILE_BYTES).decode("utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{str(path)!r} holds {type(data).__name__}, not a mapping: not a run folder's file")
    return data


def _positive(final: dict[str, Any], key: str, path: Path) -> float:
    v = final.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < 1e15:
        raise ValueError(f"{str(path)!r}: {key} is {v!r}, not a positive finite number")
    return float(v)


def run_record(run_dir: Path, config: str) -> dict[str, Any]:
    """One run's seed, command (``train.py`` on ``config``), steps, learning seconds and final evaluation, from its
    folder (``ValueError`` naming the file and value for anything a finished run cannot hold)."""
    cfg = _object(run_dir / "config.yaml", yaml.safe_load)
    final = _object(run_dir / "eval.json", json.loads)
    if isinstance(cfg.get("seed"), bool) or not isinstance(cfg.get("seed"), int) or not isinstance(
            cfg.get("rules"), str):
        raise ValueError(f"{str(run_dir / 'config.yaml')!r} lacks an integer seed or a rules name")
    command = f"python train.py --config {config}" + (f" --seed {cfg['seed']}" if cfg["seed"] else "")
    steps = int(_positive(final, "training_timesteps", run_dir / "eval.json"))
    seconds = _positive(final, "training_wall_s", run_dir / "eval.json")
    ev = {k: final[k] for k in _EVAL_KEYS if k in final}
    if "mean_regret" in final:  # measured by the evaluations that ask for regret (MaskablePPO's final one)
        ev["regret_per_decision"] = final["mean_regret"]
    if "optimal_same_seeds" in final:
        ev["optimal_same_seeds"] = {k: v for k, v in final["optimal_same_seeds"].items() if k != "scores"}
    ev["seeds"] = f"yacht_tools.seeds.game_seed({final['seed']}, j), j < {final['episodes']}"
    extra = {"games": int(final["training_games"])} if "training_games" in final else {}
    return {"seed": cfg["seed"], "config": cfg, "eval_seed": final["seed"], "command": command, "timesteps": steps,
            **extra, "learning_s": round(seconds),
            "learner_steps_per_s": round(steps / seconds), "final_eval": ev}


def model_file(run_dir: Path) -> Path:
    """The run's final model (the file the card ships)."""
    found = [run_dir / f for f in MODEL_FILES if (run_dir / f).is_file()]
    if len(found) != 1:
        raise ValueError(f"{run_dir} holds {len(found)} of {', '.join(MODEL_FILES)}; a run folder holds one")
    return found[0]


def card(name: str, text: argparse.Namespace, runs: list[dict[str, Any]], model: Path) -> dict[str, Any]:
    """The model card of ``runs[0]``'s final model (the file ``model``), listing every run (``text``: the kind,
    algo, config and note)."""
    first = runs[0]
    cfg = first["config"]
    rules = cfg["rules"]
    layout = {"observation_layout": 2} if (cfg.get("policy") or {}).get("kind") == "model_free" else {}
    games = {"games": first["games"]} if "games" in first else {}
    return {"agent": name, "rules": rules, "kind": text.kind, "algo": text.algo, "config": text.config,
            "command": first["command"],
            "model": f"{model.name} of the seed-{first['seed']} run (the last "
                     f"{'policy' if model.suffix == '.zip' else 'network'})",
            **layout, "timesteps": first["timesteps"], **games, "training_wall_s": first["learning_s"],
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
    if not _NAME.fullmatch(args.name):
        print(f"ship_model.py: error: --name {args.name!r}: 1-40 characters of a-z, 0-9, '_' or '-' (it names files "
              "in agents/models/ and docs/records/)", file=sys.stderr)
        return 2
    try:
        runs = [run_record(r, args.config) for r in args.runs]
    except (OSError, ValueError, KeyError, UnicodeDecodeError, yaml.YAMLError) as e:
        print(f"ship_model.py: error: cannot read the run folders: {e}", file=sys.stderr)
        return 2
    if len({r["config"]["rules"] for r in runs}) != 1:
        print("ship_model.py: error: the runs are of different rule sets", file=sys.stderr)
        return 2
    try:
        source = model_file(args.runs[0])
        record = load_evaluations(args.runs[0])  # bounded, a regular file, a list
        if not record:
            raise ValueError(f"{args.runs[0]} has no periodic evaluations (evaluations.json) to ship as its record")
    except (OSError, ValueError) as e:
        print(f"ship_model.py: error: {e}", file=sys.stderr)
        return 2
    shipped = MODELS / f"{args.name}{source.suffix}"
    for folder in (MODELS, RECORDS):
        folder.mkdir(parents=True, exist_ok=True)
    try:
        model = read_regular(source, MAX_MODEL_BYTES)
    except (OSError, ValueError) as e:
        print(f"ship_model.py: error: {e}", file=sys.stderr)
        return 2
    write_bytes_atomic(shipped, model)
    write_text_atomic(MODELS / f"{args.name}.json",
                      json.dumps(card(args.name, args, runs, source), indent=1, allow_nan=False) + "\n")
    write_text_atomic(RECORDS / f"{args.name}-evaluations.json", json.dumps(record, indent=1, allow_nan=False) + "\n")
    print(f"shipped {shipped}, its card and its run record {RECORDS / (args.name + '-evaluations.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
