"""numba kernels of the vector engine: reset, step, legal-action masks and observations of N games at once.

Every rule comes from :mod:`yacht_env.rules`: the turn logic (:func:`~yacht_env.rules.legal_bits`,
:func:`~yacht_env.rules.box_score`, :func:`~yacht_env.rules.points_for`) is the *same* Python functions, compiled
once by :mod:`yacht_env.jit` (LLVM inlines them here), and the score / Joker tables are passed in as arrays.
The dice tables come from :mod:`yacht_env.dice`, dice are drawn with :mod:`yacht_env.vector.pcg64` exactly as
:func:`yacht_env.randomness.roll` draws them, and the dice part of the observation is tabulated from
:func:`yacht_env.observation.encode` itself; the rest of the observation follows
:func:`yacht_env.observation.layout`, whose offsets are passed in. The differential test
(``tests/test_vector.py``) checks all of it bit for bit against :class:`yacht_env.env.YachtEnv`, which steps its one
game with the ``single_*`` kernels below, and ``tests/test_env.py`` holds that env to the pure transitions of
:mod:`yacht_env.state`.

Per-game state, one row per game (see :class:`Batch`): hand index, rolls left, filled-box bits, box scores (-1 while
open), upper total, five-of-a-kind bonus count, points so far, steps in the episode and the PCG64 generator.

The kernels over the batch are *chunk kernels* (:mod:`yacht_env.vector.parallel`): they release the GIL and share
chunks of 64 games between the calling thread and helper threads through an atomic counter.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from yacht_env import dice as D
from yacht_env import jit
from yacht_env import observation as O
from yacht_env import rules as R
from yacht_env.actions import KEEP_MASK_ALL, KEEP_MASK_UNIQUE, NUM_KEEP_ACTIONS
from yacht_env.rules import RuleSet
from yacht_env.state import ROLLS_PER_TURN, GameState
from yacht_env.vector import pcg64 as P
from yacht_env.vector.parallel import CHUNK, claim_chunk, default_threads, finish_chunk, get_pool, new_counter


def _expire_stale_numba_cache() -> None:
    """Drop this module's cached kernels if a source they contain changed (see
    :func:`yacht_env.jit.expire_stale_numba_cache`): besides the rules and dice tables, the dice draws of
    ``pcg64.py``, the atomics of ``parallel.py`` and constants of ``state.py`` and ``actions.py``."""
    from yacht_env import actions, state
    from yacht_env.vector import parallel

    jit.expire_stale_numba_cache(__file__, (P, parallel, state, actions))


_expire_stale_numba_cache()  # before any kernel below is compiled

legal_bits = jit.legal_bits
box_score = jit.box_score
points_for = jit.points_for

# cfg: integer configuration of a batch (one int64 array, so the kernels take few arguments)
(C_NUM_CAT, C_NUM_ACT, C_OBS, C_ROLLS, C_OPEN, C_POINTS, C_TURN, C_UPPER_TOTAL, C_UPPER_BONUS, C_YBOX, C_YCAT,
 C_MAX_STEPS, C_STRICT) = range(13)
_CFG_LEN = 13

F_POINTS, F_TURN, F_UPPER = range(3)
_FLOAT_TABLE = 256  # points one box adds (box + bonuses, checked in make_tables), turns and upper totals stay below

_HAND_OBS = D.NUM_FACES + D.NUM_DICE * D.NUM_FACES + ROLLS_PER_TURN  # dice_counts, dice_onehot, rolls_left:
# the start of every observation
_NUM_HANDS = D.NUM_HANDS
EMPTY_KEEP = int(D.KEY_TO_KEEP[0])  # keep index of "no dice kept" (0)
_FULL_HAND = D.NUM_DICE


@dataclass(frozen=True)
class Tables:
    """Read-only arrays the kernels read, built once per (rules, unique_keeps, max_steps, strict)."""

    params: np.ndarray  # RuleSet.params
    cfg: np.ndarray  # int64 configuration, indices C_*
    score_table: np.ndarray  # (252, C) int32
    joker_table: np.ndarray  # (252, C) int32
    five_face: np.ndarray  # (252,) int64
    keep_mask: np.ndarray  # (252, 32) bool
    pattern_keep: np.ndarray  # (252, 32) int32
    keep_size: np.ndarray  # (462,) int8
    keep_add: np.ndarray  # (462, 6) int32
    keep_to_hand: np.ndarray  # (462,) int32
    hand_obs: np.ndarray  # (3 * 252, 39) float32: the dice and rolls part of the observation, see hand_obs_table
    floats: np.ndarray  # (3, 256) float32: see float_tables

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays in the order the kernels take them."""
        return (self.params, self.cfg, self.score_table, self.joker_table, self.five_face, self.keep_mask,
                self.pattern_keep, self.keep_size, self.keep_add, self.keep_to_hand, self.hand_obs, self.floats)


