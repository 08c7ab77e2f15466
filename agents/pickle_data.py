"""Pickles read as data, never run: a small stack machine over :func:`pickletools.genops` for plain values.

It knows dict, list, tuple, set, str, bytes, int, float, bool, None and the memo, and returns global references as
:class:`Ref` ``(module, name)`` pairs, never imported; an opcode that would build or call an object (REDUCE, BUILD,
NEWOBJ, INST, OBJ, ...) raises :class:`NotPlainData`. :mod:`yacht_agents.sb3_zip` reads the pickled entries of SB3
model files with it.
"""

from __future__ import annotations

import pickletools
from typing import Any, NamedTuple

MAX_PICKLE_OPS = 2_000_000
"""Opcodes one pickle may have (a longer one is refused)."""



class Ref(NamedTuple):
    """A global reference found in a pickle (``GLOBAL`` / ``STACK_GLOBAL``): a name, never imported."""

    module: str
    name: str

    def __str__(self) -> str:
        return f"{self.module}.{self.name}"


class NotPlainData(ValueError):
    """A pickle needs an opcode that builds or calls objects (REDUCE, BUILD, NEWOBJ, INST, OBJ, ...)."""


_COMPUTED = "<computed>"  # STACK_GLOBAL operands that are not plain strings
_CALL_OPCODES = frozenset({"REDUCE", "BUILD", "NEWOBJ", "NEWOBJ_EX", "INST", "OBJ", "PERSID", "BINPERSID", "EXT1",
                           "EXT2", "EXT4", "NEXT_BUFFER", "READONLY_BUFFER"})
_PUSH_ARG = frozenset({"INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4", "FLOAT", "BINFLOAT", "STRING",
                       "BINSTRING", "SHORT_BINSTRING", "UNICODE", "SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8",
                       "BINBYTES", "SHORT_BINBYTES", "BINBYTES8", "BYTEARRAY8"})
_CONSTANTS = {"NONE": None, "NEWTRUE": True, "NEWFALSE": False}
_KEY_TYPES = (str, int, float, bool, type(None), bytes, Ref)  # hashable without recursion


