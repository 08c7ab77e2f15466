"""``--agent`` / ``--agents`` specs on the command line: a user's ``package.module:function`` found in the current
folder by every subcommand that takes an agent, and a path that does not exist reported as not found."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from yacht_cli import main

POLICY = '''import numpy as np


def act(obs, masks):
    """The last legal action: always a box once no roll is left, so every game ends."""
    return masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)
'''


def user_package(folder: Path, name: str) -> str:
    """A package ``name`` with a policy module in ``folder``; returns its spec."""
    (folder / name).mkdir()
    (folder / name / "__init__.py").write_text("", encoding="utf-8")
    (folder / name / "policies.py").write_text(POLICY, encoding="utf-8")
    return f"{name}.policies:act"


@pytest.fixture
def in_user_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current folder is ``tmp_path`` and, as under a console script, not on ``sys.path``."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".", str(tmp_path))])
    return tmp_path


@pytest.mark.parametrize("command", ["eval", "replay", "play", "tournament"])
def test_a_policy_in_the_current_folder_in_every_subcommand(in_user_folder: Path, command: str,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    spec = user_package(in_user_folder, f"userpkg_{command}")
    argv = {"eval": ["eval", "--agent", spec, "--episodes", "3", "--no-regret", "--no-progress"],
            "replay": ["replay", "--agent", spec, "--no-regret"],
            "play": ["play", "--vs", spec, "--seed", "1"],
            "tournament": ["tournament", "--agents", spec, "random", "--games", "4", "--no-progress"]}[command]
    monkeypatch.setattr(sys, "stdin", io.StringIO("s 1\nquit\n"))
    assert main(argv) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "act" in out
    assert str(in_user_folder) in sys.path  # appended, after the installed packages
    assert sys.path.index(str(in_user_folder)) == len(sys.path) - 1


def test_a_policy_in_the_current_folder_through_the_console_script(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("yacht")
    if not script.is_file():
        pytest.skip(f"no console script {script} (the package is not installed in this environment)")
    spec = user_package(tmp_path, "userpkg_script")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([str(script), "eval", "--agent", spec, "--episodes", "3", "--no-regret", "--no-progress"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "act on Yacht: 3 games" in run.stdout


def test_a_missing_module_says_where_it_looked(in_user_folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--agent", "nosuchpkg.policies:act", "--episodes", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "cannot load the policy 'nosuchpkg.policies:act': No module named 'nosuchpkg'" in err
    assert f"(looked in the current folder {str(in_user_folder)!r} too)" in err


@pytest.mark.parametrize(("spec", "message"), [
    ("runs/no-such-run", "model file or run folder not found: 'runs/no-such-run'"),
    ("./no-such-run", "model file or run folder not found: 'no-such-run'"),
    ("runs/no-such-run/final_model.zip", "model file not found: 'runs/no-such-run/final_model.zip'"),
    ("no-such-model.pt", "model file not found: 'no-such-model.pt'"),
])
@pytest.mark.parametrize("command", ["eval", "replay", "play", "tournament"])
def test_a_path_that_does_not_exist_is_not_found(in_user_folder: Path, capsys: pytest.CaptureFixture[str],
                                                 command: str, spec: str, message: str) -> None:
    flag = {"eval": ["--agent", spec, "--episodes", "1", "--no-progress"], "replay": ["--agent", spec],
            "play": ["--vs", spec], "tournament": ["--agents", spec, "random", "--no-progress"]}[command]
    assert main([command, *flag]) == 2
    err = capsys.readouterr().err
    assert f"yacht {command}: error: {message}" in err and "unknown agent" not in err


@pytest.mark.parametrize(("spec", "reason"), [
    ("math:sqrt", "cannot be called as a policy (math.sqrt() takes exactly one argument (2 given))"),
    ("builtins:len", "cannot be called as a policy (len() takes exactly one argument (2 given))"),
    ("numpy:zeros_like", "cannot be called as a policy (Cannot construct a dtype from an array)"),
])
def test_a_callable_that_is_not_a_policy_says_what_a_policy_takes_and_returns(
        spec: str, reason: str, capsys: pytest.CaptureFixture[str]) -> None:
    """They gave TypeError tracebacks (or a bare shape error)."""
    assert main(["eval", "--agent", spec, "--episodes", "1", "--no-regret", "--no-progress"]) == 2
    err = capsys.readouterr().err
    name = spec.split(":")[1]
    assert err == (f"yacht eval: error: policy {name!r} {reason}: a policy is a function(obs, masks) -> actions: obs "
                   "(N, D) float32 and masks (N, A) bool, one row per game, and it returns (N,) integer actions, one "
                   "legal action per game; or a function(obs, mask) -> action of one game: obs (D,), mask (A,), an "
                   "integer action\n")


def test_a_policy_returning_other_than_one_integer_action_per_game_says_what_it_returned() -> None:
    import numpy as np

    from yacht_tools.evaluation import evaluate

    def masks_back(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return masks

    with pytest.raises(ValueError, match=r"^policy 'masks_back' returned bool \(4, 45\) for 4 games: a policy is a "
                                         r"function\(obs, masks\) -> actions"):
        evaluate(masks_back, "yahtzee", 4, regret=False, batch_size=4)


def test_a_folder_named_as_a_shipped_model_does_not_shadow_it(in_user_folder: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """An empty ./td-yacht made ``--agent td-yacht`` a run folder without a model; the bare name is the shipped
    model, ``./td-yacht`` the folder."""
    from yacht_agents.loader import load_agent

    (in_user_folder / "td-yacht").mkdir()
    assert type(load_agent("td-yacht", "yacht", seed=0)).__name__ == "TDAgent"
    assert main(["eval", "--agent", "./td-yacht", "--episodes", "1", "--no-progress"]) == 2
    assert "is a folder without a model" in capsys.readouterr().err
