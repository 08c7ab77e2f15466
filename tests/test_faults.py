"""Faults and hostile files (issue 15): no code runs from a model file, killed runs resume, writes are atomic,
nothing crashes. One section per item of the issue; each test is named ``test_itemN_...`` after the item it covers.

Faults are injected for real where that is cheap (a SIGKILL, truncated and bit-flipped files, a pickled payload, a
link to /dev/zero, a pipe) and by monkeypatching where it is not (a write that dies half way, a full disk, Ctrl-C
during the final evaluation). The training runs are tiny and shared by the tests of a module (copied before use).
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import errno
import hashlib
import io
import json
import math
import os
import pickle
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
import typing
import warnings
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

torch = pytest.importorskip("torch")

import train  # noqa: E402 - after the torch check
from yacht_env import files  # noqa: E402
from yacht_env import rules as R  # noqa: E402
from yacht_env.engine import cache as numba_cache  # noqa: E402
from yacht_env.env import YachtEnv  # noqa: E402
from yacht_env.solver import cache as solver_cache  # noqa: E402
from yacht_env.solver import clear_memory_cache, solve  # noqa: E402
from yacht_env.solver.core import Layout  # noqa: E402
from yacht_env.state import GameState, new_game, parse, reroll_pattern, score_category  # noqa: E402
from yacht_env.vector.env import YachtVectorEnv  # noqa: E402
from yacht_training import run_folder as rf  # noqa: E402
from yacht_training.config import EvalConfig, TrainConfig, from_dict, load_config  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
FINAL_SEED = EvalConfig().seed + 10_000_000  # the seed of train.py's final evaluation

TD = {"rules": "yacht", "algo": "td", "total_timesteps": 3000, "seed": 0, "checkpoint_freq": 1000, "torch_threads": 1,
      "td": {"hidden": [16], "games_per_iteration": 32},
      "eval": {"freq": 1000, "episodes": 10, "final_episodes": 20}}
"""About 1,100 steps an iteration: checkpoints step_1102, step_2210 and step_3288."""
PPO = {"rules": "yacht", "total_timesteps": 1024, "n_envs": 8, "checkpoint_freq": 512, "torch_threads": 1,
       "policy": {"net_arch": [32, 32]}, "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1},
       "eval": {"freq": 256, "episodes": 20, "final_episodes": 40}}
"""As tests/test_train.py's: checkpoints step_512 and step_1024."""


# ---- helpers ----------------------------------------------------------------------------------------------------


def _env(**extra: str) -> dict[str, str]:
    """The environment of a child process: this checkout first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    env.update(extra)
    return env


def _config(folder: Path, base: dict[str, Any], **changes: Any) -> Path:
    cfg = json.loads(json.dumps(base))
    for key, value in changes.items():
        *parents, leaf = key.split("__")
        d = cfg
        for p in parents:
            d = d.setdefault(p, {})
        d[leaf] = value
    path = folder / "tiny.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


@dataclass
class Run:
    """What ``train.main`` returned and printed."""

    rc: int
    out: str
    err: str


def _train(argv: list[str]) -> Run:
    """``train.main(argv)`` in this process, its output captured."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = train.main([*argv, "--no-progress"])
    return Run(rc, out.getvalue(), err.getvalue())


def _only_run(runs: Path) -> Path:
    (run,) = list(runs.iterdir())
    return run


def _steps(run: Path, suffix: str) -> list[Path]:
    """The run's checkpoints, oldest first."""
    return sorted((run / "checkpoints").glob(f"step_*{suffix}"), key=lambda p: int(p.stem[5:]))


def _copy(run: Path, tmp_path: Path) -> Path:
    dest = tmp_path / run.name
    shutil.copytree(run, dest)
    return dest


def _no_temporary_files(folder: Path) -> None:
    left = [p.name for p in folder.rglob("*") if p.name.endswith(".tmp")]
    assert not left, left


@contextlib.contextmanager
def _ctrl_c_in_the_final_evaluation() -> Iterator[list[int]]:
    """Ctrl-C arrives once, in train.py's final evaluation (the one on FINAL_SEED)."""
    import yacht_tools.evaluation as E
    import yacht_training.sb3_ppo as P

    real = E.evaluate
    fired: list[int] = []

    def evaluate(agent: Any, rules: Any, episodes: int, seed: int, *args: Any, **kwargs: Any) -> Any:
        if seed == FINAL_SEED and not fired:
            fired.append(seed)
            raise KeyboardInterrupt
        return real(agent, rules, episodes, seed, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(E, "evaluate", evaluate)
        mp.setattr(P, "evaluate", evaluate)
        yield fired


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    torch.set_num_threads(1)


@pytest.fixture(scope="module")
def td_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Run]:
    """A tiny TD run stopped by Ctrl-C in its final evaluation (item 7): three checkpoints, no eval.json."""
    tmp = tmp_path_factory.mktemp("td")
    with _ctrl_c_in_the_final_evaluation() as fired:
        run = _train(["--config", str(_config(tmp, TD)), "--run-dir", str(tmp / "runs")])
    assert fired
    return _only_run(tmp / "runs"), run


@pytest.fixture(scope="module")
def ppo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Run]:
    """A tiny MaskablePPO run stopped by Ctrl-C in its final evaluation (items 6 and 7)."""
    tmp = tmp_path_factory.mktemp("ppo")
    with _ctrl_c_in_the_final_evaluation() as fired:
        run = _train(["--config", str(_config(tmp, PPO)), "--run-dir", str(tmp / "runs")])
    assert fired
    return _only_run(tmp / "runs"), run


