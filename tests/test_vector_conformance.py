"""The vector engine against Gymnasium's ``SyncVectorEnv`` over the single environment, as a user swaps one for the
other: ``gym.make_vec(id, n, vectorization_mode="vector_entry_point", ...)`` against ``vectorization_mode="sync"`` with
the same autoreset mode, step limit and seeds. Every observation, reward, flag and info entry must be equal, key for
key and dtype for dtype (``gymnasium.utils.env_checker.data_equivalence``), for every rule set, in every mode, with
and without a step limit, under random legal and illegal actions; in ``DISABLED`` mode the ended games restart through
``reset(options={"reset_mask": ...})``, sometimes seeded.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode

import yacht_env
from yacht_env.rules import get_rules
from yacht_env.vector.env import YachtVectorEnv, autoreset_mode_of

MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED)
N = 6
STEPS = 1000  # per run; with a step limit it is 2 C + 2, so that some games end before it and many end at it


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    """Where two results first differ (for the failure message), '' if they are equivalent."""
    if type(a) is not type(b):
        return f"{path}: type {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return f"{path}: keys {sorted(a)} != {sorted(b)}"
        for k in a:
            d = _first_difference(a[k], b[k], f"{path}[{k!r}]")
            if d:
                return d
        return ""
    if isinstance(a, (tuple, list)):
        for j, (x, y) in enumerate(zip(a, b)):
            d = _first_difference(x, y, f"{path}[{j}]")
            if d:
                return d
        return "" if len(a) == len(b) else f"{path}: lengths {len(a)} != {len(b)}"
    if isinstance(a, np.ndarray):
        if a.shape != b.shape or a.dtype != b.dtype:
            return f"{path}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        if a.dtype == object:
            for j, (x, y) in enumerate(zip(a, b)):
                d = _first_difference(x, y, f"{path}[{j}]")
                if d:
                    return d
            return ""
        if np.array_equal(a, b):
            return ""
        at = tuple(int(x[0]) for x in np.nonzero(a != b))
        return f"{path}{list(at)}: {a[at]!r} != {b[at]!r}"
    return "" if a == b else f"{path}: {a!r} != {b!r}"


def _same(engine_out: Any, sync_out: Any, where: str) -> None:
    if not data_equivalence(engine_out, sync_out, exact=True):
        pytest.fail(f"{where}: engine and SyncVectorEnv differ at {_first_difference(engine_out, sync_out)}")


def _pair(env_id: str, mode: AutoresetMode, limit: int | None) -> tuple[gym.vector.VectorEnv, gym.vector.VectorEnv]:
    kwargs: dict[str, Any] = {} if limit is None else {"max_episode_steps": limit}
    engine = gym.make_vec(env_id, N, vectorization_mode="vector_entry_point", autoreset_mode=mode, **kwargs)
    sync = gym.make_vec(env_id, N, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}, **kwargs)
    return engine, sync


def _actions(pick: np.random.Generator, mask: np.ndarray, num_actions: int) -> np.ndarray:
    """A legal action per game, or (one time in five) any action of the space, legal or not."""
    acts = np.empty(len(mask), dtype=np.int64)
    for i, row in enumerate(mask):
        legal = np.flatnonzero(row)
        if pick.random() < 0.2 or legal.size == 0:
            acts[i] = pick.integers(num_actions)
        else:
            acts[i] = pick.choice(legal)
    return acts


def _run(env_id: str, mode: AutoresetMode, limit: int | None, seed: int) -> dict[str, int]:
    engine, sync = _pair(env_id, mode, limit)
    assert engine.autoreset_mode is mode and engine.metadata["autoreset_mode"] is mode
    pick = np.random.default_rng(seed)
    _same(engine.reset(seed=seed), sync.reset(seed=seed), "reset")
    num_actions = int(engine.single_action_space.n)
    seen = {"terminated": 0, "truncated": 0, "both": 0, "illegal": 0, "masked_resets": 0}
    for t in range(STEPS):
        acts = _actions(pick, engine.unwrapped.action_masks(), num_actions)
        mine, theirs = engine.step(acts), sync.step(acts)
        _same(mine, theirs, f"{env_id} {mode.name} limit={limit} step {t}")
        _, _, term, trunc, info = mine
        seen["terminated"] += int(term.sum())
        seen["truncated"] += int(trunc.sum())
        seen["both"] += int((term & trunc).sum())
        seen["illegal"] += int(info.get("illegal_action", np.zeros(1, bool)).sum())
        if mode is AutoresetMode.DISABLED and (term | trunc).any():
            done = term | trunc
            again = None if pick.random() < 0.5 else int(pick.integers(2**31))
            opts = {"reset_mask": done}
            _same(engine.reset(seed=again, options=dict(opts)), sync.reset(seed=again, options=dict(opts)),
                  f"{env_id} DISABLED partial reset after step {t}")
            seen["masked_resets"] += 1
    engine.close()
    sync.close()
    return seen


@pytest.mark.parametrize("limited", [False, True], ids=["no-limit", "step-limit"])
@pytest.mark.parametrize("mode", MODES, ids=[m.name for m in MODES])
@pytest.mark.parametrize("rules", sorted(yacht_env.ENV_IDS))
def test_engine_equals_sync_vector_env(rules: str, mode: AutoresetMode, limited: bool) -> None:
    limit = 2 * get_rules(rules).num_categories + 2 if limited else None
    seen = _run(yacht_env.ENV_IDS[rules], mode, limit, seed=len(rules) * 7 + MODES.index(mode))
    assert seen["terminated"] > 0 and seen["illegal"] > 0
    if limit is not None:
        assert seen["truncated"] > 0
    if mode is AutoresetMode.DISABLED:
        assert seen["masked_resets"] > 0


def test_a_game_ending_at_the_step_limit_is_terminated_and_truncated() -> None:
    """Gymnasium's ``TimeLimit`` truncates at the limit even where the game also ended; so does the engine."""
    env = YachtVectorEnv(1, rules="yacht", max_episode_steps=12)  # 12 score actions in a row end the game there
    env.reset(seed=0)
    for _ in range(12):
        _, _, term, trunc, _ = env.step(np.array([32 + int(np.flatnonzero(env.action_masks()[0, 32:])[0])]))
    assert term[0] and trunc[0]


