"""Every figure a user reads on the front page and the result pages comes from a record in the repository: the
README's results table is the agents-table record's, the speed ratios quoted elsewhere are the performance table's,
and a percentage with two decimals on those pages that no record holds fails (a number copied by hand and then left
behind when the record changed)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

RECORDS = [*sorted((REPO / "docs" / "records").glob("*.json")), *sorted((REPO / "agents" / "models").glob("*.json"))]
# Pages that report results and whose every two-decimal percentage must be held by a record: the result pages, and
# the experiment logs, whose runs' figures are in docs/records/experiment-logs.json (their folders were not kept).
# Not here: the changelog (history); integrations.md, whose one figure tests/test_recipes.py checks by running the
# command it quotes.
CHECKED_PAGES = ["README.md", "docs/index.md", "docs/agents.md", "docs/getting-started.md", "docs/objectives.md",
                 "docs/solver.md", "docs/evaluation.md", "docs/environments.md", "docs/benchmark.md",
                 "docs/model_free.md", "docs/time_to_quality.md", "docs/training.md", "docs/rllib.md"]
PERCENT = re.compile(r"(?<![\d.])(\d+\.\d{2})%")


def agents_record() -> dict[str, Any]:
    return json.loads((REPO / "docs" / "records" / "agents-table.json").read_text(encoding="utf-8"))


def held_values() -> set[str]:
    """Every number of every record, as a page would print it: itself and as a percentage, to 1 and 2 decimals,
    and the decimals written inside the records' strings."""
    held: set[str] = set()

    def walk(obj: Any) -> None:
        if isinstance(obj, dict):
            for v in obj.values():
                walk(v)
        elif isinstance(obj, list):
            for v in obj:
                walk(v)
        elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
            for digits in (1, 2):
                held.update({f"{obj:.{digits}f}", f"{100 * obj:.{digits}f}"})
        elif isinstance(obj, str):
            held.update(re.findall(r"\d+\.\d+", obj))

    for path in RECORDS:
        walk(json.loads(path.read_text(encoding="utf-8")))
    return held


