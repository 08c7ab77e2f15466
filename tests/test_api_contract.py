"""One API contract for every environment the project offers, each also put through its own ecosystem's checker.

The shared contract (:func:`single_contract`, :func:`vector_contract`): every observation lies in the observation
space; the mask offers at least one action until the game ends and the action taken from it is played as legal; the
same seed gives the same game, step for step; a game played with legal actions ends terminated, never truncated.
The checkers: Gymnasium's ``check_env`` and stable-baselines3's (every id), PettingZoo's ``api_test`` and
``seed_test`` (several players), TorchRL's ``check_env_specs`` (the vector engine), OpenSpiel's ``random_sim_test``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import yacht_env
from yacht_env.env import YachtEnv
from yacht_env.mask_observation import ActionMaskObservation
from yacht_env.rules import RULESETS, YACHT, Category, RuleSet, get_rules, register_rules
from yacht_env.vector.env import YachtVectorEnv

CUSTOM = "contract-upper-plus"


def _custom() -> str:
    """A registered rule set of one's own (the contract holds for it as for the built-in ones)."""
    if CUSTOM not in RULESETS:
        register_rules(RuleSet(CUSTOM, "Upper boxes and a chance", (*YACHT.categories[:6], Category(
            "chance", "Chance", "sum"))))
    return CUSTOM


def _mask_of(env: Any, obs: Any, info: dict[str, Any]) -> np.ndarray:
    if isinstance(obs, dict):
        return obs["action_mask"].astype(bool)
    return info["action_mask"].astype(bool)


def _game(make: Callable[[], Any], seed: int) -> tuple[list[bytes], float, bool]:
    """One whole game of random legal actions (the picks seeded too): the observations, the return, truncated."""
    env = make()
    pick = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    trace, total, done, truncated = [], 0.0, False, False
    while not done:
        assert env.observation_space.contains(obs)
        trace.append(np.asarray(obs["observation"] if isinstance(obs, dict) else obs).tobytes())
        mask = _mask_of(env, obs, info)
        assert mask.any(), "no legal action before the end"
        obs, reward, terminated, truncated, info = env.step(int(pick.choice(np.flatnonzero(mask))))
        assert not info.get("illegal_action", False)
        total += float(reward)
        done = terminated or truncated
    env.close()
    return trace, total, truncated


def single_contract(make: Callable[[], Any]) -> None:
    """The contract of a one-game environment made by ``make``."""
    first, total, truncated = _game(make, 5)
    again, total_again, _ = _game(make, 5)
    other, _, _ = _game(make, 6)
    assert not truncated and first == again and total == total_again and first != other


def vector_contract(make: Callable[[], Any]) -> None:
    """The contract of a vector environment made by ``make``: seeded batches repeat, observations lie in the space,
    masks offer an action in every running game (a game that ended waits for its reset under ``NEXT_STEP``: any
    action restarts it)."""
    runs = []
    for _ in range(2):
        env = make()
        pick = np.random.default_rng(0)
        obs, info = env.reset(seed=3)
        seen, ended = [obs.copy()], np.zeros(env.num_envs, dtype=bool)
        for _ in range(80):
            assert env.observation_space.contains(obs)
            masks = env.unwrapped.action_masks()
            assert masks[~ended].any(axis=1).all()
            obs, _, terminated, truncated, _ = env.step(
                np.array([pick.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks]))
            ended = terminated | truncated
            seen.append(obs.copy())
        env.close()
        runs.append(np.stack(seen))
    np.testing.assert_array_equal(runs[0], runs[1])


# ---- every environment: the shared contract ------------------------------------------------------------------------

SINGLE: dict[str, Callable[[], Any]] = {
    **{env_id: (lambda i=env_id: gym.make(i)) for env_id in yacht_env.ENV_IDS.values()},
    "YachtEnv(registered rules)": lambda: YachtEnv(_custom()),
    "YachtEnv(objective='reach')": lambda: YachtEnv("yacht", objective="reach", target=150),
    "ActionMaskObservation": lambda: ActionMaskObservation(gym.make("Yahtzee-v1")),
}
VECTOR: dict[str, Callable[[], Any]] = {
    **{f"make_vec({i}, {m.name})": (lambda i=i, m=m: gym.make_vec(
        i, 4, vectorization_mode="vector_entry_point", autoreset_mode=m))
       for i in ("Yacht-v0", "Yatzy-v1") for m in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)},
    "YachtVectorEnv(registered rules)": lambda: YachtVectorEnv(4, rules=_custom()),
}


@pytest.mark.parametrize("name", list(SINGLE))
def test_every_single_environment_keeps_the_contract(name: str) -> None:
    single_contract(SINGLE[name])


@pytest.mark.parametrize("name", list(VECTOR))
def test_every_vector_environment_keeps_the_contract(name: str) -> None:
    vector_contract(VECTOR[name])


