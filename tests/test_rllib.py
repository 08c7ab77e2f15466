"""Ray RLlib's PPO path: config, the NEXT_STEP adapter over the engine, the ray-free model format, and (with
``ray[rllib]`` installed) a short run with 2 env runners, interruption and resume.

``pytest -m rllib`` selects the tests that start Ray; without Ray installed they are skipped.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from yacht_agents.loader import load_agent
from yacht_env.actions import KEEP_ALL, num_actions
from yacht_env.env import YachtEnv
from yacht_env.observation import layout, size
from yacht_env.vector import LegalActionSampler
from yacht_training.config import from_dict, load_config

ROOT = Path(__file__).resolve().parents[1]
HAS_RAY = importlib.util.find_spec("ray") is not None
needs_ray = pytest.mark.skipif(not HAS_RAY, reason="ray[rllib] is not installed: pip install -e '.[rllib]'")

TINY = {
    "rules": "yacht", "algo": "rllib_ppo", "total_timesteps": 2048, "checkpoint_freq": 1024, "torch_threads": 1,
    "rllib": {"num_env_runners": 2, "num_envs_per_env_runner": 8, "train_batch_size": 512, "minibatch_size": 128,
              "num_epochs": 1, "hidden": [32, 32]},
    "eval": {"freq": 512, "episodes": 20, "final_episodes": 40},
}


def _config(tmp_path: Path, **changes: object) -> Path:
    cfg = json.loads(json.dumps(TINY))
    cfg.update(changes)
    p = tmp_path / "tiny_rllib.yaml"
    p.write_text(yaml.safe_dump(cfg))
    return p


# ---- config ----------------------------------------------------------------------------------------------------------


def test_shipped_rllib_config_is_valid() -> None:
    cfg = load_config(ROOT / "configs" / "yacht_rllib_ppo.yaml")
    assert cfg.algo == "rllib_ppo" and cfg.rllib.num_env_runners == 2 and cfg.rllib.vectorize == "engine"


@pytest.mark.parametrize(
    "data,match",
    [
        ({"rllib": {"num_runners": 2}}, r"unknown config key 'rllib.num_runners'; accepted keys under rllib: "
                                        r"num_env_runners"),
        ({"rllib": {"num_env_runners": "two"}}, r"config key 'rllib.num_env_runners': expected an integer"),
        ({"rllib": {"lambda_": "high"}}, r"config key 'rllib.lambda_': expected a number"),
        ({"rllib": {"vectorize": "async"}}, r"'rllib.vectorize': 'async'; accepted: engine, sync"),
        ({"rllib": {"activation": "swish"}}, r"'rllib.activation': 'swish'; accepted: relu, tanh"),
        ({"rllib": {"minibatch_size": 4096, "train_batch_size": 1024}}, r"'rllib.minibatch_size' \(4096\) must not"),
        ({"rllib": {"lr": "cos_1e-3"}}, r"'rllib.lr': a schedule is a number or 'lin_<start>'"),
        ({"rllib": {"num_env_runners": -1}}, r"'rllib.num_env_runners' must be a non-negative integer"),
        ({"rllib": {"hidden": []}}, r"'rllib.hidden' must be a list of 1\.\.16 values, each a "
        r"positive integer \(at most 4,096\), got \[\]"),
        ({"rllib": {"grad_clip": 0}}, r"'rllib.grad_clip' must be null or a finite number > 0"),
        ({"algo": "ppo"}, r"config key 'algo': 'ppo'; accepted: maskable_ppo, td, rllib_ppo"),
    ],
)
def test_rllib_config_errors_name_the_key(data: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        from_dict(data)


# ---- the NEXT_STEP adapter over the engine (no Ray needed) -----------------------------------------------------------


def test_adapter_gives_next_step_autoreset_over_the_same_games_as_the_single_env() -> None:
    """Each slot plays exactly what YachtEnv reset with the training seed plays, episode after episode; at the step
    after an episode ends the slot shows the new game (reward 0, not done) and its action is ignored."""
    from yacht_training.rllib_env import YachtRLlibVectorEnv, training_game_seed

    n = 6
    cfg = {"rules": "yacht", "reward_scale": 1.0, "seed": 7, "rllib_seed": 7 + 1_000_000, "session": 1}
    venv = YachtRLlibVectorEnv(n, cfg)
    assert venv.metadata["autoreset_mode"].name == "NEXT_STEP"
    assert venv.single_observation_space["action_mask"].shape == (num_actions("yacht"),)
    obs, _ = venv.reset(seed=7 + 1_000_000 + 2)  # RLlib's seed for env runner 2 in session 1
    singles = [YachtEnv("yacht") for _ in range(n)]
    ref = [e.reset(seed=training_game_seed(7, 1, 2, i))[0] for i, e in enumerate(singles)]
    assert np.array_equal(obs["observations"], np.stack(ref))
    sampler = LegalActionSampler(n, seed=0)
    pending = np.zeros(n, dtype=bool)
    returns, ends = np.zeros(n), 0
    for _ in range(200):
        mask = obs["action_mask"].astype(bool)
        actions = sampler(mask) if mask.any(axis=1).all() else np.full(n, KEEP_ALL)
        actions = np.where(pending, 0, actions)  # any action: ignored in a slot that shows its new game
        obs, reward, term, trunc, _ = venv.step(actions)
        for i, e in enumerate(singles):
            if pending[i]:
                o, _ = e.reset()
                assert reward[i] == 0 and not term[i] and not trunc[i]
                assert obs["observations"][i][layout("yacht")["turn"]][0] == 0
            else:
                o, r, t, _, info = e.step(int(actions[i]))
                returns[i] += r
                assert reward[i] == r and term[i] == t
                if t:
                    assert returns[i] == info["final_score"] and not obs["action_mask"][i].any()
                    returns[i] = 0
                    ends += 1
            assert np.array_equal(obs["observations"][i], o)
            assert np.array_equal(obs["action_mask"][i].astype(bool), e.unwrapped.action_masks() if not term[i]
                                  else np.zeros(num_actions("yacht"), bool))
        pending = term | trunc
    assert ends >= n


def test_training_seeds_differ_between_games_runners_sessions_and_evaluation() -> None:
    from yacht_tools.seeds import game_seed
    from yacht_training.rllib_env import training_game_seed

    train = {training_game_seed(s, k, w, i) for s in (0, 1) for k in (0, 1) for w in (0, 1, 2) for i in range(64)}
    assert len(train) == 2 * 2 * 3 * 64
    evals = {game_seed(seed, j) for seed in (0, 1, 1_000_000_000, 1_010_000_000) for j in range(64)}
    assert not train & evals


# ---- the model file: our own format, loaded without Ray --------------------------------------------------------------


def _save_random_policy(path: Path, rules: str = "yacht", hidden: tuple[int, ...] = (16,)) -> None:
    import torch

    from yacht_agents.nets import mlp
    from yacht_agents.rllib_agent import policy_meta, save_policy

    torch.manual_seed(0)
    net = mlp(size(rules), hidden, "tanh", num_actions(rules))
    save_policy(path, net.state_dict(), policy_meta(rules, True, hidden, "tanh"), {"timesteps": 0})


def test_policy_file_loads_as_a_batched_agent_without_ray(tmp_path: Path) -> None:
    model = tmp_path / "final_model.pt"
    _save_random_policy(model)
    code = ("import sys; sys.modules['ray'] = None\n"  # importing ray would fail: the agent must not need it
            "from yacht_agents.loader import load_agent\n"
            "from yacht_tools.evaluation import evaluate\n"
            f"a = load_agent({str(model)!r}, 'yacht', seed=0)\n"
            "r = evaluate(a, 'yacht', 8, seed=1, regret=False)\n"
            "print(type(a).__name__, r['episodes'], r['engine'])\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["RLlibAgent", "8", "vector"]

    agent = load_agent(str(model), "yacht", seed=0)
    from yacht_env.vector.env import YachtVectorEnv

    envs = YachtVectorEnv(16, rules="yacht", autoreset_mode="same_step")
    obs, _ = envs.reset(seed=0)
    for _ in range(40):
        masks = envs.action_masks()
        actions = agent.act_batch(obs, masks)
        assert masks[np.arange(16), actions].all()
        assert all(agent.act(obs[i], masks[i]) == actions[i] for i in range(3))
        obs, *_ = envs.step(actions)
    with pytest.raises(ValueError, match="trained for rules 'yacht', not 'yahtzee'"):
        load_agent(str(model), "yahtzee")


def test_loader_tells_the_pt_formats_apart_and_refuses_pickles(tmp_path: Path) -> None:
    import torch

    if (ROOT / "agents" / "models" / "td-yacht.pt").is_file():
        assert type(load_agent("td-yacht", "yacht", seed=0)).__name__ == "TDAgent"
    bad = tmp_path / "evil.pt"
    torch.save({"meta": {"format": "yacht-env-rllib-ppo"}, "x": object()}, bad)  # needs unpickling an object
    with pytest.raises(ValueError, match="cannot load|not a TD model"):
        load_agent(str(bad), "yacht")
    other = tmp_path / "other.pt"
    _save_random_policy(other, hidden=(8,))
    data = torch.load(other, weights_only=True)
    data["meta"]["hidden"] = [9]
    torch.save(data, other)
    with pytest.raises(ValueError, match="weights do not fit its metadata"):
        load_agent(str(other), "yacht")


def _rllib_file_error(tmp_path: Path, edit: Any, capsys: pytest.CaptureFixture[str]) -> str:
    """What ``yacht eval`` says of a policy file edited by ``edit(data)``: one line, exit status 2."""
    import torch

    from yacht_cli import main

    path = tmp_path / "edited.pt"
    _save_random_policy(path)
    data = torch.load(path, weights_only=True)
    edit(data)
    torch.save(data, path)
    rc = main(["eval", "--agent", str(path), "--episodes", "2", "--no-regret", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and err.startswith(f"yacht eval: error: {str(path)!r}: "), err
    return err


def test_a_policy_file_declaring_a_huge_network_is_refused_before_it_is_built(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """2 KB declaring hidden [40000, 40000] made 6.6 GB of weights before the refusal; now the declared sizes are
    bounded and compared with the weights the file holds, before anything is built."""
    import tracemalloc

    tracemalloc.start()
    try:
        err = _rllib_file_error(tmp_path, lambda d: (d["meta"].update(hidden=[40000, 40000]), d["state_dict"].clear()),
                                capsys)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "hidden must list 1..16 layer widths in 1..4096" in err and peak < 50 << 20
    err = _rllib_file_error(tmp_path, lambda d: d["meta"].update(hidden=[4096] * 16), capsys)
    assert "it declares a network of 2" in err and "more than the limit of 4,194,304 (MAX_NETWORK_NUMBERS" in err
    err = _rllib_file_error(tmp_path, lambda d: d["meta"].update(hidden=[512, 512]), capsys)
    assert "the network weights do not fit its metadata: it declares a network of " in err


def test_a_policy_file_with_nan_weights_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """All-NaN weights evaluated to 35.2 points without a word."""
    err = _rllib_file_error(tmp_path, lambda d: [t.fill_(float("nan")) for t in d["state_dict"].values()], capsys)
    assert "the network weights are not all finite (NaN or inf), first in '0.weight'" in err


def test_a_run_folder_is_an_agent(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    _save_random_policy(run / "best_model.pt")
    assert load_agent(str(run), "yacht").name == "best_model"
    _save_random_policy(run / "final_model.pt")
    assert load_agent(str(run), "yacht").name == "final_model"
    (run / "eval.json").write_text(json.dumps({"agent": "best_model.pt"}))
    assert load_agent(str(run), "yacht").name == "best_model"
    with pytest.raises(ValueError, match="folder without a model"):
        load_agent(str(tmp_path), "yacht")


# ---- with Ray --------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ray_session():  # noqa: ANN201 - a generator fixture
    """One local Ray for the module's tests (train_rllib_ppo joins it instead of starting its own)."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False)
    yield ray
    ray.shutdown()


