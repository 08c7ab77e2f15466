"""The recorded objective curves (``docs/records/R-objective-curves.json``, written by ``python
benchmarks/objective_curves.py --rules R --record``) from which the site draws the pictures of the rule sets whose
tables are too large to solve in a build: each file is bounded and well formed before use, its curves are those of
an expected-score player and of the best play for a target, and every figure the objectives page prints for these
rule sets is the file's. Nothing is solved but the expected-score tables (cached, or seconds each).
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

from yacht_env.objective import max_final_score
from yacht_env.rules import get_rules
from yacht_tools.objective_records import (
    KEYS,
    MAX_BYTES,
    Curves,
    make_record,
    read_record,
    record_path,
    write_record,
)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "hooks"))

from docgen.pictures import PICTURES, RECORDS, RULE_ORDER, SMALL_RULES, objective_curves  # noqa: E402

PAGE = ROOT / "docs" / "objectives.md"
RECORDED = tuple(r for r in RULE_ORDER if r not in SMALL_RULES)
ROW = {"yahtzee": "Yahtzee", "yahtzee-free-joker": "Yahtzee, free-choice Joker", "yatzy": "Yatzy",
       "clubhouse": "Clubhouse Games Yacht"}  # the page's
TARGETS = (150, 200, 250, 300, 350, 400, 500)  # the columns of the page's P*(T) table
FLOAT32_BOUND = 1e-6  # the page's bound on a float32 table entry's rounding (13 layers x 2^-24 < 7.7e-7)


def command(rules: str) -> str:
    return shlex.join(["python", "benchmarks/objective_curves.py", "--rules", rules, "--record"])


@pytest.fixture(scope="module", params=RECORDED)
def recorded(request: pytest.FixtureRequest) -> tuple[str, Curves, str]:
    rules = request.param
    return (rules, *read_record(rules, RECORDS))


def table_row(label: str, header: str) -> list[str]:
    """The cells of the row ``label`` of the page's table whose header begins with ``header``."""
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == label:
            return cells[1:]
    raise AssertionError(f"no row {label!r} in the table under {header!r}")


def same_to_printed_digits(printed: str, value: float) -> bool:
    """Whether ``value`` rounds to ``printed`` at the number of decimals printed."""
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    return round(value, decimals) == float(printed)


# ---- the files: bounded, well formed, what their command writes ----------------------------------------------------


def test_every_large_rule_set_has_its_record_and_named_command(recorded: tuple[str, Curves, str]) -> None:
    rules, curves, cmd = recorded
    path = record_path(rules, RECORDS)
    assert path.stat().st_size <= 100_000 < MAX_BYTES, "a record stays a few tens of kB"
    assert cmd == command(rules), cmd
    assert curves.rules == rules and len(curves.dist.probabilities) == len(curves.best) == max_final_score(
        get_rules(rules)) + 1
    page = PAGE.read_text(encoding="utf-8")
    assert f"`{cmd}`" in page, f"the objectives page names {cmd!r}"
    assert sorted(json.loads(path.read_text(encoding="utf-8"))) == sorted(KEYS)


def test_a_record_rewritten_from_its_curves_is_the_same_file(recorded: tuple[str, Curves, str],
                                                               tmp_path: Path) -> None:
    rules, curves, cmd = recorded
    written = write_record(curves, cmd, tmp_path)
    data = json.loads(written.read_text(encoding="utf-8"))
    original = json.loads(record_path(rules, RECORDS).read_text(encoding="utf-8"))
    assert {k: v for k, v in data.items() if k != "mean"} == {k: v for k, v in original.items() if k != "mean"}
    assert abs(data["mean"] - original["mean"]) < 1e-9  # the mean of the rounded entries, the table's to 1e-9


def test_a_curve_beyond_the_highest_score_is_refused() -> None:
    from yacht_solver import ScoreDistribution

    top = max_final_score(get_rules("yacht"))
    ok = np.zeros(top + 2)
    ok[100] = 1.0
    make_record(Curves("yacht", ScoreDistribution(ok), ok), "x")
    bad = ok.copy()
    bad[top + 1] = 1e-9
    with pytest.raises(ValueError, match="beyond the highest score"):
        make_record(Curves("yacht", ScoreDistribution(bad), ok), "x")


