"""The documentation: every Python example of the README and of the site runs, every ``yacht`` and ``train.py``
command shown uses only flags the parsers have, the README stays a front page, and the site's generated reference
parts cover what the code has.

Every example runs as it stands, in a namespace of its own (a reader copies one block), the examples of a page in
order in one temporary folder (a file one writes, a later one may read). An example that would train for long runs
with a smaller budget: :data:`SMALLER` lists each such change, and a change that no
longer matches its page fails, so no example is ever skipped or shortened silently.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
import sys
from pathlib import Path
from typing import NamedTuple

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "hooks"))

from docgen import GENERATORS  # noqa: E402
from docgen.cli import flags, subcommands, train_parser  # noqa: E402
from docgen.config import config_keys  # noqa: E402
from docgen.observation import slice_meanings  # noqa: E402

PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if "hooks" not in p.parts)]
SMALLER: dict[str, list[tuple[str, str]]] = {}  # page -> (text in an example, what the test runs instead)
README_LIMIT = 10_000


class Block(NamedTuple):
    """A fenced code block of a page."""

    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str


def blocks(page: Path) -> list[Block]:
    """The fenced code blocks of a Markdown page, in order (parsed by markdown-it, as CommonMark reads them)."""
    tokens = MarkdownIt().parse(page.read_text(encoding="utf-8"))
    return [Block(page, t.map[0] + 1, t.info.split()[0] if t.info else "", t.content)
            for t in tokens if t.type == "fence" and t.map]


def inline_code(page: Path) -> list[str]:
    """The inline code spans of a page."""
    out = []
    for t in MarkdownIt().parse(page.read_text(encoding="utf-8")):
        out += [c.content for c in (t.children or []) if c.type == "code_inline"]
    return out


def rel(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def python_pages() -> list[Path]:
    return [p for p in PAGES if any(b.lang == "python" for b in blocks(p))]


@pytest.mark.parametrize("page", [pytest.param(p, marks=pytest.mark.slow) if p.name == "integrations.md" else p
                                  for p in python_pages()], ids=rel)  # the recipes train: 20 s, in --full only
def test_python_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    changes = SMALLER.get(rel(page), [])
    used = set()
    for b in (b for b in blocks(page) if b.lang == "python"):
        namespace = {"__name__": "__docs_example__"}  # each example as it stands
        code = b.code
        for old, new in changes:
            if old in code:
                code = code.replace(old, new)
                used.add(old)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                exec(compile(code, f"{rel(page)}:{b.line}", "exec"), namespace)  # noqa: S102 - our own examples
            except Exception as e:
                raise AssertionError(f"the example at {rel(page)} line {b.line} fails: {e!r}") from e
        wrong = [c for c in printed_claims(b.code) if not claim_holds(c, out.getvalue())]
        assert not wrong, f"{rel(page)} line {b.line}: the comments say {wrong}, the example printed {out.getvalue()!r}"
    unused = [old for old, _ in changes if old not in used]
    assert not unused, f"{rel(page)}: SMALLER lists {unused}, which no example there has any more"


PRINTED = re.compile(r"print\(.*#\s+(about\s+)?(-?\d[\d,]*(?:\.\d+)?)(\.\.\.)?(?::.*)?$")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")


def printed_claims(code: str) -> list[str]:
    """The numbers an example's comments say its ``print`` lines show: ``print(x)  # 33.01`` (exactly),
    ``# 254.5877287...`` (its leading digits), ``# about 46`` (within 10%)."""
    out = []
    for line in code.splitlines():
        m = PRINTED.search(line)
        if m:
            out.append(f"{m.group(1) or ''}{m.group(2).replace(',', '')}{m.group(3) or ''}")
    return out


def claim_holds(claim: str, printed: str) -> bool:
    """Whether ``printed`` shows the number ``claim`` (from :func:`printed_claims`)."""
    shown = NUMBER.findall(printed.replace(",", ""))
    if claim.startswith("about "):
        x = float(claim.removeprefix("about "))
        return any(abs(float(v) - x) <= 0.1 * abs(x) for v in shown)
    if claim.endswith("..."):
        return any(v.startswith(claim[:-3]) for v in shown)
    return claim in shown


