"""The MkDocs hook of the site (``hooks:`` in ``mkdocs.yml``): the package version in the site's name, the
generated reference parts in place of their markers, and the pictures drawn from the code.

A page line ``<!-- generated: NAME -->`` (and the note under it, ``> *Generated when the site is built: ...*``, which
says what a reader of the plain Markdown misses there) is replaced by the Markdown of generator ``NAME`` of
:data:`docgen.GENERATORS`, computed from the code at every build; an unknown name fails the build. The files of
:data:`docgen.pictures.PICTURES` (animations, plots, a replay page) are drawn at every build and added to the site's
files, so pages link them as any other file.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from docgen import GENERATORS  # noqa: E402 - after the path above
from docgen.pictures import PICTURES  # noqa: E402

MARKER = re.compile(r"^<!-- generated: ([\w-]+) -->$(?:\n> \*Generated when the site is built:[^\n]*)?", re.MULTILINE)
"""A marker line, with the note under it that a reader of the Markdown file (on a code host) sees in its place."""


def on_config(config: Any, **kwargs: Any) -> Any:
    """Put the installed package's version beside the site's name (shown in the header and the page titles)."""
    from yacht_env import __version__

    config["site_name"] = f"{config['site_name']} {__version__}"
    config["extra"]["version"] = __version__
    return config


def on_files(files: Any, config: Any, **kwargs: Any) -> Any:
    """Add every picture of :data:`PICTURES`, drawn now, to the site's files."""
    from mkdocs.structure.files import File

    for path, make in PICTURES.items():
        files.append(File.generated(config, path, content=make()))
    return files


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    """Replace each generated-part marker of the page with the generator's Markdown."""

    def expand(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in GENERATORS:
            raise ValueError(f"{page.file.src_path}: unknown generated part {name!r}; known: {', '.join(GENERATORS)}")
        return GENERATORS[name]()

    return MARKER.sub(expand, markdown)
