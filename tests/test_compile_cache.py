"""First use: every command users run, run a second time with the caches the first run filled, compiles nothing and
says nothing about compiling; the single environment compiles nothing at all; a slow step says what it is doing."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from yacht_env.jit.notice import SlowNotice

REPO = Path(__file__).resolve().parents[1]

TINY_PPO = {"rules": "yacht", "total_timesteps": 512, "n_envs": 8, "checkpoint_freq": 512, "torch_threads": 1,
            "policy": {"net_arch": [16]}, "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1},
            "eval": {"freq": 256, "episodes": 10, "final_episodes": 10}}
TINY_TD = {"rules": "yacht", "algo": "td", "total_timesteps": 600, "seed": 0, "checkpoint_freq": 10**6,
           "torch_threads": 1, "td": {"hidden": [16], "games_per_iteration": 16},
           "eval": {"freq": 10**6, "episodes": 10, "final_episodes": 10}}

# every `yacht` subcommand and train.py (PPO and TD), small; one process per round: a command whose kernels numba
# cannot load from its cache compiles again in the second round, whatever ran before it
COMMANDS = """
import contextlib, io, runpy, sys
from yacht_cli import main
from yacht_env.jit.numba_cache import compile_seconds
for args in (["solve", "--rules", "yacht"],
             ["eval", "--agent", "optimal", "--episodes", "20", "--no-progress"],
             ["eval", "--agent", "td-yacht", "--episodes", "20", "--no-progress"],
             ["replay", "--agent", "greedy", "--seed", "3"],
             ["tournament", "--agents", "greedy", "random", "--games", "4", "--no-progress"]):
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(args) == 0, args
sys.stdin = io.StringIO("quit\\n")
with contextlib.redirect_stdout(io.StringIO()):
    main(["play", "--seed", "1", "--hint"])
for cfg, runs in ((sys.argv[1], sys.argv[3]), (sys.argv[2], sys.argv[4])):
    sys.argv = ["train.py", "--config", cfg, "--run-dir", runs, "--no-progress"]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            runpy.run_path(TRAIN, run_name="__main__")
    except SystemExit as e:
        assert e.code in (0, None), (cfg, e.code)
print("COMPILE_SECONDS", compile_seconds())
"""


def _caches(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), YACHT_ENV_CACHE_DIR=str(tmp_path / "solver"),
               PYTHONPATH=os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
    env.pop("YACHT_ENV_QUIET", None)
    env.pop("YACHT_ENV_QUIET_COMPILE", None)
    return env


@pytest.mark.slow
def test_a_second_run_of_every_command_compiles_nothing(tmp_path: Path) -> None:
    cfgs = []
    for name, cfg in (("ppo.yaml", TINY_PPO), ("td.yaml", TINY_TD)):
        (tmp_path / name).write_text(yaml.safe_dump(cfg))
        cfgs.append(str(tmp_path / name))
    code = f"TRAIN = {str(REPO / 'train.py')!r}\n" + COMMANDS
    env = _caches(tmp_path)
    rounds = []
    for r in range(2):
        runs = [str(tmp_path / f"runs{r}-ppo"), str(tmp_path / f"runs{r}-td")]
        p = subprocess.run([sys.executable, "-c", code, *cfgs, *runs], env=env, capture_output=True, text=True,
                           cwd=tmp_path, timeout=900)
        assert p.returncode == 0, p.stderr[-3000:]
        rounds.append((float(p.stdout.rsplit("COMPILE_SECONDS", 1)[1]), p.stderr))
    (first, first_err), (second, second_err) = rounds
    assert first > 0 and "compiling the numba kernels" in first_err  # the empty cache was filled, and it said so
    assert second == 0.0, second_err[-3000:]
    assert "compiling" not in second_err, second_err[-3000:]


@pytest.mark.slow
def test_a_cold_cache_announces_compiling_once_per_command(tmp_path: Path) -> None:
    """``yacht eval`` on an empty numba cache compiles the turn search, the solver's and the vector engine's kernels:
    one announcement (what, and that it is once per machine, where the cache is), then only "still" lines."""
    env = _caches(tmp_path)
    p = subprocess.run([sys.executable, "-m", "yacht_cli", "eval", "--agent", "greedy", "--episodes", "10",
                        "--no-progress"], env=env, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    compiling = [line for line in p.stderr.splitlines() if "compiling" in line]
    announced = [line for line in compiling if not line.startswith("yacht-env: still compiling numba kernels: ")]
    assert len(announced) == 1, p.stderr
    assert "once per machine" in announced[0] and str(tmp_path / "numba") in announced[0], announced
    assert "starting with those of yacht_solver." in announced[0] or "of yacht_env.engine." in announced[0]


def test_the_single_environment_imports_no_numba_and_plays_a_game(tmp_path: Path) -> None:
    code = ("import sys, gymnasium as gym, yacht_env\n"
            "for env_id in yacht_env.ENV_IDS.values():\n"
            "    env = gym.make(env_id); obs, info = env.reset(seed=0); done = False\n"
            "    while not done:\n"
            "        obs, r, done, trunc, info = env.step(int(info['action_mask'].nonzero()[0][-1]))\n"
            "    assert info['final_score'] >= 0\n"
            "print('NUMBA' if 'numba' in sys.modules else 'NO NUMBA')\n")
    p = subprocess.run([sys.executable, "-c", code], env=_caches(tmp_path), capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "NO NUMBA" and "compiling" not in p.stderr


def test_a_slow_step_says_what_it_does_on_stderr_and_a_quick_one_nothing(capsys: pytest.CaptureFixture[str],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("YACHT_ENV_QUIET", raising=False)
    monkeypatch.delenv("YACHT_ENV_QUIET_COMPILE", raising=False)
    with SlowNotice("solving yacht", after=0.05, every=0.1):
        time.sleep(0.4)
    with SlowNotice("quick", after=5.0):
        pass
    time.sleep(0.05)
    lines = capsys.readouterr().err.splitlines()  # captured: stderr is no terminal here
    assert lines[0] == "yacht-env: solving yacht..." and len(lines) >= 3
    assert all(line.startswith("yacht-env: still solving yacht (") for line in lines[1:])
    monkeypatch.setenv("YACHT_ENV_QUIET", "1")
    with SlowNotice("solving yacht", after=0.01):
        time.sleep(0.1)
    assert capsys.readouterr().err == ""
