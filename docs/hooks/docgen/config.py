"""The reference of every training-config key, from the schema in :mod:`yacht_training.config`.

The one accessor is :func:`config_keys`: it walks the schema's sections (dataclasses today; pydantic models are
read the same way) and returns each key with its type, default and meaning. The meaning is, in this order, the
field's own description (``Field(description=...)`` in pydantic, ``field(metadata={"description": ...})`` in a
dataclass), else the comment on the field's line in the source, else the comment lines right above it. A key with
none of them fails the build: every key has a meaning written next to it in the code.
"""

from __future__ import annotations

import dataclasses
import inspect
import io
import re
import tokenize
import types
import typing
from typing import Annotated, Any, Literal, NamedTuple, Union

from docgen.table import table


class ConfigKey(NamedTuple):
    """One key of the training config, as the reference shows it."""

    key: str  # dotted: "ppo.learning_rate"
    type: str
    default: str
    meaning: str


class _Field(NamedTuple):
    name: str
    annotation: Any
    default: Any
    description: str | None


def _fields(cls: type) -> list[_Field]:
    """The fields of a schema class, dataclass or pydantic model, with their defaults."""
    if dataclasses.is_dataclass(cls):
        hints = typing.get_type_hints(cls, include_extras=True)
        out = []
        for f in dataclasses.fields(cls):
            default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
            out.append(_Field(f.name, hints[f.name], default, f.metadata.get("description")))
        return out
    model_fields = getattr(cls, "model_fields", None)  # pydantic v2
    if model_fields is None:
        raise TypeError(f"{cls!r} is neither a dataclass nor a pydantic model")
    return [_Field(name, f.annotation, f.get_default(call_default_factory=True), f.description)
            for name, f in model_fields.items()]


def _is_section(tp: Any) -> bool:
    return isinstance(tp, type) and (dataclasses.is_dataclass(tp) or hasattr(tp, "model_fields"))


def _source_comments(cls: type) -> dict[str, str]:
    """Field name -> the comment on its line in ``cls``'s source, else the comment lines right above it."""
    src = inspect.getsource(cls)
    lines = src.splitlines()
    comments: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string
    out: dict[str, str] = {}
    for no, line in enumerate(lines, 1):
        m = re.match(r"\s+(\w+)\s*:", line)
        if not m or line.strip().startswith("#"):
            continue
        text = comments.get(no)
        if text is None:
            above = []
            k = no - 1
            while k >= 1 and lines[k - 1].strip().startswith("#"):
                above.insert(0, lines[k - 1].strip())
                k -= 1
            text = " ".join(above) if above else None
        if text:
            out[m.group(1)] = _clean(text)
    return out


def _clean(comment: str) -> str:
    """A source comment as prose: ``#`` marks and linter directives (``noqa: UP007 -``) dropped."""
    text = re.sub(r"(^|\s)#\s*", " ", comment)
    return re.sub(r"noqa:\s*[A-Z]+\d+\s*(-\s*)?", "", text).strip()


def type_name(tp: Any) -> str:
    """A type annotation as the reference writes it: ``int``, ``float or str``, ``list of int``, ``null``, with the
    range a ``Field`` allows (``int in 1..65,536``, ``float in [0, 1]``) and a ``Literal``'s values."""
    from yacht_training.config import field_bounds

    b = field_bounds(tp)
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    if typing.get_origin(tp) in (Union, types.UnionType):
        return " or ".join(type_name(a) for a in typing.get_args(tp))
    if typing.get_origin(tp) is Literal:
        return "one of " + ", ".join(map(str, typing.get_args(tp)))
    if typing.get_origin(tp) is list:
        count = f" ({b.get('min_length', 0)}..{b['max_length']} items)" if "max_length" in b else ""
        return f"list of {type_name(typing.get_args(tp)[0])}{count}"
    name = "null" if tp is type(None) else getattr(tp, "__name__", str(tp))
    if tp is int and ("ge" in b or "gt" in b):
        least = b.get("ge", b.get("gt", 0) + 1)
        return f"{name} in {least:,}..{b['le']:,}" if "le" in b else f"{name} >= {least:,}"
    if tp is float and b:
        low = f"[{b['ge']:g}" if "ge" in b else f"({b['gt']:g}" if "gt" in b else "(-inf"
        high = f"{b['le']:g}]" if "le" in b else f"{b['lt']:g})" if "lt" in b else "inf)"
        return f"{name} in {low}, {high}"
    return name


def _yaml_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_yaml_value(v) for v in value) + "]"
    return str(value)


def config_keys(schema: type | None = None) -> list[ConfigKey]:
    """Every key of the training config (default: :class:`yacht_training.config.TrainConfig`), sections expanded,
    in the schema's order. ``ValueError`` names the keys that have no meaning in the code."""
    if schema is None:
        from yacht_training.config import TrainConfig

        schema = TrainConfig
    out = _keys(schema, "")
    missing = [k.key for k in out if not k.meaning]
    if missing:
        raise ValueError(f"config keys without a meaning in yacht_training/config.py (a comment on the field's line "
                         f"or a description): {', '.join(missing)}")
    return out


def _keys(schema: type, prefix: str) -> list[ConfigKey]:
    comments = _source_comments(schema)
    out: list[ConfigKey] = []
    for f in _fields(schema):
        if _is_section(f.annotation):
            out += _keys(f.annotation, prefix + f.name + ".")
        else:
            meaning = f.description or comments.get(f.name, "")
            out.append(ConfigKey(prefix + f.name, type_name(f.annotation), _yaml_value(f.default), meaning))
    return out


def section_docs(schema: type | None = None) -> dict[str, str]:
    """Section name -> the docstring of its class (the text above each section's table)."""
    if schema is None:
        from yacht_training.config import TrainConfig

        schema = TrainConfig
    out = {}
    for f in _fields(schema):
        doc = inspect.cleandoc(f.annotation.__doc__ or "") if _is_section(f.annotation) else ""
        if doc and not doc.startswith(f.annotation.__name__ + "("):  # not a dataclass's generated signature
            out[f.name] = doc
    return out


def config_reference() -> str:
    """One table per section of the config: key, type, default, meaning."""
    keys = config_keys()
    docs = section_docs()
    groups: dict[str, list[ConfigKey]] = {}
    for k in keys:
        groups.setdefault(k.key.split(".")[0] if "." in k.key else "", []).append(k)
    parts = []
    for section, rows in groups.items():
        title = f"### `{section}:`\n\n" if section else "### Top level\n\n"
        doc = docs.get(section, "")
        doc = (_roles_to_code(doc) + "\n\n") if doc else ""
        parts.append(title + doc + table(["key", "type", "default", "meaning"],
                                         [(f"`{r.key}`", r.type, f"`{r.default}`", r.meaning) for r in rows]))
    return "\n".join(parts)


def _roles_to_code(text: str) -> str:
    """Sphinx roles (``:class:`x```) as inline code, and ``x`` literals as Markdown code."""
    text = re.sub(r":\w+:`~?([^`]+)`", r"`\1`", text)
    return text.replace("``", "`")