def _spoilt(data: dict, how: str) -> object:
    d = dict(data)
    if how == "missing key":
        del d["reach"]
    elif how == "extra key":
        d["note"] = "x"
    elif how == "other rules":
        d["rules"] = "yacht"
    elif how == "short curve":
        d["reach"] = d["reach"][:-1]
    elif how == "above one":
        d["distribution"] = [1.5, *d["distribution"][1:]]
    elif how == "negative":
        d["reach"] = [*d["reach"][:-1], -1e-3]
    elif how == "boolean":
        d["reach"] = [True, *d["reach"][1:]]
    elif how == "string entry":
        d["distribution"] = ["0.1", *d["distribution"][1:]]
    elif how == "max score":
        d["max_score"] = d["max_score"] + 1
    elif how == "command":
        d["command"] = ["python"]
    elif how == "mean":
        d["mean"] = 1e9
    elif how == "sums to 3":
        d["distribution"] = [min(1.0, 3 * v) for v in d["distribution"]]
    elif how == "other mean":
        d["mean"] = d["mean"] + 1.0
    elif how == "reach rises":
        i = next(k for k, v in enumerate(d["reach"]) if v < 0.5)
        d["reach"] = [*d["reach"][:i], 0.9, *d["reach"][i + 1:]]
    elif how == "reach from 0.5":
        d["reach"] = [0.5, *d["reach"][1:]]
    elif how == "not an object":
        return [d]
    return d


@pytest.mark.parametrize(("how", "said"), [
    ("missing key", "exactly the keys"), ("extra key", "exactly the keys"), ("other rules", "record of 'yacht'"),
    ("short curve", "a list of 374"), ("above one", r"distribution\[0\] is 1.5"), ("negative", "reach"),
    ("boolean", r"reach\[0\] is True"), ("string entry", r"distribution\[0\] is 0.1"), ("max score", "max_score"),
    ("command", "command"), ("mean", "mean"), ("not an object", "holds list"), ("sums to 3", "sum to 3"),
    ("other mean", "not the distribution's mean"), ("reach rises", "never rise"), ("reach from 0.5", "start at 1")])
def test_a_spoilt_record_is_refused_saying_what_is_wrong(how: str, said: str, tmp_path: Path) -> None:
    data = json.loads(record_path("yatzy", RECORDS).read_text(encoding="utf-8"))
    record_path("yatzy", tmp_path).write_text(json.dumps(_spoilt(data, how)), encoding="utf-8")
    with pytest.raises(ValueError, match=said):
        read_record("yatzy", tmp_path)


@pytest.mark.parametrize(("text", "said"), [
    ("{", "not JSON"), ('{"rules": NaN}', "not JSON"), ("\xff", "not JSON"), ("[" * 100_000, "not JSON")])
def test_a_record_that_is_not_json_is_refused(text: str, said: str, tmp_path: Path) -> None:
    record_path("yatzy", tmp_path).write_bytes(text.encode("latin-1"))
    with pytest.raises(ValueError, match=said):
        read_record("yatzy", tmp_path)


