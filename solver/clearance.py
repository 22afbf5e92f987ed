"""Where cloth is clear of a still triangle set: a coarse grid of free blocks.

A rigid mesh collider's candidate list re-queries a vertex whenever its path leaves its box
(a skin of a fifth of a triangle). Most such vertices are nowhere near a triangle (cloth swinging
inside the collider's bounding box), and the grid query costs the same for them. This map answers
them instead: cells of a coarse grid marked where any triangle's box grown by the gap reaches,
and for every cell its Chebyshev distance (in cells, capped) to the nearest marked one. A path
whose box lies within the free block around its cell is farther than the gap from every triangle.
"""

from __future__ import annotations

import numpy as np

_REACH = 4  # free blocks reach up to this many cells on each side of the vertex's cell
_MOST_CELLS = 128  # cells along the longest side, at most


class Clearance:
    """Free blocks around coarse cells, for triangle boxes `low`..`high` ((3, T)) grown by `gap`."""

    def __init__(self, low: np.ndarray, high: np.ndarray, gap: float, cell: float):
        low, high = low - gap, high + gap
        lower, upper = low.min(axis=1), high.max(axis=1)
        self.cell = max(float(cell), float((upper - lower).max()) / _MOST_CELLS, 1e-9)
        pad = _REACH + 1  # beyond the padding every cell is at least _REACH + 1 from a marked one
        self.origin = lower - pad * self.cell
        self.dims = np.ceil((upper - lower) / self.cell).astype(np.int64) + 2 * pad + 1
        self._last = (self.dims - 1)[:, None].astype(np.float64)
        margin = 1e-6 * self.cell  # a box touching a cell's side marks that cell too (rounding)
        first = self._cells(low - margin)
        last = self._cells(high + margin) + 1  # exclusive
        # Mark every cell a triangle box touches: +-1 at the 8 corners of each box's cell range, summed up.
        span = self.dims + 1
        corners, weights = [], []
        for corner in range(8):
            pick = [(corner >> axis) & 1 for axis in range(3)]
            at = [np.where(pick[axis], last[axis], first[axis]) for axis in range(3)]
            corners.append((at[0] * span[1] + at[1]) * span[2] + at[2])
            weights.append(np.full(low.shape[1], -1.0 if sum(pick) % 2 else 1.0))
        counts = np.bincount(np.concatenate(corners), np.concatenate(weights), minlength=int(span.prod())).reshape(
            tuple(span)
        )
        for axis in range(3):
            np.cumsum(counts, axis=axis, out=counts)
        marked = counts[: self.dims[0], : self.dims[1], : self.dims[2]] > 0.5
        # Chebyshev distance to a marked cell, by repeated 3x3x3 dilation (separable: one axis at a time).
        self.free = np.full(tuple(self.dims), _REACH + 1, dtype=np.int8)
        grown = marked
        for k in range(_REACH + 1):
            self.free[grown & (self.free > k)] = k
            grown = _dilate(grown)

    def _cells(self, points: np.ndarray) -> np.ndarray:
        """Cell coordinates (3, k) int64 of (3, k) points, clipped into the grid."""
        scaled = points - self.origin[:, None]
        scaled /= self.cell
        np.floor(scaled, out=scaled)
        np.maximum(scaled, 0.0, out=scaled)  # (not np.clip: its Python wrapper costs more than the work here)
        np.minimum(scaled, self._last, out=scaled)
        return scaled.astype(np.int64)

    def blocks(self, low: np.ndarray, high: np.ndarray):
        """For path boxes low..high ((3, k)): (which of them lie in a free block, those blocks' low, high)."""
        centre = self._cells((low + high) * 0.5)
        cell = (centre[0] * self.dims[1] + centre[1]) * self.dims[2] + centre[2]
        reach = self.free.reshape(-1).take(cell).astype(np.int64) - 1  # free cells on each side
        block_low = self.origin[:, None] + (centre - reach) * self.cell
        block_high = self.origin[:, None] + (centre + reach + 1) * self.cell
        inside = (low >= block_low) & (high <= block_high)
        inside = inside[0] & inside[1] & inside[2] & (reach >= 0)
        clear = inside.nonzero()[0]
        return clear, block_low.take(clear, axis=1), block_high.take(clear, axis=1)

    def room(self, points: np.ndarray) -> np.ndarray:
        """For points (3, k): how far each may move (along any axis) and stay in the free block around its cell,
        clear of every box (negative: in or next to a marked cell, or outside the map)."""
        centre = self._cells(points)
        cell = (centre[0] * self.dims[1] + centre[1]) * self.dims[2] + centre[2]
        reach = self.free.reshape(-1).take(cell).astype(np.int64) - 1  # free cells on each side
        room = points - (self.origin[:, None] + (centre - reach) * self.cell)
        np.minimum(room, (self.origin[:, None] + (centre + reach + 1) * self.cell) - points, out=room)
        return room.min(axis=0)


def _dilate(mask: np.ndarray) -> np.ndarray:
    """The mask grown by one cell in every direction (diagonals included)."""
    out = mask.copy()
    for axis in range(3):
        grown = out.copy()
        lead = [slice(None)] * 3
        tail = [slice(None)] * 3
        lead[axis], tail[axis] = slice(1, None), slice(None, -1)
        grown[tuple(lead)] |= out[tuple(tail)]
        grown[tuple(tail)] |= out[tuple(lead)]
        out = grown
    return out
