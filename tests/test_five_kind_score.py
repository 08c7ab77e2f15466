"""A rule set whose five of a kind scores 40, not 50: the single env (both engines), the vector engine and the
solver all take a 40 in the five-of-a-kind box as scored (the bonus and the Joker follow), since every engine derives
it from the rule set rather than from a number of its own."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.env import YachtEnv
from yacht_env.rules import JOKER_FORCED, RULESETS, YAHTZEE, Category, RuleSet
from yacht_env.state import GameState
from yacht_env.vector import YachtVectorEnv
from yacht_solver import solve

NAME = "yahtzee-forty-test"
# Yahtzee's upper section and bonus, a five-of-a-kind box worth 40 (its bonus 100, forced Joker) and Chance: 8 boxes,
# small enough for the solver to solve in a moment
FORTY = RuleSet(
    name=NAME,
    title="Yahtzee, five of a kind 40",
    categories=YAHTZEE.categories[:6] + (Category("yahtzee", "Yahtzee", "five_kind", 40),
                                         Category("chance", "Chance", "sum")),
    upper_bonus_threshold=63,
    upper_bonus=35,
    five_kind_category=6,
    five_kind_bonus=100,
    joker=JOKER_FORCED,
)
FOURS = 3  # index of the fours box


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A state names its rules, so the variant is looked up by name while a test runs."""
    monkeypatch.setitem(RULESETS, NAME, FORTY)
    yield


def _fours_after_forty(rest: dict[int, int]) -> GameState:
    """Five 4s, no rolls left, 40 in the five-of-a-kind box, the other boxes of ``rest`` filled."""
    scores = [rest.get(c) for c in range(FORTY.num_categories)]
    scores[6] = 40
    return GameState(NAME, (4, 4, 4, 4, 4), 0, tuple(scores), 0)


def test_the_rule_set_says_what_its_box_holds() -> None:
    assert FORTY.five_kind_box_score == 40 and YAHTZEE.five_kind_box_score == 50
    assert RULESETS["yacht"].five_kind_box_score == 0  # Yacht tracks no five-of-a-kind box
    with pytest.raises(ValueError, match="five_kind_category 7 must be a box of kind 'five_kind'"):
        RuleSet(name="bad", title="bad", categories=FORTY.categories, five_kind_category=7, five_kind_bonus=100)


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_both_single_engines_pay_the_bonus_after_forty(engine: str) -> None:
    """Forced Joker: five 4s with the box scored must go in Fours (open): 20 points and the bonus of 100."""
    env = YachtEnv(NAME, engine=engine)
    obs, info = env.reset(seed=0, options={"state": _fours_after_forty({7: 20})})
    assert np.flatnonzero(info["action_mask"]).tolist() == [NUM_KEEP_ACTIONS + FOURS]
    assert env.unwrapped.state.points(FOURS) == 120
    _, reward, terminated, _, info = env.step(NUM_KEEP_ACTIONS + FOURS)
    assert reward == 120 and env.state.bonus_count == 1 and not terminated


def test_the_observation_shows_the_bonus_and_the_box() -> None:
    from yacht_env import observation as O

    obs = O.encode(_fours_after_forty({7: 20}))
    lay = O.layout(FORTY)
    assert obs[lay["points"]][FOURS] == pytest.approx(120 / O.POINTS_SCALE)
    assert obs[lay["yahtzee_box"]].tolist() == [0.0, 1.0, 0.0]
    assert O.decode(obs, FORTY)["yahtzee_box"] == 40


def test_the_vector_engine_plays_as_the_single_env() -> None:
    """Games of a policy that chases five of a kind, in the vector engine and one by one in the single env: the same
    rewards, and some games earn the bonus after a 40."""
    n, seed = 200, 11
    vec = YachtVectorEnv(n, rules=NAME)
    _, info = vec.reset(seed=seed)
    singles = [YachtEnv(NAME, engine="python") for _ in range(n)]
    infos = [e.reset(seed=seed + i)[1] for i, e in enumerate(singles)]
    totals, done = np.zeros(n), np.zeros(n, dtype=bool)
    for _ in range(3 * FORTY.num_categories):
        actions = np.array([0 if done[i] else _chase(vec.state(i), info["action_mask"][i]) for i in range(n)])
        _, rewards, terminated, _, info = vec.step(actions)
        for i in np.flatnonzero(~done):
            e = singles[i]
            assert actions[i] == _chase(e.state, infos[i]["action_mask"])
            _, r, term, _, infos[i] = e.step(int(actions[i]))
            assert (r, term) == (rewards[i], terminated[i])
        totals[~done] += rewards[~done]
        done |= terminated
    assert done.all()
    assert sum(e.state.bonus_count > 0 for e in singles) > 0, "the chasing policy earns a bonus in some games"
    assert totals.tolist() == [e.state.total for e in singles]


def _chase(state: GameState, mask: np.ndarray) -> int:
    """Keep the dice of the commonest face; score the five-of-a-kind box with five of a kind, else the legal box
    with the most points."""
    legal = np.flatnonzero(mask)
    counts = np.bincount(state.dice, minlength=7)
    face = int(counts.argmax())
    keep = sum(1 << i for i, d in enumerate(state.dice) if d == face)
    if state.rolls_left and counts[face] < 5 and keep in legal:
        return keep
    scores = [a for a in legal if a >= NUM_KEEP_ACTIONS]
    return max(scores, key=lambda a: (state.points(a - NUM_KEEP_ACTIONS), -a))


def test_the_solver_counts_forty_as_scored() -> None:
    sol = solve(FORTY, cache=False)
    filled = [c for c in FORTY.category_ids if c != "chance"]
    scored, scratched = sol.value(filled, 63, 40), sol.value(filled, 63, 0)
    assert scored > scratched, "a 40 in the box makes a five of a kind in Chance earn the bonus"
    with pytest.raises(ValueError, match="yahtzee_box must be 0 or 40, got 50"):
        sol.value(filled, 63, 50)
    state = _fours_after_forty({c: int(FORTY.box_scores[0, c]) for c in (0, 1, 2, 4, 5, 7)})
    values = sol.action_values(state)
    assert values[NUM_KEEP_ACTIONS + FOURS] - state.total == 120, "the last box: the env's reward, bonus included"
    env = YachtEnv(NAME, engine="compiled")
    env.reset(seed=0, options={"state": state})
    _, reward, terminated, _, _ = env.step(NUM_KEEP_ACTIONS + FOURS)
    assert terminated and reward == 120