# ---- each ecosystem's own checker ----------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", list(yacht_env.ENV_IDS.values()))
def test_gymnasium_and_sb3_checkers_pass_without_warnings(env_id: str) -> None:
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gym_check(gym.make(env_id).unwrapped)
        sb3_check(gym.make(env_id), warn=True)


def test_gymnasiums_checker_passes_the_mask_in_the_observation() -> None:
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checker's advice to check the unwrapped env: the wrapper is the point
        check_env(ActionMaskObservation(gym.make("Yahtzee-v1")), skip_render_check=True)


PETTINGZOO = [(2, "yacht", "points"), (2, "yahtzee", "win"), (5, "yahtzee-free-joker", "points"), (8, "yacht", "win"),
              (3, "yatzy", "win"), (2, "knizia", "points")]
# PettingZoo's api_test warns about every dict observation, unless the environment is one of its own classic games
# (it checks the name against a hard-coded list). The dict with "action_mask" is the PettingZoo way all the same.
DICT_OBS_WARNINGS = ("Observation is not a NumPy array",
                     "Observation space for each agent probably should be gymnasium.spaces.box")


@pytest.mark.parametrize("num_players,rules,reward", PETTINGZOO)
def test_pettingzoo_api_test(num_players: int, rules: str, reward: str) -> None:
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from yacht_env import multiplayer as MP

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(MP.env(num_players=num_players, rules=rules, reward=reward), num_cycles=1000)
    other = [str(w.message) for w in caught if not str(w.message).startswith(DICT_OBS_WARNINGS)]
    assert not other, other


@pytest.mark.parametrize("num_players,rules,reward", PETTINGZOO)
def test_pettingzoo_seed_test(num_players: int, rules: str, reward: str) -> None:
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import seed_test

    from yacht_env import multiplayer as MP

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seed_test(lambda: MP.env(num_players=num_players, rules=rules, reward=reward), num_cycles=1000)


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.DISABLED], ids=["SAME_STEP", "DISABLED"])
def test_torchrl_check_env_specs(mode: AutoresetMode) -> None:
    """TorchRL wraps the engine as any Gymnasium vector env (it refuses NEXT_STEP for every vector env)."""
    pytest.importorskip("torchrl")
    from torchrl.envs import GymWrapper
    from torchrl.envs.utils import check_env_specs

    env = GymWrapper(YachtVectorEnv(4, rules="yatzy", autoreset_mode=mode))
    env.set_seed(0)
    check_env_specs(env)
    rollout = env.rollout(60, break_when_any_done=False)
    assert rollout.batch_size[0] == 4


@pytest.mark.parametrize(("rules", "players"), [*((r, p) for r in ("yacht", "yahtzee", "yatzy", "knizia",
                                                                    "clubhouse", "yahtzee-free-joker")
                                                   for p in (1, 2)), ("knizia", 3)])
def test_openspiels_random_simulation_test(rules: str, players: int) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import yacht_env.openspiel_game  # noqa: F401 - registers the game

    game = pyspiel.load_game("yacht_env", {"rules": rules, "players": players})
    assert game.num_players() == players and game.max_chance_outcomes() == 252
    assert game.num_distinct_actions() == 32 + get_rules(rules).num_categories
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def _seeded(kind: str) -> Any:
    """A new environment of ``kind`` whose reset takes ``seed=``."""
    if kind == "pettingzoo":
        pytest.importorskip("pettingzoo")
        from yacht_env import multiplayer as MP

        return MP.raw_env(num_players=2)
    return YachtEnv() if kind == "single" else YachtVectorEnv(2)


SEED_KINDS = ["single", "vector", "pettingzoo"]


@pytest.mark.parametrize("seed", [np.float64(3), 3.0, set(), True, np.bool_(False), "3", -1, 2**130, np.array(5),
                                  np.array(5, dtype=np.uint8), np.array(True), np.array(5.0), 1 + 0j])
@pytest.mark.parametrize("kind", SEED_KINDS)
def test_a_seed_that_is_not_an_int_is_refused_with_what_is_accepted(seed: Any, kind: str) -> None:
    """One check for every environment: a 0-d array is no int (it was taken as one), nor is a bool (Gymnasium's
    seeding, which the PettingZoo environment used, takes True and refuses a numpy integer)."""
    with pytest.raises(ValueError, match=r"^seed must be (None|a non-negative int)") as e:
        _seeded(kind).reset(seed=seed)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("kind", SEED_KINDS)
def test_a_numpy_integer_seed_is_the_int_seed(kind: str) -> None:
    def start(seed: Any) -> Any:
        env = _seeded(kind)
        got = env.reset(seed=seed)
        return env.observe(env.agent_selection)["observation"] if kind == "pettingzoo" else got[0]

    games = [start(s) for s in (5, np.int64(5), np.uint8(5), np.array([5])[0])]
    assert all(np.array_equal(games[0], g) for g in games[1:])
