"""Objectives beyond the expected score: the exact score distribution of optimal play and the reach-a-target solver,
checked against independent dense solvers written here from the rules, against simulation, and against the
expected-score solver's values."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from test_solver import DENSE, HANDS, _dense_model

from yacht_env import dice as D
from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.rules import get_rules
from yacht_env.state import GameState, new_game, reroll_pattern, score_category
from yacht_solver import distribution_table, score_distribution, solve
from yacht_solver.distribution import compute_distribution
from yacht_solver.reach import compute_reach, max_score, most_points, solve_reach
from yacht_solver.search.turn_search import Positions


def _card(rules: str, F: int) -> tuple[int | None, ...]:
    """A scorecard with the boxes of ``F`` filled with their least score (Yacht and Knizia's Yacht track nothing
    else)."""
    rs = get_rules(rules)
    return tuple(min(rs.box_values[c]) if F >> c & 1 else None for c in range(rs.num_categories))


def _end_game_states(rules: str, open_max: int) -> list[int]:
    n = get_rules(rules).num_categories
    full = (1 << n) - 1
    return sorted((F for F in range(full) if n - bin(F).count("1") <= open_max), key=lambda f: -bin(f).count("1"))


# ---- the distribution of optimal play ---------------------------------------------------------------------------


@pytest.mark.parametrize("rules", ["yacht", "knizia"])
def test_distribution_means_are_the_solver_values(rules: str) -> None:
    """Every reachable turn-start state: a distribution (sums to 1, no negative mass) whose mean is the value."""
    table = distribution_table(rules)
    sol = solve(rules)
    D_ = table.table
    values = np.asarray(sol.values).reshape(-1)
    ok = np.isfinite(values)
    assert np.isfinite(D_[ok]).all()
    np.testing.assert_allclose(D_[ok].sum(axis=1), 1.0, atol=1e-9)
    assert D_[ok].min() > -1e-12
    np.testing.assert_allclose(D_[ok] @ np.arange(D_.shape[1]), values[ok], rtol=0, atol=1e-6)
    assert abs(score_distribution(rules).mean - sol.start_value) < 1e-6


def test_the_start_distribution_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new game's distribution is one row of its table, read once per process (yacht eval --objective reach asks
    for it twice: the Yahtzee table is 13 GB to read through)."""
    from yacht_solver import distribution as DM
    from yacht_solver import table_cache

    reads: list[int | None] = []
    real = table_cache.load
    monkeypatch.setattr(table_cache, "load", lambda *a, **k: (reads.append(k.get("rows")), real(*a, **k))[1])
    DM._start.cache_clear()
    first, again = score_distribution("knizia"), score_distribution("knizia")
    np.testing.assert_array_equal(first.probabilities, again.probabilities)
    np.testing.assert_array_equal(first.probabilities, distribution_table("knizia").table[0])
    assert reads.count(1) == 1  # the one-row reads (the others: the solver's table, the whole distribution table)
    first.probabilities[:] = 0  # a copy: the kept row is not the caller's
    assert score_distribution("knizia").mean == pytest.approx(solve("knizia").start_value, abs=1e-6)


def _dense_policy_distribution(rules: str, F: int, below: dict[int, np.ndarray], N: int) -> np.ndarray:
    """P(x more points) from turn-start state F when every decision is ``Solution.best_action``'s, with the dice
    model and the box scores written in the tests (no kernel of the package)."""
    P, patterns = _dense_model()
    sol = solve(rules)
    cats = get_rules(rules).category_ids
    card = _card(rules, F)

    def scored(h: int, c: int) -> np.ndarray:
        out = np.zeros(N)
        pts = DENSE[rules](cats[c], HANDS[h])
        out[pts:] = below[F | 1 << c][: N - pts]
        return out

    def level(rolls: int, keep_rows: np.ndarray | None) -> np.ndarray:
        out = np.empty((len(HANDS), N))
        for h, dice in enumerate(HANDS):
            a = sol.best_action(GameState(rules, dice, rolls, card))
            out[h] = keep_rows[patterns[h, a]] if a < NUM_KEEP_ACTIONS else scored(h, a - NUM_KEEP_ACTIONS)
        return out

    hands = level(0, None)
    for rolls in (1, 2):
        hands = level(rolls, P @ hands)
    return P[patterns[0, 0]] @ hands


def test_distribution_of_end_games_matches_a_dense_policy_evaluation() -> None:
    """Yacht end games with one or two boxes open (a sample of the two-box ones), every score."""
    rules = "yacht"
    table = distribution_table(rules)
    N = table.table.shape[1]
    full = (1 << 12) - 1
    below = {full: np.eye(N)[0]}
    states = _end_game_states(rules, 2)
    one_open = [F for F in states if bin(F).count("1") == 11]
    two_open = [F for F in states if bin(F).count("1") == 10][::9]
    for F in one_open:
        below[F] = _dense_policy_distribution(rules, F, below, N)
    for F in two_open:
        got = table.table[F]
        want = _dense_policy_distribution(rules, F, below, N)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    for F in one_open:
        np.testing.assert_allclose(table.table[F], below[F], rtol=0, atol=1e-12)


