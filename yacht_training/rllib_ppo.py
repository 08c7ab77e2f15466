"""Ray RLlib's PPO on Yacht / Yahtzee: ``train.py --config configs/yacht_rllib_ppo.yaml`` (``algo: rllib_ppo``).

RLlib's new API stack: ``PPOConfig().api_stack(enable_rl_module_and_learner=True,
enable_env_runner_and_connector_v2=True)``, env runners (Ray actors) stepping the project's vectorised engine with
the observation as RLlib's action-masking ``Dict`` (:mod:`yacht_training.rllib_env`), and a custom
``TorchRLModule`` masking the logits (:mod:`yacht_training.rllib_module`). The config's ``rllib`` section
(:class:`yacht_training.config.RLlibConfig`) sets the env runners, the batch sizes and PPO's coefficients. Ray
starts locally unless ``ray_address`` (``train.py --ray-address``) or ``$RAY_ADDRESS`` names a cluster to join.

The run folder is the one of every ``train.py`` algorithm:

- ``config.yaml``, ``command.txt``, ``tb/`` (TensorBoard), ``evaluations.json``, ``learning_curve.png``;
- ``checkpoints/step_N.pt`` (periodic, and at the end or on Ctrl-C; ``--resume`` takes the newest that loads):
  our own format, not RLlib's pickled checkpoints: the module's weights and the learner's optimizer state as
  tensors and plain containers, counters as plain numbers, read back with ``torch.load(..., weights_only=True)``.
  A resumed run rebuilds the algorithm from ``config.yaml``, loads weights and optimizer state into RLlib's learner
  (``LearnerGroup.set_state``), syncs the env runners, and continues the learning-rate schedule where it stopped.
  It is not a bit-exact continuation: the games in progress at the interruption are dropped and the resumed
  session plays new games (seeds of session k + 1, :func:`yacht_training.rllib_env.training_game_seed`).
- ``best_model.pt`` / ``final_model.pt``: the policy network in the ray-free format of :mod:`yacht_agents.rllib_agent`
  (``yacht eval --agent runs/.../final_model.pt`` or the run folder itself);
- ``eval.json``: the model ``rllib.final_model`` names, on ``eval.final_episodes`` games seeded from
  ``eval.seed + 10_000_000`` (:func:`yacht_tools.evaluation.evaluate`), seeds that training never uses.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from yacht_agents.nets import load_torch_file
from yacht_env.extras import require
from yacht_training.optimizer_state import describe_differences, keep_own_settings_in_state

if TYPE_CHECKING:
    from yacht_training.config import TrainConfig

ENV_NAME = "yacht-rllib"
CHECKPOINT_FORMAT = "yacht-env-rllib-ppo-checkpoint"
CHECKPOINT_VERSION = 1


# ---- the algorithm's configuration --------------------------------------------------------------------------------


def lr_schedule(lr: float | str, total_timesteps: int, done: int) -> float | list[list[float]]:
    """RLlib's ``lr`` for a session starting at step ``done``: a number, or for ``lin_<start>`` the piecewise
    linear schedule over the session's own step counter that continues ``start * (1 - steps / total)``."""
    from yacht_training.schedules import schedule_value

    start = schedule_value(lr, "rllib.lr")
    if not isinstance(lr, str):
        return start
    left = max(total_timesteps - done, 1)
    return [[0, start * max(1.0 - done / total_timesteps, 0.0)], [left, 0.0]]


def learner_gpus(device: str) -> int:
    """GPUs for the (one, local) learner: 0 for ``cpu``, 1 for ``cuda``/``cuda:N``, ``auto`` if torch sees one."""
    import torch

    if device == "auto":
        return int(torch.cuda.is_available())
    return 0 if device == "cpu" else 1


def env_config(cfg: TrainConfig, session: int) -> dict[str, Any]:
    """The ``env_config`` every env runner gets (see :mod:`yacht_training.rllib_env`)."""
    from yacht_training.rllib_env import SESSION_SEED_STRIDE

    return {"rules": cfg.rules, "unique_keeps": cfg.unique_keeps, "reward_scale": cfg.reward_scale,
            "seed": cfg.seed, "rllib_seed": cfg.seed + SESSION_SEED_STRIDE * session, "session": session}