def test_printed_claims_are_read() -> None:
    code = 'print(a)   # 33.01\nprint(b)  # about 46: random play\nprint(c)  # 254.5877287...\nx = 1  # 7\n'
    assert printed_claims(code) == ["33.01", "about 46", "254.5877287..."]
    assert claim_holds("33.01", "33.01\n") and not claim_holds("33.01", "33.012\n")
    assert claim_holds("about 46", "45.9\n") and not claim_holds("about 46", "52.0\n")
    assert claim_holds("254.5877287...", "254.58772871\n") and not claim_holds("254.5877287...", "254.5\n")


def test_smaller_budgets_name_pages_with_examples() -> None:
    assert set(SMALLER) <= {rel(p) for p in python_pages()}


def _commands(text: str) -> list[list[str]]:
    """The commands of shell text: continuation lines joined, comments dropped, split at && ; |."""
    out: list[list[str]] = []
    for line in text.replace("\\\n", " ").splitlines():
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        cmd: list[str] = []
        for w in words + ["&&"]:
            if w in ("&&", ";", "|", "||"):
                if cmd:
                    out.append(cmd)
                cmd = []
            else:
                cmd.append(w)
    return out


def _parser_of(cmd: list[str]) -> tuple[argparse.ArgumentParser, list[str]] | None:
    """The parser a command goes to and its arguments, for ``yacht SUB ...`` and ``python train.py ...``."""
    if len(cmd) >= 2 and cmd[0] == "yacht":
        subs = subcommands()
        if cmd[1] not in subs and (cmd[1].startswith("-") or cmd[1].isupper()):  # yacht --version, yacht COMMAND
            return None
        assert cmd[1] in subs, f"unknown subcommand in {shlex.join(cmd)!r}; known: {', '.join(subs)}"
        parser, args = subs[cmd[1]], cmd[2:]
        while args:  # a command of a command (yacht bench tune): its own parser
            nested = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
            if not nested or args[0] not in nested[0].choices:
                break
            parser, args = nested[0].choices[args[0]], args[1:]
        return parser, args
    if cmd[:2] == ["python", "train.py"]:
        return train_parser(), cmd[2:]
    return None


def shell_commands() -> list[tuple[str, list[str]]]:
    out = []
    for page in PAGES:
        for b in blocks(page):
            if b.lang in ("bash", "sh", "shell", "console"):
                out += [(f"{rel(page)}:{b.line}", c) for c in _commands(b.code) if _parser_of(c)]
    return out


@pytest.mark.parametrize(("where", "cmd"), shell_commands(), ids=[w for w, _ in shell_commands()])
def test_shell_examples_parse(where: str, cmd: list[str]) -> None:
    parser, args = _parser_of(cmd)  # type: ignore[misc]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) if "--help" in args else contextlib.nullcontext():
        try:
            parser.parse_args(args)
        except SystemExit:
            raise AssertionError(f"{where}: {shlex.join(cmd)!r} does not parse: {err.getvalue().strip()}") from None


def test_inline_commands_use_existing_flags() -> None:
    """Commands quoted inline in the prose (``yacht eval --agent ...``) name only flags their parser has."""
    bad = []
    for page in PAGES:
        for span in inline_code(page):
            for cmd in _commands(span):
                target = _parser_of(cmd)
                if target is None:
                    continue
                parser, args = target
                known = {s for a in parser._actions for s in a.option_strings}
                bad += [f"{rel(page)}: {w} in {span!r}" for w in args if w.startswith("--") and w.split("=")[0]
                        not in known]
    assert not bad, "flags no parser has:\n" + "\n".join(bad)


def test_examples_are_found() -> None:
    """The collectors see the README's examples (a change of fence style would silently leave them untested)."""
    readme = ROOT / "README.md"
    assert sum(b.lang == "python" for b in blocks(readme)) >= 3
    assert any(w.startswith("README.md") for w, _ in shell_commands())


def test_readme_is_a_front_page() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= README_LIMIT, f"README.md has {len(text.encode())} bytes (at most 10,000)"
    for marker in ("<!-- ci:main-command -->", "<!-- ci:test-command -->"):
        assert text.count(marker) == 1, marker


