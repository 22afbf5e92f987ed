"""Small helpers for (N, 3) arrays, column by column.

NumPy 1.26 handles rows of three badly: `rows.mean(axis=0)` is ~15x and `rows - offset` with an
offset of shape (3,) ~3x slower than the same work done on the three strided columns.
"""

from __future__ import annotations

import numpy as np


def _c_einsum():
    """The C function `np.einsum` calls when not optimising (the same result), without its Python
    wrapper: ~2.5 us less per call, ~5% of a sweep of small batches. np.einsum where it is missing."""
    try:
        from numpy._core import multiarray  # NumPy >= 1.26 (Blender 4.2+)
    except ImportError:
        return np.einsum
    return getattr(multiarray, "c_einsum", np.einsum)


c_einsum = _c_einsum()


def column_dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Column-wise dot products of two (3, n) arrays (either may be a (3, 1) column): one C call,
    the same products summed in the same order as a * b summed by rows (bit-identical), ~0.4 us quicker."""
    return c_einsum("ij,ij->j", a, b)


def column_mean(rows: np.ndarray) -> np.ndarray:
    """Mean of an (N, 3) array's rows."""
    n = max(len(rows), 1)
    return np.array([rows[:, 0].sum(), rows[:, 1].sum(), rows[:, 2].sum()]) / n


def translated(rows: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """A new (N, 3) array: rows - offset."""
    out = np.empty_like(rows)
    for k in range(3):
        np.subtract(rows[:, k], offset[k], out=out[:, k])
    return out


def squared_distances(rows: np.ndarray, other, offset=None) -> np.ndarray:
    """|rows - other - offset|² for each row of the (N, 3) array `rows`; `other` is an (N, 3)
    array or one point, `offset` one point or None."""
    other = np.asarray(other)
    if other.ndim == 2 and offset is None:  # two (N, 3) arrays: whole rows are quicker (the same sums)
        squares = rows - other
        squares *= squares
        total = squares[:, 0] + squares[:, 1]
        total += squares[:, 2]
        return total
    columns = []
    for k in range(3):
        column = rows[:, k] - (other[k] if other.ndim == 1 else other[:, k])
        if offset is not None:
            column -= offset[k]
        column *= column
        columns.append(column)
    total = columns[0]
    total += columns[1]
    total += columns[2]
    return total


_FEW_ROWS = 8192  # up to this many rows, gathering (K, 3) rows and transposing them is as quick


def columns_of(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """x[rows] as a C-contiguous (3, K) array, for an (N, 3) array x: a coordinate at a time from the flat
    array beyond a few thousand rows (gathering (K, 3) rows and transposing them was ~7x slower there: two
    fresh temporaries of over 128 kB each)."""
    if len(rows) <= _FEW_ROWS or not x.flags.c_contiguous:
        return x.take(rows, axis=0).T.copy()
    flat = x.reshape(-1)
    index = rows * 3
    out = np.empty((3, len(rows)), dtype=x.dtype)
    flat.take(index, out=out[0])
    index += 1
    flat.take(index, out=out[1])
    index += 1
    flat.take(index, out=out[2])
    return out


def largest_of_rows(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """max over each of `rows` (K, m) of values[row's ids], a column at a time."""
    out = values[rows[:, 0]].copy()
    for k in range(1, rows.shape[1]):
        np.maximum(out, values[rows[:, k]], out=out)
    return out


def spans_of_rows(low: np.ndarray, high: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) (K, 3) boxes holding the vertex boxes low..high (N, 3) of each of `rows` (K, m): a
    triangle's or an edge's box from its corners'."""
    lower, upper = low.take(rows[:, 0], axis=0), high.take(rows[:, 0], axis=0)  # (take: ~4x quicker than [])
    for k in range(1, rows.shape[1]):
        np.minimum(lower, low.take(rows[:, k], axis=0), out=lower)
        np.maximum(upper, high.take(rows[:, k], axis=0), out=upper)
    return lower, upper


def rows_among(rows: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Which (N, 3) rows equal a row of the (M, 3) table, compared as whole rows (sorted, not N × M: a spiky
    collider has thousands of tips and a dense one a million vertices); -0.0 counts as 0.0."""
    return np.isin(_row_keys(rows), _row_keys(table))


def _row_keys(rows: np.ndarray) -> np.ndarray:
    """One opaque 24-byte key per (x, y, z) row, equal exactly where the rows are."""
    rows = np.ascontiguousarray(np.asarray(rows, dtype=np.float64).reshape(-1, 3) + 0.0)
    return rows.view(np.dtype((np.void, 24))).ravel()
