"""One entry to every training algorithm: ``train.py`` and ``yacht bench run`` start a run through :func:`train`,
so both get the same run folder, checkpoints, evaluations and Ctrl-C behaviour.

The built-in learners are registered here, one line each (:mod:`yacht_training.learners`); importing
:mod:`yacht_training` imports this module, so that the config always knows them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from yacht_training.config import PPOConfig, RLlibConfig, TDConfig, TrainConfig, check_ppo, check_td
from yacht_training.learners import Learner, get_learner, register_learner
from yacht_training.rllib_ppo import train_rllib_ppo
from yacht_training.td_learner import train_td


def _train_ppo(cfg: TrainConfig, run_dir: Path, **options: Any) -> int:
    """MaskablePPO's run (:func:`yacht_training.sb3_ppo.train_ppo`), imported when a run starts: stable-baselines3
    and torch take seconds to import, and a config is often read without training."""
    from yacht_training.sb3_ppo import train_ppo

    return train_ppo(cfg, run_dir, **options)


register_learner(Learner("maskable_ppo", _train_ppo, "ppo", PPOConfig, ".zip", "sb3", check_ppo, time_budget=True,
                         exact_budget=True, max_players=2))
register_learner(Learner("td", train_td, "td", TDConfig, ".pt", "td", check_td, exact_budget=True, max_players=2))
register_learner(Learner("rllib_ppo", train_rllib_ppo, "rllib", RLlibConfig, ".pt", "rllib_ppo",
                         options=("ray_address",)))


def train(cfg: TrainConfig, run_dir: Path, *, resume: bool = False, progress: bool = True,
          ray_address: str | None = None, on_resumed: Callable[[], None] | None = None) -> int:
    """Train ``cfg.algo`` (its learner in :mod:`yacht_training.learners`) in ``run_dir`` (a folder of
    :mod:`yacht_training.run_folder`; ``resume``: from its newest checkpoint that loads) and return the exit status
    (0 done, 130 interrupted with a checkpoint saved). ``ray_address`` goes to the learners that take it."""
    import torch

    learner = get_learner(cfg.algo)
    torch.set_num_threads(cfg.torch_threads)
    options = {key: value for key, value in {"ray_address": ray_address}.items() if key in learner.options}
    return learner.train(cfg, run_dir, resume=resume, progress=progress, on_resumed=on_resumed, **options)
