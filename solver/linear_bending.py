"""Flat bending stencils as one sparse operator: every vertex's Jacobi correction is Σ_j A_ij x_j.

A stencil whose rest curvature is zero (every stencil of a flat rest shape) is linear in the
positions: its curvature is v = Σ_k K_k x_k and its correction of vertex i is scaled_i v
(`bending`). Summed over the stencils, vertex i moves by Σ_j A_ij x_j with constant
A_ij = Σ_s scaled_is K_js over the stencils s holding both i and j: its neighbours within two
rings, ~13 on a triangle mesh. So a sweep is one gather of those neighbours' positions from a
padded (W, N) table and one multiply-sum, instead of gathering every stencil's vertices, projecting
and gathering their contributions back (a triangulated 64² grid: 185 -> 90 us a sweep). The rows
wider than the table (a fan's centre: 129 neighbours) are summed in float64 by a bincount.

On a grid layout (a triangulated grid, a jittered one) every neighbour of slot (r, c) lies within
(r ± 2, c ± 2), so the gather is instead one copy of the 25 shifted grids of a zero-padded copy of the
workspace (a sliding-window view): no index array to read, ~35% quicker than the table at 48² and 64²;
A is then a dense table, zero where an offset is no neighbour. The sums run over the padded grid's
rows whole (R rows of C + 4: the 4 padding columns' sums are made and dropped), so each shifted grid
is one contiguous run of the padded copy and the 25 copy as 75 long runs, not 3,600 rows of C
(the jittered 48²: 42 -> 30 us a sweep, the same sums).

The same physics as the per-stencil form; only float32 rounding differs (the sums run in
another order).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .vectors import c_einsum

_REACH = 2  # the window's half width: a triangle mesh's stencils join vertices at most two grid steps apart


class LinearStencils:
    """The flat stencils of some groups as a padded table of (neighbour slot, coefficient) per slot."""

    def __init__(self, groups, slot_of: np.ndarray, width: int, grid_shape: tuple[int, int] | None = None):
        """groups: (vertices (k, S), weights (k, S)) of the stencils; width: the workspace's N;
        grid_shape: (rows, columns) when the workspace is a grid layout's row-major slots."""
        n = width
        stencil_slots = [slot_of[vertices] for vertices, _ in groups]  # (k, S) each
        self.weights = [np.asarray(weights, dtype=np.float64) for _, weights in groups]
        self.window: tuple[int, int] | None = None
        entries = None if grid_shape is None else _window_entries(stencil_slots, grid_shape, n)
        if entries is not None:
            self._as_window(entries[0], entries[1], grid_shape)
            return
        rows, columns = [], []  # slots (i, j) of every (vertex i, vertex j) of every stencil
        for slots in stencil_slots:
            k, s = slots.shape
            rows.append(np.broadcast_to(slots[:, None, :], (k, k, s)).reshape(-1))
            columns.append(np.broadcast_to(slots[None, :, :], (k, k, s)).reshape(-1))
        keys, inverse = np.unique(np.concatenate(rows) * n + np.concatenate(columns), return_inverse=True)
        del rows, columns
        self._keep_inverse(inverse)
        row, column = np.divmod(keys, n)
        count = np.bincount(row, minlength=n)
        first = np.zeros(n, dtype=np.int64)
        np.cumsum(count[:-1], out=first[1:])
        rank = np.arange(len(keys)) - first[row]  # keys are sorted by row, then column
        used = count[count > 0]
        self.table_width = w = int(np.percentile(used, 95)) if len(used) else 0
        inside = rank < w
        self.entries = len(keys)
        self.at = rank[inside] * n + row[inside]  # each entry's place in the (W, N) table
        self.inside = inside
        table = np.tile(np.arange(n), (w, 1))  # padding: the row's own slot, coefficient 0
        table[rank[inside], row[inside]] = column[inside]
        self.table = table  # (W, N) slots
        # The gather takes 16-byte items: each slot's x, y, z and a zero, copied from the (3, N) buffer into
        # (N, 4) rows seen as complex128, so the table's index is read once and one item moves per entry (a
        # third of the items of a take along the (3, N) buffer's second axis). The sums then run over the
        # (W, 4N) gathered floats against the table repeated for each lane, whose sums per lane are
        # those of (3, W, N) (the same products in the same order): the fan, 4,225 vertices, W 13: the take
        # and sum 97 -> 71 us (+4 for adding the (N, 4) sums strided).
        self.rows = np.zeros((n, 4), np.float32)
        self.items = self.rows.view(np.complex128).reshape(n)
        self.picked = np.empty((w, n), np.complex128)
        self.lanes = self.picked.view(np.float32).reshape(w, 4 * n)
        self.sums = np.empty((n, 4), np.float32)
        self.delta = self.sums[:, :3].T  # (3, N), strided
        # Rows wider than the table: (row, column) pairs summed by a bincount over (coordinate, row).
        extra_rows, self.extra_rows_index = np.unique(row[~inside], return_inverse=True)
        self.extra_flat_rows = (extra_rows[None, :] * 4 + np.arange(3)[:, None]).reshape(-1)  # into `sums`
        self.extra_flat = (column[~inside][None, :] + n * np.arange(3)[:, None]).reshape(-1)
        self.extra_bins = (self.extra_rows_index[None, :] + len(extra_rows) * np.arange(3)[:, None]).reshape(-1)
        self.width = n

    def _keep_inverse(self, inverse: np.ndarray) -> None:
        # Kept to sum the coefficients again (a grab, a tear): 16 per hinge, int32 halves it (200k vertices: 38 MB).
        self.inverse = inverse.astype(np.int32) if len(inverse) and inverse.max() < 2**31 else inverse

    def _as_window(self, offset: np.ndarray, row: np.ndarray, grid_shape) -> None:
        """The dense form: entry (i, j) at offset (dr, dc) of j from i goes to A[(dr + 2) × 5 + dc + 2, i].

        `offset`, `row`: each (i, j) of every stencil's offset and slot i (`_window_entries`), repeats
        included: each one's place in the dense table is its entry (no np.unique: ~3 of the jittered
        48²'s 4 ms a run), and the coefficients summed into it are the same, in the same order."""
        rows, columns = grid_shape
        n, side = rows * columns, 2 * _REACH + 1
        self.window = (rows, columns)
        self.table_width = side * side
        self.width = n
        self.entries = side * side * n
        self._keep_inverse(offset * n + row)
        # The padded grid flat, one row every `wide` slots; the neighbour at offset (a, b) (of the window's
        # 5 x 5, from its corner) of padded-row slot k is then slot k + a wide + b, so each offset's grid is
        # one run of `run` slots. One more zero row, which the last runs reach into (and the view's reshape).
        wide = columns + 2 * _REACH
        run = rows * wide
        self.padded = np.zeros((3, (rows + 2 * _REACH + 1) * wide), np.float32)
        self.interior = self.padded.reshape(3, -1, wide)[:, _REACH : _REACH + rows, _REACH : _REACH + columns]
        starts = sliding_window_view(self.padded, run, axis=1)  # (3, M, run): the run from every slot
        self.windows = starts[:, : side * wide].reshape(3, side, wide, run)[:, :, :side]  # (3, 5, 5, run)
        assert np.may_share_memory(self.windows, self.padded)  # a view of the copy, never a copy of it
        self.shifted = np.empty((3, side, side, run), np.float32)
        self.gathered = self.shifted.reshape(3, side * side, run)
        self.padded_delta = np.empty((3, rows, wide), np.float32)
        self.delta = self.padded_delta[:, :, :columns]  # (3, R, C): the grid's own sums

    def coefficients(self, scaled) -> tuple[np.ndarray, np.ndarray]:
        """The float32 table of A ((W, N) on a grid layout, else (W, 4N): each entry for x, y, z and 0) and the
        float64 A of the entries beyond it, from each group's (k, S) float64 scaled weights (`bending`:
        -w_i K_i / (Σ w_j n_j K_j² + α~), 0 where off)."""
        products = [(s[:, None, :] * w[None, :, :]).reshape(-1) for s, w in zip(scaled, self.weights)]
        a = np.bincount(self.inverse, weights=np.concatenate(products), minlength=self.entries)
        if self.window is not None:  # every entry has its place; zeros in the padding columns
            rows, columns = self.window
            table = np.zeros((self.table_width, rows, columns + 2 * _REACH), np.float32)
            table[:, :, :columns] = a.reshape(self.table_width, rows, columns)
            return table.reshape(self.table_width, -1), np.zeros(0)
        table = np.zeros(self.table_width * self.width, np.float32)
        table[self.at] = a[self.inside]
        lanes = np.zeros((self.table_width, self.width, 4), np.float32)  # x, y, z: the same; 0 for the fourth
        lanes[:, :, :3] = table.reshape(self.table_width, self.width, 1)
        return lanes.reshape(self.table_width, -1), np.tile(a[~self.inside], 3)

    def correction(self, flat_buffer: np.ndarray, table: np.ndarray, extra: np.ndarray) -> np.ndarray:
        """Σ_j A_ij x_j of the positions in the flat (3, N) buffer (read only): (3, N) (a strided view), or
        (3, R, C) on a grid layout (a view: add it to the buffer shaped (3, R, C))."""
        if self.window is not None:  # the 25 shifted grids, copied at once
            np.copyto(self.interior, flat_buffer.reshape(3, *self.window))
            np.copyto(self.shifted, self.windows)
            c_einsum("rwn,wn->rn", self.gathered, table, out=self.padded_delta.reshape(3, -1))
            return self.delta
        np.copyto(self.rows[:, :3], flat_buffer.reshape(3, -1).T)
        self.items.take(self.table, 0, self.picked, "clip")
        c_einsum("wm,wm->m", self.lanes, table, out=self.sums.reshape(-1))
        if len(extra):
            moved = np.bincount(
                self.extra_bins, weights=flat_buffer[self.extra_flat] * extra, minlength=len(self.extra_flat_rows)
            )
            self.sums.reshape(-1)[self.extra_flat_rows] += moved.astype(np.float32)
        return self.delta


