"""The recipes of the Other toolboxes page: each starts with the line that installs what it imports (an extra of
``pyproject.toml`` that names every package the recipe imports), and the single-file PPO script, which is no Python
example of the page, runs."""

from __future__ import annotations

import ast
import contextlib
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO, child_env, noxfile

SCRIPT = REPO / "examples" / "cleanrl_masked_ppo.py"
PAGE = REPO / "docs" / "integrations.md"
LINE = re.compile(r"yacht: ([\d.]+) over ([\d,]+) games = ([\d.]+)% of optimal, after ([\d,]+) steps in \d+ s")


def _run(*args: str) -> str:
    out = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=child_env(),
                         timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_the_single_file_ppo_trains_and_measures_itself() -> None:
    """The short run that CI's recipes session appends to the page's command (the noxfile's ``SHORT_RUN``)."""
    last = _run(*noxfile().SHORT_RUN["examples/cleanrl_masked_ppo.py"].split())
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



INSTALL = re.compile(r'^pip install (?:"yacht-env\[([\w,-]+)\]"|yacht-env)$')  # the extras, or yacht-env alone
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


def recipes() -> list[tuple[str, list[str] | None, set[str]]]:
    """Each section of the page with code: its title, the extras of the install line its first code block starts
    with (``[]``: ``pip install yacht-env``; None: it starts with no install line), and the modules its examples
    import (a script it runs: the script's)."""
    from markdown_it import MarkdownIt

    out = []
    for section in PAGE.read_text(encoding="utf-8").split("\n## ")[1:]:
        title = section.splitlines()[0]
        fences = [t for t in MarkdownIt().parse(section) if t.type == "fence"]
        if not fences:
            continue
        first = fences[0]
        line = INSTALL.match(first.content.splitlines()[0].strip()) if first.info.startswith("bash") and \
            first.content.strip() else None
        extras = None if line is None else [e for e in (line.group(1) or "").split(",") if e]
        imported: set[str] = set()
        for t in fences:
            if t.info.startswith("python"):
                imported |= _imports(t.content)
            if t.info.startswith("bash"):
                for script in re.findall(r"^python (examples/\S+\.py)", t.content, re.MULTILINE):
                    imported |= _imports((REPO / script).read_text(encoding="utf-8"))
        out.append((title, extras, imported))
    return out


def test_every_recipe_starts_with_the_install_of_what_it_imports() -> None:
    """Every recipe starts with its install line, and the extras it names are extras of pyproject.toml that install
    every package the recipe imports (a reader who runs the line meets no ModuleNotFoundError)."""
    import importlib.metadata

    base, extras = _extras()
    providers = importlib.metadata.packages_distributions()
    found = recipes()
    assert {"TorchRL", "Tianshou", "Stable-Baselines3: MaskablePPO and VecVideoRecorder"} <= {t for t, _, _ in found}
    for title, named, imported in found:
        outside = {m for m in imported - OWN - set(NEEDS)  # what yacht-env itself installs needs no line
                   if not {_name(d) for d in providers.get(m, [m])} & base}
        needed = {m for m in imported if m in NEEDS}
        assert named is not None, f'{title!r}: its first code block is no install line (pip install "yacht-env[...]")'
        unknown = [e for e in named if e not in extras]
        assert not unknown, f"{title!r}: extras {unknown} are not in pyproject.toml"
        installed = base.union(*(extras[e] for e in named))
        missing = {m for m in outside if not {_name(d) for d in providers.get(m, [m])} & installed}
        missing |= {m for m in needed if NEEDS[m] not in named and not extras[NEEDS[m]] <= installed}
        assert not missing, f"{title!r}: {named} installs no package for {sorted(missing)}"


def test_the_recipe_extras_name_what_the_tests_install() -> None:
    """The test command's install (``.[dev,bench,docs]``) holds every extra a recipe names (dev names the recipes'
    own extras), so the documentation tests run the recipes there too."""
    _, extras = _extras()
    named = {e for _, es, _ in recipes() for e in es or []}
    assert {"torchrl", "tianshou", "video", "multiplayer", "train"} <= named
    ci = extras["dev"] | extras["bench"] | extras["docs"]  # what the test command installs: .[dev,bench,docs]
    assert not [e for e in named if not extras[e] <= ci], named
    assert extras["torchrl"] >= {"torchrl", "tensordict"} and "tianshou" in extras["tianshou"]
    assert "moviepy" in extras["video"]