def _play(rules: str, seed: int, choose) -> int:  # noqa: ANN001 - choose(state) -> action
    rng = np.random.default_rng(seed)
    st = new_game(rules, rng)
    while not st.is_over:
        a = choose(st)
        st = reroll_pattern(st, a, rng) if a < NUM_KEEP_ACTIONS else score_category(st, a - NUM_KEEP_ACTIONS, rng)[0]
    return st.total


def test_simulated_optimal_play_follows_the_distribution() -> None:
    """Knizia's Yacht, 1,500 games of Solution.best_action: the empirical CDF within the 99.9% Kolmogorov band."""
    sol = solve("knizia")
    dist = score_distribution("knizia")
    n = 1500
    scores = np.array([_play("knizia", 1000 + i, sol.best_action) for i in range(n)])
    cdf = np.cumsum(dist.probabilities)
    ecdf = np.searchsorted(np.sort(scores), np.arange(len(cdf)), side="right") / n
    assert np.abs(ecdf - cdf).max() < 1.95 / math.sqrt(n)


def test_mid_turn_distribution_mean_is_the_action_value() -> None:
    sol = solve("yacht")
    rng = np.random.default_rng(5)
    st = new_game("yacht", rng)
    for _ in range(7):
        d = score_distribution(st)
        assert abs(d.mean - np.nanmax(sol.action_values(st))) < 1e-6
        a = sol.best_action(st)
        st = reroll_pattern(st, a, rng) if a < NUM_KEEP_ACTIONS else score_category(st, a - NUM_KEEP_ACTIONS, rng)[0]


# ---- reaching a target --------------------------------------------------------------------------------------------


def _dense_reach(rules: str, F: int, R: dict[int, np.ndarray], N: int) -> np.ndarray:
    """(N,) best P(at least n more points) from turn-start state F, every need n, by plain dense maximisation."""
    P, patterns = _dense_model()
    cats = get_rules(rules).category_ids
    need = np.arange(N)
    v = np.full((len(HANDS), N), -np.inf)
    for c in range(len(cats)):
        if not F >> c & 1:
            for h, dice in enumerate(HANDS):
                pts = DENSE[rules](cats[c], dice)
                v[h] = np.maximum(v[h], R[F | 1 << c][np.maximum(need - pts, 0)])
    for _ in range(2):
        v = np.maximum(v, (P @ v)[patterns].max(axis=1))
    return P[patterns[0, 0]] @ v


@pytest.mark.parametrize("rules", ["yacht", "knizia"])
def test_reach_end_games_match_a_dense_solver(rules: str) -> None:
    """Every state with one box open and a sample of those with two, every need."""
    rs = solve_reach(rules)
    N = rs.width
    full = (1 << 12) - 1
    R = {full: (np.arange(N) == 0).astype(float)}
    states = _end_game_states(rules, 2)
    for F in [F for F in states if bin(F).count("1") == 11] + [F for F in states if bin(F).count("1") == 10][::7]:
        R[F] = _dense_reach(rules, F, R, N)
        np.testing.assert_allclose(rs.table[F], R[F], rtol=0, atol=1e-12)


@pytest.mark.parametrize("rules", ["yacht", "knizia"])
def test_reach_is_at_least_the_expected_score_players(rules: str) -> None:
    """P*(T) >= P(final >= T) of the expected-score player for every T, strictly for some; P*(0) = 1."""
    best = solve_reach(rules).curve()
    plain = distribution_table(rules).start.at_least()
    n = min(len(best), len(plain))
    assert (best[:n] >= plain[:n] - 1e-12).all()
    assert (best[:n] > plain[:n] + 0.01).any()
    assert best[0] == 1.0 and best[-1] == 0.0
    assert (np.diff(best) <= 1e-15).all()


@pytest.mark.parametrize("rules", ["yacht", "knizia"])
def test_most_points_is_the_exact_bound_of_both_tables(rules: str) -> None:
    """``most_points[s]`` is exact: ``most_points[s]`` more points can be reached from every reachable state (with
    some probability), one more cannot, and no score beyond it has probability; at the start it is the highest
    score of the rules."""
    reach, dist = solve_reach(rules), distribution_table(rules)
    most = most_points(get_rules(rules))
    ok = np.isfinite(np.asarray(solve(rules).values).reshape(-1))
    for s in np.flatnonzero(ok):
        assert reach.table[s, most[s]] > 0 and not reach.table[s, most[s] + 1:].any(), s
        assert not dist.table[s, most[s] + 1:].any(), s
    assert most[0] == max_score(get_rules(rules)) == reach.width - 2
    assert (reach.table[ok] > 0).sum(axis=1).tolist() == (most[ok] + 1).tolist()


