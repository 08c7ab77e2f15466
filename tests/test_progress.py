"""Progress on stderr: a long ``yacht tournament``, ``yacht eval`` or ``train.py`` is never silent when its output
is piped (stderr not a terminal): a plain line every few seconds, each a line of its own."""

from __future__ import annotations

import io
import json
import re
import time
from pathlib import Path

import pytest
import yaml

from yacht_cli import main
from yacht_tools import progress
from yacht_tools.progress import LineWriter, progress_bar


@pytest.fixture
def quick_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines at once and at every update, so that a short run shows what a long one shows every few seconds."""
    monkeypatch.setattr(progress, "DELAY_S", 0.0)
    monkeypatch.setattr(progress, "LINE_INTERVAL_S", 0.0)


def _lines(err: str, desc: str, unit: str) -> list[tuple[int, int]]:
    """``(done, total)`` of every progress line of ``desc`` in ``err``; each must be a whole line."""
    assert "\r" not in err
    pattern = rf"{re.escape(desc)}: +\d+% (\d+)/(\d+) {unit} \[.*\]"
    found = [(int(m[1]), int(m[2])) for m in (re.fullmatch(pattern, line) for line in err.splitlines()) if m]
    assert found, err
    return found


def test_lines_where_stderr_is_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "DELAY_S", 0.1)
    monkeypatch.setattr(progress, "LINE_INTERVAL_S", 0.1)
    buf = io.StringIO()
    with progress_bar(30, "games", "game", file=buf, leave=False) as bar:
        for _ in range(30):
            time.sleep(0.02)
            bar.update(1)
    done = _lines(buf.getvalue(), "games", "game")
    assert 2 <= len(done) < 30 and done == sorted(done) and done[-1] == (30, 30)  # throttled, then the end
    quiet = io.StringIO()
    with progress_bar(30, "games", "game", file=quiet) as bar:
        bar.update(30)
    assert quiet.getvalue() == ""  # a run shorter than the delay writes nothing
    off = io.StringIO()
    with progress_bar(30, "games", "game", enabled=False, file=off) as bar:
        bar.update(30)
    assert off.getvalue() == ""


def test_line_writer_turns_redraws_into_lines() -> None:
    buf = io.StringIO()
    w = LineWriter(buf)
    for s in ("\rtournament: 10%", "   ", "\rtournament: 20%   ", "\n"):
        w.write(s)
    assert buf.getvalue() == "tournament: 10%\ntournament: 20%\n"


def test_tournament_reports_progress_when_piped(quick_lines: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--agents", "greedy", "random", "--games", "40"]) == 0
    out, err = capsys.readouterr()
    assert "greedy" in out and "tournament:" not in out  # the report on stdout, the progress on stderr
    done = _lines(err, "tournament", "game")
    assert done[-1] == (40, 40) and len(done) > 1
    assert main(["tournament", "--agents", "greedy", "random", "--games", "40", "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


def test_eval_reports_progress_when_piped(quick_lines: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--agent", "greedy", "--episodes", "30", "--no-regret"]) == 0
    out, err = capsys.readouterr()
    assert "greedy on Yacht: 30 games" in out
    assert _lines(err, "greedy on yacht", "game")[-1] == (30, 30)


@pytest.mark.parametrize("exact", [False, True])
def test_training_reports_progress_when_piped(exact: bool, quick_lines: None, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The TD learner's bar ends at the total; with exact_budget its steps stop within one longest game (36 steps)
    below it, never past; without, its last iteration of whole games may pass it."""
    import train

    cfg = {"rules": "yacht", "algo": "td", "total_timesteps": 300, "exact_budget": exact, "seed": 0,
           "checkpoint_freq": 300,
           "torch_threads": 1, "td": {"hidden": [16], "games_per_iteration": 4},
           "eval": {"freq": 300, "episodes": 5, "final_episodes": 5}}
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    assert train.main(["--config", str(path), "--run-dir", str(tmp_path / "runs")]) == 0
    done = _lines(capsys.readouterr().err, "td", "step")
    steps = json.loads(next((tmp_path / "runs").glob("*/eval.json")).read_text())["training_timesteps"]
    if exact:
        assert 300 - 36 < steps <= 300 and done[-1] == (steps, 300)
    else:
        assert steps >= 300 and done[-1][1] == 300


def test_a_bar_run_past_its_total_ends_at_100_percent(quick_lines: None) -> None:
    buf = io.StringIO()
    with progress_bar(50_000, "ppo", "step", file=buf) as bar:
        bar.update(40_960)
        bar.update(16_384)  # a whole rollout past the total
    lines = buf.getvalue().splitlines()
    assert "?" not in lines[-1] and re.match(r"ppo: 100% 57344/57344 step \[.*step/s\]", lines[-1]), lines
    assert "<00:" in lines[1]  # the time left is shown once the rate is known


def test_the_ppo_bar_ends_at_the_end_of_its_last_rollout() -> None:
    from yacht_training.sb3_ppo import rollout_end

    assert rollout_end(0, 50_000, 8192) == 57_344  # seven rollouts: learn() stops at the first past the total
    assert rollout_end(0, 1024, 256) == 1024
    assert rollout_end(512, 1000, 256) == 1024  # resumed at step 512
    assert rollout_end(2048, 1024, 256) == 2048  # nothing left to learn


