"""sb3-contrib's MaskablePPO on the vector engine, from a ``train.py`` config, read top to bottom.

Environment (the vectorised engine as an SB3 ``VecEnv``), model (new, or rebuilt from the config and filled from the
newest checkpoint without unpickling it), callbacks (periodic evaluation against optimal play, checkpoints,
progress bar), learning (Ctrl-C saves a checkpoint of the steps actually trained on), final evaluation on seeds
training never used.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from yacht_agents.nets import activation
from yacht_agents.sb3_agent import META_KEY, SB3Agent, load_sb3_agent, model_meta
from yacht_solver import solve
from yacht_tools.evaluation import evaluate
from yacht_tools.heads_up_eval import win_evaluation, win_line
from yacht_training import run_folder as rf
from yacht_training.config import TrainConfig
from yacht_training.heads_up import HeadsUpVecEnv, SnapshotOpponent
from yacht_training.optimizer_state import describe_differences
from yacht_training.sb3_resume import restore_into, save_sb3_atomic
from yacht_training.sb3_vec_env import YachtSB3VecEnv
from yacht_training.schedules import schedule_ends


def build_model(cfg: TrainConfig, env: YachtSB3VecEnv, run_dir: Path) -> Any:
    """A new MaskablePPO for the config (the policy, its kwargs and the schedules all from the config); with entropy
    weights per decision type, the small subclass of :func:`decision_entropy_ppo`."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import LinearSchedule

    def schedule(value: float | str, key: str) -> Any:
        start, end = schedule_ends(value, key)
        return LinearSchedule(start, end, 1.0) if isinstance(value, str) else start

    h = cfg.ppo
    policy_kwargs: dict[str, Any] = dict(net_arch=list(cfg.policy.net_arch),
                                         activation_fn=activation(cfg.policy.activation_fn))
    if cfg.policy.kind == "turn_expectimax":  # box utilities learned, the turn searched exactly
        from yacht_agents.turn_policy import TurnExpectimaxPolicy

        policy: Any = TurnExpectimaxPolicy
        policy_kwargs.update(rules=cfg.rules, reward_scale=cfg.reward_scale,
                             inverse_temperature=cfg.policy.inverse_temperature, box_prior=cfg.policy.box_prior)
    elif cfg.policy.kind == "model_free":  # a plain network: trunk, keep head, score head, value
        from yacht_agents.model_free import ModelFreePolicy

        policy = ModelFreePolicy
        policy_kwargs.update(rules=cfg.rules, keep_head=cfg.policy.keep_head, keep_hidden=cfg.policy.keep_hidden,
                             vf_arch=list(cfg.policy.vf_arch))
        if cfg.players != 1:  # only when set, as ignore_observation
            policy_kwargs.update(players=cfg.players)
        if cfg.policy.ignore_observation:  # only when set: models saved without it keep their policy_kwargs
            policy_kwargs.update(ignore_observation=list(cfg.policy.ignore_observation))
    else:
        policy = "MlpPolicy"
        policy_kwargs.update(ortho_init=cfg.policy.ortho_init)
    algo: Any = MaskablePPO
    ent_coef = h.ent_coef
    entropy = None
    if h.ent_coef_keep is not None and h.ent_coef_score is not None:
        entropy = (schedule_ends(h.ent_coef_keep, "ppo.ent_coef_keep"),
                   schedule_ends(h.ent_coef_score, "ppo.ent_coef_score"))
    if entropy is not None:
        algo = decision_entropy_ppo(*entropy)
        ent_coef = 1.0  # the policy weights each row's entropy itself
    if cfg.exact_budget:
        algo = budgeted_ppo(algo)
    model = algo(
        policy=policy, env=env, learning_rate=schedule(h.learning_rate, "ppo.learning_rate"), n_steps=h.n_steps,
        batch_size=h.batch_size, n_epochs=h.n_epochs, gamma=h.gamma, gae_lambda=h.gae_lambda,
        clip_range=schedule(h.clip_range, "ppo.clip_range"), ent_coef=ent_coef, vf_coef=h.vf_coef,
        max_grad_norm=h.max_grad_norm, target_kl=h.target_kl, seed=cfg.seed, device=cfg.device,
        tensorboard_log=str(run_dir / "tb"), verbose=0, policy_kwargs=policy_kwargs,
    )
    if h.autocast == "bfloat16":  # the network's forward pass in bfloat16, the rest in fp32
        model.policy.mlp_extractor.autocast_bfloat16 = True
    return model


