"""Every limit (episodes, games, environments, threads, sizes) is checked when the input is read: before a run folder
exists, an agent is loaded or a game is played, with one line naming the limit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from train_helpers import PPO, TD, run_train, tiny_config  # noqa: E402

from yacht_env.vector.env import YachtVectorEnv  # noqa: E402
from yacht_tools.tournament import MAX_GAMES, run_tournament  # noqa: E402
from yacht_training.config import from_dict  # noqa: E402


@pytest.mark.parametrize("data,match", [
    ({"eval": {"episodes": 100_000_000_000}}, r"'eval.episodes' must be a positive integer \(at most "
                                               r"100,000,000\), got 100000000000"),
    ({"eval": {"final_episodes": 10**13}}, r"'eval.final_episodes' must be a positive integer \(at most "
                                           r"100,000,000\)"),
    ({"n_envs": 100_000_000}, r"'n_envs' must be a positive integer \(at most 65,536\), got 100000000"),
    ({"ppo": {"n_steps": 4096}, "n_envs": 4096}, r"'ppo.n_steps' x 'n_envs' must be at most 4,194,304"),
    ({"torch_threads": 10**6}, r"'torch_threads' must be a positive integer \(at most 1,024\)"),
    ({"rllib": {"num_envs_per_env_runner": 10**7}}, r"'rllib.num_envs_per_env_runner' must be a positive integer "
                                                    r"\(at most 65,536\)"),
    ({"algo": "td", "td": {"games_per_iteration": 10**8}}, r"'td.games_per_iteration' must be a positive "
                                                           r"integer \(at most 65,536\)"),
    ({"algo": "td", "td": {"hidden": [10**9]}}, r"'td.hidden' must be a list of 1\.\.16 values, each a "
        r"positive integer \(at most 4,096\); item 0 is 1000000000"),
    ({"policy": {"net_arch": [64] * 17}}, r"'policy.net_arch' must be a list of 1\.\.16 values, each a "
        r"positive integer \(at most 4,096\), got \[64, 64"),
    ({"rllib": {"hidden": [100_000]}}, r"'rllib.hidden' must be a list of 1\.\.16 values, each a "
        r"positive integer \(at most 4,096\); item 0 is 100000"),
    ({"policy": {"vf_arch": [5000]}}, r"'policy.vf_arch' must be a list of 0\.\.16 values"),
    ({"policy": {"keep_hidden": 10**6}}, r"'policy.keep_hidden' must be a positive integer \(at most 4,096\)"),
    ({"max_learning_s": 10**400}, r"'max_learning_s' must be a number of seconds in \(0, 1e12\] or null"),
    ({"max_learning_s": float("nan")}, r"'max_learning_s' must be a number of seconds"),
])
def test_config_limits_are_checked_when_read(data: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        from_dict(data)


@pytest.mark.parametrize("argv,match", [
    (["--final-episodes", "10000000000000"], r"--final-episodes must be an integer in 1\.\.100000000, got "),
    (["--device", "cuda:abc"], r"config key 'device': 'cuda:abc'; accepted: cpu, cuda, auto, mps, cuda:N"),
    (["--device", "cuda:999"], r"device 'cuda:999': torch sees \d+ CUDA devices? here"),
])
def test_train_options_are_checked_before_the_run_folder(argv: list[str], match: str, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    with pytest.raises(ValueError, match=match):
        run_train(["--config", str(tiny_config(tmp_path, PPO)), "--run-dir", str(runs), *argv])
    assert not runs.exists()


def test_td_refuses_a_device_it_would_ignore(tmp_path: Path) -> None:
    """TD's search runs in the numba engine on the CPU: a GPU asked for is refused, not silently unused."""
    runs = tmp_path / "runs"
    with pytest.raises(ValueError, match=r"algo td trains on the CPU .*: use cpu"):
        run_train(["--config", str(tiny_config(tmp_path, TD)), "--run-dir", str(runs), "--device", "cuda"])
    assert not runs.exists()
    from_dict({"algo": "td", "device": "auto"})  # auto: the CPU


def test_tournament_games_are_limited_before_any_agent_loads(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    from yacht_cli import main
    from yacht_cli import tournament_command as cli_tournament

    def no_work(*a: Any, **k: Any) -> None:
        raise AssertionError("the tournament started")

    with pytest.raises(ValueError, match=rf"games must be an integer in 1\.\.{MAX_GAMES}"):
        run_tournament(["greedy", "random"], 10**12)
    monkeypatch.setattr(cli_tournament, "run_tournament", no_work)
    assert main(["tournament", "--agents", "greedy", "random", "--games", "1000000000000"]) == 2
    assert capsys.readouterr().err == (f"yacht tournament: error: games must be an integer in 1..{MAX_GAMES}, got "
                                       "'1000000000000'\n")


@pytest.mark.parametrize("kwargs,match", [
    ({"num_envs": 10**9}, r"num_envs must be an int in 1\.\.16,777,216, got 1000000000"),
])
def test_the_vector_env_refuses_absurd_sizes_at_once(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        YachtVectorEnv(**kwargs)


def test_the_vector_env_has_no_thread_count_to_ask_for() -> None:
    """One thread steps the games (the pool gained under 1.5x): asking for threads is refused at once."""
    with pytest.raises(TypeError, match="num_threads"):
        YachtVectorEnv(1024, num_threads=10**6)


def test_eval_every_sets_the_learning_curves_points(tmp_path: Path) -> None:
    """``--eval-every`` overrides ``eval.freq`` (the tiny TD config evaluates every 1,000 steps, at the end of each
    iteration of about 1,100; every 2,500 gives fewer points), and each periodic evaluation keeps its 95% interval
    in percent of optimal for the curve's band."""
    import json

    from train_helpers import only_run

    counts = {}
    for every in (None, "2500"):
        runs = tmp_path / f"runs-{every}"
        argv = ["--config", str(tiny_config(tmp_path, TD)), "--run-dir", str(runs)]
        assert run_train([*argv, *(["--eval-every", every] if every else [])]).rc == 0
        evals = json.loads((only_run(runs) / "evaluations.json").read_text())
        counts[every] = len(evals)
        assert all(lo < e["percent_of_optimal"] < hi for e in evals for lo, hi in [e["percent_ci95"]])
    assert counts[None] > counts["2500"] >= 1
    with pytest.raises(ValueError, match=r"--eval-every must be a positive integer, got .0."):
        run_train(["--config", str(tiny_config(tmp_path, TD)), "--run-dir", str(tmp_path / "x"), "--eval-every", "0"])


def test_a_vector_env_larger_than_the_address_space_limit_is_refused_at_once() -> None:
    """Under ``ulimit -v`` of 6 GB, 10**7 games (about 17 GB) are refused before any allocation, naming the
    memory they need, where they used to end in MemoryError after seconds of work."""
    import resource
    import subprocess
    import sys

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))

    code = ("from yacht_env.vector import YachtVectorEnv\n"
            "try:\n    YachtVectorEnv(10**7).reset(seed=0)\n"
            "except ValueError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, preexec_fn=limit, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "10,000,000 games need about" in out.stdout and "use fewer games" in out.stdout, out.stdout