def test_short_step_limits_and_human_rendering_are_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    env = gym.make_vec("Yacht-v0", 2, vectorization_mode="vector_entry_point", max_episode_steps=1,
                       render_mode="human")
    env.reset(seed=1)
    _, _, term, trunc, _ = env.step(np.zeros(2, dtype=np.int64))
    assert trunc.all() and not term.any()
    assert "game 1:" in capsys.readouterr().out
    for bad in (0, -3, 1.5, True):
        with pytest.raises(ValueError, match="max_episode_steps must be None or an int in 1.."):
            YachtVectorEnv(2, max_episode_steps=bad)


@pytest.mark.parametrize("name", ["next_step", "NEXT_STEP", "NextStep", AutoresetMode.NEXT_STEP])
def test_autoreset_mode_by_name(name: Any) -> None:
    assert autoreset_mode_of(name) is AutoresetMode.NEXT_STEP


def test_bad_autoreset_modes_and_reset_masks_are_refused() -> None:
    with pytest.raises(ValueError, match="autoreset_mode must be an AutoresetMode or one of 'next_step'"):
        YachtVectorEnv(2, autoreset_mode="sometimes")
    env = YachtVectorEnv(3, autoreset_mode="disabled")
    with pytest.raises(RuntimeError, match="without a reset_mask first"):
        env.reset(options={"reset_mask": np.ones(3, dtype=bool)})
    env.reset(seed=0)
    for bad in (np.ones(2, dtype=bool), np.ones(3, dtype=int), [True, False, True], np.zeros(3, dtype=bool)):
        with pytest.raises(ValueError, match="reset_mask"):
            env.reset(options={"reset_mask": bad})
    with pytest.raises(ValueError, match="takes options None"):
        env.reset(options={"state": "x"})


def test_disabled_mode_refuses_to_step_an_ended_game() -> None:
    env = YachtVectorEnv(2, autoreset_mode="disabled", max_episode_steps=1)
    env.reset(seed=0)
    env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(RuntimeError, match="game 0 has ended and autoreset_mode is DISABLED"):
        env.step(np.zeros(2, dtype=np.int64))
    obs, info = env.reset(options={"reset_mask": np.array([True, False])})
    assert np.array_equal(info["_action_mask"], [True, False]) and not info["action_mask"][1].any()


def test_next_step_ignores_the_action_of_a_game_that_restarts() -> None:
    """An out-of-space or illegal action sent to a game that starts over is never looked at (as in sync)."""
    env = YachtVectorEnv(2, strict=True, max_episode_steps=1)
    env.reset(seed=0)
    env.step(np.zeros(2, dtype=np.int64))
    actions = np.array([10**6, 31], dtype=np.int64)
    obs, reward, term, trunc, info = env.step(actions)
    assert actions.tolist() == [10**6, 31]  # the caller's array is left as it was
    assert not term.any() and not trunc.any() and (reward == 0).all() and "illegal_action" not in info


