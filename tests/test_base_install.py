"""The environment alone, ``pip install .`` without extras: everything it promises works, and what needs an extra
says which one, with the README's install line.

A fresh interpreter stands for that install: the extras' modules are blocked (``sys.modules[name] = None``, so that
``import`` fails and ``importlib.util.find_spec`` answers ``None``, as where they are not installed), and every
module it loads must come from the base dependencies of ``pyproject.toml`` (their own dependencies included), the
standard library or our packages. A real venv install would need the network and a minute; this takes seconds.
"""

from __future__ import annotations

import importlib.metadata as md
import json
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement

from yacht_env.extras import EXTRAS, TORCH_CPU_LINE, install_line

REPO = Path(__file__).resolve().parents[1]
BLOCKED = (*EXTRAS, "tensorboard", "pandas", "scipy")

SCRIPT = r"""
import contextlib, io, json, runpy, sys
sys.modules.update(dict.fromkeys(BLOCKED))  # not installed, as far as import and find_spec can tell
ALLOWED = set(ALLOWED_NAMES) | {m.split(".")[0] for m in sys.modules}  # and what site loaded at start

class BaseInstall:
    "Refuses every other module outside the base install, as a fresh venv would not have it."
    refused = set()

    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top not in ALLOWED and not top.startswith("_"):
            self.refused.add(top)
            raise ModuleNotFoundError(f"No module named {name!r} (not in the base install)", name=name)
        return None

sys.meta_path.insert(0, BaseInstall())
out = {}

import gymnasium as gym
import numpy as np
import yacht_env

games = {}
for rules, env_id in yacht_env.ENV_IDS.items():
    env = gym.make(env_id)
    obs, info = env.reset(seed=3)
    rng, steps, total, done = np.random.default_rng(3), 0, 0.0, False
    while not done:
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        total, steps, done = total + r, steps + 1, term or trunc
    vec = gym.make_vec(env_id, num_envs=4, vectorization_mode="vector_entry_point")
    vobs, _ = vec.reset(seed=3)
    games[env_id] = {"steps": steps, "total": total, "over": env.unwrapped.state.is_over,
                     "vector_obs": list(vobs.shape)}
out["games"] = games

from yacht_cli import main

def cli(*argv):
    o, e = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        rc = main(list(argv))
    return {"rc": rc, "out": o.getvalue(), "err": e.getvalue()}

out["solve"] = cli("solve", "--rules", "yacht")
for agent in ("optimal", "greedy", "random"):
    out[f"eval {agent}"] = cli("eval", "--agent", agent, "--episodes", "20", "--seed", "1")
out["replay"] = cli("replay", "--agent", "greedy", "--seed", "2")
out["tournament"] = cli("tournament", "--agents", "greedy", "random", "--games", "10")
out["td model"] = cli("eval", "--agent", "td-yacht", "--episodes", "5")
out["ppo model"] = cli("eval", "--agent", "ppo-yacht", "--episodes", "5")
out["plot"] = cli("eval", "--agent", "greedy", "--episodes", "5", "--plot", "scores.png")

import yacht_env.multiplayer as mp
try:
    mp.env(num_players=2)
except ModuleNotFoundError as e:
    out["multiplayer"] = str(e)

sys.argv, err = ["train.py"], io.StringIO()
try:
    with contextlib.redirect_stderr(err):
        runpy.run_path(TRAIN, run_name="__main__")
except SystemExit as e:
    out["train.py"] = {"rc": e.code, "err": err.getvalue()}

out["modules"] = sorted({m.split(".")[0] for m, mod in list(sys.modules.items()) if mod is not None})
out["refused"] = sorted(BaseInstall.refused)
print(json.dumps(out))
"""