class _Payload:
    """Unpickled, it creates ``marker``: proof that a file ran code."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (str(self.marker), "w"))


# ==== 1. loading an SB3 zip runs no code =========================================================================
# Covered in tests/test_sb3_zip.py: test_the_payloads_are_live, test_pickle_to_data_refuses_objects,
# test_a_pickled_payload_is_refused_and_never_runs, test_the_refusal_names_the_entry_and_the_global,
# test_a_torch_payload_is_refused_by_weights_only, test_a_legacy_pickle_as_weights_is_refused,
# test_the_module_never_unpickles, test_zip_bombs_and_absurd_archives_are_refused,
# test_files_that_are_not_model_zips. --resume reads PPO checkpoints through the same reader (restore_into ->
# read_archive); the test below holds it to that.


def test_item1_resume_refuses_a_ppo_checkpoint_with_a_pickled_payload(ppo_run: tuple[Path, Run],
                                                                      tmp_path: Path) -> None:
    """A step_N.zip whose ``data`` carries a pickled object is refused on --resume (nothing runs) and the run goes
    on from the older good checkpoint."""
    run = _copy(ppo_run[0], tmp_path)
    good = _steps(run, ".zip")[-1]
    marker = tmp_path / "ran"
    payload = _Payload(marker)
    hostile = run / "checkpoints" / "step_2048.zip"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(hostile, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "data":
                d = json.loads(data)
                d["observation_space"][":serialized:"] = base64.b64encode(pickle.dumps(payload)).decode()
                data = json.dumps(d).encode()
            dst.writestr(item, data)
    r = _train(["--resume", str(run)])
    assert r.rc == 0 and not marker.exists()
    assert "checkpoint step_2048.zip does not load" in r.err and "observation_space" in r.err, r.err
    assert f"resuming from {good.name}" in r.out
    assert (run / "eval.json").is_file()


# ==== 2. --resume runs no code from a TD checkpoint ==============================================================


def _hostile_td_checkpoint(run: Path, marker: Path) -> Path:
    """A complete TD checkpoint, newer than the run's, with a pickled payload beside its tensors."""
    newest = _steps(run, ".pt")[-1]
    data = torch.load(newest, weights_only=True)
    data["payload"] = _Payload(marker)
    path = run / "checkpoints" / f"step_{int(newest.stem[5:]) + 1}.pt"
    torch.save(data, path)
    return path


def test_item2_the_payload_is_live(td_run: tuple[Path, Run], tmp_path: Path) -> None:
    """The hostile checkpoint of the tests below does run code when unpickled the unsafe way."""
    run = _copy(td_run[0], tmp_path)
    live = tmp_path / "live"
    torch.load(_hostile_td_checkpoint(run, live), weights_only=False)
    assert live.exists()


def test_item2_resume_refuses_a_td_checkpoint_with_a_payload_and_falls_back(td_run: tuple[Path, Run],
                                                                          tmp_path: Path) -> None:
    run = _copy(td_run[0], tmp_path)
    good = _steps(run, ".pt")[-1]
    marker = tmp_path / "ran"
    hostile = _hostile_td_checkpoint(run, marker)
    r = _train(["--resume", str(run)])
    assert not marker.exists()
    assert r.rc == 0 and f"checkpoint {hostile.name} does not load" in r.err and "Unsupported global" in r.err
    assert f"resuming from {good.name}" in r.out
    assert (run / "eval.json").is_file()


def test_item2_resume_stops_clearly_when_only_a_hostile_checkpoint_is_left(td_run: tuple[Path, Run],
                                                                          tmp_path: Path) -> None:
    run = _copy(td_run[0], tmp_path)
    marker = tmp_path / "ran"
    hostile = _hostile_td_checkpoint(run, marker)
    for p in _steps(run, ".pt"):
        if p != hostile:
            p.unlink()
    with pytest.raises(ValueError, match=rf"--resume .*: no checkpoint loads: {hostile.name}: not a readable"):
        _train(["--resume", str(run)])
    assert not marker.exists()


# ==== 3. a killed run resumes ====================================================================================


@pytest.mark.slow
def test_item3_a_run_killed_with_sigkill_resumes(tmp_path: Path) -> None:
    """``kill -9`` of a real ``python train.py`` once checkpoints exist; ``--resume`` then finishes the run from the
    newest one (written atomically, so it loads: no fallback needed)."""
    cfg = _config(tmp_path, TD, total_timesteps=10**7, eval__freq=10**7)
    runs = tmp_path / "runs"
    with open(tmp_path / "out.txt", "wb") as out:
        child = subprocess.Popen([sys.executable, str(REPO / "train.py"), "--config", str(cfg), "--run-dir", str(runs),
                                  "--no-progress"], stdout=out, stderr=subprocess.STDOUT, env=_env(), cwd=tmp_path)
        try:
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline and child.poll() is None:
                if runs.is_dir() and any(len(_steps(r, ".pt")) >= 2 for r in runs.iterdir()):
                    break
                time.sleep(0.05)
            assert child.poll() is None, (tmp_path / "out.txt").read_text()
            os.kill(child.pid, signal.SIGKILL)
        finally:
            if child.poll() is None:
                child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    run = _only_run(runs)
    newest = _steps(run, ".pt")[-1]
    r = _train(["--resume", str(run), "--timesteps", str(int(newest.stem[5:]) + 500)])
    assert r.rc == 0 and f"resuming from {newest.name}" in r.out and "does not load" not in r.err
    result = json.loads((run / "eval.json").read_text())
    assert result["training_timesteps"] > int(newest.stem[5:]) and result["episodes"] == 20


