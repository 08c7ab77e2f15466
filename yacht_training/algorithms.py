"""One entry to every training algorithm: ``train.py`` and ``yacht bench run`` start a run through :func:`train`,
so both get the same run folder, checkpoints, evaluations and Ctrl-C behaviour."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from yacht_training.config import TrainConfig


def train(cfg: TrainConfig, run_dir: Path, *, resume: bool = False, progress: bool = True,
          ray_address: str | None = None, on_resumed: Callable[[], None] | None = None) -> int:
    """Train ``cfg.algo`` in ``run_dir`` (a folder of :mod:`yacht_training.run_folder`; ``resume``: from its newest
    checkpoint that loads) and return the exit status (0 done, 130 interrupted with a checkpoint saved)."""
    import torch

    torch.set_num_threads(cfg.torch_threads)
    if cfg.algo == "td":
        from yacht_training.td_learner import train_td

        return train_td(cfg, run_dir, resume=resume, progress=progress, on_resumed=on_resumed)
    if cfg.algo == "rllib_ppo":
        from yacht_training.rllib_ppo import train_rllib_ppo

        return train_rllib_ppo(cfg, run_dir, resume=resume, progress=progress, ray_address=ray_address,
                               on_resumed=on_resumed)
    from yacht_training.sb3_ppo import train_ppo

    return train_ppo(cfg, run_dir, resume=resume, progress=progress, on_resumed=on_resumed)
