"""The model-based TD learner (agents/td_agent.py, yacht_training/td_learner.py): exact expectimax, learning, run
folders, model files."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import yaml

torch = pytest.importorskip("torch")

from yacht_agents import nets, td_agent  # noqa: E402 - after the torch check
from yacht_agents.loader import load_agent  # noqa: E402
from yacht_agents.optimal import OptimalAgent  # noqa: E402
from yacht_agents.random_agent import RandomAgent  # noqa: E402
from yacht_env.actions import action_mask  # noqa: E402
from yacht_env.rules import RULESETS, get_rules  # noqa: E402
from yacht_env.state import GameState, parse  # noqa: E402
from yacht_solver import solve  # noqa: E402
from yacht_solver.search import turn_search as T  # noqa: E402
from yacht_solver.search.turn_constants import Starts, search_constants  # noqa: E402
from yacht_tools.evaluation import evaluate, play_games  # noqa: E402
from yacht_training import td_learner as td_train  # noqa: E402

RULES = list(RULESETS)


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    torch.set_num_threads(1)


@pytest.mark.parametrize("rules", RULES)
def test_memo_holds_every_successor_the_search_reads(rules: str) -> None:
    """The memo fills only the successors of the states at hand (missing_successors), and the search reads nothing
    else: with every other state's value NaN it gives the same, finite, values."""
    rs = get_rules(rules)
    memo = td_agent.ValueMemo(rs, model=td_agent.ValueNet(rs, [16]))
    space = memo.space
    rng = np.random.default_rng(1)
    Fs = rng.integers(0, (1 << space.num_categories) - 1, 40)
    us = rng.integers(0, space.U, 40)
    ys = rng.integers(0, space.Y, 40) * ((Fs >> max(space.five_kind_category, 0)) & 1 if space.Y == 2 else 0)
    memo.ensure(Fs, us, ys)
    cs = search_constants(rs)
    starts = []
    for E in (memo.E, np.where(memo.known, memo.E, np.nan)):
        start = np.empty(40)
        T.turn_values(cs, E, Starts(Fs, us, ys), T.empty_keep_values(40), start)
        starts.append(start)
    assert np.isfinite(starts[1]).all()
    np.testing.assert_array_equal(starts[0], starts[1])
    assert memo.known.sum() < space.size


def _states(rules: str, games: int) -> list[GameState]:
    """Decision states from random play (off the optimal path) and from optimal play."""
    seen: list[GameState] = []
    for agent in (RandomAgent(rules, seed=3), OptimalAgent(rules)):
        play_games(agent, rules, list(range(games)), on_decision=lambda g, s, a: seen.append(s))
    return seen


@pytest.mark.parametrize("rules", RULES)
def test_expectimax_with_exact_values_plays_optimally(rules: str) -> None:
    sol = solve(rules)
    exact = td_agent.TDAgent(rules, table=sol.values)
    states = _states(rules, 6)
    if get_rules(rules).has_five_kind_box:  # Joker and bonus situations
        states += [parse(t) for t in (
            f"{rules} | dice 4 4 4 4 4 | rolls 0 | filled yahtzee=50",
            f"{rules} | dice 4 4 4 4 4 | rolls 2 | filled yahtzee=50,fours=12",
            f"{rules} | dice 6 6 6 6 6 | rolls 1 | filled yahtzee=0,ones=3,twos=6",
            f"{rules} | dice 2 2 2 2 2 | rolls 0 | filled yahtzee=50,twos=4,three_of_a_kind=20,four_of_a_kind=0,"
            "full_house=25,small_straight=30,large_straight=40,chance=22",
        )]
    assert len(states) > 300
    masks = np.stack([action_mask(s) for s in states])
    got = exact.act_batch(np.zeros((len(states), 0)), masks, states)
    want = [sol.best_action(s) for s in states]
    assert got.tolist() == want


def test_exact_values_play_the_same_games_as_the_optimal_agent() -> None:
    sol = solve("yacht")
    a = evaluate(td_agent.TDAgent("yacht", table=sol.values), "yacht", 30, seed=4, regret=True)
    b = evaluate(OptimalAgent("yacht"), "yacht", 30, seed=4, regret=False)
    assert a["scores"] == b["scores"]
    assert a["regret_per_game"] < 1e-9


def test_short_training_improves_on_the_start() -> None:
    torch.manual_seed(0)
    model = td_agent.ValueNet("yacht", [64, 64])
    opt = torch.optim.Adam(model.net.parameters(), lr=3e-3)
    before = evaluate(td_agent.TDAgent("yacht", model=model), "yacht", 40, seed=7, regret=True)
    player = td_train.SelfPlay(model)
    rng = np.random.default_rng(0)
    for _ in range(20):
        idx, targets, steps, _ = player.play(64, rng)
        assert steps >= 64 * 12 and len(idx) == len(targets) == 64 * 12
        td_train.fit(model, opt, idx, targets, 2, 128, rng)
        player.memo.clear()
    after = evaluate(td_agent.TDAgent("yacht", model=model), "yacht", 40, seed=7, regret=True)
    assert after["regret_per_game"] < 0.5 * before["regret_per_game"]
    assert after["mean"] > before["mean"]
    start = model.predict(np.array([0]))[0]  # the empty scorecard
    assert abs(start - solve("yacht").start_value) < 0.1 * solve("yacht").start_value


