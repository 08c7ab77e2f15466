"""Conventions other toolboxes rely on: a vector env that pickles and deep-copies (subprocess and Ray workers), and
the SB3 VecEnv's pictures (SB3's VecEnv.render and VecVideoRecorder)."""

from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest

import yacht_env  # noqa: F401


def _steps(envs, actions: list[np.ndarray]) -> list[tuple]:
    return [tuple(np.asarray(x).copy() for x in envs.step(a)[:4]) for a in actions]


def test_the_vector_env_pickles_and_deep_copies_and_plays_on_the_same() -> None:
    envs = gym.make_vec("Yahtzee-v1", num_envs=4, vectorization_mode="vector_entry_point")
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(25):
        m = envs.action_masks()
        envs.step(np.argmax(rng.random(m.shape) * m, axis=1))
    pickled, deep = pickle.loads(pickle.dumps(envs)), copy.deepcopy(envs)
    actions = []
    for _ in range(60):
        m = envs.action_masks()
        actions.append(np.argmax(rng.random(m.shape) * m, axis=1))
    want = _steps(envs, actions)
    for other in (pickled, deep):
        for got, exp in zip(_steps(other, actions), want):
            for g, e in zip(got, exp):
                np.testing.assert_array_equal(g, e)


def test_the_sb3_vec_env_renders_pictures_for_sb3() -> None:
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("PIL")
    from yacht_training.sb3_vec_env import YachtSB3VecEnv

    venv = YachtSB3VecEnv(num_envs=2, rules="yacht", seed=0, render_mode="rgb_array")
    venv.reset()
    images = venv.get_images()
    assert len(images) == 2 and all(i.shape == (480, 640, 3) and i.dtype == np.uint8 for i in images)
    assert venv.render().shape == (960, 640, 3)  # SB3 tiles them
    assert venv.metadata["render_fps"] > 0
    text = YachtSB3VecEnv(num_envs=2, rules="yacht", seed=0, render_mode="ansi")
    text.reset()
    with pytest.raises(ValueError, match="pictures need render_mode='rgb_array'"):
        text.get_images()


def test_vec_video_recorder_writes_a_video(tmp_path) -> None:
    pytest.importorskip("moviepy")
    from stable_baselines3.common.vec_env import VecVideoRecorder

    from yacht_training.sb3_vec_env import YachtSB3VecEnv

    venv = VecVideoRecorder(YachtSB3VecEnv(num_envs=2, rules="yacht", seed=0, render_mode="rgb_array"),
                            str(tmp_path), record_video_trigger=lambda step: step == 0, video_length=8,
                            name_prefix="yacht")
    venv.reset()
    for _ in range(10):
        masks = venv.venv.action_masks()
        venv.step(np.array([np.flatnonzero(m)[0] for m in masks]))
    venv.close()
    videos = list(tmp_path.glob("yacht-step-0-to-step-8.mp4"))
    assert videos and videos[0].stat().st_size > 1000
