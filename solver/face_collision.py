"""Face-based self-collision (experimental): vertex–triangle and edge–edge proximity with a
continuous crossing check, between non-neighbouring parts of one cloth.

Not yet what `step` uses by default (that is vertex–vertex, self_collision.py): its broad phase
costs too much on fine meshes (see docs/self-collision.md). Put it in place for a state with
`FaceCollision.install(state, model, params)`; `step` then uses it for that state.

Narrow phase (every substep): each candidate (vertex, triangle) and (edge, edge) pair closer than
the gap is pushed apart along its contact normal, mass- and barycentric-weighted (Bridson et al.
2002, as a position correction, Jacobi-averaged per vertex, vertex–triangle contacts first, then
edge–edge ones on the corrected positions), with Coulomb friction between the layers. A vertex
that crossed a triangle during the substep (its side of the plane changed and the path it swept,
taken in the triangle's frame, pierces the face), or two edges that passed through each other
(their tetrahedron changed orientation where, to first order, they met inside both), are pushed
back to the side they came from: the continuous check that keeps fast folds from tunnelling with
no speed limit.

Exclusions: a vertex never collides with the triangles around it, an edge with the edges it
shares a vertex with, and no pair closer than `reach` at rest (the gap) collides; nor torn faces.

Broad phase: the Verlet list of vertex pairs of `SelfCollision`, with a wider radius: a vertex
within r of a triangle, or an edge within r of an edge, has a corner within r + the longest edge
of a corner of the other. Vertex pairs within gap + skin + longest edge (+ twice the substep's
largest motion relative to the mean, so that the list covers the whole path every vertex swept),
expanded to the triangles and edges around each, hold every contact within gap + skin.
"""

from __future__ import annotations

import numpy as np

from .self_collision import SelfCollision
from .triangles import FACE, closest_points, cross, dot, segment_closest, segment_crossings
from .vectors import column_mean, squared_distances