def ppo_config(cfg: TrainConfig, session: int = 0, done: int = 0) -> Any:
    """The ``PPOConfig`` of a run (session ``session``, resuming at step ``done``), from its config."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from yacht_training.rllib_module import MaskedMLPModule

    r = cfg.rllib
    env_cfg = env_config(cfg, session)
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(env=ENV_NAME, env_config=env_cfg)
        .env_runners(num_env_runners=r.num_env_runners, num_envs_per_env_runner=r.num_envs_per_env_runner,
                     num_cpus_per_env_runner=r.num_cpus_per_env_runner,
                     gym_env_vectorize_mode="vector_entry_point" if r.vectorize == "engine" else "sync")
        .learners(num_learners=0, num_gpus_per_learner=learner_gpus(cfg.device))
        .training(train_batch_size=r.train_batch_size, minibatch_size=r.minibatch_size, num_epochs=r.num_epochs,
                  lr=lr_schedule(r.lr, cfg.total_timesteps, done), gamma=r.gamma, lambda_=r.lambda_,
                  clip_param=r.clip_param, entropy_coeff=r.entropy_coeff, vf_loss_coeff=r.vf_loss_coeff,
                  vf_clip_param=float("inf") if r.vf_clip_param is None else r.vf_clip_param,
                  grad_clip=r.grad_clip, grad_clip_by="global_norm", use_kl_loss=r.use_kl_loss)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedMLPModule, model_config={
            "hidden": list(r.hidden), "activation": r.activation, "ortho_init": r.ortho_init}))
        .debugging(seed=env_cfg["rllib_seed"], log_level="ERROR")
    )


def start_ray(cfg: TrainConfig, address: str | None) -> bool:
    """Join the cluster at ``address`` (or ``$RAY_ADDRESS``), else start Ray locally with at least the
    logical CPUs the env runners ask for. Returns whether this call started Ray (then it should shut it down)."""
    import ray

    from yacht_training.rllib_env import make_env

    if ray.is_initialized():
        started = False
    elif address or os.environ.get("RAY_ADDRESS"):
        ray.init(address=address or os.environ["RAY_ADDRESS"], include_dashboard=False)
        started = True
    else:
        need = math.ceil(cfg.rllib.num_env_runners * cfg.rllib.num_cpus_per_env_runner)
        ray.init(num_cpus=max(os.cpu_count() or 1, need), include_dashboard=False)
        started = True
    from ray.tune.registry import register_env

    register_env(ENV_NAME, make_env)
    return started


# ---- weights and checkpoints ----------------------------------------------------------------------------------------


def _to_torch(x: Any) -> Any:
    """Arrays in a nested state become tensors (``torch.load(weights_only=True)`` reads tensors, not arrays);
    numpy scalars become Python numbers."""
    import torch

    if isinstance(x, dict):
        return {k: _to_torch(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_to_torch(v) for v in x)
    if isinstance(x, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(x)).clone()
    if isinstance(x, np.generic):
        return x.item()
    return x


def learner_state(algo: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(module state dict, optimizer state) of the learner, as tensors and plain containers."""
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_OPTIMIZER, COMPONENT_RL_MODULE, DEFAULT_MODULE_ID

    st = algo.learner_group.get_state(components=[f"{COMPONENT_LEARNER}/{COMPONENT_RL_MODULE}",
                                                  f"{COMPONENT_LEARNER}/{COMPONENT_OPTIMIZER}"])[COMPONENT_LEARNER]
    return _to_torch(st[COMPONENT_RL_MODULE][DEFAULT_MODULE_ID]), _to_torch(st[COMPONENT_OPTIMIZER])


def set_learner_state(algo: Any, module: dict[str, Any], optimizer: dict[str, Any]) -> None:
    """Load weights and optimizer state into the learner and send the weights to every env runner."""
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_OPTIMIZER, COMPONENT_RL_MODULE, DEFAULT_MODULE_ID

    algo.learner_group.set_state({COMPONENT_LEARNER: {COMPONENT_RL_MODULE: {DEFAULT_MODULE_ID: module},
                                                      COMPONENT_OPTIMIZER: optimizer}})
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, inference_only=True)


def policy_state_dict(module_state: dict[str, Any]) -> dict[str, Any]:
    """The policy network's part of the module's state dict, keyed as :func:`yacht_agents.nets.mlp`."""
    return {k[len("pi."):]: v for k, v in module_state.items() if k.startswith("pi.")}


def save_checkpoint(path: Path, meta: dict[str, Any], module: dict[str, Any], optimizer: dict[str, Any],
                    counters: dict[str, Any]) -> None:
    """Write a training checkpoint (atomically; see the module docstring)."""
    import torch

    from yacht_env.files import write_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, "meta": meta, "module": module,
            "optimizer": optimizer, "counters": json.loads(json.dumps(counters))}
    write_atomic(path, lambda f: torch.save(data, f))