@pytest.mark.parametrize("rules", ["yacht", "knizia", "yahtzee", "yahtzee-free-joker", "yatzy"])
def test_the_reach_sweep_searches_a_state_as_the_decisions_do(rules: str) -> None:
    """The sweep searches the needs 0 .. L - 1 of one state side by side, each box class one shifted successor row
    (``state_hand_values``); the decisions search any positions, one look-up per lane (``reach_hand_values``). On a
    table of random rows (each starting with 1, as the sweep writes them, some shorter than the shifts) both give
    the same hand values, bit for bit, in states of every layer."""
    from yacht_env.rules import TurnStartLayout
    from yacht_solver import reach_kernels as RK
    from yacht_solver.core import turn_start_layers
    from yacht_solver.ragged import Ragged, row_offsets
    from yacht_solver.search.turn_constants import search_constants
    from yacht_solver.search.turn_search import Starts

    rs = get_rules(rules)
    cs = search_constants(rs)
    rng = np.random.default_rng(8)
    offsets = row_offsets(rng.integers(1, 12, TurnStartLayout.of(rs).size))
    data = rng.random(int(offsets[-1])).astype(np.float32)
    data[offsets[:-1]] = 1.0
    table = Ragged(data, offsets)
    L = 45
    W1, W2 = np.empty((D.NUM_HANDS, L)), np.empty((D.NUM_HANDS, L))
    T1 = np.empty((max(cs.BOXV.shape[1], rs.num_categories), L))
    T2 = np.empty((cs.BOXV.shape[1], L))
    for layer in turn_start_layers(rs):
        for s in rng.choice(layer, size=min(3, len(layer)), replace=False):
            F, r = divmod(int(s), cs.U * cs.Y)
            key = (F, r // cs.Y, r % cs.Y)
            lanes = Starts(*(np.full(L, v, dtype=np.int64) for v in key))
            RK.reach_hand_values(cs, table, lanes, np.arange(L), W1, T1, np.empty(L, dtype=np.int64))
            RK.state_hand_values(cs, table, key, W2, T2)
            np.testing.assert_array_equal(W1, W2)
            assert (W2 == 1.0).any() and (W2 < 1.0).any()


def test_the_sweeps_do_not_depend_on_the_thread_count() -> None:
    """The states of a layer are dealt out among threads: one thread and two give the same tables, bit for bit."""
    import numba

    rs = get_rules("knizia")
    before = numba.get_num_threads()
    tables = []
    for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
        numba.set_num_threads(threads)
        try:
            tables.append((compute_reach(rs), compute_distribution(solve(rs))))
        finally:
            numba.set_num_threads(before)
    np.testing.assert_array_equal(tables[0][0], tables[1][0])
    np.testing.assert_array_equal(tables[0][1], tables[1][1])
    np.testing.assert_array_equal(tables[0][0], solve_reach("knizia").table)


def test_computing_a_table_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path, capsys) -> None:  # noqa: ANN001
    """A table that takes a while to compute says so on stderr (Yahtzee's take minutes), and is cached."""
    import functools
    import time

    from yacht_env.jit import notice
    from yacht_env.rules import TurnStartLayout
    from yacht_solver import long_work
    from yacht_solver import reach as RM

    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(long_work, "SlowNotice", functools.partial(notice.SlowNotice, after=0.0, every=0.05))
    rs = get_rules("knizia")
    shape = (TurnStartLayout.of(rs).size, max_score(rs) + 2)
    RM.most_points(rs)  # sized first: the notice below is the table's own
    capsys.readouterr()
    RM.cached_table(rs, "reach", lambda: (time.sleep(0.3), RM.compute_reach(rs))[1])
    err = capsys.readouterr().err
    assert f"yacht-env: computing the reach table of knizia ({shape[0]:,} x {shape[1]:,}, " in err
    assert "once, then cached), about" in err and "Ctrl-C stops it and keeps nothing..." in err
    assert "yacht-env: still computing the reach table" in err
    table, _ = RM.cached_table(rs, "reach", lambda: pytest.fail("computed again"))
    assert table.shape == shape and capsys.readouterr().err == ""


def test_reach_action_probabilities_match_their_definition() -> None:
    """A keep's probability is the mean over the roll of the best action afterwards; a box's is the next state's."""
    rs = solve_reach("yacht")
    card = _card("yacht", 0b000011000111)
    target = 120
    st = GameState("yacht", (2, 3, 3, 5, 6), 1, card)
    probs = rs.action_probabilities(st, target)
    after = np.array([rs.state_probability(GameState("yacht", h, 0, card), target) for h in HANDS])
    kept = D.keep_index(D.pattern_faces(st.dice, 0b00110))
    assert abs(probs[0b00110] - D.TRANSITION[kept] @ after) < 1e-12
    c = 4  # fives, open: 5 points, then 115 more needed from the card with fives filled
    F2 = (0b000011000111 | 1 << c)
    assert abs(probs[NUM_KEEP_ACTIONS + c] - rs.table[F2, target - 5]) < 1e-12


# ---- the command line ---------------------------------------------------------------------------------------------


