"""train.py: a smoke run that makes the run folder, config validation, interruption and resume, model loading."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

import train
from yacht_agents.loader import load_agent
from yacht_training import run_folder as train_support
from yacht_training.config import from_dict, load_config

TINY = {
    "rules": "yacht", "total_timesteps": 1024, "n_envs": 8, "checkpoint_freq": 512,
    "policy": {"net_arch": [32, 32]},
    "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1},
    "eval": {"freq": 256, "episodes": 20, "final_episodes": 40},
}


def _config(tmp_path: Path, **changes: object) -> Path:
    cfg = json.loads(json.dumps(TINY))
    cfg.update(changes)
    p = tmp_path / "tiny.yaml"
    p.write_text(yaml.safe_dump(cfg))
    return p


def _only_run(tmp_path: Path) -> Path:
    (run,) = list((tmp_path / "runs").iterdir())
    return run


def test_smoke_run_makes_the_run_folder(tmp_path: Path) -> None:
    assert train.main(["--config", str(_config(tmp_path)), "--run-dir", str(tmp_path / "runs"), "--no-progress"]) == 0
    run = _only_run(tmp_path)
    for name in ("config.yaml", "command.txt", "best_model.zip", "final_model.zip", "eval.json", "evaluations.json",
                 "learning_curve.png", "checkpoints/step_512.zip", "checkpoints/step_1024.zip"):
        assert (run / name).is_file(), name
    assert any((run / "tb").rglob("events.out.tfevents*"))
    result = json.loads((run / "eval.json").read_text())
    assert result["episodes"] == 40 and 0 < result["percent_of_optimal"] < 100
    assert {"mean", "std", "ci95", "median", "categories"} <= set(result)
    evals = json.loads((run / "evaluations.json").read_text())
    assert [e["timesteps"] for e in evals][:4] == [256, 512, 768, 1024]
    assert load_config(run / "config.yaml").total_timesteps == 1024
    assert "train.py --config" in (run / "command.txt").read_text()
    # the saved model is an agent that plays legal games, and refuses other rules
    agent = load_agent(str(run / "best_model.zip"), "yacht", seed=0)
    from yacht_tools.evaluation import evaluate

    assert evaluate(agent, "yacht", 5, seed=3, regret=False)["episodes"] == 5
    with pytest.raises(ValueError, match="trained for rules 'yacht', not 'yahtzee'"):
        load_agent(str(run / "best_model.zip"), "yahtzee")


def test_smoke_run_with_the_turn_expectimax_policy(tmp_path: Path) -> None:
    policy = {"kind": "turn_expectimax", "net_arch": [16], "box_prior": 15.0, "inverse_temperature": 2.0}
    cfg = _config(tmp_path, rules="yahtzee", policy=policy)
    assert train.main(["--config", str(cfg), "--run-dir", str(tmp_path / "runs"), "--no-progress"]) == 0
    run = _only_run(tmp_path)
    result = json.loads((run / "eval.json").read_text())
    assert result["episodes"] == 40 and result["mean"] > 100  # it plays the turn by search from the start
    agent = load_agent(str(run / "final_model.zip"), "yahtzee", seed=0)
    head = agent.policy.mlp_extractor
    assert type(head).__name__ == "TurnExpectimax" and head.box_prior.item() != 0.0  # saved and loaded
    from yacht_tools.evaluation import evaluate

    assert evaluate(agent, "yahtzee", 5, seed=3, regret=False)["episodes"] == 5
    with pytest.raises(ValueError, match="trained for rules 'yahtzee', not 'yacht'"):
        load_agent(str(run / "final_model.zip"), "yacht")


def test_interrupt_saves_and_resume_continues(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_save = train_support.save_evaluations
    calls = {"n": 0}

    def interrupt_on_second_eval(run_dir: Path, evals: list) -> None:
        calls["n"] += 1
        real_save(run_dir, evals)
        if calls["n"] == 2:
            raise KeyboardInterrupt  # as if Ctrl-C arrived during training

    monkeypatch.setattr(train_support, "save_evaluations", interrupt_on_second_eval)
    assert train.main(["--config", str(_config(tmp_path)), "--run-dir", str(tmp_path / "runs"),
                       "--no-progress"]) == 130  # Ctrl-C: checkpoint saved, the shell's status for SIGINT
    run = _only_run(tmp_path)
    assert not (run / "eval.json").exists()
    from yacht_agents.sb3_zip import inspect_sb3_zip

    (ckpt,) = (run / "checkpoints").glob("step_*.zip")
    stopped_at = inspect_sb3_zip(ckpt).num_timesteps
    # the second evaluation ends the rollout of steps 256..512, not yet trained on: the checkpoint counts 256
    assert stopped_at == 256 and ckpt.name == "step_256.zip"

    monkeypatch.setattr(train_support, "save_evaluations", real_save)
    assert train.main(["--resume", str(run), "--no-progress"]) == 0
    assert inspect_sb3_zip(run / "final_model.zip").num_timesteps == 1024
    steps = [e["timesteps"] for e in json.loads((run / "evaluations.json").read_text())]
    assert steps == sorted(steps) and steps[0] == 256 and steps[-1] == 1024 and len(set(steps)) == len(steps)
    assert len((run / "command.txt").read_text().splitlines()) == 2


@pytest.mark.parametrize(
    "data,match",
    [
        ({"n_env": 4}, r"unknown config key 'n_env'; accepted keys: rules, algo"),
        ({"ppo": {"lr": 1e-3}}, r"unknown config key 'ppo.lr'; accepted keys under ppo: learning_rate"),
        ({"n_envs": "eight"}, r"config key 'n_envs': expected an integer, got 'eight'"),
        ({"n_envs": 2.5}, r"config key 'n_envs': expected an integer"),
        ({"unique_keeps": "yes"}, r"config key 'unique_keeps': expected true/false"),
        ({"policy": {"net_arch": 64}}, r"config key 'policy.net_arch': expected a list of an integer, got 64"),
        ({"rules": "poker"}, r"unknown rules 'poker'; accepted: yacht"),
        ({"algo": "dqn"}, r"config key 'algo': 'dqn'; accepted: maskable_ppo, td"),
        ({"ppo": {"learning_rate": "cosine"}},
         r"'ppo.learning_rate': a schedule is a number, 'lin_<start>' or 'lin_<start>_<end>'"),
        ({"total_timesteps": 0}, r"'total_timesteps' must be a positive integer"),
        ({"policy": {"kind": "cnn"}}, r"'policy.kind': 'cnn'; accepted: mlp, turn_expectimax"),
        ({"ppo": {"final_model": "last"}}, r"'ppo.final_model': 'last'; accepted: final, best"),
        ({"policy": {"inverse_temperature": 0}}, r"'policy.inverse_temperature' must be a finite number > 0, got 0"),
    ],
)
def test_config_errors_name_the_key(data: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        from_dict(data)


def test_config_file_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="config file not found"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("- a\n- list\n")
    with pytest.raises(ValueError, match="must hold a mapping"):
        load_config(bad)
    with pytest.raises(ValueError, match="--resume .* no config.yaml"):
        train.main(["--resume", str(tmp_path)])


def test_shipped_configs_are_valid() -> None:
    for p in sorted(Path(__file__).resolve().parents[1].joinpath("configs").glob("*.yaml")):
        cfg = load_config(p)
        assert cfg.total_timesteps > 0, p


def test_learned_agent_batches_legal_actions() -> None:
    models = Path(__file__).resolve().parents[1] / "agents" / "models"
    for name, rules in (("ppo-expectimax-yacht", "yacht"), ("ppo-expectimax-yahtzee", "yahtzee")):
        if not (models / f"{name}.zip").is_file():
            pytest.skip(f"{name} is not shipped")
        agent = load_agent(name, rules, seed=0)
        from yacht_env.vector.env import YachtVectorEnv

        envs = YachtVectorEnv(16, rules=rules, autoreset_mode="same_step")
        obs, info = envs.reset(seed=0)
        for _ in range(40):
            masks = envs.action_masks()
            actions = agent.act_batch(obs, masks)
            assert masks[np.arange(16), actions].all()
            obs, *_ = envs.step(actions)


def test_every_keep_model_plays_under_the_unique_mask() -> None:
    """A model trained with every keep pattern legal picks among all of them; its pick maps to the allowed one."""
    from yacht_agents.sb3_agent import SB3Agent
    from yacht_env.actions import action_mask
    from yacht_env.observation import encode
    from yacht_env.state import parse

    class PicksPattern2(SB3Agent):  # keeps the second sorted die: for 2 2 5 5 5 the allowed pattern is 1
        def choose(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
            assert masks[:, :31].all()  # offered every pattern
            return np.full(len(obs), 2)

    st = parse("yacht | dice 2 2 5 5 5 | rolls 2 | filled -")
    mask = action_mask(st)
    assert not mask[2] and mask[1]
    agent = PicksPattern2(None, "yacht", unique_keeps=False)
    assert agent.act(encode(st), mask) == 1