def test_the_ppo_bar_ends_at_an_exact_budget() -> None:
    from yacht_training.sb3_ppo import budget_end

    assert budget_end(0, 50_000, 256) == 49_920  # 195 vector steps of 256: the 196th would pass the budget
    assert budget_end(0, 1024, 256) == 1024
    assert budget_end(512, 1000, 256) == 768  # resumed at step 512
    assert budget_end(2048, 1024, 256) == 2048  # nothing left to learn


@pytest.mark.parametrize("exact", [False, True])
def test_ppo_training_reports_progress_to_100_percent(exact: bool, quick_lines: None, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Whole rollouts by default (SB3's count: 512 steps for 300); with exact_budget the last rollout is cut short
    at the last multiple of n_envs (296), never past the total."""
    import train

    cfg = {"rules": "yacht", "total_timesteps": 300, "exact_budget": exact, "n_envs": 8, "checkpoint_freq": 512,
           "torch_threads": 1,
           "policy": {"net_arch": [16]}, "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1},
           "eval": {"freq": 512, "episodes": 5, "final_episodes": 5}}
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    assert train.main(["--config", str(path), "--run-dir", str(tmp_path / "runs")]) == 0
    err = capsys.readouterr().err
    end = 296 if exact else 512  # exact: one whole rollout of 256 and one cut to 5 vector steps
    said = "is not a multiple of n_envs 8: the run stops at 296" if exact else \
        "rounded up to whole rollouts of 256 steps: 512"
    assert f"total_timesteps 300 {said}" in err
    done = _lines(err, "maskable_ppo", "step")
    assert done[-1] == (end, end) and "100%" in [ln for ln in err.splitlines() if "maskable_ppo:" in ln][-1]
    result = json.loads(next((tmp_path / "runs").glob("*/eval.json")).read_text())
    assert result["training_timesteps"] == end


def test_reach_evaluation_reports_progress_when_piped(quick_lines: None, capsys: pytest.CaptureFixture[str]) -> None:
    from yacht_tools.objective_eval import evaluate_reach

    evaluate_reach("greedy", "yacht", 6, 150, seed=0, regret=False, progress=True)
    assert _lines(capsys.readouterr().err, "greedy on yacht", "game")[-1] == (6, 6)


def test_a_bar_clock_leaves_out_the_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seconds numba spends compiling while a bar is open do not count in its elapsed time, rate or time left: a
    cold start shows the games' pace, not an hour made of the compile."""
    compiled = [0.0]
    monkeypatch.setattr(progress, "compile_seconds", lambda: compiled[0])
    with progress_bar(100, "games", "game", file=io.StringIO()) as bar:
        bar.start_t -= 30.0  # 30 s went by before the first game ended ...
        compiled[0] = 29.5  # ... 29.5 of them compiling
        bar.update(10)
        elapsed = bar.format_dict["elapsed"]
        assert 0.4 < elapsed < 5.0, elapsed
        assert bar.format_dict["rate"] is None or bar.format_dict["rate"] > 2.0


def test_the_compile_notice_is_one_line_redrawn_on_a_terminal(monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """On a terminal the "still compiling" report redraws one line and erases it at the end; in a log each report is
    a line of its own."""
    from yacht_env.jit import notice

    monkeypatch.delenv(notice.QUIET_ENV, raising=False)
    monkeypatch.delenv("YACHT_ENV_QUIET_COMPILE", raising=False)
    monkeypatch.setattr(notice, "_terminal", lambda: True)
    with notice.SlowNotice("compiling numba kernels: x", after=0.0, every=0.05, said=True):
        time.sleep(0.3)
    err = capsys.readouterr().err
    assert err.count("yacht-env: still compiling numba kernels: x") >= 2 and "\n" not in err
    assert err.endswith("\r\x1b[K")
    monkeypatch.setattr(notice, "_terminal", lambda: False)
    with notice.SlowNotice("compiling numba kernels: x", after=0.0, every=0.05, said=True):
        time.sleep(0.3)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) >= 2 and all(line.startswith("yacht-env: still compiling") for line in lines)


def test_the_wait_for_the_first_update_sets_no_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow first game (a model's first calls) is warm-up: no line shows a rate made of it, and the rate and time
    left come from the games after it (``yacht eval --agent mine.zip`` once showed 1.30 s/game and 21 minutes left
    for a run that ended a second later)."""
    monkeypatch.setattr(progress, "DELAY_S", 0.0)
    monkeypatch.setattr(progress, "LINE_INTERVAL_S", 0.0)
    buf = io.StringIO()
    with progress_bar(1000, "games", "game", file=buf) as bar:
        bar.start_t -= 5.0  # five seconds before the first game ends ...
        bar.last_print_t -= 5.0
        bar.update(1)
        time.sleep(0.05)
        bar.update(99)  # ... then 99 games in a twentieth of a second
        rate = bar.format_dict["rate"]
    lines = buf.getvalue().splitlines()
    assert not [line for line in lines if " 1/1000 " in line], lines  # the warm-up's own line is not written
    assert rate is not None and rate > 200, rate  # about 99 / 0.05 s, not 100 / 5 s
    assert not [line for line in lines if "s/game" in line], lines  # never seconds per game