def test_item3_a_truncated_newest_td_checkpoint_falls_back_to_the_previous(td_run: tuple[Path, Run],
                                                                         tmp_path: Path) -> None:
    run = _copy(td_run[0], tmp_path)
    *_, previous, newest = _steps(run, ".pt")
    newest.write_bytes(newest.read_bytes()[: newest.stat().st_size // 2])
    r = _train(["--resume", str(run)])
    assert r.rc == 0
    assert f"train.py: checkpoint {newest.name} does not load" in r.err and "trying an older one" in r.err
    assert f"resuming from {previous.name}" in r.out
    assert torch.load(newest, weights_only=True)["counters"]["timesteps"] == int(newest.stem[5:])  # written anew
    assert (run / "eval.json").is_file()


def test_item3_a_truncated_newest_ppo_checkpoint_falls_back_to_the_previous(ppo_run: tuple[Path, Run],
                                                                          tmp_path: Path) -> None:
    from yacht_agents.sb3_zip import inspect_sb3_zip

    run = _copy(ppo_run[0], tmp_path)
    previous, newest = _steps(run, ".zip")
    newest.write_bytes(newest.read_bytes()[: newest.stat().st_size // 2])
    r = _train(["--resume", str(run)])
    assert r.rc == 0
    assert f"train.py: checkpoint {newest.name} does not load" in r.err and "trying an older one" in r.err
    assert f"resuming from {previous.name} at step 512" in r.out
    assert inspect_sb3_zip(newest).num_timesteps == 1024  # trained again from 512 and saved anew
    assert json.loads((run / "eval.json").read_text())["training_timesteps"] == 1024


# ==== 4. writes are atomic =======================================================================================


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
    from yacht_agents.td import ValueNet
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
        "numba cache manifest": (folder / "kernels.cache.json",
                                 lambda v: numba_cache._write_manifest(folder / "kernels.cache.json", str(v), {}),
                                 lambda: numba_cache._read_manifest(folder / "kernels.cache.json")["sources"]),
    }


WRITERS = ["td model / best_model.pt / final_model.pt", "ppo model or checkpoint (save_sb3_atomic)", "config.yaml",
           "evaluations.json", "eval.json", "training_time.json", "learning_curve.png", "yacht eval --json",
           "solver cache", "numba cache manifest"]


@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("what", WRITERS)
def test_item4_a_write_that_dies_half_way_keeps_the_previous_file(what: str, fault: str, tmp_path: Path,
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
    _no_temporary_files(tmp_path)


def test_item4_a_full_disk_during_a_td_checkpoint_keeps_the_previous_one(tmp_path: Path) -> None:
    """The real training loop: the disk fills up while the second checkpoint is written. train.py stops with the
    OSError (one line and exit 1 from the command line, test below), the first checkpoint is whole and resumes."""
    runs = tmp_path / "runs"

    def second_checkpoint(p: Path) -> bool:
        return p.name.startswith(".step_") and bool(list(p.parent.glob("step_*.pt")))

    with _tearing_writes(_full_disk, only=second_checkpoint) as torn, pytest.raises(OSError, match="No space left"):
        _train(["--config", str(_config(tmp_path, TD)), "--run-dir", str(runs)])
    assert torn
    run = _only_run(runs)
    (first,) = _steps(run, ".pt")
    assert torch.load(first, weights_only=True)["counters"]["timesteps"] == int(first.stem[5:])
    _no_temporary_files(run)
    r = _train(["--resume", str(run)])
    assert r.rc == 0 and f"resuming from {first.name}" in r.out and (run / "eval.json").is_file()


def test_item4_an_os_error_is_one_line_and_exit_1_from_the_command_line(tmp_path: Path) -> None:
    code = ("import runpy, sys\n"
            "import yacht_training.run_folder as rf\n"
            "def full(*a, **k):\n"
            "    raise OSError(28, 'No space left on device')\n"
            "rf.record_run = full\n"
            f"sys.argv = ['train.py', '--config', {str(_config(tmp_path, TD))!r}, '--run-dir', "
            f"{str(tmp_path / 'runs')!r}]\n"
            f"runpy.run_path({str(REPO / 'train.py')!r}, run_name='__main__')\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=300)
    assert p.returncode == 1
    assert p.stderr == "train.py: error: [Errno 28] No space left on device\n"


# ==== 5. a torn config.yaml stops --resume ======================================================================


def _tear_config(text: str, how: str) -> str:
    if how == "empty":
        return ""
    if how == "truncated":
        return text[: text.index("td:") + 12]  # in the middle of the td section
    if how == "not YAML":
        return text[: text.index("td:")] + "td: [hidden\n"
    assert how == "missing key"
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("seed:"))


@pytest.mark.parametrize("how,match", [
    ("empty", r"config.yaml' lacks rules, algo, total_timesteps, seed, device .*: it is torn or was edited"),
    ("truncated", r"config.yaml' lacks .*eval.*: it is torn or was edited"),
    ("not YAML", r"config.yaml' is not valid YAML"),
    ("missing key", r"config.yaml' lacks seed: it is torn or was edited; restore it from command.txt"),
])
def test_item5_a_torn_config_stops_resume_and_is_left_alone(how: str, match: str, td_run: tuple[Path, Run],
                                                            tmp_path: Path) -> None:
    run = _copy(td_run[0], tmp_path)
    cfg = run / "config.yaml"
    cfg.write_text(_tear_config(cfg.read_text(), how))
    before = (cfg.read_bytes(), cfg.stat().st_mtime_ns, (run / "command.txt").read_bytes())
    with pytest.raises(ValueError, match=match):
        _train(["--resume", str(run)])
    assert (cfg.read_bytes(), cfg.stat().st_mtime_ns, (run / "command.txt").read_bytes()) == before
    assert not (run / "eval.json").exists()


def test_item5_a_torn_config_is_one_line_and_exit_2_from_the_command_line(td_run: tuple[Path, Run],
                                                                         tmp_path: Path) -> None:
    run = _copy(td_run[0], tmp_path)
    (run / "config.yaml").write_text("")
    p = subprocess.run([sys.executable, str(REPO / "train.py"), "--resume", str(run)], capture_output=True,
                       text=True, env=_env(), timeout=300)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert p.stderr.startswith("train.py: error: config file") and "it is torn or was edited" in p.stderr
    assert (run / "config.yaml").read_text() == ""


# ==== 6. a PPO run with nothing left to learn resumes ==========================================================


def test_item6_ppo_stopped_in_its_last_evaluation_resumes(ppo_run: tuple[Path, Run], tmp_path: Path) -> None:
    run = _copy(ppo_run[0], tmp_path)
    checkpoints = _steps(run, ".zip")
    r = _train(["--resume", str(run)])
    assert r.rc == 0 and "resuming from step_1024.zip at step 1,024" in r.out and "nothing left to learn" in r.out
    result = json.loads((run / "eval.json").read_text())
    assert result["training_timesteps"] == 1024 and result["episodes"] == 40
    assert _steps(run, ".zip") == checkpoints


@pytest.mark.parametrize("timesteps", [1024, 512])
def test_item6_ppo_resumed_with_timesteps_at_or_below_its_steps(timesteps: int, ppo_run: tuple[Path, Run],
                                                                tmp_path: Path) -> None:
    run = _copy(ppo_run[0], tmp_path)
    r = _train(["--resume", str(run), "--timesteps", str(timesteps)])
    assert r.rc == 0 and f"total_timesteps is {timesteps:,}: nothing left to learn" in r.out
    assert json.loads((run / "eval.json").read_text())["training_timesteps"] == 1024


# ==== 7. Ctrl-C in the final evaluation ==========================================================================
# Ctrl-C mid-rollout (the steps counted are those trained on): tests/test_train.py::
# test_interrupt_saves_and_resume_continues; Ctrl-C in TD training: tests/test_td.py::test_ctrl_c_saves_and_exits.


def _check_interrupted(run_dir: Path, r: Run) -> None:
    """Exit status 130, one paragraph naming the way on, no traceback, no eval.json yet."""
    assert r.rc == 130
    message = (f"\ninterrupted during the final evaluation; the model is saved. Evaluate it with:\n"
               f"  python train.py --resume {run_dir}\n")
    assert message in r.err and "Traceback" not in r.err + r.out
    assert not (run_dir / "eval.json").exists()


def test_item7_ctrl_c_in_the_final_td_evaluation_then_resume_evaluates(td_run: tuple[Path, Run],
                                                                       tmp_path: Path) -> None:
    _check_interrupted(*td_run)
    run = _copy(td_run[0], tmp_path)
    r = _train(["--resume", str(run)])
    assert r.rc == 0
    result = json.loads((run / "eval.json").read_text())
    assert result["agent"] == "final_model.pt" and result["episodes"] == 20 and result["seed"] == FINAL_SEED


def test_item7_ctrl_c_in_the_final_ppo_evaluation(ppo_run: tuple[Path, Run]) -> None:
    _check_interrupted(*ppo_run)  # resumed: test_item6_ppo_stopped_in_its_last_evaluation_resumes


# ==== 8. a TD model that outputs NaN or inf is a clear error ====================================================


def _eval_cli(agent: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from yacht_tools.cli import main

    rc = main(["eval", "--agent", agent, "--rules", "yacht", "--episodes", "5", "--no-regret", "--no-progress"])
    return rc, capsys.readouterr().err


def _td_file(tmp_path: Path, edit: Callable[[dict[str, Any]], None]) -> str:
    from yacht_agents.td import ValueNet

    path = tmp_path / "model.pt"
    ValueNet("yacht", [8]).save(path)
    data = torch.load(path, weights_only=True)
    edit(data)
    torch.save(data, path)
    return str(path)


def test_item8_nan_weights_are_a_clear_error_from_yacht_eval(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    def nan(data: dict[str, Any]) -> None:
        for t in data["state_dict"].values():
            t.fill_(math.nan)

    rc, err = _eval_cli(_td_file(tmp_path, nan), capsys)
    assert rc == 2 and err.count("\n") == 1
    assert err.startswith("yacht eval: error: ") and "network weights are not all finite (NaN or inf)" in err


@pytest.mark.parametrize("scale", [1e-39, math.inf, math.nan, -1.0, "100"])
def test_item8_a_broken_value_scale_in_the_file_is_a_clear_error(scale: Any, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    rc, err = _eval_cli(_td_file(tmp_path, lambda d: d["meta"].update(value_scale=scale)), capsys)
    assert rc == 2 and err.count("\n") == 1 and "value_scale must be a number in 0.001..1e+06" in err


def test_item8_outputs_that_overflow_to_inf_are_a_clear_error(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Finite weights whose outputs overflow float32: refused by the search's value memo, not a crash."""
    def huge(data: dict[str, Any]) -> None:
        for t in data["state_dict"].values():
            t.fill_(1e30)

    rc, err = _eval_cli(_td_file(tmp_path, huge), capsys)
    assert rc == 2 and err.count("\n") == 1 and "the TD network gives non-finite values" in err


def test_item8_a_hostile_network_size_is_refused_before_it_is_built(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    rc, err = _eval_cli(_td_file(tmp_path, lambda d: d["meta"].update(hidden=[10**9, 10**9])), capsys)
    assert rc == 2 and err.count("\n") == 1 and "hidden must list 1..16 layer widths in 1..4096" in err


def test_item8_config_refuses_a_value_scale_that_overflows() -> None:
    with pytest.raises(ValueError, match=r"config key 'td.value_scale' must be a number in 0.001\.\.1e\+06"):
        from_dict({"algo": "td", "td": {"value_scale": 1e-39}})


# ==== 9. a damaged numba cache is dropped and compiled again ====================================================

_ENV_STEP = ("import os, sys, numpy as np, gymnasium as gym, yacht_env\n"  # the vector engine: compiled kernels
             "e = gym.make_vec('Yacht-v0', num_envs=2, vectorization_mode='vector_entry_point')\n"
             "o, _ = e.reset(seed=0)\n"
             "print(o.tobytes().hex(), e.step(np.zeros(2, dtype=np.int64))[0].tobytes().hex())\n"
             "sys.stdout.flush()\n")


def _cache_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix in (".nbi", ".nbc"))


@pytest.mark.slow
def test_item9_a_truncated_or_bit_flipped_numba_cache_is_recompiled(tmp_path: Path) -> None:
    cache = tmp_path / "numba"
    env = _env(NUMBA_CACHE_DIR=str(cache))

    def step(code: str = _ENV_STEP) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600,
                              cwd=tmp_path)

    # warm the cache; the process ends without atexit handlers: the manifest is written as numba saves
    warm = step(_ENV_STEP + "os._exit(0)\n")
    assert warm.returncode == 0, warm.stderr
    found = _cache_files(cache)
    assert {p.suffix for p in found} == {".nbi", ".nbc"}
    for p in found:
        manifest = json.loads((p.parent / f"{p.name.split('.')[0]}.cache.json").read_text())
        assert manifest["files"][p.name] == hashlib.sha256(p.read_bytes()).hexdigest(), p.name
    # damage: every index truncated, every data file bit-flipped
    for p in found:
        data = bytearray(p.read_bytes())
        if p.suffix == ".nbi":
            data = data[: len(data) // 2]
        else:
            for i in range(64, len(data), 997):
                data[i] ^= 0xFF
        p.write_bytes(bytes(data))
    again = step()
    assert again.returncode == 0, again.stderr
    assert again.stdout == warm.stdout  # the same observations
    note, *progress = again.stderr.splitlines()  # one note, then at most the "still compiling" lines of a slow machine
    assert "damaged or unknown file(s)" in note and "Traceback" not in again.stderr
    assert all(line.startswith("yacht-env: still compiling numba kernels (") for line in progress), progress
    third = step()  # the files compiled again are trusted again: loaded without a note
    assert third.returncode == 0 and third.stdout == warm.stdout and "damaged" not in third.stderr


def test_item9_the_guard_drops_unknown_and_mismatching_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The guard on its own (no compiling): a file the manifest vouches for stays; one with another checksum, one
    it does not list and a whole stale cache (other sources) go."""
    src = tmp_path / "mod.py"
    src.write_text("x = 1\n")
    folder = tmp_path / "__pycache__"
    monkeypatch.setattr(numba_cache, "_numba_cache_dir", lambda path: folder)
    monkeypatch.setattr(numba_cache, "_NOTED", False)
    monkeypatch.setattr(numba_cache, "_GUARDED", {})
    monkeypatch.setattr(numba_cache._WATCH, "announced", numba_cache._WATCH.announced)
    numba_cache.guard_numba_cache(str(src))
    good, bad, unknown = (folder / f"mod.f-{i}.py311.nbi" for i in range(3))
    for p in (good, bad, unknown):
        p.write_bytes(b"index " + p.name.encode())
    digest = numba_cache.source_digest()
    numba_cache._write_manifest(folder / "mod.cache.json", digest, {
        good.name: hashlib.sha256(good.read_bytes()).hexdigest(), bad.name: "0" * 64})
    numba_cache.guard_numba_cache(str(src))
    assert good.exists() and not bad.exists() and not unknown.exists()
    assert capsys.readouterr().err.count("\n") == 1
    assert numba_cache._read_manifest(folder / "mod.cache.json")["files"] == {
        good.name: hashlib.sha256(good.read_bytes()).hexdigest()}
    numba_cache._write_manifest(folder / "mod.cache.json", "other sources", {
        good.name: hashlib.sha256(good.read_bytes()).hexdigest()})
    numba_cache.guard_numba_cache(str(src))
    assert not good.exists() and capsys.readouterr().err == ""  # a stale cache is no damage: no note
    (folder / "mod.cache.json").write_text('{"version": 1, "sources": [[[')  # a torn manifest: start afresh
    good.write_bytes(b"x")
    numba_cache.guard_numba_cache(str(src))
    assert not good.exists() and numba_cache._read_manifest(folder / "mod.cache.json")["sources"] == digest


def test_item9_the_cache_folder_follows_numba_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from numba.core import config

    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path))
    folder = numba_cache._numba_cache_dir(numba_cache.__file__)
    assert folder.parent == tmp_path and folder.name.startswith("engine_")


# ==== 10. yacht eval checks its outputs before any game ========================================================


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
def test_item10_yacht_eval_fails_at_once_before_any_game(args: list[str], match: str, tmp_path: Path,
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


# ==== 11. GameState refuses malformed and unreachable states ====================================================


def _state_dict(rules: str = "yacht", **changes: Any) -> dict[str, Any]:
    ids = R.get_rules(rules).category_ids
    d: dict[str, Any] = {"rules": rules, "dice": [1, 2, 3, 4, 5], "rolls_left": 2,
                         "scores": dict.fromkeys(ids), "bonus_count": 0}
    for k, v in changes.items():
        if k in ids:
            d["scores"][k] = v
        else:
            d[k] = v
    return d


@pytest.mark.parametrize("data,match", [
    (_state_dict(ones=-100), r"score of 'ones' must be an integer the box can hold under rules 'yacht' \(0\.\.5\)"),
    (_state_dict(ones=7), r"score of 'ones' .* \(0\.\.5\) or None while open, got 7"),
    (_state_dict(twos=3), r"score of 'twos' .* \(0, 2, 4, 6, 8, 10\)"),
    (_state_dict(full_house=1.9), r"score of 'full_house' .* \(0, 7\.\.9, 11\.\.24, 26\.\.28\) .*got 1.9"),
    (_state_dict(choice=12.0), r"score of 'choice' .* \(5\.\.30\) or None while open, got 12.0"),
    (_state_dict(choice=0), r"score of 'choice' .* \(5\.\.30\)"),
    (_state_dict(yacht=True), r"score of 'yacht' .* \(0, 50\) .*got True"),
    (_state_dict(yacht="50"), r"score of 'yacht' .*got '50'"),
    (_state_dict(rolls_left=True), r"rolls_left must be 0, 1 or 2 \(an integer\), got True"),
    (_state_dict(rolls_left=3), r"rolls_left must be 0, 1 or 2"),
    (_state_dict(rolls_left=1.0), r"rolls_left must be 0, 1 or 2 \(an integer\), got 1.0"),
    (_state_dict(rolls_left=None), r"rolls_left must be"),
    (_state_dict("yahtzee", bonus_count=1), r"bonus_count 1 is not possible without 50 in the 'yahtzee' box "
                                            r"\(it holds None; accepted: 0\)"),
    (_state_dict("yahtzee", yahtzee=0, ones=5, bonus_count=1), r"without 50 in the 'yahtzee' box \(it holds 0"),
    (_state_dict("yahtzee", yahtzee=50, bonus_count=1), r"bonus_count 1 is not possible with 0 filled box\(es\) "
                                                        r"besides 'yahtzee'"),
    (_state_dict("yahtzee", yahtzee=50, fives=25, bonus_count=2), r"accepted: 0\.\.1"),
    (_state_dict("yahtzee", bonus_count=-1), r"bonus_count must be a non-negative integer, got -1"),
    (_state_dict("yahtzee", bonus_count=1.5), r"bonus_count must be a non-negative integer, got 1.5"),
    (_state_dict(bonus_count=1, yacht=50, ones=5), r"not possible under rules 'yacht': it has no five-of-a-kind bonus"),
    (_state_dict(dice=[1, 2, 3, 4, 7]), r"each die must be an integer in 1\.\.6, got 7"),
    (_state_dict(dice=[1, 2, 3, 4]), r"dice must be 5 integers in 1\.\.6, got 4 values"),
    (_state_dict(dice="12345"), r"dice must be a list of 5 integers in 1\.\.6, got '12345'"),
    (_state_dict(dice=[1, 2, 3, 4, 5.0]), r"each die must be an integer"),
    (_state_dict(scores=5), r"scores must be a dict of category id to score \(or null\), or a list of 12"),
    (_state_dict(scores="ones"), r"scores must be a dict"),
    (_state_dict(scores=[None] * 11), r"scores must have 12 entries for rules 'yacht', got 11"),
    (_state_dict(scores={"ones": 1}), r"scores lacks twos, threes, .*: give every category of 'yacht', null"),
    (_state_dict(scores={**dict.fromkeys(R.get_rules("yacht").category_ids), "bogus": 1}),
     r"scores: unknown categories \['bogus'\]; accepted: ones, twos"),
    ({**_state_dict(), "rules": "poker"}, r"unknown rules 'poker'; accepted: yacht"),
    ({**_state_dict(), "rules": ["yacht"]}, r"unknown rules \['yacht'\]"),
    ({k: v for k, v in _state_dict().items() if k != "dice"}, r"the game state lacks dice; accepted keys: rules"),
    ({**_state_dict(), "turn": 3}, r"the game state has unknown keys turn; accepted keys"),
    ([1, 2, 3], r"a game state must be a dict with the keys rules, dice, rolls_left, scores, bonus_count"),
    ("yacht", r"a game state must be a dict"),
    (None, r"a game state must be a dict"),
])
def test_item11_from_dict_refuses_malformed_and_unreachable_states(data: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        GameState.from_dict(data)
    with pytest.raises(ValueError, match=match):
        GameState.from_json(json.dumps(data))


@pytest.mark.parametrize("text", ["", "{", "[" * 100_000, "NaN-ish", '{"rules": "yacht"'])
def test_item11_from_json_refuses_text_that_is_not_json(text: str) -> None:
    with pytest.raises(ValueError, match="a game state must be JSON text"):
        GameState.from_json(text)


@pytest.mark.parametrize("args,match", [
    (("yacht", (1, 2, 3, 4, 5), 2, (7,) + (None,) * 11), r"score of 'ones'"),
    (("yacht", (1, 2, 3, 4, 5), 2, {"ones": 1}), r"scores must be a sequence of 12 box scores"),
    (("yacht", (1, 2, 3, 4, 5), 2, None), r"scores must be a sequence"),
    (("yacht", (1, 2, 3, 4, 5), np.int64(1), (np.int64(3),) + (None,) * 11, np.int8(0)), None),
    (("yacht", (1, 2, 3, 4, 5), 2, (np.float64(3),) + (None,) * 11), r"score of 'ones' .*got (np.float64\()?3.0"),
    (("yacht", (1, 2, 3, 4, 5), np.bool_(True), (None,) * 12), r"rolls_left must be"),
])
def test_item11_the_constructor_is_the_one_check(args: tuple[Any, ...], match: str | None) -> None:
    if match is None:
        st = GameState(*args)
        assert type(st.rolls_left) is int and type(st.scores[0]) is int and type(st.bonus_count) is int
        assert GameState.from_json(st.to_json()) == st == parse(st.notation())
        return
    with pytest.raises(ValueError, match=match):
        GameState(*args)


@pytest.mark.parametrize("text,match", [
    ("yacht | dice 1 2 3 4 5 | rolls 2 | filled ones=-100", r"score of 'ones' .*\(0\.\.5\).*got -100"),
    ("yacht | dice 1 2 3 4 5 | rolls 2 | filled ones=7", r"score of 'ones'"),
    ("yahtzee | dice 1 2 3 4 5 | rolls 2 | filled ones=3 | bonus 1", r"without 50 in the 'yahtzee' box"),
    ("yacht | dice 1 2 3 4 5 | rolls 2 | filled choice=1.9", r"score of 'choice' must be an integer, got '1.9'"),
])
def test_item11_parse_goes_through_the_same_check(text: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        parse(text)


@pytest.mark.parametrize("rules", list(R.RULESETS))
def test_item11_every_state_of_a_game_is_accepted_and_round_trips(rules: str) -> None:
    """What the transitions reach (the Joker and bonuses included) passes the checks, through every conversion."""
    rng = np.random.default_rng(5)
    seen = 0
    for _ in range(30):
        st = new_game(rules, rng)
        while not st.is_over:
            for _ in range(st.rolls_left):  # keep the most common face: five of a kind comes up
                counts = np.bincount(st.dice, minlength=7)
                face = int(np.argmax(counts))
                st = reroll_pattern(st, sum(1 << i for i, d in enumerate(st.dice) if d == face), rng)
            legal = st.legal_categories()
            st, _ = score_category(st, legal[int(rng.integers(len(legal)))], rng)
            assert GameState.from_dict(st.to_dict()) == st == GameState.from_json(st.to_json())
            assert parse(st.notation()) == st
            seen += 1
    assert seen == 30 * R.get_rules(rules).num_categories


def test_item11_the_allowed_scores_come_from_the_rules() -> None:
    yahtzee = R.get_rules("yahtzee")
    ids = yahtzee.category_ids
    values = dict(zip(ids, yahtzee.box_values))
    assert values["ones"] == frozenset(range(6)) and values["full_house"] == {0, 25}
    assert values["chance"] == frozenset(range(5, 31)) and values["yahtzee"] == {0, 50}
    assert values["large_straight"] == {0, 40}  # and 40 by the Joker: the same value
    yacht = dict(zip(R.get_rules("yacht").category_ids, R.get_rules("yacht").box_values))
    assert 25 not in yacht["full_house"] and 30 not in yacht["full_house"]  # 5 + 5 + 5 + 5 + 5 is no Full House
    assert parse("dice 1 3 3 5 6 | rolls 2 | filled ones,choice", rules="yacht").scores[10] == 5


# ==== 12. config gaps ===========================================================================================

BAD_VALUES: list[tuple[str, Any]] = [
    ("total_timesteps", 0), ("seed", -1), ("seed", 2**32), ("n_envs", 0), ("reward_scale", 0.0),
    ("reward_scale", math.nan), ("checkpoint_freq", 0), ("torch_threads", 0), ("torch_threads", -2),
    ("policy.inverse_temperature", 0.0), ("policy.box_prior", -1.0), ("policy.net_arch", [0]), ("policy.net_arch", []),
    ("policy.keep_hidden", 0), ("policy.vf_arch", [0]), ("ppo.ent_coef_keep", -0.01), ("ppo.ent_coef_score", "lin_x_y"),
    ("ppo.learning_rate", 0.0), ("ppo.learning_rate", "lin_0"), ("ppo.learning_rate", math.inf), ("ppo.n_steps", 0),
    ("ppo.batch_size", 1), ("ppo.n_epochs", 0), ("ppo.gamma", 1.5), ("ppo.gamma", -0.1), ("ppo.gamma", math.nan),
    ("ppo.gae_lambda", 2.0), ("ppo.clip_range", 0.0), ("ppo.clip_range", "lin_-1"), ("ppo.ent_coef", -0.01),
    ("ppo.vf_coef", -1.0), ("ppo.max_grad_norm", 0.0), ("ppo.target_kl", 0.0), ("ppo.target_kl", math.inf),
    ("td.hidden", [0]), ("td.hidden", []), ("td.learning_rate", -1.0), ("td.games_per_iteration", 0),
    ("td.td_lambda", 1.5), ("td.td_lambda", math.nan), ("td.epochs_per_iteration", 0), ("td.batch_size", 0),
    ("td.value_scale", 0.0), ("td.value_scale", math.inf), ("td.value_scale", 1e-39), ("td.explore", 1.0),
    ("td.explore", -0.5), ("eval.freq", 0), ("eval.episodes", 0), ("eval.final_episodes", 0), ("eval.seed", -5),
    ("rllib.num_env_runners", -1), ("rllib.num_envs_per_env_runner", 0), ("rllib.num_cpus_per_env_runner", 0.0),
    ("rllib.train_batch_size", 0), ("rllib.minibatch_size", 0), ("rllib.num_epochs", 0), ("rllib.lr", 0.0),
    ("rllib.lr", "lin_nan"), ("rllib.gamma", 1.01), ("rllib.lambda_", math.nan), ("rllib.clip_param", math.nan),
    ("rllib.entropy_coeff", -1e-3), ("rllib.vf_loss_coeff", math.inf), ("rllib.vf_clip_param", 0.0),
    ("rllib.grad_clip", math.nan), ("rllib.hidden", []), ("rllib.hidden", [64, 0]),
]


def _numeric_keys(cls: type = TrainConfig, prefix: str = "") -> list[str]:
    """Every key of the schema that holds numbers (or lists of them)."""
    out = []
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        tp = hints[f.name]
        if dataclasses.is_dataclass(tp):
            out += _numeric_keys(tp, prefix + f.name + ".")
        elif tp is not bool and ({int, float} & {tp, *typing.get_args(tp)} or (
                typing.get_origin(tp) is list and typing.get_args(tp)[0] in (int, float))):
            out.append(prefix + f.name)
    return out


def test_item12_every_numeric_key_of_the_schema_has_a_bad_value_tested() -> None:
    assert sorted(_numeric_keys()) == sorted({k for k, _ in BAD_VALUES})


@pytest.mark.parametrize("key,value", BAD_VALUES)
def test_item12_config_refuses_out_of_range_values(key: str, value: Any) -> None:
    data: dict[str, Any] = {}
    d = data
    *parents, leaf = key.split(".")
    for p in parents:
        d = d.setdefault(p, {})
    d[leaf] = value
    with pytest.raises(ValueError, match=rf"config key '{key}'"):
        from_dict(data)


def test_item12_ppo_needs_a_rollout_of_two_steps() -> None:
    with pytest.raises(ValueError, match=r"'ppo.n_steps' x 'n_envs' must be at least 2.* got 1 x 1"):
        from_dict({"n_envs": 1, "ppo": {"n_steps": 1}})
    from_dict({"algo": "td", "n_envs": 1, "ppo": {"n_steps": 1}})  # not PPO: no rollout


@pytest.mark.parametrize("changes", [{"torch_threads": 0}, {"ppo__n_epochs": 0}, {"ppo__gamma": 2.0},
                                     {"eval__seed": -5}, {"n_envs": 1, "ppo__n_steps": 1}, {"bogus": 1}])
def test_item12_a_failing_config_makes_no_run_folder(changes: dict[str, Any], tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    with pytest.raises(ValueError, match="config"):
        _train(["--config", str(_config(tmp_path, PPO, **changes)), "--run-dir", str(runs)])
    assert not runs.exists()


def test_item12_a_broken_file_or_override_makes_no_run_folder(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    (tmp_path / "broken.yaml").write_text("rules: [yacht\n")
    with pytest.raises(ValueError, match="not valid YAML"):
        _train(["--config", str(tmp_path / "broken.yaml"), "--run-dir", str(runs)])
    with pytest.raises(ValueError, match="seed must be a non-negative integer, got '-1'"):
        _train(["--config", str(_config(tmp_path, PPO)), "--run-dir", str(runs), "--seed", "-1"])
    with pytest.raises(ValueError, match=r"config key 'seed' must be an integer in 0\.\.4294967295"):
        _train(["--config", str(_config(tmp_path, PPO)), "--run-dir", str(runs), "--seed", str(2**32)])
    with pytest.raises(ValueError, match="--timesteps must be a positive integer"):
        _train(["--config", str(_config(tmp_path, PPO)), "--run-dir", str(runs), "--timesteps", "0"])
    assert not runs.exists()


# ==== 13. smaller: the solver cache reader, env arguments, undecodable input in yacht play =====================


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv(solver_cache.ENV_VAR, str(tmp_path))
    clear_memory_cache()
    yield tmp_path
    clear_memory_cache()


SHAPE = Layout.of(R.YACHT).shape


def test_item13_a_solver_cache_linked_to_dev_zero_is_ignored_and_replaced(cache_dir: Path) -> None:
    path = solver_cache.cache_path(R.YACHT)
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink("/dev/zero", path)
    t0 = time.perf_counter()
    assert solver_cache.load(R.YACHT, SHAPE) is None
    assert time.perf_counter() - t0 < 1
    sol = solve("yacht")  # solves again and replaces the link by a good file
    assert not sol.from_cache and not path.is_symlink() and stat.S_ISREG(path.stat().st_mode)
    np.testing.assert_array_equal(solver_cache.load(R.YACHT, SHAPE), sol.values)


def test_item13_a_huge_solver_cache_file_is_read_no_further_than_a_good_one(cache_dir: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = solver_cache.cache_path(R.YACHT)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.write(solver_cache.MAGIC + (100).to_bytes(8, "little"))
        try:
            f.truncate(1 << 34)  # 16 GiB, sparse
        except OSError:
            pytest.skip("the file system holds no sparse 16 GiB file")
    read: list[int] = []
    real = solver_cache._read_bounded

    def counting(p: Path, limit: int) -> bytes | None:
        data = real(p, limit)
        read.append(len(data or b""))
        return data

    monkeypatch.setattr(solver_cache, "_read_bounded", counting)
    t0 = time.perf_counter()
    assert solver_cache.load(R.YACHT, SHAPE) is None
    limit = len(solver_cache.MAGIC) + 8 + solver_cache.MAX_HEADER_BYTES + int(np.prod(SHAPE)) * 8 + 1
    assert read == [limit] and time.perf_counter() - t0 < 5


def test_item13_a_pipe_or_a_folder_as_the_solver_cache_is_ignored(cache_dir: Path) -> None:
    path = solver_cache.cache_path(R.YACHT)
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    result: list[Any] = []
    reader = threading.Thread(target=lambda: result.append(solver_cache.load(R.YACHT, SHAPE)), daemon=True)
    reader.start()
    reader.join(10)
    assert not reader.is_alive() and result == [None]  # no hang waiting for a writer
    path.unlink()
    path.mkdir()
    assert solver_cache.load(R.YACHT, SHAPE) is None


@pytest.mark.parametrize("header", [b"[" * 30_000 + b"]" * 30_000, b'{"a": ' * 20_000 + b"1" + b"}" * 20_000,
                                    b"[1]", b"\xff\xfe", b"{}"])
def test_item13_a_hostile_solver_cache_header_is_a_bad_file(header: bytes, cache_dir: Path) -> None:
    path = solver_cache.cache_path(R.YACHT)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(solver_cache.MAGIC + len(header).to_bytes(8, "little") + header + bytes(int(np.prod(SHAPE)) * 8))
    assert solver_cache.load(R.YACHT, SHAPE) is None
    sol = solve("yacht")
    assert not sol.from_cache and solver_cache.load(R.YACHT, SHAPE) is not None  # replaced by a good file


def test_item13_a_solver_cache_header_over_the_cap_is_not_read(cache_dir: Path) -> None:
    path = solver_cache.cache_path(R.YACHT)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(solver_cache.MAGIC + (solver_cache.MAX_HEADER_BYTES + 1).to_bytes(8, "little") + b" " * 100)
    assert solver_cache.load(R.YACHT, SHAPE) is None


@pytest.mark.parametrize("options", ["x", 5, ["state"], ("state", "x")])
def test_item13_reset_options_must_be_a_dict(options: Any) -> None:
    from yacht_env.multiplayer.env import raw_env

    with pytest.raises(ValueError, match=r"options must be None or a dict \(key 'state'"):
        YachtEnv().reset(options=options)
    with pytest.raises(ValueError, match=r"YachtVectorEnv.reset takes no options \(None or \{\}\)"):
        YachtVectorEnv(2).reset(options=options)
    with pytest.raises(ValueError, match=r"options must be None or a dict \(key 'states'"):
        raw_env(num_players=2).reset(options=options)
    YachtEnv().reset(options={})
    YachtVectorEnv(2).reset(options={})


@pytest.mark.parametrize("max_steps", [10**30, 2**31, 35, 0, -1, True, 100.0, "100", None])
def test_item13_max_steps_must_be_an_int_in_range(max_steps: Any) -> None:
    import gymnasium as gym

    match = r"max_steps must be an int in 36\.\.2147483647"
    with pytest.raises(ValueError, match=match):
        YachtEnv("yacht", max_steps=max_steps)
    with pytest.raises(ValueError, match=match):
        YachtVectorEnv(2, rules="yacht", max_steps=max_steps)
    with pytest.raises(ValueError, match=match):
        gym.make("Yacht-v0", max_steps=max_steps)


def test_item13_the_largest_max_steps_works() -> None:
    env = YachtEnv("yacht", max_steps=2**31 - 1)
    env.reset(seed=0)
    assert env.step(0)[3] is False
    vec = YachtVectorEnv(2, rules="yacht", max_steps=np.int64(2**31 - 1))
    vec.reset(seed=0)
    assert not vec.step(np.zeros(2, dtype=np.int64))[3].any()


def test_item13_yacht_play_survives_an_undecodable_input_line() -> None:
    """A line that is not UTF-8 is an unknown command; the game goes on (a real terminal, raw bytes)."""
    pexpect = pytest.importorskip("pexpect")
    from yacht_tools.play import PROMPT

    child = pexpect.spawn(sys.executable, ["-m", "yacht_tools.cli", "play", "--seed", "1"], cwd=str(REPO),
                          env=_env(PYTHONIOENCODING="utf-8"), timeout=60, dimensions=(60, 200))
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
