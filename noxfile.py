"""The test stages, each in an environment of its own, so that running them never changes the user's environment.

``nox`` (the README's test command runs it from a throwaway venv) runs the default sessions, ``tests`` and
``rllib``, which between them run every check: ``tests`` runs ruff, the layer contracts, and the whole suite with
the browser tests and the strict build of the site (``tests/test_docs_site.py``); ``rllib`` runs what needs the older
gymnasium that Ray pins. ``nox -s docs`` (the site alone), ``nox -s browser`` (the browser tests alone) and
``nox -s lint`` are there for work on one part. The browser tests need Debian's chromium: ``.ci/browser.sh`` says
so and installs it with apt-get (through sudo where not root) only where it is missing; ``YACHT_ENV_SKIP_BROWSER=1
nox`` installs nothing outside the project and leaves the browser tests out.
"""

from __future__ import annotations

import os

import nox

nox.options.sessions = ["tests", "rllib"]
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
