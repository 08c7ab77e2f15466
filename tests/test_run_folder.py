"""The run folder of train.py: checkpoints that resume (after Ctrl-C, SIGKILL, a torn or hostile file),
a lock per folder, names picked atomically, --resume and its overrides."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

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

from yacht_training import run_folder as rf  # noqa: E402
from yacht_training.config import from_dict, load_config  # noqa: E402


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    torch.set_num_threads(1)


def _interrupted_run(tmp_path_factory: pytest.TempPathFactory, name: str, config: Any) -> tuple[Path, Run]:
    """A tiny run of ``config`` stopped by Ctrl-C in its final evaluation: its folder and what train.py did."""
    tmp = tmp_path_factory.mktemp(name)
    with ctrl_c_in_the_final_evaluation() as fired:
        run = run_train(["--config", str(tiny_config(tmp, config)), "--run-dir", str(tmp / "runs")])
    assert fired
    return only_run(tmp / "runs"), run


@pytest.fixture(scope="module")
def td_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Run]:
    """A tiny TD run stopped by Ctrl-C in its final evaluation: three checkpoints, no eval.json."""
    return _interrupted_run(tmp_path_factory, "td", TD)


@pytest.fixture(scope="module")
def ppo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Run]:
    """A tiny MaskablePPO run stopped by Ctrl-C in its final evaluation."""
    return _interrupted_run(tmp_path_factory, "ppo", PPO)

# ==== loading an SB3 zip runs no code =========================================================================
# Covered in tests/test_sb3_zip.py: test_the_payloads_are_live, test_sb3_load_is_given_every_pickled_entry,
# test_a_pickled_payload_loads_as_data_or_is_refused_and_never_runs, test_the_refusal_names_the_entry_and_the_type,
# test_a_torch_payload_is_refused_by_weights_only, test_a_legacy_pickle_as_weights_is_refused,
# test_the_module_never_unpickles, test_zip_bombs_and_absurd_archives_are_refused,
# test_files_that_are_not_model_zips. --resume reads PPO checkpoints through the same reader (restore_into ->
# read_zip); the test below holds it to that.


def test_resume_refuses_a_ppo_checkpoint_with_a_pickled_payload(ppo_run: tuple[Path, Run],
                                                                      tmp_path: Path) -> None:
    """A step_N.zip whose ``data`` carries a pickled object in place of the observation space, as SB3 writes one
    (its type and readable fields beside the pickle), is refused on --resume (nothing runs) and the run goes on
    from the older good checkpoint."""
    from stable_baselines3.common.save_util import data_to_json

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
                d["observation_space"] = json.loads(data_to_json({"o": payload}))["o"]
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


def test_resume_refuses_a_td_checkpoint_with_a_payload_and_falls_back(td_run: tuple[Path, Run],
                                                                      tmp_path: Path) -> None:
    run = copy_run(td_run[0], tmp_path)
    good = steps_of(run, ".pt")[-1]
    live = tmp_path / "live"  # the payload is live: unpickled the unsafe way, such a file does run code
    torch.load(_hostile_td_checkpoint(copy_run(run, tmp_path / "copy"), live), weights_only=False)
    assert live.exists()
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


def test_a_refused_resume_leaves_the_run_folder_as_it_was(td_run: tuple[Path, Run], tmp_path: Path) -> None:
    """Every checkpoint torn: the resume is refused, and config.yaml, command.txt and config_changes.txt are as they
    were (the new --timesteps had been written and recorded before the checkpoints were tried)."""
    run = copy_run(td_run[0], tmp_path)
    for p in steps_of(run, ".pt"):
        p.write_bytes(p.read_bytes()[:100])
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    with pytest.raises(ValueError, match=r"--resume .*: no checkpoint loads: "):
        run_train(["--resume", str(run), "--timesteps", "5000"])
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before
    assert not (run / rf.CHANGES_FILE).exists()


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
    changes = run / rf.CHANGES_FILE
    assert len((run / "command.txt").read_text().splitlines()) == 2
    if timesteps == 1024:
        assert not changes.exists()
    else:
        assert changes.read_text().splitlines()[1:] == [f"  total_timesteps: 1024 -> {timesteps}"]
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


# ==== one process per run folder, names picked atomically, --resume and its options =================================


def test_one_process_at_a_time_per_run_folder(td_run: tuple[Path, Run], tmp_path: Path) -> None:
    """A second train.py on a folder in use is refused at once (before it writes anything); once the holder ends,
    however it ends, the folder is free."""
    run = copy_run(td_run[0], tmp_path)
    before = (run / "command.txt").read_text()
    with rf.lock_run(run):
        with pytest.raises(ValueError, match=rf"run folder '.*' is in use by another train.py \(pid {os.getpid()}\)"):
            run_train(["--resume", str(run)])
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, sys, time\nf = open(sys.argv[1], 'a')\n"
                               "fcntl.flock(f, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(120)\n",
                               str(run / rf.LOCK_FILE)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(ValueError, match="is in use by another train.py"):
            run_train(["--resume", str(run)])
    finally:
        holder.kill()
        holder.wait()
    assert (run / "command.txt").read_text() == before and not (run / "eval.json").exists()
    r = run_train(["--resume", str(run)])  # the holder was killed: the kernel dropped its lock
    assert r.rc == 0 and (run / "eval.json").is_file()


def test_run_folder_names_are_picked_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Processes started in the same second never pick one name: each folder is made by mkdir, the next free
    suffix taken when it exists."""
    monkeypatch.setattr(rf.time, "strftime", lambda fmt: "20260101-000000")
    cfg = from_dict({})
    made: list[str] = []
    errors: list[BaseException] = []

    def make() -> None:
        try:
            for _ in range(30):
                folder, lock = rf.new_run_dir(tmp_path / "runs", cfg, "c")
                lock.release()
                made.append(folder.name)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=make) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(made) == len(set(made)) == 90
    assert set(made) == {"c-s0-20260101-000000", *(f"c-s0-20260101-000000-{i}" for i in range(1, 90))}


