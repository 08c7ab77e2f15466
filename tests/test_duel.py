"""The two-player solver (:mod:`yacht_solver.duel`) against a plain two-player solver written here from the
rules (the tests' own dice model and box scores), on small registered rule sets, and the end games of Yacht and
Knizia's Yacht with one box left each; and :func:`yacht_env.rules.register_rules`."""

from __future__ import annotations

import itertools
import time
from functools import cache

import numpy as np
import pytest
from conftest import UPPER6, registered
from test_solver import DENSE, HANDS, _dense_model

from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.rules import RULESETS, YACHT, Category, RuleSet, get_rules, register_rules
from yacht_env.state import GameState
from yacht_solver import duel as DU
from yacht_solver import duel_kernels as DUELK
from yacht_solver import table_cache as TC

UPPER_YACHT = RuleSet("test-upper-yacht", "Upper boxes and Yacht", YACHT.categories[:6] + YACHT.categories[11:])
SMALL = [UPPER6, pytest.param(UPPER_YACHT, marks=pytest.mark.slow)]
FIRST_TURN = {UPPER6.name: 0, UPPER_YACHT.name: 8}
"""The first turn (0: the game's first) from which each game is compared: the six upper boxes whole; with Yacht,
the last six turns (the middle turns make most of the plain solver's time)."""


# ---- the plain two-player solver --------------------------------------------------------------------------------