def budgeted_ppo(algo: type) -> type:
    """``algo`` (MaskablePPO or a subclass) whose last rollout is cut short so that ``learn(total)`` stops at
    ``total`` steps, or within one vector step below it, never past it: SB3 itself runs whole rollouts and passes the
    total by up to one (a benchmark budget must hold). The shortened rollout is trained on like any other."""

    class BudgetedPPO(algo):  # type: ignore[misc, valid-type]
        def collect_rollouts(self, env: Any, callback: Any, rollout_buffer: Any, n_rollout_steps: int,
                             *args: Any, **kwargs: Any) -> bool:
            left = (self._total_timesteps - self.num_timesteps) // env.num_envs
            if left <= 0:  # fewer steps left than one vector step: the budget is spent
                return False
            if left < n_rollout_steps:  # the buffer's arrays are made at its size when the rollout resets it
                rollout_buffer.buffer_size, n_rollout_steps = left, left
            return super().collect_rollouts(env, callback, rollout_buffer, n_rollout_steps, *args, **kwargs)

    BudgetedPPO.__name__ = BudgetedPPO.__qualname__ = algo.__name__
    return BudgetedPPO


def decision_entropy_ppo(keep: tuple[float, float], score: tuple[float, float]) -> type:
    """MaskablePPO that, before each update, sets the policy's entropy weights for keep decisions (a roll left)
    and score decisions (none left) from linear schedules ``(start, end)`` over the run
    (:meth:`yacht_agents.model_free.ModelFreePolicy.set_entropy_weights`); the rest is MaskablePPO's."""
    from sb3_contrib import MaskablePPO

    class DecisionEntropyPPO(MaskablePPO):
        def train(self) -> None:
            done = 1.0 - self._current_progress_remaining
            wk = keep[0] + (keep[1] - keep[0]) * done
            ws = score[0] + (score[1] - score[0]) * done
            self.policy.set_entropy_weights(wk, ws)
            self.logger.record("train/ent_coef_keep", wk)
            self.logger.record("train/ent_coef_score", ws)
            super().train()

    return DecisionEntropyPPO


