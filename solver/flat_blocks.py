"""Lower bounds on the distances between parts of a cloth that was flat at rest, from how evenly the
cloth between them deforms (a curvature certificate for far pairs of patches; `patch_pairs.py`).

The rest plane is cut into square blocks (`width` cells wide, every `stride` cells). In a block the cloth
is a piecewise linear map x(y) of the rest plane's points y, with gradient F_T (3 x 2) on each triangle T.
For two points a, b of the cloth whose rest points lie in the block, the straight rest segment between
them lies in the cloth (checked once per block, below), so x_b - x_a = sum over T of l_T F_T u (u the
segment's unit direction, l_T its length in T). Projected on the plane across any axis n (Π = I - n nᵀ),
with G_T = Π F_T and any G0:
    |x_b - x_a| >= |Π (x_b - x_a)| >= |y_b - y_a| (σ_min(G0) - max_T ||G_T - G0||),
so the block's factor c = σ_min(G0) - max ||G_T - G0|| (G0 the mean, n the mean normal) bounds every
distance in it from below by c times the rest distance. The projection is what lets a bent block keep a
large factor: a fold of half-angle α about an axis in the plane scales distances across it by ≥ cos α.
Wrinkles two or three cells apart at rest that come within an edge of each other (the far pairs of patches
at impact: boxes overlap wherever the cloth curves) are then ruled out without expanding their pairs.

A block's straight segments stay in the cloth when (checked once, from the rest mesh): its triangles
(those whose rest box meets the block) all have the same orientation; every boundary edge of theirs (a
directed edge by vertex ids not cancelled by its reverse: the cloth's border, holes, unwelded seams, overlaps)
that meets the block has all their corners on its inner side; and the centroid of one of them inside the
block lies in no other. Then the map is one-to-one over the convex region the block and those edges' inner
half-planes bound, which holds all of the cloth in the block (the degree of the map is 1 there).
Holes, notches, seams and overlapping layers in a block leave it without a factor (-inf).

The surface is the polygons' fan triangles. A quad's triangles on its other diagonal (kept apart too, see
`face_collision._protected_triangles`) and that diagonal are off it by at most the quad's twist: the two
triangulations agree at the corners and differ most where the diagonals cross (`twists`); a primitive's
bound is lowered by it.
"""

from __future__ import annotations

import numpy as np

_EMPTY = np.zeros(0, dtype=np.int64)


