"""The MkDocs hook of the site (``hooks:`` in ``mkdocs.yml``): the package version in the site's name, and the
generated reference parts in place of their markers.

A page line ``<!-- generated: NAME -->`` is replaced by the Markdown of generator ``NAME`` of
:data:`docgen.GENERATORS`, computed from the code at every build; an unknown name fails the build.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from docgen import GENERATORS  # noqa: E402 - after the path above

MARKER = re.compile(r"^<!-- generated: ([\w-]+) -->$", re.MULTILINE)


def on_config(config: Any, **kwargs: Any) -> Any:
    """Put the installed package's version beside the site's name (shown in the header and the page titles)."""
    from yacht_env import __version__

    config["site_name"] = f"{config['site_name']} {__version__}"
    config["extra"]["version"] = __version__
    return config


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    """Replace each generated-part marker of the page with the generator's Markdown."""

    def expand(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in GENERATORS:
            raise ValueError(f"{page.file.src_path}: unknown generated part {name!r}; known: {', '.join(GENERATORS)}")
        return GENERATORS[name]()

    return MARKER.sub(expand, markdown)
