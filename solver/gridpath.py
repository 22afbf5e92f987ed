"""Fast path for regular quad grids: constraints projected with strided slices, no index arrays.

Many cloth meshes are R×C quad grids. Their vertex order may be anything (a subdivided plane is
scrambled), so the grid is found from the TOPOLOGY: graph distances from two neighbouring corners
give every vertex its (row, column). The solver then projects each independent constraint set as
two strided views of an (R, C, 3) array, which NumPy processes 3–4× faster than gathers.

A mesh is only accepted when its constraint set is exactly the grid's (structural, both quad
diagonals, skip-one bends); anything else (a curved mesh whose bends were not all kept, extra
loose edges, triangles) uses the general coloured path.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .topology import STRUCTURAL, Constraints

# (row offset, column offset, anchor stride along rows, along columns) of each family of pairs.
# Anchors of one colour are every `stride`-th row/column, so no two pairs of a colour share a vertex.
_FAMILIES = (
    # skip-one bends: 4 colours each
    (0, 2, 1, 4),
    (2, 0, 4, 1),
    # quad diagonals: 2 colours each
    (1, 1, 2, 1),
    (1, -1, 2, 1),
    # structural edges last, so they are the best satisfied before collisions (measured: mean drape
    # stretch 1.23% instead of 1.54% at 64², 16 substeps)
    (0, 1, 1, 2),
    (1, 0, 2, 1),
)


@dataclass(frozen=True)
class GridColour:
    """One independent set: pairs (a, b) are views X[a_slices] and X[b_slices] of the (R, C, 3) grid."""

    a: tuple[slice, slice]
    b: tuple[slice, slice]
    constraint: np.ndarray  # (r, c) index into Model.constraints of every pair


@dataclass(frozen=True)
class GridLayout:
    rows: int
    columns: int
    order: np.ndarray  # (R*C,) original vertex index at each row-major grid slot
    identity: bool  # the mesh is already row-major: no gather/scatter needed
    colours: tuple[GridColour, ...]


def _bfs(start: int, indptr: np.ndarray, neighbours: np.ndarray, n: int) -> np.ndarray:
    """Graph distance from `start` to every vertex (-1 where unreachable); one vectorised step per level."""
    dist = np.full(n, -1, dtype=np.int64)
    dist[start] = 0
    frontier = np.array([start], dtype=np.int64)
    level = 0
    while frontier.size:
        level += 1
        counts = indptr[frontier + 1] - indptr[frontier]
        offsets = np.repeat(indptr[frontier] - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
        nxt = neighbours[offsets]
        nxt = np.unique(nxt[dist[nxt] < 0])
        dist[nxt] = level
        frontier = nxt
    return dist


def _range_slice(start: int, stop: int, stride: int) -> slice:
    return slice(start, max(stop, start), stride)


def _colours(rows: int, cols: int):
    """(a, b) slice pairs of every colour, in projection order."""
    for dr, dc, sr, sc in _FAMILIES:
        c_lo, c_hi = (max(0, -dc), cols - max(0, dc))
        r_hi = rows - dr
        for phase in range(max(sr, sc)):
            if sr > 1:
                rs = _range_slice(phase, r_hi, sr)
                cs = slice(c_lo, c_hi, 1)
                bs = (_range_slice(phase + dr, r_hi + dr, sr), slice(c_lo + dc, c_hi + dc, 1))
            else:
                rs = slice(0, r_hi, 1)
                cs = _range_slice(c_lo + phase, c_hi, sc)
                bs = (slice(dr, r_hi + dr, 1), _range_slice(c_lo + phase + dc, c_hi + dc, sc))
            yield (rs, cs), bs


def detect_grid(n: int, constraints: Constraints) -> GridLayout | None:
    """The grid layout of a mesh whose constraints are exactly those of an R×C quad grid, else None."""
    pairs = constraints.pairs[constraints.kind == STRUCTURAL]
    if n < 4 or len(pairs) < 4:
        return None
    degree = np.bincount(pairs.reshape(-1), minlength=n)
    corners = np.nonzero(degree == 2)[0]
    if len(corners) != 4 or degree.max() > 4 or degree.min() < 2:
        return None
    src = np.concatenate([pairs[:, 0], pairs[:, 1]])
    dst = np.concatenate([pairs[:, 1], pairs[:, 0]])
    order = np.argsort(src, kind="stable")
    neighbours = dst[order]
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(degree)
    d0 = _bfs(int(corners[0]), indptr, neighbours, n)
    if (d0 < 0).any():
        return None
    others = corners[1:]
    c1 = int(others[np.argmin(d0[others])])
    cols = int(d0[c1]) + 1
    if cols < 2 or n % cols:
        return None
    rows = n // cols
    d1 = _bfs(c1, indptr, neighbours, n)
    twice_col = d0 - d1 + cols - 1
    if (twice_col % 2).any():
        return None
    col = twice_col // 2
    row = d0 - col
    if col.min() < 0 or col.max() >= cols or row.min() < 0 or row.max() >= rows:
        return None
    if not ((row * cols + col) == np.arange(n)).all() and ((col * rows + row) == np.arange(n)).all():
        row, col, rows, cols = col, row, cols, rows  # the same grid, read the way the mesh is stored
    slot = row * cols + col
    if not (np.bincount(slot, minlength=n) == 1).all():
        return None
    grid_order = np.empty(n, dtype=np.int64)
    grid_order[slot] = np.arange(n)

    # Every grid pair must be a constraint, and every constraint a grid pair.
    all_pairs = np.sort(constraints.pairs, axis=1)
    keys = all_pairs[:, 0] * n + all_pairs[:, 1]
    key_order = np.argsort(keys)
    sorted_keys = keys[key_order]
    where = grid_order.reshape(rows, cols)
    colours = []
    used = 0
    for a, b in _colours(rows, cols):
        va, vb = where[a], where[b]
        if va.size == 0:
            continue
        if va.shape != vb.shape:
            return None
        k = np.minimum(va, vb) * n + np.maximum(va, vb)
        pos = np.minimum(np.searchsorted(sorted_keys, k), len(sorted_keys) - 1)
        if not (sorted_keys[pos] == k).all():
            return None
        colours.append(GridColour(a, b, key_order[pos]))
        used += va.size
    if used != len(constraints.pairs):
        return None
    identity = bool((grid_order == np.arange(n)).all())
    return GridLayout(rows, cols, grid_order, identity, tuple(colours))