def _base_closure() -> set[str]:
    """Top-level module names of the base dependencies in ``pyproject.toml`` and of what they need in turn."""
    deps = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    todo, dists = [Requirement(d).name for d in deps], set()
    while todo:
        name = todo.pop().lower().replace("_", "-")
        if name in dists:
            continue
        dists.add(name)
        for r in md.distribution(name).requires or []:
            req = Requirement(r)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return {mod for mod, owners in md.packages_distributions().items()
            if any(o.lower().replace("_", "-") in dists for o in owners)}


def _allowed() -> set[str]:
    """What a base install can import: the base closure, the standard library, our packages but training."""
    return _base_closure() | set(sys.stdlib_module_names) | {"yacht_env", "yacht_solver", "yacht_agents",
                                                               "yacht_tools", "yacht_training", "yacht_cli",
                                                               "cython_runtime"}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> dict:
    cwd = tmp_path_factory.mktemp("base")
    script = (SCRIPT.replace("BLOCKED", repr(BLOCKED)).replace("TRAIN", repr(str(REPO / "train.py")))
              .replace("ALLOWED_NAMES", repr(sorted(_allowed()))))
    run = subprocess.run([sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.splitlines()[-1])


def test_every_environment_plays_without_extras(base: dict) -> None:
    import yacht_env

    assert set(base["games"]) == set(yacht_env.ENV_IDS.values())
    for env_id, g in base["games"].items():
        assert g["over"] and g["steps"] >= 12 and g["total"] > 0, env_id
        assert g["vector_obs"][0] == 4, env_id


def test_the_tools_work_without_extras(base: dict) -> None:
    assert base["solve"]["rc"] == 0 and "optimal expected score 166.9550677" in base["solve"]["out"]
    for agent in ("optimal", "greedy", "random"):
        res = base[f"eval {agent}"]
        assert res["rc"] == 0 and "mean" in res["out"] and "regret" in res["out"], (agent, res)
    assert base["replay"]["rc"] == 0 and "Final score" in base["replay"]["out"]
    assert base["tournament"]["rc"] == 0 and "greedy" in base["tournament"]["out"]


def test_only_base_dependencies_are_loaded(base: dict) -> None:
    assert not set(BLOCKED) & set(base["modules"])
    assert not set(base["refused"]) & (_base_closure() | {"yacht_env", "yacht_solver", "yacht_agents", "yacht_tools"})


TRAIN_LINE = f"install the train extra: {install_line('train')}"
CPU_NOTE = f"for the CPU-only build run {TORCH_CPU_LINE} first"


@pytest.mark.parametrize(("case", "needs", "line"), [
    ("td model", "loading the model '{td}' needs torch, which is not installed", TRAIN_LINE),
    ("ppo model", "needs torch, stable_baselines3 and sb3_contrib, which are not installed", TRAIN_LINE),
    ("plot", "--plot needs matplotlib, which is not installed", f"install the plot extra: {install_line('plot')}"),
])
def test_a_missing_extra_names_it_and_its_install_line(base: dict, case: str, needs: str, line: str) -> None:
    res = base[case]
    err = res["err"].strip()
    assert res["rc"] == 2 and res["out"] == "", res
    assert err.startswith("yacht eval: error: ") and "\n" not in err and "Traceback" not in err
    assert needs.format(td=REPO / "agents" / "models" / "td-yacht.pt") in err and line in err
    assert (CPU_NOTE in err) == (line == TRAIN_LINE)


def test_multiplayer_and_training_name_their_extras(base: dict) -> None:
    assert base["multiplayer"] == ("the multiplayer environment needs pettingzoo, which is not installed; install "
                                   'the multiplayer extra: pip install "yacht-env[multiplayer]"')
    train = base["train.py"]
    assert train["rc"] == 2 and train["err"].count("\n") == 1
    assert train["err"].startswith("train.py: error: training (train.py) needs yaml, torch, stable_baselines3 and "
                                   "sb3_contrib, which are not installed; " + TRAIN_LINE)
    assert CPU_NOTE in train["err"]