def test_cli_distribution_and_reach_json(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    from yacht_cli import main

    path = tmp_path / "d.json"
    assert main(["solve", "--rules", "knizia", "--distribution", "--json", str(path)]) == 0
    data = json.loads(path.read_text())
    probs = np.array(data["distribution"])
    assert abs(probs.sum() - 1) < 1e-9
    assert abs(probs @ np.arange(len(probs)) - data["mean"]) < 1e-9
    assert abs(data["mean"] - solve("knizia").start_value) < 1e-6
    capsys.readouterr()
    assert main(["solve", "--rules", "knizia", "--objective", "reach", "--target", "200", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["probability"] == solve_reach("knizia").probability(200)
    assert out["expected_score_player_probability"] < out["probability"]


@pytest.mark.parametrize("argv, words", [
    (["--objective", "reach"], "--target"),
    (["--objective", "reach", "--target", "x"], "an integer in 0..1,000,000"),
    (["--objective", "win"], "points, reach"),
    (["--target", "100"], "--objective reach"),
    (["--plot", "p.png"], "--distribution"),
])
def test_cli_rejects_bad_objective_flags(argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    from yacht_cli import main

    assert main(["solve", "--rules", "yacht", *argv]) == 2
    assert words in capsys.readouterr().err


@pytest.mark.slow
def test_tables_beyond_the_memory_limit_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from yacht_solver.reach import MEMORY_ENV

    monkeypatch.setenv(MEMORY_ENV, "1")
    with pytest.raises(ValueError, match=r"needs 1\.16 GB of memory \(a table of 290,682,368 float32 entries\), more "
                                         r"than the 1 GB allowed; set YACHT_ENV_TABLE_GB"):
        solve_reach("yahtzee")
    with pytest.raises(ValueError, match=r"1\.06 GB of memory \(a table of 265,542,144 float32 entries\)"):
        distribution_table("yatzy")
    monkeypatch.setenv(MEMORY_ENV, "0.001")
    with pytest.raises(ValueError, match=r"2\.4 MB of memory \(at least: a table of at least 612,352 float32 "
                                         r"entries, counted from its boxes\), more than the 0\.001 GB"):
        solve_reach("yacht")


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "four", ""])
def test_a_table_memory_limit_that_is_not_a_positive_number_is_refused(value: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """``nan`` turned the guard off in silence (every comparison with it is false)."""
    from yacht_env.rules import get_rules
    from yacht_solver.reach import MEMORY_ENV, check_table_memory

    monkeypatch.setenv(MEMORY_ENV, value)
    with pytest.raises(ValueError, match=rf"^YACHT_ENV_TABLE_GB must be a positive number of GB \(such as 4 or "
                                         rf"14\.5\), got '{value}'$"):
        check_table_memory(get_rules("yahtzee"), "the reach objective")  # never a solve: nan let one start


def test_running_out_of_memory_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A limit the machine cannot meet ended in numpy's _ArrayMemoryError traceback."""
    import numpy as np

    from yacht_cli import main
    from yacht_cli import solve_command as solve_cmd

    monkeypatch.setattr(solve_cmd, "solve", lambda *a, **k: np.empty((1 << 36, 1 << 10)))
    assert main(["solve", "--rules", "yacht"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("yacht solve: error: out of memory: Unable to allocate ") and err.count("\n") == 1


# ---- the agents ---------------------------------------------------------------------------------------------------


def test_reach_agent_success_rate_matches_the_exact_probability() -> None:
    """1,000 plays of the last three turns of a Knizia game from one scorecard: the share that reaches the target
    lies in the 99.9% interval of the exact probability."""
    from yacht_agents.loader import load_agent

    rules = "knizia"
    F = (1 << 12) - 1 - (1 << 2 | 1 << 8 | 1 << 11)  # threes, little straight, yacht open
    card = _card(rules, F)
    total = sum(v for v in card if v is not None)
    target = total + 35
    agent = load_agent(f"optimal-reach:{target}", rules, seed=0)
    p = agent.reach.table[F, target - total]
    n = 1000
    hits = 0
    for i in range(n):
        rng = np.random.default_rng(i)
        st = GameState(rules, tuple(sorted(rng.integers(1, 7, 5).tolist())), 2, card)
        while not st.is_over:
            a = agent.act(np.zeros(0), None, st)
            st = reroll_pattern(st, a, rng) if a < NUM_KEEP_ACTIONS else score_category(st, a - NUM_KEEP_ACTIONS,
                                                                                          rng)[0]
        hits += st.total >= target
    assert 0.05 < p < 0.95
    assert abs(hits / n - p) < 3.29 * math.sqrt(p * (1 - p) / n)


def test_reach_eval_reports_zero_regret_for_the_reach_agent_and_some_for_optimal() -> None:
    from yacht_tools.objective_eval import evaluate_reach

    mine = evaluate_reach("optimal-reach:200", "yacht", 60, 200, seed=3)
    assert mine["mean_regret"] < 1e-9 and mine["best_probability"] == solve_reach("yacht").probability(200)
    theirs = evaluate_reach("optimal", "yacht", 60, 200, seed=3)
    assert theirs["regret_per_game"] > 0.0
    assert theirs["expected_score_player_probability"] < theirs["best_probability"]


def test_win_shares_by_score() -> None:
    from yacht_agents.objectives import win_shares_by_score

    a = np.array([0.0, 0.5, 0.5])  # scores 1 or 2
    g = win_shares_by_score([a])
    np.testing.assert_allclose(g, [0.0, 0.25, 0.75, 1.0])
    g2 = win_shares_by_score([a, a])  # f = 2: both below (1/4), one ties (2 * 1/4 * 1/2), both tie (1/4 * 1/3)
    assert abs(g2[2] - (0.25 + 0.25 + 0.25 / 3)) < 1e-12 and g2[3] == 1.0


# ---- the coach ----------------------------------------------------------------------------------------------------


def test_replay_speaks_of_the_target() -> None:
    from yacht_tools.coach import Coach
    from yacht_tools.replay import format_replay, replay_game

    coach = Coach("yacht", "reach", 180)
    record = replay_game("optimal-reach:180", "yacht", 4, coach=coach)
    decisions = [d for t in record["turns"] for d in t["decisions"]]
    assert all(d["coach"]["probability_regret"] < 1e-9 for d in decisions)  # it plays the coach's best
    first = decisions[0]["coach"]
    assert abs(first["best_probability"] - solve_reach("yacht").state_probability(
        GameState("yacht", tuple(decisions[0]["dice"]), 2, (None,) * 12), 180)) < 1e-12
    assert "P(final >= 180)" in format_replay(record)


def test_play_hint_speaks_of_the_objective() -> None:
    from yacht_agents.loader import load_agent
    from yacht_tools.coach import Coach
    from yacht_tools.play import play_game

    out: list[str] = []
    lines = iter(["hint", "quit"])
    play_game("yacht", 1, hint=True, read=lambda _: next(lines), write=out.append, coach=Coach("yacht", "reach", 180))
    assert sum("Coach, P(final >= 180)" in x for x in out) == 2
    out.clear()
    lines = iter(["quit"])
    opponent = load_agent("optimal", "yacht")
    play_game("yacht", 1, hint=True, read=lambda _: next(lines), write=out.append, opponent=opponent,
              coach=Coach("yacht", "win"))
    assert any("P(win), estimated" in x for x in out)


def test_the_coach_speaks_the_language_of_the_game() -> None:
    """The coach's hint and a replay's objective notes are in the language asked; the replay's record keeps the
    objective in English (data)."""
    from yacht_tools.coach import Coach
    from yacht_tools.play import play_game
    from yacht_tools.replay import format_replay, replay_game

    out: list[str] = []
    lines = iter(["hint", "quit"])
    play_game("yacht", 1, hint=True, read=lambda _: next(lines), write=out.append, lang="et",
              coach=Coach("yacht", "reach", 180, lang="et"))
    hints = [x for x in out if x.startswith("Treener, P(lõpptulemus >= 180): ")]
    assert len(hints) == 2 and "oodatav" in hints[0] and "expected" not in hints[0] and "Coach" not in "".join(out)
    record = replay_game("optimal-reach:180", "yacht", 4, coach=Coach("yacht", "reach", 180, lang="el"))
    text = format_replay(record, lang="el")
    assert "P(τελικό σκορ >= 180)" in text and "καλύτερη" in text and "P(final >= 180)" not in text
    assert record["turns"][0]["decisions"][0]["coach"]["objective"] == "P(final >= 180)"
    assert Coach("yacht", "win", lang="te").what("te") == "P(గెలుపు), అంచనా"


@pytest.mark.parametrize("rules", ["knizia", "yacht"])
def test_the_win_agents_values_are_the_dense_search_of_its_objective(rules: str) -> None:
    """optimal-win's end-of-turn values (read only as far as each reach row goes) and the search over them equal the
    definition written out on the dense reach table: ending in state s with b points in all is worth
    ``g(0) + sum_t (g(t) - g(t - 1)) * R[s, max(t - b, 0)]``, searched as a reach table with the need ``N - 1``."""
    from yacht_agents.objectives import WinAgent, win_shares_by_score
    from yacht_env.state import new_game, reroll_pattern, score_category
    from yacht_solver import reach_kernels as RK

    agent = WinAgent(rules)
    reach = agent.reach
    dense = np.nan_to_num(np.asarray(reach.table), nan=0.0)
    N = reach.width
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(6):
        me, other = new_game(rules, rng), new_game(rules, rng)
        while not me.is_over:
            g = win_shares_by_score([agent.distributions.of_state(other).probabilities])
            w = np.diff(g)
            key = reach.layout.key(me.filled_bits, me.upper_total, me.yahtzee_box)
            pairs = np.unique(RK.turn_outcomes(reach.constants, tuple(int(k) for k in key)), axis=0)
            t = np.arange(1, len(g))
            need = np.clip(t[None, :] - me.total - pairs[:, 1:2], 0, N - 1)
            Q = np.zeros(dense.shape)
            Q[pairs[:, 0], N - 1 - pairs[:, 1]] = dense[pairs[:, :1], need] @ w + g[0]
            pos = Positions(*(np.array([v]) for v in (*key, me.hand, me.rolls_left)))
            want = reach.decide(pos, np.array([N - 1]), values=True, table=Q)[1][0]
            got, action = agent.win_values(me, [other])
            assert np.allclose(np.where(want > -np.inf, want, np.nan), got, atol=1e-12, equal_nan=True)
            assert got[action] >= np.nanmax(got) - 1e-9  # the best, or tied with it (lowest index)
            checked += 1
            if me.rolls_left and rng.random() < 0.5:
                me = reroll_pattern(me, int(rng.integers(0, 31)), rng)
            else:
                me, _ = score_category(me, int(rng.choice(me.legal_categories())), rng)
                if not other.is_over:
                    other, _ = score_category(other, int(rng.choice(other.legal_categories())), rng)
    assert checked > 6 * 12


def test_a_mid_game_distribution_is_as_long_as_its_row() -> None:
    """The distribution from a state mid-game stops where its turn-start row does (no more points can come), and
    agrees with the row's own distribution at the start of a turn."""
    from yacht_env.state import new_game, score_category
    from yacht_solver import distribution_table

    table = distribution_table("yacht")
    rng = np.random.default_rng(2)
    st = new_game("yacht", rng)
    for _ in range(8):
        st, _ = score_category(st, int(rng.choice(st.legal_categories())), rng)
    p = table.of_state(st).probabilities
    F, u, y = table.layout.key(st.filled_bits, st.upper_total, st.yahtzee_box)
    s = (F * table.layout.U + u) * table.layout.Y + y
    assert len(p) == st.total + int(table.table.offsets[s + 1] - table.table.offsets[s])
    assert abs(p.sum() - 1.0) < 1e-9 and p[-1] >= 0


def test_objective_agents_play_tournaments() -> None:
    """Both agents in a game of three with the optimal player: every game played, the win shares add up."""
    from yacht_tools.tournament import run_tournament

    res = run_tournament(["optimal-win", "optimal-reach:180", "optimal"], 6, seed=2, rules="knizia", players=3)
    stats = res["agents"]
    assert set(stats) == {"optimal-win", "optimal-reach:180", "optimal"}
    assert abs(sum(s["win_rate"] for s in stats.values()) - 1.0) < 1e-9


def test_a_table_computed_for_its_start_row_is_let_go_at_once(tmp_path: Path) -> None:
    """score_distribution(rules) computes the whole table when it is not cached, saves it and keeps one row: the
    table is freed before it returns, in a fresh process (it sat in a reference cycle there, and a free-Joker
    Yahtzee reach solve that followed held 13 GB of it beside its own table until the kernel killed it)."""
    import subprocess
    import sys

    from conftest import child_env

    code = ("import weakref\nimport yacht_solver.distribution as DI\nmade = []\n"
            "compute = DI.compute_distribution\n"
            "def tracked(sol):\n    t = compute(sol)\n    made.append(weakref.ref(t))\n    return t\n"
            "DI.compute_distribution = tracked\nd = DI.score_distribution('knizia')\n"
            "print('ALIVE', made[0]() is not None, abs(d.probabilities.sum() - 1) < 1e-12)\n")
    out = subprocess.run([sys.executable, "-c", code], env=child_env(YACHT_ENV_CACHE_DIR=str(tmp_path)),
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "ALIVE False True" in out.stdout, out.stdout


@pytest.mark.parametrize("argv", [
    ["eval", "--agent", "optimal-reach:100000000000000000000", "--episodes", "1", "--no-progress"],
    ["eval", "--objective", "reach", "--target", "100000000000000000000", "--episodes", "1", "--no-progress"],
    ["solve", "--objective", "reach", "--target", "100000000000000000000"],
    ["replay", "--objective", "reach", "--target", "100000000000000000000"],
    ["eval", "--objective", "reach", "--target", "1_000", "--episodes", "1", "--no-progress"],
])
def test_one_bound_on_targets_everywhere(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """A huge target was an OverflowError traceback in yacht eval, and accepted by yacht solve."""
    from yacht_cli import main

    assert main([*argv, "--rules", "yacht"]) == 2
    err = capsys.readouterr().err
    what = "the T of optimal-reach:T" if argv[2].startswith("optimal-reach") else "--target"
    assert err.startswith(f"yacht {argv[0]}: error: {what} must be a final score to reach, an integer in "
                          "0..1,000,000; got '") and err.count("\n") == 1


def test_the_largest_target_is_accepted_and_has_probability_0() -> None:
    from yacht_agents.objectives import MAX_TARGET, check_target

    assert check_target(str(MAX_TARGET)) == MAX_TARGET and solve_reach("yacht").probability(MAX_TARGET) == 0.0
    with pytest.raises(ValueError, match="must be a final score to reach"):
        check_target(MAX_TARGET + 1)


# ---- the tables as ragged rows, float32 for the large rule sets ----------------------------------------------------


@pytest.mark.parametrize("rules", ["yacht", "knizia"])
def test_float32_tables_are_within_their_bound_of_the_float64_ones(rules: str) -> None:
    """The float32 sweep (what Yahtzee's and Yatzy's tables are stored in) against the float64 one these small rule
    sets keep: every entry of every row within C * 2^-24 (under 1e-6), the start's distribution and P*(T) within
    1e-6, and every state's mean within 1e-5 of the solver's value."""
    from yacht_solver.ragged import rounding_bound

    rs, sol = get_rules(rules), solve(rules)
    exact = (solve_reach(rules).table, distribution_table(rules).table)
    assert exact[0].dtype == exact[1].dtype == np.float64
    bound = rounding_bound(rs.num_categories, np.float32)
    assert bound < 1e-6
    small = (compute_reach(rs, np.float32), compute_distribution(sol, np.float32))
    for t32, t64 in zip(small, exact):
        assert t32.dtype == np.float32 and 2 * t32.nbytes == t64.nbytes
        err = np.abs(t32.data.astype(np.float64) - t64.data)
        assert 0 < err.max() <= bound  # rounded, and no more than the bound
        assert np.abs(t32.row(0) - t64.row(0)).max() < 1e-6
    values = np.asarray(sol.values).reshape(-1)
    ok = np.isfinite(values)
    np.testing.assert_allclose(small[1][ok] @ np.arange(small[1].shape[1]), values[ok], rtol=0, atol=1e-5)


def test_a_ragged_table_reads_as_the_dense_table() -> None:
    """0 past a row's end, NaN in the rows of states no game reaches, numpy's indexing (a slice beside an index
    array gives rows x columns, index arrays broadcast)."""
    from yacht_solver.ragged import RaggedTable, row_offsets

    real = solve_reach("yacht").table
    lengths = real.lengths.copy()
    lengths[[7, 100]] = 0  # two rows of states no game reaches
    t = RaggedTable(np.arange(lengths.sum(), dtype=np.float32) / lengths.sum(), row_offsets(lengths), real.shape[1])
    for table in (real, t):
        dense = np.full(table.shape, np.nan)
        for s in range(table.shape[0]):
            if table.lengths[s]:
                dense[s] = 0.0
                dense[s, : table.lengths[s]] = table.data[table.offsets[s]:table.offsets[s + 1]]
        assert (table.lengths <= table.shape[1] - 1).all() and (table.lengths < table.shape[1] - 1).any()
        np.testing.assert_array_equal(np.asarray(table), dense)
        rows, cols = np.array([[0], [7], [4094]]), np.array([0, 1, 150, table.shape[1] - 1])
        for key in (5, 7, (5,), (slice(None), 0), (3, slice(2, None)), ([0, 9, 4095], slice(None, 40)),
                    (rows, cols), (4094, 3), (np.isfinite(dense[:, 0]),), (slice(10, 20), [1, 2])):
            np.testing.assert_array_equal(table[key], dense[key], err_msg=str(key))
        assert isinstance(table[4094, 3], float)
    assert np.isnan(t[7]).all() and np.isnan(t[100, 3])


@pytest.mark.parametrize(("key", "error"), [((1, 2, 3), "too many indices"), (1.5, "only integers"),
                                          ([True, False], "a boolean index"), (4, "out of range"),
                                          (-5, "out of range"), ((..., ...), "a single ellipsis"),
                                          ((0, 1, ...), None), ((..., 1, 2, 0), "too many indices"),
                                          (True, "add an axis"), (False, "add an axis"), ((0, True), "add an axis"),
                                          ((np.True_, ...), "add an axis"), (np.array(False), "add an axis"),
                                          (None, "add an axis"), ((..., None), "add an axis")])
def test_a_ragged_table_refuses_what_the_dense_table_refuses(key: object, error: str | None) -> None:
    """Where numpy's dense array raises, so does the ragged one; ``None`` and a lone ``True`` or ``False``, which
    numpy reads as a new axis, are refused (the table has two axes), with a message that says so."""
    from yacht_solver.ragged import RaggedTable

    t = RaggedTable(np.arange(9.0), np.array([0, 2, 3, 6, 9]), 3)
    if error is None:  # the neighbour that is no error: answered as the dense table does
        assert t[key] == np.asarray(t)[key] == 1.0
        return
    with pytest.raises(IndexError, match=error):
        t[key]


@pytest.mark.parametrize("key", [..., (..., 0), (0, ...), (..., [0, 2]), ([1, 3], ...), (..., 2, 1), (2, 1, ...),
                                 (slice(1, None), ...), (..., slice(None, 2)), (..., np.array([True, False, True]))])
def test_an_ellipsis_reads_as_in_the_dense_table(key: object) -> None:
    from yacht_solver.ragged import RaggedTable

    t = RaggedTable(np.arange(9.0), np.array([0, 2, 3, 6, 9]), 3)
    np.testing.assert_array_equal(t[key], np.asarray(t)[key])


@pytest.mark.parametrize(("offsets", "error"), [([0, 3, 2, 6, 9], "rise by 0..3"), ([1, 2, 3, 6, 9], "start at 0"),
                                                ([0, 9], "rise by 0..3"), ([0, 2, 3, 6, 8], "end at 9"),
                                                ([], "one row")])
def test_offsets_that_cannot_describe_rows_are_refused(offsets: list[int], error: str) -> None:
    from yacht_solver.ragged import RaggedTable

    with pytest.raises(ValueError, match=error):
        RaggedTable(np.arange(9.0), np.array(offsets, dtype=np.int64), 3)


def test_a_large_table_is_memory_mapped_from_an_aligned_payload(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """Knizia's reach table stored as the large ones are (float32): read back memory-mapped (its pages read as they
    are used), its payload at a page boundary; its start row alone kept in memory on request; a damaged byte or a
    NaN under a recomputed checksum refused."""
    import mmap

    from yacht_solver import ragged, table_cache
    from yacht_solver import reach as RM

    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(ragged, "FLOAT64_BYTES_MAX", 0)  # every table float32
    rs = get_rules("knizia")
    made, _ = RM.cached_table(rs, "reach", lambda: compute_reach(rs))
    assert made.dtype == np.float32
    got, _ = RM.cached_table(rs, "reach", lambda: pytest.fail("computed again"))
    def mapped(a: np.ndarray) -> bool:
        while isinstance(a, np.ndarray):
            a = a.base
        return isinstance(a, memoryview) and isinstance(a.obj, mmap.mmap)

    assert mapped(got.data) and not got.data.flags.writeable and got.dtype == np.float32
    np.testing.assert_array_equal(got.data, made.data)
    path = table_cache.cache_path(rs, RM.objective_key(rs, "reach"))
    assert (path.stat().st_size - made.nbytes) % table_cache.ALIGN == 0
    first, _ = RM.cached_table(rs, "reach", lambda: pytest.fail("computed again"), rows=1)
    assert not mapped(first.data) and len(first.data) == got.offsets[1]
    np.testing.assert_array_equal(first[0], got[0])
    blob = bytearray(path.read_bytes())
    blob[-1] ^= 0xFF
    path.write_bytes(bytes(blob))
    key = RM.objective_key(rs, "reach")
    load = dict(value_range=(0.0, 1.0), dtype="<f4", row_offsets=got.offsets, mapped=True)
    assert table_cache.load(rs, made.data.shape, key, **load) is None
    bad = made.data.copy()
    bad[-5] = np.nan
    table_cache.save(rs, bad, key, mapped=True)
    assert table_cache.load(rs, made.data.shape, key, **load) is None
    table_cache.save(rs, made.data, key, mapped=True)
    assert table_cache.load(rs, made.data.shape, key, **load) is not None


def test_a_sweep_reports_its_rows_to_the_progress_bar_asked_for() -> None:
    """``yacht solve`` shows a tqdm bar over the turn-start rows of a table it computes (sweep_progress)."""
    from yacht_solver.core import turn_start_layers
    from yacht_solver.reach import sweep_progress

    seen: list[object] = []

    class Bar:
        def __init__(self, total: int, desc: str) -> None:
            seen.append((total, desc))

        def update(self, n: int) -> None:
            seen.append(n)

        def close(self) -> None:
            seen.append("closed")

    rs = get_rules("knizia")
    with sweep_progress(Bar):
        compute_distribution(solve(rs))
    total = sum(len(s) for s in turn_start_layers(rs))
    assert seen[0] == (total, "distribution table of knizia") and seen[-1] == "closed"
    assert sum(seen[1:-1]) == total and len(seen) > 10
    seen.clear()
    compute_reach(rs)  # no bar asked for: none made
    assert seen == []


@pytest.mark.parametrize("kind", ["distribution", "reach"])
def test_a_forged_table_of_zeros_with_a_valid_checksum_is_solved_again(kind: str, tmp_path,  # noqa: ANN001
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A cached table whose checksum was recomputed over zeros passed every check of the file: its start row (a
    distribution that sums to 0, a chance of 0 to reach a score of 0) now sends it back to the solver."""
    import sys

    from yacht_solver import distribution as DM
    from yacht_solver import reach as RM
    from yacht_solver import table_cache

    rs = get_rules("knizia")
    real = DM.distribution_table(rs).table if kind == "distribution" else solve_reach(rs).table
    modules = (sys.modules[DM.__name__], DM.DISTK) if kind == "distribution" else ()
    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(tmp_path))
    table_cache.save(rs, np.zeros_like(real.data), RM.objective_key(rs, kind, modules), mapped=True)
    calls = []
    got, _ = RM.cached_table(rs, kind, lambda: calls.append(1) or real, modules)
    assert calls == [1]
    np.testing.assert_array_equal(got.data, real.data)


def test_a_turn_start_distribution_is_the_mean_over_the_first_roll() -> None:
    """Between a seat's two turns (no dice yet) a player's final-score distribution is its turn-start row: the
    distributions after each first roll, weighted by the roll's chance."""
    from yacht_env import dice as D
    from yacht_env.state import deal_to, end_turn, new_game
    from yacht_solver import distribution_table

    table = distribution_table("knizia")
    rng = np.random.default_rng(4)
    st = new_game("knizia", rng)
    st, _ = end_turn(st, int(rng.choice(st.legal_categories())))
    assert st.awaits_roll
    want = sum(p * table.of_state(deal_to(st, h)).probabilities for h, p in zip(D.HANDS, D.HAND_PROBABILITY))
    got = table.of_state(st).probabilities
    assert got.shape == want.shape and np.allclose(got, want, atol=1e-9)


def test_the_win_agent_reads_no_roll_that_is_not_made() -> None:
    """optimal-win decides the same whatever dice the opponent's next roll would bring: in play the opponent holds
    none between its turns, and dice a position gives it are not read."""
    from yacht_agents.objectives import WinAgent
    from yacht_env import dice as D
    from yacht_env import multiplayer as MP
    from yacht_env.actions import action_mask
    from yacht_env.state import deal_to

    agent = WinAgent("knizia")
    rng, pick = np.random.default_rng(8), np.random.default_rng(1)
    hands = [D.HANDS[k] for k in pick.choice(len(D.HANDS), 4, replace=False)]
    seating = MP.new_seating("knizia", 2, rng)
    checked = 0
    while not MP.is_over(seating):
        seat = MP.seat_to_act(seating)
        mask = action_mask(seating[seat])
        if seat == 0:
            assert seating[1].awaits_roll or seating[1].is_over
            a = agent.act_seated(seating, 0, mask)
            if not seating[1].is_over:
                for h in hands:
                    assert agent.act_seated((seating[0], deal_to(seating[1], h)), 0, mask) == a
                checked += 1
        else:
            a = int(pick.choice(np.flatnonzero(mask)))
        seating = MP.play(seating, a, rng)[0]
    assert checked >= 12
