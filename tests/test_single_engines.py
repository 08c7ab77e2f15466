"""The single environment's two engines, plain Python and the vector engine's compiled kernel on one game, give the
same games bit for bit: observations, rewards, flags, infos, states and the dice stream handed to ``np_random``."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest

import yacht_env
from yacht_env.env import YachtEnv


def _same_step(a: tuple, b: tuple) -> None:
    (o1, r1, t1, tr1, i1), (o2, r2, t2, tr2, i2) = a, b
    assert o1.dtype == o2.dtype == np.float32 and o1.tobytes() == o2.tobytes()
    assert (r1, t1, tr1) == (r2, t2, tr2) and type(r1) is type(r2) is float
    assert i1.keys() == i2.keys() and np.array_equal(i1["action_mask"], i2["action_mask"])
    assert {k: v for k, v in i1.items() if k != "action_mask"} == {k: v for k, v in i2.items() if k != "action_mask"}


@pytest.mark.parametrize("rules", sorted(yacht_env.ENV_IDS))
def test_compiled_and_python_engines_play_the_same_games(rules: str) -> None:
    c = yacht_env.get_rules(rules).num_categories
    py = YachtEnv(rules, engine="python")
    co = YachtEnv(rules, engine="compiled")
    assert (py.engine, co.engine) == ("python", "compiled")
    pick = np.random.default_rng(len(rules))
    for game in range(40):
        seed = None if game % 3 else game
        o1, i1 = py.reset(seed=seed)
        o2, i2 = co.reset(seed=seed)
        assert o1.tobytes() == o2.tobytes() and np.array_equal(i1["action_mask"], i2["action_mask"])
        done = False
        while not done:
            legal = np.flatnonzero(i1["action_mask"])
            a = int(pick.integers(32 + c)) if pick.random() < 0.1 else int(pick.choice(legal))
            s1, s2 = py.step(a), co.step(a)
            _same_step(s1, s2)
            assert py.state == co.state
            done = s1[2] or s1[3]
            i1 = s1[4]
        if game % 7 == 3:  # the dice stream handed back to np_random, drawn from, and taken over again
            assert py.np_random.bit_generator.random_raw() == co.np_random.bit_generator.random_raw()


def test_compiled_engine_starts_from_a_given_state_and_pickles() -> None:
    st = yacht_env.parse("yahtzee | dice 2 2 2 2 2 | rolls 1 | filled yahtzee=50,twos=6", "yahtzee")
    py, co = YachtEnv("yahtzee", engine="python"), YachtEnv("yahtzee", engine="compiled")
    o1, _ = py.reset(seed=1, options={"state": st})
    o2, _ = co.reset(seed=1, options={"state": st})
    assert o1.tobytes() == o2.tobytes() and co.state == st
    _same_step(py.step(32 + 2), co.step(32 + 2))  # threes as a Joker: the Yahtzee bonus
    clone = pickle.loads(pickle.dumps(co))
    assert clone.engine == "compiled" and clone.state == co.state
    _same_step(clone.step(0), co.step(0))


def test_engine_argument() -> None:
    with pytest.raises(ValueError, match="engine must be one of 'auto', 'python', 'compiled'"):
        YachtEnv(engine="fast")
    assert gym.make("Yacht-v0", engine="compiled").unwrapped.engine == "compiled"


def test_auto_moves_to_the_compiled_kernel_at_a_reset_after_its_first_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    """engine="auto" starts in Python (unless this process already loaded the kernel), and the first reset after
    AUTO_SWITCH_STEPS steps moves it to the compiled kernel where that is cached; the games go on unchanged."""
    import sys

    from yacht_env import single_engine as E

    monkeypatch.delitem(sys.modules, "yacht_env.engine.batch_kernels", raising=False)
    monkeypatch.setattr(E, "compiled_step_ready", lambda: True)
    auto, ref = YachtEnv("yacht"), YachtEnv("yacht", engine="python")
    assert auto.engine == "python"
    pick = np.random.default_rng(0)
    auto.reset(seed=5), ref.reset(seed=5)
    steps = 0
    while steps < E.AUTO_SWITCH_STEPS + 200:
        mask = ref.action_masks()
        a = int(pick.choice(np.flatnonzero(mask)))
        s1, s2 = auto.step(a), ref.step(a)
        _same_step(s1, s2)
        steps += 1
        if s1[2] or s1[3]:
            o1, _ = auto.reset()
            o2, _ = ref.reset()
            assert o1.tobytes() == o2.tobytes()
    assert auto.engine == "compiled" and ref.engine == "python"


@pytest.mark.parametrize("rules", ["yacht", "yahtzee"])
def test_every_engine_behind_one_interface(rules: str) -> None:
    """The three engines, used directly through their one interface (use, start, step, mask, state, scorecard,
    release), play the same games from generators seeded alike, and hand back the same dice stream."""
    from yacht_env.single_engine import ENGINES, make_engine

    rs = yacht_env.get_rules(rules)
    engines = [make_engine(name, rs, True) for name in ENGINES]
    gens = [np.random.Generator(np.random.PCG64(11)) for _ in engines]
    for e, g in zip(engines, gens):
        e.use(g)
    pick = np.random.default_rng(3)
    for _ in range(5):
        first = [e.start(None) for e in engines]
        assert all(o.tobytes() == first[0].tobytes() for o in first)
        over = False
        while not over:
            legal = np.flatnonzero(engines[0].mask())
            a = int(pick.integers(32 + rs.num_categories)) if pick.random() < 0.1 else int(pick.choice(legal))
            steps = [e.step(a) for e in engines]
            assert all(s[0].tobytes() == steps[0][0].tobytes() and s[1:4] == steps[0][1:4] for s in steps)
            assert all(s[4].dtype == np.int8 and np.array_equal(s[4], engines[0].mask()) for s in steps)
            assert all(np.array_equal(e.mask(), engines[0].mask()) and e.state() == engines[0].state()
                       for e in engines)
            over = steps[0][2]
        assert all(e.scorecard() == engines[0].scorecard() for e in engines)
    for e in engines:
        e.release()
    assert len({g.bit_generator.random_raw() for g in gens}) == 1
    with pytest.raises(ValueError, match="engine must be one of 'auto', 'python', 'compiled', got 'gpu'"):
        make_engine("gpu", rs, True)
