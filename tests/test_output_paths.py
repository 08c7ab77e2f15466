"""Files written by the tools and train.py: atomic writes that keep the previous file when they die half way,
symlinks followed, devices and pipes written through, every output path checked before the work."""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import shlex
import socket
import stat
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from train_helpers import PPO, REPO, TD, child_env, no_temporary_files, only_run, run_train, steps_of, tiny_config  # noqa: E402

from yacht_env import files  # noqa: E402
from yacht_env import rules as R  # noqa: E402
from yacht_solver import table_cache as solver_cache  # noqa: E402
from yacht_solver.core import Layout  # noqa: E402
from yacht_training import run_folder as rf  # noqa: E402
from yacht_training.config import from_dict, load_config  # noqa: E402

# ==== writes are atomic =======================================================================================


class Killed(BaseException):
    """The process dies in the middle of a write: no handler catches it."""


def _full_disk() -> OSError:
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


FAULTS: dict[str, Callable[[], BaseException]] = {"killed": Killed, "full_disk": _full_disk}


class _TearingFile(io.FileIO):
    """A file whose first write stores half of its bytes, then fails (and so does every later one)."""

    def __init__(self, path: str | Path, fault: Callable[[], BaseException], torn: list[str]) -> None:
        super().__init__(path, "wb")
        self._fault, self._torn = fault, torn

    def write(self, data: Any) -> int:
        data = bytes(data)
        if not self._torn or self._torn[-1] != self.name:
            super().write(data[: max(1, len(data) // 2)])
            self._torn.append(str(self.name))
        raise self._fault()


@contextlib.contextmanager
def _tearing_writes(fault: Callable[[], BaseException], only: Callable[[Path], bool] = lambda p: True
                    ) -> Iterator[list[str]]:
    """Every atomic write (yacht_env.files) and every matplotlib figure saved dies half way with ``fault``; yields
    the paths that were torn."""
    from matplotlib.figure import Figure

    torn: list[str] = []
    real_open, real_savefig = open, Figure.savefig

    def tearing_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if mode == "wb" and only(Path(file)):
            return io.BufferedWriter(_TearingFile(file, fault, torn))
        return real_open(file, mode, *args, **kwargs)

    def tearing_savefig(self: Any, fname: Any, *args: Any, **kwargs: Any) -> None:
        buf = io.BytesIO()
        real_savefig(self, buf, *args, **kwargs)
        Path(fname).write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
        torn.append(str(fname))
        raise fault()

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(files, "open", tearing_open, raising=False)
        mp.setattr(Figure, "savefig", tearing_savefig)
        yield torn


@pytest.fixture(scope="module")
def tiny_ppo_model() -> Any:
    from yacht_training.sb3_ppo import build_model
    from yacht_training.sb3_vec_env import YachtSB3VecEnv

    cfg = from_dict(PPO)
    env = YachtSB3VecEnv(num_envs=2, rules="yacht", seed=0, unique_keeps=True, reward_scale=cfg.reward_scale)
    return build_model(cfg, env, Path(os.environ.get("SB3_LOGDIR", ".")))


def _writers(folder: Path, ppo_model: Any) -> dict[str, tuple[Path, Callable[[int], Any], Callable[[], Any]]]:
    """Per file a later run reads: its path, a write of version v, and a read of the version there."""
    from yacht_agents.sb3_zip import inspect_sb3_zip
    from yacht_agents.td_agent import ValueNet
    from yacht_tools.report import write_json as report_json
    from yacht_training.sb3_resume import save_sb3_atomic

    cfg = from_dict({"algo": "td"})

    def td_model(v: int) -> None:
        ValueNet("yacht", [4]).save(folder / "final_model.pt", {"v": v})

    def ppo_zip(v: int) -> None:
        ppo_model.num_timesteps = v
        save_sb3_atomic(ppo_model, folder / "checkpoints" / "step_512.zip")

    def config(v: int) -> None:
        cfg.seed = v
        rf.record_run(folder, cfg, ["train.py"])

    def curve(v: int) -> None:
        rf.plot_learning_curve([{"timesteps": v, "percent_of_optimal": 50.0}], folder / "learning_curve.png", "t")

    shape = Layout.of(R.YACHT).shape
    return {
        "td model / best_model.pt / final_model.pt": (folder / "final_model.pt", td_model, lambda: torch.load(
            folder / "final_model.pt", weights_only=True)["info"]["v"]),
        "ppo model or checkpoint (save_sb3_atomic)": (folder / "checkpoints" / "step_512.zip", ppo_zip,
                                                      lambda: inspect_sb3_zip(folder / "checkpoints" /
                                                                              "step_512.zip").num_timesteps),
        "config.yaml": (folder / "config.yaml", config,
                        lambda: load_config(folder / "config.yaml", complete=True).seed),
        "evaluations.json": (folder / "evaluations.json",
                             lambda v: rf.save_evaluations(folder, [{"timesteps": v, "mean": 1.0}]),
                             lambda: rf.load_evaluations(folder)[0]["timesteps"]),
        "eval.json": (folder / "eval.json", lambda v: rf.write_json(folder / "eval.json", {"v": v}),
                      lambda: json.loads((folder / "eval.json").read_text())["v"]),
        "training_time.json": (folder / "training_time.json", lambda v: rf.add_training_seconds(folder, v),
                               lambda: rf.training_seconds(folder)),
        "learning_curve.png": (folder / "learning_curve.png", curve,
                               lambda: (folder / "learning_curve.png").read_bytes()[:8]),
        "yacht eval --json": (folder / "report.json", lambda v: report_json({"v": v}, folder / "report.json"),
                              lambda: json.loads((folder / "report.json").read_text())["v"]),
        "solver cache": (solver_cache.cache_path(R.YACHT),
                         lambda v: solver_cache.save(R.YACHT, np.full(shape, float(v))),
                         lambda: float(solver_cache.load(R.YACHT, shape)[0, 0, 0])),
    }


WRITERS = ["td model / best_model.pt / final_model.pt", "ppo model or checkpoint (save_sb3_atomic)", "config.yaml",
           "evaluations.json", "eval.json", "training_time.json", "learning_curve.png", "yacht eval --json",
           "solver cache"]


@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("what", WRITERS)
def test_a_write_that_dies_half_way_keeps_the_previous_file(what: str, fault: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 tiny_ppo_model: Any) -> None:
    """Killed mid-write, or out of disk space: the file a later run reads is still the previous good one, whole,
    and no temporary file is left beside it."""
    monkeypatch.setenv(solver_cache.ENV_VAR, str(tmp_path / "solver"))
    (tmp_path / "checkpoints").mkdir()
    writers = _writers(tmp_path, tiny_ppo_model)
    assert list(writers) == WRITERS
    path, write, read = writers[what]
    write(1)
    old_bytes, old_value = path.read_bytes(), read()
    with _tearing_writes(FAULTS[fault]) as torn, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            write(2)
            failed = False
        except (Killed, OSError, RuntimeError):
            failed = True
    assert torn, "the fault was not injected"
    if what == "solver cache" and fault == "full_disk":  # the cache is an optimisation: a warning, no error
        assert not failed and any("could not write the solver cache" in str(w.message) for w in caught)
    else:
        assert failed
    assert path.read_bytes() == old_bytes and read() == old_value
    no_temporary_files(tmp_path)


def test_a_full_disk_during_a_td_checkpoint_keeps_the_previous_one(tmp_path: Path) -> None:
    """The real training loop: the disk fills up while the second checkpoint is written. train.py stops with the
    OSError (one line and exit 1 from the command line, test below), the first checkpoint is whole and resumes."""
    runs = tmp_path / "runs"

    def second_checkpoint(p: Path) -> bool:
        return p.name.startswith(".step_") and bool(list(p.parent.glob("step_*.pt")))

    with _tearing_writes(_full_disk, only=second_checkpoint) as torn, pytest.raises(OSError, match="No space left"):
        run_train(["--config", str(tiny_config(tmp_path, TD)), "--run-dir", str(runs)])
    assert torn
    run = only_run(runs)
    (first,) = steps_of(run, ".pt")
    assert torch.load(first, weights_only=True)["counters"]["timesteps"] == int(first.stem[5:])
    no_temporary_files(run)
    r = run_train(["--resume", str(run)])
    assert r.rc == 0 and f"resuming from {first.name}" in r.out and (run / "eval.json").is_file()


def test_an_os_error_is_one_line_and_exit_1_from_the_command_line(tmp_path: Path) -> None:
    code = ("import runpy, sys\n"
            "import yacht_training.run_folder as rf\n"
            "def full(*a, **k):\n"
            "    raise OSError(28, 'No space left on device')\n"
            "rf.record_run = full\n"
            f"sys.argv = ['train.py', '--config', {str(tiny_config(tmp_path, TD))!r}, '--run-dir', "
            f"{str(tmp_path / 'runs')!r}]\n"
            f"runpy.run_path({str(REPO / 'train.py')!r}, run_name='__main__')\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env(), timeout=300)
    assert p.returncode == 1
    assert p.stderr == "train.py: error: [Errno 28] No space left on device\n"


# ==== paths the user names: followed, written through, refused, checked before the work =========================


def _eval_main(*argv: str) -> int:
    from yacht_cli import main

    return main(["eval", "--agent", "greedy", "--episodes", "3", "--no-regret", "--no-progress", *argv])


def _device_copy(path: Path, major: int, minor: int) -> Path:
    """A copy of a character device (1, 3: /dev/null; 1, 7: /dev/full), as ``mknod`` makes it (needs root)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(major, minor))
    except PermissionError:
        pytest.skip("mknod needs root")
    return path


def test_a_symlink_is_followed_and_its_target_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target, link = tmp_path / "target.json", tmp_path / "link.json"
    target.write_text("stale\n")
    link.symlink_to(target.name)
    assert _eval_main("--json", str(link)) == 0
    assert link.is_symlink() and os.readlink(link) == target.name
    assert json.loads(target.read_text())["episodes"] == 3
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to("new.json")
    files.write_text_atomic(dangling, "x", user_path=True)
    assert dangling.is_symlink() and (tmp_path / "new.json").read_text() == "x"
    no_temporary_files(tmp_path)


def test_a_character_device_is_written_through_never_replaced(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    null, full = _device_copy(tmp_path / "null", 1, 3), _device_copy(tmp_path / "full", 1, 7)
    assert _eval_main("--json", str(null)) == 0
    assert stat.S_ISCHR(null.lstat().st_mode) and null.read_bytes() == b""
    capsys.readouterr()
    assert _eval_main("--json", str(full), "--plot", str(null)) == 1
    assert capsys.readouterr().err == "yacht eval: error: No space left on device\n"  # never "wrote"
    assert stat.S_ISCHR(full.lstat().st_mode) and stat.S_ISCHR(null.lstat().st_mode)
    from yacht_cli import main

    for argv in (["replay", "--agent", "greedy", "--no-regret", "--output", str(null)],
                 ["tournament", "--agents", "greedy", "random", "--games", "2", "--no-progress", "--json", str(null)]):
        assert main(argv) == 0 and stat.S_ISCHR(null.lstat().st_mode), argv
    no_temporary_files(tmp_path)


def test_a_fifo_is_written_through(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    files.write_text_atomic(fifo, '{"a": 1}\n', user_path=True)
    reader.join(10)
    assert got == [b'{"a": 1}\n'] and stat.S_ISFIFO(fifo.lstat().st_mode)


def test_a_link_to_stdout_reaches_stdout(tmp_path: Path) -> None:
    link = tmp_path / "out.json"
    link.symlink_to("/proc/self/fd/1")
    p = subprocess.run([sys.executable, "-m", "yacht_cli", "eval", "--agent", "greedy", "--episodes", "2",
                        "--no-regret", "--json", str(link)], capture_output=True, text=True, env=child_env(),
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert '"episodes": 2' in p.stdout and f"wrote {link}" in p.stdout and link.is_symlink()


def test_the_project_s_own_files_replace_a_link_or_a_device(tmp_path: Path) -> None:
    """Caches and run-folder files are the project's: a link or a device there is replaced by a regular file."""
    link = tmp_path / "evaluations.json"
    link.symlink_to("/dev/null")
    files.write_text_atomic(link, "[]")
    assert not link.is_symlink() and link.read_text() == "[]"


def test_what_cannot_take_a_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"cannot write --json '.*': it is a folder; give a file name"):
        files.check_output_path(tmp_path, "--json")
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(tmp_path / "sock"))
        with pytest.raises(ValueError, match=r"cannot write --json '.*sock': it is a socket"):
            files.check_output_path(tmp_path / "sock", "--json")
        with pytest.raises(ValueError, match=r"it is a socket"):
            files.write_text_atomic(tmp_path / "sock", "x", user_path=True)
    for path, match in [("", r"--plot needs a file name, got ''"), ("/sys/x.png", r"folder '/sys' takes no new file"),
                        ("/proc/x.png", r"folder '/proc' takes no new file")]:
        with pytest.raises(ValueError, match=match):
            files.check_output_path(path, "--plot")
    with pytest.raises(ValueError, match=r"--json and --plot name the same file '.*same': give each its own"):
        files.check_output_paths({"--json": str(tmp_path / "same"), "--plot": str(tmp_path / "." / "same")})
    assert files.check_output_paths({"--json": "/dev/null", "--plot": "/dev/null"})  # a device takes both
    assert files.check_output_path("~/x.json", "--json") == Path.home() / "x.json"


def test_dev_stdout_into_a_file_is_added_to_not_replaced(tmp_path: Path) -> None:
    """``yacht eval --json /dev/stdout > out.txt``: the report, then the JSON, in out.txt (renaming a new file over
    out.txt would leave the shell's descriptor on a deleted file and lose the report)."""
    out = tmp_path / "out.txt"
    p = subprocess.run(["bash", "-c", f"{shlex.quote(sys.executable)} -m yacht_cli eval --agent greedy "
                        f"--episodes 2 --no-regret --no-progress --json /dev/stdout > {shlex.quote(str(out))}"],
                       capture_output=True, text=True, env=child_env(), timeout=300)
    assert p.returncode == 0, p.stderr
    text = out.read_text()
    assert text.startswith("greedy on Yacht: 2 games, seed 0\n") and '"episodes": 2' in text
    assert text.index("greedy on Yacht") < text.index('"episodes": 2') < text.index("wrote /dev/stdout")


def test_a_killed_writer_s_temporary_file_is_removed_by_a_later_write(tmp_path: Path) -> None:
    """``kill -9`` during a table write left a hidden ``.tmp`` in the cache folder forever (13 GB for Yahtzee's
    distribution): the next write there removes the temporary files whose writer is gone, or whose process id now
    belongs to a process started after the file was written, and never a live writer's."""
    code = ("import os, signal, sys\n"
            "from yacht_env.files import atomic_path\n"
            "with atomic_path(sys.argv[1]) as tmp:\n"
            "    tmp.write_bytes(b'half a table')\n"
            "    os.kill(os.getpid(), signal.SIGKILL)\n")
    p = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "table.bin")], env=child_env())
    assert p.wait(timeout=120) == -9
    (killed,) = [q for q in tmp_path.iterdir() if q.name.endswith(".tmp")]
    assert killed.name.startswith(f".table.bin.pid{p.pid}.")
    reused = tmp_path / ".other.bin.pid1.abcd1234.tmp"  # pid 1 is alive, but started before 2001
    reused.write_bytes(b"x")
    os.utime(reused, (1e9, 1e9))
    live = tmp_path / f".other.bin.pid{os.getppid()}.abcd1234.tmp"  # a live writer, started before its file
    live.write_bytes(b"x")
    mine = tmp_path / "mine.txt"  # not a temporary file of ours, whatever its name
    mine.write_text("keep")
    files.write_text_atomic(tmp_path / "other.json", "{}")
    assert sorted(q.name for q in tmp_path.iterdir()) == sorted([live.name, "mine.txt", "other.json"])
