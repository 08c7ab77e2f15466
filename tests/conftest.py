"""Shared test helpers."""

from __future__ import annotations

import importlib.util
import os
import signal
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from yacht_env.rules import RULESETS, YACHT, RuleSet, register_rules
from yacht_env.state import GameState

# keep the solver's disk cache out of the user's home during tests
os.environ.setdefault("YACHT_ENV_CACHE_DIR", os.path.join(os.path.dirname(__file__), "..", ".pytest_cache", "solver"))
# SB3 models made without a TensorBoard folder open an empty logger folder, by default a new /tmp/SB3-<date> each time
os.environ.setdefault("SB3_LOGDIR", os.path.join(os.path.dirname(__file__), "..", ".pytest_cache", "sb3"))


REPO = Path(__file__).resolve().parents[1]
UPPER6 = RuleSet("test-upper6", "Six upper boxes", YACHT.categories[:6])
"""A rule set of Yacht's six upper boxes: its two-player table solves in seconds."""


def registered(rs: RuleSet) -> RuleSet:
    """``rs`` registered once for the whole test session."""
    return RULESETS[rs.name] if rs.name in RULESETS else register_rules(rs)


@pytest.fixture
def upper6() -> str:
    """The name of :data:`UPPER6`, registered."""
    return registered(UPPER6).name


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    parser.addoption("--full", action="store_true", default=False,
                     help="run every test, the slow ones too (the README's test command and CI do); without it the "
                          "tests marked slow are deselected, for a quick run while working")
    if not pluginmanager.has_plugin("xdist"):
        # pyproject's default options spread the tests over worker processes with pytest-xdist's --numprocesses;
        # without it (not installed, or -p no:xdist) these take them and do nothing: the run is serial, not an error
        parser.addoption("--numprocesses", dest="numprocesses", default=None,
                         help="pytest-xdist's worker count: without pytest-xdist the tests run in this process")
        parser.addoption("--maxprocesses", dest="maxprocesses", default=None,
                         help="pytest-xdist's cap on -n auto: without pytest-xdist the tests run in this process")


_OTHER_RULES = ("yahtzee", "yahtzee-free-joker", "yatzy", "clubhouse", "knizia")
FULL_ONLY: dict[str, str] = {
    "test_recipes.py::test_the_single_file_ppo_trains_and_measures_itself": "trains a PPO in a child process",
    "test_train.py::test_smoke_run_with_the_turn_expectimax_policy": "trains; the quick smoke run covers the run path",
    "test_bench_entries.py::test_tune_runs_a_sweep_keeps_finished_trials_and_writes_the_winner":
        "trains two trials in a child process; the sweep's reading and refusals are quick tests",
    **{f"test_turn_policy.py::test_head_with_the_solvers_utilities_gives_the_solvers_action_values[{r}]":
       "one rule set (yacht) in the quick run" for r in _OTHER_RULES},
    **{f"test_vector.py::test_differential_against_single_env[{r}]": "one rule set (yacht) in the quick run"
       for r in _OTHER_RULES},
}
"""The quick run's leaner set: tests also marked ``slow`` here (``--full`` runs them), by node id under ``tests/``,
with why. These took the most time of a quick run where a quicker test covers the same code
(``tests/test_layers.py`` checks that each one still exists)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests that drive a browser ``browser`` (nox runs them in a session of their own) and those of
    :data:`FULL_ONLY` ``slow``; without ``--full``, deselect the tests marked ``slow`` (deselected, not skipped: the
    run says how many)."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
        if item.nodeid.removeprefix("tests/") in FULL_ONLY:
            item.add_marker(pytest.mark.slow)
    if config.getoption("--full"):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a child process: this checkout first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    env.update(extra)
    return env


def noxfile() -> types.ModuleType:
    """``noxfile.py`` as a module, read without nox (nox lives in the runner's venv): its decorators stood in for by
    ones that keep what they were given on the function (``nox_session``: the keywords of ``@nox.session``;
    ``nox_parametrize``: the name and values of ``@nox.parametrize``)."""

    def session(*args: object, **kwargs: object) -> object:
        def keep(f: types.FunctionType) -> types.FunctionType:
            f.nox_session = kwargs  # type: ignore[attr-defined]
            return f

        return keep(args[0]) if args and callable(args[0]) else keep  # type: ignore[arg-type]

    def parametrize(name: str, values: list[object]) -> object:
        def keep(f: types.FunctionType) -> types.FunctionType:
            f.nox_parametrize = (name, list(values))  # type: ignore[attr-defined]
            return f

        return keep

    fake = types.ModuleType("nox")
    fake.options = types.SimpleNamespace()  # type: ignore[attr-defined]
    fake.Session = object  # type: ignore[attr-defined]
    fake.session = session  # type: ignore[attr-defined]
    fake.parametrize = parametrize  # type: ignore[attr-defined]
    spec = importlib.util.spec_from_file_location("noxfile_read", REPO / "noxfile.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    with pytest.MonkeyPatch.context() as m:
        m.setitem(sys.modules, "nox", fake)
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def sigint_default() -> None:
    """``preexec_fn`` of a child that is sent SIGINT: SIGINT back to its default before Python starts. A suite
    started by a shell's ``cmd &`` without job control runs with SIGINT ignored; a child inherits that, and Python
    then installs no KeyboardInterrupt handler (the Ctrl-C tests failed every time so)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


def env_batch(rules: str, n: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` observations and masks from games played with random legal actions (keep and score decisions)."""
    from yacht_env.env import YachtEnv

    env = YachtEnv(rules)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    out_obs, out_masks = [], []
    while len(out_obs) < n:
        mask = env.action_masks()
        out_obs.append(obs)
        out_masks.append(mask)
        obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term or trunc:
            obs, _ = env.reset()
    return np.asarray(out_obs, dtype=np.float32), np.asarray(out_masks, dtype=bool)


def hunt_five_of_a_kind(state: GameState, mask: np.ndarray) -> int | None:
    """The move of a policy that chases five of a kind (so that Joker and bonus cases are common): keep the most
    common face, or score the five-of-a-kind box with five of a kind; None where it has no move (the caller picks
    a box)."""
    dice = state.dice
    face = max(set(dice), key=dice.count)
    pattern = sum(1 << j for j in range(5) if dice[j] == face)
    if pattern != 31 and mask[pattern]:
        return pattern
    ycat = state.ruleset.five_kind_category
    if pattern == 31 and ycat >= 0 and mask[32 + ycat]:
        return 32 + ycat
    return None
