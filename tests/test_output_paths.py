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
from yacht_tools import output_paths  # noqa: E402
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
    """Every atomic write (yacht_env.files, yacht_tools.output_paths) and every matplotlib figure saved dies half
    way with ``fault``; yields the paths that were torn."""
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
        mp.setattr(output_paths, "open", tearing_open, raising=False)
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
    output_paths.write_user_text(dangling, "x")
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
    output_paths.write_user_text(fifo, '{"a": 1}\n')
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
        output_paths.check_output_path(tmp_path, "--json")
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(tmp_path / "sock"))
        with pytest.raises(ValueError, match=r"cannot write --json '.*sock': it is a socket"):
            output_paths.check_output_path(tmp_path / "sock", "--json")
        with pytest.raises(ValueError, match=r"it is a socket"):
            output_paths.write_user_text(tmp_path / "sock", "x")
    for path, match in [("", r"--plot needs a file name, got ''"), ("/sys/x.png", r"folder '/sys' takes no new file"),
                        ("/proc/x.png", r"folder '/proc' takes no new file")]:
        with pytest.raises(ValueError, match=match):
            output_paths.check_output_path(path, "--plot")
    with pytest.raises(ValueError, match=r"--json and --plot name the same file '.*same': give each its own"):
        output_paths.check_output_paths({"--json": str(tmp_path / "same"), "--plot": str(tmp_path / "." / "same")})
    assert output_paths.check_output_paths({"--json": "/dev/null", "--plot": "/dev/null"})  # a device takes both
    assert output_paths.check_output_path("~/x.json", "--json") == Path.home() / "x.json"


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


# ==== yacht bench report writes as the other commands do, and never over what it reads ============================

BENCH_RECORDS = REPO / "docs" / "records" / "bench-v1"


@pytest.fixture
def records(tmp_path: Path) -> Path:
    """A records folder of two runs of one learner and the random agent (yacht, primary)."""
    folder = tmp_path / "records"
    folder.mkdir()
    for name in ("yacht-td-primary-s0.json", "yacht-td-primary-s1.json", "yacht-random-agent-s0.json"):
        (folder / name).write_bytes((BENCH_RECORDS / name).read_bytes())
    return folder


def _bench_report(*argv: str) -> int:
    from yacht_cli import main

    return main(["bench", "report", *argv])


def test_bench_report_writes_devices_and_fifos_through(records: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """``--json /dev/full`` as root replaced the system's device with a regular file: the report now writes a
    device or a FIFO through, as a shell's ``>`` would, and follows a symlink to its target."""
    null, full = _device_copy(tmp_path / "null", 1, 3), _device_copy(tmp_path / "full", 1, 7)
    assert _bench_report(str(records), "--json", str(null), "--markdown", str(null)) == 0
    assert stat.S_ISCHR(null.lstat().st_mode)
    capsys.readouterr()
    assert _bench_report(str(records), "--json", str(full)) == 1
    assert capsys.readouterr().err == "yacht bench: error: No space left on device\n"
    assert stat.S_ISCHR(full.lstat().st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    assert _bench_report(str(records), "--markdown", str(fifo)) == 0
    reader.join(30)
    assert got and got[0].startswith(b"## Budget primary") and stat.S_ISFIFO(fifo.lstat().st_mode)
    target, link = tmp_path / "report.json", tmp_path / "link.json"
    link.symlink_to(target.name)
    assert _bench_report(str(records), "--json", str(link)) == 0
    assert link.is_symlink() and json.loads(target.read_text())["records"] == 3
    no_temporary_files(tmp_path)


def test_bench_report_to_a_link_to_stdout_reaches_stdout(records: Path, tmp_path: Path) -> None:
    link = tmp_path / "out.json"
    link.symlink_to("/proc/self/fd/1")
    p = subprocess.run([sys.executable, "-m", "yacht_cli", "bench", "report", str(records), "--json", str(link)],
                       capture_output=True, text=True, env=child_env(), timeout=300)
    assert p.returncode == 0, p.stderr
    assert '"records": 3' in p.stdout and link.is_symlink()


def test_a_character_device_is_refused_or_written_through_before_any_open(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check itself opens nothing for writing: /dev/null passes it untouched (never replaced)."""
    opened: list[Any] = []
    real = os.open
    monkeypatch.setattr(os, "open", lambda path, flags, *a: opened.append((path, flags)) or real(path, flags, *a))
    assert output_paths.check_output_paths({"--json": "/dev/null"}) == {"--json": Path("/dev/null")}
    assert not [p for p, flags in opened if flags & (os.O_WRONLY | os.O_RDWR)]
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_bench_report_never_writes_over_its_records(records: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """``--json RECORDS/r0.json`` overwrote an input record and the folder could not be reported again."""
    before = {p.name: p.read_bytes() for p in records.iterdir()}
    record = records / "yacht-td-primary-s0.json"
    link, hard = tmp_path / "alias.json", tmp_path / "hard.json"
    link.symlink_to(record)
    os.link(record, hard)
    cases = [
        ([str(records), "--json", str(record)], "is in the records folder"),
        ([str(record), "--markdown", str(record)], "is the record"),
        ([str(records), "--json", str(link)], "is in the records folder"),
        ([str(record), "--json", str(hard)], "is the record"),
        ([str(records), "--markdown", str(records / "new.json")], "whose *.json this command reads"),
        ([str(records), "--plot", str(records / "curves.json")], "whose *.json this command reads"),
    ]
    for argv, match in cases:
        assert _bench_report(*argv) == 2, argv
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and match in err and "give another path" in err, err
    assert {p.name: p.read_bytes() for p in records.iterdir()} == before
    assert _bench_report(str(records), "--markdown", str(records / "report.md")) == 0  # not a record: fine
    assert _bench_report(str(records)) == 0  # and the folder is still a folder of records


def test_no_command_writes_over_the_model_it_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from yacht_agents.loader import SHIPPED_MODELS_DIR
    from yacht_cli import main

    model = tmp_path / "m.pt"
    model.write_bytes((SHIPPED_MODELS_DIR / "td-yacht.pt").read_bytes())
    run = tmp_path / "run"
    run.mkdir()
    (run / "final_model.pt").write_bytes(model.read_bytes())
    argvs = [
        ["eval", "--agent", str(model), "--episodes", "2", "--json", str(model)],
        ["eval", "--agent", str(model), "--episodes", "2", "--plot", str(model)],
        ["eval", "--agent", str(run), "--episodes", "2", "--json", str(run / "eval.json")],
        ["eval", "--agent", str(run), "--episodes", "2", "--json", str(run / "final_model.pt")],
        ["tournament", "--agents", "greedy", str(model), "--games", "2", "--json", str(model)],
        ["replay", "--agent", str(model), "--output", str(model)],
        ["replay", "--agent", "greedy", "--vs", str(model), "--output", str(model)],
    ]
    for argv in argvs:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "this command reads" in err, err
    assert model.read_bytes() == (SHIPPED_MODELS_DIR / "td-yacht.pt").read_bytes()
    assert not (run / "eval.json").exists()
    shipped = SHIPPED_MODELS_DIR / "td-yacht.pt"  # checked only: the check refuses before it opens anything
    with pytest.raises(ValueError, match="the shipped model of 'td-yacht'"):
        output_paths.check_output_paths({"--json": str(shipped)}, output_paths.agent_inputs(["td-yacht"]))
    assert output_paths.check_output_paths({"--json": str(run / "eval.png")}, output_paths.agent_inputs([str(run)]))
