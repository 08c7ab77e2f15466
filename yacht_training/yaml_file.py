"""Reading a YAML config that may come from anywhere: PyYAML's safe loader (no code runs), made strict.

A key given twice in one mapping is refused by name (PyYAML keeps the last one silently: a second ``eval:``
section would replace the first); nesting deeper than :data:`MAX_DEPTH` is refused before Python's recursion limit
is reached; a document whose aliases expand to more than :data:`MAX_VALUES` values (a "billion laughs" nest) is
refused before anything is built from it; a file over :data:`MAX_BYTES` is not read past that. A path may be any
readable file: a regular file, a pipe (``--config <(cat a.yaml)``), ``/dev/stdin``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, SequenceNode

MAX_BYTES = 1 << 20
"""The largest config file read (the shipped ones are about 2 KB)."""
MAX_DEPTH = 32
"""The deepest nesting of mappings and lists accepted (the schema has 3 levels)."""
MAX_VALUES = 100_000
"""The most values a document may hold once its aliases are expanded."""


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's ``SafeLoader`` with the checks above."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise yaml.YAMLError(f"nested deeper than {MAX_DEPTH} levels {_where(self.peek_event())}")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def compose_document(self) -> Node:
        node = super().compose_document()
        if _expanded_size(node, {}) > MAX_VALUES:
            raise yaml.YAMLError(f"its aliases expand to more than {MAX_VALUES:,} values")
        return node

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, Node] = {}
        for key_node, _value in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.setdefault(key, key_node)
            except TypeError:
                continue  # an unhashable key: PyYAML's own error follows
            if first is not key_node:
                raise yaml.YAMLError(f"key {_short(key)} is given twice ({_where(first)} and {_where(key_node)}); "
                                     "give each key once")
        return super().construct_mapping(node, deep=deep)


def _where(item: Any) -> str:
    mark = getattr(item, "start_mark", None)
    return f"at line {mark.line + 1}" if mark is not None else "here"


def _short(key: Any) -> str:
    text = repr(key)
    return text if len(text) <= 60 else text[:57] + "..."


def _expanded_size(node: Node, memo: dict[int, int]) -> int:
    """The number of values ``node`` holds with every alias expanded (a shared node counts each time it is used)."""
    if id(node) in memo:
        return memo[id(node)]
    size = 1
    if isinstance(node, SequenceNode):
        size += sum(_expanded_size(n, memo) for n in node.value)
    elif isinstance(node, MappingNode):
        size += sum(_expanded_size(k, memo) + _expanded_size(v, memo) for k, v in node.value)
    memo[id(node)] = size = min(size, MAX_VALUES + 1)
    return size


def read_yaml(path: str | Path) -> Any:
    """The document in the file at ``path`` (``None`` if empty); ``ValueError`` naming the file and what is wrong."""
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"config file {str(p)!r} is a folder")
    try:
        with open(p, "rb") as f:  # open, not is_file(): a pipe from the shell is a fine config
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise ValueError(f"config file not found: {str(p)!r}") from None
    except OSError as e:
        raise ValueError(f"cannot read config file {str(p)!r}: {e.strerror or e}") from None
    if len(data) > MAX_BYTES:
        raise ValueError(f"config file {str(p)!r} is larger than {MAX_BYTES:,} bytes: not a config")
    return parse_yaml(data, f"config file {str(p)!r}")


def parse_yaml(data: bytes, what: str) -> Any:
    """The document in ``data`` (UTF-8 YAML) with the strict loader's checks; ``ValueError`` naming ``what`` (the
    file) and what is wrong, on one line."""
    try:
        return yaml.load(data.decode("utf-8"), Loader=_StrictLoader)  # noqa: S506 - a SafeLoader
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise ValueError(f"{what} is not valid YAML: {_one_line(e)}") from None


def _one_line(error: Exception) -> str:
    """The error on one line, at most 300 characters (PyYAML's messages quote the input across several lines)."""
    text = " ".join(str(error).split())
    return text if len(text) <= 300 else text[:297] + "..."
