"""LLVM operations numba does not give directly, for the vector engine's inner loops.

``popcount``: number of set bits; ``load_u64`` / ``store_u64``: eight bytes of a bool/byte matrix row as one
unaligned 64-bit load or store (the legal-action mask is written 8 actions per store); ``copy_row``: a
fixed-size ``memcpy`` between array rows; ``bool_bits``: a row of a bool matrix as a bit set. Each is used only
where ``benchmarks/bench_engines.py`` measured it to pay (see the comments at the call sites).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from yacht_env.engine.cache import guard_numba_cache
from yacht_env.observation import HAND_PART

guard_numba_cache(__file__)  # before any cached kernel below is compiled


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of an int64 (LLVM's ctpop: one instruction)."""
    if x != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


@intrinsic
def ctz(typingctx, x):
    """Index of the lowest set bit of a non-zero int64 (LLVM's cttz)."""
    if x != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return types.int64(types.int64), codegen


def _is_byte_matrix(arr: Any) -> bool:
    return (isinstance(arr, types.Array) and arr.ndim == 2 and arr.layout == "C"
            and arr.dtype in (types.boolean, types.int8, types.uint8))


def _u64_pointer(context: Any, builder: Any, signature: Any, args: Any) -> Any:
    """LLVM pointer to ``arr[i, j]`` (the first three arguments) as a uint64 pointer."""
    arr_t = signature.args[0]
    ary = context.make_array(arr_t)(context, builder, args[0])
    ii = context.cast(builder, args[1], signature.args[1], types.intp)
    jj = context.cast(builder, args[2], signature.args[2], types.intp)
    ptr = cgutils.get_item_pointer(context, builder, arr_t, ary, [ii, jj])
    return builder.bitcast(ptr, ir.IntType(64).as_pointer())


@intrinsic
def load_u64(typingctx, arr, i, j):
    """The 8 bytes at ``arr[i, j:j + 8]`` of a C-contiguous 2-d one-byte array as one (unaligned) little-endian
    uint64 load; the caller keeps ``j + 8 <= arr.shape[1]``."""
    if not _is_byte_matrix(arr):
        return None

    def codegen(context, builder, signature, args):
        return builder.load(_u64_pointer(context, builder, signature, args), align=1)

    return types.uint64(arr, i, j), codegen


@intrinsic
def store_u64(typingctx, arr, i, j, val):
    """Store uint64 ``val`` as the 8 bytes ``arr[i, j:j + 8]`` (little-endian, unaligned) of a C-contiguous 2-d
    one-byte array; the caller keeps ``j + 8 <= arr.shape[1]``."""
    if not (_is_byte_matrix(arr) and val == types.uint64):
        return None

    def codegen(context, builder, signature, args):
        builder.store(args[3], _u64_pointer(context, builder, signature, args), align=1)
        return context.get_dummy_value()

    return types.void(arr, i, j, val), codegen


# BIT_BYTES[b]: the 8 bits of b as 8 bytes 0 / 1 (bit k -> byte k), little-endian in a uint64
BIT_BYTES = np.array([sum(((b >> k) & 1) << (8 * k) for k in range(8)) for b in range(256)], dtype=np.uint64)
_U8 = np.uint64(8)
U255 = np.int64(255)


@intrinsic
def copy_row(typingctx, dst, j, src, h, n):
    """``dst[j:j + n] = src[h, :n]`` as one memcpy (``n`` constant at the call: LLVM expands it into a few vector
    moves); ``dst`` 1-d, ``src`` 2-d, both C-contiguous of one dtype; the caller keeps the bounds."""
    if not (isinstance(dst, types.Array) and isinstance(src, types.Array) and dst.ndim == 1 and src.ndim == 2
            and dst.layout == "C" and src.layout == "C" and dst.dtype == src.dtype):
        return None

    def codegen(context, builder, signature, args):
        dst_t, src_t = signature.args[0], signature.args[2]
        d = context.make_array(dst_t)(context, builder, args[0])
        sa = context.make_array(src_t)(context, builder, args[2])
        jj = context.cast(builder, args[1], signature.args[1], types.intp)
        hh = context.cast(builder, args[3], signature.args[3], types.intp)
        nn = context.cast(builder, args[4], signature.args[4], types.intp)
        zero = context.get_constant(types.intp, 0)
        dp = cgutils.get_item_pointer(context, builder, dst_t, d, [jj])
        sp = cgutils.get_item_pointer(context, builder, src_t, sa, [hh, zero])
        size = context.get_abi_sizeof(context.get_data_type(dst_t.dtype))
        cgutils.raw_memcpy(builder, dp, sp, nn, size, align=1)
        return context.get_dummy_value()

    return types.void(dst, j, src, h, n), codegen



_BYTES_TO_BITS = np.uint64(0x0102040810204080)  # (x * this) >> 56: the low bits of x's 8 bytes as 8 bits
_LOW_BITS = np.uint64(0x0101010101010101)
_U56 = np.uint64(56)


@numba.njit(cache=True, inline="always", _nrt=False)
def bool_bits(mask, i, a_n) -> np.int64:
    """Row i of a (N, a_n) bool array (8 <= a_n <= 64) as a bit set: bit a set where ``mask[i, a]``."""
    bits = np.int64(0)
    j = 0
    while j + 8 <= a_n:
        x = load_u64(mask, i, j) & _LOW_BITS
        bits |= np.int64((x * _BYTES_TO_BITS) >> _U56) << j
        j += 8
    rem = a_n - j
    if rem > 0:  # the last rem bytes: the 8 ending the row, shifted down
        x = (load_u64(mask, i, a_n - 8) >> np.uint64(8 * (8 - rem))) & _LOW_BITS
        bits |= np.int64((x * _BYTES_TO_BITS) >> _U56) << j
    return bits


@numba.njit(cache=True, inline="always", _nrt=False)
def copy_hand_part(row, hand_part, index) -> None:
    """:func:`yacht_env.observation.copy_hand_part` as one memcpy of the row (measured: the element loop made the
    vector engine's step 1.6 times slower)."""
    copy_row(row, 0, hand_part, index, HAND_PART)


@numba.njit(cache=True, inline="always", _nrt=False)
def lowest_bit(x) -> np.int64:
    """:func:`yacht_env.observation.lowest_bit` as LLVM's cttz."""
    return ctz(np.int64(x))


@numba.njit(cache=True, inline="always", _nrt=False)
def count_bits(x) -> np.int64:
    """:func:`yacht_env.observation.count_bits` as LLVM's ctpop."""
    return popcount(np.int64(x))