def load_checkpoint(path: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """Read a checkpoint with ``weights_only=True``; ``ValueError`` unless it is ours and fits ``meta``."""
    try:
        ck = load_torch_file(path)
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot read {str(path)!r} as an RLlib PPO checkpoint: {e}") from None
    if not isinstance(ck, dict) or ck.get("format") != CHECKPOINT_FORMAT or ck.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"{str(path)!r} is not a checkpoint of this version of yacht_training.rllib_ppo")
    if ck["meta"] != meta:
        raise ValueError(f"{str(path)!r} does not match the run's config: {ck['meta']} vs {meta}")
    from yacht_training.run_folder import checked_counters

    try:
        ck["counters"] = checked_counters(ck.get("counters"), {"timesteps": 0, "iterations": 0, "episodes": 0,
                                                               "session": 0})
    except ValueError as e:
        raise ValueError(f"{str(path)!r}: {e}") from None
    return ck


# ---- the run ------------------------------------------------------------------------------------------------------


def train_rllib_ppo(cfg: TrainConfig, run_dir: Path, resume: bool = False, progress: bool = True,
                    ray_address: str | None = None, on_resumed: Callable[[], None] | None = None) -> int:
    """Train RLlib's PPO in ``run_dir`` (see the module docstring); Ctrl-C saves a checkpoint and
    returns, ``resume`` continues from it. Returns the exit status."""
    require("ray", what="algo rllib_ppo")
    import ray
    import torch

    from yacht_agents.nets import mlp
    from yacht_agents.rllib_agent import load_rllib_agent, policy_agent, policy_meta, save_policy
    from yacht_env.observation import size as obs_size
    from yacht_env.rules import get_rules
    from yacht_tools.evaluation import evaluate
    from yacht_tools.progress import progress_bar
    from yacht_training import run_folder as ts

    rs = get_rules(cfg.rules)
    r = cfg.rllib
    meta = policy_meta(rs, cfg.unique_keeps, r.hidden, r.activation)
    counters: dict[str, Any] = {"timesteps": 0, "iterations": 0, "episodes": 0, "session": 0}
    ck = None
    if resume:
        ck, path = ts.load_newest(run_dir, cfg, lambda p: load_checkpoint(p, meta), on_resumed)
        counters.update(ck["counters"])  # checked when read (load_checkpoint)
        counters["session"] += 1
        print(f"resuming from {path.name} at step {counters['timesteps']:,} of {cfg.total_timesteps:,}")

    t_ray = time.perf_counter()
    started_ray = start_ray(cfg, ray_address)
    algo = ppo_config(cfg, counters["session"], counters["timesteps"]).build_algo()
    if ck is not None:  # the optimizer's settings are the config's (the fresh learner's), never the file's
        differences = keep_own_settings_in_state(ck["optimizer"], learner_state(algo)[1], "its optimizer state")
        set_learner_state(algo, ck["module"], ck["optimizer"])
        if differences:
            print(f"train.py: {path.name} has other optimizer settings than the config, the config's are kept: "
                  f"{describe_differences(differences)}", file=sys.stderr)
    print(f"Ray and {r.num_env_runners} env runner(s) ready in {time.perf_counter() - t_ray:.1f} s")

    writer = None
    try:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(run_dir / "tb"))
    except ImportError:
        pass
    evals = ts.evaluations_until(run_dir, counters["timesteps"])
    best = max((e["mean"] for e in evals), default=float("-inf"))
    start_steps = counters["timesteps"]
    next_eval = (start_steps // cfg.eval.freq + 1) * cfg.eval.freq
    next_ckpt = (start_steps // cfg.checkpoint_freq + 1) * cfg.checkpoint_freq
    bar = progress_bar(cfg.total_timesteps, cfg.algo, "step", enabled=progress,
                       initial=min(start_steps, cfg.total_timesteps))

    def current_policy() -> tuple[torch.nn.Module, dict[str, Any], dict[str, Any]]:
        module, optimizer = learner_state(algo)
        net = mlp(obs_size(rs), r.hidden, r.activation, meta["num_actions"])
        net.load_state_dict(policy_state_dict(module))
        return net.eval(), module, optimizer

    def checkpoint() -> None:
        _, module, optimizer = current_policy()
        save_checkpoint(ts.checkpoint_path(run_dir, cfg, counters["timesteps"]), meta, module, optimizer, counters)

    def run_evaluation() -> None:
        nonlocal best
        net, module, _ = current_policy()
        agent = policy_agent(net, rs, cfg.unique_keeps, name="rllib_ppo")
        with clock.paused():
            res = evaluate(agent, rs, cfg.eval.episodes, cfg.eval.seed, regret=False, progress=False)
        ts.record_evaluation(run_dir, evals, counters["timesteps"], res, clock.seconds(), writer)
        if res["mean"] > best:
            best = res["mean"]
            save_policy(run_dir / "best_model.pt", policy_state_dict(module), meta,
                        {"timesteps": counters["timesteps"], "eval_mean": res["mean"]})
        bar.set_postfix_str(f"eval {res['mean']:.1f} ({res['percent_of_optimal']:.1f}% of optimal)")

    def stop() -> None:
        bar.close()
        if writer is not None:
            writer.close()
        algo.stop()
        if started_ray:
            ray.shutdown()

    clock = ts.LearningClock(ts.training_seconds(run_dir))  # the periodic evaluations are not learning time
    try:
        while counters["timesteps"] < cfg.total_timesteps:
            t0 = time.perf_counter()
            result = algo.train()
            wall = time.perf_counter() - t0
            er = result["env_runners"]
            counters["timesteps"] = start_steps + int(er["num_env_steps_sampled_lifetime"])
            counters["episodes"] += int(er.get("num_episodes", 0))
            counters["iterations"] += 1
            bar.update(min(counters["timesteps"], cfg.total_timesteps) - bar.n)
            if writer is not None:
                step = counters["timesteps"]
                learn = result["learners"]["default_policy"]
                if "episode_return_mean" in er and not math.isnan(er["episode_return_mean"]):
                    writer.add_scalar("train/episode_score", er["episode_return_mean"] / cfg.reward_scale, step)
                for key in ("policy_loss", "vf_loss", "entropy", "vf_explained_var", "default_optimizer_learning_rate"):
                    if key in learn:
                        writer.add_scalar(f"train/{key}", float(learn[key]), step)
                writer.add_scalar("time/env_steps_per_s", float(er["num_env_steps_sampled"]) / wall, step)
            if counters["timesteps"] >= next_eval:
                next_eval = (counters["timesteps"] // cfg.eval.freq + 1) * cfg.eval.freq
                run_evaluation()
            if counters["timesteps"] >= next_ckpt:
                next_ckpt = (counters["timesteps"] // cfg.checkpoint_freq + 1) * cfg.checkpoint_freq
                checkpoint()
    except KeyboardInterrupt:  # between two iterations the counters and the weights agree: save them
        checkpoint()
        ts.add_training_seconds(run_dir, clock.session())
        stop()
        print(f"\ninterrupted at step {counters['timesteps']:,}: checkpoint saved. Continue with:\n"
              f"  python train.py --resume {run_dir}")
        return 130  # the shell's status for SIGINT, as everywhere else: a script sees it stopped
    checkpoint()
    net, module, _ = current_policy()
    save_policy(run_dir / "final_model.pt", policy_state_dict(module), meta, {"timesteps": counters["timesteps"]})
    ts.add_training_seconds(run_dir, clock.session())
    if not evals or evals[-1]["timesteps"] != counters["timesteps"]:
        run_evaluation()
    stop()

    # ---- final evaluation on seeds unseen in training and in the periodic evaluations -----------------------------
    chosen = f"{r.final_model}_model.pt"
    try:
        agent = load_rllib_agent(run_dir / chosen, rs)  # the shipped file, loaded without Ray
        result = evaluate(agent, rs, cfg.eval.final_episodes, cfg.eval.seed + 10_000_000, progress=progress)
    except KeyboardInterrupt:
        print(f"\ninterrupted during the final evaluation; the model is saved. Evaluate it with:\n"
              f"  python train.py --resume {run_dir}", file=sys.stderr)
        return 130
    result.update(agent=chosen, training_timesteps=counters["timesteps"], training_episodes=counters["episodes"],
                  training_wall_s=ts.training_seconds(run_dir), env_runners=r.num_env_runners,
                  envs_per_env_runner=r.num_envs_per_env_runner)
    ts.write_json(run_dir / "eval.json", result)
    ts.plot_learning_curve(evals, run_dir / "learning_curve.png", f"RLlib PPO (masked MLP) on {rs.name}",
                           final=result, final_steps=counters["timesteps"], periodic_games=cfg.eval.episodes)
    half = result["ci95"][1] - result["mean"]
    print(f"{rs.name}: {chosen} scores {result['mean']:.2f} ± {half:.2f} over {result['episodes']:,} games = "
          f"{result['percent_of_optimal']:.2f}% of optimal ({result['optimal_value']:.4f})")
    return 0 if math.isfinite(result["mean"]) else 1