def readme_results_rows() -> list[list[str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8").split("\n## Results\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line][1:]
    return [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows]


RULES_OF = {"Yacht-v0": "yacht", "Yahtzee-v1": "yahtzee", "Yatzy-v1": "yatzy", "KniziaYacht-v0": "knizia",
            "ClubhouseYacht-v0": "clubhouse"}


def test_the_readme_results_table_is_the_agents_record() -> None:
    """Random, greedy and the best agent of each kind: each cell is the record's percentage of the agent it names."""
    record = agents_record()
    pct = {(r["rules"], r["agent"]): f"{r['percent_of_optimal']:.2f}%" for r in record["rows"]}
    rows = readme_results_rows()
    assert len(rows) == len(RULES_OF)
    for cells in rows:
        rules = RULES_OF[re.search(r"`(\w+-v\d)`", cells[0]).group(1)]
        assert cells[1] == pct[rules, "random"] and cells[2] == pct[rules, "greedy"], cells
        for cell in cells[3:5]:
            named = re.search(r"`([\w-]+)`|\((greedy)\)", cell)
            if cell.startswith("none"):
                assert not any(a.startswith("ppo-") and "expectimax" not in a for r_, a in pct if r_ == rules)
                continue
            agent = named.group(1) or named.group(2)
            assert cell.split(" ")[0] == pct[rules, agent], (rules, cell, pct[rules, agent])


def test_the_readme_names_the_best_of_each_kind() -> None:
    """The "best" columns name the record's best model-free agent and best agent using the dice model."""
    record = agents_record()
    for cells in readme_results_rows():
        rules = RULES_OF[re.search(r"`(\w+-v\d)`", cells[0]).group(1)]
        rows = [r for r in record["rows"] if r["rules"] == rules]
        free = [r for r in rows if r["agent"].startswith("ppo-") and "expectimax" not in r["agent"]]
        model = [r for r in rows if r["agent"] not in {"random", "optimal"} and r not in free]
        if free:
            assert f"`{max(free, key=lambda r: r['mean'])['agent']}`" in cells[3], cells
        best = max(model, key=lambda r: r["mean"])["agent"]
        assert f"`{best}`" in cells[4] or f"({best})" in cells[4], (cells, best)


@pytest.mark.parametrize("page", CHECKED_PAGES)
def test_every_percentage_on_the_result_pages_has_a_record(page: str) -> None:
    """Hand-written figures only: a generated part (between ``<!-- generated: NAME -->`` markers) is computed from the
    records by ``docs/hooks/generate.py``, and ``tests/test_docs.py`` fails while it is stale."""
    held = held_values()
    text = re.sub(r"^<!-- generated: ([\w-]+) -->\n.*?^<!-- end generated: \1 -->$", "",
                  (REPO / page).read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
    unsourced = [(i + 1, m) for i, line in enumerate(text.splitlines()) for m in PERCENT.findall(line) if m not in held]
    assert not unsourced, f"{page}: percentages no record holds (line, figure): {unsourced}"


def test_the_vector_engine_ratio_quoted_is_the_performance_tables() -> None:
    perf = (REPO / "docs" / "performance.md").read_text(encoding="utf-8")
    ratios = [float(line.rsplit("|", 2)[1]) for line in perf.splitlines()
              if line.startswith("| YachtVectorEnv via make_vec, N=4096 |")]
    env_page = (REPO / "docs" / "environments.md").read_text(encoding="utf-8")
    quoted = re.search(r"\((\d+) to (\d+) times pyhtzee's", env_page)
    assert quoted and len(ratios) >= 5
    assert (int(quoted.group(1)), int(quoted.group(2))) == (round(min(ratios)), round(max(ratios)))


def test_the_agents_record_is_whole() -> None:
    """Every shipped model and the three built-in agents on every rule set it names, each on the record's games."""
    record = agents_record()
    shipped = {p.stem for p in (REPO / "agents" / "models").glob("*.json")}
    for rules in record["rules"]:
        agents = {r["agent"] for r in record["rows"] if r["rules"] == rules}
        assert {"random", "greedy", "optimal"} <= agents, rules
        assert {s for s in shipped if s.endswith(f"-{rules}")} <= agents, rules
    assert all(r["episodes"] == record["episodes"] for r in record["rows"])


def test_a_page_figure_without_a_record_is_caught(tmp_path: Path) -> None:
    """The check itself: a figure absent from every record is reported."""
    held = held_values()
    assert "12.34" not in held and PERCENT.findall("a 12.34% gain") == ["12.34"]


def test_the_evaluation_page_lists_every_shipped_model() -> None:
    page = (REPO / "docs" / "evaluation.md").read_text(encoding="utf-8")
    shipped = sorted(p.stem for p in (REPO / "agents" / "models").glob("*.json"))
    assert shipped and [s for s in shipped if f"`{s}`" not in page] == []


def test_two_snippets_never_save_different_models_under_one_name() -> None:
    """A reader who runs the README's example and then a page's would otherwise overwrite one model with another."""
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    saved = [(name, page.name) for page in pages
             for name in re.findall(r"\.save\(\s*[\"']([^\"']+)[\"']", page.read_text(encoding="utf-8"))]
    names = [n for n, _ in saved]
    assert saved and not [s for s in saved if names.count(s[0]) > 1], saved


def test_the_experiment_log_record_is_what_its_pages_quote() -> None:
    """Each entry of the experiment-log record is on its page, under its section (an entry left behind when a page
    drops a run would let a copy of its figure pass elsewhere)."""
    record = json.loads((REPO / "docs" / "records" / "experiment-logs.json").read_text(encoding="utf-8"))
    assert record["entries"]
    for entry in record["entries"]:
        text = (REPO / entry["page"]).read_text(encoding="utf-8")
        assert f" {entry['section']}\n" in text, entry
        body = text.split(f" {entry['section']}\n", 1)[1]
        assert all(f"{v}%" in body for v in entry["percent_of_optimal"]), entry


def test_the_version_floors_quoted_are_pyprojects() -> None:
    """The environments page's compatibility line quotes each library's lowest accepted version as pyproject.toml
    requires it (numba, torch, stable-baselines3 / sb3-contrib, Ray)."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = [*project["dependencies"], *(r for extra in project["optional-dependencies"].values()
                                               for r in extra)]

    def floor(name: str) -> str:
        found = {m.group(1) for r in requirements if (m := re.fullmatch(rf"{re.escape(name)}(?:\[\w+\])?>=([\d.]+).*",
                                                                        r.split(";")[0].strip()))}
        assert len(found) == 1, (name, found)
        return found.pop()

    page = " ".join((REPO / "docs" / "environments.md").read_text(encoding="utf-8").split())
    for quoted, name in (("numba {}+", "numba"), ("torch {}–2.x", "torch"),
                         ("stable-baselines3 / sb3-contrib {}+", "stable-baselines3"),
                         ("stable-baselines3 / sb3-contrib {}+", "sb3-contrib"), ("Ray {}+", "ray")):
        assert quoted.format(floor(name)) in page, f"docs/environments.md should quote {quoted.format(floor(name))!r}"