@pytest.mark.rllib
@needs_ray
@pytest.mark.usefixtures("ray_session")
def test_engine_and_sync_vectorisation_train_identically_and_the_learner_state_round_trips() -> None:
    """The adapter over the engine and RLlib's SyncVectorEnv of single envs give RLlib the same episodes: one
    iteration from the same seed gives the same weights. Weights and Adam state saved as tensors load back."""
    import torch

    from yacht_training import rllib_ppo as RLLIB

    base = json.loads(json.dumps(TINY))
    base["rllib"]["num_env_runners"] = 0
    states = {}
    for mode in ("engine", "sync"):
        base["rllib"]["vectorize"] = mode
        cfg = from_dict(base)
        RLLIB.start_ray(cfg, None)
        algo = RLLIB.ppo_config(cfg).build_algo()
        algo.train()
        states[mode] = RLLIB.learner_state(algo)
        if mode == "sync":
            algo.stop()
        else:
            kept = algo
    (m1, o1), (m2, _) = states["engine"], states["sync"]
    assert m1.keys() == m2.keys() and all(torch.equal(m1[k], m2[k]) for k in m1)

    fresh = RLLIB.ppo_config(from_dict(base)).build_algo()
    RLLIB.set_learner_state(fresh, m1, o1)
    m3, o3 = RLLIB.learner_state(fresh)
    assert all(torch.equal(m1[k], m3[k]) for k in m1)
    (name,) = o1
    s1, s3 = o1[name]["state"], o3[name]["state"]
    assert s1["state"].keys() == s3["state"].keys() and s1["param_groups"] == s3["param_groups"]
    for p in s1["state"]:
        assert all(torch.equal(torch.as_tensor(s1["state"][p][k]), torch.as_tensor(s3["state"][p][k]))
                   for k in s1["state"][p])
    # the env runner plays what the learner holds, and holds the policy only (InferenceOnlyAPI)
    runner = fresh.env_runner.module.state_dict()
    assert runner and all(k.startswith("pi.") for k in runner) and all(torch.equal(runner[k], m1[k]) for k in runner)
    fresh.stop()
    kept.stop()


