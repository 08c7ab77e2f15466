"""Training configs: the schema's ranges, YAML read strictly, and no run folder for a bad config."""

from __future__ import annotations

import dataclasses
import math
import os
import subprocess
import sys
import time
import typing
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from train_helpers import PPO, REPO, TD, child_env, run_train, tiny_config  # noqa: E402

from yacht_training.config import TrainConfig, from_dict, load_config  # noqa: E402


def test_config_refuses_a_value_scale_that_overflows() -> None:
    with pytest.raises(ValueError, match=r"config key 'td.value_scale' must be a number in "
                                           r"\[0.001, 1e\+06\], got 1e-39"):
        from_dict({"algo": "td", "td": {"value_scale": 1e-39}})

# ==== config gaps ===========================================================================================

BAD_VALUES: list[tuple[str, Any]] = [
    ("total_timesteps", 0), ("seed", -1), ("seed", 2**32), ("n_envs", 0), ("reward_scale", 0.0),
    ("reward_scale", math.nan), ("checkpoint_freq", 0), ("torch_threads", 0), ("torch_threads", -2),
    ("max_learning_s", 0.0), ("max_learning_s", math.inf),
    ("policy.inverse_temperature", 0.0), ("policy.box_prior", -1.0), ("policy.net_arch", [0]), ("policy.net_arch", []),
    ("policy.keep_hidden", 0), ("policy.vf_arch", [0]), ("ppo.ent_coef_keep", -0.01), ("ppo.ent_coef_score", "lin_x_y"),
    ("ppo.learning_rate", 0.0), ("ppo.learning_rate", "lin_0"), ("ppo.learning_rate", math.inf), ("ppo.n_steps", 0),
    ("ppo.batch_size", 1), ("ppo.n_epochs", 0), ("ppo.gamma", 1.5), ("ppo.gamma", -0.1), ("ppo.gamma", math.nan),
    ("ppo.gae_lambda", 2.0), ("ppo.clip_range", 0.0), ("ppo.clip_range", "lin_-1"), ("ppo.ent_coef", -0.01),
    ("ppo.vf_coef", -1.0), ("ppo.max_grad_norm", 0.0), ("ppo.target_kl", 0.0), ("ppo.target_kl", math.inf),
    ("td.hidden", [0]), ("td.hidden", []), ("td.learning_rate", -1.0), ("td.games_per_iteration", 0),
    ("td.td_lambda", 1.5), ("td.td_lambda", math.nan), ("td.epochs_per_iteration", 0), ("td.batch_size", 0),
    ("td.value_scale", 0.0), ("td.value_scale", math.inf), ("td.value_scale", 1e-39), ("td.explore", 1.0),
    ("td.explore", -0.5), ("eval.freq", 0), ("eval.episodes", 0), ("eval.final_episodes", 0), ("eval.seed", -5),
    ("rllib.num_env_runners", -1), ("rllib.num_envs_per_env_runner", 0), ("rllib.num_cpus_per_env_runner", 0.0),
    ("rllib.train_batch_size", 0), ("rllib.minibatch_size", 0), ("rllib.num_epochs", 0), ("rllib.lr", 0.0),
    ("rllib.lr", "lin_nan"), ("rllib.gamma", 1.01), ("rllib.lambda_", math.nan), ("rllib.clip_param", math.nan),
    ("rllib.entropy_coeff", -1e-3), ("rllib.vf_loss_coeff", math.inf), ("rllib.vf_clip_param", 0.0),
    ("rllib.grad_clip", math.nan), ("rllib.hidden", []), ("rllib.hidden", [64, 0]),
]


def _numeric_keys(cls: type = TrainConfig, prefix: str = "") -> list[str]:
    """Every key of the schema that holds numbers (or lists of them)."""
    out = []
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        tp = hints[f.name]
        if dataclasses.is_dataclass(tp):
            out += _numeric_keys(tp, prefix + f.name + ".")
        elif tp is not bool and ({int, float} & {tp, *typing.get_args(tp)} or (
                typing.get_origin(tp) is list and typing.get_args(tp)[0] in (int, float))):
            out.append(prefix + f.name)
    return out


