"""The shipped agents' run records (``docs/records/AGENT-evaluations.json``: the ``evaluations.json`` of the run
that trained ``agents/models/AGENT``), from which the site draws their learning curves: every shipped agent has
one, drawn in a picture, and each belongs to its card (the same rules, the run's last steps the card's, its
percentages those of its means against the rules' optimum, its learning seconds within the card's training time);
``benchmarks/ship_model.py`` writes the three; and the figures the Agents, Training and Time to quality pages give
for the shipped runs are their cards'.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from yacht_solver import solve

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "hooks"))

from docgen.pictures import LEARNING_CURVES, MODELS, PICTURES, RECORDS, render, shipped_record  # noqa: E402

SHIPPED = sorted(p.stem for p in MODELS.glob("*.json"))
KEYS = {"timesteps", "mean", "percent_of_optimal", "learning_s", "time"}  # what every learner records


def test_every_shipped_agent_has_a_drawn_record() -> None:
    drawn = sorted({a for _, agents in LEARNING_CURVES.values() for a in agents})
    assert drawn == SHIPPED
    assert sorted(p.name.removesuffix("-evaluations.json") for p in RECORDS.glob("*-evaluations.json")) == SHIPPED
    assert set(LEARNING_CURVES) <= set(PICTURES)


@pytest.mark.parametrize("agent", SHIPPED)
def test_record_belongs_to_its_card(agent: str) -> None:
    evals, card = shipped_record(agent)
    assert card["agent"] == agent and len(evals) >= 3
    assert all(KEYS <= set(e) for e in evals), [sorted(e) for e in evals if not KEYS <= set(e)]
    steps = [e["timesteps"] for e in evals]
    seconds = [e["learning_s"] for e in evals]
    assert steps == sorted(set(steps)) and seconds == sorted(seconds)
    assert steps[-1] == card["timesteps"]
    assert 0 < seconds[-1] <= card["training_wall_s"] + 0.5  # the card rounds to the second
    optimum = solve(card["rules"]).start_value
    for e in evals:
        assert e["percent_of_optimal"] == pytest.approx(100.0 * e["mean"] / optimum, rel=1e-12)
    final = card["final_eval"]
    assert final["percent_of_optimal"] == pytest.approx(100.0 * final["mean"] / optimum, rel=1e-12)


def test_learning_curves_draw() -> None:
    """One of the pictures, drawn as the docs build draws it: a PNG."""
    png, _ = render(PICTURES["img/learning-curves-td.png"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000


def _ship_script():  # benchmarks/ is not a package: the script is loaded by its path
    import importlib.util

    spec = importlib.util.spec_from_file_location("ship_model", ROOT / "benchmarks" / "ship_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_folder(path: Path, model: str) -> Path:
    import yaml

    path.mkdir()
    (path / "config.yaml").write_text(yaml.safe_dump({"rules": "yacht", "seed": 0, "algo": "td"}))
    (path / "eval.json").write_text(json.dumps({
        "seed": 1010000000, "episodes": 10, "mean": 160.0, "ci95": [150.0, 170.0], "percent_of_optimal": 95.8,
        "training_timesteps": 3000, "training_games": 80, "training_wall_s": 12.5}))
    (path / "evaluations.json").write_text(json.dumps([{"timesteps": 3000, "mean": 150.0, "learning_s": 12.5}]))
    (path / model).write_bytes(b"weights")
    return path


def _ship(ship, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Path, name: str, config: str) -> int:
    """``ship_model.py --name NAME --config CONFIG ... RUN`` into folders under ``tmp_path``; its exit status."""
    monkeypatch.setattr(ship, "MODELS", tmp_path / "models")
    monkeypatch.setattr(ship, "RECORDS", tmp_path / "records")
    monkeypatch.setattr(sys, "argv", ["ship_model.py", "--name", name, "--config", config, "--kind", "k", "--algo", "a",
                                      "--note", "n", str(run)])
    return ship.main()


def test_ship_model_ships_the_model_card_and_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = _run_folder(tmp_path / "run", "final_model.pt")
    assert _ship(_ship_script(), tmp_path, monkeypatch, run, "td-test", "configs/yacht_td.yaml") == 0
    assert (tmp_path / "models" / "td-test.pt").read_bytes() == b"weights"
    card = json.loads((tmp_path / "models" / "td-test.json").read_text())
    assert card["games"] == 80 and card["timesteps"] == 3000 and card["training_wall_s"] == 12
    assert card["model"] == "final_model.pt of the seed-0 run (the last network)"
    assert "observation_layout" not in card
    assert card["final_eval"]["command"] == "yacht eval --agent td-test --rules yacht --episodes 10 --seed 1010000000"
    record = json.loads((tmp_path / "records" / "td-test-evaluations.json").read_text())
    assert record == json.loads((run / "evaluations.json").read_text())


def test_ship_model_refuses_a_folder_without_one_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    run = _run_folder(tmp_path / "run", "final_model.pt")
    (run / "final_model.zip").write_bytes(b"other")
    assert _ship(_ship_script(), tmp_path, monkeypatch, run, "x", "c") == 2
    assert "holds 2 of final_model.zip, final_model.pt" in capsys.readouterr().err
    assert not (tmp_path / "models").exists()


def _run_cells(run: dict) -> list[str]:
    """A run's cells as the agents page's model-free table prints them: steps, learning seconds, percent of optimal
    (mean ± 95% half-width), regret per decision, upper bonus rate (optimal's on the same seeds)."""
    ev = run["final_eval"]
    half = ev["ci95"][1] - ev["mean"]
    bonus = "-" if "upper_bonus_rate" not in ev else \
        f"{100 * ev['upper_bonus_rate']:.1f}% ({100 * ev['optimal_same_seeds']['upper_bonus_rate']:.1f}%)"
    return [f"{run['timesteps'] / 1e6:.0f}M", f"{run['learning_s']:,}",
            f"**{ev['percent_of_optimal']:.2f}%** ({ev['mean']:.2f} ± {half:.2f})", f"{ev['regret_per_decision']:.3f}",
            bonus]


@pytest.mark.parametrize("agent", [a for a in SHIPPED if a.startswith("ppo-") and "expectimax" not in a])
def test_agents_page_prints_the_model_free_cards(agent: str) -> None:
    """The agents page's model-free rows of a shipped agent (seed 0, named, then the seed-1 row under it) are the
    runs its card lists, which ``ship_model.py`` wrote from the runs' ``eval.json``."""
    _, card = shipped_record(agent)
    lines = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if f"(`{agent}`)" in line or f"; `{agent}`)" in line)
    for offset, run in enumerate(card["runs"]):
        cells = [c.strip() for c in lines[at + offset].strip("|").split("|")]
        assert cells[2:] == _run_cells(run), (agent, run["seed"], cells)
    assert [r["seed"] for r in card["runs"]] == [0, 1] and card["runs"][0]["command"] == card["command"]


