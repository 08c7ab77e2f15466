"""Train an agent for Yacht or Yahtzee and measure it against optimal play.

    python train.py                                    # the default Yacht config: configs/yacht_td.yaml
    python train.py --config configs/yacht_maskable_ppo.yaml --timesteps 2000000 --seed 1
    python train.py --resume runs/yacht_maskable_ppo-s0-20261130-101500     # continue an interrupted run

A run folder holds: config.yaml (resolved), command.txt, tb/ (TensorBoard: mean score, percent of optimal, losses),
checkpoints/ (periodic, and latest.zip on Ctrl-C), best_model.zip (best periodic evaluation), final_model.zip,
evaluations.json, eval.json (final evaluation of the model ``ppo.final_model`` names, the format of ``yacht eval``)
and learning_curve.png. Ctrl-C saves a checkpoint and exits; ``--resume`` continues with the same step count and
schedules.

Read top to bottom: configuration, environment, model, callbacks, learning, final evaluation.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agents.train_config import TrainConfig

DEFAULT_CONFIG = Path(__file__).resolve().parent / "configs" / "yacht_td.yaml"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="YAML config (default: %(default)s)")
    p.add_argument("--timesteps", type=int, help="override total_timesteps")
    p.add_argument("--seed", type=int, help="override seed")
    p.add_argument("--device", help="override device (cpu, cuda, auto)")
    p.add_argument("--run-dir", type=Path, default=Path("runs"), help="folder for run folders (default: runs)")
    p.add_argument("--resume", type=Path, metavar="RUN_DIR", help="continue the run in RUN_DIR from its latest "
                   "checkpoint")
    p.add_argument("--final-episodes", type=int, help="override eval.final_episodes")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)

    # ---- 1. configuration ------------------------------------------------------------------------------------
    from agents import train_support as ts
    from agents.train_config import load_config, validate

    if args.resume:
        run_dir = args.resume
        if not (run_dir / "config.yaml").is_file():
            raise ValueError(f"--resume {str(run_dir)!r}: no config.yaml there: not a run folder of train.py")
        cfg = load_config(run_dir / "config.yaml")
        if not (run_dir / ts.LATEST[cfg.algo]).is_file():
            raise ValueError(f"--resume {str(run_dir)!r}: no {ts.LATEST[cfg.algo]} there to resume from")
    else:
        cfg = load_config(args.config)
    for key, value in (("total_timesteps", args.timesteps), ("seed", args.seed), ("device", args.device)):
        if value is not None:
            setattr(cfg, key, value)
    if args.final_episodes is not None:
        cfg.eval.final_episodes = args.final_episodes
    cfg = validate(cfg)
    if not args.resume:
        run_dir = ts.new_run_dir(args.run_dir, cfg, Path(args.config).stem)
    ts.record_run(run_dir, cfg, ["train.py", *argv])
    print(f"run folder: {run_dir}")

    import torch

    torch.set_num_threads(cfg.torch_threads)
    if cfg.algo == "td":
        from agents.td import train_td

        return train_td(cfg, run_dir, resume=bool(args.resume), progress=not args.no_progress)
    return train_ppo(cfg, run_dir, resume=bool(args.resume), progress=not args.no_progress)


def train_ppo(cfg: TrainConfig, run_dir: Path, resume: bool, progress: bool) -> int:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.utils import LinearSchedule
    from tqdm import tqdm

    from agents import train_support as ts
    from agents.evaluation import evaluate
    from agents.ppo import META_KEY, PPOAgent, model_meta
    from agents.sb3_vec_env import YachtSB3VecEnv
    from agents.train_config import schedule_value
    from yacht_env.solver import solve

    # ---- 2. environment: the vectorised engine, seeded per game ----------------------------------------------
    env = YachtSB3VecEnv(num_envs=cfg.n_envs, rules=cfg.rules, seed=cfg.seed, unique_keeps=cfg.unique_keeps,
                         reward_scale=cfg.reward_scale)
    optimal = solve(cfg.rules).start_value

    # ---- 3. model: new, or the latest checkpoint of the run ---------------------------------------------------
    def schedule(value: float | str, key: str):  # noqa: ANN202 - SB3 schedule callable
        start = schedule_value(value, key)
        return LinearSchedule(start, 0.0, 1.0) if isinstance(value, str) else start

    if resume:
        model = MaskablePPO.load(run_dir / ts.LATEST[cfg.algo], env=env, device=cfg.device)
        print(f"resuming at step {model.num_timesteps:,} of {cfg.total_timesteps:,}")
    else:
        activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU, "elu": torch.nn.ELU, "gelu": torch.nn.GELU}
        h = cfg.ppo
        policy_kwargs = dict(net_arch=list(cfg.policy.net_arch), activation_fn=activation[cfg.policy.activation_fn])
        if cfg.policy.kind == "turn_expectimax":  # box utilities learned, the turn searched exactly
            from agents.turn_policy import TurnExpectimaxPolicy

            policy = TurnExpectimaxPolicy
            policy_kwargs.update(rules=cfg.rules, reward_scale=cfg.reward_scale,
                                 inverse_temperature=cfg.policy.inverse_temperature,
                                 box_prior=cfg.policy.box_prior)
        else:
            policy = "MlpPolicy"
            policy_kwargs.update(ortho_init=cfg.policy.ortho_init)
        model = MaskablePPO(
            policy, env, learning_rate=schedule(h.learning_rate, "ppo.learning_rate"), n_steps=h.n_steps,
            batch_size=h.batch_size, n_epochs=h.n_epochs, gamma=h.gamma, gae_lambda=h.gae_lambda,
            clip_range=schedule(h.clip_range, "ppo.clip_range"), ent_coef=h.ent_coef, vf_coef=h.vf_coef,
            max_grad_norm=h.max_grad_norm, target_kl=h.target_kl, seed=cfg.seed, device=cfg.device,
            tensorboard_log=str(run_dir / "tb"), verbose=0,
            policy_kwargs=policy_kwargs,
        )
    setattr(model, META_KEY, model_meta(cfg.rules, cfg.unique_keeps))

    def save(path: Path) -> None:
        model.save(path, include=[META_KEY])

    # ---- 4. callbacks: periodic evaluation against optimal, checkpoints, progress bar -------------------------
    evals = ts.load_evaluations(run_dir)
    best = max((e["mean"] for e in evals), default=float("-inf"))

    class Monitor(BaseCallback):
        def _on_training_start(self) -> None:
            self.bar = tqdm(total=cfg.total_timesteps, initial=self.num_timesteps, unit="step", disable=not progress,
                            dynamic_ncols=True)
            self.next_eval = (self.num_timesteps // cfg.eval.freq + 1) * cfg.eval.freq
            self.next_ckpt = (self.num_timesteps // cfg.checkpoint_freq + 1) * cfg.checkpoint_freq

        def _on_step(self) -> bool:
            self.bar.update(self.num_timesteps - self.bar.n)
            if self.num_timesteps >= self.next_eval:
                self.next_eval += cfg.eval.freq
                self.evaluate()
            if self.num_timesteps >= self.next_ckpt:
                self.next_ckpt += cfg.checkpoint_freq
                save(run_dir / "checkpoints" / f"step_{self.num_timesteps}.zip")
            return True

        def evaluate(self) -> None:
            nonlocal best
            agent = PPOAgent(self.model, cfg.rules, unique_keeps=cfg.unique_keeps)
            res = evaluate(agent, cfg.rules, cfg.eval.episodes, cfg.eval.seed, regret=False, progress=False)
            evals.append({"timesteps": self.num_timesteps, "mean": res["mean"],
                          "percent_of_optimal": res["percent_of_optimal"], "time": time.time()})
            ts.save_evaluations(run_dir, evals)
            self.logger.record("eval/mean_score", res["mean"])
            self.logger.record("eval/percent_of_optimal", res["percent_of_optimal"])
            self.logger.dump(self.num_timesteps)
            if res["mean"] > best:
                best = res["mean"]
                save(run_dir / "best_model.zip")
            self.bar.set_postfix_str(f"eval {res['mean']:.1f} ({res['percent_of_optimal']:.1f}% of optimal)")

        def _on_training_end(self) -> None:
            self.bar.close()

    # ---- 5. learning; Ctrl-C saves and exits -------------------------------------------------------------------
    monitor = Monitor()
    remaining = cfg.total_timesteps - model.num_timesteps
    started = time.perf_counter()
    try:
        if remaining > 0:
            model.learn(remaining, callback=monitor, reset_num_timesteps=not resume, tb_log_name="tb")
    except KeyboardInterrupt:
        save(run_dir / ts.LATEST[cfg.algo])
        ts.add_training_seconds(run_dir, time.perf_counter() - started)
        monitor.bar.close()
        print(f"\ninterrupted at step {model.num_timesteps:,}: checkpoint saved. Continue with:\n"
              f"  python train.py --resume {run_dir}")
        return 0
    save(run_dir / ts.LATEST[cfg.algo])
    save(run_dir / "final_model.zip")
    ts.add_training_seconds(run_dir, time.perf_counter() - started)
    if not evals or evals[-1]["timesteps"] != model.num_timesteps:
        monitor.evaluate()

    # ---- 6. final evaluation on unseen seeds of the model ppo.final_model names -------------------------------
    # "final": the last policy (the learning rate has decayed to 0). "best": the best periodic evaluation, which on
    # 1,000-game means mostly picks the luckiest one (measured: README, "Training").
    from agents.ppo import load_ppo_agent

    chosen = f"{cfg.ppo.final_model}_model.zip"
    agent = load_ppo_agent(run_dir / chosen, cfg.rules)
    result = evaluate(agent, cfg.rules, cfg.eval.final_episodes, cfg.eval.seed + 10_000_000, progress=progress)
    result.update(agent=chosen, training_timesteps=model.num_timesteps,
                  training_wall_s=ts.training_seconds(run_dir))
    (run_dir / "eval.json").write_text(json.dumps(result, indent=1))
    ts.plot_learning_curve(evals, run_dir / "learning_curve.png", f"MaskablePPO on {cfg.rules}")
    print(f"{cfg.rules}: {chosen} scores {result['mean']:.2f} ± {result['ci95'][1] - result['mean']:.2f} over "
          f"{result['episodes']:,} games = {result['percent_of_optimal']:.2f}% of optimal ({optimal:.4f})")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ValueError as e:
        print(f"train.py: error: {e}", file=sys.stderr)
        sys.exit(2)
