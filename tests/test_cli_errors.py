"""The yacht command on bad input and broken streams: one line, the right exit status,
no traceback, no work done first."""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, child_env, sigint_default

# ==== yacht eval checks its outputs before any game ========================================================


@pytest.mark.parametrize("args,match", [
    (["--json", "{tmp}"], "cannot write --json '{tmp}': it is a folder; give a file name"),
    (["--json", "{tmp}/missing/r.json"], "cannot write --json '{tmp}/missing/r.json': folder '{tmp}/missing' does not "
                                         "exist"),
    (["--plot", "{tmp}/missing/p.png"], "cannot write --plot '{tmp}/missing/p.png': folder '{tmp}/missing' does not "
                                        "exist"),
    (["--plot", "{tmp}"], "cannot write --plot '{tmp}': it is a folder; give a file name"),
    (["--plot", "{tmp}/file/p.png"], "cannot write --plot '{tmp}/file/p.png': folder '{tmp}/file' does not exist"),
    (["--episodes", "1000000000000"], "episodes must be at most 100,000,000, got 1,000,000,000,000"),
    (["--json", ""], "--json needs a file name, got ''"),
    (["--json", "{tmp}/r.json", "--plot", "{tmp}/r.json"], "--json and --plot name the same file '{tmp}/r.json': give "
                                                          "each its own"),
    (["--json", "/sys/x.json"], "cannot write --json '/sys/x.json': folder '/sys' takes no new file (Permission "
                                "denied)"),
    (["--plot", "/proc/x.png"], "cannot write --plot '/proc/x.png': folder '/proc' takes no new file (No such file "
                                "or directory)"),
])
def test_yacht_eval_fails_at_once_before_any_game(args: list[str], match: str, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from yacht_cli import eval_command as eval_cmd
    from yacht_cli import main

    def no_game(*a: Any, **k: Any) -> None:
        raise AssertionError("a game was played (or an agent loaded) before the options were checked")

    monkeypatch.setattr(eval_cmd, "evaluate", no_game)
    monkeypatch.setattr(eval_cmd, "load_agent", no_game)
    (tmp_path / "file").write_text("")
    t0 = time.perf_counter()
    rc = main(["eval", "--agent", "optimal", *[a.format(tmp=tmp_path) for a in args]])
    err = capsys.readouterr().err
    assert rc == 2 and err == f"yacht eval: error: {match.format(tmp=tmp_path)}\n"
    assert time.perf_counter() - t0 < 5

def test_yacht_play_survives_an_undecodable_input_line() -> None:
    """A line that is not UTF-8 is an unknown command; the game goes on (a real terminal, raw bytes)."""
    pexpect = pytest.importorskip("pexpect")
    from yacht_tools.play import PROMPT

    child = pexpect.spawn(sys.executable, ["-m", "yacht_cli", "play", "--seed", "1"], cwd=str(REPO),
                          env=child_env(PYTHONIOENCODING="utf-8"), timeout=60, dimensions=(60, 200))
    prompt = PROMPT.encode()
    try:
        child.expect_exact(prompt)
        child.send(b"k\xff\xfe 5\xc3\r")
        child.expect_exact(prompt)
        assert b"Unknown command" in child.before and b"Traceback" not in child.before
        child.sendline(b"keep")  # the game is still there: all five dice rerolled, one roll left
        child.expect_exact(prompt)
        assert b"Rolls left" in child.before and b"Unknown command" not in child.before
        child.sendline(b"quit")
        child.expect(pexpect.EOF)
        assert b"Traceback" not in child.before
    finally:
        child.close()
    assert child.exitstatus == 0



# ==== no traceback: bad specs, closed and full streams, Ctrl-C ====================================================


def test_a_relative_module_as_agent_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from yacht_cli import main

    assert main(["eval", "--agent", ".foo:bar", "--episodes", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("yacht eval: error: ") and "'.foo:bar'" in err and err.count("\n") == 1


def _shell(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=child_env(), timeout=300,
                          cwd=str(REPO))


@pytest.mark.parametrize("redirect,message,status", [
    ("<&-", "yacht play: error: standard input is closed; yacht play reads your moves from it", 2),
    (">&-", "yacht play: error: standard output is closed; give the command somewhere to print (a file, a pipe)", 2),
])
def test_yacht_play_with_a_closed_stream(redirect: str, message: str, status: int) -> None:
    p = _shell(f"{shlex.quote(sys.executable)} -m yacht_cli play --seed 1 {redirect}")
    assert p.returncode == status and p.stderr == message + "\n"


@pytest.mark.parametrize("argv", [["solve", "--rules", "yacht"], ["replay", "--agent", "greedy", "--no-regret"],
                                  ["eval", "--agent", "greedy", "--episodes", "2", "--no-regret"]])
def test_stdout_on_a_full_disk_is_one_line_and_exit_1(argv: list[str], monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from yacht_cli import main

    with open("/dev/full", "w") as full:
        monkeypatch.setattr(sys, "stdout", full)
        assert main(argv) == 1
    assert capsys.readouterr().err.splitlines()[-1] == f"yacht {argv[0]}: error: No space left on device"


def test_stdout_on_a_full_disk_from_the_shell() -> None:
    """The whole process: one line, exit 1, and no second error from Python's flush at exit."""
    p = _shell(f"{shlex.quote(sys.executable)} -m yacht_cli replay --agent greedy --no-regret > /dev/full")
    assert p.returncode == 1 and p.stderr.splitlines()[-1] == "yacht replay: error: No space left on device"
    assert "Traceback" not in p.stderr and "Exception ignored" not in p.stderr


def test_ctrl_c_is_one_line_and_exit_130(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from yacht_cli import eval_command as eval_cmd
    from yacht_cli import main

    def interrupted(*a: Any, **k: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(eval_cmd, "evaluate", interrupted)
    assert main(["eval", "--agent", "greedy", "--episodes", "10"]) == 130
    assert capsys.readouterr().err == "\nyacht eval: interrupted\n"


def test_ctrl_c_from_the_shell(tmp_path: Path) -> None:
    """A real SIGINT during yacht eval: one line, exit 130."""
    p = subprocess.Popen([sys.executable, "-m", "yacht_cli", "eval", "--agent", "random", "--episodes",
                          "10000000", "--no-regret", "--progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=child_env(), cwd=str(tmp_path), preexec_fn=sigint_default)
    assert p.stderr is not None
    seen = ""
    while "game" not in seen:  # the progress bar: the games have started
        char = p.stderr.read(1)
        assert char, f"yacht eval ended early: {seen}"
        seen += char
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130 and (seen + err).rstrip().endswith("yacht eval: interrupted")
    assert "Traceback" not in seen + err


@pytest.mark.parametrize("path,match", [
    ("", "--json needs a file name, got ''"),
    ("/proc/x.json", "cannot write --json '/proc/x.json': folder '/proc' takes no new file (No such file or "
                     "directory)"),
    ("{tmp}", "cannot write --json '{tmp}': it is a folder; give a file name"),
])
def test_yacht_tournament_checks_its_json_before_any_game(path: str, match: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from yacht_cli import main
    from yacht_cli import tournament_command as cli_tournament

    def no_game(*a: Any, **k: Any) -> None:
        raise AssertionError("a game was played before the options were checked")

    monkeypatch.setattr(cli_tournament, "run_tournament", no_game)
    assert main(["tournament", "--agents", "greedy", "random", "--json", path.format(tmp=tmp_path)]) == 2
    assert capsys.readouterr().err == f"yacht tournament: error: {match.format(tmp=tmp_path)}\n"


def test_ctrl_c_from_the_shell_also_when_the_suite_ignores_sigint(tmp_path: Path) -> None:
    """The test above, from a process that ignores SIGINT as a shell's ``cmd &`` makes it."""
    code = ("import signal, sys\n"
            "sys.path[:0] = [sys.argv[1]]\n"
            "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
            "import pathlib, test_cli_errors\n"
            "test_cli_errors.test_ctrl_c_from_the_shell(pathlib.Path(sys.argv[2]))\n"
            "print('ok')\n")
    p = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent), str(tmp_path)], capture_output=True,
                       text=True, env=child_env(), cwd=str(REPO), timeout=300)
    assert p.returncode == 0 and p.stdout == "ok\n", p.stderr[-2000:]


def test_an_evaluation_too_large_for_the_memory_is_refused_up_front(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """``--episodes 100000000`` (the documented maximum) allocated 8.9 GiB before the first game."""
    from yacht_cli import eval_command as eval_cmd
    from yacht_cli import main
    from yacht_tools import evaluation

    def no_game(*a: Any, **k: Any) -> None:
        raise AssertionError("an agent was loaded before the memory was checked")

    monkeypatch.setattr(evaluation, "available_bytes", lambda: 2 * 10**9)
    monkeypatch.setattr(eval_cmd, "load_agent", no_game)
    assert main(["eval", "--agent", "random", "--episodes", "100000000", "--no-progress"]) == 2
    assert capsys.readouterr().err == ("yacht eval: error: 100,000,000 games would keep up to 18.2 GB of per-game "
                                       "results in memory, more than the 2.0 GB available: evaluate fewer games "
                                       "(several runs with other seeds add up)\n")
    assert main(["eval", "--agent", "random", "--episodes", "100000000", "--no-regret", "--no-progress"]) == 2
    assert "would keep up to 8.7 GB of per-game results" in capsys.readouterr().err


def test_the_memory_figure_of_an_evaluation_bounds_what_it_keeps() -> None:
    """Each game more costs at most what evaluation_bytes says (the batches played cost the same either way)."""
    import tracemalloc

    from yacht_tools.evaluation import evaluate, evaluation_bytes

    evaluate("random", "yacht", 10, regret=False)  # compiled, tables built: not counted
    peaks = []
    for n in (1000, 9000):
        tracemalloc.start()
        evaluate("random", "yacht", n, regret=False, compare=False, batch_size=1000)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    per_game = (peaks[1] - peaks[0]) / 8000
    assert 0 < per_game <= evaluation_bytes("yacht", 1, regret=False), per_game