class FlatBlocks:
    """Blocks of a flat rest mesh and, per substep, a factor per block that bounds how much it shrinks distances."""

    @staticmethod
    def of_rest(rest: np.ndarray, triangles: np.ndarray, quads: np.ndarray, cell: float, width: float, stride: int):
        """The blocks of a rest mesh (N, 3) whose vertices lie in a plane, else None. triangles: the surface's
        (the fan triangles); quads: (Q, 4) corners in order of the quads whose other diagonal is kept apart too."""
        if len(triangles) == 0 or not np.isfinite(rest).all():
            return None
        centre = rest.mean(axis=0)
        _, _, axes = np.linalg.svd(rest - centre, full_matrices=False)
        if len(axes) < 3:
            return None
        error = float(np.abs((rest - centre) @ axes[2]).max())
        extent = float(np.ptp(rest, axis=0).max())
        if not error <= 1e-6 * extent:
            return None
        y = (rest - centre) @ axes[:2].T
        return FlatBlocks(y, triangles, quads, cell, width, stride, error)

    def __init__(self, y, triangles, quads: np.ndarray, cell: float, width: float, stride: int, error: float):
        """y: (N, 2) rest points in the rest plane; error: how far a rest vertex is off that plane at most."""
        self.y, self.triangles, self.quads = y, triangles, quads
        self.error = error
        self.size, self.step = width * cell, stride * cell
        # (a vertex a hair inside a block's corner: a regular grid's patch pairs fit blocks `width` cells wide)
        self.origin = y.min(axis=0) - 1e-6 * cell
        self.crossing = _crossings(y, quads)
        self._at: np.ndarray | None = None  # the positions the gradients below are of
        self._at_gradients = np.zeros((0, 9))
        self.columns = int(np.ceil((y.max(axis=0)[1] - self.origin[1]) / self.step)) + 2
        a, b, c = (y[triangles[:, k]] for k in range(3))
        first, second = b - a, c - a
        area = first[:, 0] * second[:, 1] - first[:, 1] * second[:, 0]
        self.area = area
        rest = np.stack([first, second], axis=2)  # columns: the two rest edges
        safe = np.where(np.abs(area) > 0.0, area, 1.0)
        # inverse of [[f0, s0], [f1, s1]]
        self.inverse = np.stack(
            [np.stack([rest[:, 1, 1], -rest[:, 0, 1]], 1), np.stack([-rest[:, 1, 0], rest[:, 0, 0]], 1)], 1
        )
        self.inverse /= safe[:, None, None]
        low, high = np.minimum(np.minimum(a, b), c), np.maximum(np.maximum(a, b), c)
        # Each block (i, j) spans origin + (i, j) step .. + size; its triangles: those whose box meets it.
        first_block = np.maximum(np.ceil((low - self.origin - self.size) / self.step), 0).astype(np.int64)
        last_block = np.floor((high - self.origin) / self.step).astype(np.int64)
        rows, cols = last_block[:, 0] - first_block[:, 0] + 1, last_block[:, 1] - first_block[:, 1] + 1
        per = rows * cols
        t = np.repeat(np.arange(len(triangles)), per)
        local = np.arange(int(per.sum())) - np.repeat(np.cumsum(per) - per, per)
        block = (first_block[t, 0] + local // cols[t]) * self.columns + first_block[t, 1] + local % cols[t]
        order = np.argsort(block, kind="stable")
        self.entry_triangle, self.entry_block = t[order], block[order]
        self.blocks = int(block.max()) + 1 if len(block) else 0
        self.begin = np.searchsorted(self.entry_block, np.arange(self.blocks + 1))
        self.sound = self._sound(low, high)

    def block_of(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """The block holding each rest box (K, 2), or -1."""
        index = np.floor((low - self.origin) / self.step).astype(np.int64)
        fits = (high <= self.origin + index * self.step + self.size).all(axis=1) & (index >= 0).all(axis=1)
        block = index[:, 0] * self.columns + index[:, 1]
        fits &= block < self.blocks
        return np.where(fits, block, -1)

    def _corners(self, block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        lo = self.origin + np.stack([block // self.columns, block % self.columns], axis=1) * self.step
        return lo, lo + self.size

    def _sound(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """Per block: whether straight rest segments between its points stay in the cloth (see the module)."""
        sound = np.zeros(self.blocks, dtype=bool)
        if self.blocks == 0:
            return sound
        t, block = self.entry_triangle, self.entry_block
        scale = float(np.abs(self.area).max(initial=0.0))
        positive = self.area > 1e-9 * scale
        negative = self.area < -1e-9 * scale
        some = np.flatnonzero(np.diff(self.begin))
        all_positive = np.zeros(self.blocks, dtype=bool)
        all_negative = np.zeros(self.blocks, dtype=bool)
        all_positive[some] = np.minimum.reduceat(positive[t], self.begin[some])
        all_negative[some] = np.minimum.reduceat(negative[t], self.begin[some])
        sound[some] = all_positive[some] | all_negative[some]
        sign = np.where(all_negative, -1.0, 1.0)
        tri = self.triangles
        # Boundary edges per block: directed edges (by vertex ids) of its triangles not cancelled by a reverse.
        n = len(self.y)
        entries = np.arange(len(t))
        tails = np.concatenate([tri[t, 0], tri[t, 1], tri[t, 2]])
        heads = np.concatenate([tri[t, 1], tri[t, 2], tri[t, 0]])
        owner = np.concatenate([entries, entries, entries])
        b = block[owner].astype(np.int64)
        forward = (b * n + tails) * n + heads
        backward = (b * n + heads) * n + tails
        keys, counts = np.unique(forward, return_counts=True)
        found = np.minimum(np.searchsorted(keys, backward), len(keys) - 1)
        reverse = np.where(keys[found] == backward, counts[found], 0)
        own = counts[np.searchsorted(keys, forward)]
        border = np.flatnonzero(own != reverse)
        # ... those meeting the block must have every corner of the block's triangles on their inner side.
        eb = b[border]
        p, q = self.y[tails[border]], self.y[heads[border]]
        lo, hi = self._corners(eb)
        meets = ((np.minimum(p, q) <= hi) & (lo <= np.maximum(p, q))).all(axis=1)
        eb, p, q = eb[meets], p[meets], q[meets]
        start, stop = self.begin[eb], self.begin[eb + 1]
        per = stop - start
        which = np.repeat(np.arange(len(eb)), per)
        slot = np.repeat(start - np.cumsum(per) + per, per) + np.arange(int(per.sum()))
        corners = tri[t[slot]]
        span = float(np.ptp(self.y, axis=0).max()) if len(self.y) else 0.0
        tolerance = 1e-9 * span * span
        d = q[which] - p[which]
        for k in range(3):
            r = self.y[corners[:, k]] - p[which]
            side = (d[:, 0] * r[:, 1] - d[:, 1] * r[:, 0]) * sign[eb[which]]
            sound[eb[which[side < -tolerance]]] = False
        # ... and one triangle inside the block whose centroid no other triangle of the block holds.
        inside = np.zeros(len(t), dtype=bool)
        lo, hi = self._corners(block)
        inside = ((low[t] > lo) & (high[t] < hi)).all(axis=1)
        first_inside = np.full(self.blocks, -1)
        picks = np.flatnonzero(inside)[::-1]
        first_inside[block[picks]] = picks  # the first entry inside, per block
        sound &= first_inside >= 0
        centre = np.zeros((self.blocks, 2))
        chosen = first_inside[sound]
        centre[sound] = self.y[tri[t[chosen]]].mean(axis=1)
        holders = self._holds(centre[block], t)
        held = np.bincount(block, weights=holders.astype(np.float64), minlength=self.blocks)
        sound &= held == 1.0
        return sound

    def _holds(self, point: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Whether triangle t[k] holds point[k] (closed, with a margin: a point near an edge counts twice)."""
        tri = self.triangles[t]
        a, b, c = (self.y[tri[:, k]] for k in range(3))
        scale = np.abs(self.area[t]) + 1e-300

        def cross(u, v, w):
            return ((v[:, 0] - u[:, 0]) * (w[:, 1] - u[:, 1]) - (v[:, 1] - u[:, 1]) * (w[:, 0] - u[:, 0])) * np.sign(
                self.area[t]
            )

        margin = -1e-6 * scale
        return (cross(a, b, point) >= margin) & (cross(b, c, point) >= margin) & (cross(c, a, point) >= margin)

    def twists(self, x: np.ndarray) -> np.ndarray:
        """Per quad: how far its other diagonal's triangles are off the surface at positions x (inf: a quad
        not convex at rest). The two triangulations agree at the corners, so they differ most where the
        diagonals cross: |x on c0 -> c2 there - x on c1 -> c3 there|."""
        q = self.quads
        if len(q) == 0:
            return np.zeros(0)
        s, r = self.crossing[:, :1], self.crossing[:, 1:]
        apart = x[q[:, 0]] + s * (x[q[:, 2]] - x[q[:, 0]]) - x[q[:, 1]] - r * (x[q[:, 3]] - x[q[:, 1]])
        twist = np.sqrt(np.einsum("ij,ij->i", apart, apart)) * (1 + 1e-9)
        return np.where(np.isnan(s[:, 0]), np.inf, twist)

    def factors(self, x: np.ndarray, blocks: np.ndarray) -> np.ndarray:
        """For each of `blocks` (unique ids >= 0): c such that any two points of the cloth at positions x
        whose rest points lie in the block are at least c times their rest distance apart (-inf: none).
        (The spread is bounded in the Frobenius norm, which is at least the spectral one.)"""
        out = np.full(len(blocks), -np.inf)
        good = np.flatnonzero(self.sound[blocks])
        if len(good) == 0:
            return out
        which = blocks[good]
        start, stop = self.begin[which], self.begin[which + 1]
        per = stop - start
        slots = np.repeat(start - np.cumsum(per) + per, per) + np.arange(int(per.sum()))
        if self._at is not x:  # once per positions (a query asks for blocks up to three times)
            self._at, self._at_gradients = x, self._gradients(x)
        rows = self._at_gradients[self.entry_triangle[slots]]  # (K, 9): F row-major, then the normal
        first = np.cumsum(per) - per
        sums = np.add.reduceat(rows, first, axis=0)
        axis = sums[:, 6:]
        length = np.sqrt(np.einsum("ij,ij->i", axis, axis))
        axis /= np.where(length > 0.0, length, 1.0)[:, None]
        mean = sums[:, :6] / per[:, None]
        k = np.repeat(np.arange(len(which)), per)
        spread = rows[:, :6]
        spread -= mean[k]
        along = axis[k]
        # |Π D|_F² = |D|_F² - |nᵀ D|² for D = F_T - mean (column j of a row-major 3 x 2 at j, 2 + j, 4 + j)
        square = np.einsum("ij,ij->i", spread, spread)
        for j in (0, 1):
            normal_part = np.einsum("ij,ij->i", spread[:, j::2], along)
            square -= normal_part * normal_part
        largest = np.sqrt(np.maximum(np.maximum.reduceat(square, first), 0.0)) * (1 + 1e-9) + 1e-12
        # G0 = Π mean: its smallest singular value
        M = mean.reshape(-1, 3, 2)
        M = M - axis[:, :, None] * np.einsum("ki,kij->kj", axis, M)[:, None, :]
        factor = _smallest_singular(M.reshape(-1, 6)) - largest
        factor[length == 0.0] = -np.inf
        out[good] = factor
        return out

    def _gradients(self, x: np.ndarray) -> np.ndarray:
        """(T, 9) per surface triangle at positions x: its gradient F (3 x 2, row-major) on the rest plane and
        its normal (area-weighted, turned to the rest orientation)."""
        tri = self.triangles
        a = x[tri[:, 0]]
        first, second = x[tri[:, 1]] - a, x[tri[:, 2]] - a
        inverse = self.inverse
        out = np.empty((len(tri), 9))
        for i in range(3):
            out[:, 2 * i] = first[:, i] * inverse[:, 0, 0] + second[:, i] * inverse[:, 1, 0]
            out[:, 2 * i + 1] = first[:, i] * inverse[:, 0, 1] + second[:, i] * inverse[:, 1, 1]
        out[:, 6:] = np.cross(first, second) * np.sign(self.area)[:, None]
        return out


def _crossings(y: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """(Q, 2) where each quad's diagonals cross at rest: the fractions s along c0 -> c2 and r along c1 -> c3
    (nan where they do not cross inside both: a quad not convex at rest)."""
    if len(quads) == 0:
        return np.zeros((0, 2))
    a, b, c, d = (y[quads[:, k]] for k in range(4))
    u, v, w = c - a, d - b, b - a
    det = u[:, 0] * (-v[:, 1]) - u[:, 1] * (-v[:, 0])
    safe = np.where(det != 0.0, det, 1.0)
    s = (w[:, 0] * (-v[:, 1]) - w[:, 1] * (-v[:, 0])) / safe
    r = (u[:, 0] * w[:, 1] - u[:, 1] * w[:, 0]) / safe
    inside = (det != 0.0) & (s >= 0.0) & (s <= 1.0) & (r >= 0.0) & (r <= 1.0)
    return np.where(inside[:, None], np.stack([s, r], axis=1), np.nan)


def _gram(M: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Entries (a, b, c) of MᵀM = [[a, b], [b, c]] for (K, 6) rows of 3 x 2 matrices."""
    M = M.reshape(-1, 3, 2)
    a = np.einsum("ki,ki->k", M[:, :, 0], M[:, :, 0])
    b = np.einsum("ki,ki->k", M[:, :, 0], M[:, :, 1])
    c = np.einsum("ki,ki->k", M[:, :, 1], M[:, :, 1])
    return a, b, c


def _smallest_singular(M: np.ndarray) -> np.ndarray:
    a, b, c = _gram(M)
    # λ_min = det / λ_max is accurate where the difference form cancels
    largest = 0.5 * (a + c) + np.sqrt(0.25 * (a - c) ** 2 + b * b)
    det = np.maximum(a * c - b * b, 0.0)
    return np.sqrt(det / np.where(largest > 0.0, largest, 1.0)) * (1 - 1e-9)
