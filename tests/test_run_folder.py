"""The run folder of train.py: checkpoints that resume (after Ctrl-C, SIGKILL, a torn or hostile file),
a lock per folder, names picked atomically, --resume and its overrides."""

from __future__ import annotations

import base64
import json
import os
import pickle
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from train_helpers import (  # noqa: E402
    FINAL_SEED,
    PPO,
    REPO,
    TD,
    Payload,
    Run,
    child_env,
    copy_run,
    ctrl_c_in_the_final_evaluation,
    only_run,
    run_train,
    steps_of,
    tiny_config,
)


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    torch.set_num_threads(1)


@pytest.fixture(scope="module")
def td_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Run]:
    """A tiny TD run stopped by Ctrl-C in its final evaluation (item 7): three checkpoints, no eval.json."""
    tmp = tmp_path_factory.mktemp("td")
    with ctrl_c_in_the_final_evaluation() as fired:
        run = run_train(["--config", str(tiny_config(tmp, TD)), "--run-dir", str(tmp / "runs")])
    assert fired
    return only_run(tmp / "runs"), run


@pytest.fixture(scope="module")
def ppo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Run]:
    """A tiny MaskablePPO run stopped by Ctrl-C in its final evaluation (items 6 and 7)."""
    tmp = tmp_path_factory.mktemp("ppo")
    with ctrl_c_in_the_final_evaluation() as fired:
        run = run_train(["--config", str(tiny_config(tmp, PPO)), "--run-dir", str(tmp / "runs")])
    assert fired
    return only_run(tmp / "runs"), run

# ==== loading an SB3 zip runs no code =========================================================================
# Covered in tests/test_sb3_zip.py: test_the_payloads_are_live, test_pickle_to_data_refuses_objects,
# test_a_pickled_payload_is_refused_and_never_runs, test_the_refusal_names_the_entry_and_the_global,
# test_a_torch_payload_is_refused_by_weights_only, test_a_legacy_pickle_as_weights_is_refused,
# test_the_module_never_unpickles, test_zip_bombs_and_absurd_archives_are_refused,
# test_files_that_are_not_model_zips. --resume reads PPO checkpoints through the same reader (restore_into ->
# read_archive); the test below holds it to that.


