"""The main command's claim: the last line the README (and the site) quote for ``python train.py`` is the line
``train.py`` prints for the shipped run record of that command (``agents/models/td-yacht.json``: the default
config's run, whose network is the shipped ``td-yacht``), the shipped model scores that record on its seeds, and
(slow) the command itself prints it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CARD = ROOT / "agents" / "models" / "td-yacht.json"
QUOTE = re.compile(r"`(yacht: final_model\.pt scores [^`]+)`")
PAGES = [ROOT / "README.md", ROOT / "docs" / "getting-started.md"]


def card() -> dict:
    return json.loads(CARD.read_text(encoding="utf-8"))


def readme_line() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    after = text.split("<!-- ci:main-command -->", 1)[1]
    m = QUOTE.search(after)
    assert m, "the README quotes the main command's last line after its ci:main-command block"
    return m.group(1)


def test_main_command_trains_the_card_config() -> None:
    import train

    assert train.DEFAULT_CONFIG == ROOT / "configs" / "yacht_td.yaml"
    assert card()["command"] == "python train.py --config configs/yacht_td.yaml"


def test_readme_quotes_the_last_line_of_the_record() -> None:
    from yacht_solver import solve
    from yacht_training.td_learner import score_line

    result = {**card()["final_eval"], "agent": "final_model.pt", "optimal_value": solve("yacht").start_value}
    trained = f"; trained {card()['games']:,} games in {card()['training_wall_s']} s (self-play and updates)"
    assert readme_line() == score_line("yacht", result) + trained  # the whole line, as train.py prints it


def test_every_page_quotes_the_same_line() -> None:
    quotes = {p.name: QUOTE.findall(p.read_text(encoding="utf-8")) for p in PAGES}
    assert all(quotes.values()), quotes
    assert {q for qs in quotes.values() for q in qs} == {readme_line()}, quotes
    final = card()["final_eval"]
    row = "| `python train.py` | 116,736 self-play games;"
    training = (ROOT / "docs" / "training.md").read_text(encoding="utf-8")
    line = next(r for r in training.splitlines() if r.startswith("| TD, Yacht (default config) " + row))
    assert line.endswith(f"| {final['percent_of_optimal']:.2f}% ({final['mean']:.2f}) |"), line
    assert f"{card()['games']:,} self-play games" in line
    seconds = f"{card()['training_wall_s']} s of self-play and updates"  # one figure for the learning time
    assert seconds in line, line
    started = " ".join((ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8").split())
    assert seconds in started and "about 30 s" not in started


def test_shipped_model_scores_its_record() -> None:
    """td-yacht, the network of the record, scores the record's mean on the record's 10,000 seeds."""
    from yacht_agents.loader import load_agent
    from yacht_tools.evaluation import evaluate

    final = card()["final_eval"]
    seed = int(final["seeds"].split("(")[1].split(",")[0])
    got = evaluate(load_agent("td-yacht", "yacht"), "yacht", final["episodes"], seed, regret=False, progress=False)
    assert round(got["mean"], 4) == final["mean"] and got["ci95"] == pytest.approx(final["ci95"], abs=1e-9)


LAST_LINE = re.compile(r"yacht: final_model\.pt scores (\d+\.\d\d) ± \d+\.\d\d over 10,000 games = "
                       r"(\d+\.\d\d)% of optimal \(166\.9551\); trained ([\d,]+) games in \d+ s")


@pytest.mark.slow
def test_main_command_prints_the_readme_line(tmp_path: Path) -> None:
    """``python train.py`` itself (about a minute on two cores). Where its first periodic evaluation is the shipped
    record's, the run does the record's arithmetic, and its last line starts with the quoted one; a processor whose
    math library rounds otherwise (the record was made on an AMD EPYC; an Intel Xeon's MKL trains another network)
    must still train the config's games to within 1% of optimal, in the same words."""
    p = subprocess.run([sys.executable, str(ROOT / "train.py"), "--run-dir", str(tmp_path), "--no-progress"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-2000:]
    last = p.stdout.strip().splitlines()[-1]
    m = LAST_LINE.match(last)
    assert m, last
    assert int(m.group(3).replace(",", "")) == card()["games"]
    (run,) = tmp_path.glob("*/evaluations.json")
    first = json.loads(run.read_text(encoding="utf-8"))[0]
    record = json.loads((ROOT / "docs" / "records" / "td-yacht-evaluations.json").read_text(encoding="utf-8"))[0]
    if (first["timesteps"], first["mean"]) == (record["timesteps"], record["mean"]):
        assert last.split(" games in ")[0] == readme_line().split(" games in ")[0], last  # the seconds vary
    else:
        assert float(m.group(2)) >= 99.0, last
