"""Files read from elsewhere are regular files of bounded size: a FIFO, a link to ``/dev/zero`` or a device is
refused at once with one line that says what the path is (it hung the reader, filled memory, or was called
"model file not found")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, child_env


def _yacht(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``yacht ARGS`` in a child process, which a hang cannot take the suite with."""
    return subprocess.run([sys.executable, "-m", "yacht_cli", *args], capture_output=True, text=True,
                          env=child_env(), cwd=str(cwd), timeout=120)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_run_folder_whose_eval_json_is_not_a_regular_file_is_one_line(kind: str, tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    if kind == "fifo":
        os.mkfifo(run / "eval.json")
    else:
        (run / "eval.json").symlink_to("/dev/zero")
    p = _yacht("eval", "--agent", str(run), "--episodes", "2", "--no-regret", "--no-progress", cwd=tmp_path)
    what = "a FIFO (named pipe)" if kind == "fifo" else "a character device"
    assert p.returncode == 2 and p.stderr == (f"yacht eval: error: cannot read the run folder {str(run)!r}: "
                                              f"eval.json is {what}, not a regular file\n")


@pytest.mark.parametrize("suffix", [".pt", ".zip"])
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_model_path_that_is_not_a_regular_file_says_what_it_is(kind: str, suffix: str, tmp_path: Path) -> None:
    model = tmp_path / f"model{suffix}"
    if kind == "fifo":
        os.mkfifo(model)
    else:
        model.symlink_to("/dev/zero")
    p = _yacht("eval", "--agent", str(model), "--episodes", "2", "--no-regret", "--no-progress", cwd=tmp_path)
    what = "a FIFO (named pipe)" if kind == "fifo" else "a character device"
    assert p.returncode == 2 and p.stderr == (f"yacht eval: error: cannot load {str(model)!r}: it is {what}, not a "
                                              "regular file; a model is a .zip or .pt file\n")


def test_readers_of_checkpoints_refuse_a_fifo_without_waiting(tmp_path: Path) -> None:
    """``train.py --resume`` hung forever on a FIFO among checkpoints/: each reader now refuses it at once, and the
    resume falls back to an older checkpoint."""
    fifo = tmp_path / "step_100.pt"
    os.mkfifo(fifo)
    code = ("from yacht_agents.nets import load_torch_file\n"
            "from yacht_agents.sb3_zip import read_zip\n"
            "for read in (load_torch_file, read_zip):\n"
            "    try:\n"
            f"        read({str(fifo)!r})\n"
            "    except ValueError as e:\n"
            "        print(e)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env(), cwd=str(REPO),
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["it is a FIFO (named pipe), not a regular file",
                                     f"{str(fifo)!r} is a FIFO (named pipe), not a regular file"]


def test_files_from_elsewhere_are_read_within_a_limit(tmp_path: Path) -> None:
    from yacht_env.files import read_regular

    big = tmp_path / "big.json"
    big.write_bytes(b"0" * 1001)
    with pytest.raises(ValueError, match=r"'.*big.json' is 1,001 bytes, more than the limit of 1,000$"):
        read_regular(big, 1000)
    with pytest.raises(ValueError, match=r"'/dev/zero' is a character device, not a regular file$"):
        read_regular("/dev/zero", 1000)
    assert read_regular(big, 1001) == b"0" * 1001
