"""Every agent on every rule set in one table: mean, 95% interval, percent of optimal, regret, training time.

    python benchmarks/agents_table.py --episodes 10000 --seed 0 [--rules yacht yahtzee] [--record out.json]

The site's agents table and the README's results table are read from the record that
``--rules yacht yahtzee yatzy knizia clubhouse --record docs/records/agents-table.json`` writes.

Agents: random, greedy, the shipped learned models (ppo-<rules> model-free, ppo-expectimax-<rules>, td-<rules>,
where present in agents/models/) and optimal. Evaluation seeds come from ``--seed`` through
:func:`yacht_tools.seeds.game_seed`; the learned models were evaluated during training on other seeds (train.py
starts evaluation seeds at 10**9). Training time comes from the model's sidecar JSON written when it was shipped.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from yacht_agents.loader import SHIPPED_MODELS_DIR, load_agent
from yacht_env.files import write_text_atomic
from yacht_env.rules import RULESETS
from yacht_tools.evaluation import evaluate
from yacht_tools.progress import progress_bar


def agent_specs(rules: str) -> list[str]:
    learned = [f"{kind}-{rules}" for kind in ("ppo", "ppo-expectimax", "td")
               if any((SHIPPED_MODELS_DIR / f"{kind}-{rules}{s}").is_file() for s in (".zip", ".pt"))]
    return ["random", "greedy", *learned, "optimal"]


BUILT_IN_KINDS = {"random": "baseline", "greedy": "dice model, one turn", "optimal": "exact solver"}


def agent_kind(spec: str, card: dict[str, Any]) -> str:
    """The table's kind column: a built-in agent's, or the start of a shipped card's ``kind`` (up to its colon)."""
    return BUILT_IN_KINDS.get(spec) or card.get("kind", "learned").split(":")[0]


def training_info(spec: str) -> dict[str, Any]:
    p = SHIPPED_MODELS_DIR / f"{spec}.json"
    return json.loads(p.read_text()) if p.is_file() else {}


def markdown_table(record: dict[str, Any]) -> str:
    """The record as the agents page shows it (the page's generator, ``docs/hooks/docgen/agents.py``, calls this)."""
    lines = [f"| rules | agent | kind | mean ({record['episodes']:,} games) | 95% interval | % of optimal | "
             "mean regret / decision | learning time |", "|---|---|---|---:|---:|---:|---:|---:|"]
    for r in record["rows"]:
        t = r["training_wall_s"]
        train_time = "-" if t is None else f"{t:.0f} s" if t < 60 else f"{t / 60:.0f} min"
        regret = "-" if r["regret_per_decision"] is None else f"{r['regret_per_decision']:.4f}"
        lines.append(f"| {r['rules']} | {r['agent']} | {r['kind']} | {r['mean']:.2f} | "
                     f"[{r['ci95'][0]:.2f}, {r['ci95'][1]:.2f}] | {r['percent_of_optimal']:.2f} | {regret} | "
                     f"{train_time} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--episodes", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rules", nargs="+", default=["yacht", "yahtzee"], choices=list(RULESETS))
    p.add_argument("--record", type=Path, help="write the rows and the settings as JSON (atomically)")
    args = p.parse_args(argv)

    rows: list[dict[str, Any]] = []
    sweep = [(rules, spec) for rules in args.rules for spec in agent_specs(rules)]
    with progress_bar(len(sweep), "agents table", "row") as bar:  # each row's games have a bar of their own
        for rules, spec in sweep:
            res = evaluate(load_agent(spec, rules, seed=args.seed), rules, args.episodes, args.seed, progress=True)
            info = training_info(spec)
            rows.append({"rules": rules, "agent": spec, "kind": agent_kind(spec, info), "mean": res["mean"],
                         "ci95": res["ci95"],
                         "percent_of_optimal": res["percent_of_optimal"],
                         "regret_per_decision": res.get("mean_regret"), "regret_per_game": res.get("regret_per_game"),
                         "training_wall_s": info.get("training_wall_s"), "episodes": res["episodes"]})
            bar.write(f"{rules:8s} {spec:12s} {res['mean']:8.2f}", file=sys.stderr)
            bar.update(1)

    record = {"episodes": args.episodes, "seed": args.seed, "rules": args.rules, "rows": rows}
    print(markdown_table(record))
    if args.record:
        write_text_atomic(args.record, json.dumps(record, indent=1, allow_nan=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
