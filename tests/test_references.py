"""Our box scores against reference implementations of the same rules (the ``bench`` extra installs them).

- Yatzy: ``yatzy_solver.Variant("yatzy-scandinavian").score`` for every one of the 7,776 ordered rolls and 15 boxes.

A test skips, naming the package, only where its reference package is not installed.
"""

from __future__ import annotations

import itertools

import pytest

from yacht_env.rules import get_rules, score

ROLLS = list(itertools.product(range(1, 7), repeat=5))  # every ordered roll of five dice


def test_yatzy_scores_equal_yatzy_solver() -> None:
    ys = pytest.importorskip("yatzy_solver", reason="yatzy-solver (pip install yatzy-solver) is not installed")
    ref = ys.Variant("yatzy-scandinavian")
    rs = get_rules("yatzy")
    assert list(ref.categories) == list(rs.category_ids)  # the same boxes in the same order
    checked = 0
    for dice in ROLLS:
        for cid in rs.category_ids:
            assert score(cid, dice, "yatzy") == ref.score(cid, list(dice)), (dice, cid)
            checked += 1
    assert checked == 7776 * 15
