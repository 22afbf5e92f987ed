"""A quad grid's path stencils (u-v-w along its rows and columns) as strided views of the workspace.

On a grid layout (`gridpath`), the bending paths of a quad grid are the slots (r, c-1), (r, c),
(r, c+1) and (r-1, c), (r, c), (r+1, c). Their curvature is then three multiply-adds of shifted
views of the (3, R, C) workspace, and the Jacobi scatter three shifted adds per direction, with
no index arrays: ~2x quicker than gathering the stencils and summing a padded table at 128².
The arithmetic per stencil is the one `bending` does; only the order in which a vertex's
contributions are summed differs (float32 rounding).
"""

from __future__ import annotations

import copy

import numpy as np

from .vectors import c_einsum

_EPS32 = np.array(1e-12, np.float32)
_ONE32 = np.array(1.0, np.float32)
MIN_FILL = 0.5  # strided only when the stencils fill this much of the grid's path positions


class _Direction:
    """The stencils along one grid direction: dense (3, R', C') arrays over their centres."""

    def __init__(self, along_rows: bool, rows: int, columns: int, which, flip, centre_rc, weights):
        self.along_rows = along_rows
        shape = (rows, columns - 2) if along_rows else (rows - 2, columns)
        self.shape = shape
        self.which = which  # stencils of the group in this direction
        self.flip = flip  # True where the stencil's first vertex is the later slot
        r, c = centre_rc
        self.at = (r, c - 1) if along_rows else (r - 1, c)  # each stencil's index in the dense arrays
        self.weights = self._dense3(weights)  # (first, middle, last) × centres; 0 where no stencil
        self.curvature = np.empty((3, *shape), np.float32)
        self.tmp = np.empty((3, *shape), np.float32)
        self.length = np.empty(shape, np.float32)
        self.scale = np.empty(shape, np.float32)

    def _dense3(self, values) -> np.ndarray:
        out = np.zeros((3, *self.shape), np.float32)
        if values is not None:
            self.fill(out, values)
        return out

    def fill(self, out: np.ndarray, values: np.ndarray) -> None:
        """out[(first, middle, last), centre] = values[(0, 1, 2) or (2, 1, 0), stencil] (a (3, S) array)."""
        v = values[:, self.which]
        first = np.where(self.flip, v[2], v[0])
        last = np.where(self.flip, v[0], v[2])
        r, c = self.at
        out[0, r, c], out[1, r, c], out[2, r, c] = first, v[1], last

    def views(self, grid: np.ndarray):
        """(first, middle, last) shifted views of the (3, R, C) workspace."""
        if self.along_rows:
            return grid[:, :, :-2], grid[:, :, 1:-1], grid[:, :, 2:]
        return grid[:, :-2, :], grid[:, 1:-1, :], grid[:, 2:, :]


class GridPaths:
    """A group of 3-vertex stencils laid on a quad grid's rows and columns, projected on strided views."""

    def __init__(self, directions: list[_Direction], rows: int, columns: int):
        self.directions = directions
        self.rows, self.columns = rows, columns
        self.delta = np.empty((3, rows, columns), np.float32)
        self.coefficients: list = []  # (scaled, rest, curved) per direction: `with_coefficients`

    @staticmethod
    def of(vertices: np.ndarray, weights: np.ndarray, slot_of: np.ndarray, grid) -> GridPaths | None:
        """The strided form of the stencils `vertices` with `weights` (3, S), or None if they are
        not grid paths (or too few of them to pay for dense arrays)."""
        if grid is None or vertices.shape[0] != 3 or vertices.shape[1] == 0:
            return None
        rows, columns = grid.rows, grid.columns
        if rows < 3 or columns < 3:
            return None
        r, c = np.divmod(slot_of[vertices], columns)
        straight_r = (r[0] == r[1]) & (r[2] == r[1]) & (np.abs(c[0] - c[1]) == 1) & (c[0] + c[2] == 2 * c[1])
        straight_c = (c[0] == c[1]) & (c[2] == c[1]) & (np.abs(r[0] - r[1]) == 1) & (r[0] + r[2] == 2 * r[1])
        if not (straight_r | straight_c).all():
            return None
        directions = []
        filled = 0
        for along_rows, on in ((True, straight_r), (False, straight_c)):
            which = np.flatnonzero(on)
            if not len(which):
                continue
            centre = (r[1, which], c[1, which])
            keys = centre[0] * columns + centre[1]
            if len(np.unique(keys)) != len(keys):  # two stencils at one centre: not one dense array
                return None
            flip = (c[0, which] > c[1, which]) if along_rows else (r[0, which] > r[1, which])
            directions.append(_Direction(along_rows, rows, columns, which, flip, centre, weights))
            filled += len(which)
        positions = rows * (columns - 2) + (rows - 2) * columns
        if filled < MIN_FILL * positions:
            return None
        return GridPaths(directions, rows, columns)

    def with_coefficients(self, scaled: np.ndarray, rest: np.ndarray) -> GridPaths:
        """A copy (sharing the geometry and scratch) with the group's (3, S) scaled weights and (S,)
        rest curvature in dense form: (scaled, rest, curved) per direction."""
        out = copy.copy(self)
        out.coefficients = []
        for d in self.directions:
            dense_scaled = d._dense3(scaled)
            dense_rest = np.zeros(d.shape, np.float32)
            dense_rest[d.at] = rest[d.which]
            out.coefficients.append((dense_scaled, dense_rest, bool((rest[d.which] > 1e-9).any())))
        return out

    def begin(self, buffer: np.ndarray) -> None:
        """Compute every stencil's correction into `delta` (Jacobi: reads the buffer only)."""
        grid = buffer.reshape(3, self.rows, self.columns)
        delta = self.delta
        delta.fill(0.0)
        for d, (scaled, rest, curved) in zip(self.directions, self.coefficients):
            first, middle, last = d.views(grid)
            v, tmp = d.curvature, d.tmp
            np.multiply(first, d.weights[0], out=v)
            np.multiply(middle, d.weights[1], out=tmp)
            v += tmp
            np.multiply(last, d.weights[2], out=tmp)
            v += tmp
            if curved:  # C = |v| - |v̄| along v: v (1 - |v̄| / |v|)
                c_einsum("r...,r...->...", v, v, out=d.length)
                np.sqrt(d.length, out=d.length)
                np.maximum(d.length, _EPS32, out=d.length)
                np.divide(rest, d.length, out=d.scale)
                np.subtract(_ONE32, d.scale, out=d.scale)
                v *= d.scale
            for target, k in zip(d.views(delta), range(3)):
                np.multiply(v, scaled[k], out=tmp)
                np.add(target, tmp, out=target)

    def finish(self, buffer: np.ndarray) -> None:
        buffer += self.delta.reshape(buffer.shape)