def _columns(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """x[rows] as a C-contiguous (3, k) array."""
    return np.take(x, rows, axis=0).T.copy()


def _incidence(cells: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(members, start): the cells (rows of vertex indices) around vertex k are members[start[k]:start[k + 1]]."""
    corner_vertex = cells.reshape(-1)
    order = np.argsort(corner_vertex, kind="stable")
    return order // cells.shape[1], np.searchsorted(corner_vertex[order], np.arange(n + 1))


def _around(members: np.ndarray, start: np.ndarray, vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(which, cell): every cell around each of `vertices`, with the position in `vertices` it came from."""
    begin, count = start[vertices], start[vertices + 1] - start[vertices]
    which = np.repeat(np.arange(len(vertices)), count)
    first = np.cumsum(count) - count
    return which, members[np.repeat(begin - first, count) + np.arange(int(count.sum()))]


def longest_edge(x: np.ndarray, edges: np.ndarray) -> float:
    """Length of the longest of `edges` (E, 2) at positions x; 0 without any."""
    if len(edges) == 0:
        return 0.0
    return float(np.sqrt(squared_distances(x[edges[:, 0]], x[edges[:, 1]]).max()))


class FaceCollision(SelfCollision):
    """Vertex–triangle and edge–edge self-collision over `SelfCollision`'s Verlet list of vertex pairs."""

    needs_speed_limit = False  # the continuous check replaces the speed limit
    rounds = 2  # passes over the contacts per substep

    def __init__(self, model, gap: float, skin: float | None = None):
        super().__init__(model, gap, skin)
        n = model.vertex_count
        self.triangles, self.triangle_face = model.triangles
        self.active: np.ndarray | None = None  # (T,) bool, None: every triangle
        self.vertex_triangles, self.vertex_start = _incidence(self.triangles, n)
        edges = np.concatenate([self.triangles[:, [0, 1]], self.triangles[:, [1, 2]], self.triangles[:, [2, 0]]])
        self.edges = np.unique(np.sort(edges, axis=1), axis=0) if len(edges) else np.zeros((0, 2), dtype=np.int64)
        self.vertex_edges, self.vertex_edge_start = _incidence(self.edges, n)
        self.p = self.t = self.e = self.f = np.zeros(0, dtype=np.int64)  # vertex–triangle, edge–edge candidates
        self.reach = self.gap  # pairs closer than this at rest never collide
        self.motion = 0.0  # largest motion relative to the mean in the last substep

    @staticmethod
    def install(state, model, params) -> FaceCollision:
        """Make `step` use face-based self-collision for `state` (params.self_collision must be on)."""
        collision = state.scratch["self_collision"] = FaceCollision(model, params.self_collision_gap)
        return collision

    def set_active_faces(self, intact: np.ndarray | None) -> None:
        """Collide only with triangles of faces where `intact` is True (None: all)."""
        self.active = None if intact is None else np.asarray(intact, dtype=bool)[self.triangle_face]

    def _filter(self, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Drop vertex pairs closer than `reach` at rest: all triangles around one are excluded."""
        rest = self.model.rest_positions
        keep = squared_distances(rest[i], rest[j]) >= self.reach * self.reach
        return i[keep], j[keep]

    def _found(self) -> None:
        """Vertex–triangle candidates from the vertex pairs: each vertex with the triangles around
        the other, kept when not excluded and within gap + skin at the anchors."""
        i, j = self.i, self.j
        if len(i) == 0:
            self.p = self.t = self.e = self.f = np.zeros(0, dtype=np.int64)
            return
        p, v = np.concatenate([i, j]), np.concatenate([j, i])
        which, t = _around(self.vertex_triangles, self.vertex_start, v)
        p = p[which]
        n_tri = max(len(self.triangles), 1)
        keys = np.unique(p * n_tri + t)  # a triangle is reached through up to three corners
        p, t = keys // n_tri, keys % n_tri
        tri = self.triangles[t]
        keep = (tri != p[:, None]).all(axis=1)
        if self.active is not None:
            keep &= self.active[t]
        p, t = p[keep], t[keep]
        assert self.anchor is not None
        near = self._distance2(self.anchor, p, t) < (self.gap + self.skin + 2.0 * self.motion) ** 2
        p, t = p[near], t[near]
        apart = self._distance2(self.model.rest_positions, p, t) >= self.reach * self.reach
        p, t = p[apart], t[apart]
        self.p, self.t = p, t
        self._expand_edges(i, j)

    def _expand_edges(self, i: np.ndarray, j: np.ndarray) -> None:
        """Edge–edge candidates: each edge around one vertex of a pair with each around the other."""
        which, e = _around(self.vertex_edges, self.vertex_edge_start, i)
        _, f = _around(self.vertex_edges, self.vertex_edge_start, j)
        # Pair every edge of i with every edge of j: repeat i's edges by j's edge count.
        count_j = np.diff(self.vertex_edge_start)[j]
        e_rep = np.repeat(e, count_j[which])
        start_j = np.cumsum(count_j) - count_j  # where pair k's edges of j start in f
        offset = np.arange(len(e_rep)) - np.repeat(np.cumsum(count_j[which]) - count_j[which], count_j[which])
        f_rep = f[np.repeat(start_j[which], count_j[which]) + offset]
        # Bounding spheres first (cheap), before the exact distances.
        assert self.anchor is not None
        ends = self.anchor[self.edges]  # (E, 2, 3)
        middle = 0.5 * (ends[:, 0] + ends[:, 1])
        half = 0.5 * np.sqrt(squared_distances(ends[:, 0], ends[:, 1]))
        limit = self.gap + self.skin + 2.0 * self.motion
        close = squared_distances(middle[e_rep], middle[f_rep]) < (limit + half[e_rep] + half[f_rep]) ** 2
        e_rep, f_rep = e_rep[close], f_rep[close]
        n_edges = max(len(self.edges), 1)
        keys = np.unique(np.minimum(e_rep, f_rep) * n_edges + np.maximum(e_rep, f_rep))
        e, f = keys // n_edges, keys % n_edges
        first, second = self.edges[e], self.edges[f]
        keep = (first[:, 0] != second[:, 0]) & (first[:, 0] != second[:, 1])
        keep &= (first[:, 1] != second[:, 0]) & (first[:, 1] != second[:, 1])
        e, f = e[keep], f[keep]
        near = self._edge_distance2(self.anchor, e, f) < limit * limit
        e, f = e[near], f[near]
        apart = self._edge_distance2(self.model.rest_positions, e, f) >= self.reach * self.reach
        self.e, self.f = e[apart], f[apart]

    def _edge_distance2(self, x: np.ndarray, e: np.ndarray, f: np.ndarray) -> np.ndarray:
        first, second = self.edges[e], self.edges[f]
        A, B = _columns(x, first[:, 0]), _columns(x, first[:, 1])
        C, D = _columns(x, second[:, 0]), _columns(x, second[:, 1])
        s, t = segment_closest(A, B, C, D)
        gap = (A + (B - A) * s) - (C + (D - C) * t)
        return dot(gap, gap)

    def _distance2(self, x: np.ndarray, p: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Squared distances from vertices p to triangles t at positions x."""
        tri = self.triangles[t]
        point = _columns(x, p)
        closest, _, _, _ = closest_points(point, _columns(x, tri[:, 0]), _columns(x, tri[:, 1]), _columns(x, tri[:, 2]))
        point -= closest
        return dot(point, point)

    def _radius(self, anchors: np.ndarray) -> float:
        """Vertex pairs this close hold every vertex–triangle and edge–edge pair within gap + skin
        (+ twice the substep's motion): each of those has a corner within one edge length of it."""
        return self.gap + self.skin + 2.0 * self.motion + longest_edge(anchors, self.edges)

    def refresh(self, x: np.ndarray, previous: np.ndarray | None = None) -> None:
        """Re-query where vertices moved too far (see SelfCollision.refresh), with the radius grown
        by twice the largest motion of this substep relative to the cloth's mean."""
        if previous is not None and len(x):
            swept = squared_distances(x, previous, column_mean(x) - column_mean(previous))
            self.motion = float(np.sqrt(swept.max()))
        super().refresh(x)

    def resolve(
        self, x: np.ndarray, inv_mass: np.ndarray, previous=None, friction: float = 0.0, refresh: bool = True
    ) -> int:
        """Push apart, in place, candidate pairs closer than the gap or crossed during the substep
        (from `previous` to `x`); returns how many contacts there were in the first pass.
        refresh=False: more passes in the same substep, on the same candidates."""
        previous = x if previous is None else previous
        if refresh:
            self.refresh(x, previous)
        first = 0
        for round_ in range(self.rounds):
            for find in (self._vertex_triangle, self._edge_edge):
                contacts = find(x, previous)
                if contacts is not None:
                    ends, coefficient, direction, depth, slip = contacts
                    _respond(x, inv_mass, ends, coefficient, direction, depth, slip, self.gap, friction)
                    first += ends.shape[1] if round_ == 0 else 0
        return first

    def _vertex_triangle(self, x: np.ndarray, previous: np.ndarray):
        """Vertex–triangle contacts: (ends (4, K), coefficients (4, K), direction (3, K), depth (K,),
        slip (3, K)), or None."""
        if len(self.p) == 0:
            return None
        p, t = self.p, self.t
        tri = self.triangles[t]
        a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
        P, A, B, C = _columns(x, p), _columns(x, a), _columns(x, b), _columns(x, c)
        closest, v, w, region = closest_points(P, A, B, C)
        d = P - closest
        dist2 = dot(d, d)
        # Close enough to touch, or on a face it may have crossed within this substep.
        reach = self.gap + 2.0 * self.motion
        near = np.flatnonzero((dist2 < self.gap * self.gap) | ((region == FACE) & (dist2 < reach * reach)))
        if len(near) == 0:
            return None
        p, a, b, c, v, w, region = p[near], a[near], b[near], c[near], v[near], w[near], region[near]
        P, A, B, C, d, closest = P[:, near], A[:, near], B[:, near], C[:, near], d[:, near], closest[:, near]
        dist = np.sqrt(dist2[near])
        u = 1.0 - v - w
        normal = cross(B - A, C - A)
        normal /= np.maximum(np.sqrt(dot(normal, normal)), 1e-300)
        P0, A0, B0, C0 = _columns(previous, p), _columns(previous, a), _columns(previous, b), _columns(previous, c)
        side0 = dot(cross(B0 - A0, C0 - A0), P0 - A0)  # which side of the face the vertex came from
        height = dot(normal, d)  # signed distance from the face
        # Crossed: the side changed and the path swept relative to the triangle pierces its face.
        crossed = (region == FACE) & (height * side0 < 0.0)
        if crossed.any():
            start = P0 - (A0 * u + B0 * v + C0 * w) + closest  # the start, moved by the triangle's motion there
            pierced, _ = segment_crossings(start, P, A, B, C)
            crossed &= pierced
        side = np.where(crossed | (height == 0.0), np.sign(side0), np.sign(height))  # the side it belongs on
        facing = (region == FACE) | (dist < 1e-9 * self.gap)
        direction = np.where(facing, normal * side, d / np.maximum(dist, 1e-300))
        depth = np.where(facing, height * side, dist)  # signed distance, positive on the right side
        hit = np.flatnonzero(depth < self.gap)
        if len(hit) == 0:
            return None
        ends = np.stack([p[hit], a[hit], b[hit], c[hit]])
        coefficient = np.stack([np.ones(len(hit)), -u[hit], -v[hit], -w[hit]])
        slip = (P - P0) - ((A - A0) * u + (B - B0) * v + (C - C0) * w)
        return ends, coefficient, direction[:, hit], depth[hit], slip[:, hit]

    def _edge_edge(self, x: np.ndarray, previous: np.ndarray):
        """Edge–edge contacts, in the form of `_vertex_triangle`'s, or None."""
        if len(self.e) == 0:
            return None
        first, second = self.edges[self.e], self.edges[self.f]
        a, b, c, d = first[:, 0], first[:, 1], second[:, 0], second[:, 1]
        A, B, C, D = _columns(x, a), _columns(x, b), _columns(x, c), _columns(x, d)
        s, t = segment_closest(A, B, C, D)
        gap = (A + (B - A) * s) - (C + (D - C) * t)
        dist2 = dot(gap, gap)
        inside = (s > 0.0) & (s < 1.0) & (t > 0.0) & (t < 1.0)
        reach = self.gap + 2.0 * self.motion
        near = np.flatnonzero((dist2 < self.gap * self.gap) | (inside & (dist2 < reach * reach)))
        if len(near) == 0:
            return None
        a, b, c, d, s, t, inside = a[near], b[near], c[near], d[near], s[near], t[near], inside[near]
        A, B, C, D, gap = A[:, near], B[:, near], C[:, near], D[:, near], gap[:, near]
        dist = np.sqrt(dist2[near])
        A0, B0, C0, D0 = _columns(previous, a), _columns(previous, b), _columns(previous, c), _columns(previous, d)
        normal = cross(B - A, D - C)
        normal /= np.maximum(np.sqrt(dot(normal, normal)), 1e-300)
        height = dot(normal, gap)
        # Crossed: the tetrahedron (a, b, c, d) changed orientation, and where its volume (linear
        # in time, to first order) vanished the edges met inside both.
        volume0 = dot(cross(B0 - A0, D0 - C0), C0 - A0)
        volume1 = dot(cross(B - A, D - C), C - A)
        side0 = -volume0  # its sign is the side of the second edge the first came from
        crossed = volume0 * volume1 < 0.0
        if crossed.any():
            k = np.flatnonzero(crossed)
            tau = volume0[k] / (volume0[k] - volume1[k])
            At, Bt = A0[:, k] + (A[:, k] - A0[:, k]) * tau, B0[:, k] + (B[:, k] - B0[:, k]) * tau
            Ct, Dt = C0[:, k] + (C[:, k] - C0[:, k]) * tau, D0[:, k] + (D[:, k] - D0[:, k]) * tau
            st, tt = segment_closest(At, Bt, Ct, Dt)
            meet = (At + (Bt - At) * st) - (Ct + (Dt - Ct) * tt)
            met = (dot(meet, meet) < (0.25 * self.gap) ** 2) & (st > 0) & (st < 1) & (tt > 0) & (tt < 1)
            crossed[k] = met
        side = np.where(crossed | (height == 0.0), np.sign(side0), np.sign(height))
        use_normal = crossed | (dist < 1e-9 * self.gap)
        direction = np.where(use_normal, normal * side, gap / np.maximum(dist, 1e-300))
        depth = np.where(use_normal, height * side, dist)
        hit = np.flatnonzero(depth < self.gap)
        if len(hit) == 0:
            return None
        slip = ((A - A0) * (1.0 - s) + (B - B0) * s) - ((C - C0) * (1.0 - t) + (D - D0) * t)
        ends = np.stack([a[hit], b[hit], c[hit], d[hit]])
        s, t = s[hit], t[hit]
        coefficient = np.stack([1.0 - s, s, t - 1.0, -t])
        return ends, coefficient, direction[:, hit], depth[hit], slip[:, hit]


def _respond(x, inv_mass, ends, coefficient, direction, depth, slip, gap: float, friction: float) -> None:
    """Move contacts apart to `gap`, in place: each contact is the constraint
    direction · sum_k coefficient_k x_k >= gap, projected mass-weighted (XPBD with no compliance),
    with Coulomb friction on its tangential slip; corrections are averaged per vertex."""
    w = inv_mass[ends] * coefficient  # (4, K): each end's share
    weight = (w * coefficient).sum(axis=0)
    inverse = np.where(weight > 0, 1.0 / np.where(weight > 0, weight, 1.0), 0.0)
    push = direction * ((gap - depth) * inverse)
    if friction > 0:
        # Cancel the tangential slip of this substep, up to friction x the normal correction.
        slip = slip - direction * dot(slip, direction)
        length = np.sqrt(dot(slip, slip))
        factor = np.minimum(1.0, friction * (gap - depth) / np.maximum(length, 1e-300))
        push -= slip * (factor * inverse)
    flat_ends = ends.reshape(-1)
    n = len(x)
    contacts = np.bincount(flat_ends, weights=(w != 0).reshape(-1).astype(np.float64), minlength=n)
    touched = contacts > 0
    share = w.reshape(-1)
    for axis in range(3):
        total = np.bincount(flat_ends, weights=np.tile(push[axis], 4) * share, minlength=n)
        x[touched, axis] += total[touched] / contacts[touched]
