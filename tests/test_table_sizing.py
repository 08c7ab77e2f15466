"""The solver's tables are sized from the rule set's counts before any long work: a rule set too large for
``YACHT_ENV_TABLE_GB`` is refused at once, where sizing a table of 20 boxes exactly took 470 s and the expected-score
solve ran on past the limit with no guard."""

from __future__ import annotations

import pytest
from conftest import UPPER6, registered

from yacht_env.rules import RULESETS, YAHTZEE, Category, RuleSet, get_rules
from yacht_solver import core, reach
from yacht_solver.memory_limit import MEMORY_ENV

BIG = RuleSet("test-twenty-boxes", "Twenty boxes", YAHTZEE.categories + tuple(
    Category(f"extra_{i}", f"Extra {i}", "sum") for i in range(7)), upper_bonus_threshold=63, upper_bonus=35,
    five_kind_category=11, five_kind_bonus=100, joker=YAHTZEE.joker)
"""Yahtzee with seven more boxes of the dice's sum: 20 boxes, a five-of-a-kind box, 134 million turn-start keys."""


@pytest.fixture
def big() -> RuleSet:
    return registered(BIG)


@pytest.fixture
def no_long_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Listing the states, sizing the rows exactly and solving all fail the test: the refusal must come first."""
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("long work started before the size was checked")

    for module in (core, reach):
        monkeypatch.setattr(module, "turn_start_layers", never)
    monkeypatch.setattr(reach.RK, "most_points_layers", never)
    monkeypatch.setattr(reach, "table_offsets", never)


REFUSAL = (r"^{what} for rules 'test-twenty-boxes' needs [\d,.]+ GB of memory \(at least: a table of at least "
           r"16,779,649,024 float32 entries, counted from its boxes\), more than the 1 GB allowed; set "
           r"YACHT_ENV_TABLE_GB to allow it")


@pytest.mark.parametrize(("call", "what"), [("solve_reach", "the reach solution"),
                                            ("distribution_table", "the score distribution"),
                                            ("score_distribution", "the score distribution")])
def test_a_table_of_twenty_boxes_is_refused_before_it_is_sized(big: RuleSet, no_long_work: None, call: str, what: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import yacht_solver

    monkeypatch.setenv(MEMORY_ENV, "1")
    with pytest.raises(ValueError, match=REFUSAL.format(what=what)) as e:
        getattr(yacht_solver, call)(big.name)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("call", ["solve", "compute_values"])
def test_the_expected_score_solve_of_twenty_boxes_is_refused_before_it_starts(big: RuleSet, no_long_work: None,
                                                                              call: str,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Its value table and the states listed beside it take about 4 GB: above the default limit of 4 GB."""
    import yacht_solver

    monkeypatch.delenv(MEMORY_ENV, raising=False)
    monkeypatch.setattr(core.T, "turn_values", lambda *a, **k: pytest.fail("solved"))
    with pytest.raises(ValueError, match=r"^the exact solution of rules 'test-twenty-boxes' needs 4\.03 GB of memory "
                                         r"\(134,217,728 turn-start states, about 30 bytes each while solved\), more "
                                         r"than the 4 GB allowed; set YACHT_ENV_TABLE_GB"):
        getattr(yacht_solver, call)(big)
    monkeypatch.setenv(MEMORY_ENV, "4.1")  # its neighbour, just above: the guard lets it through to the work
    core.check_solve_memory(big)


def test_the_duel_solve_of_twenty_boxes_is_refused_before_its_states_are_listed(big: RuleSet, no_long_work: None,
                                                                                monkeypatch: pytest.MonkeyPatch
                                                                                ) -> None:
    from yacht_solver.duel import solve_duel

    monkeypatch.setenv(MEMORY_ENV, "1000")
    with pytest.raises(ValueError, match=r"^the duel solution of rules 'test-twenty-boxes' needs [\d,.]+ GB of memory "
                                         r"\(at least: two layers"):
        solve_duel(big.name)


def test_bounds_that_decide_skip_the_exact_count(big: RuleSet, no_long_work: None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A limit above the most the table can take lets it through without counting it (its neighbour, a limit
    below the least, is refused above)."""
    monkeypatch.setenv(MEMORY_ENV, "1000")
    reach.check_table_memory(big, "the reach solution")


@pytest.mark.parametrize(("gb", "refused"), [("0.1", True), ("0.12", False)])
def test_between_the_bounds_the_exact_count_decides(gb: str, refused: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Clubhouse's table holds 24.2 to 30.3 million entries by the bounds, 28,237,440 float32 (113 MB) exactly: a
    limit of 0.1 GB is between the bounds' bytes, so the exact count refuses it; 0.12 GB lets it through."""
    rs = get_rules("clubhouse")
    least, most = reach.table_cells_bounds(rs)
    assert least * 4 < float(gb) * 1e9 < most * 8
    monkeypatch.setenv(MEMORY_ENV, gb)
    if refused:
        with pytest.raises(ValueError, match=r"needs 0\.11 GB of memory \(a table of 28,237,440 float32 entries\)"):
            reach.check_table_memory(rs, "the reach solution")
    else:
        reach.check_table_memory(rs, "the reach solution")


@pytest.mark.parametrize("name", ["yacht", "knizia", "clubhouse", UPPER6.name,
                                  *(pytest.param(n, marks=pytest.mark.slow) for n in ("yahtzee", "yatzy"))])
def test_the_counted_sizes_agree_with_the_listed_states(name: str) -> None:
    rs = registered(UPPER6) if name == UPPER6.name else RULESETS[name]
    assert core.layer_sizes(rs) == [len(layer) for layer in core.turn_start_layers(rs)]
    least, most = reach.table_cells_bounds(rs)
    assert least <= int(reach.table_offsets(rs)[-1]) <= most


def test_the_bounds_hold_for_twenty_boxes_by_their_counts(big: RuleSet) -> None:
    """Its layers are counted, not listed; each of the 134 million keys is in at most one of them, and the table
    bounds rise with the boxes (the 13 boxes of Yahtzee need less)."""
    sizes = core.layer_sizes(big)
    assert len(sizes) == 20 and sizes[-1] == 1 and 0 < sum(sizes) < 1 << 27
    least, most = reach.table_cells_bounds(big)
    yahtzee = reach.table_cells_bounds(get_rules("yahtzee"))
    assert yahtzee[0] < least <= most and yahtzee[1] < most