def test_ci_runs_the_readme_test_command_with_the_site_build() -> None:
    """The README's test command runs nox from a venv of its own (the user's environment is left alone), and nox's
    default sessions check the layers and run every stage of the suite, the site's strict build among them, and the
    recipes of the Other toolboxes page with their own install lines (``tests/test_recipes.py``)."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    i = lines.index("<!-- ci:test-command -->")
    assert lines[i + 1] == "```bash"
    command = lines[i + 2]
    assert command.startswith("python3 -m venv .nox-runner && ") and command.endswith(".nox-runner/bin/nox")
    assert "awk '/<!-- ci:test-command -->/{getline; getline; print; exit}' README.md" in (
        ROOT / ".ci" / "run").read_text(encoding="utf-8")
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert 'nox.options.sessions = ["tests", "rllib", "recipes"]' in noxfile
    for call in ('lint_imports_command()', '"-m", "ruff", "check"', '"--full"', '".ci/browser.sh"',
                 '"-m", "not rllib"'):
        assert call in noxfile, call
    site = (ROOT / "tests" / "test_docs_site.py").read_text(encoding="utf-8")
    assert '"mkdocs", "build", "--strict"' in site  # the tests session builds the site as strictly as `nox -s docs`


def test_readme_says_what_the_test_command_costs_and_installs() -> None:
    """The README names the test command's time and disk, what it installs outside the project, and the switch that
    leaves the browser out, which the noxfile reads."""
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    after = text.split("<!-- ci:test-command -->", 1)[1]
    for words in ("minutes on two CPU cores", "GB in `.nox/`", "`chromium`", "`apt-get`", "`sudo`",
                  "YACHT_ENV_SKIP_BROWSER=1", "installs nothing outside the project"):
        assert words in after, words
    from conftest import noxfile as read_noxfile

    noxfile = read_noxfile()
    assert noxfile.SKIP_BROWSER == "YACHT_ENV_SKIP_BROWSER"

    class Session:
        def __init__(self) -> None:
            self.ran: list[tuple[str, ...]] = []

        def log(self, *args: object) -> None:
            pass

        def run(self, *args: str, **kwargs: object) -> None:
            self.ran.append(args)

    for value, markers, ran in (("1", " and not browser", []), ("", "", [("bash", ".ci/browser.sh")])):
        session = Session()
        with pytest.MonkeyPatch.context() as m:
            m.setenv("YACHT_ENV_SKIP_BROWSER", value)
            assert noxfile._browser(session) == markers
        assert session.ran == ran


def test_rule_set_lists_name_clubhouse() -> None:
    """A list of the rule sets that runs up to Knizia's Yacht goes on to Clubhouse Games Yacht (the newest one); a
    benchmark's command line is a measurement made as written and is left as it is."""
    from yacht_env import ENV_IDS

    assert list(ENV_IDS)[-2:] == ["knizia", "clubhouse"]
    short = [f"{rel(p)}:{i}" for p in PAGES if p.name != "changelog.md"
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if "python benchmarks/" not in line and re.search(r"yatzy\W{1,4}knizia(?!\W{1,4}clubhouse)", line)]
    assert not short, f"rule-set lists without clubhouse: {short}"


def test_readme_links_reach_pages() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    tokens = MarkdownIt().parse(text)
    links = [c.attrs["href"] for t in tokens for c in (t.children or []) if c.type == "link_open"]
    local = [str(h).split("#")[0] for h in links if not str(h).startswith("http")]
    assert local and all((ROOT / h).is_file() for h in local), [h for h in local if not (ROOT / h).is_file()]


# ---- the generated parts of the site ----------------------------------------------------------------------------


def test_every_generator_is_on_a_page() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in PAGES)
    assert all(f"<!-- generated: {name} -->\n" in text and f"<!-- end generated: {name} -->" in text
               for name in GENERATORS)