def _turn(v0: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A turn whose hands with no roll left are worth ``v0`` (252, lanes): the hand values with 0, 1 and 2 rolls
    left and the turn-start values, over every keep of the tests' dice model."""
    P, patterns = _dense_model()
    v = [v0]
    for _ in range(2):
        K = P @ v[-1]
        best = v[-1].copy()
        for p in range(31):  # every keep but all five (that is the hand itself)
            np.maximum(best, K[patterns[:, p]], out=best)
        v.append(best)
    return v[0], v[1], v[2], P[patterns[0, 0]] @ v[2]


class PlainDuel:
    """``W[(A, B)]``: the mover's chance to win (ties half) at the start of its turn with filled sets ``A`` (mover)
    and ``B``, at the score differences ``d = -most(A) .. most(B)`` (``most``: the sum of the open boxes' highest
    scores; beyond, the game is decided), by backward induction over every pair with dense numpy turns. Rules
    without bonuses: box scores from ``score(category, hand)``."""

    def __init__(self, cats: list[str], score, first_turn: int = 0) -> None:
        self.n = len(cats)
        self.S = np.array([[score(c, h) for c in cats] for h in HANDS], dtype=np.int64)
        top = self.S.max(axis=0)
        full = (1 << self.n) - 1
        self.most = [int(sum(top[c] for c in range(self.n) if not F >> c & 1)) for F in range(full + 1)]
        self.W = {(full, full): np.array([0.5])}
        sets = [[F for F in range(full + 1) if bin(F).count("1") == k] for k in range(self.n + 1)]
        for t in range(2 * self.n - 1, first_turn - 1, -1):  # the turns from ``first_turn`` on
            pairs = [(A, B) for A in sets[t // 2] for B in sets[t - t // 2]]
            while pairs:  # batches of pairs side by side: one matrix product per roll for all of them
                batch, lanes = [], 0
                while pairs and lanes < 20_000:
                    batch.append(pairs.pop())
                    lanes += len(self.d(*batch[-1]))
                start = _turn(np.concatenate([self.ends(A, B).max(axis=1) for A, B in batch], axis=1))[3]
                cuts = np.cumsum([len(self.d(A, B)) for A, B in batch])[:-1]
                self.W.update(zip(batch, np.split(start, cuts)))

    def d(self, A: int, B: int) -> np.ndarray:
        return np.arange(-self.most[A], self.most[B] + 1)

    def at(self, A: int, B: int, e: np.ndarray) -> np.ndarray:
        """``W(A, B, e)`` for an array of differences (1 above the row, 0 below)."""
        lo, hi = -self.most[A], self.most[B]
        row = self.W[(A, B)]
        return np.where(e > hi, 1.0, np.where(e < lo, 0.0, row[np.clip(e - lo, 0, len(row) - 1)]))

    def ends(self, A: int, B: int) -> np.ndarray:
        """(252, C, lanes) the mover's chance after scoring each hand in each box (-inf where filled)."""
        d = self.d(A, B)
        out = np.full((len(HANDS), self.n, len(d)), -np.inf)
        for c in range(self.n):
            if not A >> c & 1:
                out[:, c] = 1.0 - self.at(B, A | 1 << c, -(d[None, :] + self.S[:, c:c + 1]))
        return out

    def levels(self, A: int, B: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The hand values with 0, 1 and 2 rolls left (252, lanes) and the turn-start values."""
        return _turn(self.ends(A, B).max(axis=1))

    def actions(self, A: int, B: int, d: int, h: int, rolls: int) -> np.ndarray:
        """(32 + C,) every action's chance (NaN where illegal: no keep without rolls, no keep of all five)."""
        P, patterns = _dense_model()
        out = np.full(NUM_KEEP_ACTIONS + self.n, np.nan)
        lo, hi = -self.most[A], self.most[B]
        if not lo <= d <= hi:  # decided: every action gives the same
            e = self.ends(A, B)[h, :, 0]
            out[NUM_KEEP_ACTIONS:] = np.where(e > -np.inf, float(d > hi), np.nan)
            if rolls:
                out[:31] = float(d > hi)
            return out
        i = d - lo
        e = self.ends(A, B)[h, :, i]
        out[NUM_KEEP_ACTIONS:] = np.where(e > -np.inf, e, np.nan)
        if rolls:
            below = self.levels(A, B)[rolls - 1]
            out[:31] = (P @ below)[patterns[h, :31], i]
        return out


@cache
def _duel(name: str) -> DU.DuelSolution:
    """One in-memory duel solution per rule set and test process (each test used to solve it again)."""
    return DU.solve_duel(name, cache=False)


def _solved(rs: RuleSet) -> tuple[DU.DuelSolution, PlainDuel]:
    rs = registered(rs)
    return _duel(rs.name), PlainDuel(list(rs.category_ids), DENSE["yacht"], FIRST_TURN[rs.name])


def _state(rs: RuleSet, F: int, rng: np.random.Generator, dice: tuple[int, ...] = (1, 1, 1, 1, 1), rolls: int = 0
           ) -> GameState:
    """A scorecard with the boxes of ``F`` filled with scores drawn from what each box can hold."""
    scores = tuple(int(rng.choice(sorted(rs.box_values[c]))) if F >> c & 1 else None
                   for c in range(rs.num_categories))
    return GameState(rs.name, dice, rolls, scores)


@pytest.mark.parametrize("rs", SMALL, ids=lambda r: r.name)
def test_the_duel_solver_equals_the_plain_solver(rs: RuleSet) -> None:
    """Every turn-start value and 60 sampled decisions (one test per game: the plain solve is its cost)."""
    sol, plain = _solved(rs)
    _every_turn_start_value_equals_the_plain_solver(rs, sol, plain)
    _sampled_decisions_equal_the_plain_solver(rs, sol, plain)


def _every_turn_start_value_equals_the_plain_solver(rs: RuleSet, sol: DU.DuelSolution, plain: PlainDuel) -> None:
    """Every pair of scorecards and every difference that matters: the duel table equals the plain solver."""
    ix = sol.plan.index
    worst = 0.0
    first = FIRST_TURN[rs.name]
    for t in range(first, 2 * rs.num_categories):
        a, b = t // 2, t - t // 2
        A_states = ix.states[ix.start[a]:ix.start[a + 1]]
        B_states = ix.states[ix.start[b]:ix.start[b + 1]]
        for i, sa in enumerate(A_states):
            for j, sb in enumerate(B_states):
                p = i * len(B_states) + j
                row = sol.row(t, p)
                assert int(ix.most[sa]) == plain.most[int(sa)] and len(row) == len(plain.W[(int(sa), int(sb))])
                ref = plain.W[(int(sa), int(sb))]
                worst = max(worst, float(np.abs(row - ref).max()))
    assert worst < 2e-6
    if first > 0:
        return
    assert abs(sol.first_player_win - plain.at(0, 0, np.array([0]))[0]) < 2e-6
    assert 0.4 < sol.first_player_win < 0.6
    if rs is UPPER6:
        assert round(sol.first_player_win, 7) == 0.4982007  # docs/objectives.md


def _sampled_decisions_equal_the_plain_solver(rs: RuleSet, sol: DU.DuelSolution, plain: PlainDuel) -> None:
    """At 60 random decisions (scorecards, scores, dice, rolls left), every action's chance and the best action's
    equal the plain solver's; the chosen action is a best one."""
    rs = registered(rs)
    rng = np.random.default_rng(7)
    n = rs.num_categories
    for _ in range(60):
        k = int(rng.integers((FIRST_TURN[rs.name] + 1) // 2, n))  # a turn the plain solver solved
        j = k + int(rng.integers(0, 2))
        A = int(rng.choice([F for F in range(1 << n) if bin(F).count("1") == k]))
        B = int(rng.choice([F for F in range(1 << n) if bin(F).count("1") == j]))
        h = int(rng.integers(0, len(HANDS)))
        rolls = int(rng.integers(0, 3))
        mover = _state(rs, A, rng, HANDS[h], rolls)
        other = _state(rs, B, rng)
        d = mover.total - other.total
        got = sol.action_win_probabilities(mover, other)
        want = plain.actions(A, B, d, h, rolls)
        legal = ~np.isnan(got)
        assert np.all(np.isnan(want[~legal]) | (np.arange(len(want))[~legal] < NUM_KEEP_ACTIONS))
        np.testing.assert_allclose(got[legal], want[legal], atol=2e-6)
        assert abs(sol.win_probability(mover, other) - np.nanmax(want)) < 2e-6
        assert got[sol.best_action(mover, other)] >= np.nanmax(got) - 1e-9
        ref = plain.at(A, B, np.array([d]))[0]
        assert abs(sol.turn_start_win(mover, other) - ref) < 2e-6


def _direct_last_turn(score_h: np.ndarray, lead: np.ndarray) -> np.ndarray:
    """The second player's chance with one box left (scores ``score_h`` per hand) at each lead: its best turn for
    ``1[lead + s > 0] + 1/2 1[lead + s = 0]``."""
    P, patterns = _dense_model()
    s = score_h[:, None] + lead[None, :]
    v = np.where(s > 0, 1.0, np.where(s == 0, 0.5, 0.0))
    for _ in range(2):
        v = np.maximum(v, (P @ v)[patterns].max(axis=1))
    return P[patterns[0, 0]] @ v


@pytest.mark.parametrize("which", ["yacht", "knizia"])
def test_end_game_with_one_box_left_each_equals_a_direct_computation(which: str) -> None:
    """The last two layers of Yacht and Knizia's Yacht, swept alone: the second player's last turn against the
    chance of each lead computed directly, and the first player's last turn, every box against every box."""
    rs = get_rules(which)
    n = rs.num_categories
    layers: dict[int, DUELK.DuelLayer] = {}
    DU.sweep(rs, lambda t, a: layers.__setitem__(t, a), stop=2 * n - 2)
    plan = DU.duel_plan(rs)
    ix = plan.index
    full = (1 << n) - 1
    S = np.array([[DENSE[which](c, h) for c in rs.category_ids] for h in HANDS], dtype=np.int64)
    last: dict[int, tuple[int, np.ndarray]] = {}  # box -> (most, chance at leads -most .. 0)
    off = plan.offsets(2 * n - 1)
    for c in range(n):
        sa = full & ~(1 << c)
        p = int(ix.rank[sa])  # one opponent state: the full card
        m = int(ix.most[sa])
        row = DU.expand(layers[2 * n - 1], p, int(off[p + 1] - off[p]), -int(ix.most[sa]))
        lead = np.arange(-m, 1)
        want = _direct_last_turn(S[:, c], lead)
        np.testing.assert_allclose(row, want, atol=1e-6)
        assert m == S[:, c].max()
        last[c] = (m, want)
    P, patterns = _dense_model()
    off = plan.offsets(2 * n - 2)
    nb = int(ix.start[n] - ix.start[n - 1])
    for ca, cb in itertools.product(range(n), repeat=2):
        sa, sb = full & ~(1 << ca), full & ~(1 << cb)
        ma, mb = int(ix.most[sa]), int(ix.most[sb])
        p = int(ix.rank[sa]) * nb + int(ix.rank[sb])
        row = DU.expand(layers[2 * n - 2], p, int(off[p + 1] - off[p]), -ma)
        d = np.arange(-ma, mb + 1)
        lead = -(d[None, :] + S[:, ca:ca + 1])  # the second player's lead after the first's last box
        m2, w2 = last[cb]
        second = np.where(lead > 0, 1.0, np.where(lead < -m2, 0.0, w2[np.clip(lead + m2, 0, m2)]))
        v = 1.0 - second
        for _ in range(2):
            v = np.maximum(v, (P @ v)[patterns].max(axis=1))
        np.testing.assert_allclose(row, P[patterns[0, 0]] @ v, atol=1e-6)


def _dense_sweep(rs: RuleSet) -> dict[int, np.ndarray]:
    """The table as the dense layout held it (every value of every row, float32), swept with the same kernels:
    each layer read from the next in that layout, its rows expanded here from the kernel's output."""
    from yacht_solver.search.turn_constants import search_constants

    plan, cs = DU.duel_plan(rs), search_constants(rs)
    last = 2 * rs.num_categories
    dense = {last: np.full(plan.cells[last], 0.5, dtype=np.float32)}
    for t in range(last - 1, -1, -1):
        nxt = DUELK.DuelLayer(dense[t + 1], plan.offsets(t + 1), plan.lowest(t + 1), (t + 1) // 2, t + 1 - (t + 1) // 2)
        full, n = plan.offsets(t), plan.pairs[t]
        out = DUELK.Stripped(np.empty(full[-1], np.float32), np.empty(n, np.int32), np.empty(n, np.int32))
        DUELK.duel_rows(cs, plan.index, nxt, (t // 2, t - t // 2), np.arange(n, dtype=np.int64), out)
        rows, pos = np.ones(full[-1], dtype=np.float32), 0
        for p in range(n):
            z, k = int(out.zeros[p]), int(out.kept[p])
            rows[full[p]:full[p] + z] = 0.0
            rows[full[p] + z:full[p] + z + k] = out.data[pos:pos + k]
            pos += k
        dense[t] = rows
    return dense


def test_the_kept_table_reads_back_the_dense_table_bit_for_bit() -> None:
    """Every value of the six-box game's table, read from the kept rows (leading 0.0 and trailing 1.0 left out),
    equals the dense layout's float32 value bit for bit, each layer of both swept from its own next layer; the kept
    rows are as short as they can be (none starts with 0.0 or ends with 1.0), and they are shorter."""
    rs = registered(UPPER6)
    sol, plan = _duel(rs.name), DU.duel_plan(rs)
    dense = _dense_sweep(rs)
    for t in range(2 * rs.num_categories + 1):
        full, lay = plan.offsets(t), sol.layer(t)
        for p in range(plan.pairs[t]):
            assert (sol.row(t, p).view(np.uint32) == dense[t][full[p]:full[p + 1]].view(np.uint32)).all(), (t, p)
            kept = lay.data[lay.off[p]:lay.off[p + 1]]
            assert len(kept) == 0 or (kept[0] != 0.0 and kept[-1] != 1.0)
    assert sol.first_player_win == float(dense[0][int(plan.index.most[plan.index.states[0]])])
    assert sol.table_bytes < 0.9 * plan.most_bytes
    assert sol.table_bytes == sum(len(sol.layer(t).data) for t in range(13)) * 4 + sum(plan.pairs) * 4


def test_the_decisions_of_a_turn_share_one_search_and_give_what_a_fresh_search_gives() -> None:
    """The keep values of a turn are searched once and kept for its other decisions (the tournament asks each
    decision twice: the player's choice and its win-regret): every action's chance equals a fresh search's."""
    rs = registered(UPPER6)
    sol = _duel(rs.name)
    rng = np.random.default_rng(11)
    for _ in range(20):
        mover, other = _state(rs, 0b000101, rng), _state(rs, 0b010101, rng)
        for h, rolls in ((0, 2), (17, 1), (251, 0), (100, 2)):
            st = GameState(rs.name, HANDS[h], rolls, mover.scores)
            got = sol.action_win_probabilities(st, other)
            sol._turns.clear()
            sol._decisions.clear()
            want = sol.action_win_probabilities(st, other)
            assert np.array_equal(got, want, equal_nan=True)
    assert 0 < len(sol._turns) <= DU._TURNS_KEPT


@pytest.mark.parametrize("where", ["in memory", "mapped from the cache"])
def test_the_kernels_called_without_the_dispatcher_decide_as_the_dispatcher_does(where: str, tmp_path,  # noqa: ANN001
                                                                                  monkeypatch) -> None:  # noqa: ANN001
    """A solution calls its two kernels compiled for its own argument types, past numba's dispatcher: at 300
    decisions of random scorecards, the choice, every action's chance and each legal action's win-regret equal what
    the kernels give through the dispatcher (which types every call), for a table in memory and one mapped from the
    disk cache (read-only values: another type)."""
    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(tmp_path))
    rs = registered(UPPER6)
    sol = _duel(rs.name)
    if where != "in memory":
        DU.save_table(rs, lambda emit: [emit(t, sol.layer(t)) for t in range(12, -1, -1)])
        sol = DU.DuelSolution(rs, DU._load(rs, DU.duel_key(rs), DU.duel_plan(rs)))
    direct = sol._kernels()
    assert direct[0] is not DUELK.duel_turn and direct[1] is not DUELK.duel_decide
    rng = np.random.default_rng(17)
    for _ in range(300):
        k = int(rng.integers(0, 6))
        boxes = rng.permutation(6)
        a_bits = sum(1 << int(c) for c in boxes[:k])
        b_bits = sum(1 << int(c) for c in rng.permutation(6)[:k + int(rng.integers(0, 2)) if k < 6 else k])
        mover = _state(rs, a_bits, rng, tuple(sorted(rng.integers(1, 7, 5).tolist())), int(rng.integers(0, 3)))
        other = _state(rs, b_bits, rng)
        got = []
        for kernels in (direct, (DUELK.duel_turn, DUELK.duel_decide)):
            sol._compiled, sol._turns, sol._decisions = kernels, {}, {}
            q = sol.action_win_probabilities(mover, other)
            legal = np.flatnonzero(np.isfinite(q))
            got.append((sol.best_action(mover, other), q, [sol.win_regret(mover, other, int(a)) for a in legal]))
            assert got[-1][2] == [max(0.0, float(np.nanmax(q) - q[a])) for a in legal]
        assert got[0][0] == got[1][0] and np.array_equal(got[0][1], got[1][1], equal_nan=True)
        assert got[0][2] == got[1][2] and len(got[0][2]) > 0


def test_layers_of_two_types_are_read_through_the_dispatcher() -> None:
    """Where a solution's layers are not all of one numba type (one writable here), its kernels are called through
    numba's dispatcher, which types each call; the answers are those of the solution of one type."""
    rs = registered(UPPER6)
    sol = _duel(rs.name)
    layers = [sol.layer(t) for t in range(13)]
    layers[5] = DUELK.DuelLayer(layers[5].data.copy(), *layers[5][1:])
    mixed = DU.DuelSolution(rs, layers)
    assert mixed._kernels() == (DUELK.duel_turn, DUELK.duel_decide)
    rng = np.random.default_rng(8)
    mover, other = _state(rs, 0b000011, rng, (1, 3, 3, 3, 6), 2), _state(rs, 0b100100, rng)  # layer 4 reads 5
    sol._decisions.clear()
    assert np.array_equal(mixed.action_win_probabilities(mover, other), sol.action_win_probabilities(mover, other),
                          equal_nan=True)


def test_a_decision_asked_again_is_answered_from_memory_as_computed() -> None:
    """The tournament asks each of optimal-duel's decisions twice (its choice, then its win-regret): the second time
    the kept answer is given, equal to a fresh one and not writable; equal states (not only the same objects) find
    it."""
    rs = registered(UPPER6)
    sol = _duel(rs.name)
    rng = np.random.default_rng(4)
    mover, other = _state(rs, 0b000011, rng, (2, 2, 3, 5, 6), 1), _state(rs, 0b100011, rng)
    sol._decisions.clear()
    first = sol._decide(mover, other)
    again = sol._decide(GameState.from_dict(mover.to_dict()), GameState.from_dict(other.to_dict()))
    assert again is first and len(sol._decisions) == 1 and not first[1].flags.writeable
    sol._decisions.clear()
    sol._turns.clear()
    fresh = sol._decide(mover, other)
    assert fresh is not first and fresh[0] == first[0] and np.array_equal(fresh[1], first[1])
    assert sol.win_regret(mover, other, fresh[0]) == 0.0


def test_a_table_whose_index_or_values_do_not_fit_is_refused(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """A file whose checksum holds but whose index words point past a row, or past the words, or whose values are
    not probabilities, or which ends early, is not used (no kernel reads it): the table is solved again."""
    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(tmp_path))
    rs = registered(UPPER6)
    sol, plan = _duel(rs.name), DU.duel_plan(rs)
    path = DU.save_table(rs, lambda emit: [emit(t, sol.layer(t)) for t in range(12, -1, -1)])
    key = DU.duel_key(rs)
    words = TC.load(rs, TC.stored_shape(rs, key), key=key, dtype="<u4", mapped=True)
    assert words is not None and len(words) < plan.most_words
    assert DU.layers_of_words(plan, words) is not None
    n_last = plan.pairs[12] + len(sol.layer(12).data)  # the finished game's layer comes first
    for bad in (words[:-1], np.concatenate([words, words[:1]])):
        assert DU.layers_of_words(plan, bad) is None
    for value in (0xFFFF0000, 0x0000FFFF):  # a row's kept values or leading zeros past its length
        w = words.copy()
        w[n_last] = value
        assert DU.layers_of_words(plan, w) is None
    w = words.copy()
    w[n_last + plan.pairs[11]] = np.float32(1.5).view(np.uint32)  # a kept value that is no probability
    assert DU.layers_of_words(plan, w) is None
    raw = path.read_bytes()
    path.write_bytes(raw[:-4])  # truncated: the header's size and checksum no longer hold
    DU._MEMO.clear()
    redone = DU.solve_duel(rs)
    assert not redone.from_cache and redone.first_player_win == sol.first_player_win
    assert path.read_bytes() == raw  # solved again into the same bytes


def test_a_table_written_at_most_its_bound_declares_what_was_written(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(tmp_path))
    rs = registered(UPPER6)
    TC.save_in_pieces(rs, "k" * 64, (1000,), "<u4", lambda write: write(np.arange(7, dtype=np.uint32)), at_most=True)
    assert TC.stored_shape(rs, "k" * 64) == (7,)
    assert TC.load(rs, (7,), key="k" * 64, dtype="<u4", mapped=True).tolist() == list(range(7))
    assert TC.load(rs, (8,), key="k" * 64, dtype="<u4", mapped=True) is None
    with pytest.raises(ValueError, match="holds 20 bytes; 28 were written"):
        TC.save_in_pieces(rs, "j" * 64, (5,), "<u4", lambda write: write(np.arange(7, dtype=np.uint32)), at_most=True)
    assert TC.stored_shape(rs, "j" * 64) is None


def _mapped(a: np.ndarray) -> bool:
    """Whether the array's memory is a mapped file."""
    import mmap

    while a is not None:
        if isinstance(a, (np.memmap, mmap.mmap)):
            return True
        a = a.obj if isinstance(a, memoryview) else getattr(a, "base", None)
    return False


@pytest.mark.slow
def test_the_duel_table_is_cached_memory_mapped_and_a_bad_file_is_solved_again(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(tmp_path))
    rs = registered(UPPER6)
    first = DU.solve_duel(rs)
    assert not first.from_cache and first.path is not None and first.path.exists()
    assert DU.solve_duel(rs) is first  # one mapping per process
    DU._MEMO.clear()
    again = DU.solve_duel(rs)
    assert again.from_cache and _mapped(again.layer(0).data)
    assert again.first_player_win == first.first_player_win == _solved(UPPER6)[0].first_player_win
    raw = bytearray(first.path.read_bytes())
    raw[-40] ^= 0xFF  # a byte of the last layer
    first.path.write_bytes(bytes(raw))
    DU._MEMO.clear()
    redone = DU.solve_duel(rs)
    assert not redone.from_cache and redone.first_player_win == first.first_player_win


@pytest.mark.parametrize("which", ["yahtzee", pytest.param("yatzy", marks=pytest.mark.slow)])
def test_yahtzee_and_yatzy_are_refused_saying_what_they_would_need(which: str) -> None:
    """Refused from the layer sizes alone, before the plan's count of the most points to come (seconds) and before
    any table is allocated; with the limit raised past that bound, the exact count says what memory and disk the
    sweep would take."""
    with pytest.raises(ValueError, match=r"needs [\d,.]+ GB of memory \(at least: .*YACHT_ENV_TABLE_GB"):
        DU.solve_duel(which)
    plan = DU.duel_plan(get_rules(which))
    with pytest.raises(ValueError, match=r"needs [\d,.]+ GB of memory .* GB on disk.*YACHT_ENV_TABLE_GB"):
        DU.check_duel_memory(plan)


def test_yacht_and_knizia_fit_the_default_memory_limit() -> None:
    for which in ("yacht", "knizia"):
        plan = DU.duel_plan(get_rules(which))
        DU.check_duel_memory(plan)
        assert sum(plan.pairs) == 5_200_300  # 5,200,299 pairs of filled sets with the game over added
        assert plan.sweep_bytes < 2.2e9 and plan.most_bytes < 6.5e9


def test_a_decision_with_the_wrong_number_of_boxes_is_refused() -> None:
    rs = registered(UPPER6)
    sol = _duel(rs.name)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="filled 0 boxes and the other 2"):
        sol.win_probability(_state(rs, 0, rng), _state(rs, 3, rng))
    with pytest.raises(ValueError, match="this duel solution is for rules"):
        sol.win_probability(GameState("yacht", (1, 2, 3, 4, 5), 2, (None,) * 12), _state(rs, 0, rng))


# ---- register_rules ---------------------------------------------------------------------------------------------


def test_registered_rules_are_usable_by_name_everywhere() -> None:
    import gymnasium as gym

    import yacht_env  # noqa: F401 - registers the Gymnasium ids
    from yacht_env.env import YachtEnv
    from yacht_env.vector import YachtVectorEnv
    from yacht_solver import solve

    rs = registered(UPPER6)
    assert get_rules(rs.name) is rs
    assert GameState(rs.name, (1, 2, 3, 4, 5), 2, (None,) * 6).ruleset is rs
    assert solve(rs.name, cache=False).start_value > 0
    env = YachtEnv(rules=rs.name)
    obs, _ = env.reset(seed=0)
    assert env.action_space.n == NUM_KEEP_ACTIONS + 6 and obs.shape == env.observation_space.shape
    vec = YachtVectorEnv(2, rules=rs.name)
    assert vec.reset(seed=0)[0].shape == (2, *env.observation_space.shape)
    with pytest.raises(ValueError, match=r"YachtEnv\(rules=\.\.\.\)"):  # an id's rules are its own
        gym.make("Yacht-v0", rules=rs.name)


def test_a_five_kind_category_that_is_not_such_a_box_is_refused_when_the_rule_set_is_made() -> None:
    with pytest.raises(ValueError, match="must be a box of kind 'five_kind'"):
        RuleSet("t-five", "x", YACHT.categories, five_kind_category=6)


@pytest.mark.parametrize(("bad", "message"), [
    (RuleSet("yacht", "taken", YACHT.categories), "name 'yacht' is taken"),
    (RuleSet("Bad Name", "x", YACHT.categories[:6]), "1-40 characters"),
    (RuleSet("t-kind", "x", YACHT.categories[:6] + (Category("x", "X", "nope"),)), "unknown kind 'nope'"),
    (RuleSet("t-dup", "x", YACHT.categories[:6] + (Category("ones", "X", "sum"),)), "repeated: ones"),
    (RuleSet("t-bonus", "x", YACHT.categories[:6], upper_bonus=35), "needs a threshold"),
    (RuleSet("t-joker", "x", YACHT.categories, joker=1), "needs a five_kind_category"),
    (RuleSet("t-env", "x", YACHT.categories[:6], env_id="Mine-v0"), "no Gymnasium id of its own"),
    (RuleSet("t-kind4", "x", YACHT.categories[:6] + (Category("k", "K", "kind_sum", 9),)), "param 2..5"),
])
def test_register_rules_refuses_what_is_not_valid(bad: RuleSet, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        register_rules(bad)
    assert bad.name == "yacht" or bad.name not in RULESETS


# ---- the agent and the tools ------------------------------------------------------------------------------------


def test_optimal_duel_plays_only_games_of_two() -> None:
    from yacht_agents.loader import load_agent

    rs = registered(UPPER6)
    agent = load_agent("optimal-duel", rs.name)
    st = GameState(rs.name, (1, 2, 3, 4, 5), 2, (None,) * 6)
    with pytest.raises(ValueError, match="game of two players only"):
        agent.act_seated([st, st, st], 0, np.ones(38, dtype=bool))
    with pytest.raises(ValueError, match="game of two players only"):
        agent.act(np.zeros(0), np.ones(38, dtype=bool), st)
    a = agent.act_seated([st, st], 0, np.ones(38, dtype=bool))
    assert a == agent.duel.best_action(st, st)
    from yacht_tools.tournament import run_tournament

    with pytest.raises(ValueError, match="plays games of 2 players only, not games of 3 players"):
        run_tournament(["optimal-duel", "optimal", "greedy"], 1, rules=rs.name, players=3)


@pytest.mark.parametrize("call", ["eval", "tournament", "evaluate", "replay", "replay-upper", "replay-three",
                                  "replay_game", "replay_multiplayer"])
def test_optimal_duel_where_it_cannot_play_is_refused_before_its_table(call: str, monkeypatch, tmp_path,  # noqa: ANN001
                                                                      capsys) -> None:  # noqa: ANN001
    """A game alone or of three: refused at once, before the hour-long Yacht solve starts (with an empty cache, as
    a first run has: ``yacht replay`` started the solve)."""
    from yacht_cli import main
    from yacht_solver import duel
    from yacht_tools.evaluation import evaluate
    from yacht_tools.multiplayer_replay import replay_multiplayer
    from yacht_tools.replay import replay_game

    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(duel, "solve_duel", lambda *a, **k: pytest.fail("solved"))
    monkeypatch.setattr("yacht_agents.duel_agent.solve_duel", lambda *a, **k: pytest.fail("solved"))
    if call == "eval":
        assert main(["eval", "--agent", "optimal-duel", "--rules", "yacht", "--episodes", "5"]) == 2
    elif call == "tournament":
        assert main(["tournament", "--agents", "optimal-duel", "optimal", "greedy", "--players", "3",
                     "--games", "1"]) == 2
    elif call in ("replay", "replay-upper"):
        assert main(["replay", "--agent", "optimal-duel" if call == "replay" else " Optimal-Duel ", "--rules", "yacht",
                     "--seed", "3"]) == 2
        assert "plays games of 2 players only, not a game alone" in capsys.readouterr().err
    elif call == "replay-three":
        assert main(["replay", "--agents", "optimal-duel", "optimal", "greedy", "--players", "3"]) == 2
        assert "not games of 3 players" in capsys.readouterr().err
    elif call == "replay_game":
        with pytest.raises(ValueError, match="not a game alone"):
            replay_game("optimal-duel", "yacht", 3)
    elif call == "replay_multiplayer":
        with pytest.raises(ValueError, match="not games of 3 players"):
            replay_multiplayer(["greedy", "optimal-duel", "random"], "yacht", players=3)
    else:
        with pytest.raises(ValueError, match="not a game alone"):
            evaluate("optimal-duel", "yacht", 5)
    assert not any(tmp_path.iterdir())  # nothing solved, nothing cached


def test_tournament_seat_win_rate_and_exact_win_regret(tmp_path, monkeypatch) -> None:
    """Self-play of optimal-duel: zero win-regret at every decision; the expected-score player's is positive; each
    seat's win rate is its mean win share, the two adding up to 1."""
    from yacht_tools.tournament import format_report, run_tournament

    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(tmp_path))
    rs = registered(UPPER6)
    r = run_tournament(["optimal-duel", "optimal-duel", "optimal"], 60, rules=rs.name, win_regret=True)
    assert abs(sum(r["seat_win_rate"]) - 1.0) < 1e-12 and len(r["seat_win_rate_ci95"]) == 2
    for name in ("optimal-duel", "optimal-duel#2"):
        assert r["agents"][name]["win_regret"]["regret_per_game"] == 0.0
        assert r["agents"][name]["win_regret"]["decisions"] > 60 * 2 * 6
    opt = r["agents"]["optimal"]["win_regret"]
    assert opt["regret_per_game"] > 0 and len(opt["regret_by_turn"]) == 6
    assert abs(sum(opt["regret_by_decision"].values()) - opt["regret_per_game"]) < 1e-12
    text = format_report(r)
    assert "Win rate by seat" in text and "Exact win-regret" in text
    with pytest.raises(ValueError, match="two players"):
        run_tournament(["optimal", "optimal", "optimal"], 2, rules=rs.name, players=3, win_regret=True)


def test_the_pettingzoo_environment_reports_the_exact_win_regret(tmp_path, monkeypatch) -> None:
    """evaluate_policies plays the PettingZoo environment: the same games and the same win-regret as the tournament
    (its game g is the tournament's), a policy of the observation alone tallied too, and the wrapper's info holds
    each action's regret; more than two players, or a wrong player, refused."""
    from yacht_agents.loader import load_agent
    from yacht_env import multiplayer as MP
    from yacht_tools.tournament import run_tournament
    from yacht_tools.win_regret import WinRegretWrapper, evaluate_policies

    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(tmp_path))
    rs = registered(UPPER6)
    games = 40
    want = run_tournament(["optimal-duel", "optimal"], games, seed=4, rules=rs.name, win_regret=True)
    got = evaluate_policies([load_agent("optimal-duel", rs.name), load_agent("optimal", rs.name)], rs.name, games,
                            seed=4, names=["optimal-duel", "optimal"])
    for name in ("optimal-duel", "optimal"):
        w, g = want["agents"][name], got["agents"][name]
        assert g["win_rate"] == w["win_rate"] and g["mean_score"] == w["mean_score"]
        assert g["win_regret"]["decisions"] == w["win_regret"]["decisions"]
        assert abs(g["win_regret"]["regret_per_game"] - w["win_regret"]["regret_per_game"]) < 1e-12
    assert got["agents"]["optimal"]["win_regret"]["regret_per_game"] > 0

    rng = np.random.default_rng(0)

    def random_policy(obs: dict[str, np.ndarray]) -> int:
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))

    mixed = evaluate_policies([random_policy, load_agent("optimal-duel", rs.name)], rs.name, 10, seed=1,
                              names=["random", "duel"])
    assert mixed["agents"]["random"]["win_regret"]["regret_per_game"] > 0.05
    assert mixed["agents"]["duel"]["win_regret"]["regret_per_game"] == 0.0

    env = WinRegretWrapper(MP.env(num_players=2, rules=rs.name))
    env.reset(seed=3)
    agent = env.agent_selection
    obs, *_ = env.last()
    env.step(random_policy(obs))
    assert env.infos[agent]["win_regret"] == env.decisions[0].regret >= 0
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(~obs["action_mask"].astype(bool))[0])
    before = (env.agent_selection, len(env.decisions), env.unwrapped.states)
    for bad in (illegal, 10**6, -1, True):  # refused before the step, not counted as a regret of 0
        with pytest.raises(ValueError, match="is not legal here"):
            env.step(bad)
    assert (env.agent_selection, len(env.decisions), env.unwrapped.states) == before
    with pytest.raises(ValueError, match="two players"):
        WinRegretWrapper(MP.env(num_players=3, rules=rs.name))
    with pytest.raises(ValueError, match="give two players"):
        evaluate_policies([random_policy], rs.name, 2)
    for games in (10**12, 0, 2.5, True):  # 10**12 ended in MemoryError
        with pytest.raises(ValueError, match="games must be"):
            evaluate_policies([random_policy, random_policy], rs.name, games, names=["a", "b"])
    with pytest.raises(ValueError, match="callable policy or an Agent"):
        evaluate_policies([random_policy, 7], rs.name, 2)


@pytest.mark.slow
def test_yacht_solve_objective_duel_prints_and_writes_json(tmp_path, monkeypatch, capsys) -> None:
    import json

    from yacht_cli import main

    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(tmp_path))
    rs = registered(UPPER6)
    out = tmp_path / "duel.json"
    assert main(["solve", "--rules", rs.name, "--objective", "duel", "--json", str(out), "--no-progress"]) == 0
    got = json.loads(out.read_text())
    want = _solved(UPPER6)[0].first_player_win
    assert got["objective"] == "duel" and got["first_player_win"] == pytest.approx(want, abs=1e-12)
    assert got["pairs"] == 1716 and not got["cached"]
    assert f"the first player wins {want:.7f}" in capsys.readouterr().out
    DU._MEMO.clear()  # a new process: the table is read from disk
    assert main(["solve", "--rules", rs.name, "--objective", "duel", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["cached"] is True
    assert main(["solve", "--rules", rs.name, "--objective", "duel", "--target", "3"]) == 2


def test_the_coach_against_optimal_duel_shows_the_exact_win_chance(tmp_path, monkeypatch) -> None:
    from yacht_agents.loader import load_agent
    from yacht_tools.coach import Coach
    from yacht_tools.play import play_game

    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(tmp_path))
    rs = registered(UPPER6)
    lines: list[str] = []
    moves = iter(["score ones", "score twos", "quit"])
    play_game(rs.name, 0, hint=True, opponent=load_agent("optimal-duel", rs.name), coach=Coach(rs, "duel"),
              read=lambda _: next(moves), write=lines.append)
    assert any(x.startswith("Coach, P(win), exact: ") for x in lines)
    sol = DU.solve_duel(rs)
    rng = np.random.default_rng(3)
    me, other = _state(rs, 0b000011, rng, (2, 2, 3, 5, 6), 1), _state(rs, 0b000111, rng)
    choices = Coach(rs, "duel").choices([other, me], seat=1)
    probs = sol.action_win_probabilities(me, other)
    assert choices[0].probability == pytest.approx(np.nanmax(probs), abs=1e-12)
    assert sorted(c.action for c in choices) == list(np.flatnonzero(~np.isnan(probs)))


def test_a_replay_of_two_shows_each_decisions_exact_win_chance(tmp_path, monkeypatch) -> None:
    from yacht_tools.multiplayer_replay import format_multiplayer_replay, replay_multiplayer

    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(tmp_path))
    rs = registered(UPPER6)
    rec = replay_multiplayer(["optimal-duel", "greedy"], rs.name, 0, win_regret=True)
    duel = [d for d in rec["decisions"] if d["player"] == "optimal-duel"]
    assert duel and all(d["win_chance"] == d["best_win_chance"] for d in duel)
    assert all(0.0 <= d["win_chance"] <= d["best_win_chance"] <= 1.0 for d in rec["decisions"])
    assert "P(win) " in format_multiplayer_replay(rec)
    with pytest.raises(ValueError, match="two players"):
        replay_multiplayer(["optimal", "greedy", "random"], rs.name, 0, players=3, win_regret=True)


def test_a_duel_table_path_that_is_a_folder_is_refused_before_the_sweep(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(tmp_path))
    rs = registered(UPPER6)
    DU.duel_path(rs, DU.duel_key(rs)).mkdir()
    DU._MEMO.clear()
    swept = []
    with pytest.raises(ValueError, match=r"duel table's file .* cannot be written: it is a folder"):
        DU.solve_duel(rs, progress=swept.append)
    assert not swept  # refused before a single row was solved


def test_ctrl_c_during_the_sweep_stops_at_once_and_keeps_nothing(tmp_path, monkeypatch,  # noqa: ANN001
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The batches still queued when Ctrl-C comes are dropped (before, leaving the thread pool waited for the whole
    layer: minutes on Yacht); no table file, whole or partial, is left; the solve said what it was about to do."""
    from yacht_solver import duel

    monkeypatch.setenv("YACHT_ENV_CACHE_DIR", str(tmp_path))
    rs = registered(UPPER_YACHT)
    ran = []
    rows = duel.DUELK.duel_rows

    def counted(*args):  # noqa: ANN002, ANN202
        ran.append(1)
        time.sleep(0.05)  # a batch long enough that the main thread's reaction time does not decide the count
        return rows(*args)

    monkeypatch.setattr(duel.DUELK, "duel_rows", counted)
    monkeypatch.setattr(duel, "CELLS_PER_SECOND", 1)  # announced as a long solve, as Yacht's is
    threads = duel.numba.get_num_threads()
    plan = duel.duel_plan(rs)
    per_layer = [-(-n // max(1, min(4096, n // (8 * threads) + 1))) for n in reversed(plan.pairs[:-1])]
    big = next(k for k, n in enumerate(per_layer) if n >= 8 * threads)  # the first layer of many batches
    before = sum(per_layer[:big])
    calls = []

    def interrupt(cells: int) -> None:  # Ctrl-C at the first batch done of that layer
        calls.append(cells)
        if len(calls) == before + 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        duel.solve_duel(rs, progress=interrupt)
    # the batches running then still end; the queued ones (at least half the layer) never start
    assert len(ran) - before <= per_layer[big] // 2
    assert list(tmp_path.iterdir()) == []
    assert "solving the game of two players of test-upper-yacht exactly" in capsys.readouterr().err


def test_a_duel_solve_in_memory_counts_its_whole_table(monkeypatch) -> None:  # noqa: ANN001
    """``cache=False`` keeps every layer: Yacht's table (at most 6.2 GB) is refused at once under the default 4 GB limit
    (the guard used to count two layers, 2 GB, and the solve ran out of memory an hour later)."""
    from yacht_solver import duel

    monkeypatch.delenv("YACHT_ENV_TABLE_GB", raising=False)
    monkeypatch.setattr(duel, "sweep", lambda *a, **k: pytest.fail("swept"))
    with pytest.raises(ValueError, match=r"in memory needs 8\.\d\d GB .*its whole table, 1,549,689,400 values"):
        duel.solve_duel("yacht", cache=False)


def test_the_table_size_the_pages_quote_is_the_record() -> None:
    """The kept table of Yacht as ``benchmarks/duel_table_size.py`` recorded it: its size is the one a solve
    announces and the pages quote, it read back every value of the dense table, and it holds the plan's values."""
    import json

    from conftest import REPO

    rec = json.loads((REPO / "docs" / "records" / "duel-table-size.json").read_text(encoding="utf-8"))
    plan = DU.duel_plan(get_rules(rec["rules"]))
    assert rec["values"] == sum(plan.cells) and rec["pairs"] == sum(plan.pairs)
    assert DU.DISK_BYTES[rec["rules"]] == rec["kept_table_bytes"] == (rec["kept_values"] + rec["pairs"]) * 4
    assert rec["kept_values"] + rec["zeros_left_out"] + rec["ones_left_out"] == rec["values"]
    assert rec["decisions"] == rec["same_action"] == rec["same_action_values"] == 100_000
    assert rec["first_player_win_kept"] == rec["first_player_win_dense"]
    assert round(rec["first_player_win_kept"], 7) == 0.493862
    page = " ".join((REPO / "docs" / "objectives.md").read_text(encoding="utf-8").split())
    for figure in (f"{rec['kept_values']:,}", f"{rec['zeros_left_out'] + rec['ones_left_out']:,}",
                   f"{rec['kept_table_bytes'] / 1e9:.2f} GB", f"{rec['low16_entropy_bits']} bits", "100,000 decisions"):
        assert figure in page, figure
