"""The lean PPO loop (yacht_training/lean_ppo.py): its masked distribution and GAE agree with sb3-contrib's, a run
with it trains, saves a model the safe loader reads and is the same for the same seed; the time budget
(max_learning_s) and the time-to-quality and throughput scripts."""

from __future__ import annotations

import importlib.util
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch as th
import yaml
from gymnasium import spaces
from sb3_contrib.common.maskable.distributions import MaskableCategorical
from stable_baselines3.common.buffers import RolloutBuffer

import train
from yacht_agents.loader import load_agent
from yacht_agents.sb3_zip import inspect_sb3_zip
from yacht_training.config import from_dict
from yacht_training.lean_ppo import gae, masked_entropy, masked_log_softmax, new_rollout

ROOT = Path(__file__).resolve().parent.parent


def _script(name: str) -> Any:  # benchmarks/ is not a package: a script is loaded by its path
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_masked_log_probabilities_and_entropy_are_maskable_categoricals() -> None:
    g = th.Generator().manual_seed(0)
    logits = th.randn(64, 45, generator=g, requires_grad=True)
    masks = th.rand(64, 45, generator=g) < 0.3
    masks[:, 7] = True  # every row has a legal action
    log_p = masked_log_softmax(logits, masks)
    entropy = masked_entropy(log_p, masks)
    ref = MaskableCategorical(logits=logits.detach())
    ref.apply_masking(masks)
    actions = th.multinomial(masks.float(), 1, generator=g)[:, 0]
    assert th.allclose(log_p.gather(1, actions[:, None])[:, 0], ref.log_prob(actions), atol=1e-5)
    assert th.allclose(entropy, ref.entropy(), atol=1e-5)
    (entropy.sum() + log_p.gather(1, actions[:, None]).sum()).backward()
    assert logits.grad is not None and bool(th.isfinite(logits.grad).all())  # no 0 * inf from the masked actions
    assert bool((logits.grad[~masks] == 0).all())


@pytest.mark.parametrize(("gamma", "lam"), [(1.0, 0.0), (1.0, 0.8), (0.99, 0.95)])
def test_gae_is_sb3s(gamma: float, lam: float) -> None:
    steps, envs = 16, 5
    rng = np.random.default_rng(1)
    rewards = rng.normal(size=(steps, envs)).astype(np.float32)
    values = rng.normal(size=(steps, envs)).astype(np.float32)
    dones = (rng.random((steps, envs)) < 0.2).astype(np.float32)
    last_values = rng.normal(size=envs).astype(np.float32)
    buf = RolloutBuffer(steps, spaces.Box(-1, 1, (1,)), spaces.Discrete(2), n_envs=envs, gamma=gamma,
                        gae_lambda=lam)
    for t in range(steps):
        starts = dones[t - 1] if t else np.zeros(envs, np.float32)  # SB3 stores "this observation starts a game"
        buf.add(np.zeros((envs, 1)), np.zeros((envs, 1)), rewards[t], starts, th.as_tensor(values[t]),
                th.zeros(envs))
    buf.compute_returns_and_advantage(th.as_tensor(last_values), dones[-1])
    r = new_rollout(steps, envs, 1, 2)
    r.rewards[:], r.values[:], r.dones[:] = th.as_tensor(rewards), th.as_tensor(values), th.as_tensor(dones)
    gae(r, th.as_tensor(last_values), gamma, lam)
    assert np.allclose(r.advantages.numpy(), buf.advantages, atol=1e-5)
    assert np.allclose(r.returns.numpy(), buf.returns, atol=1e-5)


def _tiny(tmp_path: Path, name: str, **changes: Any) -> Path:
    cfg: dict[str, Any] = {
        "rules": "yatzy", "total_timesteps": 1536, "n_envs": 16, "checkpoint_freq": 512, "torch_threads": 1,
        "policy": {"kind": "model_free", "net_arch": [32, 32], "keep_head": "multiset", "keep_hidden": 16},
        "ppo": {"learner": "lean", "n_steps": 32, "batch_size": 128, "n_epochs": 2, "learning_rate": "lin_1e-3",
                "gae_lambda": 0.0, "clip_range": 0.1, "ent_coef_keep": "lin_0.03_0.005",
                "ent_coef_score": "lin_0.01_0.002"},
        "eval": {"freq": 512, "episodes": 10, "final_episodes": 20},
    }
    for key, value in changes.items():
        section, _, leaf = key.rpartition(".")
        (cfg[section] if section else cfg)[leaf] = value
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _run(tmp_path: Path, config: Path, folder: str) -> Path:
    assert train.main(["--config", str(config), "--run-dir", str(tmp_path / folder), "--no-progress"]) == 0
    (run,) = list((tmp_path / folder).iterdir())
    return run


