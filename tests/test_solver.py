"""The exact solver: published optimal values, independent re-computations, simulated play, the API and the cache.

Independent checks of the solver's numbers:

- Yahtzee: the three published optimal values (docs/rules.md) to 1e-6; Yatzy: yatzy-solver's value to 1e-6 (the
  benchmark benchmarks/bench_solver.py also solves it with yatzy-solver and compares every turn-start state).
- Yacht and Knizia's Yacht (no published values): every one of the 4,096 turn-start values against a plain dense
  solver written here from docs/rules.md (its own scoring for each, its own reroll probabilities from enumerated
  ordered dice, every keep pattern of every hand, no keep tree); and the mean of simulated optimal games against
  ``start_value``.
- Yahtzee and Yatzy end games from partly filled scorecards against a plain dense solver on the rules' Python
  functions with uncapped upper totals.
"""

from __future__ import annotations

import itertools
import json
import math
from functools import cache, lru_cache

import numba
import numpy as np
import pytest

from yacht_env import dice as D
from yacht_env import rules as R
from yacht_env.actions import NUM_KEEP_ACTIONS, action_mask
from yacht_env.jit import compile as CK
from yacht_env.rules import FIVE_KIND_FACE, JOKER_NONE, RuleSet
from yacht_env.state import GameState, new_game, parse, reroll_pattern, score_category
from yacht_solver import clear_memory_cache, core, solve
from yacht_solver import table_cache as solver_cache
from yacht_solver.search import state_search as SS
from yacht_solver.search import turn_constants as TT
from yacht_solver.search import turn_search as TS

PUBLISHED = {"yahtzee": 254.5877287, "yahtzee-free-joker": 254.5896095,
             "yatzy": 248.4399894}  # Yatzy: yatzy-solver "yatzy-scandinavian" (benchmarks/bench_solver.py runs it)
NO_BONUS_VALUE = 245.8707745

# Yahtzee without the Yahtzee bonus and without the Joker (Glenn 2006; yatzy-solver "american+no-bonus").
YAHTZEE_NO_BONUS = RuleSet(
    name="yahtzee-no-bonus-test",
    title="Yahtzee without Yahtzee bonus or Joker",
    categories=R.YAHTZEE.categories,
    upper_bonus_threshold=63,
    upper_bonus=35,
    five_kind_category=11,
    five_kind_bonus=0,
    joker=JOKER_NONE,
)


@pytest.fixture(scope="module")
def yacht() -> core.Solution:
    return solve("yacht", cache=False)


@pytest.fixture(scope="module")
def yahtzee() -> core.Solution:
    return solve("yahtzee", cache=False)


@pytest.fixture(scope="module")
def yahtzee_free() -> core.Solution:
    return solve("yahtzee-free-joker", cache=False)


@pytest.fixture(scope="module")
def knizia() -> core.Solution:
    return solve("knizia", cache=False)


@pytest.fixture(scope="module")
def yatzy() -> core.Solution:
    return solve("yatzy")  # the disk cache of the tests: the largest table (2**15 x 64), 16 s to solve


# ---- published values -------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_yahtzee_forced_joker_published(yahtzee: core.Solution) -> None:
    assert abs(yahtzee.start_value - PUBLISHED["yahtzee"]) < 1e-6


@pytest.mark.slow
def test_yahtzee_free_joker_published(yahtzee_free: core.Solution) -> None:
    assert abs(yahtzee_free.start_value - PUBLISHED["yahtzee-free-joker"]) < 1e-6


@pytest.mark.slow
def test_yatzy_published(yatzy: core.Solution) -> None:
    assert yatzy.values.shape == (1 << 15, 64, 1)  # the upper total is tracked, no five-of-a-kind box
    assert abs(yatzy.start_value - PUBLISHED["yatzy"]) < 1e-6