def test_targets_are_exact_turn_expectations() -> None:
    """With exact values in the memo, every TD(0) target equals the solver's value of the state."""
    sol = solve("yahtzee")
    model = td_agent.ValueNet("yahtzee", [8])
    player = td_train.SelfPlay(model)
    player.memo = td_agent.ValueMemo(get_rules("yahtzee"), table=sol.values)
    idx, targets, _, scores = player.play(16, np.random.default_rng(2))
    np.testing.assert_allclose(targets, sol.values.reshape(-1)[idx], rtol=0, atol=1e-9)
    assert targets[:16] == pytest.approx(sol.start_value)


def test_model_for_other_rules_fails_clearly(tmp_path: Path) -> None:
    path = tmp_path / "m.pt"
    td_agent.ValueNet("yacht", [16]).save(path)
    assert isinstance(load_agent(str(path), "yacht"), td_agent.TDAgent)
    with pytest.raises(ValueError, match="trained for rules 'yacht', not 'yahtzee'"):
        load_agent(str(path), "yahtzee")
    data = torch.load(path, weights_only=True)
    data["meta"]["feature_layout_version"] = 0
    torch.save(data, tmp_path / "old.pt")
    with pytest.raises(ValueError, match="feature layout version 0"):
        load_agent(str(tmp_path / "old.pt"), "yacht")
    torch.save({"weights": torch.zeros(3)}, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="not a TD model"):
        load_agent(str(tmp_path / "other.pt"), "yacht")
    (tmp_path / "junk.pt").write_bytes(b"not a model")
    with pytest.raises(ValueError, match="cannot load"):
        load_agent(str(tmp_path / "junk.pt"), "yacht")


@pytest.mark.parametrize("rules", ["yacht", "yahtzee", "yatzy"])
def test_shipped_models_load_and_play(rules: str) -> None:
    agent = load_agent(f"td-{rules}", rules, seed=0)
    assert isinstance(agent, td_agent.TDAgent)
    r = evaluate(agent, rules, 20, seed=3, regret=False)
    assert r["percent_of_optimal"] > 80
    other = "yahtzee" if rules == "yacht" else "yacht"
    with pytest.raises(ValueError, match=f"trained for rules '{rules}', not '{other}'"):
        load_agent(f"td-{rules}", other)


def _config(tmp_path: Path, **td_keys: object) -> Path:
    cfg = {"rules": "yacht", "algo": "td", "total_timesteps": 3000, "seed": 0, "checkpoint_freq": 2000,
           "torch_threads": 1,
           "td": {"hidden": [32, 32], "learning_rate": "lin_3e-3", "games_per_iteration": 32, **td_keys},
           "eval": {"freq": 1000, "episodes": 10, "final_episodes": 20}}
    path = tmp_path / "tiny_td.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_train_py_run_folder_and_resume(tmp_path: Path) -> None:
    import train

    assert train.main(["--config", str(_config(tmp_path)), "--run-dir", str(tmp_path / "runs"), "--no-progress"]) == 0
    (run,) = (tmp_path / "runs").iterdir()
    for name in ("config.yaml", "command.txt", "best_model.pt", "final_model.pt", "evaluations.json", "eval.json",
                 "learning_curve.png"):
        assert (run / name).is_file(), name
    evals = json.loads((run / "evaluations.json").read_text())
    assert {"timesteps", "mean", "percent_of_optimal"} <= set(evals[0])
    result = json.loads((run / "eval.json").read_text())
    assert result["episodes"] == 20 and result["seed"] == 1_000_000_000 + 10_000_000 and len(result["scores"]) == 20
    assert result["agent"] == "final_model.pt" and result["percent_of_optimal"] > 0
    assert isinstance(load_agent(str(run / "best_model.pt"), "yacht"), td_agent.TDAgent)
    steps = evals[-1]["timesteps"]

    assert train.main(["--resume", str(run), "--timesteps", "6000", "--no-progress"]) == 0
    evals = json.loads((run / "evaluations.json").read_text())
    assert evals[-1]["timesteps"] >= 6000 > steps
    assert len((run / "command.txt").read_text().splitlines()) == 2
    newest = max((run / "checkpoints").glob("step_*.pt"), key=lambda p: int(p.stem[5:]))
    ck = torch.load(newest, weights_only=True)
    assert ck["counters"]["timesteps"] == evals[-1]["timesteps"]