def test_every_numeric_key_of_the_schema_has_a_bad_value_tested() -> None:
    assert sorted(_numeric_keys()) == sorted({k for k, _ in BAD_VALUES})


@pytest.mark.parametrize("key,value", BAD_VALUES)
def test_config_refuses_out_of_range_values(key: str, value: Any) -> None:
    data: dict[str, Any] = {}
    d = data
    *parents, leaf = key.split(".")
    for p in parents:
        d = d.setdefault(p, {})
    d[leaf] = value
    with pytest.raises(ValueError, match=rf"config key '{key}'"):
        from_dict(data)


def test_ppo_needs_a_rollout_of_two_steps() -> None:
    with pytest.raises(ValueError, match=r"'ppo.n_steps' x 'n_envs' must be at least 2.* got 1 x 1"):
        from_dict({"n_envs": 1, "ppo": {"n_steps": 1}})
    from_dict({"algo": "td", "n_envs": 1, "ppo": {"n_steps": 1}})  # not PPO: no rollout


@pytest.mark.parametrize("changes", [{"torch_threads": 0}, {"ppo__n_epochs": 0}, {"ppo__gamma": 2.0},
                                     {"eval__seed": -5}, {"n_envs": 1, "ppo__n_steps": 1}, {"bogus": 1}])
