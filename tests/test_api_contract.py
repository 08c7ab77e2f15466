"""One API contract for every environment the project offers, each also put through its own ecosystem's checker.

The contract ships in the package, for users' own wrappers: :mod:`yacht_env.testing` (one-game, vector and PettingZoo
environments, with Gymnasium's ``check_env`` and PettingZoo's ``api_test`` and ``seed_test``) and
:mod:`yacht_training.sb3_testing` (stable-baselines3's ``check_env`` and the SB3 ``VecEnv`` contract). Here every
environment the project offers goes through it, and so do broken ones, which it must catch. TorchRL's
``check_env_specs`` (the vector engine) and OpenSpiel's ``random_sim_test`` run here too.
"""

from __future__ import annotations

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
from yacht_env.testing import ContractError, check_env, check_multiplayer_env, check_vector_env
from yacht_env.vector.env import YachtVectorEnv

CUSTOM = "contract-upper-plus"


def _custom() -> str:
    """A registered rule set of one's own (the contract holds for it as for the built-in ones)."""
    if CUSTOM not in RULESETS:
        register_rules(RuleSet(CUSTOM, "Upper boxes and a chance", (*YACHT.categories[:6], Category(
            "chance", "Chance", "sum"))))
    return CUSTOM


# ---- every environment: the shared contract ------------------------------------------------------------------------

SINGLE: dict[str, Callable[[], Any]] = {
    **{env_id: (lambda i=env_id: gym.make(i)) for env_id in yacht_env.ENV_IDS.values()},
    "YachtEnv(registered rules)": lambda: YachtEnv(_custom()),
    "YachtEnv(engine='compiled')": lambda: YachtEnv("yahtzee", engine="compiled"),
    "YachtEnv(engine='python')": lambda: YachtEnv("yatzy", engine="python"),
    "YachtEnv(objective='reach')": lambda: YachtEnv("yacht", objective="reach", target=150),
    "ActionMaskObservation": lambda: ActionMaskObservation(gym.make("Yahtzee-v1")),
}
VECTOR: dict[str, Callable[[], Any]] = {
    **{f"make_vec({i}, {m.name})": (lambda i=i, m=m: gym.make_vec(
        i, 4, vectorization_mode="vector_entry_point", autoreset_mode=m))
       for i in ("Yacht-v0", "Yatzy-v1") for m in AutoresetMode},
    "YachtVectorEnv(registered rules)": lambda: YachtVectorEnv(4, rules=_custom()),
}


@pytest.mark.parametrize("name", list(SINGLE))
def test_every_single_environment_keeps_the_contract(name: str) -> None:
    """The contract with Gymnasium's checker (every warning an error on the unwrapped env)."""
    check_env(SINGLE[name])


@pytest.mark.parametrize("name", list(VECTOR))
def test_every_vector_environment_keeps_the_contract(name: str) -> None:
    check_vector_env(VECTOR[name])


def _sb3_vec_envs() -> dict[str, Callable[[], Any]]:
    from yacht_training.heads_up import HeadsUpVecEnv
    from yacht_training.sb3_vec_env import YachtSB3VecEnv

    return {"YachtSB3VecEnv": lambda: YachtSB3VecEnv(4, "yacht", reward_scale=0.02),
            "YachtSB3VecEnv(registered rules)": lambda: YachtSB3VecEnv(3, _custom()),
            "HeadsUpVecEnv": lambda: HeadsUpVecEnv(3, "yacht", seed=1)}


@pytest.mark.parametrize("name", ["YachtSB3VecEnv", "YachtSB3VecEnv(registered rules)", "HeadsUpVecEnv"])
def test_every_sb3_vec_env_keeps_the_contract(name: str) -> None:
    pytest.importorskip("yacht_training", exc_type=ImportError)
    from yacht_training.sb3_testing import check_sb3_vec_env

    check_sb3_vec_env(_sb3_vec_envs()[name])


# ---- the contract catches what breaks it ---------------------------------------------------------------------------


class _GoesOnAfterTheEnd(gym.Wrapper):
    """Steps after the end as if nothing happened (the contract wants a RuntimeError saying to reset)."""

    def step(self, action: Any) -> Any:
        try:
            return self.env.step(action)
        except RuntimeError as e:
            if "the game is over" not in str(e):
                raise
            return self.env.reset()[0], 0.0, True, False, {"action_mask": np.ones(self.action_space.n, np.int8)}


class _Truncates(gym.Wrapper):
    """Truncates every game after 10 steps."""

    steps = 0

    def reset(self, **kwargs: Any) -> Any:
        self.steps = 0
        return self.env.reset(**kwargs)

    def step(self, action: Any) -> Any:
        self.steps += 1
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, self.steps >= 10, info


@pytest.mark.parametrize(("wrapper", "message"), [(_GoesOnAfterTheEnd, "a step after the end"),
                                                  (_Truncates, "a game of legal actions was truncated")])
def test_the_contract_catches_a_broken_wrapper(wrapper: type[gym.Wrapper], message: str) -> None:
    with pytest.raises(ContractError, match=message):
        check_env(lambda: wrapper(YachtEnv()), gymnasium_checker=False)


def test_the_contract_catches_a_broken_sb3_vec_env() -> None:
    pytest.importorskip("yacht_training", exc_type=ImportError)
    from yacht_training.sb3_testing import check_sb3_vec_env
    from yacht_training.sb3_vec_env import YachtSB3VecEnv

    class Float64Rewards(YachtSB3VecEnv):
        def step_wait(self) -> Any:
            obs, rewards, dones, infos = super().step_wait()
            return obs, rewards.astype(np.float64), dones, infos

    with pytest.raises(ContractError, match="the rewards are not"):
        check_sb3_vec_env(lambda: Float64Rewards(2))


# ---- each ecosystem's own checker ----------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", list(yacht_env.ENV_IDS.values()))
def test_sb3_checker_passes_without_warnings(env_id: str) -> None:
    pytest.importorskip("yacht_training", exc_type=ImportError)
    from yacht_training.sb3_testing import check_sb3_env

    check_sb3_env(lambda: gym.make(env_id))


PETTINGZOO = [(2, "yacht", "points"), (2, "yahtzee", "win"), (5, "yahtzee-free-joker", "points"), (8, "yacht", "win"),
              (3, "yatzy", "win"), (2, "knizia", "points")]


@pytest.mark.parametrize("num_players,rules,reward", PETTINGZOO)
def test_pettingzoo_api_test_and_seed_test(num_players: int, rules: str, reward: str) -> None:
    pytest.importorskip("pettingzoo")
    from yacht_env import multiplayer as MP

    check_multiplayer_env(lambda: MP.env(num_players=num_players, rules=rules, reward=reward))


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
