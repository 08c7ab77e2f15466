"""The run folder's lock between processes (:class:`yacht_training.run_folder.RunLock`, ``filelock`` underneath)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import child_env

from yacht_training.run_folder import LOCK_FILE, lock_run

_HOLD = ("import sys, time\nfrom pathlib import Path\nfrom yacht_training.run_folder import lock_run\n"
         "lock = lock_run(Path(sys.argv[1]))\nprint('held', flush=True)\ntime.sleep(120)\n")


def _holder(run: Path) -> subprocess.Popen[str]:
    p = subprocess.Popen([sys.executable, "-c", _HOLD, str(run)], env=child_env(), stdout=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stdout.readline() == "held\n"
    return p


@pytest.mark.skipif(sys.platform == "win32", reason="flock: the lock of a killed process is dropped by the kernel")
def test_a_run_folder_is_held_by_one_process_and_freed_when_its_holder_is_killed(tmp_path: Path) -> None:
    """A second process is refused at once, told the holder's pid; the holder killed (no clean exit), the folder is
    free at once: a stale lock never blocks."""
    holder = _holder(tmp_path)
    try:
        with pytest.raises(ValueError, match=rf"is in use by another train.py \(pid {holder.pid}\)"):
            lock_run(tmp_path)
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    with lock_run(tmp_path):
        assert (tmp_path / LOCK_FILE).read_text() == f"{os.getpid()}\n"


def test_a_released_run_folder_is_free_and_one_process_holds_it_once(tmp_path: Path) -> None:
    lock = lock_run(tmp_path)
    with pytest.raises(ValueError, match="is in use by another train.py"):
        lock_run(tmp_path)  # also within one process: a second holder is refused
    lock.release()
    lock_run(tmp_path).release()
