"""The rules and the observation encoder compiled once by numba, for every compiled engine.

The compiled functions are the pure functions themselves, not rewrites: each is rebuilt from its own code object
(:func:`compile_pure`) over a copy of its module's globals in which its callees are the compiled versions, so the
source of every rule stays in :mod:`yacht_env.rules` and the source of the encoder in
:mod:`yacht_env.observation` (tracebacks and ``inspect`` point there). The vector engine,
the turn search and the solver call these.

How they are compiled: ``_nrt=False``, without numba's runtime. They allocate nothing, so they need none, and without
it they take their array arguments (rows of the score arrays, views made by the caller) with no reference counting;
with it every call would pay atomic reference-count updates for those arrays. LLVM inlines them into the kernels that
call them.

The encoder's helpers (:data:`yacht_env.observation.ENGINE_HELPERS`), written with Python's int methods, are replaced
by the plain numba loops below; everything else is the Python source.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable
from typing import Any

from numba.core.registry import CPUDispatcher

from yacht_env import observation as O
from yacht_env.observation import HAND_PART
from yacht_env.rules import scoring as RT
from yacht_env.rules import turnstart as RTS

_INTERNAL = {"nopython": True, "_nrt": False, "no_cpython_wrapper": True, "no_cfunc_wrapper": True}


class KernelOnly(CPUDispatcher):
    """A numba dispatcher with no Python or C entry point: it compiles only into the kernels that call it (no code
    of its own to build, so a cold start compiles less: ``python benchmarks/bench_cold_start.py`` times it). Called
    from Python it raises a
    ``TypeError``; a plain numba dispatcher without its Python entry point would crash the interpreter."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        f = self.py_func
        raise TypeError(f"{f.__qualname__} is compiled for numba kernels only; from Python call "
                        f"{f.__module__}.{f.__qualname__}")


def kernel_only(f: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``f`` compiled as a :class:`KernelOnly` (``options`` as ``numba.njit`` takes them; without numba's runtime
    unless ``_nrt=True``); with ``options`` only, the decorator."""
    if f is None:
        return lambda g: kernel_only(g, **options)
    return KernelOnly(f, targetoptions=_INTERNAL | options)


def compile_pure(module: types.ModuleType, names: Iterable[str], compiled: dict[str, Any] | None = None,
                 **options: Any) -> dict[str, Any]:
    """numba-compile the functions ``names`` of ``module`` (callees first) from their own code, with the functions
    already in ``compiled`` (and each one compiled here) standing in for their Python versions in the globals;
    returns ``compiled`` with the new dispatchers added. Each is a :class:`KernelOnly` without numba's runtime;
    ``options`` go to :func:`kernel_only`."""
    out: dict[str, Any] = dict(compiled or {})
    glob = dict(vars(module))
    glob.update(out)
    for name in names:
        f = getattr(module, name)
        g = types.FunctionType(f.__code__, glob, name, f.__defaults__, f.__closure__)
        g.__qualname__ = f.__qualname__
        g.__module__ = f.__module__
        g.__doc__ = f.__doc__
        glob[name] = out[name] = kernel_only(g, **options)
    return out


@kernel_only
def copy_hand_part(row, hand_part, index) -> None:
    """:func:`yacht_env.observation.copy_hand_part` for numba."""
    for j in range(HAND_PART):
        row[j] = hand_part[index, j]


@kernel_only
def count_bits(x) -> int:
    """:func:`yacht_env.observation.count_bits` for numba."""
    n = 0
    while x != 0:
        x &= x - 1
        n += 1
    return n


@kernel_only
def lowest_bit(x) -> int:
    """:func:`yacht_env.observation.lowest_bit` for numba."""
    k = 0
    while (x >> k) & 1 == 0:
        k += 1
    return k


_HELPERS = {"copy_hand_part": copy_hand_part, "count_bits": count_bits, "lowest_bit": lowest_bit}
_COMPILED = compile_pure(RT, RT.TURN_LOGIC)
_COMPILED = compile_pure(RTS, RTS.TURNSTART_LOGIC, _COMPILED)
_COMPILED = compile_pure(O, ("write_observation",),
                         _COMPILED | {name: _HELPERS[name] for name in O.ENGINE_HELPERS})
joker_applies: Callable[..., bool] = _COMPILED["joker_applies"]
legal_bits: Callable[..., int] = _COMPILED["legal_bits"]
box_score: Callable[..., int] = _COMPILED["box_score"]
points_for: Callable[..., int] = _COMPILED["points_for"]
next_turn_start: Callable[..., tuple[int, int]] = _COMPILED["next_turn_start"]
write_observation: Callable[..., None] = _COMPILED["write_observation"]


__all__ = ["box_score", "compile_pure", "joker_applies", "legal_bits", "next_turn_start", "points_for",
           "write_observation"]