def test_generated_parts_are_committed_and_fresh() -> None:
    """Read in the repository, every page is whole: each generated part is in the page, as
    ``python docs/hooks/generate.py`` writes it now (no placeholder, nothing stale)."""
    import subprocess

    # in a process of its own: a test here may register a rule set of its own, which no page shows
    p = subprocess.run([sys.executable, "docs/hooks/generate.py", "--check", "--pages-only"], cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, f"stale generated parts (run python docs/hooks/generate.py):\n{p.stdout}{p.stderr}"
    text = "\n".join(p.read_text(encoding="utf-8") for p in PAGES)
    assert "Generated when the site is built" not in text and "published site" not in text


def test_a_stale_generated_part_is_found() -> None:
    from generate import fill

    page = "intro\n<!-- generated: env-ids -->\nold table\n<!-- end generated: env-ids -->\nafter\n"
    filled, stale = fill(page, "page.md")
    assert stale == ["env-ids"] and "old table" not in filled and "`Yacht-v0`" in filled
    assert fill(filled, "page.md") == (filled, [])
    with pytest.raises(ValueError, match="end marker"):
        fill("<!-- generated: env-ids -->\ntext\n", "page.md")
    with pytest.raises(ValueError, match="unknown generated part 'nope'"):
        fill("<!-- generated: nope -->\n<!-- end generated: nope -->\n", "page.md")


def test_the_site_hook_warns_of_a_stale_part(caplog: pytest.LogCaptureFixture) -> None:
    """The site's build fills a stale part afresh and warns (a strict build fails on the warning)."""
    import logging
    import types

    from generate import on_page_markdown

    page = types.SimpleNamespace(file=types.SimpleNamespace(src_path="page.md"))
    with caplog.at_level(logging.WARNING, logger="mkdocs.hooks.generate"):
        out = on_page_markdown("<!-- generated: env-ids -->\nold\n<!-- end generated: env-ids -->\n", page)
    assert "'env-ids' is stale" in caplog.text and "old" not in out and "`Yacht-v0`" in out


def test_config_reference_has_every_key() -> None:
    import dataclasses

    from yacht_training.config import TrainConfig

    def leaves(obj: object, prefix: str = "") -> list[str]:
        out = []
        for f in dataclasses.fields(obj):  # type: ignore[arg-type]
            v = getattr(obj, f.name)
            out += leaves(v, prefix + f.name + ".") if dataclasses.is_dataclass(v) else [prefix + f.name]
        return out

    keys = config_keys()
    assert [k.key for k in keys] == leaves(TrainConfig())
    assert all(k.meaning and k.type for k in keys)
    types = {k.key: k.type for k in keys}  # the ranges and choices the schema's Field and Literal types declare
    assert types["n_envs"] == "int in 1..65,536" and types["ppo.gamma"] == "float in [0, 1]"
    assert types["algo"] == "one of maskable_ppo, td, rllib_ppo" and types["td.explore"] == "float in [0, 1)"
    assert types["policy.net_arch"] == "list of int in 1..4,096 (1..16 items)"
    page = GENERATORS["config-reference"]()
    assert all(f"`{k.key}`" in page for k in keys)


def test_cli_reference_has_every_flag() -> None:
    page = GENERATORS["cli-reference"]()
    parsers = {f"yacht {n}": p for n, p in subcommands().items()} | {"python train.py": train_parser()}
    for title, parser in parsers.items():
        assert f"## `{title}`" in page
        for f in flags(parser):
            assert ", ".join(f"`{n}`" for n in f.names.split(", ")) in page, (title, f.names)


def test_observation_tables_cover_every_slice() -> None:
    from yacht_env.observation import layout
    from yacht_env.rules import RULESETS

    meanings = slice_meanings()
    page = GENERATORS["observation-layouts"]()
    for rules in RULESETS:
        for name, sl in layout(rules).items():
            assert name in meanings
            assert f"`{name}` | {sl.start}–{sl.stop - 1} |" in page


def test_config_accessor_reads_pydantic_schemas(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``config_keys`` reads a pydantic schema as it reads the dataclasses: descriptions, comments, defaults."""
    pytest.importorskip("pydantic", reason="the pydantic path of docs/hooks/docgen/config.py needs pydantic")
    (tmp_path / "schema_example.py").write_text(
        "from pydantic import BaseModel, Field\n\n\n"
        "class Inner(BaseModel):\n"
        "    lr: float | str = Field('lin_3e-4', description='learning rate')\n"
        "    hidden: list[int] = [64, 64]  # widths of the layers\n\n\n"
        "class Outer(BaseModel):\n"
        "    rules: str = 'yacht'  # rule set\n"
        "    inner: Inner = Field(default_factory=Inner)\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    from schema_example import Outer

    assert [tuple(k) for k in config_keys(Outer)] == [
        ("rules", "str", "yacht", "rule set"),
        ("inner.lr", "float or str", "lin_3e-4", "learning rate"),
        ("inner.hidden", "list of int", "[64, 64]", "widths of the layers")]


def test_config_accessor_fails_on_a_key_without_meaning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "schema_bare.py").write_text(
        "from dataclasses import dataclass\n\n\n@dataclass\nclass Bare:\n    told: int = 1  # a meaning\n"
        "    untold: int = 2\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    from schema_bare import Bare

    with pytest.raises(ValueError, match="untold"):
        config_keys(Bare)


def test_readme_results_are_the_sites() -> None:
    """Every number of the README's results table is on the site's pages it summarises (a copy cannot drift)."""
    import re

    from docgen.agents import agents_table

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Results", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line][1:]
    numbers = {n for row in rows for n in re.findall(r"\d+\.\d+", row)}
    site = "\n".join((ROOT / "docs" / p).read_text(encoding="utf-8") for p in ("agents.md", "solver.md"))
    site += agents_table()  # the agents page's generated table
    assert len(numbers) >= 16 and not [n for n in numbers if n not in site], sorted(n for n in numbers if n not in site)


def test_readme_shows_the_install_lines_the_errors_print() -> None:
    """A missing extra's error prints the README's install line, and torch's CPU-only line (yacht_env.extras)."""
    from yacht_env.extras import TORCH_CPU_LINE, install_line

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert install_line("train") in text and TORCH_CPU_LINE in text
    assert "pip install .  " in text  # the environments alone, without extras


LAB_NOTEBOOK = re.compile(
    r"\bcommits? [0-9a-f]{7,40}\b|--baseline [0-9a-f]{7,40}\b|\b[0-9a-f]{7} to [0-9a-f]{7}\b|load average|"
    r"\b(?:this|the|our|a shared|the shared|the idle) (?:\d-core[, \w]*? )?machine\b|\bCI machine\b|\d-core machine|"
    r"\bother jobs?\b|\bissues? #?\d+\b|(?<![\w&])#\d{2,}\b|\bthis project's CI\b|\bCI run beside|"
    r"\bbenchmarking job\b|\bfresh clone on\b", re.IGNORECASE)
"""Phrases about how and where a run was made (a lab notebook), not what a user gets."""


def test_pages_speak_to_users() -> None:
    """README and the site say what a user gets and the command that gives it: no commit hashes, load averages,
    machines of ours or issue numbers (history is in docs/changelog.md)."""
    found = [f"{rel(p)}:{i}: {m.group(0)!r}" for p in PAGES if p.name != "changelog.md"
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             for m in LAB_NOTEBOOK.finditer(line)]
    assert not found, "lab-notebook phrases:\n" + "\n".join(found)


def test_lab_notebook_phrases_are_caught() -> None:
    for text in ("the same recipe at commit 3a7c6d1", "load average 0.5-1.0", "on the idle 2-core machine",
                 "this project's CI machine", "with one other job running", "the goals of issue 30",
                 "shared with other jobs", "This machine is shared", "#40/#41"):
        assert LAB_NOTEBOOK.search(text), text
    assert not LAB_NOTEBOOK.search("two CPU cores, about a minute; Yacht-v0 and seed 1010000000")


def test_messages_name_site_pages() -> None:
    """What the code prints (messages, help) names a page of the site, never a file of a checkout (``docs/*.md``,
    which an installed yacht-env does not have); docstrings and comments may."""
    import ast

    sources = [ROOT / "train.py", *(p for pkg in ("yacht_env", "yacht_tools", "yacht_training", "yacht_cli", "agents")
                                    for p in (ROOT / pkg).rglob("*.py"))]
    bad = []
    for path in sources:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                      and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        bad += [f"{path.relative_to(ROOT)}:{n.lineno}" for n in ast.walk(tree)
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
                and re.search(r"docs/\w+\.md", n.value)]
    assert not bad, bad


def test_version_is_the_changelog_s() -> None:
    """The package version, pyproject's and the newest changelog heading (``## [X.Y.Z] - YYYY-MM-DD``) agree."""
    from yacht_env import __version__

    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.findall(r'^version = "([^"]+)"$', pyproject, re.MULTILINE) == [__version__]
    text = (ROOT / "docs" / "changelog.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", text, re.MULTILINE)
    assert versions and versions[0] == __version__, versions
    for section in text.split("\n## [")[1:]:
        kinds = re.findall(r"^### (Added|Changed|Deprecated|Removed|Fixed|Security)$", section, re.MULTILINE)
        assert kinds, f"## [{section[:20]}... has no Added / Changed / Fixed heading"


def test_the_architecture_page_names_every_layered_module_with_its_job() -> None:
    """Every module of a layers contract has a docstring whose first line says its job (the page shows it)."""
    from docgen.architecture import architecture, contracts, summary

    page = architecture()
    missing = []
    for c in contracts():
        prefix = f"{c['containers'][0]}." if c.get("containers") else ""
        for layer in c.get("layers", []):
            missing += [prefix + n.strip() for n in layer.split("|") if not summary(prefix + n.strip())]
        assert f"### {c['name']}" in page
    assert not missing, f"modules of the layer contracts without a docstring: {missing}"