@pytest.mark.slow
def test_cli_solves_yatzy(yatzy: core.Solution, capsys: pytest.CaptureFixture[str]) -> None:
    from yacht_cli import main

    assert main(["solve", "--rules", "yatzy", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rules"] == "yatzy" and abs(out["start_value"] - PUBLISHED["yatzy"]) < 1e-6


@pytest.mark.slow
def test_yahtzee_without_bonus_or_joker_published() -> None:
    sol = solve(YAHTZEE_NO_BONUS, cache=False)
    assert sol.values.shape == (1 << 13, 64, 1)  # no five-of-a-kind box to track
    assert abs(sol.start_value - NO_BONUS_VALUE) < 1e-6


# ---- an independent dense solver ----------------------------------------------------------------------------------

HANDS = list(itertools.combinations_with_replacement(range(1, 7), 5))  # the 252 hands, sorted tuples


@lru_cache(maxsize=1)
def _dense_model() -> tuple[np.ndarray, np.ndarray]:
    """(keeps × 252) reroll probabilities from every ordered outcome of the rerolled dice, and for every hand the
    row of each of its 32 keep patterns (keeping all five included), built without yacht_env.dice's arrays."""
    hand_row = {h: i for i, h in enumerate(HANDS)}
    keep_row: dict[tuple[int, ...], int] = {}
    rows: list[np.ndarray] = []
    patterns = np.zeros((len(HANDS), 32), dtype=np.int64)
    for i, h in enumerate(HANDS):
        for p in range(32):
            kept = tuple(h[j] for j in range(5) if p >> j & 1)
            if kept not in keep_row:
                dist = np.zeros(len(HANDS))
                outcomes = list(itertools.product(range(1, 7), repeat=5 - len(kept)))
                for rolled in outcomes:
                    dist[hand_row[tuple(sorted(kept + rolled))]] += 1.0
                keep_row[kept] = len(rows)
                rows.append(dist / len(outcomes))
            patterns[i, p] = keep_row[kept]
    return np.array(rows), patterns


def dense_turn_value(v0: np.ndarray) -> float:
    """Expected value of a turn whose score-level hand values are ``v0`` (order of HANDS): two rerolls, every keep."""
    P, patterns = _dense_model()
    v = v0
    for _ in range(2):
        v = np.maximum(v, (P @ v)[patterns].max(axis=1))
    return float(P[patterns[0, 0]] @ v)  # keeping nothing = the first roll


def yacht_score(cat: str, dice: tuple[int, ...]) -> int:
    """Yacht box scores straight from docs/rules.md."""
    counts = sorted((dice.count(f) for f in set(dice)), reverse=True)
    upper = ["ones", "twos", "threes", "fours", "fives", "sixes"]
    if cat in upper:
        face = upper.index(cat) + 1
        return face * dice.count(face)
    if cat == "full_house":
        return sum(dice) if counts == [3, 2] else 0
    if cat == "four_of_a_kind":
        return next((4 * f for f in set(dice) if dice.count(f) >= 4), 0)
    if cat == "little_straight":
        return 30 if sorted(dice) == [1, 2, 3, 4, 5] else 0
    if cat == "big_straight":
        return 30 if sorted(dice) == [2, 3, 4, 5, 6] else 0
    if cat == "choice":
        return sum(dice)
    if cat == "yacht":
        return 50 if counts == [5] else 0
    raise AssertionError(cat)


def knizia_score(cat: str, dice: tuple[int, ...]) -> int:
    """Box scores of Knizia's Yacht straight from docs/rules.md (written apart from yacht_score on purpose)."""
    tally = [dice.count(f) for f in range(1, 7)]
    total = sum(dice)
    faces = ("ones", "twos", "threes", "fours", "fives", "sixes")
    if cat in faces:
        return (faces.index(cat) + 1) * tally[faces.index(cat)]
    if cat == "full_house":  # three of one face and two of another, or all five alike: the sum
        return total if 5 in tally or (3 in tally and 2 in tally) else 0
    if cat == "four_of_a_kind":  # four or five alike: the sum of all five dice
        return total if max(tally) >= 4 else 0
    if cat in ("little_straight", "big_straight"):
        low = 1 if cat == "little_straight" else 2
        return 30 if set(dice) == set(range(low, low + 5)) else 0
    if cat == "choice":
        return total
    if cat == "yacht":
        return 50 if max(tally) == 5 else 0
    raise AssertionError(cat)


DENSE = {"yacht": yacht_score, "knizia": knizia_score}


@pytest.mark.parametrize("which", list(DENSE))
def test_every_state_matches_plain_dense_solver(request: pytest.FixtureRequest, which: str) -> None:
    """Yacht and Knizia's Yacht (no bonus, so the state is the filled set): all 4,096 turn-start values."""
    sol: core.Solution = request.getfixturevalue(which)
    cats = sol.rules.category_ids
    score = np.array([[DENSE[which](c, h) for c in cats] for h in HANDS], dtype=np.float64)
    order = [D.hand_index(h) for h in HANDS]
    n = len(cats)
    full = (1 << n) - 1
    E = np.zeros(1 << n)
    for F in sorted(range(full), key=lambda f: -bin(f).count("1")):
        open_cats = [c for c in range(n) if not F >> c & 1]
        v0 = (score[:, open_cats] + E[[F | 1 << c for c in open_cats]]).max(axis=1)
        E[F] = dense_turn_value(v0)
    assert sol.values.shape == (1 << n, 1, 1)
    np.testing.assert_allclose(sol.values[:, 0, 0], E, rtol=0, atol=1e-9)
    assert abs(sol.start_value - E[0]) < 1e-9
    assert [D.hand_index(h) for h in HANDS] == order == list(range(252))  # same hand order, so rows align


def _dense_end_game(rules: RuleSet, scores: dict[str, int], bonus_count: int = 0) -> float:
    """Expected points to come from the start of a turn, by a plain dense recursion over the open categories
    with the rules' Python functions and the uncapped upper total."""
    rs = rules
    params, S, J = rs.params, rs.box_scores, rs.joker_scores
    ycat = rs.five_kind_category
    order = [D.hand_index(h) for h in HANDS]

    @cache
    def value(filled: int, upper: int, ybox: int | None) -> float:
        if filled == rs.all_bits:
            return 0.0
        v0 = np.full(len(HANDS), -np.inf)
        for i, hi in enumerate(order):
            face = int(FIVE_KIND_FACE[hi])
            legal = R.legal_bits(params, face, filled)
            for c in range(rs.num_categories):
                if legal >> c & 1:
                    pts = R.points_for(params, S[hi], J[hi], face, filled, upper, ybox == 50, c)
                    box = R.box_score(params, S[hi], J[hi], face, filled, c)
                    nxt = value(filled | 1 << c, upper + box if c < R.NUM_UPPER else upper,
                                box if c == ycat else ybox)
                    v0[i] = max(v0[i], pts + nxt)
        return dense_turn_value(v0)

    filled = sum(1 << rs.category_index(c) for c in scores)
    upper = sum(s for c, s in scores.items() if rs.category_index(c) < R.NUM_UPPER)
    ybox = scores.get(rs.category_ids[ycat]) if ycat >= 0 else None
    return value(filled, upper, ybox)


END_GAMES = [
    # open categories, upper total of the filled upper boxes, Yahtzee box (None = open)
    (("sixes", "yahtzee", "chance", "full_house"), 40, None),
    (("fours", "fives", "small_straight"), 45, 50),
    (("ones", "three_of_a_kind", "large_straight"), 59, 0),
    (("twos", "sixes", "four_of_a_kind"), 30, 50),
    (("threes", "large_straight", "small_straight", "full_house"), 50, 50),
]


def _scorecard(rules: RuleSet, open_cats: tuple[str, ...], upper_total: int, ybox: int | None) -> dict[str, int]:
    """A filled scorecard with these boxes open whose upper boxes sum to upper_total (greedy, highest faces)."""
    scores: dict[str, int] = {}
    left = upper_total
    for c in reversed(range(R.NUM_UPPER)):
        cid = rules.category_ids[c]
        if cid in open_cats:
            continue
        n = min(5, left // (c + 1))
        scores[cid] = n * (c + 1)
        left -= scores[cid]
    assert left == 0, "choose an upper total the filled boxes can hold"
    for c in range(R.NUM_UPPER, rules.num_categories):
        cid = rules.category_ids[c]
        if cid not in open_cats:
            scores[cid] = 0
    if ybox is not None:
        scores["yahtzee"] = ybox
    return scores


@pytest.mark.slow
@pytest.mark.parametrize("which", ["yahtzee", "yahtzee_free"])
@pytest.mark.parametrize("game", END_GAMES, ids=lambda g: "+".join(g[0]) if isinstance(g[0], tuple) else None)
def test_yahtzee_end_games_match_plain_dense_solver(request: pytest.FixtureRequest, which: str, game: tuple) -> None:
    sol: core.Solution = request.getfixturevalue(which)
    open_cats, upper_total, ybox = game
    scores = _scorecard(sol.rules, open_cats, upper_total, ybox)
    expected = _dense_end_game(sol.rules, scores)
    got = sol.value(scores.keys(), upper_total, ybox)
    assert abs(got - expected) < 1e-9, (got, expected)


YATZY_END_GAMES = [
    # open categories, upper total of the filled upper boxes (Yatzy's bonus is 50 at 63)
    (("sixes", "two_pairs", "chance", "full_house"), 40),
    (("fours", "fives", "small_straight"), 45),
    (("ones", "one_pair", "large_straight"), 59),
    (("twos", "sixes", "four_of_a_kind", "yatzy"), 30),
    (("threes", "three_of_a_kind", "two_pairs", "one_pair"), 50),
]


@pytest.mark.slow
@pytest.mark.parametrize("game", YATZY_END_GAMES, ids=lambda g: "+".join(g[0]) if isinstance(g[0], tuple) else None)
def test_yatzy_end_games_match_plain_dense_solver(yatzy: core.Solution, game: tuple) -> None:
    open_cats, upper_total = game
    scores = _scorecard(yatzy.rules, open_cats, upper_total, None)
    expected = _dense_end_game(yatzy.rules, scores)
    assert abs(yatzy.value(scores.keys(), upper_total) - expected) < 1e-9


# ---- the fast path against the rules' functions -------------------------------------------------------------------


def _random_states(sol: core.Solution, rng: np.random.Generator, n: int) -> list[tuple[int, int, int]]:
    """Reachable non-final turn-start states (filled, capped upper, y)."""
    lay = sol.layout
    out = []
    while len(out) < n:
        F = int(rng.integers(0, (1 << lay.num_categories) - 1))
        u = int(rng.integers(0, lay.U))
        y = int(rng.integers(0, lay.Y))
        if np.isfinite(sol.values[F, u, y]):
            out.append((F, u, y))
    return out


@pytest.mark.parametrize("which", ["yacht", "yahtzee", "yahtzee_free", "yatzy", "knizia"])
def test_state_values_equal_reference_turn(request: pytest.FixtureRequest, which: str) -> None:
    """Every value re-derived through the rules' functions for every hand and category (successor_table) and the
    keep tree; the shortcut for hand values equals the reference row maxima; the batched search (turn_values, in
    groups of LANES) gives the same turn-start values and keep values as the search of each state alone."""
    sol: core.Solution = request.getfixturevalue(which)
    lay = sol.layout
    cs = TT.search_constants(sol.rules)
    states = _random_states(sol, np.random.default_rng(7), 3 * TS.LANES + 5)
    flat = np.ascontiguousarray(sol.values).ravel()
    Fs = np.array([s[0] for s in states], dtype=np.int64)
    us = np.array([s[1] for s in states], dtype=np.int64)
    ys = np.array([s[2] for s in states], dtype=np.int64)
    L = TS.LANES
    W = np.empty((D.NUM_HANDS, L))
    T = np.empty((cs.BOXV.shape[1], L))
    assert (cs.U, cs.Y, cs.thr, cs.ycat) == lay.dims
    _hand_values(cs, flat, TT.Starts(Fs[:L], us[:L], ys[:L]), W, T, np.empty(L, dtype=np.int64))
    K1, K2 = TS.empty_keep_values(len(states))
    start = np.empty(len(states))
    TS.turn_values(cs, flat, TT.Starts(Fs, us, ys), TT.KeepValues(K1, K2), start)
    for i, (F, u, y) in enumerate(states):
        G = TS.successor_table(cs, flat, (F, u, y))
        one = SS.state_turn(cs, flat, (F, u, y))
        np.testing.assert_array_equal(one.G, G)  # what action values use
        assert abs(one.start - sol.values[F, u, y]) < 1e-9
        assert start[i] == one.start
        np.testing.assert_array_equal(K1[i // L, :, i % L], one.keep1[:, 0])
        np.testing.assert_array_equal(K2[i // L, :, i % L], one.keep2[:, 0])
        if i < L:
            np.testing.assert_array_equal(W[:, i], G.max(axis=1))


@numba.njit
def _hand_values(cs, E, lanes, W, T, bits):  # noqa: ANN001, ANN202 - kernel-only functions, called by a kernel
    TS.hand_values(cs, E, lanes, W, T, bits)


@numba.njit
def _keep_tree(K1, K2, M, start):  # noqa: ANN001, ANN202
    TS.keep_tree(K1, K2, M, start)


@numba.njit
def _compiled_rules(params, Sh, Jh, F, u, y, c):  # noqa: ANN001, ANN202 - the compiled rules, called by a kernel
    return CK.legal_bits(params, 0, F), CK.points_for(params, Sh, Jh, 0, F, u, y, c)


def test_points_of_plain_hands_do_not_depend_on_the_card() -> None:
    """The shortcut of the search: for hands that are not five of a kind, points_for depends only on the upper
    total."""
    rng = np.random.default_rng(3)
    for rs in R.RULESETS.values():
        params, S, J = TT.search_constants(rs).scoring
        U = core.Layout.of(rs).U
        PT = TT.hand_points(rs.scoring, U)
        for _ in range(40):
            F = int(rng.integers(0, 1 << rs.num_categories))
            u = int(rng.integers(0, U))
            y = bool(rng.integers(0, 2))
            assert R.legal_bits(params, 0, F) == rs.all_bits & ~F
            for h in rng.choice(np.flatnonzero(FIVE_KIND_FACE == 0), 12):
                for c in range(rs.num_categories):
                    assert R.points_for(params, S[h], J[h], 0, F, u, y, c) == PT[u, c, h]
                    assert _compiled_rules(params, S[h], J[h], F, u, y, c) == (rs.all_bits & ~F, PT[u, c, h])


def test_the_compiled_rules_refuse_a_call_from_python() -> None:
    """They have no Python entry point (less to compile on first use): a call from Python says so, never crashes."""
    with pytest.raises(TypeError, match="compiled for numba kernels only.*yacht_env.rules.scoring.legal_bits"):
        CK.legal_bits(R.RULESETS["yacht"].scoring.params, 0, 0)


# ---- the keep tree ----------------------------------------------------------------------------------------------


def test_keep_tree_against_dense_matrices() -> None:
    rng = np.random.default_rng(11)
    G = rng.normal(size=(D.NUM_HANDS, 5)) * 10
    G[rng.random(G.shape) < 0.3] = -np.inf
    G[:, 0] = rng.normal(size=D.NUM_HANDS)  # every hand keeps one legal category
    V0 = G.max(axis=1)
    K1, K2, M = (np.empty((D.NUM_KEEPS, 1)) for _ in range(3))
    K1[TS.HAND0:, 0] = V0
    start = np.empty(1)
    _keep_tree(K1, K2, M, start)
    T = D.TRANSITION
    keep_all = D.HAND_TO_KEEP
    k0 = T @ V0
    np.testing.assert_allclose(K1[:, 0], k0, atol=1e-12)
    np.testing.assert_allclose(K1[keep_all, 0], V0)
    V1 = K2[TS.HAND0:, 0]
    np.testing.assert_allclose(V1, k0[D.PATTERN_KEEP].max(axis=1), atol=1e-12)
    k1 = T @ V1
    np.testing.assert_allclose(K2[:, 0], k1, atol=1e-12)
    V2 = M[TS.HAND0:, 0]
    np.testing.assert_allclose(V2, k1[D.PATTERN_KEEP].max(axis=1), atol=1e-12)
    e = start[0]
    assert abs(e - D.HAND_PROBABILITY @ V2) < 1e-12
    assert abs(e - dense_turn_value(V0)) < 1e-12
    # lanes side by side give each lane's own values; one array for all three (the solver's way) the same start
    lanes = np.stack([V0, V0 + 1.0, np.where(np.isfinite(V0), V0 * 2, V0)], axis=1)
    K = np.empty((D.NUM_KEEPS, 3))
    K[TS.HAND0:] = lanes
    out = np.empty(3)
    _keep_tree(K, K, K, out)
    K1b = np.empty((D.NUM_KEEPS, 1))
    K1b[TS.HAND0:, 0] = lanes[:, 2]
    _keep_tree(K1b, np.empty((D.NUM_KEEPS, 1)), np.empty((D.NUM_KEEPS, 1)), start)
    np.testing.assert_allclose(out, [e, e + 1.0, start[0]], atol=1e-12)


def test_the_keep_means_sum_the_faces_in_order() -> None:
    """The keep tree's means over one more die sum the six faces' values in face order, then divide by 6: the same
    numbers, bit for bit, as numpy summing row after row (every table of the solvers depends on these sums)."""
    rng = np.random.default_rng(5)
    K = rng.random((D.NUM_KEEPS, 37)) * 50
    K[rng.random(K.shape) < 0.05] = -np.inf
    want = K.copy()
    for k in range(TS.HAND0 - 1, -1, -1):
        acc = np.zeros(K.shape[1])
        for f in range(6):
            acc = acc + want[TT.KEEP_ADD[k, f]]
        want[k] = acc / 6
    TS._expect_keeps(K)
    np.testing.assert_array_equal(K, want)


# ---- simulated optimal play -------------------------------------------------------------------------------------


def play_optimal(sol: core.Solution, seed: int) -> int:
    rng = np.random.default_rng(seed)
    st = new_game(sol.rules, rng)
    total = 0
    while not st.is_over:
        a = sol.best_action(st)
        if a < NUM_KEEP_ACTIONS:
            st = reroll_pattern(st, a, rng)
        else:
            st, pts = score_category(st, a - NUM_KEEP_ACTIONS, rng)
            total += pts
    assert total == st.total
    return st.total


def _check_mean(sol: core.Solution, games: int, seed: int) -> None:
    scores = np.array([play_optimal(sol, seed + i) for i in range(games)], dtype=float)
    half = 3.2905 * scores.std(ddof=1) / math.sqrt(games)  # two-sided 99.9 %
    assert abs(scores.mean() - sol.start_value) < half, (scores.mean(), sol.start_value, half)


def test_simulated_yacht_mean_matches_start_value(yacht: core.Solution) -> None:
    _check_mean(yacht, 400, seed=1000)


def test_simulated_knizia_mean_matches_start_value(knizia: core.Solution) -> None:
    _check_mean(knizia, 400, seed=3000)


def test_knizia_value(knizia: core.Solution) -> None:
    """Knizia's Yacht: 169.7987055 (ours; no published value), above Yacht's 166.955 since its Four of a Kind and
    Full House pay more."""
    assert abs(knizia.start_value - 169.7987055) < 1e-6


@pytest.mark.slow
def test_simulated_yahtzee_mean_matches_start_value(yahtzee: core.Solution) -> None:
    _check_mean(yahtzee, 200, seed=5000)


@pytest.mark.slow
def test_simulated_yatzy_mean_matches_start_value(yatzy: core.Solution) -> None:
    _check_mean(yatzy, 200, seed=7000)


def test_environment_games_with_best_action(yacht: core.Solution) -> None:
    from yacht_env.env import YachtEnv

    env = YachtEnv("yacht")
    for seed in range(5):
        env.reset(seed=seed)
        done, ret, info = False, 0.0, {}
        while not done:
            _, r, done, _, info = env.step(yacht.best_action(env.state))
            ret += r
        assert ret == info["final_score"]


# ---- action values ----------------------------------------------------------------------------------------------


def _state(rules: str, dice: tuple[int, ...], rolls: int, scores: dict[str, int] | None = None) -> GameState:
    rs = R.get_rules(rules)
    sc = tuple((scores or {}).get(c) for c in rs.category_ids)
    return GameState(rs.name, dice, rolls, sc)


@pytest.mark.parametrize("which", ["yacht", "yahtzee"])
def test_first_roll_expectation_is_start_value(request: pytest.FixtureRequest, which: str) -> None:
    sol: core.Solution = request.getfixturevalue(which)
    name = sol.rules.name
    best = np.array([np.nanmax(sol.action_values(_state(name, h, 2))) for h in HANDS])
    assert abs(D.HAND_PROBABILITY @ best - sol.start_value) < 1e-9


def test_keep_values_are_expectations_over_the_roll(yacht: core.Solution) -> None:
    scores = {"ones": 3, "choice": 21, "yacht": 50}
    for dice, pattern in [((2, 3, 3, 5, 6), 0b00110), ((1, 1, 1, 4, 6), 0b00111), ((2, 3, 4, 5, 5), 0b01111)]:
        st = _state("yacht", dice, 2, scores)
        kept = D.pattern_faces(st.dice, pattern)
        k = D.keep_index(kept)
        after = np.array([np.nanmax(yacht.action_values(_state("yacht", h, 1, scores))) for h in HANDS])
        assert abs(yacht.action_values(st)[pattern] - D.TRANSITION[k] @ after) < 1e-9


def test_action_values_shape_mask_and_final_score(yacht: core.Solution) -> None:
    rng = np.random.default_rng(2)
    st = new_game("yacht", rng)
    for unique in (True, False):
        v = yacht.action_values(st, unique_keeps=unique)
        mask = action_mask(st, unique_keeps=unique)
        assert v.shape == (32 + 12,)
        assert np.array_equal(np.isfinite(v), mask)
    # duplicate patterns of one multiset share the value; best action is the same either way
    v_all = yacht.action_values(st, unique_keeps=False)
    for p in range(31):
        assert v_all[p] == v_all[int(np.flatnonzero(D.PATTERN_KEEP[st.hand] == D.PATTERN_KEEP[st.hand, p])[0])]
    assert yacht.best_action(st) == yacht.best_action(st, unique_keeps=False)
    # at the start of a game the best action's value is the hand's value; scoring adds the points to the total
    last = parse("yacht | dice 6 6 6 6 6 | rolls 0 | filled " + ",".join(  # each box at its least score
        c for c in R.YACHT.category_ids if c != "yacht"))
    v = yacht.action_values(last)
    assert np.flatnonzero(np.isfinite(v)).tolist() == [32 + 11]
    assert v[32 + 11] == last.total + 50 == 55  # Choice holds its least score, 5
    over, _ = score_category(last, "yacht", rng)
    assert np.isnan(yacht.action_values(over)).all()
    with pytest.raises(ValueError, match="over"):
        yacht.best_action(over)


@pytest.mark.parametrize("which", ["yacht", "yahtzee", "yahtzee_free", "yatzy", "knizia"])
def test_legal_actions_match_action_mask_in_random_games(request: pytest.FixtureRequest, which: str) -> None:
    sol: core.Solution = request.getfixturevalue(which)
    rng = np.random.default_rng(21)
    for _ in range(6):
        st = new_game(sol.rules, rng)
        while not st.is_over:
            for unique in (True, False):
                assert np.array_equal(np.isfinite(sol.action_values(st, unique)), action_mask(st, unique))
            assert action_mask(st)[sol.best_action(st)]
            a = int(rng.choice(np.flatnonzero(action_mask(st))))
            if a < NUM_KEEP_ACTIONS:
                st = reroll_pattern(st, a, rng)
            else:
                st, _ = score_category(st, a - NUM_KEEP_ACTIONS, rng)


def test_forced_joker_state(yahtzee: core.Solution, yahtzee_free: core.Solution) -> None:
    text = "dice 4 4 4 4 4 | rolls 0 | filled yahtzee=50,ones=3"
    st = parse("yahtzee | " + text)
    v = yahtzee.action_values(st)
    legal = np.flatnonzero(np.isfinite(v)).tolist()
    assert legal == [32 + 3]  # fours is open: the Joker forces it
    expected = 53 + 20 + 100 + yahtzee.value(["yahtzee", "ones", "fours"], 23, 50)
    assert abs(v[32 + 3] - expected) < 1e-9
    free = parse("yahtzee-free-joker | " + text)
    assert np.isfinite(yahtzee_free.action_values(free)[32:]).sum() == 11  # free choice among the open boxes


def test_best_action_tie_breaking() -> None:
    vals = np.array([1.0, 2.0, 2.0 + 5e-10, 2.0, 3.0 - 1.0])
    legal = np.array([True, True, True, True, True])
    assert TS.best_in_row(vals, legal, 1e-9) == 1
    legal[1] = False
    assert TS.best_in_row(vals, legal, 1e-9) == 2
    vals[3] = 2.1
    assert TS.best_in_row(vals, legal, 1e-9) == 3
    assert TS.best_in_row(vals, np.zeros(5, dtype=np.bool_), 1e-9) == -1


def test_best_action_is_lowest_index_of_the_best(yacht: core.Solution) -> None:
    rng = np.random.default_rng(9)
    for _ in range(40):
        st = new_game("yacht", rng)
        for _ in range(int(rng.integers(0, 2))):
            st = reroll_pattern(st, int(rng.integers(0, 31)), rng)
        v = yacht.action_values(st)
        best = np.nanmax(v)
        assert yacht.best_action(st) == int(np.flatnonzero(v >= best - 1e-9)[0])


def test_action_values_rejects_other_rules_and_impossible_cards(yacht: core.Solution,
                                                                  yahtzee: core.Solution) -> None:
    st = new_game("yahtzee", np.random.default_rng(0))
    with pytest.raises(ValueError, match="yacht"):
        yacht.action_values(st)
    with pytest.raises(ValueError, match="score of 'ones'"):  # seven in Ones: no such state can be built
        parse("yahtzee | dice 1 2 3 4 5 | rolls 2 | filled ones=7")


# ---- Solution.value -----------------------------------------------------------------------------------------------


def test_value_of_states(yacht: core.Solution, yahtzee: core.Solution) -> None:
    assert yacht.value([]) == yacht.start_value
    assert yacht.value(list(R.YACHT.category_ids)) == 0.0
    assert yacht.value(("ones", "yacht"), 3) == yacht.values[0b100000000001, 0, 0]
    filled = ["ones", "twos", "threes", "fours", "fives"]
    assert yahtzee.value(filled, 70) == yahtzee.value(filled, 63)  # capped as the bonus is already earned
    assert yahtzee.value(filled, 62) > yahtzee.value(filled, 63)  # at 62 the bonus is still to come
    assert yahtzee.value(["yahtzee"], 0, 50) > yahtzee.value(["yahtzee"], 0, 0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((["nope"],), "unknown category"),
        ((["ones", "ones"],), "twice"),
        (("ones",), "not the string"),
        ((["ones"], 6), "not possible"),
        ((["ones"], -1), "not possible"),
        ((["ones"], 1.5), "integer"),
        (([], 3), "not possible"),
        (([], 0, 50), "None"),
    ],
)
def test_value_rejects_bad_input_yacht(yacht: core.Solution, args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        yacht.value(*args)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((["yahtzee"], 0), "0 or 50"),
        ((["yahtzee"], 0, 25), "0 or 50"),
        ((["chance"], 0, 50), "open"),
        ((["ones", "twos"], 16), "not possible"),
    ],
)
def test_value_rejects_bad_input_yahtzee(yahtzee: core.Solution, args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        yahtzee.value(*args)


def test_solve_rejects_unknown_rules() -> None:
    with pytest.raises(ValueError, match="accepted: yacht"):
        solve("poker")


# ---- the disk cache -----------------------------------------------------------------------------------------------


@pytest.fixture
def cache_dir(tmp_path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(tmp_path))
    clear_memory_cache()
    yield tmp_path
    clear_memory_cache()


def _fresh(rules: str = "yacht") -> core.Solution:
    clear_memory_cache()
    return solve(rules)


def test_cache_roundtrip(cache_dir, yacht: core.Solution) -> None:
    first = _fresh()
    assert not first.from_cache
    path = solver_cache.cache_path(R.YACHT)
    assert path.parent == cache_dir and path.exists()
    assert "yacht" in path.name and f"v{solver_cache.SOLVER_VERSION}" in path.name
    assert solve("yacht") is first  # kept in memory
    again = _fresh()
    assert again.from_cache
    np.testing.assert_array_equal(again.values, yacht.values)
    assert not [p for p in cache_dir.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "garbage-header"])
def test_cache_damaged_file_is_rebuilt(cache_dir, yacht: core.Solution, damage: str) -> None:
    _fresh()
    path = solver_cache.cache_path(R.YACHT)
    data = bytearray(path.read_bytes())
    if damage == "flip":
        data[-100] ^= 0x01
    elif damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "empty":
        data = bytearray()
    else:
        data[len(solver_cache.MAGIC) + 8] = ord("#")
    path.write_bytes(bytes(data))
    assert solver_cache.load(R.YACHT, yacht.values.shape) is None
    rebuilt = _fresh()
    assert not rebuilt.from_cache
    np.testing.assert_array_equal(rebuilt.values, yacht.values)
    assert _fresh().from_cache  # the rebuilt file is good


def test_cache_stale_header_is_rebuilt(cache_dir, yacht: core.Solution) -> None:
    _fresh()
    path = solver_cache.cache_path(R.YACHT)
    data = path.read_bytes()
    n = int.from_bytes(data[len(solver_cache.MAGIC) : len(solver_cache.MAGIC) + 8], "little")
    start = len(solver_cache.MAGIC) + 8
    header = json.loads(data[start : start + n])
    for field, stale in [("solver_version", solver_cache.SOLVER_VERSION - 1), ("key", "0" * 64)]:
        bad = dict(header, **{field: stale})
        raw = json.dumps(bad).encode()
        path.write_bytes(solver_cache.MAGIC + len(raw).to_bytes(8, "little") + raw + data[start + n :])
        assert not _fresh().from_cache
    assert _fresh().from_cache


def test_cache_key_changes_with_rules_and_version(cache_dir, monkeypatch: pytest.MonkeyPatch) -> None:
    keys = {solver_cache.rules_key(r) for r in (R.YACHT, R.YAHTZEE, R.YAHTZEE_FREE_JOKER, YAHTZEE_NO_BONUS)}
    assert len(keys) == 4
    old = solver_cache.cache_path(R.YACHT)
    monkeypatch.setattr(solver_cache, "SOLVER_VERSION", solver_cache.SOLVER_VERSION + 1)
    assert solver_cache.cache_path(R.YACHT) != old


def test_no_cache_neither_reads_nor_writes(cache_dir, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("cache touched")

    monkeypatch.setattr(solver_cache, "load", boom)
    monkeypatch.setattr(solver_cache, "save", boom)
    sol = solve("yacht", cache=False)
    assert not sol.from_cache and list(cache_dir.iterdir()) == []


def test_no_cache_solves_the_objective_tables_without_the_disk(cache_dir, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """``yacht solve --no-cache`` means the same for the distribution and the reach table as for the expected score:
    each is computed again, and no cache file is read or written."""
    from yacht_cli import main

    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("cache touched")

    monkeypatch.setattr(solver_cache, "load", boom)
    monkeypatch.setattr(solver_cache, "save", boom)
    assert main(["solve", "--rules", "knizia", "--distribution", "--no-cache", "--json", "--no-progress"]) == 0
    dist = json.loads(capsys.readouterr().out)
    assert abs(dist["mean"] - 169.7987055) < 1e-7
    assert main(["solve", "--rules", "knizia", "--objective", "reach", "--target", "150", "--no-cache", "--json",
                 "--no-progress"]) == 0
    reach = json.loads(capsys.readouterr().out)
    assert round(reach["probability"], 5) == 0.76656 and round(reach["expected_score_player_probability"], 5) == 0.71357
    assert list(cache_dir.iterdir()) == []


def test_unwritable_cache_only_warns(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(blocker / "sub"))
    clear_memory_cache()
    with pytest.warns(RuntimeWarning, match="could not write"):
        sol = solve("yacht")
    clear_memory_cache()
    assert not sol.from_cache and sol.start_value > 0


def test_default_cache_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    import platformdirs

    monkeypatch.delenv("YACHT_ENV_CACHE_DIR", raising=False)
    assert str(solver_cache.cache_dir()) == platformdirs.user_cache_dir("yacht-env")


# ---- command line -------------------------------------------------------------------------------------------------


def test_cli_json_and_text(cache_dir, capsys: pytest.CaptureFixture[str], yacht: core.Solution) -> None:
    from yacht_cli import main

    assert main(["solve", "--rules", "yacht", "--json", "--no-cache"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rules"] == "yacht" and not out["cached"] and out["seconds"] >= 0
    assert abs(out["start_value"] - yacht.start_value) < 1e-12
    clear_memory_cache()
    assert main(["solve", "--rules", "yacht"]) == 0  # solves and writes the cache
    clear_memory_cache()
    assert main(["solve", "--rules", "yacht", "--json"]) == 0
    capsys.readouterr()
    clear_memory_cache()
    assert main(["solve", "--rules", "yacht"]) == 0
    text = capsys.readouterr().out
    assert "Yacht" in text and f"{yacht.start_value:.7f}" in text and "cache" in text


def test_cli_rejects_unknown_rules(capsys: pytest.CaptureFixture[str]) -> None:
    from yacht_cli import main

    assert main(["solve", "--rules", "poker"]) == 2
    err = capsys.readouterr().err
    assert "poker" in err and "yahtzee-free-joker" in err and "yatzy" in err and err.count("\n") == 1


@pytest.mark.parametrize("value,match", [
    ("", r"is blank: set it to an absolute folder"),
    ("  ", r"is blank"),
    ("~nosuchuser-yacht/cache", r"'~nosuchuser-yacht' names no home folder here"),
    ("relative/cache", r"is a relative path"),
])
def test_a_cache_dir_setting_that_names_no_folder_is_one_line(value: str, match: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from yacht_solver.table_cache import cache_dir

    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", value)
    with pytest.raises(ValueError, match=r"^YACHT_ENV_CACHE_DIR=.*" + match):
        cache_dir()


def test_a_cache_dir_that_is_a_file_is_refused_from_the_command_line(tmp_path, monkeypatch, capsys) -> None:
    from yacht_cli import main

    (tmp_path / "file").write_text("x")
    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(tmp_path / "file"))
    assert main(["solve", "--rules", "knizia"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a file, not a folder" in err