@pytest.mark.parametrize(("learner", "autocast"), [("lean", "none"), ("lean", "bfloat16"), ("sb3", "bfloat16")])
def test_a_lean_run_trains_saves_and_repeats_for_its_seed(tmp_path: Path, learner: str, autocast: str) -> None:
    """Either learner, in fp32 or bfloat16: the run trains, saves a model the safe loader reads, and repeats."""
    config = _tiny(tmp_path, "lean", **{"ppo.learner": learner, "ppo.autocast": autocast})
    first, second = _run(tmp_path, config, "a"), _run(tmp_path, config, "b")
    def weights_of(path: Path) -> dict[str, th.Tensor]:
        return load_agent(str(path), "yatzy", seed=0).policy.state_dict()

    weights = [weights_of(run / "final_model.zip") for run in (first, second)]
    assert weights[0].keys() == weights[1].keys()
    assert all(th.equal(weights[0][k], weights[1][k]) for k in weights[0])  # the same seed, the same network
    start = weights_of(first / "checkpoints" / "step_512.zip")
    assert any(not th.equal(start[k], weights[0][k]) for k in start)  # it learned after step 512 (the last of the
    # three updates has a learning rate of 0: lin_ schedules end at 0)
    with zipfile.ZipFile(first / "final_model.zip") as zf:
        saved = json.loads(zf.read("data"))
    assert not {"_net", "_rollout"} & set(saved), "the loop's tensors and compiled function stay out of the file"
    assert inspect_sb3_zip(first / "final_model.zip").kind == "maskable"
    agent = load_agent(str(first / "final_model.zip"), "yatzy", seed=0)
    assert type(agent.policy).__name__ == "ModelFreePolicy"
    final = json.loads((first / "eval.json").read_text())
    assert final["episodes"] == 20 and final["training_timesteps"] == 1536
    evals = json.loads((first / "evaluations.json").read_text())
    assert [e["timesteps"] for e in evals] == [512, 1024, 1536]
    assert 0 <= evals[0]["learning_s"] <= evals[-1]["learning_s"] <= final["training_wall_s"] + 0.1


def test_max_learning_s_stops_the_run_on_time(tmp_path: Path) -> None:
    config = _tiny(tmp_path, "budget", total_timesteps=10_000_000, max_learning_s=1.5, checkpoint_freq=10_000_000)
    run = _run(tmp_path, config, "runs")
    final = json.loads((run / "eval.json").read_text())
    assert 0 < final["training_timesteps"] < 10_000_000 and final["training_timesteps"] % 512 == 0
    assert 1.5 <= final["training_wall_s"] < 30
    assert (run / "final_model.zip").is_file()
    ttq = _script("time_to_quality")
    table = ttq.table([(run, ttq.read_run(run))], [0.01, 1])
    assert "| 1 min |" in table and "yatzy" in table and "± " in table


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"ppo": {"learner": "fast"}}, r"config key 'ppo.learner': 'fast'; accepted: sb3, lean"),
        ({"ppo": {"learner": "lean", "autocast": "fp16"}}, r"'ppo.autocast': 'fp16'; accepted: none, bfloat16"),
        ({"ppo": {"autocast": "bfloat16"}}, r"'ppo.autocast' needs policy.kind model_free \(got 'mlp'\)"),
        ({"ppo": {"compile": True}}, r"'ppo.compile' applies to ppo.learner lean only"),
        ({"max_learning_s": 0}, r"'max_learning_s' must be a number of seconds > 0 or null"),
        ({"max_learning_s": float("nan")}, r"'max_learning_s' must be a number of seconds > 0 or null"),
        ({"algo": "td", "max_learning_s": 60}, r"'max_learning_s' applies to algo maskable_ppo only"),
    ],
)
def test_learner_config_errors_name_the_key(data: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        from_dict(data)


def test_every_throughput_variant_is_a_config_train_accepts() -> None:
    bench = _script("bench_learner")
    base = yaml.safe_load((ROOT / "configs" / "yacht_model_free.yaml").read_text(encoding="utf-8"))
    for name, (_, change) in bench.VARIANTS.items():
        cfg = from_dict(bench.merge(base, change))
        assert cfg.ppo.learner == change["ppo"]["learner"], name


def test_time_to_quality_refuses_an_unfinished_run(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"not a finished train.py run folder: no config.yaml, evaluations.json"):
        _script("time_to_quality").read_run(tmp_path)