@pytest.mark.parametrize("argv,match", [
    (["--config", "other.yaml"], r"--config cannot be used with --resume"),
    (["--run-dir", "elsewhere"], r"--run-dir cannot be used with --resume"),
    (["--config", "other.yaml", "--run-dir", "elsewhere"], r"--config and --run-dir cannot be used with --resume"),
    (["--seed", "7"], r"--seed cannot be used with --resume: .*\(seed 0\); start a new run for another seed"),
])
def test_resume_refuses_options_it_cannot_honour(argv: list[str], match: str, td_run: tuple[Path, Run],
                                                 tmp_path: Path) -> None:
    run = copy_run(td_run[0], tmp_path)
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    with pytest.raises(ValueError, match=match):
        run_train(["--resume", str(run), *argv])
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before


def test_resume_records_what_its_options_change(td_run: tuple[Path, Run], tmp_path: Path) -> None:
    run = copy_run(td_run[0], tmp_path)
    r = run_train(["--resume", str(run), "--final-episodes", "10", "--seed", "0"])  # the run's own seed: no change
    assert r.rc == 0
    assert ("train.py: --resume with eval.final_episodes: 20 -> 10 (recorded in config.yaml and config_changes.txt)"
            in r.err)
    first, change = (run / rf.CHANGES_FILE).read_text().splitlines()
    assert first.endswith(f"train.py --resume {run} --final-episodes 10 --seed 0 --no-progress")
    assert change == "  eval.final_episodes: 20 -> 10"
    assert load_config(run / "config.yaml", complete=True).eval.final_episodes == 10
    assert json.loads((run / "eval.json").read_text())["episodes"] == 10


def test_ppo_that_diverges_stops_clearly_and_leaves_a_checkpoint(tmp_path: Path) -> None:
    """Learning rate 1e30: the weights become NaN after the first update; train.py says so on one line, exit 1,
    and saves the last finite weights as a checkpoint (a run to resume with a sane learning rate)."""
    runs = tmp_path / "runs"
    r = run_train(["--config", str(tiny_config(tmp_path, PPO, ppo__learning_rate=1e30)), "--run-dir", str(runs)])
    run = only_run(runs)
    (checkpoint,) = steps_of(run, ".zip")
    assert r.rc == 1 and "Traceback" not in r.err
    assert r.err.strip() == (f"train.py: error: training diverged after step {checkpoint.stem[5:]}: the policy's "
                             "weights became infinite or NaN (ppo.learning_rate 1e+30 is likely too large); the "
                             f"last finite weights are saved in {checkpoint}")
    with zipfile.ZipFile(checkpoint) as z, z.open("policy.pth") as f:
        weights = torch.load(io.BytesIO(f.read()), weights_only=True)
    assert weights and all(bool(torch.isfinite(t).all()) for t in weights.values())