def test_ctrl_c_saves_and_exits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C during training saves a checkpoint and exits 130 (it exited 0: a script could not tell it stopped),
    as yacht and train.py do everywhere else."""
    import train

    calls = {"n": 0}
    play = td_train.SelfPlay.play

    def interrupted(self: td_train.SelfPlay, *args: object, **kw: object) -> object:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return play(self, *args, **kw)

    monkeypatch.setattr(td_train.SelfPlay, "play", interrupted)
    assert train.main(["--config", str(_config(tmp_path)), "--run-dir", str(tmp_path / "runs"), "--no-progress",
                       "--timesteps", "100000"]) == 130
    (run,) = (tmp_path / "runs").iterdir()
    (ckpt,) = (run / "checkpoints").glob("step_*.pt")
    ck = torch.load(ckpt, weights_only=True)
    assert ck["counters"]["iteration"] == 2
    assert not (run / "eval.json").exists()


def test_bad_td_settings_fail_clearly(tmp_path: Path) -> None:
    import train

    with pytest.raises(ValueError, match="td.activation"):
        train.main(["--config", str(_config(tmp_path, activation="sigmoid")), "--run-dir", str(tmp_path / "r"),
                    "--no-progress"])


def test_config_and_network_agree_on_activations() -> None:
    from yacht_training.config import TDConfig

    TDConfig(activation="silu")
    for name in nets.ACTIVATIONS:
        nets.mlp(4, [3], name, 1)


def test_resume_keeps_the_configs_optimizer_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A checkpoint's optimizer settings (eps nan, maximize: gradient ascent...) were adopted without a word."""
    import train

    assert train.main(["--config", str(_config(tmp_path)), "--run-dir", str(tmp_path / "runs"), "--no-progress"]) == 0
    (run,) = (tmp_path / "runs").iterdir()
    newest = max((run / "checkpoints").glob("step_*.pt"), key=lambda p: int(p.stem[5:]))
    ck = torch.load(newest, weights_only=True)
    for group in ck["optimizer"]["param_groups"]:
        group.update(eps=float("nan"), weight_decay=1000.0, betas=(0.0, 0.0), amsgrad=True, maximize=True)
    torch.save(ck, newest)
    capsys.readouterr()
    assert train.main(["--resume", str(run), "--timesteps", "6000", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert f"train.py: {newest.name} has other optimizer settings than the config, the config's are kept: " in err
    for name in ("amsgrad: file True, config False", "betas: file (0.0, 0.0), config (0.9, 0.999)",
                 "eps: file nan, config 1e-08", "maximize: file True, config False", "weight_decay: file 1000.0"):
        assert f"optimizer.{name}" in err, err
    after = max((run / "checkpoints").glob("step_*.pt"), key=lambda p: int(p.stem[5:]))
    groups = torch.load(after, weights_only=True)["optimizer"]["param_groups"]
    assert all(not g["maximize"] and g["eps"] == 1e-8 and g["weight_decay"] == 0 for g in groups)
    assert all(torch.isfinite(t).all() for t in torch.load(run / "final_model.pt", weights_only=True)[
        "state_dict"].values())


def test_load_optimizer_state_refuses_non_finite_moments() -> None:
    from yacht_training.optimizer_state import load_optimizer_state

    p = torch.nn.Parameter(torch.ones(3))
    opt = torch.optim.Adam([p])
    p.grad = torch.ones(3)
    opt.step()
    state = opt.state_dict()
    state["state"][0]["exp_avg_sq"] = torch.full((3,), float("inf"))
    with pytest.raises(ValueError, match=r"ck holds a NaN, inf or negative step in state\[0\]\['exp_avg_sq'\]"):
        load_optimizer_state(opt, state, "ck")
    state["state"][0].update(exp_avg_sq=torch.ones(3), step=10 ** 400)
    with pytest.raises(ValueError, match=r"state\[0\]\['step'\]"):
        load_optimizer_state(opt, state, "ck")


def test_a_nested_optimizer_state_gets_the_learners_own_settings() -> None:
    """RLlib loads its optimizers' states itself: the file's settings are replaced in the state before it does."""
    from yacht_training.optimizer_state import keep_own_settings_in_state

    p = torch.nn.Parameter(torch.ones(3))
    opt = torch.optim.Adam([p], lr=1e-3)
    p.grad = torch.ones(3)
    opt.step()
    own = {"default_optimizer": {"module_optimizer_state": opt.state_dict(), "lr": 1e-3}}
    theirs = {"default_optimizer": {"module_optimizer_state": opt.state_dict(), "lr": 5.0}}
    theirs["default_optimizer"]["module_optimizer_state"]["param_groups"][0].update(maximize=True, eps=float("nan"))
    diff = keep_own_settings_in_state(theirs, own, "ck")
    got = theirs["default_optimizer"]["module_optimizer_state"]["param_groups"][0]
    assert not got["maximize"] and got["eps"] == 1e-8 and got["params"] == [0]
    key = "optimizer.default_optimizer.module_optimizer_state"
    assert diff[f"{key}.maximize"] == (True, False) and math.isnan(diff[f"{key}.eps"][0])
    theirs["default_optimizer"]["module_optimizer_state"]["state"][0]["exp_avg"] = torch.full((3,), float("nan"))
    with pytest.raises(ValueError, match=r"ck holds a NaN"):
        keep_own_settings_in_state(theirs, own, "ck")
