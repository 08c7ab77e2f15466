"""The successors of turn-start states: which states a batch of turns can lead to, for filling value memos.

A network that values turn-start states (:mod:`yacht_agents.td_agent`) is asked only for the states the turns at
hand can reach; :func:`successor_boxes` reduces each category to the box values that lead to distinct successors,
and :func:`missing_successors` lists the successors a memo does not hold yet.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from yacht_env.jit.compile import next_turn_start
from yacht_env.jit.numba_cache import cached_njit
from yacht_env.rules import RuleSet, TurnStartLayout
from yacht_env.rules import next_turn_start as plain_next_turn_start  # Python callers: the compiled one is not cached
from yacht_solver.search.turn_constants import SearchConstants, Starts


class SuccessorBoxes(NamedTuple):
    """Per category c, the box values ``box[c, :nbox[c]]`` that lead to distinct successor states."""

    box: np.ndarray
    nbox: np.ndarray


@cached_njit
def missing_successors(cs: SearchConstants, starts: Starts, known: np.ndarray, boxes: SuccessorBoxes) -> np.ndarray:
    """Flat indices (possibly repeated) of the successors of the turn-start states ``starts`` that ``known`` does
    not hold yet."""
    box, nbox = boxes
    U, Y = cs.U, cs.Y
    out = np.empty(starts.F.shape[0] * box.shape[0] * box.shape[1], dtype=np.int64)
    n = 0
    for i in range(starts.F.shape[0]):
        F, u, y = starts.F[i], starts.u[i], starts.y[i]
        for c in range(cs.scoring.box_scores.shape[1]):
            if (F >> c) & 1:
                continue
            base = (F | (1 << c)) * U
            for j in range(nbox[c]):
                u2, y2 = next_turn_start(c, box[c, j], u, y, cs.thr, Y, cs.ycat)
                idx = (base + u2) * Y + y2
                if not known[idx]:
                    out[n] = idx
                    n += 1
    return out[:n]


def successor_boxes(rules: RuleSet) -> SuccessorBoxes:
    """:class:`SuccessorBoxes` of a rule set, for :func:`missing_successors`."""
    layout = TurnStartLayout.of(rules)
    opts: list[list[int]] = []
    for c in range(rules.num_categories):
        vals = sorted({int(v) for v in rules.box_scores[:, c]} | {int(v) for v in rules.joker_scores[:, c]})
        succ: dict[tuple[int, int], int] = {}
        for v in vals:  # the smallest box value of each distinct successor (over every capped upper total)
            key = tuple(plain_next_turn_start(c, v, u, 0, layout.threshold, layout.Y, layout.five_kind_category)
                        for u in range(layout.U))
            succ.setdefault(key, v)
        opts.append(sorted(succ.values()))
    width = max(len(o) for o in opts)
    box = np.zeros((rules.num_categories, width), dtype=np.int64)
    for c, o in enumerate(opts):
        box[c, : len(o)] = o
    return SuccessorBoxes(box, np.array([len(o) for o in opts], dtype=np.int64))
