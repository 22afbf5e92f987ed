"""Fast path for regular quad grids: constraints projected with strided slices, no index arrays.

Many cloth meshes are R×C quad grids. Their vertex order may be anything (a subdivided plane is
scrambled), so the grid is found from the TOPOLOGY: graph distances from two neighbouring corners
give every vertex its (row, column). The solver then projects each independent constraint set as
two strided views of the (3, R, C) workspace, which NumPy processes ~3× faster than gathers. The
grid is only a storage order: the constraints are those of any other mesh (see distance.py,
long_range.py).

A mesh is only accepted when its constraint set is exactly the grid's (structural, both quad
diagonals, skip-one bends); anything else (a curved mesh whose bends were not all kept, extra
loose edges, triangles) uses the general coloured path.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .topology import STRUCTURAL, Constraints


@dataclass(frozen=True)
class GridColour:
    """One independent set of pairs (a, b): two same-shaped strided views of the (R, C) grid.

    A view starts at grid slot `start` (row, column) and has one axis per entry of `shape`; moving
    one step along axis k moves `steps[k]` = (rows, columns) in the grid. View b is view a moved by
    `offset` = (rows, columns). `constraint` has `shape` and names the constraint of each pair.
    """

    start: tuple[int, int]
    shape: tuple[int, ...]
    steps: tuple[tuple[int, int], ...]
    offset: tuple[int, int]
    constraint: np.ndarray

    def views(self, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Views a and b of `grid`, an array whose last two axes are (R, C) (e.g. (3, R, C) positions)."""
        moved = (self.start[0] + self.offset[0], self.start[1] + self.offset[1])
        return self._view(grid, self.start), self._view(grid, moved)

    def _view(self, grid: np.ndarray, start: tuple[int, int]) -> np.ndarray:
        lead = grid.shape[:-2]
        sr, sc = grid.strides[-2:]
        base = grid[..., start[0] :, start[1] :]
        strides = tuple(dr * sr + dc * sc for dr, dc in self.steps)
        return np.lib.stride_tricks.as_strided(base, (*lead, *self.shape), (*grid.strides[:-2], *strides))


def _simple(start, shape, strides, offset):
    """A plain 2-D strided block: `shape` pairs every `strides` (rows, columns) from `start`."""
    return start, shape, ((strides[0], 0), (0, strides[1])), offset


def _colour_specs(rows: int, cols: int):
    """(start, shape, steps, offset) of every colour, in projection order.

    Skip-one bends first (the softest), then quad diagonals, then structural edges last, so those
    are the best satisfied before collisions (measured on the 64² drape at 16 substeps: mean
    stretch 1.23% instead of 1.54% with structural first). Bends along a row pair columns c and
    c + 2; those with c mod 4 in {0, 1} are independent and form one view with a length-2 axis
    (likewise {2, 3}), so a grid needs 12 projections per sweep, not 16.
    """
    for p0 in (0, 2):  # bends along rows: anchors c = p0 + 4k + j, j in {0, 1}, c <= cols - 3
        full = max(0, (cols - 3 - p0 - 1) // 4 + 1)
        if full:
            yield (0, p0), (2, rows, full), ((0, 1), (1, 0), (0, 4)), (0, 2)
        if p0 + 4 * full <= cols - 3:
            yield _simple((0, p0 + 4 * full), (rows, 1), (1, 1), (0, 2))
    for p0 in (0, 2):  # bends along columns
        full = max(0, (rows - 3 - p0 - 1) // 4 + 1)
        if full:
            yield (p0, 0), (2, full, cols), ((1, 0), (4, 0), (0, 1)), (2, 0)
        if p0 + 4 * full <= rows - 3:
            yield _simple((p0 + 4 * full, 0), (1, cols), (1, 1), (2, 0))
    for p in (0, 1):  # diagonals (r, c)-(r+1, c+1), every other row
        yield _simple((p, 0), ((rows - 1 - p + 1) // 2, cols - 1), (2, 1), (1, 1))
    for p in (0, 1):  # anti-diagonals (r, c)-(r+1, c-1)
        yield _simple((p, 1), ((rows - 1 - p + 1) // 2, cols - 1), (2, 1), (1, -1))
    for p in (0, 1):  # structural along rows, every other column
        yield _simple((0, p), (rows, (cols - 1 - p + 1) // 2), (1, 2), (0, 1))
    for p in (0, 1):  # structural along columns, every other row
        yield _simple((p, 0), ((rows - 1 - p + 1) // 2, cols), (2, 1), (1, 0))


@dataclass(frozen=True)
class GridLayout:
    rows: int
    columns: int
    order: np.ndarray  # (R*C,) original vertex index at each row-major grid slot
    identity: bool  # the mesh is already row-major: no gather/scatter needed
    colours: tuple[GridColour, ...]


def span_specs(rows: int, cols: int, k: int):
    """(start, shape, steps, offset) of independent sets of pairs k apart along rows, then columns.

    Anchors c = p0 + 2k·m + j (j < k) pair with c + k, so blocks of 2k never share a vertex; the
    blocks that do not fit form a last plain set.
    """
    for along_rows in (True, False):
        length, other = (cols, rows) if along_rows else (rows, cols)
        for p0 in (0, k):
            full = max(0, (length - p0) // (2 * k))
            tail_start = p0 + 2 * k * full
            tail = min(k, length - k - tail_start)
            if along_rows:
                if full:
                    yield (0, p0), (k, other, full), ((0, 1), (1, 0), (0, 2 * k)), (0, k)
                if tail > 0:
                    yield (0, tail_start), (other, tail), ((1, 0), (0, 1)), (0, k)
            else:
                if full:
                    yield (p0, 0), (k, full, other), ((1, 0), (2 * k, 0), (0, 1)), (k, 0)
                if tail > 0:
                    yield (tail_start, 0), (tail, other), ((1, 0), (0, 1)), (k, 0)


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
    colours = matched_colours(
        _colour_specs(rows, cols), grid_order.reshape(rows, cols), all_pairs[:, 0] * n + all_pairs[:, 1]
    )
    if colours is None or sum(c.constraint.size for c in colours) != len(constraints.pairs):
        return None
    identity = bool((grid_order == np.arange(n)).all())
    return GridLayout(rows, cols, grid_order, identity, tuple(colours))


def matched_colours(specs, slots: np.ndarray, keys: np.ndarray) -> list[GridColour] | None:
    """The colours of `specs` on the (R, C) array of vertex indices `slots`, when all their pairs are among `keys`.

    keys: (P,) pair keys low * N + high (N = slots.size). Each colour's `constraint` gives, per pair, the
    index of its key in `keys`. None when any pair of a colour is missing.
    """
    n = slots.size
    order = np.argsort(keys)
    sorted_keys = keys[order]
    colours = []
    for start, shape, steps, offset in specs:
        if min(shape) <= 0:
            continue
        probe = GridColour(start, shape, steps, offset, np.empty(0, dtype=np.int64))
        a, b = probe.views(slots)
        key = np.minimum(a, b) * n + np.maximum(a, b)
        at = np.minimum(np.searchsorted(sorted_keys, key), len(sorted_keys) - 1)
        if len(sorted_keys) == 0 or not (sorted_keys[at] == key).all():
            return None
        colours.append(GridColour(start, shape, steps, offset, order[at]))
    return colours
