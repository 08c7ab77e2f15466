"""Our box scores against reference implementations of the same rules (the ``bench`` extra installs them).

- Yatzy: ``yatzy_solver.Variant("yatzy-scandinavian").score`` for every one of the 7,776 ordered rolls and 15 boxes.
- Knizia's Yacht: OpenSpiel's ``yacht`` game (``pyspiel``, PyPI ``open-spiel`` 2.0+) for every ordered roll and its
  12 boxes: its chance node is driven with the roll's outcome, the player keeps all five dice, scores the box, and
  the total is read from the state.

A test skips, naming the package, only where its reference package is not installed.
"""

from __future__ import annotations

import itertools
import re

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


# OpenSpiel's names of its 12 boxes (``action_to_string`` of a score action) -> our ids; its order differs from ours
OPENSPIEL_BOXES = {"Ones": "ones", "Twos": "twos", "Threes": "threes", "Fours": "fours", "Fives": "fives",
                   "Sixes": "sixes", "Chance": "choice", "Four of a Kind": "four_of_a_kind",
                   "Full House": "full_house", "Small Straight": "little_straight", "Large Straight": "big_straight",
                   "Yacht": "yacht"}


def test_knizia_scores_equal_openspiel_yacht() -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="open-spiel (pip install 'open-spiel>=2') is not installed")
    game = pyspiel.load_game("yacht", {"players": 1})
    rs = get_rules("knizia")
    first_score = 1 << 5  # actions 0..31 reroll a subset of the five dice, 32 + k scores OpenSpiel's box k
    start = game.new_initial_state()
    assert start.is_chance_node() and len(start.chance_outcomes()) == 6**5
    boxes = {}
    for k in range(len(OPENSPIEL_BOXES)):
        probe = start.clone()
        probe.apply_action(0)  # a roll of five 1s
        probe.apply_action(0)  # keep all: on to scoring
        boxes[first_score + k] = OPENSPIEL_BOXES[probe.action_to_string(first_score + k).removeprefix("Score in ")]
    assert sorted(boxes.values()) == sorted(rs.category_ids)
    total = re.compile(r"Player 0 \(total: (-?\d+)\)")
    checked = 0
    for dice in ROLLS:
        state = game.new_initial_state()
        state.apply_action(sum((d - 1) * 6**i for i, d in enumerate(dice)))  # die i is outcome digit i, base 6
        assert str(state).splitlines()[1] == "Dice: " + " ".join(map(str, dice))
        state.apply_action(0)  # keep all five dice
        assert sorted(state.legal_actions()) == sorted(boxes)
        for action, cid in boxes.items():
            after = state.clone()
            after.apply_action(action)
            theirs = int(total.search(str(after)).group(1))
            assert score(cid, dice, "knizia") == theirs, (dice, cid)
            checked += 1
    assert checked == 7776 * 12
