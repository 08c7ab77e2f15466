"""The registry of learners: a new learner is its own code plus one line on each side of the layers.

The toy learner here is such a learner, written in this file alone: it tallies the points each action earns in
random play and plays the action of the highest mean. Registered (one ``register_model_kind`` line, one
``register_learner`` line), its config section validates, ``train()`` runs it, the run folder holds its
checkpoints, a resumed run starts from the newest, and the agent loader reads its model as an agent; unregistered,
every trace of it is gone.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import pydantic
import pytest
from pydantic import Field, StrictInt

pytest.importorskip("torch")

from yacht_agents.base import Agent  # noqa: E402
from yacht_agents.loader import accepted_specs, load_agent  # noqa: E402
from yacht_agents.model_kinds import MODEL_KINDS, ModelKind, register_model_kind, unregister_model_kind  # noqa: E402
from yacht_env.actions import num_actions  # noqa: E402
from yacht_env.env import YachtEnv  # noqa: E402
from yacht_env.files import read_regular, write_text_atomic  # noqa: E402
from yacht_env.rules import RuleSet, get_rules  # noqa: E402
from yacht_env.state import GameState  # noqa: E402
from yacht_training import run_folder as rf  # noqa: E402
from yacht_training.algorithms import train  # noqa: E402
from yacht_training.config import TrainConfig, from_dict, load_config  # noqa: E402
from yacht_training.learners import LEARNERS, Learner, register_learner, unregister_learner  # noqa: E402

# ---- the toy learner: its section, its agent, its train function -------------------------------------------------


@pydantic.with_config(pydantic.ConfigDict(extra="forbid"))
@dataclass
class ToyConfig:
    games_per_update: Annotated[StrictInt, Field(ge=1, le=64)] = 2  # random games tallied between checkpoints


class ToyAgent(Agent):
    """Plays the legal action with the highest mean points in the tallies."""

    batched = True
    needs_obs = False

    def __init__(self, rules: str | RuleSet, values: np.ndarray, name: str = "toy") -> None:
        super().__init__(rules)
        self.values, self.name = values, name

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        return int(self.act_batch(obs[None], np.asarray(mask)[None])[0])

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, states: Sequence[GameState] | None = None
                  ) -> np.ndarray:
        return np.where(np.asarray(masks, dtype=bool), self.values, -np.inf).argmax(axis=1)


def load_toy_agent(path: Path, rules: RuleSet, seed: int | None = None) -> ToyAgent:
    data = json.loads(read_regular(path, 1 << 20))
    if data.get("rules") != rules.name or len(data.get("values", ())) != num_actions(rules):
        raise ValueError(f"{str(path)!r} is not a toy model of rules {rules.name!r}")
    return ToyAgent(rules, np.asarray(data["values"], dtype=np.float64), name=path.stem)


def train_toy(cfg: TrainConfig, run_dir: Path, *, resume: bool = False, progress: bool = True,
              on_resumed: Callable[[], None] | None = None) -> int:
    rules = get_rules(cfg.rules)
    tally = {"steps": 0, "sums": [0.0] * num_actions(rules), "counts": [0] * num_actions(rules)}
    if resume:
        loaded, _ = rf.load_newest(run_dir, cfg, lambda p: json.loads(read_regular(p, 1 << 20)), on_resumed)
        tally.update(loaded)
    sums, counts = np.asarray(tally["sums"]), np.asarray(tally["counts"])
    env, pick = YachtEnv(cfg.rules), np.random.default_rng([cfg.seed, tally["steps"]])
    steps = tally["steps"]
    while steps < cfg.total_timesteps:
        for _ in range(cfg.toy.games_per_update):
            obs, info = env.reset(seed=int(pick.integers(2**31)))
            done = False
            while not done:
                action = int(pick.choice(np.flatnonzero(info["action_mask"])))
                obs, reward, terminated, truncated, info = env.step(action)
                sums[action] += float(reward)
                counts[action] += 1
                steps += 1
                done = terminated or truncated
        checkpoint = {"steps": steps, "sums": sums.tolist(), "counts": counts.tolist()}
        write_text_atomic(rf.checkpoint_path(run_dir, cfg, steps), json.dumps(checkpoint))
    values = np.divide(sums, counts, out=np.zeros_like(sums), where=counts > 0)
    write_text_atomic(run_dir / "final_model.toy", json.dumps({"rules": rules.name, "values": values.tolist()}))
    return 0


def check_toy(cfg: TrainConfig) -> None:
    if cfg.device != "cpu":
        raise ValueError(f"config key 'device': {cfg.device!r}; algo {cfg.algo} plays on the CPU: use cpu")


# ---- the two lines that make it a learner ------------------------------------------------------------------------


@pytest.fixture
def toy() -> Iterator[Learner]:
    register_model_kind(ModelKind("toy", ".toy", load_toy_agent))
    learner = register_learner(Learner("toy", train_toy, "toy", ToyConfig, ".json", "toy", check_toy))
    try:
        yield learner
    finally:
        unregister_learner("toy")
        unregister_model_kind("toy")


def test_a_toy_learner_trains_checkpoints_resumes_and_loads_as_an_agent(toy: Learner, tmp_path: Path) -> None:
    cfg = from_dict({"algo": "toy", "total_timesteps": 1, "toy": {"games_per_update": 1}})
    assert cfg.toy == ToyConfig(games_per_update=1)
    run_dir, lock = rf.new_run_dir(tmp_path, cfg, "toy")
    with lock:
        rf.record_run(run_dir, cfg, ["train.py", "--config", "toy.yaml"])
        assert load_config(run_dir / rf.CONFIG_FILE, complete=True) == cfg  # its section written and read back
        assert train(cfg, run_dir, progress=False) == 0
        ((steps, path),) = rf.checkpoints(run_dir, cfg)  # one game: a box a turn, one to three decisions a turn
        assert path == rf.checkpoint_path(run_dir, cfg, steps) and path.suffix == ".json" and 12 <= steps <= 36
        more = dataclasses.replace(cfg, total_timesteps=steps + 1)
        resumed: list[bool] = []
        assert train(more, run_dir, resume=True, progress=False, on_resumed=lambda: resumed.append(True)) == 0
        assert resumed == [True] and [s for s, _ in rf.checkpoints(run_dir, cfg)][1] == steps
    assert "a model file (.zip / .pt / .toy)" in accepted_specs()
    agent = load_agent(str(run_dir), "yacht", seed=0)  # the run folder's final_model.toy, through the loader
    assert isinstance(agent, ToyAgent) and agent.name == "final_model"
    env = YachtEnv("yacht")
    obs, info = env.reset(seed=3)
    done, total = False, 0.0
    while not done:
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info["action_mask"].astype(bool)))
        assert not info["illegal_action"]
        total += float(reward)
        done = terminated or truncated
    assert terminated and total > 0


def test_a_learner_brings_its_section_and_checks_and_takes_them_away(toy: Learner) -> None:
    assert list(LEARNERS) == ["maskable_ppo", "td", "rllib_ppo", "toy"]
    assert [f.name for f in dataclasses.fields(TrainConfig)][-3:] == ["rllib", "toy", "eval"]
    too_many = r"^config key 'toy.games_per_update' must be a positive integer \(at most 64\), got 65$"
    with pytest.raises(ValueError, match=too_many):
        from_dict({"algo": "toy", "toy": {"games_per_update": 65}})
    with pytest.raises(ValueError, match=r"^config key 'device': 'mps'; algo toy plays on the CPU: use cpu$"):
        from_dict({"algo": "toy", "device": "mps"})
    with pytest.raises(ValueError, match=r"^config key 'max_learning_s' applies to algo maskable_ppo only, not 'toy'"):
        from_dict({"algo": "toy", "max_learning_s": 5.0})
    with pytest.raises(ValueError, match=r"^config key 'exact_budget' applies to algo maskable_ppo or td only, not "
                                         r"'toy': its runs may pass total_timesteps"):
        from_dict({"algo": "toy", "exact_budget": True})
    with pytest.raises(ValueError, match=r"^config key 'exact_budget' applies to algo maskable_ppo or td only, not "
                                         r"'rllib_ppo'"):
        from_dict({"algo": "rllib_ppo", "exact_budget": True})
    with pytest.raises(ValueError, match=r"^config key 'algo': 'toys'; accepted: maskable_ppo, td, rllib_ppo, toy$"):
        from_dict({"algo": "toys"})
    unregister_learner("toy")
    assert "toy" not in TrainConfig().to_dict() and list(LEARNERS) == ["maskable_ppo", "td", "rllib_ppo"]
    with pytest.raises(ValueError, match=r"^unknown config key 'toy'; accepted keys: rules, algo, "):
        from_dict({"toy": {}})
    with pytest.raises(ValueError, match=r"^config key 'algo': 'toy'; accepted: maskable_ppo, td, rllib_ppo$"):
        from_dict({"algo": "toy"})


def test_the_registry_refuses_a_second_learner_of_a_name_a_section_or_an_unknown_model_kind() -> None:
    ppo = LEARNERS["maskable_ppo"]
    with pytest.raises(ValueError, match="learner 'maskable_ppo' is registered already"):
        register_learner(ppo)
    with pytest.raises(ValueError, match="config section 'ppo' belongs to learner 'maskable_ppo'"):
        register_learner(dataclasses.replace(ppo, name="ppo2"))
    with pytest.raises(ValueError, match="model kind 'nope' is not registered; registered: sb3, td, rllib_ppo"):
        register_learner(dataclasses.replace(ppo, name="ppo2", section="ppo2", model="nope"))
    with pytest.raises(ValueError, match=r"\.pt files are read by td, rllib_ppo already"):
        register_model_kind(ModelKind("other", ".pt", MODEL_KINDS["td"].load))
    with pytest.raises(ValueError, match="suffix must be a dot and lower-case letters or digits"):
        ModelKind("other", "PT", MODEL_KINDS["td"].load)
    assert list(LEARNERS) == ["maskable_ppo", "td", "rllib_ppo"] and list(MODEL_KINDS) == ["sb3", "td", "rllib_ppo"]


def test_the_built_in_learners_and_their_files() -> None:
    """What the run folder and the loader read for the three learners shipped (the files of every existing run
    folder and model keep their names)."""
    got = {x.name: (x.section, x.checkpoint, MODEL_KINDS[x.model].suffix) for x in LEARNERS.values()}
    assert got == {"maskable_ppo": ("ppo", ".zip", ".zip"), "td": ("td", ".pt", ".pt"),
                   "rllib_ppo": ("rllib", ".pt", ".pt")}
    cfg: Any = TrainConfig()
    assert [type(getattr(cfg, x.section)) for x in LEARNERS.values()] == [x.settings for x in LEARNERS.values()]
