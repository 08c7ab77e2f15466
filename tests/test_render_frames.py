"""``render_mode="rgb_array"``: frames of the single and the vector environment, every rule set, deterministic for a
seed, the colours of their meanings where they belong, and a video recorded with ``gymnasium.wrappers.RecordVideo``."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from yacht_env.actions import NUM_KEEP_ACTIONS
from yacht_env.env import YachtEnv
from yacht_env.frames import HEIGHT, WIDTH, draw_frame
from yacht_env.palette import rgb
from yacht_env.render import last_action
from yacht_env.rules import RULESETS
from yacht_env.vector.env import YachtVectorEnv

pytest.importorskip("PIL")

_DICE = (slice(90, 152), slice(10, 300))  # the dice row of a frame
_LAST = (slice(244, 276), slice(10, 300))  # the last action's words
_NOW = (slice(30, 470), slice(560, 630))  # the scorecard's column of the points the dice would score now


def has(frame: np.ndarray, colour: str, area: tuple[slice, slice]) -> bool:
    return bool((frame[area] == np.array(rgb(colour), dtype=np.uint8)).all(axis=-1).any())


def policy(mask: np.ndarray, step: int) -> int:
    """A fixed mix of keeps and scores: keeps while rolls remain on even steps, else the first open category."""
    legal = np.flatnonzero(mask)
    keeps = legal[legal < NUM_KEEP_ACTIONS]
    if len(keeps) and step % 2 == 0:
        return int(keeps[step % len(keeps)])
    return int(legal[legal >= NUM_KEEP_ACTIONS][0])


def episode_frames(rules: str, seed: int) -> tuple[list[np.ndarray], list[int]]:
    env = YachtEnv(rules, render_mode="rgb_array")
    _, info = env.reset(seed=seed)
    frames, actions = [env.render()], []
    done, step = False, 0
    while not done:
        a = policy(info["action_mask"].astype(bool), step)
        _, _, term, trunc, info = env.step(a)
        frames.append(env.render())
        actions.append(a)
        done, step = term or trunc, step + 1
    return frames, actions


@pytest.mark.parametrize("rules", RULESETS)
def test_frames_of_a_whole_game_every_rule_set(rules: str) -> None:
    frames, actions = episode_frames(rules, seed=3)
    for f in frames:
        assert f.shape == (HEIGHT, WIDTH, 3) and f.dtype == np.uint8
    assert all((a != b).any() for a, b in zip(frames, frames[1:])), "every step changes the picture"
    assert not has(frames[0], "agent", _LAST), "no last action at the start"
    assert has(frames[0], "open", _NOW), "open boxes show the points of the dice"
    assert not has(frames[-1], "open", _NOW), "a finished card has no open box"
    for f, a in zip(frames[1:], actions):
        assert has(f, "agent", _LAST)
        kept = a < NUM_KEEP_ACTIONS and a != 0
        assert has(f, "kept", _DICE) == kept, "kept dice are drawn in the colour 'kept', and only then"
    again, _ = episode_frames(rules, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(frames, again)), "same seed, same frames"
    other = YachtEnv(rules, render_mode="rgb_array")
    other.reset(seed=4)
    assert not np.array_equal(frames[0], other.render()), "another seed, other dice"


def test_an_ignored_illegal_action_is_shown_as_such() -> None:
    env = YachtEnv("yahtzee", render_mode="rgb_array")
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(~info["action_mask"].astype(bool))[0])
    env.step(illegal)
    f = env.render()
    assert has(f, "regret", _LAST) and not has(f, "agent", _LAST)
    st = env.state
    assert np.array_equal(f, draw_frame(st, last_action(st, illegal, legal=False)))


def test_vector_render_is_one_frame_per_game_as_the_single_env_draws_it() -> None:
    seeds = [5, 6, 7]
    venv = YachtVectorEnv(len(seeds), "yatzy", render_mode="rgb_array")
    venv.reset(seed=seeds)
    singles = [YachtEnv("yatzy", render_mode="rgb_array") for _ in seeds]
    infos = [e.reset(seed=s)[1] for e, s in zip(singles, seeds)]
    for step in range(20):  # within the first game of each
        frames = venv.render()
        assert isinstance(frames, tuple) and len(frames) == len(seeds)
        for e, f in zip(singles, frames):
            assert np.array_equal(f, e.render())
        acts = [policy(i["action_mask"].astype(bool), step) for i in infos]
        venv.step(np.array(acts))
        infos = [e.step(a)[4] for e, a in zip(singles, acts)]


def test_vector_frame_after_an_autoreset_has_no_last_action() -> None:
    venv = YachtVectorEnv(1, "yacht", render_mode="rgb_array", autoreset_mode="same_step")
    venv.reset(seed=0)
    done = False
    while not done:
        mask = venv.action_masks()[0]
        _, _, term, trunc, _ = venv.step(np.array([int(np.flatnonzero(mask[NUM_KEEP_ACTIONS:])[0]) + NUM_KEEP_ACTIONS]))
        done = bool(term[0] or trunc[0])
    f = venv.render()[0]
    assert venv.state(0).turn == 0 and not has(f, "agent", _LAST)


def test_unknown_render_mode_names_the_accepted_ones() -> None:
    with pytest.raises(ValueError, match="'rgb_array'"):
        YachtEnv("yacht", render_mode="rgb")
    with pytest.raises(ValueError, match="'rgb_array'"):
        YachtVectorEnv(2, "yacht", render_mode="rgb")


def test_record_video_writes_a_playable_file(tmp_path: Path) -> None:
    pytest.importorskip("moviepy")
    imageio = pytest.importorskip("imageio.v3")
    env = gym.make("Yahtzee-v1", render_mode="rgb_array")
    env = gym.wrappers.RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda ep: True,
                                   name_prefix="yahtzee", disable_logger=True)
    _, info = env.reset(seed=11)
    steps, done = 0, False
    while not done:
        _, _, term, trunc, info = env.step(policy(info["action_mask"].astype(bool), steps))
        steps, done = steps + 1, term or trunc
    env.close()
    files = sorted((tmp_path / "videos").glob("*.mp4"))
    assert [f.name for f in files] == ["yahtzee-episode-0.mp4"]
    video = imageio.imread(files[0])
    assert video.shape == (steps + 1, HEIGHT, WIDTH, 3), "one frame per position, the reset's included"
    assert video[0].std() > 10, "the first frame is a picture, not a blank"



def test_make_vec_passes_the_render_mode() -> None:
    venv = gym.make_vec("Yacht-v0", num_envs=2, vectorization_mode="vector_entry_point", render_mode="rgb_array")
    venv.reset(seed=[1, 2])
    frames = venv.render()
    env = YachtEnv("yacht", render_mode="rgb_array")
    env.reset(seed=2)
    assert len(frames) == 2 and np.array_equal(frames[1], env.render())
