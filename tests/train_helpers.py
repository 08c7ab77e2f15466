"""Helpers of the tests that train: tiny configs, train.py run in this process, run folders, injected faults."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

torch = pytest.importorskip("torch")

from conftest import REPO, child_env  # noqa: E402, F401 - re-exported for the tests that train

import train  # noqa: E402 - after the torch check
from yacht_training.config import EvalConfig  # noqa: E402

FINAL_SEED = EvalConfig().seed + 10_000_000  # the seed of train.py's final evaluation

TD = {"rules": "yacht", "algo": "td", "total_timesteps": 3000, "seed": 0, "checkpoint_freq": 1000, "torch_threads": 1,
      "td": {"hidden": [16], "games_per_iteration": 32},
      "eval": {"freq": 1000, "episodes": 10, "final_episodes": 20}}
"""About 1,100 steps an iteration: checkpoints step_1102, step_2210 and step_3288."""
PPO = {"rules": "yacht", "total_timesteps": 1024, "n_envs": 8, "checkpoint_freq": 512, "torch_threads": 1,
       "policy": {"net_arch": [32, 32]}, "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1},
       "eval": {"freq": 256, "episodes": 20, "final_episodes": 40}}
"""As tests/test_train.py's: checkpoints step_512 and step_1024."""


# ---- helpers ----------------------------------------------------------------------------------------------------


def tiny_config(folder: Path, base: dict[str, Any], **changes: Any) -> Path:
    cfg = json.loads(json.dumps(base))
    for key, value in changes.items():
        *parents, leaf = key.split("__")
        d = cfg
        for p in parents:
            d = d.setdefault(p, {})
        d[leaf] = value
    path = folder / "tiny.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


@dataclass
class Run:
    """What ``train.main`` returned and printed."""

    rc: int
    out: str
    err: str


def run_train(argv: list[str]) -> Run:
    """``train.main(argv)`` in this process, its output captured."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = train.main([*argv, "--no-progress"])
    return Run(rc, out.getvalue(), err.getvalue())


def only_run(runs: Path) -> Path:
    (run,) = list(runs.iterdir())
    return run


def steps_of(run: Path, suffix: str) -> list[Path]:
    """The run's checkpoints, oldest first."""
    return sorted((run / "checkpoints").glob(f"step_*{suffix}"), key=lambda p: int(p.stem[5:]))


def copy_run(run: Path, tmp_path: Path) -> Path:
    dest = tmp_path / run.name
    shutil.copytree(run, dest)
    return dest


def no_temporary_files(folder: Path) -> None:
    left = [p.name for p in folder.rglob("*") if p.name.endswith(".tmp")]
    assert not left, left


@contextlib.contextmanager
def ctrl_c_in_the_final_evaluation() -> Iterator[list[int]]:
    """Ctrl-C arrives once, in train.py's final evaluation (the one on FINAL_SEED)."""
    import yacht_tools.evaluation as EV
    import yacht_training.sb3_ppo as SB3PPO

    real = EV.evaluate
    fired: list[int] = []

    def evaluate(agent: Any, rules: Any, episodes: int, seed: int, *args: Any, **kwargs: Any) -> Any:
        if seed == FINAL_SEED and not fired:
            fired.append(seed)
            raise KeyboardInterrupt
        return real(agent, rules, episodes, seed, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(EV, "evaluate", evaluate)
        mp.setattr(SB3PPO, "evaluate", evaluate)
        yield fired




class Payload:
    """Unpickled, it creates ``marker``: proof that a file ran code."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (str(self.marker), "w"))