@pytest.mark.parametrize("base,match", [("/sys/runs", r"--run-dir '/sys/runs': cannot make a run folder there"),
                                        ("{tmp}/file/runs", r"--run-dir '.*/file/runs': cannot make a run folder "
                                                            r"there \(Not a directory\)")])
def test_a_run_dir_that_takes_no_folder_is_one_line(base: str, match: str, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match=match):
        run_train(["--config", str(tiny_config(tmp_path, TD)), "--run-dir", base.format(tmp=tmp_path)])


@pytest.mark.parametrize("content,match", [
    ("[1, 2]", r"evaluation 0 is int, not an object"),
    ('[{"timesteps": "abc"}]', r"evaluation 0 has timesteps 'abc', not an integer"),
    ('[{"timesteps": 5}, {"timesteps": -1}]', r"evaluation 1 has timesteps -1"),
    ('[{"timesteps": 5, "mean": "x"}]', r"evaluation 0 has mean 'x', not a number"),
    ('[{"timesteps": 5, "percent_of_optimal": Infinity}]', r"evaluation 0 has percent_of_optimal inf"),
])
def test_evaluations_that_cannot_be_true_are_refused_in_one_line(content: str, match: str, tmp_path: Path) -> None:
    from yacht_training import run_folder as rf

    (tmp_path / rf.EVALS_FILE).write_text(content)
    with pytest.raises(ValueError, match=match + r".*the run folder is damaged"):
        rf.load_evaluations(tmp_path)


def test_a_nan_is_never_written_into_a_record(tmp_path: Path) -> None:
    from yacht_training import run_folder as rf

    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        rf.save_evaluations(tmp_path, [{"timesteps": 1, "mean": float("nan")}])
    assert not (tmp_path / rf.EVALS_FILE).exists()


@pytest.mark.parametrize("what", ["symlink", "fifo"])
def test_a_command_file_that_is_a_link_or_a_pipe_is_refused_and_nothing_changes(what: str, tmp_path: Path) -> None:
    """``command.txt`` as a symlink (its target is not the run's to write) or a FIFO (an append would hang): one
    line naming it, the link's target and ``config.yaml`` untouched."""
    import os

    from yacht_training import run_folder as rf
    from yacht_training.config import from_dict

    run = tmp_path / "run"
    run.mkdir()
    (run / rf.CONFIG_FILE).write_text("before\n")
    target = tmp_path / "elsewhere.txt"
    target.write_text("theirs\n")
    if what == "symlink":
        (run / "command.txt").symlink_to(target)
    else:
        os.mkfifo(run / "command.txt")
    with pytest.raises(ValueError, match=r"command.txt' is (a symlink|a FIFO \(named pipe\)), not a regular file"):
        rf.record_run(run, from_dict({"algo": "td"}), ["train.py"])
    assert target.read_text() == "theirs\n" and (run / rf.CONFIG_FILE).read_text() == "before\n"


@pytest.mark.parametrize("forge", [
    {"counters": {"iteration": 3, "timesteps": "abc", "games": 96, "train_seconds": 1.0}},
    {"counters": {"iteration": 3, "timesteps": -1, "games": 96, "train_seconds": 1.0}},
    {"counters": {"iteration": 3, "timesteps": 10**30, "games": 96, "train_seconds": 1.0}},
    {"counters": {"iteration": 3, "timesteps": 3288, "games": 96, "train_seconds": float("inf")}},
    {"counters": [1, 2]},
    {"rng": 5},
], ids=["string", "negative", "huge", "infinite seconds", "not a mapping", "rng not a dict"])
def test_a_td_checkpoint_with_forged_counters_falls_back_to_the_previous(forge: dict, td_run: tuple[Path, Run],
                                                                         tmp_path: Path) -> None:
    """Counters or a generator state that no run writes make the checkpoint unloadable, never a crash, a loop
    or a run at step 10**30: the resume says so and continues from the previous checkpoint."""
    run = copy_run(td_run[0], tmp_path)
    *_, previous, newest = steps_of(run, ".pt")
    ck = torch.load(newest, weights_only=True)
    ck.update(forge)
    torch.save(ck, newest)
    r = run_train(["--resume", str(run)])
    assert r.rc == 0, r.err
    assert f"train.py: checkpoint {newest.name} does not load" in r.err
    assert f"resuming from {previous.name}" in r.out
