"""A griffe extension for the API reference: the Sphinx roles of the docstrings (``:func:`~yacht_env.x.f```) shown
as inline code (``f``), since mkdocstrings renders docstrings as Markdown. Loaded by ``mkdocs.yml``
(``handlers.python.options.extensions``)."""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|attr|data|obj|exc|const):`(~?)([^`]+)`")


def plain_roles(text: str) -> str:
    """``:role:`a.b.c``` -> ``a.b.c`` and ``:role:`~a.b.c``` -> ``c``, as inline code."""
    return ROLE.sub(lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}`", text)


class SphinxRolesAsCode(griffe.Extension):
    """Rewrite the roles of every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain_roles(obj.docstring.value)
