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

from .topology import STRUCTURAL, Constraints, Faces, adjacency


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

    def ends(self, grid: np.ndarray) -> np.ndarray:
        """Both views at once, as one view of `grid` (3, R, C) with an axis of length 2 after the first
        (a, then b: `offset` further on), so that one ufunc call updates both ends of every pair."""
        a = self._view(grid, self.start)
        sr, sc = grid.strides[-2:]
        step = self.offset[0] * sr + self.offset[1] * sc
        return np.lib.stride_tricks.as_strided(a, (a.shape[0], 2, *a.shape[1:]), (a.strides[0], step, *a.strides[1:]))

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
    yield from diagonal_specs(rows, cols)
    yield from edge_specs(rows, cols)


def diagonal_specs(rows: int, cols: int):
    """(start, shape, steps, offset) of the quads' diagonals, then anti-diagonals, every other row."""
    for p in (0, 1):  # diagonals (r, c)-(r+1, c+1), every other row
        yield _simple((p, 0), ((rows - 1 - p + 1) // 2, cols - 1), (2, 1), (1, 1))
    for p in (0, 1):  # anti-diagonals (r, c)-(r+1, c-1)
        yield _simple((p, 1), ((rows - 1 - p + 1) // 2, cols - 1), (2, 1), (1, -1))


def edge_specs(rows: int, cols: int):
    """(start, shape, steps, offset) of the grid's edges along rows and columns: four independent sets."""
    for p in (0, 1):  # structural along rows, every other column
        yield _simple((0, p), (rows, (cols - 1 - p + 1) // 2), (1, 2), (0, 1))
    for p in (0, 1):  # structural along columns, every other row
        yield _simple((p, 0), ((rows - 1 - p + 1) // 2, cols), (2, 1), (1, 0))


def diagonal_span_specs(rows: int, cols: int, k: int):
    """(start, shape, steps, offset) of independent sets of pairs k apart along the grid's diagonals
    (r, c)-(r+k, c+k), then its anti-diagonals (r, c)-(r+k, c-k): a triangulated grid's diagonal chains.

    Anchor rows r = p0 + 2k·m + j (j < k), as `span_specs` does along columns, so blocks of 2k rows
    never share a vertex; the blocks that do not fit form a last plain set.
    """
    if cols <= k:
        return
    for first_column, step in ((0, k), (k, -k)):
        for p0 in (0, k):
            full = max(0, (rows - p0) // (2 * k))
            tail_start = p0 + 2 * k * full
            tail = min(k, rows - k - tail_start)
            if full:
                yield (p0, first_column), (k, full, cols - k), ((1, 0), (2 * k, 0), (0, 1)), (k, step)
            if tail > 0:
                yield (tail_start, first_column), (tail, cols - k), ((1, 0), (0, 1)), (k, step)


@dataclass(frozen=True)
class GridLayout:
    rows: int
    columns: int
    order: np.ndarray  # (R*C,) original vertex index at each row-major grid slot
    identity: bool  # the mesh is already row-major: no gather/scatter needed
    colours: tuple[GridColour, ...]  # every mesh constraint (a quad grid); () under a triangulated grid


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


def _bfs(start, indptr: np.ndarray, neighbours: np.ndarray, n: int) -> np.ndarray:
    """Graph distance from `start` (one vertex or several) to every vertex (-1: unreachable).

    One vectorised step per level."""
    dist = np.full(n, -1, dtype=np.int64)
    frontier = np.unique(np.asarray(start, dtype=np.int64).reshape(-1))
    dist[frontier] = 0
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
    found = _grid_slots(n, constraints.pairs[constraints.kind == STRUCTURAL])
    if found is None:
        return None
    rows, cols, grid_order = found
    # Every grid pair must be a constraint, and every constraint a grid pair.
    all_pairs = np.sort(constraints.pairs, axis=1)
    colours = matched_colours(
        _colour_specs(rows, cols), grid_order.reshape(rows, cols), all_pairs[:, 0] * n + all_pairs[:, 1]
    )
    if colours is None or sum(c.constraint.size for c in colours) != len(constraints.pairs):
        return None
    identity = bool((grid_order == np.arange(n)).all())
    return GridLayout(rows, cols, grid_order, identity, tuple(colours))


def detect_triangulated_grid(positions: np.ndarray, faces: Faces, constraints: Constraints) -> GridLayout | None:
    """The grid layout under an R×C quad grid whose quads were split into triangles (any way each), else None.

    Found from the topology, in any vertex order and any split (Triangulate's Beauty, jittered
    vertices): the boundary is one loop whose four most turned vertices are the corners; every
    edge (a side or a diagonal) joins neighbouring rows, so graph distance from the first side is
    the row, from the last side the column. Accepted only when that places every vertex in its own
    slot and every row and column edge exists. The layout orders the vertices as the grid's slots
    but has no `colours`: which pairs are strided views is up to each family
    (`pairs.layout_batches`); the rest are gathered by slot.
    """
    n = len(positions)
    if n < 4 or not (faces.sizes == 3).any():
        return None
    loop = _boundary_loop(faces, n)
    if loop is None or len(loop) < 4:
        return None
    into = positions[loop] - positions[np.roll(loop, 1)]
    out = positions[np.roll(loop, -1)] - positions[loop]
    lengths = np.linalg.norm(into, axis=1) * np.linalg.norm(out, axis=1)
    cos = np.einsum("ij,ij->i", into, out) / np.maximum(lengths, 1e-300)
    at = np.sort(np.argsort(cos, kind="stable")[:4])  # the four most turned boundary vertices
    loop = np.roll(loop, -int(at[0]))
    at = at - at[0]
    cols, rows = int(at[1]) + 1, int(at[2] - at[1]) + 1
    if at[3] - at[2] + 1 != cols or len(loop) - at[3] + 1 != rows or rows * cols != n:
        return None
    pairs = constraints.pairs[constraints.kind == STRUCTURAL]
    indptr, neighbours = adjacency(n, pairs)
    row = _bfs(loop[: at[1] + 1], indptr, neighbours, n)
    col = _bfs(np.r_[loop[at[3] :], loop[:1]], indptr, neighbours, n)
    found = _slots_of(row, col, rows, cols)
    if found is None:
        return None
    rows, cols, grid_order = found
    keys = np.sort(pairs, axis=1)
    slots = grid_order.reshape(rows, cols)
    if matched_colours(list(edge_specs(rows, cols)), slots, keys[:, 0] * n + keys[:, 1]) is None:
        return None
    return GridLayout(rows, cols, grid_order, bool((grid_order == np.arange(n)).all()), ())


def _boundary_loop(faces: Faces, n: int) -> np.ndarray | None:
    """The vertices of the mesh's boundary in loop order, when it is one simple loop; else None."""
    edges = np.sort(faces.edges(), axis=1)
    keys, count = np.unique(edges[:, 0] * n + edges[:, 1], return_counts=True)
    boundary = keys[count == 1]
    ends = np.stack([boundary // n, boundary % n], 1)
    degree = np.bincount(ends.reshape(-1), minlength=n)
    if len(ends) < 4 or ((degree != 0) & (degree != 2)).any():
        return None
    indptr, neighbours = adjacency(n, ends)
    loop = np.empty(len(ends), dtype=np.int64)  # perimeter-long walk: O(sqrt N) steps at build time
    prev, cur = -1, int(ends[0, 0])
    for k in range(len(ends)):
        loop[k] = cur
        a, b = neighbours[indptr[cur] : indptr[cur] + 2]
        prev, cur = cur, int(b if a == prev else a)
    return loop if cur == loop[0] and len(np.unique(loop)) == len(loop) else None


def _grid_slots(n: int, pairs: np.ndarray) -> tuple[int, int, np.ndarray] | None:
    """(rows, columns, vertex at each row-major slot) when the edges `pairs` connect the vertices as an R×C grid."""
    if n < 4 or len(pairs) < 4:
        return None
    degree = np.bincount(pairs.reshape(-1), minlength=n)
    corners = np.nonzero(degree == 2)[0]
    if len(corners) != 4 or degree.max() > 4 or degree.min() < 2:
        return None
    indptr, neighbours = adjacency(n, pairs)
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
    return _slots_of(row, col, rows, cols)


def _slots_of(row: np.ndarray, col: np.ndarray, rows: int, cols: int) -> tuple[int, int, np.ndarray] | None:
    """(rows, columns, vertex at each row-major slot) when (row, col) puts every vertex in its own slot."""
    n = len(row)
    if col.min() < 0 or col.max() >= cols or row.min() < 0 or row.max() >= rows:
        return None
    if not ((row * cols + col) == np.arange(n)).all() and ((col * rows + row) == np.arange(n)).all():
        row, col, rows, cols = col, row, cols, rows  # the same grid, read the way the mesh is stored
    slot = row * cols + col
    if not (np.bincount(slot, minlength=n) == 1).all():
        return None
    grid_order = np.empty(n, dtype=np.int64)
    grid_order[slot] = np.arange(n)
    return rows, cols, grid_order


def matched_colours(specs, slots: np.ndarray, keys: np.ndarray) -> list[GridColour] | None:
    """The colours of `specs` on the (R, C) array of vertex indices `slots`, when all their pairs are among `keys`.

    keys: (P,) pair keys low * N + high (N = slots.size). Each colour's `constraint` gives, per pair, the
    index of its key in `keys`. None when any pair of a colour is missing.
    """
    return present_colours(specs, slots, keys, every=True)


MIN_INNER = 8  # a view's densest axis goes last (NumPy's inner loop) when at least this long


def _inner_axis_last(shape, steps, columns: int):
    """(shape, steps) with the axes reordered so that the one with the smallest memory step is the
    last (NumPy iterates the last axis innermost), when it is at least MIN_INNER long; the other axes
    by decreasing step. The same pairs in another order: a row span's 16 neighbours in a row were
    the outer axis, so the inner loop ran over 2-4 pairs 32 columns apart (128²: 100-120 -> 50-60 us
    a batch)."""
    stride = [abs(dr * columns + dc) for dr, dc in steps]
    inner = min(range(len(shape)), key=lambda i: stride[i])
    if inner == len(shape) - 1 or shape[inner] < MIN_INNER:
        return shape, steps
    axes = sorted((i for i in range(len(shape)) if i != inner), key=lambda i: -stride[i]) + [inner]
    return tuple(shape[i] for i in axes), tuple(steps[i] for i in axes)


def present_colours(specs, slots: np.ndarray, keys: np.ndarray, every: bool = False) -> list[GridColour] | None:
    """The colours of `specs` whose pairs are all among `keys` (as `matched_colours`); the others are skipped.

    every: None as soon as one colour is not complete.
    """
    n = slots.size
    order = np.argsort(keys)
    sorted_keys = keys[order]
    colours = []
    columns = slots.shape[1]
    for start, given_shape, given_steps, offset in specs:
        if min(given_shape) <= 0:
            continue
        shape, steps = _inner_axis_last(given_shape, given_steps, columns)
        probe = GridColour(start, shape, steps, offset, np.empty(0, dtype=np.int64))
        a, b = probe.views(slots)
        key = np.minimum(a, b) * n + np.maximum(a, b)
        at = np.minimum(np.searchsorted(sorted_keys, key), len(sorted_keys) - 1)
        if len(sorted_keys) == 0 or not (sorted_keys[at] == key).all():
            if every:
                return None
            continue
        colours.append(GridColour(start, shape, steps, offset, order[at]))
    return colours
