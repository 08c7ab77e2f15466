"""What the turn search reads: the dice arrays frozen into compiled code, and each rule set's arrays.

The keep tree walks the 462 keeps through ``KEEP_ADD`` (one die more) and ``REMOVE_PTR`` / ``REMOVE_IDX`` (one die
less); the dice arrays are :data:`yacht_env.dice.DICE_CONSTANTS`' arrays (compile-time constants here, the search's
loops over them fixed). :func:`search_constants` groups, per category, the hands that are not five of a kind by their
box score, so that :func:`yacht_solver.search.turn_search.hand_values` pays one small table per category instead of
one rules call per hand. Built once per rule set; every engine that searches a turn (the solver, the agents, the
objectives) reads these.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from yacht_env import dice as D
from yacht_env.jit.compile import points_for
from yacht_env.jit.numba_cache import cached_njit
from yacht_env.rules import RuleSet, ScoringConstants, TurnStartLayout

LANES = 32
"""States searched together, side by side in memory. The lane count reaches the kernels as a run-time number (the row
width): a compile-time constant would be unrolled into scalar code instead of vectorised."""
TIE_TOLERANCE = 1e-9
"""Actions whose values are this close to the best count as tied."""
NEG_INF = -np.inf

# ---- dice arrays, frozen into the compiled code ---------------------------------------------------------------

NUM_HANDS = D.NUM_HANDS
NUM_KEEPS = D.NUM_KEEPS
NUM_FACES = D.NUM_FACES
HAND0 = int(D.HAND_TO_KEEP[0])  # 210: first keep of five dice
if not (np.array_equal(D.HAND_TO_KEEP, np.arange(HAND0, NUM_KEEPS)) and (D.KEEP_SIZE[:HAND0] < D.NUM_DICE).all()):
    raise ImportError("yacht_env.dice: the five-dice keeps must be the last keeps, in hand order")
KEEP_ADD = D.DICE_CONSTANTS.keep_add[:HAND0]
"""(210, 6) int32: keep with one more die of each face, for the keeps of fewer than five dice."""


def _remove_csr() -> tuple[np.ndarray, np.ndarray]:
    ptr = np.zeros(NUM_KEEPS + 1, dtype=np.int32)
    idx: list[int] = []
    for k in range(NUM_KEEPS):
        sub = [int(r) for r in D.KEEP_REMOVE[k] if r >= 0]
        if any(r >= k for r in sub):
            raise ImportError("yacht_env.dice: a keep with a die removed must come earlier")
        idx.extend(sub)
        ptr[k + 1] = len(idx)
    return ptr, np.array(idx, dtype=np.int32)


REMOVE_PTR, REMOVE_IDX = _remove_csr()
"""The keeps with one die less of keep k: ``REMOVE_IDX[REMOVE_PTR[k]:REMOVE_PTR[k + 1]]`` (one per distinct face)."""
HAND_PROBABILITY = D.HAND_PROBABILITY
FIVE_KIND_FACE = D.DICE_CONSTANTS.five_face
FIVE_KIND_HANDS = np.flatnonzero(FIVE_KIND_FACE).astype(np.int64)
PATTERN_KEEP = D.DICE_CONSTANTS.pattern_keep
"""(252, 32) int32: the keep of each keep pattern of each hand."""
for _a in (REMOVE_PTR, REMOVE_IDX, FIVE_KIND_HANDS):
    _a.setflags(write=False)


# ---- the rules' arrays for the search ---------------------------------------------------------------------------


@cached_njit
def hand_points(scoring: ScoringConstants, U: int) -> np.ndarray:
    """(U, C, 252) points of each hand in each category for every capped upper total, as ``points_for`` gives them
    to a hand that is not five of a kind (face 0: no Joker, no five-of-a-kind bonus)."""
    params, S, J = scoring.params, scoring.box_scores, scoring.joker_scores
    C = S.shape[1]
    PT = np.empty((U, C, NUM_HANDS))
    zero, no = np.int64(0), np.bool_(False)  # typed, not literal: the signature every kernel compiles
    for u in range(U):
        for c in range(C):
            for h in range(NUM_HANDS):
                PT[u, c, h] = points_for(params, S[h], J[h], zero, zero, u, no, c)
    return PT


class SearchConstants(NamedTuple):
    """What the compiled turn search reads for one rule set (:func:`search_constants`): one argument (numba compiles a
    named tuple's fields into the kernel like separate arguments).

    ``scoring`` is the rule set's :class:`~yacht_env.rules.ScoringConstants` (:attr:`~yacht_env.rules.RuleSet.scoring`,
    the same object the engine's arrays hold). The hands that are not five of a kind are grouped, per category, by
    their box score: class ``CLS[c, h]`` of box value ``BOXV[c, n]`` (``NV[c]`` classes) scoring ``PTV[u, c, n]``
    points at capped upper total ``u``. ``U``, ``Y``, ``thr`` and ``ycat`` are the turn-start layout's dimensions,
    :attr:`TurnStartLayout.dims <yacht_env.rules.TurnStartLayout.dims>` (the layout's methods are Python's; the
    kernels take its four ints)."""

    scoring: ScoringConstants
    CLS: np.ndarray
    BOXV: np.ndarray
    NV: np.ndarray
    PTV: np.ndarray
    U: int
    Y: int
    thr: int
    ycat: int


class Starts(NamedTuple):
    """Turn-start keys of a batch of states (int64 arrays): filled-category bits, capped upper total, and whether the
    five-of-a-kind box holds its full score."""

    F: np.ndarray
    u: np.ndarray
    y: np.ndarray


class KeepValues(NamedTuple):
    """The keep values of a batch of searched turns, in groups of ``LANES`` states (:func:`empty_keep_values
    <yacht_solver.search.turn_search.empty_keep_values>`): ``K1[g, k, b]`` is the value of keep k with one roll left
    in lane b of group g, ``K2`` with two rolls left."""

    K1: np.ndarray
    K2: np.ndarray


class KeepLane(NamedTuple):
    """One state's keep values, where a decision reads them: lane ``b`` of one group's ``K1`` (462, lanes) and ``K2``
    (a group of :class:`KeepValues`, or the single-state searches' own (462, 1) arrays)."""

    K1: np.ndarray
    K2: np.ndarray
    b: int


class DecisionRule(NamedTuple):
    """How an action is chosen from its values: the keep patterns allowed (``keep_mask[h, p]``), the tie rule
    (``prefer_score``: the greedy player's) and the tolerance within which values tie."""

    keep_mask: np.ndarray
    prefer_score: bool
    tol: float


@cache
def search_constants(rules: RuleSet) -> SearchConstants:
    """The :class:`SearchConstants` of a rule set (built once). Raises ``NotImplementedError`` if some category's points
    are not a function of the box score and the upper total, which the box-score classes need."""
    layout = TurnStartLayout.of(rules)
    scoring = rules.scoring
    S = scoring.box_scores
    PT = hand_points(scoring, layout.U)
    C = rules.num_categories
    plain = FIVE_KIND_FACE == 0
    values = [np.unique(S[plain, c]) for c in range(C)]
    width = max(len(v) for v in values)
    CLS = np.zeros((C, NUM_HANDS), dtype=np.int32)
    BOXV = np.zeros((C, width), dtype=np.int64)
    NV = np.array([len(v) for v in values], dtype=np.int64)
    PTV = np.zeros((PT.shape[0], C, width))
    for c, vals in enumerate(values):
        cls = np.where(plain, np.searchsorted(vals, S[:, c]), 0)
        rep = np.array([np.flatnonzero(plain & (S[:, c] == v))[0] for v in vals])
        if not np.array_equal(PT[:, c, plain], PT[:, c, rep[cls[plain]]]):
            raise NotImplementedError(f"rules {rules.name!r}: the points of {rules.category_ids[c]!r} depend on "
                                      "more than the box score and the upper total")
        CLS[c] = cls
        BOXV[c, : len(vals)] = vals
        PTV[:, c, : len(vals)] = PT[:, c, rep]
    for a in (CLS, BOXV, NV, PTV):
        a.setflags(write=False)
    U, Y, thr, ycat = (int(d) for d in layout.dims)
    return SearchConstants(scoring, CLS, BOXV, NV, PTV, U, Y, thr, ycat)