@pytest.mark.rllib
@needs_ray
@pytest.mark.usefixtures("ray_session")
def test_smoke_run_with_two_env_runners_makes_the_run_folder(tmp_path: Path) -> None:
    import train

    assert train.main(["--config", str(_config(tmp_path)), "--run-dir", str(tmp_path / "runs"), "--no-progress"]) == 0
    (run,) = list((tmp_path / "runs").iterdir())
    for name in ("config.yaml", "command.txt", "best_model.pt", "final_model.pt", "eval.json", "evaluations.json",
                 "learning_curve.png", "checkpoints/step_1024.pt", "training_time.json"):
        assert (run / name).is_file(), name
    assert any((run / "tb").rglob("events.out.tfevents*"))
    result = json.loads((run / "eval.json").read_text())
    assert result["episodes"] == 40 and result["agent"] == "final_model.pt" and result["env_runners"] == 2
    assert result["seed"] == 1_000_000_000 + 10_000_000 and result["training_timesteps"] >= 2048
    evals = json.loads((run / "evaluations.json").read_text())
    assert [e["timesteps"] for e in evals] == [512, 1024, 1536, 2048]
    assert load_config(run / "config.yaml").rllib.num_env_runners == 2
    agent = load_agent(str(run), "yacht", seed=0)  # the run folder: the model eval.json evaluated
    from yacht_tools.evaluation import evaluate

    assert evaluate(agent, "yacht", 5, seed=3, regret=False)["episodes"] == 5
    with pytest.raises(ValueError, match="trained for rules 'yacht', not 'yahtzee'"):
        load_agent(str(run / "final_model.pt"), "yahtzee")