def train_ppo(cfg: TrainConfig, run_dir: Path, resume: bool, progress: bool,
              on_resumed: Callable[[], None] | None = None) -> int:
    from stable_baselines3.common.callbacks import BaseCallback

    from yacht_tools.progress import progress_bar

    # ---- 1. environment: the vectorised engine, seeded per game; heads-up: games of two against a snapshot ----
    heads_up = cfg.players == 2
    if heads_up:
        env: Any = HeadsUpVecEnv(cfg.n_envs, cfg.rules, seed=cfg.seed, reward_scale=cfg.reward_scale,
                                 unique_keeps=cfg.unique_keeps)
        measure = win_evaluation
    else:
        env = YachtSB3VecEnv(num_envs=cfg.n_envs, rules=cfg.rules, seed=cfg.seed, unique_keeps=cfg.unique_keeps,
                             reward_scale=cfg.reward_scale)
        measure = evaluate

    # ---- 2. model: new, or rebuilt from the config and filled from the newest checkpoint that loads -----------
    model = build_model(cfg, env, run_dir)
    if resume:
        report, path = rf.load_newest(run_dir, cfg, lambda p: restore_into(model, p, include=[META_KEY]), on_resumed)
        print(f"resuming from {path.name} at step {model.num_timesteps:,} of {cfg.total_timesteps:,}")
        if report.differences:
            print(f"train.py: {path.name} has other settings than the config, the config's are kept: "
                  f"{describe_differences(report.differences)}", file=sys.stderr)
    setattr(model, META_KEY, model_meta(cfg.rules, cfg.unique_keeps, cfg.players))
    opponent = SnapshotOpponent(model.policy, cfg.seed) if heads_up else None
    if opponent is not None:
        env.opponent = opponent

    def save(path: Path) -> None:
        save_sb3_atomic(model, path, include=[META_KEY])

    # ---- 3. callbacks: periodic evaluation against optimal, checkpoints, progress bar -------------------------
    evals = rf.evaluations_until(run_dir, model.num_timesteps)
    best = max((e["mean"] for e in evals), default=float("-inf"))

    clock = rf.LearningClock(rf.training_seconds(run_dir))

    def periodic_evaluation() -> None:
        nonlocal best
        with clock.paused():
            agent = SB3Agent(model.policy, cfg.rules, unique_keeps=cfg.unique_keeps, players=cfg.players)
            res = measure(agent, cfg.rules, cfg.eval.episodes, cfg.eval.seed, **({} if heads_up else {"regret": False}))
        rf.record_evaluation(run_dir, evals, model.num_timesteps, res, clock.seconds())
        model.logger.record("eval/win_rate" if heads_up else "eval/mean_score", res["mean"])
        model.logger.record("eval/percent_of_optimal", res["percent_of_optimal"])
        model.logger.dump(model.num_timesteps)
        if res["mean"] > best:
            best = res["mean"]
            save(run_dir / "best_model.zip")

    class Monitor(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.trained = model.num_timesteps  # steps whose rollouts have been trained on
            self.out_of_time = False  # max_learning_s stopped the run

        def _on_training_start(self) -> None:
            self.good = _finite_snapshot(model)
            if cfg.exact_budget:
                end = budget_end(self.num_timesteps, cfg.total_timesteps, model.n_envs)
                said = f"is not a multiple of n_envs {model.n_envs}: the run stops at {end:,}"
            else:
                end = rollout_end(self.num_timesteps, cfg.total_timesteps, model.n_steps * model.n_envs)
                said = f"rounded up to whole rollouts of {model.n_steps * model.n_envs:,} steps: {end:,}"
            if end != cfg.total_timesteps and progress:
                print(f"total_timesteps {cfg.total_timesteps:,} {said}", file=sys.stderr)
            self.bar = progress_bar(end, cfg.algo, "step", enabled=progress, initial=self.num_timesteps)
            self.next_eval = (self.num_timesteps // cfg.eval.freq + 1) * cfg.eval.freq
            self.next_ckpt = (self.num_timesteps // cfg.checkpoint_freq + 1) * cfg.checkpoint_freq

        def _on_rollout_start(self) -> None:
            self.trained = self.num_timesteps  # the previous rollout has just been trained on
            snapshot = _finite_snapshot(model)
            if snapshot is None:
                raise _Diverged
            self.good = snapshot
            if opponent is not None:  # self-play: the other seat plays the policy just trained
                opponent.update(model.policy)
            if self.trained >= self.next_ckpt:
                self.next_ckpt += cfg.checkpoint_freq
                save(rf.checkpoint_path(run_dir, cfg, self.trained))

        def _on_step(self) -> bool:
            self.bar.update(self.num_timesteps - self.bar.n)
            self.out_of_time = cfg.max_learning_s is not None and clock.seconds() >= cfg.max_learning_s
            return not self.out_of_time

        def _on_rollout_end(self) -> None:
            if self.num_timesteps >= self.next_eval:
                self.next_eval += cfg.eval.freq
                periodic_evaluation()
                self.bar.set_postfix_str(f"eval {evals[-1]['mean']:.1f} ({evals[-1]['percent_of_optimal']:.1f}% of "
                                         "optimal)")

        def _on_training_end(self) -> None:
            self.bar.close()

    # ---- 4. learning; Ctrl-C saves the steps actually trained on and exits ----------------------------------------
    monitor = Monitor()
    remaining = cfg.total_timesteps - model.num_timesteps
    clock.start()
    try:
        if remaining > 0:
            model.learn(remaining, callback=monitor, reset_num_timesteps=not resume, tb_log_name="tb")
        else:
            print(f"the run has {model.num_timesteps:,} steps, total_timesteps is {cfg.total_timesteps:,}: "
                  "nothing left to learn")
    except (_Diverged, ValueError, RuntimeError) as e:
        if not isinstance(e, _Diverged) and _finite_snapshot(model) is not None:
            raise  # not a divergence: an error of its own
        return _stop_diverged(model, monitor, save, run_dir, cfg)
    except KeyboardInterrupt:
        model.num_timesteps = monitor.trained  # the rollout under way was not trained on: it is redone
        save(rf.checkpoint_path(run_dir, cfg, model.num_timesteps))
        rf.add_training_seconds(run_dir, clock.session())
        if hasattr(monitor, "bar"):
            monitor.bar.close()
        print(f"\ninterrupted at step {model.num_timesteps:,}: checkpoint saved. Continue with:\n"
              f"  python train.py --resume {run_dir}")
        return 130  # the shell's status for SIGINT, as everywhere else: a script sees it stopped
    if remaining > 0:
        if monitor.out_of_time:  # the rollout under way when the time ran out was not trained on
            model.num_timesteps = monitor.trained
            print(f"max_learning_s {cfg.max_learning_s:g} reached after {model.num_timesteps:,} steps")
        save(rf.checkpoint_path(run_dir, cfg, model.num_timesteps))
    save(run_dir / "final_model.zip")
    rf.add_training_seconds(run_dir, clock.session())

    # ---- 5. final evaluation on unseen seeds of the model ppo.final_model names -------------------------------
    # "final": the last policy (the learning rate has decayed to 0). "best": the best periodic evaluation, which on
    # 1,000-game means mostly picks the luckiest one (measured: README, "Training").
    try:
        if not evals or evals[-1]["timesteps"] != model.num_timesteps:
            periodic_evaluation()
        chosen = f"{cfg.ppo.final_model}_model.zip"
        agent = load_sb3_agent(run_dir / chosen, cfg.rules)
        result = measure(agent, cfg.rules, cfg.eval.final_episodes, cfg.eval.seed + 10_000_000, progress=progress)
    except KeyboardInterrupt:
        print(f"\ninterrupted during the final evaluation; the model is saved. Evaluate it with:\n"
              f"  python train.py --resume {run_dir}", file=sys.stderr)
        return 130
    result.update(agent=chosen, training_timesteps=model.num_timesteps, training_wall_s=rf.training_seconds(run_dir))
    rf.write_json(run_dir / "eval.json", result)
    title = f"MaskablePPO on {cfg.rules}" + (": win rate against optimal, % of an even share" if heads_up else "")
    rf.plot_learning_curve(evals, run_dir / "learning_curve.png", title, final=result,
                           final_steps=model.num_timesteps, periodic_games=cfg.eval.episodes)
    if heads_up:
        print(win_line(cfg.rules, chosen, result))
        return 0
    optimal = solve(cfg.rules).start_value
    print(f"{cfg.rules}: {chosen} scores {result['mean']:.2f} ± {result['ci95'][1] - result['mean']:.2f} over "
          f"{result['episodes']:,} games = {result['percent_of_optimal']:.2f}% of optimal ({optimal:.4f})")
    return 0


def rollout_end(start: int, total: int, rollout: int) -> int:
    """The step at which SB3's ``learn`` stops: from ``start``, whole rollouts of ``rollout`` steps until ``total`` is
    reached or passed (the progress bar's end, so that it ends at 100%)."""
    if start >= total:
        return start
    return start + -(-(total - start) // rollout) * rollout


def budget_end(start: int, total: int, n_envs: int) -> int:
    """The step at which ``learn`` stops (:func:`budgeted_ppo`): from ``start``, vector steps of ``n_envs`` while they
    fit in ``total`` (the progress bar's end, so that it ends at 100%)."""
    if start >= total:
        return start
    return start + (total - start) // n_envs * n_envs


class _Diverged(Exception):
    """The policy's weights became non-finite during training."""


def _finite_snapshot(model: Any) -> tuple[int, dict[str, Any], dict[str, Any]] | None:
    """``(steps, policy weights, optimizer state)`` copied, or ``None`` if a weight is not finite (the run
    diverged). Taken after each update: a copy of a few hundred thousand numbers, nothing beside a rollout."""
    import copy

    import torch

    if not all(bool(torch.isfinite(p).all()) for p in model.policy.parameters()):
        return None
    return (model.num_timesteps, copy.deepcopy(model.policy.state_dict()),
            copy.deepcopy(model.policy.optimizer.state_dict()))


def _stop_diverged(model: Any, monitor: Any, save: Any, run_dir: Path, cfg: TrainConfig) -> int:
    """Save the last finite weights as a checkpoint and say so on one line; exit status 1."""
    if getattr(monitor, "good", None) is None:
        raise ValueError("training diverged before its first update: the policy's weights are not finite")
    steps, weights, optimizer = monitor.good
    model.policy.load_state_dict(weights)
    model.policy.optimizer.load_state_dict(optimizer)
    model.num_timesteps = steps
    path = rf.checkpoint_path(run_dir, cfg, steps)
    save(path)
    if hasattr(monitor, "bar"):
        monitor.bar.close()
    print(f"train.py: error: training diverged after step {steps:,}: the policy's weights became infinite or NaN "
          f"(ppo.learning_rate {cfg.ppo.learning_rate!r} is likely too large); the last finite weights are saved in "
          f"{path}", file=sys.stderr)
    return 1