def hand_obs_table(rules: RuleSet) -> np.ndarray:
    """The dice and rolls slices of the observation (``dice_counts``, ``dice_onehot`` then ``rolls_left``) of each
    hand and rolls left: row ``r * 252 + h`` for hand h with r rolls left, taken from
    :func:`yacht_env.observation.encode` so that they are its float32 values exactly."""
    lay = O.layout(rules)
    if (lay["dice_counts"].start != 0 or lay["dice_onehot"].start != lay["dice_counts"].stop
            or lay["rolls_left"].start != lay["dice_onehot"].stop):
        raise AssertionError("the vector engine expects the observation to start with dice_counts, dice_onehot, "
                             "rolls_left")
    n = lay["rolls_left"].stop
    if n != _HAND_OBS:
        raise AssertionError(f"the vector engine expects {_HAND_OBS} dice and rolls values at the start of the "
                             "observation")
    out = np.empty((ROLLS_PER_TURN * D.NUM_HANDS, n), dtype=np.float32)
    empty = (None,) * rules.num_categories
    for r in range(ROLLS_PER_TURN):
        for h in range(D.NUM_HANDS):
            st = GameState(rules.name, tuple(int(x) for x in D.HANDS[h]), r, empty)
            out[r * D.NUM_HANDS + h] = O.encode(st)[:n]
    out.setflags(write=False)
    return out


def float_tables(rules: RuleSet) -> np.ndarray:
    """(3, 256) float32: row F_POINTS holds ``pts / POINTS_SCALE``, F_TURN ``turn / C``, F_UPPER
    ``min(u, thr) / thr``, each computed in float64 and rounded to float32 as :func:`~yacht_env.observation.encode`
    does (so a table read equals the division, bit for bit, and is cheaper)."""
    x = np.arange(_FLOAT_TABLE, dtype=np.int64)
    out = np.zeros((3, _FLOAT_TABLE), dtype=np.float32)
    out[F_POINTS] = np.array([int(v) / O.POINTS_SCALE for v in x])
    out[F_TURN] = np.array([int(v) / rules.num_categories for v in x])
    thr = rules.upper_bonus_threshold
    if thr:
        out[F_UPPER] = np.array([min(int(v), thr) / thr for v in x])
    out.setflags(write=False)
    return out


@functools.cache
def make_tables(rules: RuleSet, unique_keeps: bool, max_steps: int, strict: bool) -> Tables:
    """The kernels' tables and configuration for a rule set and the env's options (built once per combination and
    shared: every array is read-only)."""
    lay = O.layout(rules)
    known = {"dice_counts", "dice_onehot", "rolls_left", "open", "points", "turn", "upper_total", "upper_bonus",
             "yahtzee_box"}
    if len(rules.params) != 6:
        raise AssertionError("the vector engine expects 6 rule parameters (see _params_tuple)")
    if not set(lay) <= known:
        raise AssertionError(f"the vector engine does not write observation slices {sorted(set(lay) - known)}")
    most = int(max(rules.score_table.max(), rules.joker_table.max())) + rules.upper_bonus + rules.five_kind_bonus
    if rules.upper_bonus_threshold >= _FLOAT_TABLE or most >= _FLOAT_TABLE or rules.num_categories >= _FLOAT_TABLE:
        raise AssertionError(f"rules {rules.name!r} exceed the vector engine's float tables ({_FLOAT_TABLE} entries)")
    cfg = np.zeros(_CFG_LEN, dtype=np.int64)
    cfg[C_NUM_CAT] = rules.num_categories
    cfg[C_NUM_ACT] = NUM_KEEP_ACTIONS + rules.num_categories
    cfg[C_OBS] = O.size(rules)
    cfg[C_ROLLS] = lay["rolls_left"].start
    cfg[C_OPEN] = lay["open"].start
    cfg[C_POINTS] = lay["points"].start
    cfg[C_TURN] = lay["turn"].start
    cfg[C_UPPER_TOTAL] = lay["upper_total"].start if "upper_total" in lay else -1
    cfg[C_UPPER_BONUS] = lay["upper_bonus"].start if "upper_bonus" in lay else -1
    cfg[C_YBOX] = lay["yahtzee_box"].start if "yahtzee_box" in lay else -1
    cfg[C_YCAT] = rules.five_kind_category
    cfg[C_MAX_STEPS] = max_steps
    cfg[C_STRICT] = int(strict)
    cfg.setflags(write=False)
    return Tables(
        params=np.ascontiguousarray(rules.params),
        cfg=cfg,
        score_table=np.ascontiguousarray(rules.score_table),
        joker_table=np.ascontiguousarray(rules.joker_table),
        five_face=np.ascontiguousarray(R.FIVE_KIND_FACE),
        keep_mask=np.ascontiguousarray(KEEP_MASK_UNIQUE if unique_keeps else KEEP_MASK_ALL),
        pattern_keep=np.ascontiguousarray(D.PATTERN_KEEP),
        keep_size=np.ascontiguousarray(D.KEEP_SIZE),
        keep_add=np.ascontiguousarray(D.KEEP_ADD),
        keep_to_hand=np.ascontiguousarray(D.KEEP_TO_HAND),
        hand_obs=hand_obs_table(rules),
        floats=float_tables(rules),
    )


MAX_BOX = 1000  # largest box score (and bonus count) a loaded state may hold: int16 upper totals cannot overflow