@pytest.mark.rllib
@needs_ray
@pytest.mark.usefixtures("ray_session")
def test_interrupt_saves_and_resume_continues(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    import train
    from yacht_training import run_folder as train_support

    real_save = train_support.save_evaluations
    calls = {"n": 0}

    def interrupt_on_second_eval(run_dir: Path, evals: list) -> None:
        calls["n"] += 1
        real_save(run_dir, evals)
        if calls["n"] == 2:
            raise KeyboardInterrupt  # as if Ctrl-C arrived during training

    monkeypatch.setattr(train_support, "save_evaluations", interrupt_on_second_eval)
    cfg = _config(tmp_path, rllib={**TINY["rllib"], "num_env_runners": 1}, total_timesteps=1536)
    assert train.main(["--config", str(cfg), "--run-dir", str(tmp_path / "runs"), "--no-progress"]) == 130
    (run,) = list((tmp_path / "runs").iterdir())
    assert not (run / "eval.json").exists()
    ck = torch.load(_newest_checkpoint(run), weights_only=True)
    stopped_at = ck["counters"]["timesteps"]
    assert 1024 <= stopped_at < 1536 and ck["counters"]["session"] == 0
    assert any(k.startswith("vf.") for k in ck["module"]) and ck["optimizer"]

    monkeypatch.setattr(train_support, "save_evaluations", real_save)
    assert train.main(["--resume", str(run), "--no-progress"]) == 0
    ck = torch.load(_newest_checkpoint(run), weights_only=True)
    assert ck["counters"]["timesteps"] >= 1536 and ck["counters"]["session"] == 1
    steps = [e["timesteps"] for e in json.loads((run / "evaluations.json").read_text())]
    assert steps == sorted(set(steps)) and steps[1] == stopped_at and steps[-1] == ck["counters"]["timesteps"]
    assert json.loads((run / "eval.json").read_text())["training_timesteps"] == ck["counters"]["timesteps"]
    assert len((run / "command.txt").read_text().splitlines()) == 2


def _newest_checkpoint(run: Path) -> Path:
    return max((run / "checkpoints").glob("step_*.pt"), key=lambda p: int(p.stem[5:]))


def test_lr_schedule_continues_across_sessions() -> None:
    from yacht_training.rllib_ppo import lr_schedule

    assert lr_schedule(1e-3, 1000, 400) == 1e-3
    start, end = lr_schedule("lin_1e-3", 1000, 400)
    assert start == [0, pytest.approx(6e-4)] and end == [600, 0.0]


@pytest.mark.rllib
@needs_ray
def test_bench_runs_go_to_a_ray_cluster_as_tasks(tmp_path: Path) -> None:
    """``yacht bench run --ray-address local``: each run is a Ray task of one CPU; its record comes back to the
    command and is the record a run in a process writes (the protocol's short budget, the TD learner)."""
    from yacht_cli import main
    from yacht_tools import protocol as P

    argv = ["bench", "run", "--learner", f"td={ROOT / 'configs' / 'yacht_td.yaml'}", "--tasks", "yacht", "--budget",
            "short", "--seeds", "0", "--out", str(tmp_path), "--ray-address", "local", "--no-progress"]
    assert main(argv) == 0
    rec = P.read_record(tmp_path / "records" / "yacht-td-short-s0.json")
    assert rec["kind"] == "run" and rec["budget_steps"] == P.BUDGETS["short"] == 100_000
    assert P.MIN_BUDGET_USE * 100_000 <= rec["training"]["timesteps"] <= 100_000 and len(rec["curve"]) == P.CHECKPOINTS
    assert rec["final"]["percent_of_optimal"] > 90  # the TD learner is near optimal play within 100,000 steps
