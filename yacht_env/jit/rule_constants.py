"""The rules as dense arrays, evaluated by the rules' own compiled functions, for engines that cannot call them
(the torch policy of ``yacht_agents.turn_policy``).

:func:`rule_constants` returns, for a rule set, everything a turn's search needs beyond the score arrays:

- ``gain[u, c, v]``: what scoring a box of value ``v`` in category ``c`` adds beyond ``v`` at capped upper total
  ``u`` for a hand that is not five of a kind (the upper bonus when it crosses the threshold);
- ``box5[i, F, c]``, ``legal5[i, F, c]``: the box the ``i``-th five of a kind (faces 1..6) writes in ``c`` with the
  boxes ``F`` filled (the Joker's full values where they apply), and whether it may go there;
- ``bonus5[i, y]``: what it adds beyond its box when the five-of-a-kind box was scored with one (``y = 1``) or not;
- ``five_plain``: whether a five of a kind is scored as any other hand (no Joker, no bonus).

Every entry is ``legal_bits`` / ``box_score`` / ``points_for`` of :mod:`yacht_env.rules` itself; building the
arrays checks that the points of a box decompose so (``ValueError`` for rules where they do not).
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from yacht_env.jit.compile import box_score, legal_bits, points_for
from yacht_env.jit.numba_cache import cached_njit
from yacht_env.rules import FIVE_KIND_FACE, RuleSet, ScoringConstants, TurnStartLayout
from yacht_env.rules import scoring as pure


class RuleConstants(NamedTuple):
    """A rule set's points decomposed into dense arrays (see the module docstring; :func:`rule_constants`): what a
    box adds beyond its value, and the boxes, legality and bonus of the six fives of a kind. Read-only arrays."""

    gain: np.ndarray  # (U, C, V) int32
    box5: np.ndarray  # (6, 2**C, C) int32
    legal5: np.ndarray  # (6, 2**C, C) bool
    bonus5: np.ndarray  # (6, 2) int32
    five_plain: bool  # five of a kind is scored as any other hand (no Joker, no bonus): the arrays add nothing


@cached_njit
def _gain(params: tuple[int, ...], C: int, U: int, V: int) -> np.ndarray:
    out = np.zeros((U, C, V), dtype=np.int32)
    row = np.zeros(C, dtype=np.int32)
    for c in range(C):
        for v in range(V):
            row[c] = v
            for u in range(U):
                out[u, c, v] = points_for(params, row, row, 0, 0, u, False, c) - v
        row[c] = 0
    return out


@cached_njit
def _five(scoring: ScoringConstants, hands: np.ndarray, faces: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    params, S, J = scoring.params, scoring.box_scores, scoring.joker_scores
    C = S.shape[1]
    n = 1 << C
    box = np.zeros((6, n, C), dtype=np.int32)
    legal = np.zeros((6, n, C), dtype=np.bool_)
    bonus = np.full((6, 2), -1, dtype=np.int32)
    bad = 0
    for i in range(6):
        h = hands[i]
        face = faces[i]
        for F in range(n - 1):
            bits = legal_bits(params, face, F)
            for c in range(C):
                box[i, F, c] = box_score(params, S[h], J[h], face, F, c)
                legal[i, F, c] = (bits >> c) & 1 == 1
                if legal[i, F, c]:
                    for y in range(2):
                        extra = points_for(params, S[h], J[h], face, F, 0, y == 1, c) - box[i, F, c]
                        if bonus[i, y] < 0:
                            bonus[i, y] = extra
                        elif bonus[i, y] != extra:
                            bad += 1
    return box, legal, bonus, bad


@cache
def rule_constants(rules: RuleSet) -> RuleConstants:
    """The :class:`RuleConstants` of a rule set (built once)."""
    layout = TurnStartLayout.of(rules)
    scoring = rules.scoring
    params, S, J = scoring.params, scoring.box_scores, scoring.joker_scores
    C = rules.num_categories
    V = int(max(S.max(), J.max())) + 1
    hands = np.flatnonzero(FIVE_KIND_FACE).astype(np.int64)
    gain = _gain(params, C, layout.U, V)
    box5, legal5, bonus5, bad = _five(scoring, hands, np.ascontiguousarray(FIVE_KIND_FACE[hands]))
    bonus5 = np.maximum(bonus5, 0)
    if bad:
        raise ValueError(f"rules {rules.name!r}: the points of a five of a kind are not its box plus one bonus")
    plain = FIVE_KIND_FACE == 0
    for F in range(0, 1 << C, max(1, (1 << C) // 512)):  # the legal boxes of other hands are the open ones
        if pure.legal_bits(params, 0, F) != ((1 << C) - 1) & ~F:  # the rules in Python: a check apart
            raise ValueError(f"rules {rules.name!r}: a hand that is not five of a kind may not fill every open box")
    for u in range(layout.U):  # the points of the other hands are their box plus the gain of its value
        for c in range(C):
            want = [pure.points_for(params, S[h], J[h], 0, 0, u, False, c) for h in np.flatnonzero(plain)[::7]]
            if want != [int(S[h, c] + gain[u, c, S[h, c]]) for h in np.flatnonzero(plain)[::7]]:
                raise ValueError(f"rules {rules.name!r}: points are not the box plus the upper gain")
    open_ = ~((np.arange(1 << C)[:, None] >> np.arange(C)) & 1).astype(bool)
    five_plain = bool((box5[:, :-1] == S[hands][:, None, :]).all() and (legal5[:, :-1] == open_[None, :-1]).all()
                      and not bonus5.any())
    t = RuleConstants(gain, box5, legal5, bonus5, five_plain)
    for a in (t.gain, t.box5, t.legal5, t.bonus5):
        a.setflags(write=False)
    return t


__all__ = ["RuleConstants", "rule_constants"]
