"""The expectimax policy head (agents/turn_policy.py): exact within the turn, and trainable by MaskablePPO."""

from __future__ import annotations

import numpy as np
import pytest
import torch as th

from yacht_agents.turn_policy import TurnExpectimax, TurnExpectimaxPolicy, utility_index
from yacht_env import dice as D
from yacht_env import observation as O
from yacht_env.actions import action_mask
from yacht_env.rules import FIVE_KIND_FACE, NUM_UPPER, RULESETS, box_score, get_rules
from yacht_env.state import GameState
from yacht_solver import solve

RULES = tuple(RULESETS)


def random_states(rules: str, n: int, seed: int) -> list[GameState]:
    """Scorecards with random boxes filled with scores some hand gives, dice that are five of a kind a third of
    the time (so that the Joker and the five-of-a-kind bonus come up), any number of rolls left."""
    rs = get_rules(rules)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        scores: list[int | None] = [None] * rs.num_categories
        for c in rng.permutation(rs.num_categories)[: rng.integers(0, rs.num_categories)]:
            h = rng.integers(D.NUM_HANDS) if rng.random() < 0.7 else int(np.flatnonzero(FIVE_KIND_FACE)[0])
            scores[c] = int(rs.box_scores[h, c])
        if rng.random() < 0.35:
            dice = (int(rng.integers(1, 7)),) * 5
        else:
            dice = tuple(int(x) for x in rng.integers(1, 7, size=5))
        filled = sum(s is not None for s in scores)  # a bonus fills a box besides the five-of-a-kind one
        bonus = int(rng.integers(0, min(3, filled))) if rs.five_kind_bonus and rs.five_kind_category >= 0 and \
            scores[rs.five_kind_category] == 50 else 0
        out.append(GameState(rs.name, dice, int(rng.integers(0, 3)), tuple(scores), bonus))
    return out


def solver_utilities(state: GameState, solution, head: TurnExpectimax) -> np.ndarray:
    """The utilities that make the head play optimally: the optimal value of the scorecard each way of closing a
    box leads to (checked to be the same for every hand sharing a utility)."""
    rs = state.ruleset
    idx, n = utility_index(rs)
    util = np.full(n, np.nan)
    filled = state.filled_bits
    for h in range(D.NUM_HANDS):
        face = int(FIVE_KIND_FACE[h])
        for c in range(rs.num_categories):
            if filled >> c & 1:
                continue
            box = int(box_score(rs.params, rs.box_scores[h], rs.joker_scores[h], face, filled, c))
            upper = state.upper_total + (box if c < NUM_UPPER else 0)
            ybox = state.yahtzee_box if c != rs.five_kind_category else box
            bits = filled | 1 << c
            v = 0.0 if bits == rs.all_bits else float(solution.values[solution.layout.key(bits, upper, ybox)])
            i = idx[h, c]
            if np.isnan(util[i]):
                util[i] = v
            else:
                assert util[i] == pytest.approx(v, abs=1e-9), (h, c)
    return np.nan_to_num(util) * head.reward_scale


@pytest.mark.parametrize("rules", RULES)
def test_head_with_the_solvers_utilities_gives_the_solvers_action_values(rules: str) -> None:
    sol = solve(rules)
    head = TurnExpectimax(rules, 0.02, [8], th.nn.Tanh).double()
    states = [s for s in random_states(rules, 400, seed=7) if not s.is_over]
    obs = th.as_tensor(np.stack([O.encode(s) for s in states]), dtype=th.float64)
    util = th.as_tensor(np.stack([solver_utilities(s, sol, head) for s in states]))
    with th.no_grad():
        q, value = head.action_values(obs, util)
    q, value = q.numpy() / head.reward_scale, value.numpy() / head.reward_scale
    jokers = 0
    for i, s in enumerate(states):
        want = sol.action_values(s) - s.total
        legal = action_mask(s)
        np.testing.assert_allclose(q[i, legal], want[legal], atol=1e-4, err_msg=s.notation())
        assert value[i] == pytest.approx(np.nanmax(want), abs=1e-4)
        jokers += bool(FIVE_KIND_FACE[s.hand]) and s.yahtzee_box is not None
    if get_rules(rules).has_five_kind_box:
        assert jokers > 20  # the Joker branches were exercised


@pytest.mark.parametrize("rules", RULES)
def test_box_values_with_zero_utilities_are_the_points_and_the_legal_boxes(rules: str) -> None:
    """With every utility 0 a box's value is exactly what scoring it adds (bonuses, Joker values), and the boxes
    the rules forbid (filled, or out of the forced Joker's order) are about NEG."""
    head = TurnExpectimax(rules, 0.02, [8], th.nn.Tanh).double()
    states = [s for s in random_states(rules, 300, seed=3) if not s.is_over]
    obs = th.as_tensor(np.stack([O.encode(s) for s in states]), dtype=th.float64)
    with th.no_grad():
        q, _ = head.action_values(obs, th.zeros(len(states), head.num_utilities, dtype=th.float64))
    q_box = q[:, 32:].numpy() / head.reward_scale
    for i, s in enumerate(states):
        legal = s.legal_categories()
        assert np.flatnonzero(q_box[i] > -1000).tolist() == sorted(legal), s.notation()
        for c in legal:
            assert q_box[i, c] == pytest.approx(s.points(c), abs=1e-5), (s.notation(), c)


def test_untrained_head_plays_the_turn_for_its_points() -> None:
    """Utilities start at 0: with one roll left and Yacht's dice 6 6 6 6 1, the best keep is the four sixes."""
    head = TurnExpectimax("yacht", 0.02, [8], th.nn.Tanh)
    s = GameState("yacht", (1, 6, 6, 6, 6), 1, (None,) * 12)
    logits, value = head(th.as_tensor(O.encode(s))[None])
    legal = action_mask(s)
    best = int(np.flatnonzero(legal)[np.argmax(logits[0].detach().numpy()[legal])])
    assert tuple(D.pattern_faces(s.dice, best)) == (6, 6, 6, 6)
    assert value.item() > 24 * 0.02


def test_policy_rejects_observations_of_other_rules() -> None:
    from gymnasium import spaces

    with pytest.raises(ValueError, match="needs observations of shape"):
        TurnExpectimaxPolicy(spaces.Box(0, 1, (O.size("yahtzee"),)), spaces.Discrete(44), lambda _: 1e-3,
                             rules="yacht")