def _window_entries(stencil_slots, grid_shape, n: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(offset in the 5 x 5 window of j from i, slot i) of every (i, j) of every stencil (the (k, k, S)
    pairs of each group's (k, S) slots, flattened and concatenated), or None when the slots are no
    row-major grid of `grid_shape` or some j lies outside i's window. Rows and columns of the slots
    are found per slot, not per pair (k times fewer divisions: ~2 ms less a run at 48²)."""
    rows, columns = grid_shape
    if rows * columns != n or not sum(slots.size for slots in stencil_slots):
        return None
    side = 2 * _REACH + 1
    offsets, owners = [], []
    for slots in stencil_slots:
        k, s = slots.shape
        r, c = np.divmod(slots, columns)
        dr = r[None, :, :] - r[:, None, :]  # [a, b]: from vertex a (i) to vertex b (j)
        dc = c[None, :, :] - c[:, None, :]
        if (np.abs(dr) > _REACH).any() or (np.abs(dc) > _REACH).any():
            return None
        dr += _REACH
        dr *= side
        dr += dc
        dr += _REACH
        offsets.append(dr.reshape(-1))
        owners.append(np.broadcast_to(slots[:, None, :], (k, k, s)).reshape(-1))
    return np.concatenate(offsets), np.concatenate(owners)
