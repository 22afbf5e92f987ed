"""Self-collision: non-neighbour vertices closer than a gap are pushed apart.

Close pairs are found with a spatial hash (spatial_hash.py) and kept in a "Verlet list": pairs
within gap + skin, each vertex remembering where it was (relative to the cloth's mean, on which
pair distances do not depend) when its pairs were last found. Only vertices that have since moved
more than skin / 2 have their pairs found again, so no pair closer than the gap is missed, a cloth
falling as a whole never needs a query, and a settling cloth re-queries just its few moving
vertices. When much of the cloth moves, one full query is cheaper; the skin then adapts between
gap / 4 and the gap to how long full lists last, and drops to none while every substep needs a
full query anyway. Each substep then pushes every candidate pair closer than the gap apart,
mass-weighted and equal and opposite, accumulating the corrections with np.bincount and
averaging by contact count.
"""

from __future__ import annotations

import numpy as np

from .spatial_hash import SpatialHash
from .topology import has_pair
from .vectors import column_mean, squared_distances, translated


class SelfCollision:
    """Candidate pairs for one frame, refreshed where vertices have moved too far since the query."""

    # The tunnelling guard in `step`: no vertex moves more than half the gap per substep relative
    # to the cloth (vertex–vertex proximity has no continuous check).
    needs_speed_limit = True

    def __init__(self, model, gap: float, skin: float | None = None):
        self.model = model
        self.gap = float(gap)
        self.adaptive = skin is None
        self.skin = self.gap if skin is None else float(skin)
        self.age = 0  # substeps since the last full query
        self.anchor: np.ndarray | None = None  # positions (less their mean) at each vertex's last query
        self.i = self.j = np.zeros(0, dtype=np.int64)
        self.rebuilds = 0
        self.hash = SpatialHash()

    def _filter(self, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Drop topological neighbours and pairs already closer than the gap at rest (i < j)."""
        n = self.model.vertex_count
        keep = ~has_pair(self.model.neighbour_keys, i, j, n)  # not topological neighbours
        i, j = i[keep], j[keep]
        rest = self.model.rest_positions
        d = rest[i] - rest[j]
        keep = np.einsum("ij,ij->i", d, d) >= self.gap * self.gap  # not already this close at rest
        return i[keep], j[keep]

    def _query(self, x: np.ndarray, mean: np.ndarray, moved: np.ndarray | None = None) -> None:
        """All pairs (moved is None), or re-query only the pairs of the `moved` vertices.

        Anchors are positions less the cloth's `mean`."""
        self.rebuilds += 1
        y = translated(x, mean)
        if moved is None:
            self.anchor = y  # a fresh array
            self.i, self.j = self._filter(*self.hash.pairs(y, self.gap + self.skin))
            return
        assert self.anchor is not None
        index = np.flatnonzero(moved)
        self.anchor[index] = y[index]
        q, v = self.hash.near(self.anchor, index, self.gap + self.skin)
        keep = ~moved[v] | (q < v)  # both ends moved: found from both sides, keep one
        q, v = q[keep], v[keep]
        i, j = self._filter(np.minimum(q, v), np.maximum(q, v))
        stay = ~(moved[self.i] | moved[self.j])
        i, j = np.concatenate([self.i[stay], i]), np.concatenate([self.j[stay], j])
        n = len(y)
        order = np.argsort(i * n + j)  # unique keys: deterministic
        self.i, self.j = i[order], j[order]

    def set_active_faces(self, intact: np.ndarray | None) -> None:
        """Faces that collide (vertex–vertex collision has no faces: nothing to do)."""

    def refresh(self, x: np.ndarray) -> None:
        """Re-query the pairs of vertices that moved more than skin / 2 since their last query.

        Distances are compared relative to the cloth's mean position, which they do not depend
        on. A pair left out had anchors at least gap + skin apart, so while both its vertices
        stay within skin / 2 of their anchors it cannot come closer than the gap.
        """
        self.age += 1
        mean = column_mean(x)
        if self.anchor is None or len(self.anchor) != len(x):
            self._query(x, mean)
            return
        distance2 = squared_distances(x, self.anchor, mean)  # how far each moved since its query
        if self.adaptive and self.skin == 0.0:
            # Violent motion, no skin: a full query every substep, until a quarter-gap skin would
            # have lasted this one (at most a quarter of the vertices moved more than gap / 8).
            if 4 * np.count_nonzero(distance2 > (self.gap / 8) ** 2) <= len(x):
                self.skin = 0.25 * self.gap
            self.age = 0
            self._query(x, mean)
            return
        moved = distance2 > 0.25 * self.skin * self.skin
        count = int(np.count_nonzero(moved))
        if count == 0:
            return
        calm = self.adaptive and self.age >= 8 and self.skin < self.gap  # widen the skin again
        # Half of the cloth or more: one full query is cheaper (a partial query looks up the 27 cells around each
        # moved vertex, a full one 14 a vertex: at 128² 4,000 moved cost 9 ms, the full query 17; round 21).
        if calm or 2 * count > len(x):
            if self.adaptive:
                # Violent motion: full queries come every substep anyway, so make them cheap (a
                # small radius); calm motion: a wide skin lets one query last many substeps.
                factor = 0.5 if self.age <= 2 else 2.0 if self.age >= 8 else 1.0
                self.skin = float(np.clip(self.skin * factor, 0.25 * self.gap, self.gap))
                if self.age <= 1 and self.skin == 0.25 * self.gap:
                    self.skin = 0.0  # queries every substep: radius = gap is ~20% cheaper
            self.age = 0
            self._query(x, mean)
        else:
            self._query(x, mean, moved)

    def resolve(self, x: np.ndarray, inv_mass: np.ndarray, previous=None, friction: float = 0.0) -> int:
        """Push apart, in place, candidate pairs closer than the gap; returns how many were.

        (previous, friction: used by face-based collision, see face_collision.py.)"""
        self.refresh(x)
        if len(self.i) == 0:
            return 0
        i, j = self.i, self.j
        d = x[i] - x[j]
        dist = np.sqrt(np.einsum("ij,ij->i", d, d))
        hit = dist < self.gap
        if not hit.any():
            return 0
        i, j, d, dist = i[hit], j[hit], d[hit], dist[hit]
        wi, wj = inv_mass[i], inv_mass[j]
        wsum = wi + wj
        # Coincident vertices: push apart along their rest offset (never zero for kept pairs).
        direction = d
        coincident = dist < 1e-9 * self.gap
        if coincident.any():
            rest = self.model.rest_positions
            direction = np.where(coincident[:, None], rest[i] - rest[j], d)
        length = np.sqrt(np.einsum("ij,ij->i", direction, direction))
        push = np.where(wsum > 0, (self.gap - dist) / np.maximum(wsum, 1e-300), 0.0) / np.maximum(length, 1e-300)
        step = direction * push[:, None]  # (gap - dist) / (wi + wj) along the unit separation
        n = len(x)
        ends = np.concatenate([i, j])
        moves = np.concatenate([step * wi[:, None], step * -wj[:, None]])
        contacts = np.bincount(ends, minlength=n).astype(np.float64)
        touched = contacts > 0
        for axis in range(3):
            total = np.bincount(ends, weights=moves[:, axis], minlength=n)
            x[touched, axis] += total[touched] / contacts[touched]
        return len(i)
