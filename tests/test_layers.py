"""The layers point one way (import-linter checks the imports, here the rest): no module of ours is imported by a
name in a string, and the wheel installs import names of our own only."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"yacht_env": ROOT / "yacht_env", "yacht_solver": ROOT / "yacht_solver", "yacht_agents": ROOT / "agents",
            "yacht_tools": ROOT / "yacht_tools", "yacht_training": ROOT / "yacht_training",
            "yacht_cli": ROOT / "yacht_cli"}
OURS = tuple(PACKAGES)
# strings naming our modules that are not imports by this code: module paths that model files record (read as
# names, never imported)
ALLOWED = {
    ("agents/turn_policy.py", "yacht_agents.turn_policy"),
    ("agents/model_free.py", "yacht_agents.model_free"),
    ("yacht_env/single_engine.py", "yacht_env.engine.batch_kernels"),  # whether it is loaded, not an import
}


def _sources() -> list[Path]:
    return sorted(p for folder in PACKAGES.values() for p in folder.rglob("*.py"))


def test_no_module_of_ours_is_imported_by_a_string() -> None:
    found = []
    for path in _sources():
        rel = str(path.relative_to(ROOT))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                if name in ("import_module", "__import__") and rel != "agents/loader.py":
                    found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                v = node.value.strip()
                if v.startswith(OURS) and " " not in v and (rel, v) not in ALLOWED and "." in v.split(":")[0]:
                    found.append(f"{rel}:{node.lineno}: {v!r}")
    assert not found, "modules of ours named in strings:\n" + "\n".join(found)


def test_loader_imports_only_the_users_modules_by_name() -> None:
    """agents/loader.py imports by name only what ``--agent package.module:function`` names: the user's code."""
    src = (ROOT / "agents" / "loader.py").read_text(encoding="utf-8")
    calls = [n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") ==
             "import_module"]
    assert len(calls) == 1 and ast.unparse(calls[0].args[0]) == "module"


@pytest.mark.slow
def test_the_wheel_installs_names_of_our_own(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                          str(tmp_path), str(ROOT)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    (wheel,) = tmp_path.glob("yacht_env-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert top == set(OURS), top
    assert not {"agents", "tools", "training", "utils"} & top
    assert "yacht_agents/models/td-yacht.pt" in names and "yacht_agents/models/ppo-expectimax-yacht.zip" in names
    assert "yacht_agents/turn_policy.py" in names and "yacht_cli/__main__.py" in names


def test_the_table_memory_limit_is_read_in_one_place() -> None:
    """``YACHT_ENV_TABLE_GB`` is read by ``yacht_solver.memory_limit`` only: one parser, one message, one default."""
    sources = [p for folder in [*PACKAGES.values(), ROOT / "benchmarks"] for p in folder.rglob("*.py")]
    readers = sorted(p.relative_to(ROOT).as_posix() for p in sources
                     if re.search(r"environ[^\n]*(YACHT_ENV_TABLE_GB|MEMORY_ENV)", p.read_text(encoding="utf-8")))
    assert readers == ["yacht_solver/memory_limit.py"], readers


def test_the_tests_the_quick_run_leaves_out_exist() -> None:
    """Each test that conftest's FULL_ONLY leaves to ``--full`` is still there (a renamed one would run quick)."""
    from conftest import FULL_ONLY

    missing = []
    for node in FULL_ONLY:
        file, _, name = node.partition("::")
        source = (ROOT / "tests" / file).read_text(encoding="utf-8")
        if f"def {name.split('[')[0]}(" not in source:
            missing.append(node)
    assert not missing, missing
