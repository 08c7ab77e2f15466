"""The yacht command on bad input and broken streams: one line, the right exit status,
no traceback, no work done first."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, child_env

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
])
def test_yacht_eval_fails_at_once_before_any_game(args: list[str], match: str, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from yacht_tools.cli import eval as eval_cmd
    from yacht_tools.cli import main

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

    child = pexpect.spawn(sys.executable, ["-m", "yacht_tools.cli", "play", "--seed", "1"], cwd=str(REPO),
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
