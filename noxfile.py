"""The test stages, each in an environment of its own, so that running them never changes the user's environment.

``nox`` (the README's test command runs it from a throwaway venv) runs every session below; ``nox -s tests`` runs
one. Ray pins an older gymnasium than the rest of the stack, so RLlib has its own session; the browser session
installs Debian's chromium only where it is missing (``.ci/browser.sh`` says so before it does).
"""

from __future__ import annotations

import nox

nox.options.sessions = ["lint", "docs", "tests", "browser", "rllib"]
nox.options.default_venv_backend = "venv"
nox.options.error_on_missing_interpreters = True

TORCH = "torch==2.13.0"  # the CPU build from a local wheel on CI; elsewhere the CUDA build of the same version
PYTEST = ["python", "-m", "pytest", "-n", "auto", "--maxprocesses", "4", "--full"]
# the files whose tests also run under the older gymnasium that ray[rllib] pins
RLLIB_ALSO = ["tests/test_env.py", "tests/test_vector.py", "tests/test_multiplayer.py", "tests/test_sb3_zip.py",
              "tests/test_evaluation.py"]


@nox.session
def lint(session: nox.Session) -> None:
    """ruff and the layer contracts (import-linter)."""
    session.install("ruff>=0.4", "import-linter>=2.1", "-e", ".")
    session.run("ruff", "check", ".")
    session.run("lint-imports")


@nox.session
def docs(session: nox.Session) -> None:
    """The documentation site, built strictly (a broken link or a stale generated part fails)."""
    session.install(TORCH)
    session.install("-e", ".[docs,train,multiplayer,render,bench]")
    session.run("mkdocs", "build", "--strict")


@nox.session
def tests(session: nox.Session) -> None:
    """The whole suite (slow tests too) but for the browser and Ray tests, which have sessions of their own."""
    session.install(TORCH)
    session.install("-e", ".[dev,bench,docs]")
    session.run(*PYTEST, "-m", "not browser and not rllib", *session.posargs)


@nox.session
def browser(session: nox.Session) -> None:
    """The replay page stepped through in headless chromium (Debian's, installed only where missing)."""
    session.run("bash", ".ci/browser.sh", external=True)
    session.install(TORCH)
    session.install("-e", ".[browser,multiplayer]", "pytest>=7", "pytest-xdist>=3.5")
    session.run(*PYTEST, "-m", "browser", "tests/test_replay_page.py", *session.posargs)


@nox.session
def rllib(session: nox.Session) -> None:
    """RLlib's PPO, and the quick environment, vector, model-file and evaluation tests again under the gymnasium
    that Ray pins."""
    session.install(TORCH)
    session.install("-e", ".[rllib,multiplayer]", "pytest>=7", "pytest-xdist>=3.5", "hypothesis>=6")
    session.run(*PYTEST, "-m", "rllib or not slow", "tests/test_rllib.py", *RLLIB_ALSO, *session.posargs)