def test_a_failing_config_makes_no_run_folder(changes: dict[str, Any], tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    with pytest.raises(ValueError, match="config"):
        run_train(["--config", str(tiny_config(tmp_path, PPO, **changes)), "--run-dir", str(runs)])
    assert not runs.exists()


def test_a_broken_file_or_override_makes_no_run_folder(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    (tmp_path / "broken.yaml").write_text("rules: [yacht\n")
    with pytest.raises(ValueError, match="not valid YAML"):
        run_train(["--config", str(tmp_path / "broken.yaml"), "--run-dir", str(runs)])
    with pytest.raises(ValueError, match="seed must be a non-negative integer, got '-1'"):
        run_train(["--config", str(tiny_config(tmp_path, PPO)), "--run-dir", str(runs), "--seed", "-1"])
    with pytest.raises(ValueError, match=r"config key 'seed' must be a non-negative integer \(at most "
                                           r"4,294,967,295\), got 4294967296"):
        run_train(["--config", str(tiny_config(tmp_path, PPO)), "--run-dir", str(runs), "--seed", str(2**32)])
    with pytest.raises(ValueError, match="--timesteps must be a positive integer"):
        run_train(["--config", str(tiny_config(tmp_path, PPO)), "--run-dir", str(runs), "--timesteps", "0"])
    assert not runs.exists()


# ==== YAML read strictly ==========================================================================================


def _load(tmp_path: Path, text: str) -> Any:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return load_config(path)


@pytest.mark.parametrize("text,match", [
    ("algo: td\neval:\n  episodes: 10\neval:\n  freq: 5\n", r"key 'eval' is given twice \(at line 2 and at line 4\)"),
    ("total_timesteps: 5\ntotal_timesteps: 6\n", r"key 'total_timesteps' is given twice \(at line 1 and at line 2\)"),
    ("ppo:\n  n_steps: 8\n  n_steps: 16\n", r"key 'n_steps' is given twice"),
])
def test_a_key_given_twice_is_refused_by_name(text: str, match: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=match):
        _load(tmp_path, text)


def test_a_merge_key_is_no_duplicate(tmp_path: Path) -> None:
    cfg = _load(tmp_path, "ppo:\n  <<: {n_steps: 8, n_epochs: 2}\n  n_steps: 16\n")
    assert cfg.ppo.n_steps == 16 and cfg.ppo.n_epochs == 2


def test_a_nest_of_aliases_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    text = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for i in range(1, 10):
        text += f"b{i}: &b{i} [" + ", ".join([f"*{'a' if i == 1 else f'b{i - 1}'}"] * 9) + "]\n"
    text += "seed: *b9\n"
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"not valid YAML: its aliases expand to more than 100,000 values"):
        _load(tmp_path, text)
    assert time.perf_counter() - t0 < 5


def test_deep_nesting_is_refused_cleanly(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"not valid YAML: nested deeper than 32 levels"):
        _load(tmp_path, "seed: " + "[" * 50_000 + "]" * 50_000 + "\n")


def test_train_py_says_one_line_for_50000_nested_brackets(tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("seed: " + "[" * 50_000 + "]" * 50_000 + "\n")
    p = subprocess.run([sys.executable, str(REPO / "train.py"), "--config", str(path), "--run-dir",
                        str(tmp_path / "runs")], capture_output=True, text=True, env=child_env(), timeout=300)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "nested deeper than 32 levels" in p.stderr
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("text", ["seed: " + "x" * 100_000, "seed: [" + ", ".join(["1"] * 50_000) + "]",
                                  "x" * 5000 + ": 1"], ids=["long string", "long list", "long key"])
def test_a_message_never_prints_a_value_longer_than_a_line(text: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError) as e:
        _load(tmp_path, text)
    assert len(str(e.value)) < 250, str(e.value)


def test_a_config_from_a_pipe_is_read(tmp_path: Path) -> None:
    """``--config <(cat a.yaml)``: the shell passes /dev/fd/N, a pipe, not a regular file."""
    read, write = os.pipe()
    os.write(write, b"seed: 3\nalgo: td\n")
    os.close(write)
    try:
        cfg = load_config(f"/dev/fd/{read}")
    finally:
        os.close(read)
    assert cfg.seed == 3 and cfg.algo == "td"


def test_a_config_that_is_no_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"config file not found: '.*missing.yaml'"):
        load_config(tmp_path / "missing.yaml")
    with pytest.raises(ValueError, match=r"config file '.*' is a folder"):
        load_config(tmp_path)
    (tmp_path / "big.yaml").write_bytes(b"#" * (2 << 20))
    with pytest.raises(ValueError, match=r"is larger than 1,048,576 bytes: not a config"):
        load_config(tmp_path / "big.yaml")


def test_train_py_reads_a_config_from_a_pipe(tmp_path: Path) -> None:
    """``train.py --config <(cat tiny.yaml)``: the run goes, in a folder named ``config-...`` (a pipe's name is a
    number)."""
    text = tiny_config(tmp_path, TD, total_timesteps=1, td__games_per_iteration=4, eval__final_episodes=2).read_bytes()
    read, write = os.pipe()
    os.write(write, text)
    os.close(write)
    runs = tmp_path / "runs"
    try:
        r = run_train(["--config", f"/dev/fd/{read}", "--run-dir", str(runs)])
    finally:
        os.close(read)
    (run,) = runs.iterdir()
    assert r.rc == 0 and run.name.startswith("config-s0-") and (run / "eval.json").is_file()


@pytest.mark.parametrize(("value", "match"), [
    ("3", "config key 'players': 3; accepted: 1, 2"),
    ("'2'", "config key 'players': '2'; accepted: 1, 2 (numbers, without quotes)"),
    ("0", "config key 'players': 0; accepted: 1, 2"),
    ("[2]", "config key 'players': [2]; accepted: 1, 2"),
])
def test_train_py_names_the_accepted_players(value: str, match: str, tmp_path: Path) -> None:
    """``players: 3`` or ``players: '2'`` raised a TypeError from the message code (it joined integer choices)."""
    path = tmp_path / "players.yaml"
    path.write_text(f"algo: td\nplayers: {value}\n")
    p = subprocess.run([sys.executable, str(REPO / "train.py"), "--config", str(path), "--run-dir",
                        str(tmp_path / "runs")], capture_output=True, text=True, env=child_env(), timeout=300)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and match in p.stderr, p.stderr
    assert not (tmp_path / "runs").exists()