def test_resume_refuses_a_ppo_checkpoint_with_a_pickled_payload(ppo_run: tuple[Path, Run],
                                                                      tmp_path: Path) -> None:
    """A step_N.zip whose ``data`` carries a pickled object is refused on --resume (nothing runs) and the run goes
    on from the older good checkpoint."""
    run = copy_run(ppo_run[0], tmp_path)
    good = steps_of(run, ".zip")[-1]
    marker = tmp_path / "ran"
    payload = Payload(marker)
    hostile = run / "checkpoints" / "step_2048.zip"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(hostile, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "data":
                d = json.loads(data)
                d["observation_space"][":serialized:"] = base64.b64encode(pickle.dumps(payload)).decode()
                data = json.dumps(d).encode()
            dst.writestr(item, data)
    r = run_train(["--resume", str(run)])
    assert r.rc == 0 and not marker.exists()
    assert "checkpoint step_2048.zip does not load" in r.err and "observation_space" in r.err, r.err
    assert f"resuming from {good.name}" in r.out
    assert (run / "eval.json").is_file()


# ==== --resume runs no code from a TD checkpoint ==============================================================


def _hostile_td_checkpoint(run: Path, marker: Path) -> Path:
    """A complete TD checkpoint, newer than the run's, with a pickled payload beside its tensors."""
    newest = steps_of(run, ".pt")[-1]
    data = torch.load(newest, weights_only=True)
    data["payload"] = Payload(marker)
    path = run / "checkpoints" / f"step_{int(newest.stem[5:]) + 1}.pt"
    torch.save(data, path)
    return path


def test_the_payload_is_live(td_run: tuple[Path, Run], tmp_path: Path) -> None:
    """The hostile checkpoint of the tests below does run code when unpickled the unsafe way."""
    run = copy_run(td_run[0], tmp_path)
    live = tmp_path / "live"
    torch.load(_hostile_td_checkpoint(run, live), weights_only=False)
    assert live.exists()


def test_resume_refuses_a_td_checkpoint_with_a_payload_and_falls_back(td_run: tuple[Path, Run],
                                                                          tmp_path: Path) -> None:
    run = copy_run(td_run[0], tmp_path)
    good = steps_of(run, ".pt")[-1]
    marker = tmp_path / "ran"
    hostile = _hostile_td_checkpoint(run, marker)
    r = run_train(["--resume", str(run)])
    assert not marker.exists()
    assert r.rc == 0 and f"checkpoint {hostile.name} does not load" in r.err and "Unsupported global" in r.err
    assert f"resuming from {good.name}" in r.out
    assert (run / "eval.json").is_file()


def test_resume_stops_clearly_when_only_a_hostile_checkpoint_is_left(td_run: tuple[Path, Run],
                                                                          tmp_path: Path) -> None:
    run = copy_run(td_run[0], tmp_path)
    marker = tmp_path / "ran"
    hostile = _hostile_td_checkpoint(run, marker)
    for p in steps_of(run, ".pt"):
        if p != hostile:
            p.unlink()
    with pytest.raises(ValueError, match=rf"--resume .*: no checkpoint loads: {hostile.name}: not a readable"):
        run_train(["--resume", str(run)])
    assert not marker.exists()


# ==== a killed run resumes ====================================================================================


@pytest.mark.slow
def test_a_run_killed_with_sigkill_resumes(tmp_path: Path) -> None:
    """``kill -9`` of a real ``python train.py`` once checkpoints exist; ``--resume`` then finishes the run from the
    newest one (written atomically, so it loads: no fallback needed)."""
    cfg = tiny_config(tmp_path, TD, total_timesteps=10**7, eval__freq=10**7)
    runs = tmp_path / "runs"
    with open(tmp_path / "out.txt", "wb") as out:
        child = subprocess.Popen([sys.executable, str(REPO / "train.py"), "--config", str(cfg), "--run-dir", str(runs),
                                  "--no-progress"], stdout=out, stderr=subprocess.STDOUT, env=child_env(), cwd=tmp_path)
        try:
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline and child.poll() is None:
                if runs.is_dir() and any(len(steps_of(r, ".pt")) >= 2 for r in runs.iterdir()):
                    break
                time.sleep(0.05)
            assert child.poll() is None, (tmp_path / "out.txt").read_text()
            os.kill(child.pid, signal.SIGKILL)
        finally:
            if child.poll() is None:
                child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    run = only_run(runs)
    newest = steps_of(run, ".pt")[-1]
    r = run_train(["--resume", str(run), "--timesteps", str(int(newest.stem[5:]) + 500)])
    assert r.rc == 0 and f"resuming from {newest.name}" in r.out and "does not load" not in r.err
    result = json.loads((run / "eval.json").read_text())
    assert result["training_timesteps"] > int(newest.stem[5:]) and result["episodes"] == 20


def test_a_truncated_newest_td_checkpoint_falls_back_to_the_previous(td_run: tuple[Path, Run],
                                                                         tmp_path: Path) -> None:
    run = copy_run(td_run[0], tmp_path)
    *_, previous, newest = steps_of(run, ".pt")
    newest.write_bytes(newest.read_bytes()[: newest.stat().st_size // 2])
    r = run_train(["--resume", str(run)])
    assert r.rc == 0
    assert f"train.py: checkpoint {newest.name} does not load" in r.err and "trying an older one" in r.err
    assert f"resuming from {previous.name}" in r.out
    assert torch.load(newest, weights_only=True)["counters"]["timesteps"] == int(newest.stem[5:])  # written anew
    assert (run / "eval.json").is_file()


def test_a_truncated_newest_ppo_checkpoint_falls_back_to_the_previous(ppo_run: tuple[Path, Run],
                                                                          tmp_path: Path) -> None:
    from yacht_agents.sb3_zip import inspect_sb3_zip

    run = copy_run(ppo_run[0], tmp_path)
    previous, newest = steps_of(run, ".zip")
    newest.write_bytes(newest.read_bytes()[: newest.stat().st_size // 2])
    r = run_train(["--resume", str(run)])
    assert r.rc == 0
    assert f"train.py: checkpoint {newest.name} does not load" in r.err and "trying an older one" in r.err
    assert f"resuming from {previous.name} at step 512" in r.out
    assert inspect_sb3_zip(newest).num_timesteps == 1024  # trained again from 512 and saved anew
    assert json.loads((run / "eval.json").read_text())["training_timesteps"] == 1024

# ==== a torn config.yaml stops --resume ======================================================================


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
def test_a_torn_config_stops_resume_and_is_left_alone(how: str, match: str, td_run: tuple[Path, Run],
                                                            tmp_path: Path) -> None:
    run = copy_run(td_run[0], tmp_path)
    cfg = run / "config.yaml"
    cfg.write_text(_tear_config(cfg.read_text(), how))
    before = (cfg.read_bytes(), cfg.stat().st_mtime_ns, (run / "command.txt").read_bytes())
    with pytest.raises(ValueError, match=match):
        run_train(["--resume", str(run)])
    assert (cfg.read_bytes(), cfg.stat().st_mtime_ns, (run / "command.txt").read_bytes()) == before
    assert not (run / "eval.json").exists()


def test_a_torn_config_is_one_line_and_exit_2_from_the_command_line(td_run: tuple[Path, Run],
                                                                         tmp_path: Path) -> None:
    run = copy_run(td_run[0], tmp_path)
    (run / "config.yaml").write_text("")
    p = subprocess.run([sys.executable, str(REPO / "train.py"), "--resume", str(run)], capture_output=True,
                       text=True, env=child_env(), timeout=300)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert p.stderr.startswith("train.py: error: config file") and "it is torn or was edited" in p.stderr
    assert (run / "config.yaml").read_text() == ""


# ==== a PPO run with nothing left to learn resumes ==========================================================


def test_ppo_stopped_in_its_last_evaluation_resumes(ppo_run: tuple[Path, Run], tmp_path: Path) -> None:
    run = copy_run(ppo_run[0], tmp_path)
    checkpoints = steps_of(run, ".zip")
    r = run_train(["--resume", str(run)])
    assert r.rc == 0 and "resuming from step_1024.zip at step 1,024" in r.out and "nothing left to learn" in r.out
    result = json.loads((run / "eval.json").read_text())
    assert result["training_timesteps"] == 1024 and result["episodes"] == 40
    assert steps_of(run, ".zip") == checkpoints


@pytest.mark.parametrize("timesteps", [1024, 512])
def test_ppo_resumed_with_timesteps_at_or_below_its_steps(timesteps: int, ppo_run: tuple[Path, Run],
                                                                tmp_path: Path) -> None:
    run = copy_run(ppo_run[0], tmp_path)
    r = run_train(["--resume", str(run), "--timesteps", str(timesteps)])
    assert r.rc == 0 and f"total_timesteps is {timesteps:,}: nothing left to learn" in r.out
    assert json.loads((run / "eval.json").read_text())["training_timesteps"] == 1024


# ==== Ctrl-C in the final evaluation ==========================================================================
# Ctrl-C mid-rollout (the steps counted are those trained on): tests/test_train.py::
# test_interrupt_saves_and_resume_continues; Ctrl-C in TD training: tests/test_td.py::test_ctrl_c_saves_and_exits.


def _check_interrupted(run_dir: Path, r: Run) -> None:
    """Exit status 130, one paragraph naming the way on, no traceback, no eval.json yet."""
    assert r.rc == 130
    message = (f"\ninterrupted during the final evaluation; the model is saved. Evaluate it with:\n"
               f"  python train.py --resume {run_dir}\n")
    assert message in r.err and "Traceback" not in r.err + r.out
    assert not (run_dir / "eval.json").exists()


def test_ctrl_c_in_the_final_td_evaluation_then_resume_evaluates(td_run: tuple[Path, Run],
                                                                       tmp_path: Path) -> None:
    _check_interrupted(*td_run)
    run = copy_run(td_run[0], tmp_path)
    r = run_train(["--resume", str(run)])
    assert r.rc == 0
    result = json.loads((run / "eval.json").read_text())
    assert result["agent"] == "final_model.pt" and result["episodes"] == 20 and result["seed"] == FINAL_SEED


def test_ctrl_c_in_the_final_ppo_evaluation(ppo_run: tuple[Path, Run]) -> None:
    _check_interrupted(*ppo_run)  # resumed: test_ppo_stopped_in_its_last_evaluation_resumes