def test_ci_runs_each_install_line_with_exactly_its_recipes() -> None:
    """nox's default sessions run ``recipes`` once for each distinct install line of the page, in page order, each
    with every code block of the recipes that start with that line, in a venv that shares no other packages (no
    ``--system-site-packages``): a recipe new on the page is run by CI with its own line."""
    nf = noxfile()
    assert "recipes" in nf.nox.options.sessions
    assert nf.recipes.nox_session == {}, "a recipe's venv holds what its line installs, nothing shared"
    page = [(title, ",".join(extras or [])) for title, extras, _ in recipes()]
    lines = list(dict.fromkeys(extras for _, extras in page))
    assert nf.recipes.nox_parametrize == ("extras", lines)
    assert {"train,video", "torchrl", "tianshou", ""} <= set(lines)
    from markdown_it import MarkdownIt

    fences = {}
    for section in PAGE.read_text(encoding="utf-8").split("\n## ")[1:]:
        fences[section.splitlines()[0]] = [(t.info.split()[0], t.content) for t in MarkdownIt().parse(section)
                                           if t.type == "fence"]
    read = nf.page_recipes()
    assert [(r.title, r.extras) for r in read] == page  # the noxfile reads the page as CommonMark does
    assert all(r.blocks == fences[r.title] for r in read)


class _Session:
    """What the ``recipes`` session asks of nox, recorded."""

    def __init__(self, tmp: str) -> None:
        self.tmp, self.where = tmp, "."
        self.calls: list[tuple[str, ...]] = []

    def create_tmp(self) -> str:
        return self.tmp

    def log(self, *args: object) -> None:
        pass

    def install(self, *args: str) -> None:
        self.calls.append(("install", *args))

    @contextlib.contextmanager
    def chdir(self, where: object) -> Iterator[None]:
        self.where = str(where)
        yield
        self.where = "."

    def run(self, *args: str, **kwargs: object) -> None:
        self.calls.append(("run", self.where, *args))


def test_the_recipes_session_installs_the_line_alone_and_runs_every_example(tmp_path: Path) -> None:
    """The session for ``train`` installs this checkout with that extra alone, torch pinned to the other sessions'
    build, and runs the page's CleanRL-style command (as a short run) and each example of the API-contract recipe."""
    nf = noxfile()
    page = PAGE.read_text(encoding="utf-8")
    assert all(f"python {script} " in page for script in nf.SHORT_RUN)  # no short run of a command gone
    session = _Session(str(tmp_path))
    nf.recipes(session, "train")
    pin = str(tmp_path / "torch.txt")
    assert session.calls[0] == ("install", "--no-compile", "-c", pin, "-e", ".[train]")
    assert (tmp_path / "torch.txt").read_text(encoding="utf-8").split() == [nf.TORCH]
    command = re.search(r"^python examples/cleanrl_masked_ppo\.py .*$", page, re.M)
    short = nf.SHORT_RUN["examples/cleanrl_masked_ppo.py"]
    assert ("run", ".", "bash", "-euo", "pipefail", "-c", f"{command.group(0)} {short}") in session.calls
    examples = [c for c in session.calls if c[0] == "run" and c[2] == "python"]
    assert len(examples) == 2 and all(c[1] != "." for c in examples)  # each in a fresh folder, not the checkout
    assert "check_env(lambda" in (Path(examples[0][1]) / examples[0][3]).read_text(encoding="utf-8")
    session = _Session(str(tmp_path))
    nf.recipes(session, "")
    assert session.calls[0] == ("install", "--no-compile", "-c", pin, "-e", ".")


def test_a_recipe_without_its_install_line_is_refused(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text('# Page\n\n## Ok\n\n```bash\npip install "yacht-env[train]"\n```\n\n## Bare\n\n'
                    '```python\nimport torch\n```\n', encoding="utf-8")
    with pytest.raises(ValueError, match="the recipe 'Bare' does not start with its install line"):
        noxfile().page_recipes(page)
