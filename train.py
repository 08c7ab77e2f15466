"""Train an agent for Yacht or its relatives and measure it against optimal play.

    python train.py                                    # the default Yacht config: configs/yacht_td.yaml
    python train.py --config configs/yacht_maskable_ppo.yaml --timesteps 2000000 --seed 1
    python train.py --resume runs/yacht_maskable_ppo-s0-20261130-101500     # continue an interrupted run
    python train.py --config configs/yacht_rllib_ppo.yaml [--ray-address HOST:PORT]   # Ray RLlib's PPO

A run folder holds: config.yaml (resolved), command.txt, tb/ (TensorBoard: mean score, percent of optimal, losses),
checkpoints/ (periodic, and at the end or on Ctrl-C), best_model (best periodic evaluation), final_model,
evaluations.json, eval.json (the final evaluation, on seeds training never used, in the format of ``yacht eval``)
and learning_curve.png (see ``yacht_training/run_folder.py``). Ctrl-C saves a checkpoint and exits 130; ``--resume``
continues from the newest checkpoint that loads, with the same step count and schedules.

Read top to bottom: configuration, run folder, then the algorithm's own story (``yacht_training/td_learner.py``,
``yacht_training/sb3_ppo.py``, ``yacht_training/rllib_ppo.py``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from yacht_cli import options
from yacht_env.interrupt import prompt_interrupts
from yacht_tools.evaluation import MAX_EPISODES
from yacht_tools.seeds import check_int, check_seed

try:  # without the train extra: one line that names it (yacht_training checks), not a traceback
    from yacht_training import run_folder as rf
    from yacht_training.algorithms import train
    from yacht_training.config import TrainConfig, load_config, validate
    from yacht_training.device import check_device
except ModuleNotFoundError as e:
    if __name__ != "__main__":
        raise
    print(f"train.py: error: {e}", file=sys.stderr)  # exit status 2, as for the other errors of the command line
    sys.exit(2)

DEFAULT_CONFIG = Path(__file__).resolve().parent / "configs" / "yacht_td.yaml"


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``train.py`` (the documentation's CLI reference reads it too)."""
    p = argparse.ArgumentParser(prog="train.py", description=__doc__.split("\n")[0])
    p.add_argument("--config", type=Path, help="YAML config (default: configs/yacht_td.yaml); "
                   "not with --resume")
    p.add_argument("--timesteps", help="override total_timesteps (a positive integer)")
    options.add_seed(p, default=None, help_="override seed")
    p.add_argument("--device", help="override device (cpu, cuda, auto)")
    p.add_argument("--run-dir", type=Path, help="folder for run folders (default: runs); not with --resume")
    p.add_argument("--resume", type=Path, metavar="RUN_DIR", help="continue the run in RUN_DIR from its newest "
                   "checkpoint that loads (--timesteps, --device, --final-episodes, --eval-every may change; each "
                   "change is recorded in RUN_DIR/config_changes.txt)")
    p.add_argument("--final-episodes", help="override eval.final_episodes (a positive integer)")
    p.add_argument("--eval-every", metavar="STEPS", help="override eval.freq: environment steps between the periodic "
                   "evaluations of the learning curve (a positive integer)")
    p.add_argument("--ray-address", help="algo rllib_ppo: join this Ray cluster (HOST:PORT or 'auto'; default: "
                   "$RAY_ADDRESS, else start Ray locally)")
    options.add_progress(p)
    return p


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    return build_parser().parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)

    # ---- 1. configuration: a config file, or the resolved config of the run folder to resume -----------------------
    if args.resume:
        given = [flag for flag, value in (("--config", args.config), ("--run-dir", args.run_dir)) if value is not None]
        if given:
            raise ValueError(f"{' and '.join(given)} cannot be used with --resume: the run continues with the config "
                             f"of its folder, in its folder")
        run_dir = args.resume
        if not (run_dir / rf.CONFIG_FILE).is_file():
            raise ValueError(f"--resume {str(run_dir)!r}: no {rf.CONFIG_FILE} there: not a run folder of train.py")
        cfg = load_config(run_dir / rf.CONFIG_FILE, complete=True)
        if args.seed is not None and check_seed(args.seed) != cfg.seed:
            raise ValueError("--seed cannot be used with --resume: the run's games and networks are seeded from its "
                             f"start (seed {cfg.seed}); start a new run for another seed")
    else:
        cfg = load_config(args.config or DEFAULT_CONFIG)
    before = cfg.to_dict()
    if args.timesteps is not None:
        cfg.total_timesteps = check_int(args.timesteps, "--timesteps", 1)
    if args.seed is not None:
        cfg.seed = check_seed(args.seed)
    if args.device is not None:
        cfg.device = args.device
    if args.eval_every is not None:
        cfg.eval.freq = check_int(args.eval_every, "--eval-every", 1)
    if args.final_episodes is not None:
        cfg.eval.final_episodes = check_int(args.final_episodes, "--final-episodes", 1, MAX_EPISODES)
    cfg = validate(cfg)
    check_device(cfg.device)

    # ---- 2. the run folder: made (or, to resume, locked) only once everything above holds --------------------------
    if args.resume:
        lock, changed = rf.lock_run(run_dir), rf.changes(before, cfg.to_dict())
    else:
        config = Path(args.config or DEFAULT_CONFIG)
        name = config.stem if config.is_file() else "config"  # a pipe (--config <(...)) has no name worth keeping
        run_dir, lock = rf.new_run_dir(args.run_dir or Path("runs"), cfg, name)
        changed = []
    with lock:  # held to the end: a second train.py on this folder is refused, not interleaved
        def record() -> None:
            rf.record_run(run_dir, cfg, ["train.py", *argv], changes=changed)

        if not args.resume:
            record()
        print(f"run folder: {run_dir}")  # a resumed run is recorded once a checkpoint has loaded: check, then write
        return _run_algorithm(cfg, run_dir, args, record if args.resume else None)


def _run_algorithm(cfg: TrainConfig, run_dir: Path, args: argparse.Namespace,
                   on_resumed: Callable[[], None] | None = None) -> int:
    # ---- 3. the algorithm: its own story in yacht_training (td_learner, sb3_ppo, rllib_ppo) ------------------------
    progress = options.progress(args) if args.progress is not None else True
    return train(cfg, run_dir, resume=bool(args.resume), progress=progress, ray_address=args.ray_address,
                 on_resumed=on_resumed)


if __name__ == "__main__":
    prompt_interrupts()  # Ctrl-C ends the run within a moment, its checkpoint saved
    try:
        sys.exit(main())
    except (ValueError, ModuleNotFoundError) as e:  # a bad config, option or run folder: one line
        print(f"train.py: error: {e}", file=sys.stderr)
        sys.exit(2)
    except RecursionError:
        print("train.py: error: the input is nested too deeply", file=sys.stderr)
        sys.exit(2)
    except MemoryError as e:  # numpy says how much it asked for; the files written so far stay good
        print(f"train.py: error: out of memory{f': {e}' if str(e) else ''}", file=sys.stderr)
        sys.exit(1)
    except OSError as e:  # a full disk, a folder gone: the files written so far stay good (they are atomic)
        print(f"train.py: error: {e}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:  # before training started, or after it saved: nothing to keep
        print("\ntrain.py: interrupted", file=sys.stderr)
        sys.exit(130)