@dataclass
class Batch:
    """The state of N games as arrays (row i is game i). ``scores`` holds -1 for an open box."""

    hand: np.ndarray  # (N,) int16: hand index 0..251 of the sorted dice
    rolls: np.ndarray  # (N,) int8: rolls left in the turn (0..2)
    filled: np.ndarray  # (N,) int32: bit k set once box k is filled
    scores: np.ndarray  # (N, C) int16: box scores, -1 while open
    upper: np.ndarray  # (N,) int16: upper-section total
    bonus: np.ndarray  # (N,) int16: count of five-of-a-kind bonuses
    total: np.ndarray  # (N,) int32: points so far (the sum of the rewards)
    steps: np.ndarray  # (N,) int32: steps taken in the current episode
    rng: np.ndarray  # (N, 4) uint64: PCG64 rows, see yacht_env.vector.pcg64

    @classmethod
    def empty(cls, n: int, num_categories: int) -> Batch:
        return cls(
            hand=np.zeros(n, dtype=np.int16),
            rolls=np.zeros(n, dtype=np.int8),
            filled=np.zeros(n, dtype=np.int32),
            scores=np.full((n, num_categories), -1, dtype=np.int16),
            upper=np.zeros(n, dtype=np.int16),
            bonus=np.zeros(n, dtype=np.int16),
            total=np.zeros(n, dtype=np.int32),
            steps=np.zeros(n, dtype=np.int32),
            rng=np.zeros((n, 4), dtype=np.uint64),
        )

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays in the order the kernels take them."""
        return (self.hand, self.rolls, self.filled, self.scores, self.upper, self.bonus, self.total, self.steps,
                self.rng)

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.arrays())

    # ---- GameState <-> row: the one mapping, used by the vector env and the single env ---------------------------
    def game_state(self, i: int, rules: RuleSet) -> GameState:
        """The :class:`~yacht_env.state.GameState` of row i (built anew from the arrays)."""
        scores = tuple(None if s < 0 else s for s in self.scores[i].tolist())
        return GameState(rules.name, tuple(D.HANDS[self.hand[i]].tolist()), int(self.rolls[i]), scores,
                         int(self.bonus[i]))

    def load_state(self, i: int, state: GameState) -> None:
        """Row i becomes ``state``, its episode's step count 0; its generator row is left as it is. Raises
        ``ValueError`` for a state the arrays cannot hold (a box score outside 0..MAX_BOX, a bonus count above it)."""
        c = self.scores.shape[1]
        if len(state.scores) != c:
            raise ValueError(f"state has {len(state.scores)} boxes, the batch {c}")
        if any(s is not None and not 0 <= s <= MAX_BOX for s in state.scores) or not 0 <= state.bonus_count <= MAX_BOX:
            raise ValueError(f"box scores and the bonus count must be in 0..{MAX_BOX} here, got {state}")
        self.hand[i] = state.hand
        self.rolls[i] = state.rolls_left
        self.filled[i] = state.filled_bits
        self.scores[i] = [-1 if s is None else s for s in state.scores]
        self.upper[i] = state.upper_total
        self.bonus[i] = state.bonus_count
        self.total[i] = state.total
        self.steps[i] = 0


@intrinsic
def _popcount(typingctx, x):
    """Number of set bits of an int64 (LLVM's ctpop: one instruction)."""
    if x != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


@intrinsic
def _ctz(typingctx, x):
    """Index of the lowest set bit of a non-zero int64 (LLVM's cttz)."""
    if x != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return types.int64(types.int64), codegen


def _is_byte_matrix(arr: Any) -> bool:
    return (isinstance(arr, types.Array) and arr.ndim == 2 and arr.layout == "C"
            and arr.dtype in (types.boolean, types.int8, types.uint8))


def _u64_pointer(context: Any, builder: Any, signature: Any, args: Any) -> Any:
    """LLVM pointer to ``arr[i, j]`` (the first three arguments) as a uint64 pointer."""
    arr_t = signature.args[0]
    ary = context.make_array(arr_t)(context, builder, args[0])
    ii = context.cast(builder, args[1], signature.args[1], types.intp)
    jj = context.cast(builder, args[2], signature.args[2], types.intp)
    ptr = cgutils.get_item_pointer(context, builder, arr_t, ary, [ii, jj])
    return builder.bitcast(ptr, ir.IntType(64).as_pointer())


@intrinsic
def _load_u64(typingctx, arr, i, j):
    """The 8 bytes at ``arr[i, j:j + 8]`` of a C-contiguous 2-d one-byte array as one (unaligned) little-endian
    uint64 load; the caller keeps ``j + 8 <= arr.shape[1]``."""
    if not _is_byte_matrix(arr):
        return None

    def codegen(context, builder, signature, args):
        return builder.load(_u64_pointer(context, builder, signature, args), align=1)

    return types.uint64(arr, i, j), codegen


@intrinsic
def _store_u64(typingctx, arr, i, j, val):
    """Store uint64 ``val`` as the 8 bytes ``arr[i, j:j + 8]`` (little-endian, unaligned) of a C-contiguous 2-d
    one-byte array; the caller keeps ``j + 8 <= arr.shape[1]``."""
    if not (_is_byte_matrix(arr) and val == types.uint64):
        return None

    def codegen(context, builder, signature, args):
        builder.store(args[3], _u64_pointer(context, builder, signature, args), align=1)
        return context.get_dummy_value()

    return types.void(arr, i, j, val), codegen


# _BIT_BYTES[b]: the 8 bits of b as 8 bytes 0 / 1 (bit k -> byte k), little-endian in a uint64
_BIT_BYTES = np.array([sum(((b >> k) & 1) << (8 * k) for k in range(8)) for b in range(256)], dtype=np.uint64)
_U8 = np.uint64(8)
_U255 = np.int64(255)

@intrinsic
def _copy_row(typingctx, dst, j, src, h, n):
    """``dst[j:j + n] = src[h, :n]`` as one memcpy (``n`` constant at the call: LLVM expands it into a few vector
    moves); ``dst`` 1-d, ``src`` 2-d, both C-contiguous of one dtype; the caller keeps the bounds."""
    if not (isinstance(dst, types.Array) and isinstance(src, types.Array) and dst.ndim == 1 and src.ndim == 2
            and dst.layout == "C" and src.layout == "C" and dst.dtype == src.dtype):
        return None

    def codegen(context, builder, signature, args):
        dst_t, src_t = signature.args[0], signature.args[2]
        d = context.make_array(dst_t)(context, builder, args[0])
        sa = context.make_array(src_t)(context, builder, args[2])
        jj = context.cast(builder, args[1], signature.args[1], types.intp)
        hh = context.cast(builder, args[3], signature.args[3], types.intp)
        nn = context.cast(builder, args[4], signature.args[4], types.intp)
        zero = context.get_constant(types.intp, 0)
        dp = cgutils.get_item_pointer(context, builder, dst_t, d, [jj])
        sp = cgutils.get_item_pointer(context, builder, src_t, sa, [hh, zero])
        size = context.get_abi_sizeof(context.get_data_type(dst_t.dtype))
        cgutils.raw_memcpy(builder, dp, sp, nn, size, align=1)
        return context.get_dummy_value()

    return types.void(dst, j, src, h, n), codegen


# _OPEN8[b]: the ``open`` slots (1.0 open, 0.0 filled) of 8 boxes whose filled bits are b; _ZERO8: 8 zeros
_OPEN8 = np.array([[0.0 if (b >> k) & 1 else 1.0 for k in range(8)] for b in range(256)], dtype=np.float32)
_ZERO8 = np.zeros((1, 8), dtype=np.float32)
_EIGHT = 8

_BYTES_TO_BITS = np.uint64(0x0102040810204080)  # (x * this) >> 56: the low bits of x's 8 bytes as 8 bits
_LOW_BITS = np.uint64(0x0101010101010101)
_U56 = np.uint64(56)


@numba.njit(cache=True, inline="always", _nrt=False)
def _bool_bits(mask, i, a_n) -> np.int64:
    """Row i of a (N, a_n) bool array (8 <= a_n <= 64) as a bit set: bit a set where ``mask[i, a]``."""
    bits = np.int64(0)
    j = 0
    while j + 8 <= a_n:
        x = _load_u64(mask, i, j) & _LOW_BITS
        bits |= np.int64((x * _BYTES_TO_BITS) >> _U56) << j
        j += 8
    rem = a_n - j
    if rem > 0:  # the last rem bytes: the 8 ending the row, shifted down
        x = (_load_u64(mask, i, a_n - 8) >> np.uint64(8 * (8 - rem))) & _LOW_BITS
        bits |= np.int64((x * _BYTES_TO_BITS) >> _U56) << j
    return bits


# ---- per-game helpers (inlined into the kernels) ------------------------------------------------------------------
# ``st`` is Batch.arrays(): (hand, rolls, filled, scores, upper, bonus, total, steps, rng)
# ``tb`` is Tables.arrays(): (params, cfg, score, joker, five, keep_mask, pattern_keep, keep_size, keep_add,
#                             keep_to_hand, hand_obs, floats)


@numba.njit(cache=True, inline="always", _nrt=False)
def _roll_into(keep, n, rng, i, keep_add, keep_to_hand):
    """Roll ``n`` dice from game i's generator onto keep index ``keep``; return the hand index."""
    s_hi = rng[i, P.S_HI]
    s_lo = rng[i, P.S_LO]
    i_hi = rng[i, P.I_HI]
    i_lo = rng[i, P.I_LO]
    for _ in range(n):
        f, s_hi, s_lo = P.die(s_hi, s_lo, i_hi, i_lo)
        keep = keep_add[keep, f - 1]
    rng[i, P.S_HI] = s_hi
    rng[i, P.S_LO] = s_lo
    return keep_to_hand[keep]


@numba.njit(cache=True, inline="always", _nrt=False)
def _legal(i, st, tb):
    """Legal score bits of game i (0 once the game is over: nothing is legal then)."""
    hand, filled = st[0], st[2]
    params, cfg, five = tb[0], tb[1], tb[4]
    f = np.int64(filled[i])
    if f == (np.int64(1) << cfg[C_NUM_CAT]) - 1:
        return np.int64(0)
    return np.int64(legal_bits(params, five[hand[i]], f))


@numba.njit(cache=True, inline="always", _nrt=False)
def _is_legal(a, i, lbits, st, tb):
    """Whether action ``a`` is legal for game i, as :func:`yacht_env.actions.action_mask` has it."""
    if a < NUM_KEEP_ACTIONS:
        return st[1][i] > 0 and lbits != 0 and tb[5][st[0][i], a]
    return (lbits >> (a - NUM_KEEP_ACTIONS)) & 1 == 1


@numba.njit(cache=True, inline="always", _nrt=False)
def _write_mask(i, lbits, out, st, tb) -> None:
    """Legal-action mask of game i into ``out[i]``: 8 bytes per store (the keep part copied from the hand's keep
    row, or zeros; the score part expanded from the legal bits)."""
    keep_mask, c = tb[5], tb[1][C_NUM_CAT]
    if out.shape[1] >= 40 and NUM_KEEP_ACTIONS == 32 and c <= 16:
        h = st[0][i]
        keep = st[1][i] > 0 and lbits != 0
        for j in range(0, 32, 8):
            out_v = _load_u64(keep_mask, h, j) if keep else np.uint64(0)
            _store_u64(out, i, j, out_v)
        a_n = out.shape[1]
        _store_u64(out, i, 32, _BIT_BYTES[lbits & _U255])
        if c > 8:  # the last 8 boxes (overlapping the first ones: same bytes)
            _store_u64(out, i, a_n - 8, _BIT_BYTES[(lbits >> (c - 8)) & _U255])
        return
    row = out[i]
    if st[1][i] > 0 and lbits != 0:
        krow = keep_mask[st[0][i]]
        for a in range(NUM_KEEP_ACTIONS):
            row[a] = krow[a]
    else:
        for a in range(NUM_KEEP_ACTIONS):
            row[a] = False
    for k in range(c):
        row[NUM_KEEP_ACTIONS + k] = (lbits >> k) & 1 == 1


@numba.njit(cache=True, inline="always", _nrt=False)
def _params_tuple(params):
    """``RuleSet.params`` as a tuple (the rules functions index it with constants only)."""
    return params[0], params[1], params[2], params[3], params[4], params[5]


@numba.njit(cache=True, inline="always", _nrt=False)
def _write_obs(i, lbits, out, st, tb) -> None:
    """Observation of game i into ``out[i]``."""
    _write_obs_row(out[i], i, lbits, st, tb)


@numba.njit(cache=True, inline="always", _nrt=False)
def _write_obs_row(row, i, lbits, st, tb) -> None:
    """Observation of game i into the 1-d ``row``, as :func:`yacht_env.observation.encode` computes it. Every slot
    is written once; the float32 values of ``points / 50``, ``turn / C`` and ``min(upper, thr) / thr`` are read from
    ``floats`` (tabulated by :func:`float_tables` with the same float64 expressions)."""
    hand, rolls, filled, scores, upper_a = st[0], st[1], st[2], st[3], st[4]
    params, cfg, score, joker, five, hand_obs, floats = tb[0], tb[1], tb[2], tb[3], tb[4], tb[10], tb[11]
    c = cfg[C_NUM_CAT]
    h = hand[i]
    _copy_row(row, 0, hand_obs, np.int64(rolls[i]) * _NUM_HANDS + h, _HAND_OBS)  # dice and rolls: one memcpy
    f = np.int64(filled[i])
    face = five[h]
    upper = np.int64(upper_a[i])
    ycat = cfg[C_YCAT]
    y50 = ycat >= 0 and scores[i, ycat] == 50
    o = cfg[C_OPEN]
    p = cfg[C_POINTS]
    srow = score[h]
    jrow = joker[h]
    if 8 <= c <= 16:  # open boxes, and 0 points for every box (the legal ones get their points below): 8 at a
        # time, the last 8 overlapping the first (same values)
        _copy_row(row, o, _OPEN8, f & _U255, _EIGHT)
        _copy_row(row, o + c - 8, _OPEN8, (f >> (c - 8)) & _U255, _EIGHT)
        _copy_row(row, p, _ZERO8, 0, _EIGHT)
        _copy_row(row, p + c - 8, _ZERO8, 0, _EIGHT)
    else:
        for k in range(c):
            row[o + k] = np.float32(1 - ((f >> k) & 1))
            row[p + k] = np.float32(0.0)
    turn = _popcount(f & ((np.int64(1) << c) - 1))
    pt = _params_tuple(params)  # scalars: the stores into row below cannot alias them (no reloads per box)
    lb = lbits
    while lb != 0:  # the legal boxes only (points_for is pure; an illegal box shows 0)
        k = _ctz(lb)
        lb &= lb - 1
        pts = points_for(pt, srow, jrow, face, f, upper, y50, k)
        row[p + k] = floats[F_POINTS, min(pts, _FLOAT_TABLE - 1)]
    row[cfg[C_TURN]] = floats[F_TURN, turn]
    ut = cfg[C_UPPER_TOTAL]
    if ut >= 0:
        thr = params[R.P_UPPER_THRESHOLD]
        row[ut] = floats[F_UPPER, min(upper, thr)]
        row[cfg[C_UPPER_BONUS]] = 1.0 if upper >= thr else 0.0
    yb = cfg[C_YBOX]
    if yb >= 0:
        box = scores[i, ycat]
        row[yb] = 1.0 if box < 0 else 0.0
        row[yb + 1] = 1.0 if box > 0 else 0.0
        row[yb + 2] = 1.0 if box == 0 else 0.0


@numba.njit(cache=True, inline="always", _nrt=False)
def _new_game(i, st, tb) -> None:
    """Game i starts over: empty scorecard, first roll from its own generator."""
    hand, rolls, filled, scores, upper, bonus, total, steps, rng = st
    for k in range(tb[1][C_NUM_CAT]):
        scores[i, k] = -1
    filled[i] = 0
    upper[i] = 0
    bonus[i] = 0
    total[i] = 0
    steps[i] = 0
    rolls[i] = ROLLS_PER_TURN - 1
    hand[i] = _roll_into(EMPTY_KEEP, _FULL_HAND, rng, i, tb[8], tb[9])


@numba.njit(cache=True, inline="always", _nrt=False)
def _reset_game(i, st, tb, obs, mask) -> None:
    _new_game(i, st, tb)
    lbits = _legal(i, st, tb)
    _write_mask(i, lbits, mask, st, tb)
    _write_obs(i, lbits, obs, st, tb)


@numba.njit(cache=True, inline="always", _nrt=False)
def _play(i, a, st, tb, mask) -> tuple[int, bool]:
    """Game i takes action ``a`` as :meth:`yacht_env.env.YachtEnv.step` does (an illegal action is a no-op) and
    counts the step. Returns (points added, whether the action was illegal)."""
    hand, rolls, filled, scores, upper, bonus, total, steps, rng = st
    params, cfg, score, joker, five = tb[0], tb[1], tb[2], tb[3], tb[4]
    pattern_keep, keep_size, keep_add, keep_to_hand = tb[6], tb[7], tb[8], tb[9]
    ycat = cfg[C_YCAT]
    steps[i] += 1
    pts = 0
    bad = not mask[i, a]  # the mask row is the current game's (the kernels keep it so)
    if not bad:
        h = hand[i]
        if a < NUM_KEEP_ACTIONS:
            keep = pattern_keep[h, a]
            hand[i] = _roll_into(keep, _FULL_HAND - keep_size[keep], rng, i, keep_add, keep_to_hand)
            rolls[i] -= 1
        else:
            k = a - NUM_KEEP_ACTIONS
            f = np.int64(filled[i])
            face = five[h]
            y50 = ycat >= 0 and scores[i, ycat] == 50
            pts = points_for(params, score[h], joker[h], face, f, np.int64(upper[i]), y50, k)
            box = box_score(params, score[h], joker[h], face, f, k)
            if face > 0 and y50 and params[R.P_FIVE_BONUS] > 0:
                bonus[i] += 1
            scores[i, k] = box
            f |= np.int64(1) << k
            filled[i] = f
            if k < R.NUM_UPPER:
                upper[i] += box
            total[i] += pts
            if f == (np.int64(1) << cfg[C_NUM_CAT]) - 1:
                rolls[i] = 0
            else:
                rolls[i] = ROLLS_PER_TURN - 1
                hand[i] = _roll_into(EMPTY_KEEP, _FULL_HAND, rng, i, keep_add, keep_to_hand)
    return pts, bad


@numba.njit(cache=True, inline="always", _nrt=False)
def _step_game(i, a, st, tb, obs, mask, reward, terminated, truncated, illegal, final_obs, final_mask,
               final_card) -> int:
    """Step game i with action ``a`` (:func:`_play`), then restart it if it ended. Returns 1 if it ended."""
    filled, scores, upper, bonus, total, steps = st[2], st[3], st[4], st[5], st[6], st[7]
    params, cfg = tb[0], tb[1]
    c = cfg[C_NUM_CAT]
    pts, bad = _play(i, a, st, tb, mask)
    reward[i] = pts
    illegal[i] = bad
    term = np.int64(filled[i]) == (np.int64(1) << c) - 1
    trunc = (not term) and steps[i] >= cfg[C_MAX_STEPS]
    terminated[i] = term
    truncated[i] = trunc
    lbits = _legal(i, st, tb)
    ended = 0
    if term or trunc:
        ended = 1
        _write_mask(i, lbits, final_mask, st, tb)
        _write_obs(i, lbits, final_obs, st, tb)
        for k in range(c):
            final_card[i, k] = scores[i, k]
        ub = params[R.P_UPPER_BONUS]
        final_card[i, c] = ub if ub > 0 and upper[i] >= params[R.P_UPPER_THRESHOLD] else 0
        final_card[i, c + 1] = bonus[i] * params[R.P_FIVE_BONUS]
        final_card[i, c + 2] = total[i]
        _new_game(i, st, tb)
        lbits = _legal(i, st, tb)
    else:  # the final_* arrays are allocated uninitialised: rows of games that did not end hold zeros
        frow = final_obs[i]
        d = frow.shape[0]
        for j in range(0, d - 8, 8):  # fixed-size stores (no memset call per row); the last 8 may overlap
            _copy_row(frow, j, _ZERO8, 0, _EIGHT)
        _copy_row(frow, d - 8, _ZERO8, 0, _EIGHT)
        a_n = final_mask.shape[1]
        for j in range(0, a_n - 8, 8):
            _store_u64(final_mask, i, j, np.uint64(0))
        _store_u64(final_mask, i, a_n - 8, np.uint64(0))
        for k in range(c + 3):
            final_card[i, k] = 0
    _write_mask(i, lbits, mask, st, tb)
    _write_obs(i, lbits, obs, st, tb)
    return ended


# ---- kernels over the batch ------------------------------------------------------------------------------------------
# Chunk kernels (see yacht_env.vector.parallel): the calling thread and helper threads take chunks of games from an
# atomic counter; with no helper, the caller takes them all. They release the GIL, and are compiled without numba's
# runtime (_nrt=False): they allocate nothing, and with it every array view handed to an inlined rules function
# cost atomic reference-count updates (points_for ran 20 times slower).


PARALLEL_MIN_GAMES = 512  # below this many games one thread does it all (handing work over costs more)


def run_chunks(fn: Callable[..., None], n: int, args: tuple[Any, ...], threads: int) -> None:
    """Run chunk kernel ``fn`` over ``n`` games on up to ``threads`` threads (one below PARALLEL_MIN_GAMES)."""
    if threads <= 1 or n < PARALLEL_MIN_GAMES:
        fn(new_counter(), 1, n, *args)
    else:
        get_pool(threads).run(fn, n, args, CHUNK)


@numba.njit(cache=True, nogil=True, _nrt=False)
def reset_chunks(counter, n_chunks, chunk, st, tb, obs, mask) -> None:
    """Start a new game in every row (first roll from each row's generator); write obs and masks."""
    n = obs.shape[0]
    while True:
        lo, hi = claim_chunk(counter, n_chunks, chunk, n)
        if lo < 0:
            return
        for i in range(lo, hi):
            _reset_game(i, st, tb, obs, mask)
        finish_chunk(counter)


@numba.njit(cache=True, nogil=True, _nrt=False)
def step_chunks(counter, n_chunks, chunk, actions, st, tb, obs, mask, reward, terminated, truncated, illegal,
                final_obs, final_mask, final_card) -> None:
    """Step every game with its action (validated by :func:`check_actions`), restarting finished games in the same
    step. Writes obs / mask of the current (possibly new) games, rewards, flags, and for games that ended their
    final obs, mask and scorecard (boxes, upper bonus, five-of-a-kind bonus, total)."""
    n = actions.shape[0]
    while True:
        lo, hi = claim_chunk(counter, n_chunks, chunk, n)
        if lo < 0:
            return
        for i in range(lo, hi):
            _step_game(i, actions[i], st, tb, obs, mask, reward, terminated, truncated, illegal, final_obs,
                       final_mask, final_card)
        finish_chunk(counter)


@numba.njit(cache=True, _nrt=False)
def check_actions(actions, st, tb) -> tuple[int, int]:
    """Validate a batch of actions before any game moves. Returns (0, -1) if fine, (1, i) if action i is outside
    the action space, (2, i) if it is illegal and the env is strict."""
    cfg = tb[1]
    n_act = cfg[C_NUM_ACT]
    strict = cfg[C_STRICT] != 0
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= n_act:
            return 1, i
        if strict and not _is_legal(a, i, _legal(i, st, tb), st, tb):
            return 2, i
    return 0, -1


# ---- one game, for the single environment ---------------------------------------------------------------------------
# yacht_env.env.YachtEnv holds its game as a one-game batch and steps it with these (plain kernels, no autoreset):
# ``obs`` is the 1-d observation to fill, ``mask`` the (1, A) bool mask of the game.

SINGLE_ILLEGAL, SINGLE_TRUNCATED, SINGLE_TERMINATED = 1, 2, 4
SINGLE_POINTS_SHIFT = 3


def _fingerprint(x: Any) -> Any:
    """What numba's type of an argument depends on, cheaply (arrays, tuples of them, scalars)."""
    if isinstance(x, np.ndarray):
        f = x.flags
        return x.dtype.str, x.ndim, f.c_contiguous, f.f_contiguous, f.writeable, f.aligned
    if isinstance(x, tuple):
        return tuple(_fingerprint(y) for y in x)
    return type(x)


_COMPILED: dict[tuple[Any, ...], Callable[..., Any]] = {}


def compiled(kernel: numba.core.registry.CPUDispatcher, *args: Any) -> Callable[..., Any]:
    """The compiled function of ``kernel`` for the types of ``args`` (compiled, or loaded from numba's cache, on
    first use; then remembered).

    Calling it skips the dispatcher's matching of the arguments' types, which costs more than the kernel itself for
    the 20-odd arrays of a one-game step (about 0.8 of 1.4 µs). It must only be called with arguments of exactly
    those types (same dtypes, dimensions, layouts and read-only flags): it does not check them."""
    key = (kernel, _fingerprint(args))
    fn = _COMPILED.get(key)
    if fn is None:
        fn = _COMPILED[key] = kernel.compile(tuple(numba.typeof(a) for a in args))
    return fn


@numba.njit(cache=True, _nrt=False)
def single_reset(st, tb, obs, mask) -> None:
    """Game 0 starts anew (empty scorecard, first roll from its generator); writes its observation and mask."""
    _new_game(0, st, tb)
    single_show(st, tb, obs, mask)


@numba.njit(cache=True, _nrt=False)
def single_show(st, tb, obs, mask) -> None:
    """Write the observation and mask of game 0 as it stands (after :meth:`Batch.load_state`)."""
    lbits = _legal(0, st, tb)
    _write_mask(0, lbits, mask, st, tb)
    _write_obs_row(obs, 0, lbits, st, tb)


@numba.njit(cache=True, _nrt=False)
def single_step(a, st, tb, obs, mask) -> int:
    """Game 0 takes action ``a`` (in the action space; an illegal one is a no-op) as :meth:`YachtEnv.step
    <yacht_env.env.YachtEnv.step>` does; writes the new observation and mask. Returns
    ``points << SINGLE_POINTS_SHIFT | SINGLE_*`` flags (terminated, truncated, illegal): one int, cheap to return."""
    filled, steps, cfg = st[2], st[7], tb[1]
    pts, bad = _play(0, a, st, tb, mask)
    term = np.int64(filled[0]) == (np.int64(1) << cfg[C_NUM_CAT]) - 1
    trunc = (not term) and steps[0] >= cfg[C_MAX_STEPS]
    single_show(st, tb, obs, mask)
    code = np.int64(pts) << SINGLE_POINTS_SHIFT
    if term:
        code |= SINGLE_TERMINATED
    if trunc:
        code |= SINGLE_TRUNCATED
    if bad:
        code |= SINGLE_ILLEGAL
    return code


# ---- random legal actions -------------------------------------------------------------------------------------------


_SM_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_SM_M1 = np.uint64(0xBF58476D1CE4E5B9)
_SM_M2 = np.uint64(0x94D049BB133111EB)
_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_REJECTION_TRIES = 4


@numba.njit(cache=True, inline="always", _nrt=False)
def _splitmix64(x: np.uint64) -> tuple[np.uint64, np.uint64]:
    x = x + _SM_GAMMA
    z = x
    z = (z ^ (z >> _U30)) * _SM_M1
    z = (z ^ (z >> _U27)) * _SM_M2
    return x, z ^ (z >> _U31)


@numba.njit(cache=True, inline="always", _nrt=False)
def _select_bit(bits, r) -> np.int64:
    """Index of the set bit of rank ``r`` (0: the lowest) of ``bits`` (which has more than ``r`` set bits): a
    binary search on popcounts, with no data-dependent branch."""
    pos = np.int64(0)
    width = np.int64(32)
    while width > 0:
        low = _popcount(bits & ((np.int64(1) << width) - 1))
        up = r >= low
        r = r - low if up else r
        bits = (bits >> width) if up else bits
        pos = pos + width if up else pos
        width >>= 1
    return pos


@numba.njit(cache=True, inline="always", _nrt=False)
def _random_legal(i, mask, state, out) -> None:
    """One uniformly random legal action of row i, -1 if none is legal. Up to 64 actions: the row as a bit set,
    one draw of an index below its popcount, that set bit (no branch on the mask's contents); more actions: a few
    rejection tries, then an exact pick by counting."""
    a_n = mask.shape[1]
    s = state[i]
    found = -1
    if 8 <= a_n <= 64:
        bits = _bool_bits(mask, i, a_n)
        cnt = _popcount(bits)
        if cnt > 0:
            s, z = _splitmix64(s)
            found = _select_bit(bits, np.int64(P.mulhi64(z, np.uint64(cnt))))
        state[i] = s
        out[i] = found
        return
    for _ in range(_REJECTION_TRIES):
        s, z = _splitmix64(s)
        a = np.int64(P.mulhi64(z, np.uint64(a_n)))
        if mask[i, a]:
            found = a
            break
    if found < 0:
        cnt = 0
        for a in range(a_n):
            cnt += mask[i, a]
        if cnt > 0:
            s, z = _splitmix64(s)
            r = np.int64(P.mulhi64(z, np.uint64(cnt)))
            for a in range(a_n):
                if mask[i, a]:
                    if r == 0:
                        found = a
                        break
                    r -= 1
    state[i] = s
    out[i] = found


@numba.njit(cache=True, nogil=True, _nrt=False)
def random_legal_chunks(counter, n_chunks, chunk, mask, state, out) -> None:
    """One uniformly random legal action per row of ``mask`` into ``out`` (-1 for a row with none); ``state`` holds
    a splitmix64 counter per row, advanced in place. A chunk kernel (see :mod:`yacht_env.vector.parallel`)."""
    n = mask.shape[0]
    while True:
        lo, hi = claim_chunk(counter, n_chunks, chunk, n)
        if lo < 0:
            return
        for i in range(lo, hi):
            _random_legal(i, mask, state, out)
        finish_chunk(counter)


class LegalActionSampler:
    """Uniformly random legal actions for a batch of masks, in numba (for benchmarks and random agents).

    >>> sampler = LegalActionSampler(n=4096, seed=0)
    >>> actions = sampler(masks)   # masks: (4096, A) bool
    """

    def __init__(self, n: int, seed: int | None = None, threads: int | None = None) -> None:
        ss = np.random.SeedSequence(seed)
        self.state = ss.generate_state(n, dtype=np.uint64)
        self.threads = default_threads() if threads is None else max(1, int(threads))

    def __call__(self, masks: np.ndarray) -> np.ndarray:
        """A fresh (N,) int64 array of actions, -1 where a row allows none."""
        masks = np.ascontiguousarray(masks, dtype=np.bool_)
        if masks.ndim != 2 or masks.shape[0] != self.state.shape[0]:
            raise ValueError(f"masks must have shape ({self.state.shape[0]}, A), got {masks.shape}")
        out = np.empty(masks.shape[0], dtype=np.int64)
        run_chunks(random_legal_chunks, masks.shape[0], (masks, self.state, out), self.threads)
        return out
