"""The test stages, each in an environment of its own, so that running them never changes the user's environment.

``nox`` (the README's test command runs it from a throwaway venv) runs the default sessions, ``tests``, ``rllib``
and ``recipes``, which between them run every check: ``tests`` runs ruff, the layer contracts, and the whole suite
with the browser tests and the strict build of the site (``tests/test_docs_site.py``); ``rllib`` runs what needs the
older gymnasium that Ray pins; ``recipes`` runs each recipe of the Other toolboxes page (``docs/integrations.md``) in
a venv that holds exactly what the recipe's install line installs. ``nox -s docs`` (the site alone), ``nox -s
browser`` (the browser tests alone) and ``nox -s lint`` are there for work on one part. The browser tests need
Debian's chromium: ``.ci/browser.sh`` says so and installs it with apt-get (through sudo where not root) only where
it is missing; ``YACHT_ENV_SKIP_BROWSER=1 nox`` installs nothing outside the project and leaves the browser tests out.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import NamedTuple

import nox

nox.options.sessions = ["tests", "rllib", "recipes"]
# Each session's venv also sees the packages of the Python that runs nox (not the venv a user has activated): pip
# installs into the session's venv only what is missing there or of another version (Ray's older gymnasium goes into
# the rllib venv alone). Nothing outside .nox/ changes, and a machine that has the packages does not fetch them again.
SHARED = ["--system-site-packages"]
nox.options.default_venv_backend = "venv"
nox.options.error_on_missing_interpreters = True

TORCH = "torch==2.13.0"  # the CPU build from a local wheel on CI; elsewhere the CUDA build of the same version
PYTEST = ["python", "-m", "pytest", "-n", "auto", "--maxprocesses", "4", "--full", "--durations=25"]
# the files whose quick tests also run under the older gymnasium that ray[rllib] pins: the API contract (every
# environment under Gymnasium's, PettingZoo's and SB3's own checkers), the single environment, and the model files
# (their spaces are gymnasium objects)
RLLIB_ALSO = ["tests/test_api_contract.py", "tests/test_env.py", "tests/test_sb3_zip.py"]


SKIP_BROWSER = "YACHT_ENV_SKIP_BROWSER"  # =1: no chromium installed, the browser tests left out


def _browser(session: nox.Session) -> str:
    """Install chromium where it is missing (``.ci/browser.sh``), or, with ``YACHT_ENV_SKIP_BROWSER=1``, nothing;
    the pytest marker expression that leaves the browser tests out then (else an empty string)."""
    if os.environ.get(SKIP_BROWSER) == "1":
        session.log(f"{SKIP_BROWSER}=1: no browser installed, the browser tests left out")
        return " and not browser"
    session.run("bash", ".ci/browser.sh", external=True)
    return ""


def _install(session: nox.Session, *args: str) -> None:
    """pip install into the session's venv without compiling every installed module to bytecode up front (Python
    compiles what a test imports, once): torch alone installed in 18.6 s against 5.9 s, ``.[dev,bench,docs]`` in
    53.8 s against 30.8 s (fresh venvs on two cores)."""
    session.install("--no-compile", *args)


def _install_everything(session: nox.Session) -> None:
    _install(session, TORCH)
    _install(session, "-e", ".[dev,bench,docs]")


def _lint(session: nox.Session) -> None:
    """Both through the session's own Python: its venv's editable install of this checkout is what they check (a
    ``lint-imports`` found on the PATH would import the packages its own Python has)."""
    session.run("python", "-m", "ruff", "check", ".")
    session.run("python", "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()")


@nox.session(venv_params=SHARED)
def tests(session: nox.Session) -> None:
    """ruff, the layer contracts, and the whole suite (slow tests, browser tests and the site's strict build too)
    on the newest gymnasium; not the Ray tests, which have a session of their own."""
    browser = _browser(session)
    _install_everything(session)
    _lint(session)
    session.run(*PYTEST, "-m", "not rllib" + browser, *session.posargs)


@nox.session(venv_params=SHARED)
def rllib(session: nox.Session) -> None:
    """RLlib's PPO, and the API contract, the single environment's and the model-file tests again under the
    gymnasium that Ray pins."""
    _install(session, TORCH)
    _install(session, "-e", ".[rllib,multiplayer]", "pytest>=7", "pytest-xdist>=3.5", "hypothesis>=6")
    session.run(*PYTEST, "-m", "rllib or not slow", "tests/test_rllib.py", *RLLIB_ALSO, *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff and the layer contracts (import-linter) alone."""
    _install(session, "ruff>=0.4", "import-linter>=2.1", "-e", ".")
    _lint(session)


@nox.session
def docs(session: nox.Session) -> None:
    """The documentation site alone, built strictly (a broken link or a stale generated part fails)."""
    _install(session, TORCH)
    _install(session, "-e", ".[docs,train,multiplayer,render,bench]")
    session.run("mkdocs", "build", "--strict")


@nox.session
def browser(session: nox.Session) -> None:
    """The browser tests alone: the replay page and the site in headless chromium."""
    session.run("bash", ".ci/browser.sh", external=True)
    _install_everything(session)
    session.run(*PYTEST, "-m", "browser", *session.posargs)


INTEGRATIONS = Path(__file__).resolve().parent / "docs" / "integrations.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
INSTALL_LINE = re.compile(r'^pip install (?:"yacht-env\[([\w,-]+)\]"|yacht-env)$')  # the extras, or none


class Recipe(NamedTuple):
    """A section of the Other toolboxes page with code: its title, the extras of its install line ("" for
    ``pip install yacht-env``) and its fenced blocks as (language, code), in page order."""

    title: str
    extras: str
    blocks: list[tuple[str, str]]


def page_recipes(page: Path = INTEGRATIONS) -> list[Recipe]:
    """The recipes of the page, each of which starts with the bash block of its install line (a recipe without one
    is refused in one line: its reader would meet a ModuleNotFoundError)."""
    out = []
    for section in page.read_text(encoding="utf-8").split("\n## ")[1:]:
        title = section.splitlines()[0]
        blocks = FENCE.findall(section)
        if not blocks:
            continue
        lang, code = blocks[0]
        line = INSTALL_LINE.match(code.splitlines()[0]) if lang == "bash" and code.strip() else None
        if line is None:
            raise ValueError(f"{page.name}: the recipe {title!r} does not start with its install line (a bash block "
                             'whose first line is pip install "yacht-env[EXTRAS]", or pip install yacht-env)')
        out.append(Recipe(title, line.group(1) or "", blocks))
    return out


RECIPE_LINES = list(dict.fromkeys(r.extras for r in page_recipes()))  # one session per distinct line, page order
# a script a recipe runs, and the arguments appended to the page's command for a short run (argparse keeps the last
# value of a flag); tests/test_recipes.py runs the same short run, and the page's own command in --full
SHORT_RUN = {"examples/cleanrl_masked_ppo.py": "--total-timesteps 4096 --num-envs 16 --num-steps 64 --eval-episodes 50"}


@nox.session  # not SHARED: a package the line does not install must be missing, as it is for a reader
@nox.parametrize("extras", RECIPE_LINES)
def recipes(session: nox.Session, extras: str) -> None:
    """The Other toolboxes page's recipes of one install line, in a venv holding only what that line installs.

    The recipes that start with ``pip install "yacht-env[extras]"`` run as the page shows them, with this checkout
    in place of the package and torch as the other sessions have it where the line installs torch: the Python
    examples in a fresh folder, in page order, and the bash lines after the install line from the checkout (a script
    of :data:`SHORT_RUN` with its short run's arguments)."""
    tmp = Path(session.create_tmp())
    pin = tmp / "torch.txt"  # a constraint: torch only where the extras install it, and then the build of TORCH
    pin.write_text(TORCH + "\n", encoding="utf-8")
    _install(session, "-c", str(pin), "-e", f".[{extras}]" if extras else ".")
    for n, recipe in enumerate(r for r in page_recipes() if r.extras == extras):
        session.log(f"recipe: {recipe.title}")
        folder = tmp / f"recipe-{n}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        for i, (lang, code) in enumerate(recipe.blocks):
            if lang == "python":
                (folder / f"example-{i}.py").write_text(code, encoding="utf-8")
                with session.chdir(folder):
                    session.run("python", f"example-{i}.py")
            elif lang == "bash":
                for line in code.splitlines():
                    if line.strip() and not INSTALL_LINE.match(line):
                        short = [args for script, args in SHORT_RUN.items() if line.startswith(f"python {script}")]
                        session.run("bash", "-euo", "pipefail", "-c", " ".join([line, *short]), external=True)
