"""The recipes of the Other toolboxes page: each starts with the line that installs what it imports (an extra of
``pyproject.toml`` that names every package the recipe imports), and the single-file PPO script, which is no Python
example of the page, runs."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import pytest
from conftest import REPO, child_env

SCRIPT = REPO / "examples" / "cleanrl_masked_ppo.py"
PAGE = REPO / "docs" / "integrations.md"
LINE = re.compile(r"yacht: ([\d.]+) over ([\d,]+) games = ([\d.]+)% of optimal, after ([\d,]+) steps in \d+ s")


def _run(*args: str) -> str:
    out = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=child_env(),
                         timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_the_single_file_ppo_trains_and_measures_itself() -> None:
    last = _run("--total-timesteps", "4096", "--num-envs", "16", "--num-steps", "64", "--eval-episodes", "50")
    found = LINE.search(last)
    assert found, last[-2000:]
    assert found.group(2) == "50" and found.group(4) == "4,096"
    assert 0 < float(found.group(3)) < 100


@pytest.mark.slow
def test_the_single_file_ppo_reaches_what_the_page_says() -> None:
    """The page's command, run as the page shows it, ends with the page's line (steps and games exactly; the
    arithmetic of another processor moves the percentage a little)."""
    page = PAGE.read_text(encoding="utf-8")
    said = LINE.search(page)
    command = re.search(r"^python examples/cleanrl_masked_ppo\.py (.*)$", page, re.MULTILINE)
    assert said and command, "the page shows the command and quotes the script's last line"
    got = LINE.search(_run(*command.group(1).split()))
    assert got and got.group(4) == said.group(4)
    assert abs(float(got.group(3)) - float(said.group(3))) < 5.0, (got.group(0), said.group(0))



INSTALL = re.compile(r'^pip install "yacht-env\[([\w,-]+)\]"$')
OWN = {"yacht_env", "yacht_solver", "yacht_tools", "yacht_agents", "yacht_cli"}  # the base install's packages
NEEDS = {"yacht_training": "train"}  # a package of yacht-env whose imports need an extra


def _name(dist: str) -> str:
    return re.sub(r"[-_.]+", "-", dist).lower()


def _extras() -> tuple[set[str], dict[str, set[str]]]:
    """The base install's distributions, and each extra of pyproject.toml -> the distributions it installs (its
    ``yacht-env[...]`` entries followed)."""
    from packaging.requirements import Requirement

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]

    def closure(extra: str, seen: frozenset[str] = frozenset()) -> set[str]:
        out: set[str] = set()
        for text in project["optional-dependencies"][extra]:
            req = Requirement(text)
            if _name(req.name) == "yacht-env":
                out |= {d for e in req.extras if e not in seen for d in closure(e, seen | {extra})}
            else:
                out.add(_name(req.name))
        return out

    base = {_name(Requirement(t).name) for t in project["dependencies"]}
    return base, {extra: closure(extra) for extra in project["optional-dependencies"]}


def _imports(code: str) -> set[str]:
    """The top-level modules a piece of Python imports, the standard library's left out."""
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names}


def recipes() -> list[tuple[str, list[str], set[str]]]:
    """Each section of the page with code: its title, the extras its first install line names (none: no line
    before its first example), and the modules its examples import (a script it runs: the script's)."""
    from markdown_it import MarkdownIt

    out = []
    for section in PAGE.read_text(encoding="utf-8").split("\n## ")[1:]:
        title = section.splitlines()[0]
        tokens = MarkdownIt().parse(section)
        extras: list[str] | None = None
        imported: set[str] = set()
        for t in tokens:
            spans = [c.content for c in (t.children or []) if c.type == "code_inline"] if t.type == "inline" else []
            lines = t.content.splitlines() if t.type == "fence" else spans
            found = [m for m in (INSTALL.match(line.strip()) for line in lines) if m]
            if extras is None and found:
                extras = found[0].group(1).split(",")
            if t.type == "fence" and t.info.startswith("python"):
                imported |= _imports(t.content)
                if extras is None:
                    extras = []  # an example before any install line
            if t.type == "fence" and t.info.startswith("bash"):
                for script in re.findall(r"^python (examples/\S+\.py)", t.content, re.MULTILINE):
                    imported |= _imports((REPO / script).read_text(encoding="utf-8"))
        if imported:
            out.append((title, extras or [], imported))
    return out


def test_every_recipe_starts_with_the_install_of_what_it_imports() -> None:
    """A recipe's install line comes before its first example, and the extras it names install every package the
    recipe imports (a reader who runs the line meets no ModuleNotFoundError)."""
    import importlib.metadata

    base, extras = _extras()
    providers = importlib.metadata.packages_distributions()
    found = recipes()
    assert {"TorchRL", "Tianshou", "Stable-Baselines3: MaskablePPO and VecVideoRecorder"} <= {t for t, _, _ in found}
    for title, named, imported in found:
        outside = imported - OWN - set(NEEDS)
        needed = {m for m in imported if m in NEEDS}
        assert named or not (outside or needed), f"{title!r}: no install line before its first example"
        unknown = [e for e in named if e not in extras]
        assert not unknown, f"{title!r}: extras {unknown} are not in pyproject.toml"
        installed = base.union(*(extras[e] for e in named))
        missing = {m for m in outside if not {_name(d) for d in providers.get(m, [m])} & installed}
        missing |= {m for m in needed if NEEDS[m] not in named and not extras[NEEDS[m]] <= installed}
        assert not missing, f"{title!r}: {named} installs no package for {sorted(missing)}"


def test_the_recipe_extras_name_what_the_tests_install() -> None:
    """The test command's install (``.[dev,bench,docs]``) holds every extra a recipe names (dev names the recipes'
    own extras), so the recipes run in CI with what their lines install."""
    _, extras = _extras()
    named = {e for _, es, _ in recipes() for e in es}
    assert {"torchrl", "tianshou", "video", "multiplayer", "train"} <= named
    ci = extras["dev"] | extras["bench"] | extras["docs"]  # what the test command installs: .[dev,bench,docs]
    assert not [e for e in named if not extras[e] <= ci], named
    assert extras["torchrl"] >= {"torchrl", "tensordict"} and "tianshou" in extras["tianshou"]
    assert "moviepy" in extras["video"]