@pytest.mark.parametrize("agent", [a for a in SHIPPED if a.startswith("ppo-") and "expectimax" not in a])
def test_time_to_quality_goals_are_the_cards(agent: str) -> None:
    """The goals table of Time to quality gives each seed's final evaluation and learning seconds as the card has
    them."""
    _, card = shipped_record(agent)
    label = {"yacht": "Yacht", "yahtzee": "Yahtzee", "yatzy": "Scandinavian Yatzy"}[card["rules"]]
    lines = (ROOT / "docs" / "time_to_quality.md").read_text(encoding="utf-8").splitlines()
    row = next(line for line in lines if line.startswith(f"| {label} | ≥ "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    want = []
    for run in card["runs"]:
        ev = run["final_eval"]
        want.append(f"**{ev['percent_of_optimal']:.2f}%** ({ev['mean']:.2f} ± {ev['ci95'][1] - ev['mean']:.2f}), "
                    f"{run['learning_s']:,} s")
    assert cells[2:4] == want, (cells, want)


@pytest.mark.parametrize("agent", ["td-yahtzee", "td-yatzy"])
def test_training_page_prints_the_td_cards(agent: str) -> None:
    """The Training page's row of a TD agent gives its card's self-play games and final evaluation."""
    _, card = shipped_record(agent)
    lines = (ROOT / "docs" / "training.md").read_text(encoding="utf-8").splitlines()
    row = next(line for line in lines if line.startswith("| TD, ") and f"(`{agent}`)" in line)
    ev = card["final_eval"]
    assert f"| {card['games']:,} games ({card['timesteps'] / 1e6:.0f}M steps);" in row, row
    assert row.endswith(f"| {ev['percent_of_optimal']:.2f}% ({ev['mean']:.2f} ± {ev['ci95'][1] - ev['mean']:.2f}) |")
    assert f"`python train.py --config {card['config']}`" in row


def test_ship_model_refuses_a_run_without_evaluations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    run = _run_folder(tmp_path / "run", "final_model.pt")
    (run / "evaluations.json").unlink()
    assert _ship(_ship_script(), tmp_path, monkeypatch, run, "x", "c") == 2
    assert "no periodic evaluations" in capsys.readouterr().err
    assert not (tmp_path / "models").exists() and not (tmp_path / "records").exists()


@pytest.mark.parametrize("change,match", [
    (("config.yaml", "- a\n- list\n"), r"config.yaml' holds list, not a mapping"),
    (("eval.json", '{"training_timesteps": 3000, "training_wall_s": 0}'), r"training_wall_s is 0, not a positive"),
    (("eval.json", '{"training_timesteps": 3000, "training_wall_s": -5}'), r"training_wall_s is -5"),
    (("eval.json", '{"training_timesteps": 3000, "training_wall_s": Infinity}'), r"training_wall_s is inf"),
    (("eval.json", "[1]"), r"eval.json' holds list"),
])
def test_ship_model_refuses_a_run_that_cannot_be_true(change: tuple[str, str], match: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    run = _run_folder(tmp_path / "run", "final_model.pt")
    (run / change[0]).write_text(change[1])
    assert _ship(_ship_script(), tmp_path, monkeypatch, run, "td-test", "c") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and re.search(match, err), err
    assert not (tmp_path / "models").exists()


@pytest.mark.parametrize("name", ["../escape", "a/b", "", "Upper", "x" * 41])
def test_ship_model_refuses_a_name_that_is_not_a_file_name(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    run = _run_folder(tmp_path / "run", "final_model.pt")
    assert _ship(_ship_script(), tmp_path, monkeypatch, run, name, "c") == 2
    assert "--name" in capsys.readouterr().err and not (tmp_path / "models").exists()
