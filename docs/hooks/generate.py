"""The documentation's generated parts, committed so that every page reads whole in the repository, and the MkDocs
hook of the site (``hooks:`` in ``mkdocs.yml``).

``python docs/hooks/generate.py`` rewrites, in place, each part of a page between ``<!-- generated: NAME -->`` and
``<!-- end generated: NAME -->`` with the Markdown of generator ``NAME`` of :data:`docgen.GENERATORS` (computed from
the code and the records), and redraws each picture of :data:`docgen.pictures.PICTURES` whose data or drawing code
changed (``docs/img/pictures.json`` keeps the digest of each). ``--check`` changes nothing and lists what is stale
(exit status 1); ``tests/test_docs.py`` and ``tests/test_docs_pictures.py`` run the same checks.

At a site build the hook puts the package version beside the site's name and fills each generated part afresh; a
committed part that differs from it is reported as a warning, which fails the strict build.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from docgen import GENERATORS  # noqa: E402 - after the path above

DOCS = Path(__file__).resolve().parents[1]
MANIFEST = DOCS / "img" / "pictures.json"
PART = re.compile(r"^<!-- generated: ([\w-]+) -->\n(.*?)^<!-- end generated: \1 -->$", re.MULTILINE | re.DOTALL)
"""A generated part: its begin marker, its body, its end marker."""
COMMAND = "python docs/hooks/generate.py"
log = logging.getLogger("mkdocs.hooks.generate")


def pages() -> list[Path]:
    """The site's Markdown pages (the hooks folder is no page)."""
    return sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.relative_to(DOCS).parts)


def body(name: str, where: str) -> str:
    """The text between the markers of generated part ``name``: a blank line, the generator's Markdown, a blank
    line (so that Markdown reads the part as blocks of its own)."""
    if name not in GENERATORS:
        raise ValueError(f"{where}: unknown generated part {name!r}; known: {', '.join(GENERATORS)}")
    return "\n" + GENERATORS[name]().strip("\n") + "\n\n"


def fill(text: str, where: str) -> tuple[str, list[str]]:
    """``text`` with every generated part filled afresh, and the names of the parts that were stale."""
    stale: list[str] = []

    def part(m: re.Match[str]) -> str:
        new = body(m.group(1), where)
        if new != m.group(2):
            stale.append(m.group(1))
        return f"<!-- generated: {m.group(1)} -->\n{new}<!-- end generated: {m.group(1)} -->"

    filled = PART.sub(part, text)
    opened = re.findall(r"^<!-- generated: ([\w-]+) -->$", text, re.MULTILINE)
    closed = [m.group(1) for m in PART.finditer(text)]
    if opened != closed:
        raise ValueError(f"{where}: a generated part without its end marker: {sorted(set(opened) - set(closed))}")
    return filled, stale


def stale_pages(write: bool) -> Iterator[str]:
    """Each stale generated part, as ``page: NAME``; with ``write``, the page rewritten with it filled afresh."""
    from yacht_env.files import write_text_atomic

    for page in pages():
        where = page.relative_to(DOCS.parent).as_posix()
        text = page.read_text(encoding="utf-8")
        filled, stale = fill(text, where)
        if stale and write:
            write_text_atomic(page, filled)
        yield from (f"{where}: {name}" for name in stale)


def stale_pictures(write: bool) -> Iterator[str]:
    """Each picture whose file is missing or whose digest differs from the recorded one; with ``write``, the picture
    drawn again and its digest recorded."""
    from docgen.pictures import PICTURES, digest

    from yacht_env.files import write_bytes_atomic, write_text_atomic

    manifest = json.loads(MANIFEST.read_text(encoding="utf-8")) if MANIFEST.is_file() else {}
    for path, picture in PICTURES.items():
        data = picture.data()
        new = digest(picture, data)
        if manifest.get(path) == new and (DOCS / path).is_file():
            continue
        yield f"docs/{path}"
        if write:
            (DOCS / path).parent.mkdir(parents=True, exist_ok=True)
            write_bytes_atomic(DOCS / path, picture.draw(data))
            manifest[path] = new
            write_text_atomic(MANIFEST, json.dumps(dict(sorted(manifest.items())), indent=1) + "\n")
    unknown = sorted(set(manifest) - set(PICTURES))
    if unknown:
        raise ValueError(f"{MANIFEST.name} lists pictures that no longer exist: {unknown}; remove them")


def main(argv: list[str] | None = None) -> int:
    """Regenerate the pages' generated parts and the stale pictures in place, or ``--check`` them."""
    parser = argparse.ArgumentParser(prog=COMMAND, description="Write the documentation's generated parts and "
                                     "pictures into docs/ (or, with --check, list the stale ones).")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if anything is stale")
    parser.add_argument("--pages-only", action="store_true", help="the generated parts of the pages, no picture")
    args = parser.parse_args(argv)
    stale = list(stale_pages(write=not args.check))
    if not args.pages_only:
        stale += list(stale_pictures(write=not args.check))
    for line in stale:
        print(("stale: " if args.check else "written: ") + line)
    if args.check and stale:
        print(f"run {COMMAND} to write them", file=sys.stderr)
        return 1
    if not stale:
        print("every generated part and picture is up to date")
    return 0


# ---- the MkDocs hook -------------------------------------------------------------------------------------------


def on_config(config: Any, **kwargs: Any) -> Any:
    """Put the installed package's version beside the site's name (shown in the header and the page titles)."""
    from yacht_env import __version__

    config["site_name"] = f"{config['site_name']} {__version__}"
    config["extra"]["version"] = __version__
    return config


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    """Fill each generated part of the page afresh; a stale committed part is a warning (a strict build fails)."""
    filled, stale = fill(markdown, page.file.src_path)
    for name in stale:
        log.warning(f"{page.file.src_path}: the generated part {name!r} is stale; run {COMMAND}")
    return filled


if __name__ == "__main__":
    sys.exit(main())
