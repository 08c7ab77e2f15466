"""Ragged tables: one row per turn-start key, each only as long as the part its sweep computes.

Row ``s`` of a reach or distribution table is exactly 0 beyond ``most[s]``, the most points still to come from s
(:func:`yacht_solver.reach.most_points`), so it keeps only its entries ``0 .. most[s]``; a state no game reaches
keeps none. ``Ragged(data, offsets)`` is what the kernels read (row ``s`` is ``data[offsets[s]:offsets[s + 1]]``);
:class:`RaggedTable` is the same table seen from Python as the (keys, N) array it stands for: 0 past a row's end,
NaN in the rows of states no game reaches.

Precision: a table whose float64 form is small (Yacht, Knizia's Yacht: a few MB) stays float64; a large one
(Yahtzee, Yatzy) is stored in float32. Each turn is searched in float64 and only its row is rounded, by at most
2^-24 of the value (a probability, at most 1); the search of a turn mixes and maximises rows and so never widens an
error it reads, so after the ``C`` layers of a game of ``C`` boxes every entry is within ``C * 2^-24`` (7.7e-7 for
Yahtzee's 13) of the float64 table.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["FLOAT64_BYTES_MAX", "Ragged", "RaggedTable", "row_offsets", "rounding_bound", "table_dtype"]

FLOAT64_BYTES_MAX = 1 << 26
"""A table whose float64 form takes at most this many bytes (64 MiB) is stored in float64, a larger one in
float32."""


class Ragged(NamedTuple):
    """The ragged rows as the kernels see them: row ``s`` is ``data[offsets[s]:offsets[s + 1]]``."""

    data: np.ndarray
    offsets: np.ndarray


def row_offsets(lengths: np.ndarray) -> np.ndarray:
    """(len(lengths) + 1,) int64: where each row starts, and the total at the end."""
    out = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=out[1:])
    out.setflags(write=False)
    return out


def table_dtype(cells: int) -> np.dtype:
    """float64 for a table of ``cells`` entries that takes at most :data:`FLOAT64_BYTES_MAX` so, else float32."""
    return np.dtype(np.float64) if cells * 8 <= FLOAT64_BYTES_MAX else np.dtype(np.float32)


def rounding_bound(layers: int, dtype: np.dtype) -> float:
    """The most an entry of a table of ``dtype`` can differ from the float64 sweep's, after ``layers`` rounded layers
    (see the module docstring); 0 for float64 itself."""
    return 0.0 if np.dtype(dtype) == np.float64 else layers * float(np.finfo(dtype).epsneg)


class RaggedTable:
    """A (keys, N) table held as ragged rows. Indexing returns float64 numpy arrays as the dense table would:
    ``table[s]``, ``table[rows]``, ``table[rows, cols]`` (arrays broadcast, slices and ``...`` too), 0 past a row's
    end and NaN in an empty row (a state no game reaches). ``None`` and a lone ``True`` or ``False``, which add an
    axis to the dense array, raise ``IndexError`` (the table has two axes)."""

    def __init__(self, data: np.ndarray, offsets: np.ndarray, width: int) -> None:
        if offsets.ndim != 1 or offsets.size == 0 or int(offsets[-1]) != data.shape[0]:
            raise ValueError(f"offsets must be one row of {'' if offsets.ndim != 1 or not offsets.size else 'end at '}"
                             f"{data.shape[0]} (the entries the data holds), got shape {offsets.shape}"
                             f"{'' if offsets.ndim != 1 or not offsets.size else f' ending at {int(offsets[-1])}'}")
        lengths = np.diff(offsets)
        if int(offsets[0]) != 0 or (lengths.size and (int(lengths.min()) < 0 or int(lengths.max()) > width)):
            raise ValueError(f"offsets must start at 0 and rise by 0..{width} a row (the rows' lengths): they start "
                             f"at {int(offsets[0])} and rise by {int(lengths.min()) if lengths.size else 0}.."
                             f"{int(lengths.max()) if lengths.size else 0}")
        self.data = data
        self.offsets = offsets
        self.shape = (len(offsets) - 1, int(width))
        self._lengths: np.ndarray | None = None

    @property
    def lengths(self) -> np.ndarray:
        """The length of each row (worked out when first asked: a table made for one decision never needs it)."""
        if self._lengths is None:
            self._lengths = np.diff(self.offsets)
        return self._lengths

    @property
    def kernel(self) -> Ragged:
        """The table as the compiled kernels take it."""
        return Ragged(self.data, self.offsets)

    @property
    def dtype(self) -> np.dtype:
        """The type the entries are stored in."""
        return self.data.dtype

    @property
    def nbytes(self) -> int:
        """Bytes of the stored entries (the offsets not counted)."""
        return int(self.data.nbytes)

    def row(self, s: int) -> np.ndarray:
        """Row ``s`` in full (``N`` float64 entries)."""
        return self[int(s)]

    def __len__(self) -> int:
        return self.shape[0]

    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        out = self[:]
        return out if dtype is None else out.astype(dtype)

    def __getitem__(self, key: object) -> np.ndarray | float:
        rkey, ckey = _two_axes(key)
        rows, cols = _positions(rkey, self.shape[0]), _positions(ckey, self.shape[1])
        if isinstance(ckey, slice) and np.ndim(rows) > 0:
            rows = np.asarray(rows)[..., None]  # rows x columns, as numpy gives for a slice beside an index array
        elif isinstance(rkey, slice) and np.ndim(cols) > 0:
            rows = np.asarray(rows)[:, None]
        rows, cols = np.broadcast_arrays(rows, cols)
        length = self.offsets[rows + 1] - self.offsets[rows]
        inside = cols < length
        where = np.where(inside, self.offsets[rows] + cols, 0)
        got = np.asarray(self.data[where.reshape(-1)], dtype=np.float64).reshape(where.shape) if self.data.size else (
            np.zeros(where.shape))
        out = np.where(inside, got, np.where(length == 0, np.nan, 0.0))
        return float(out) if out.ndim == 0 else out


def _two_axes(key: object) -> tuple[object, object]:
    """The row and column parts of ``key``, ``...`` spread over the axes it stands for, as numpy does;
    ``IndexError`` for more than two indices, two ellipses, and ``None`` or a lone ``True`` / ``False``, which would
    add an axis (the dense array's ``np.asarray(table)[key]`` gives that)."""
    parts = key if isinstance(key, tuple) else (key,)
    for p in parts:
        if p is None or (isinstance(p, (bool, np.bool_, np.ndarray)) and np.ndim(p) == 0
                         and np.asarray(p).dtype == np.bool_):
            raise IndexError("a table is indexed by integers, slices, '...' and integer or boolean arrays of its "
                             f"axes' lengths, got {p!r}, which would add an axis (np.asarray(table) takes it)")
    ellipses = sum(p is Ellipsis for p in parts)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if ellipses:
        i = next(i for i, p in enumerate(parts) if p is Ellipsis)
        parts = parts[:i] + (slice(None),) * max(3 - len(parts), 0) + parts[i + 1:]
    if len(parts) > 2:
        raise IndexError(f"too many indices for a table of 2 dimensions: {len(parts)} were given")
    return (*parts, slice(None))[:2]


def _positions(key: object, n: int) -> np.ndarray | int:
    """The positions ``key`` picks along an axis of ``n`` (as ``np.arange(n)[key]``, without the arange)."""
    if isinstance(key, slice):
        return np.arange(*key.indices(n))
    a = np.asarray(key)
    if a.dtype == np.bool_:
        if a.shape != (n,):
            raise IndexError(f"a boolean index of shape {a.shape} for an axis of {n}")
        return np.flatnonzero(a)
    if not np.issubdtype(a.dtype, np.integer):
        raise IndexError(f"only integers, slices and boolean arrays index a table, got {a.dtype}")
    if a.size and (a.min() < -n or a.max() >= n):
        raise IndexError(f"index out of range for an axis of {n}")
    a = np.where(a < 0, a + n, a)
    return int(a) if a.ndim == 0 else a
