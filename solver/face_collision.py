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
of a corner of the other. Vertex pairs within gap + skin + longest edge + a bound on the pair's
motion in the substep (see `_relative`), expanded to the triangles and edges around each, hold
every contact within gap + skin and every pair that can meet during the substep. The bound is per
pair: each vertex's own pad (its one-ring's motion relative to the cloth's median motion, rounded
up to gap / 4 × a power of two), or tighter, the difference of the two vertices' motions plus
their slacks, so neither a whipping corner nor a part of the cloth moving as a block widens the
others' search. Pairs are found level by level (`padded_pairs`); a vertex whose motion outgrows
its pad or slack is queried again.
"""

from __future__ import annotations

import numpy as np

from .self_collision import SelfCollision
from .triangles import FACE, closest_points, cross, dot, segment_closest, segment_crossings
from .vectors import squared_distances


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


def _round_up(motion: np.ndarray, unit: float) -> np.ndarray:
    """unit × the least power of two (1 at least) not below motion / unit."""
    level = np.ceil(np.log2(np.maximum(motion / unit, 1.0)))
    return unit * np.exp2(level)


def padded_pairs(hash_, points: np.ndarray, pad: np.ndarray, radius: float, unit: float, moved=None):
    """Pairs (a, b), a < b, with |points[a] - points[b]| < radius + pad[a] + pad[b]; with `moved`
    (bool per point), only the pairs with a moved end. Pads are unit × powers of two.

    Level by level: each point queries, with radius + twice its own pad, the points whose pad is
    no larger (a pair is found from its end with the larger pad), so a few fast points do not
    widen the search of the others."""
    n = len(points)
    level = np.rint(np.log2(np.maximum(pad / unit, 1.0))).astype(np.int64)
    found_a, found_b = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    levels = np.unique(level)
    for lv in levels:
        at = level == lv
        reach = radius + 2.0 * unit * 2.0 ** float(lv)
        if lv == levels[0] and moved is None:  # the lowest level: its own pairs only
            sub = np.flatnonzero(at)
            a, b = hash_.pairs(points[sub], reach)
            a, b = sub[a], sub[b]
        else:
            asking = at & moved if (moved is not None and lv == levels[0]) else at
            who = np.flatnonzero(asking)
            if len(who) == 0:
                continue
            a, b = hash_.near(points, who, reach)
            lower = level[b] < lv
            same = (level[b] == lv) & ((b > a) | ~asking[b])  # a pair of two askers once
            keep = lower | same
            if moved is not None:
                keep &= moved[a] | moved[b]
            a, b = a[keep], b[keep]
        found_a.append(a)
        found_b.append(b)
    a, b = np.concatenate(found_a), np.concatenate(found_b)
    d = points[a] - points[b]
    limit = radius + pad[a] + pad[b]
    keep = np.einsum("ij,ij->i", d, d) < limit * limit
    a, b = a[keep], b[keep]
    low, high = np.minimum(a, b), np.maximum(a, b)
    order = np.argsort(low * n + high)
    return low[order], high[order]


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
        self.moves = np.zeros(n)  # each vertex's motion in the last substep, relative to the median motion
        self.pad: np.ndarray | None = None  # the pad each vertex had at its last query
        self.delta = np.zeros((n, 3))  # each vertex's motion in the last substep
        self.spread = np.zeros(n)  # the largest motion of a one-ring neighbour relative to the vertex
        self.dq: np.ndarray | None = None  # each vertex's motion at its last query
        self.slack: np.ndarray | None = None  # bound on spread + change of motion since the last query
        self.last_moved: np.ndarray | None = None  # the vertices re-queried by the last query (None: all)
        self.needed = np.zeros(n)  # the pad each vertex needs now: its one-ring's largest move, rounded up

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
        """Candidates from the vertex pairs. After a partial query only the candidates with a
        re-queried vertex change (their filters depend on their own vertices only): those are
        found again from the vertex pairs touching a re-queried vertex's one-ring."""
        moved, self.last_moved = self.last_moved, None
        i, j = self.i, self.j
        if moved is None:
            self.p, self.t = self._vertex_triangle_candidates(i, j)
            self.e, self.f = self._expand_edges(i, j)
            return
        touched = moved.copy()
        touched[self.edges[moved[self.edges[:, 1]], 0]] = True
        touched[self.edges[moved[self.edges[:, 0]], 1]] = True
        near = touched[i] | touched[j]
        p, t = self._vertex_triangle_candidates(i[near], j[near])
        new = moved[p] | moved[self.triangles[t]].any(axis=1)
        old = ~(moved[self.p] | moved[self.triangles[self.t]].any(axis=1))
        n_tri = max(len(self.triangles), 1)
        keys = np.sort(np.concatenate([self.p[old] * n_tri + self.t[old], p[new] * n_tri + t[new]]))
        self.p, self.t = keys // n_tri, keys % n_tri
        e, f = self._expand_edges(i[near], j[near])
        new = moved[self.edges[e]].any(axis=1) | moved[self.edges[f]].any(axis=1)
        old = ~(moved[self.edges[self.e]].any(axis=1) | moved[self.edges[self.f]].any(axis=1))
        n_edges = max(len(self.edges), 1)
        keys = np.sort(np.concatenate([self.e[old] * n_edges + self.f[old], e[new] * n_edges + f[new]]))
        self.e, self.f = keys // n_edges, keys % n_edges

    def _vertex_triangle_candidates(self, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vertex–triangle candidates from vertex pairs: each vertex with the triangles around
        the other, kept when not excluded and within gap + skin (+ motion) at the anchors."""
        if len(i) == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
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
        corner = self.triangles[t, 0]  # t is in the one-ring of its corner: see _relative
        limit = self.gap + self.skin + self._relative(p, corner)
        near = self._distance2(self.anchor, p, t) < limit * limit
        p, t = p[near], t[near]
        apart = self._distance2(self.model.rest_positions, p, t) >= self.reach * self.reach
        return p[apart], t[apart]

    def _expand_edges(self, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Edge–edge candidates (e < f): each edge around one vertex of a pair with each around the other."""
        if len(i) == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
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
        # e is in i's one-ring and f in j's: see _relative.
        limit = np.repeat(self.gap + self.skin + self._relative(i, j)[which], count_j[which])
        close = squared_distances(middle[e_rep], middle[f_rep]) < (limit + half[e_rep] + half[f_rep]) ** 2
        e_rep, f_rep = e_rep[close], f_rep[close]
        n_edges = max(len(self.edges), 1)
        keys = np.unique(np.minimum(e_rep, f_rep) * n_edges + np.maximum(e_rep, f_rep))
        e, f = keys // n_edges, keys % n_edges
        first, second = self.edges[e], self.edges[f]
        keep = (first[:, 0] != second[:, 0]) & (first[:, 0] != second[:, 1])
        keep &= (first[:, 1] != second[:, 0]) & (first[:, 1] != second[:, 1])
        e, f = e[keep], f[keep]
        end = self.edges[:, 0]  # an edge is in the one-ring of its end
        limit = self.gap + self.skin + self._relative(end[e], end[f])
        near = self._edge_distance2(self.anchor, e, f) < limit * limit
        e, f = e[near], f[near]
        apart = self._edge_distance2(self.model.rest_positions, e, f) >= self.reach * self.reach
        return e[apart], f[apart]

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
        """Vertex pairs this close (+ both pads) hold every vertex–triangle and edge–edge pair
        within gap + skin (+ their motion): each of those has a corner within one edge length of it."""
        return self.gap + self.skin + longest_edge(anchors, self.edges)

    def _relative(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """A bound on the substep's motion of anything in i's one-ring relative to anything in j's,
        while no vertex has outgrown its slack: |Δq_i - Δq_j| + slack_i + slack_j."""
        assert self.dq is not None and self.slack is not None
        assert self.pad is not None
        d = self.dq[i] - self.dq[j]
        return np.minimum(
            np.sqrt(np.einsum("ij,ij->i", d, d)) + self.slack[i] + self.slack[j], self.pad[i] + self.pad[j]
        )

    def _close(self, anchors: np.ndarray, index: np.ndarray | None = None, moved: np.ndarray | None = None):
        """Vertex pairs closer than the radius + their relative motion bound (see `_relative`);
        the queried vertices take their motion and slack now."""
        unit = 0.25 * self.gap
        slack = _round_up(self.spread + 0.5 * unit, unit)
        if self.dq is None or self.slack is None or self.pad is None or index is None or len(self.dq) != len(anchors):
            self.dq, self.slack, self.pad = self.delta.copy(), slack, self.needed.copy()
        else:
            self.dq[index], self.slack[index], self.pad[index] = self.delta[index], slack[index], self.needed[index]
        radius = self._radius(anchors)
        # The pads' bound is the looser one: the hash finds a superset.
        a, b = padded_pairs(self.hash, anchors, self.pad, radius, unit, moved)
        self.last_moved = None if moved is None else moved.copy()
        limit = radius + self._relative(a, b)
        keep = squared_distances(anchors[a], anchors[b]) < limit * limit
        a, b = a[keep], b[keep]
        if moved is None:
            return a, b
        return np.where(moved[a], a, b), np.where(moved[a], b, a)  # the moved end first

    def _outgrown(self) -> np.ndarray | bool:
        """Vertices whose slack no longer covers their one-ring's spread plus their own change of
        motion since their last query."""
        if self.dq is None or self.slack is None or len(self.dq) != len(self.delta):
            return False
        assert self.pad is not None
        return (self.needed > self.pad) | (self.spread + np.sqrt(squared_distances(self.delta, self.dq)) > self.slack)

    def refresh(self, x: np.ndarray, previous: np.ndarray | None = None) -> None:
        """Re-query where vertices moved too far (see SelfCollision.refresh) or where their
        motion outgrew the slack it had at their last query."""
        n = len(x)
        self.delta = x - previous if previous is not None and n else np.zeros((n, 3))
        centred = self.delta - np.median(self.delta, axis=0) if n else self.delta
        self.moves = np.sqrt(np.einsum("ij,ij->i", centred, centred))  # any common motion would do
        self.spread = np.zeros(n)  # the largest motion of a one-ring neighbour relative to the vertex
        if len(self.edges):
            apart = np.sqrt(squared_distances(self.delta[self.edges[:, 0]], self.delta[self.edges[:, 1]]))
            np.maximum.at(self.spread, self.edges[:, 0], apart)
            np.maximum.at(self.spread, self.edges[:, 1], apart)
        ring = self.moves.copy()
        if len(self.edges):
            np.maximum.at(ring, self.edges[:, 0], self.moves[self.edges[:, 1]])
            np.maximum.at(ring, self.edges[:, 1], self.moves[self.edges[:, 0]])
        self.needed = _round_up(ring, 0.25 * self.gap)
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
        reach = self.gap + self.moves[p] + self.moves[tri].max(axis=1)
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
        moves = self.moves
        reach = self.gap + np.maximum(moves[a], moves[b]) + np.maximum(moves[c], moves[d])
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