class _Opaque:
    """Stands for an object the scan does not build (the result of a call, a container)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<opaque>"


_OPAQUE = _Opaque()


class _Walk:
    """One pass over a pickle: ``plain=True`` builds the value or raises :class:`NotPlainData`; ``plain=False``
    builds nothing but collects every global reference and every call-like opcode (with pickle's stack effects)."""

    def __init__(self, blob: bytes, plain: bool, max_ops: int) -> None:
        self.blob, self.plain, self.max_ops = blob, plain, max_ops
        self.stack: list[Any] = []
        self.meta: list[list[Any]] = []
        self.memo: dict[int, Any] = {}
        self.refs: list[Ref] = []
        self.calls: set[str] = set()

    def pop_mark(self) -> list[Any]:
        if not self.meta:
            raise ValueError("a MARK is missing")
        items, self.stack = self.stack, self.meta.pop()
        return items

    def pop(self, n: int = 1) -> list[Any]:
        if n > len(self.stack):
            raise ValueError("the stack is empty")
        items = self.stack[len(self.stack) - n:]
        del self.stack[len(self.stack) - n:]
        return items

    def target(self, kind: type, op: str) -> Any:
        """The container below the operands: in plain mode it must be a real ``kind``; a scan discards the items."""
        if not self.stack:
            raise ValueError("the stack is empty")
        t = self.stack[-1]
        if not self.plain:
            return None
        if type(t) is not kind:
            raise NotPlainData(f"{op} on a {type(t).__name__}")
        return t

    def key(self, k: Any) -> Any:
        if not isinstance(k, _KEY_TYPES):
            raise NotPlainData(f"a {type(k).__name__} as dict key or set item")
        return k

    def push_ref(self, module: Any, name: Any) -> None:
        if isinstance(module, str) and isinstance(name, str):
            ref = Ref(module, name)
        elif self.plain:
            raise NotPlainData("STACK_GLOBAL with operands that are not strings")
        else:
            ref = Ref(_COMPUTED, _COMPUTED)
        self.refs.append(ref)
        self.stack.append(ref)

    def call(self, name: str, arg: Any) -> None:
        """Stack effects of the opcodes that call or build objects, for a scan."""
        self.calls.add(name)
        if name == "INST":
            module, _, attr = str(arg).partition(" ")
            self.refs.append(Ref(module, attr))
        elif name.startswith("EXT"):
            self.refs.append(Ref("<copyreg extension>", str(arg)))
        pops = {"REDUCE": 2, "BUILD": 1, "NEWOBJ": 2, "NEWOBJ_EX": 3, "BINPERSID": 1, "READONLY_BUFFER": 1}
        if name in ("INST", "OBJ"):
            self.pop_mark()
        else:
            self.pop(pops.get(name, 0))
        if name != "BUILD":
            self.stack.append(_OPAQUE)

    def run(self) -> Any:
        ops = 0
        try:
            for op, arg, pos in pickletools.genops(self.blob):
                ops += 1
                if ops > self.max_ops:
                    raise ValueError(f"more than {self.max_ops:,} opcodes")
                name = op.name
                if name in _CALL_OPCODES:
                    if self.plain:
                        raise NotPlainData(f"opcode {name} at byte {pos} builds or calls an object")
                    self.call(name, arg)
                elif name == "STOP":
                    return self.pop()[0]
                else:
                    self.step(name, arg)
        except NotPlainData:
            raise
        except (ValueError, KeyError, IndexError, TypeError, UnicodeDecodeError, EOFError, OverflowError) as e:
            raise ValueError(f"malformed pickle: {e}") from None
        raise ValueError("malformed pickle: no STOP opcode")

    def step(self, name: str, arg: Any) -> None:
        """One plain-data opcode (pushes, memo, globals, containers)."""
        s, plain = self.stack, self.plain
        if name in ("PROTO", "FRAME"):
            return
        if name in _PUSH_ARG:
            s.append(arg)
        elif name in _CONSTANTS:
            s.append(_CONSTANTS[name])
        elif name == "MARK":
            self.meta.append(s)
            self.stack = []
        elif name == "POP":
            if s:
                s.pop()
            else:
                self.pop_mark()
        elif name == "POP_MARK":
            self.pop_mark()
        elif name == "DUP":
            if not s:
                raise ValueError("the stack is empty")
            s.append(s[-1])
        elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
            self.memo[int(arg)] = s[-1]
        elif name == "MEMOIZE":
            self.memo[len(self.memo)] = s[-1]
        elif name in ("GET", "BINGET", "LONG_BINGET"):
            s.append(self.memo[int(arg)])
        elif name == "GLOBAL":
            module, _, attr = str(arg).partition(" ")
            self.push_ref(module, attr)
        elif name == "STACK_GLOBAL":
            module, attr = self.pop(2)
            self.push_ref(module, attr)
        elif name in ("EMPTY_LIST", "EMPTY_DICT", "EMPTY_TUPLE", "EMPTY_SET"):
            s.append({"EMPTY_LIST": list, "EMPTY_DICT": dict, "EMPTY_TUPLE": tuple, "EMPTY_SET": set}[name]()
                     if plain else _OPAQUE)
        elif name in ("LIST", "TUPLE", "DICT", "FROZENSET"):
            items = self.pop_mark()
            self.stack.append(self.build(name, items) if plain else _OPAQUE)
        elif name in ("TUPLE1", "TUPLE2", "TUPLE3"):
            items = self.pop(int(name[-1]))
            s.append(tuple(items) if plain else _OPAQUE)
        elif name == "APPEND":
            (v,) = self.pop()
            t = self.target(list, name)
            if plain:
                t.append(v)
        elif name == "APPENDS":
            items = self.pop_mark()
            t = self.target(list, name)
            if plain:
                t.extend(items)
        elif name == "SETITEM":
            k, v = self.pop(2)
            t = self.target(dict, name)
            if plain:
                t[self.key(k)] = v
        elif name == "SETITEMS":
            items = self.pop_mark()
            t = self.target(dict, name)
            if plain:
                t.update(self.pairs(items))
        elif name == "ADDITEMS":
            items = self.pop_mark()
            t = self.target(set, name)
            if plain:
                t.update(self.key(k) for k in items)
        else:
            raise ValueError(f"opcode {name} is not known to this reader")

    def pairs(self, items: list[Any]) -> list[tuple[Any, Any]]:
        if len(items) % 2:
            raise ValueError("odd number of items for a dict")
        return [(self.key(items[i]), items[i + 1]) for i in range(0, len(items), 2)]

    def build(self, name: str, items: list[Any]) -> Any:
        if name == "LIST":
            return items
        if name == "TUPLE":
            return tuple(items)
        if name == "DICT":
            return dict(self.pairs(items))
        return frozenset(self.key(k) for k in items)


def pickle_to_data(blob: bytes, max_ops: int = MAX_PICKLE_OPS) -> Any:
    """The value a pickle stands for, if it is plain data; global references come back as :class:`Ref`.

    Nothing is imported or called: the opcodes are read with :func:`pickletools.genops` and interpreted for plain
    data only. Raises :class:`NotPlainData` (a ``ValueError``) for any opcode that would build or call an object."""
    return _Walk(bytes(blob), plain=True, max_ops=max_ops).run()


def pickle_references(blob: bytes, max_ops: int = MAX_PICKLE_OPS) -> tuple[list[Ref], set[str]]:
    """``(refs, calls)``: every global a pickle names (in order; ``<computed>`` where the name is not a plain
    string) and the call-like opcodes it uses. Reads opcodes only, like :func:`pickle_to_data`."""
    w = _Walk(bytes(blob), plain=False, max_ops=max_ops)
    w.run()
    return w.refs, w.calls