def test_a_large_or_missing_record_is_refused_before_it_is_read(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        read_record("yatzy", tmp_path)
    record_path("yatzy", tmp_path).write_bytes(b" " * (MAX_BYTES + 1))
    with pytest.raises(ValueError, match="more than the limit"):
        read_record("yatzy", tmp_path)


# ---- the curves: a distribution of the expected-score optimum, and a best chance above it --------------------------


def test_the_distribution_is_the_expected_score_optimum_s(recorded: tuple[str, Curves, str]) -> None:
    from yacht_solver import solve

    rules, curves, _ = recorded
    p = curves.dist.probabilities
    assert abs(p.sum() - 1.0) <= 1e-6
    assert abs(curves.dist.mean - solve(rules).start_value) <= 1e-4
    recorded_mean = json.loads(record_path(rules, RECORDS).read_text(encoding="utf-8"))["mean"]
    assert abs(curves.dist.mean - recorded_mean) <= 1e-9


def test_the_reach_curve_is_a_best_chance(recorded: tuple[str, Curves, str]) -> None:
    _, curves, _ = recorded
    best, player = curves.best, curves.dist.at_least()
    assert best[0] == 1.0
    assert np.all(np.diff(best) <= 0), "P*(T) is nonincreasing in T"
    assert np.all(best >= player - FLOAT32_BOUND), "P*(T) >= the expected-score player's P(final >= T)"
    assert (best - player).max() > 0.05, "playing for a target does better somewhere"


# ---- the page: its figures for these rule sets are the records' ---------------------------------------------------


def test_the_page_s_reach_figures_are_the_records(recorded: tuple[str, Curves, str]) -> None:
    rules, curves, _ = recorded
    page = PAGE.read_text(encoding="utf-8").splitlines()
    header = "| rules | P*(150) | P*(200) |"
    best_row = table_row(ROW[rules], header)[: len(TARGETS)]
    start = next(i for i, line in enumerate(page) if line.startswith(header))
    label_at = next(i for i in range(start, len(page)) if page[i].startswith(f"| {ROW[rules]} |"))
    assert page[label_at + 1].startswith("| expected-score player |"), "the player's row follows the rule set's"
    player_row = [c.strip() for c in page[label_at + 1].strip("|").split("|")][1: 1 + len(TARGETS)]
    player = curves.dist.at_least()
    for t, b, e in zip(TARGETS, best_row, player_row):
        got_b = float(curves.best[t]) if t < len(curves.best) else 0.0
        got_e = float(player[t]) if t < len(player) else 0.0
        assert same_to_printed_digits(b, got_b), f"{rules}: P*({t}) printed {b}, recorded {got_b}"
        assert same_to_printed_digits(e, got_e), f"{rules}: expected-score player at {t} printed {e}, recorded {got_e}"


def test_the_page_s_distribution_figures_are_the_records(recorded: tuple[str, Curves, str]) -> None:
    from yacht_solver import solve

    rules, curves, _ = recorded
    mean, std, quantiles = table_row(ROW[rules], "| rules | mean (the solver's value) |")[:3]
    assert mean == f"{solve(rules).start_value:.7f}"
    assert std == f"{curves.dist.std:.4f}"
    assert quantiles == " / ".join(str(curves.dist.quantile(q)) for q in (0.01, 0.1, 0.5, 0.9, 0.99))


def test_the_page_s_table_means_are_the_records() -> None:
    """The page names the mean of the float32 start row beside the solver's value for Yahtzee and Yatzy."""
    text = " ".join(PAGE.read_text(encoding="utf-8").split())
    for rules, said in (("yahtzee", r"Yahtzee's table gives ([\d.]+) against"), ("yatzy", r"Yatzy's ([\d.]+) against")):
        printed = re.search(said, text)
        assert printed, said
        assert printed.group(1) == f"{read_record(rules, RECORDS)[0].dist.mean:.7f}"


# ---- the pictures: every rule set's, the large ones' drawn from their records --------------------------------------


def test_the_page_shows_both_pictures_of_every_rule_set_with_their_commands() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for rules in RULE_ORDER:
        for kind in ("distribution", "reach"):
            assert f"img/{kind}-{rules}.png" in PICTURES
            assert f"](img/{kind}-{rules}.png)" in page, f"the page shows img/{kind}-{rules}.png"
        assert f"`yacht solve --rules {rules} --distribution --plot FILE`" in page
        assert re.search(rf"`yacht solve --rules {re.escape(rules)} --objective reach --target \d+ --plot FILE`", page)


def test_a_large_rule_set_s_pictures_come_from_its_record(recorded: tuple[str, Curves, str]) -> None:
    rules, curves, _ = recorded
    drawn = objective_curves(rules)
    assert np.array_equal(drawn.best, curves.best)
    assert np.array_equal(drawn.dist.probabilities, curves.dist.probabilities)
