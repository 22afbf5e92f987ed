# ruff: noqa
r"""Round 28 (bodywin_r28; docs/design.md, issue 11): a dropped window for a deforming collider's list — a coarse
occupancy grid of the frame's triangle boxes (a summed-area table, eight lookups a box) — against the exact count:
per `collide_rows` call on a cape recording (bench/cape_cost_trace.py `record`), how many of the window's vertices
have a path (grown by the gap) meeting some triangle box exactly, and how many the occupancy keeps at cells of
0.5 / 0.25 / 0.125 / 0.0625 median boxes (the grid is capped at 2^18 cells: the finest two coincide), with its
build and test time.

    VC_ROOT=$PWD .venv/bin/python bench/body_window_occupancy.py /tmp/rec/cape_tri24.pkl 12   # first 12 frames
"""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cape_cost_trace as T  # noqa: E402


class Occupancy:
    """Which query boxes meet any of the boxes (3, T) at all, by a coarse grid of the cells they cover (a
    summed-area table: eight lookups a query box). Conservative: a box meeting one of them always meets a
    covered cell (flooring is monotone), so a box found clear meets none. A deforming collider's window: the
    cloth vertices whose path meets no triangle box need no list query (docs/design.md, issue 11, round 28
    (bodywin_r28))."""

    def __init__(self, low: np.ndarray, high: np.ndarray, cell: float, most: int = 1 << 18):
        self.origin = low.min(axis=1, keepdims=True)
        spread = high.max(axis=1, keepdims=True) - self.origin
        cell = max(float(cell), 1e-9, float(spread.max()) * 1e-6)
        while float(np.prod(np.floor(spread[:, 0] / cell) + 2.0)) > most:  # (a coarser cell past `most` cells)
            cell *= 2.0
        self.inv = 1.0 / cell
        dims = self.dims = (np.floor(spread[:, 0] * self.inv).astype(np.int64) + 1).clip(1, None)
        first = self._cells(low)
        last = self._cells(high) + 1
        # Coverage counts by a difference array: +-1 at each box's eight corners, then a running sum per axis.
        size = dims + 1
        flat, sign = [], []
        for corner in range(8):
            pick = [last[k] if corner >> (2 - k) & 1 else first[k] for k in range(3)]
            flat.append((pick[0] * size[1] + pick[1]) * size[2] + pick[2])
            sign.append(np.full(len(pick[0]), -1.0 if bin(corner).count("1") % 2 else 1.0))
        cover = np.bincount(np.concatenate(flat), np.concatenate(sign), minlength=int(np.prod(size)))
        cover = cover.reshape(tuple(size.tolist()))
        for k in range(3):
            np.cumsum(cover, axis=k, out=cover)
        covered = (cover[:-1, :-1, :-1] > 0.5).astype(np.int64)
        # Summed-area table with a zero first plane on each axis: the covered cells in [a, b) are 8 lookups.
        table = np.zeros(tuple(size.tolist()), dtype=np.int64)
        table[1:, 1:, 1:] = covered
        for k in range(3):
            np.cumsum(table, axis=k, out=table)
        self.table = table.ravel()
        self.size = size

    def _cells(self, points: np.ndarray) -> np.ndarray:
        """floor((points - origin) / cell) clipped to the grid, (3, n) int64."""
        scaled = (points - self.origin) * self.inv
        np.floor(scaled, out=scaled)
        np.clip(scaled, 0.0, (self.dims - 1)[:, None].astype(np.float64), out=scaled)
        return scaled.astype(np.int64)

    def meets(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """Whether each box low..high ((3, n)) meets a covered cell (False: it meets none of the boxes)."""
        n = low.shape[1]
        cells = self._cells(np.concatenate([low, high], axis=1))
        cells[:, n:] += 1
        # (a box entirely below the origin on an axis clips to cell 0 there: the test stays conservative)
        cells[0] *= self.size[1] * self.size[2]
        cells[1] *= self.size[2]
        x, y, z = (cells[k].reshape(2, 1, 1, n) for k in range(3))  # [first, last) on each axis
        at = x + y.reshape(1, 2, 1, n) + z.reshape(1, 1, 2, n)
        value = self.table.take(at)
        return np.einsum("ijkn,ijk->n", value, SIGNS) != 0


# The summed-area table's inclusion-exclusion signs, by (x, y, z) corner (1: the range's end, 0: its start).
SIGNS = np.array([[[-1, 1], [1, -1]], [[1, -1], [-1, 1]]], dtype=np.int64)


rec = T.load(sys.argv[1])
frames = T.frames_of(rec)[: int(sys.argv[2])]
import solver.mesh_collider as M
import solver.triangle_grid as G

M._WINDOW_MOST = -1
stats = {}
cells = [0.5, 0.25, 0.125, 0.0625]
real = M.MeshCollider.collide_rows


def hooked(self, x, x_start, active, t0, t1, thickness, cf, settle=None):
    if self.deforming and len(self.mesh):
        gap = max(float(thickness) + self.offset, M.MIN_GAP)
        grid = self._grid(gap)
        lower, upper = grid.lower - gap, grid.upper + gap
        idx = (
            (M._within(x, x_start, lower, upper) & active).nonzero()[0]
            if active.dtype == bool
            else active.take(M._within(x[active], x_start[active], lower, upper).nonzero()[0])
        )
        if len(idx):
            p1, p0 = M.as_columns(x.take(idx, axis=0)), M.as_columns(x_start.take(idx, axis=0))
            lo, hi = np.minimum(p0, p1) - gap, np.maximum(p0, p1) + gap
            n = grid.triangle_count
            q, t = G.overlapping(lo, hi, grid.low[:, :n], grid.high[:, :n])
            exact = np.zeros(len(idx), bool)
            exact[q] = True
            stats.setdefault("idx", 0)
            stats["idx"] += len(idx)
            stats.setdefault("exact", 0)
            stats["exact"] += exact.sum()
            med = float(np.median(np.max(grid.high[:, :n] - grid.low[:, :n], axis=0)))
            for c in cells:
                key = ("occ", c)
                if not hasattr(self, "_o%d" % int(c * 1e4)):
                    t0_ = time.process_time()
                    setattr(self, "_o%d" % int(c * 1e4), Occupancy(grid.low[:, :n], grid.high[:, :n], c * med))
                    stats[("build", c)] = stats.get(("build", c), 0) + time.process_time() - t0_
                o = getattr(self, "_o%d" % int(c * 1e4))
                t0_ = time.process_time()
                m = o.meets(lo, hi)
                stats[("meets", c)] = stats.get(("meets", c), 0) + time.process_time() - t0_
                assert not (exact & ~m).any()
                stats[key] = stats.get(key, 0) + m.sum()
                stats[("size", c)] = o.table.size
            stats["calls"] = stats.get("calls", 0) + 1
    return real(self, x, x_start, active, t0, t1, thickness, cf, settle)


M.MeshCollider.collide_rows = hooked
T.run(rec, frames)
nf = len(frames)
print(
    "calls/frame",
    stats["calls"] / nf,
    "window verts/call",
    stats["idx"] / stats["calls"],
    "exact near",
    stats["exact"] / stats["calls"],
)
for c in cells:
    print(
        c,
        "near",
        stats[("occ", c)] / stats["calls"],
        "build ms/frame",
        1000 * stats[("build", c)] / nf,
        "meets ms/frame",
        1000 * stats[("meets", c)] / nf,
        "cells",
        stats[("size", c)],
    )