def test_info_masks_are_writable_for_gymnasium_add_info() -> None:
    env = YachtVectorEnv(4, rules="yahtzee", autoreset_mode="same_step", max_episode_steps=2)
    env.reset(seed=0)
    env.step(np.zeros(4, dtype=np.int64))
    _, _, _, _, info = env.step(np.zeros(4, dtype=np.int64))
    merged = env._add_info(info, {"extra": 1}, 0)
    assert merged["_extra"][0] and merged["_final_obs"].all()


# ---- other libraries' checkers and wrappers on the engine ------------------------------------------------------------


def test_gymnasium_vector_observation_wrappers_run_on_the_default_engine() -> None:
    from gymnasium.wrappers import vector as W

    for wrap in (W.NormalizeObservation, W.FlattenObservation, lambda e: W.DtypeObservation(e, np.float64),
                 W.RecordEpisodeStatistics):
        env = wrap(gym.make_vec("Yahtzee-v1", 8, vectorization_mode="vector_entry_point"))
        obs, _ = env.reset(seed=0)
        assert obs.shape[0] == 8
        pick = np.random.default_rng(0)
        for _ in range(60):
            obs, *_ = env.step(_actions(pick, env.unwrapped.action_masks(), int(env.single_action_space.n)))
        assert np.isfinite(obs).all()
        env.close()


# ---- resources and threads ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rules, mode", [("yacht", "next_step"), ("yatzy", "disabled")])
def test_memory_per_game_is_what_a_stepping_loop_takes(rules: str, mode: str) -> None:
    """The peak memory of a loop over 2**15 games, measured in a fresh process, is what memory_per_game says (the
    fixed costs are already a small part at that size: the ratio read 0.99 for Yacht and 1.05 for Yatzy)."""
    import subprocess
    import sys

    code = ("import tracemalloc, numpy as np\n"  # numpy reports its arrays to tracemalloc; numba's compiler does not
            "from yacht_env.vector import YachtVectorEnv, LegalActionSampler\n"
            f"n = 1 << 15\nYachtVectorEnv(2, rules={rules!r}).reset(seed=0)\ntracemalloc.start()\n"
            f"env = YachtVectorEnv(n, rules={rules!r}, autoreset_mode={mode!r}); s = LegalActionSampler(n, 0)\n"
            "env.reset(seed=0)\n"
            "for _ in range(6):\n"
            "    _, _, te, tr, _ = env.step(s(env.action_masks()))\n"
            f"    if {mode!r} == 'disabled' and (te | tr).any(): env.reset(options={{'reset_mask': te | tr}})\n"
            "print(tracemalloc.get_traced_memory()[1] / n, env.memory_per_game()['total'])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    measured, said = map(float, out.stdout.split())
    assert 0.8 <= measured / said <= 1.3, (measured, said)


def test_games_that_cannot_fit_are_refused_up_front(monkeypatch: pytest.MonkeyPatch) -> None:
    from yacht_env.vector import env as V

    monkeypatch.setattr(V, "available_bytes", lambda: 10**9)
    with pytest.raises(ValueError, match=r"16,777,216 games need about 2\d\.\d GB .* more than the 1\.0 GB"):
        YachtVectorEnv(1 << 24)
    YachtVectorEnv(1000)


def test_one_env_stepped_from_two_threads_raises() -> None:
    """The kernels release the GIL: a second thread stepping the same env is refused, not allowed to tear games."""
    import threading

    from yacht_env.env import YachtEnv

    for env, act in ((YachtVectorEnv(4096, autoreset_mode="same_step"), None), (YachtEnv("yacht"), 0)):
        env.reset(seed=0)
        errors: list[BaseException] = []

        def hammer(env: Any = env, act: Any = act, errors: list[BaseException] = errors) -> None:
            try:
                for _ in range(300):
                    env.step(env.action_masks().argmax(axis=-1) if act is None else act)
            except RuntimeError as e:
                errors.append(e)

        threads = [threading.Thread(target=hammer) for _ in range(4)]
        env._busy.acquire()  # another thread is inside a step: every other caller must be refused
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        env._busy.release()
        assert errors and "another thread" in str(errors[0])
