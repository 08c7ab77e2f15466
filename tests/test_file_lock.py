"""File locks between processes (:mod:`yacht_env.file_lock`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import child_env

from yacht_env.file_lock import LOCKS_WORK, FileLock


@pytest.mark.skipif(not LOCKS_WORK, reason="no file locks here")
def test_a_file_lock_excludes_another_process_until_released(tmp_path: Path) -> None:
    lock = FileLock(tmp_path / "x.lock")
    assert lock.acquire() and lock.held
    probe = ("import sys\nfrom yacht_env.file_lock import FileLock\n"
             "print(FileLock(sys.argv[1]).acquire(float(sys.argv[2])))\n")
    env = child_env()
    busy = subprocess.run([sys.executable, "-c", probe, str(lock.path), "0.2"], env=env, capture_output=True,
                          text=True)
    lock.release()
    free = subprocess.run([sys.executable, "-c", probe, str(lock.path), "0"], env=env, capture_output=True, text=True)
    assert (busy.stdout.strip(), free.stdout.strip(), lock.held) == ("False", "True", False)


def test_a_lock_in_a_folder_that_does_not_exist_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        FileLock(tmp_path / "missing" / "x.lock").acquire()
