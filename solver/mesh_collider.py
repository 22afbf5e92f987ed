"""Triangle-mesh colliders: rigid (a fixed shape with a pose at the frame's start and end) or
deforming (its vertices at the frame's start and end).

Each substep, a vertex's path from its start to its end (relative to the collider) is tested
against the triangles near it (`TriangleGrid`, built once in the shape's own frame for a rigid
collider, once per frame for a deforming one):

- **Which side** comes from where the vertex was at the start of the substep, triangle by
  triangle, so zero-thickness sheets, thin walls and open meshes are never crossed. (Like
  Blender's cloth, a vertex that starts inside a closed mesh is kept on that side.)
- **Crossing** (continuous): a path that passes through a triangle is stopped at its first
  crossing and put back at the gap on the side it came from. A rigid collider's triangles are
  still in its own frame, so this is exact; a deforming triangle is tested in its own motion,
  exact for translation and first order over a substep otherwise.
- **Proximity**: a vertex ending closer than the gap (cloth thickness + offset) to a triangle's
  face, edge or corner is pushed out along the face normal or away from the edge or corner.

One contact per vertex and pass (the first crossing, else the deepest), two passes so concave
creases settle, then Coulomb friction on the motion relative to the surface.
"""

from __future__ import annotations

import math

import numpy as np

from .contact import combined_friction, coulomb_friction
from .spatial_hash import _argsort_below
from .triangle_grid import TriangleGrid
from .triangles import FACE, closest_points, cross, dot, segment_crossings

_EPS = 1e-12
_PASSES = 2
_SKIN = 0.2  # of the finest cell: Verlet-list skin (0.1 before queries were batched; 0.2-0.3 measure best now)


def _columns(rows: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(rows, dtype=np.float64).T)


class TriangleMesh:
    """A triangle soup with its broad phase (built on first use, once). Degenerate triangles are dropped."""

    def __init__(self, vertices, triangles, drop_degenerate: bool = True):
        v = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
        tris = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
        if len(tris) and (tris.min() < 0 or tris.max() >= len(v)):
            raise ValueError("triangle indices out of range")
        self.vertices = v
        a, b, c = (_columns(np.take(v, tris[:, k], axis=0)) for k in range(3))
        n = cross(b - a, c - a)
        area2 = np.sqrt(dot(n, n))
        scale = max(float(np.ptp(v, axis=0).max()) if len(v) else 0.0, 1e-9)
        keep = np.flatnonzero(np.isfinite(area2) & (area2 > 1e-12 * scale * scale) | (not drop_degenerate))
        self.triangles = tris[keep]
        self.a, self.b, self.c = a[:, keep].copy(), b[:, keep].copy(), c[:, keep].copy()
        area2 = np.maximum(area2[keep], 1e-300)
        n = n[:, keep]
        self.normals = n / area2
        ab, ac = self.b - self.a, self.c - self.a
        # Barycentrics of a point's projection: v = (p - a).gv, w = (p - a).gw.
        self.gv = cross(ac, n) / (area2 * area2)
        self.gw = cross(n, ab) / (area2 * area2)
        # Each corner's height above the opposite edge.
        self.heights = area2 / np.sqrt(
            np.maximum([dot(self.c - self.b, self.c - self.b), dot(ac, ac), dot(ab, ab)], 1e-300)
        )
        # What the broad phase's bound needs per triangle.
        self.table = np.concatenate([self.a, self.normals, self.gv, self.gw, self.heights])
        # What the rigid narrow phase needs per triangle, with the offsets that spare it `a`:
        # height n.p - n.a and barycentrics gv.p - gv.a, gw.p - gw.a.
        offsets = [dot(m, self.a)[None] for m in (self.normals, self.gv, self.gw)]
        self.fast = np.concatenate([self.normals, offsets[0], self.gv, offsets[1], self.gw, offsets[2], self.heights])
        # A closed, consistently wound surface has an outside: +1 if the normals point out, -1 if in,
        # 0 for open meshes and sheets (which keep each vertex on the side it came from).
        self.outward = _outward(self.triangles, len(v), self.a, self.b, self.c)
        self._grid: TriangleGrid | None = None
        self._grid_margin = 0.0
        self.candidates: list[_Candidates] = []  # per cloth size and gap (see MeshCollider._candidates)

    def __len__(self) -> int:
        return len(self.triangles)

    def grid(self, margin: float = 0.0) -> TriangleGrid:
        """The broad phase, boxes grown by `margin` (rebuilt only if a larger margin is asked for)."""
        if self._grid is None or margin > self._grid_margin:
            self._grid = TriangleGrid().build(self.vertices, self.triangles, margin)
            self._grid_margin = margin
        return self._grid


class _Candidates:
    """A Verlet list: each vertex's candidate triangles, found for its path's box grown by a skin
    and reused while its path stays inside that box (so a resting cloth queries nothing)."""

    def __init__(self, vertex_count: int, gap: float, skin: float, mesh: TriangleMesh | None = None):
        self.vertex_count, self.gap, self.skin = vertex_count, gap, skin
        self.mesh = mesh  # still triangles: drop pairs that cannot touch anywhere in the box
        self.low = np.full((3, vertex_count), np.inf)  # each vertex's box (empty: never queried)
        self.high = np.full((3, vertex_count), -np.inf)
        self.v = np.zeros(0, dtype=np.int64)  # pairs (vertex, triangle), sorted by vertex
        self.t = np.zeros(0, dtype=np.int64)
        # Still triangles: each pair's distance lower bound from its vertex's box centre (else -inf).
        # Distances are 1-Lipschitz, so a pair matters only while its vertex is within bound - gap of it.
        self.bound = np.zeros(0)
        self.centre = np.zeros((3, vertex_count))
        self._slot = np.full(vertex_count, -1, dtype=np.int64)
        self.queries = 0

    def pairs(self, grid: TriangleGrid, idx: np.ndarray, p0: np.ndarray, p1: np.ndarray):
        """Candidate pairs (column of p0/p1, triangle), sorted by column, for vertices idx moving p0 -> p1."""
        low, high = np.minimum(p0, p1), np.maximum(p0, p1)
        box_low, box_high = np.take(self.low, idx, axis=1), np.take(self.high, idx, axis=1)
        inside = (low >= box_low) & (high <= box_high)
        stale = ~(inside[0] & inside[1] & inside[2])
        if stale.any():
            # One query also refreshes the vertices that have used half their skin, so queries
            # (whose cost is mostly per call) come every few substeps, not every one.
            half = 0.5 * self.skin
            inside = (low >= box_low + half) & (high <= box_high - half)
            stale |= ~(inside[0] & inside[1] & inside[2])
        stale = np.flatnonzero(stale)
        if len(stale):
            self.queries += 1
            who = np.take(idx, stale)
            box_low, box_high = np.take(low, stale, axis=1) - self.skin, np.take(high, stale, axis=1) + self.skin
            self.low[:, who], self.high[:, who] = box_low, box_high
            self.centre[:, who] = (box_low + box_high) * 0.5
            q, t = grid.query_boxes((box_low - self.gap).T, (box_high + self.gap).T)
            if self.mesh is not None:
                q, t, bound = self._prune(q, t, box_low, box_high)
            else:
                bound = np.full(len(q), -np.inf)
            requeried = np.zeros(self.vertex_count, dtype=bool)
            requeried[who] = True
            keep = np.flatnonzero(~np.take(requeried, self.v))
            # Merge the new pairs (sorted among themselves) into the kept ones, still sorted by vertex.
            v = np.take(who, q)
            order = _argsort_below(v, max(self.vertex_count.bit_length(), 1))
            v, t, bound = np.take(v, order), np.take(t, order), np.take(bound, order)
            kept_v = np.take(self.v, keep)
            at = np.searchsorted(kept_v, v)
            self.v = np.insert(kept_v, at, v)
            self.t = np.insert(np.take(self.t, keep), at, t)
            self.bound = np.insert(np.take(self.bound, keep), at, bound)
        # How far each vertex's path strays from its box centre: pairs farther than that + gap wait.
        centre = np.take(self.centre, idx, axis=1)
        d0, d1 = p0 - centre, p1 - centre
        stray = np.sqrt(np.maximum(dot(d0, d0), dot(d1, d1)))
        self._slot[idx] = np.arange(len(idx))
        column = np.take(self._slot, self.v)
        self._slot[idx] = -1
        reach = np.full(len(idx) + 1, -np.inf)  # the last entry: vertices not in idx (column -1)
        reach[:-1] = stray + self.gap
        use = np.flatnonzero(self.bound < np.take(reach, column))
        return np.take(column, use), np.take(self.t, use)

    def _prune(self, q, t, box_low, box_high):
        """Keep the pairs whose triangle comes within the gap of some point of the box (still triangles)."""
        assert self.mesh is not None
        centre = np.take(box_low + box_high, q, axis=1) * 0.5
        half = np.take(box_high - box_low, q, axis=1) * 0.5
        reach = np.sqrt(dot(half, half)) + self.gap
        _, bound = _lower_bound(self.mesh, centre, t)
        keep = np.flatnonzero(bound < reach)
        return np.take(q, keep), np.take(t, keep), np.take(bound, keep)


def _lower_bound(mesh: TriangleMesh, points: np.ndarray, tri: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(|signed distance to the plane|, a lower bound of the distance to the triangle) for (3, P) points.

    The in-plane part is the distance to the half-plane beyond the edge where a barycentric is
    negative: (negative barycentric) x (that corner's height). Both are 1-Lipschitz in the point.
    """
    data = np.take(mesh.table[:15], tri, axis=1)
    e = points - data[0:3]
    h = np.abs(dot(data[3:6], e))
    v, w = dot(data[6:9], e), dot(data[9:12], e)
    heights = data[12:15]
    in_plane = np.maximum(np.maximum(-(1.0 - v - w) * heights[0], -v * heights[1]), -w * heights[2])
    np.maximum(in_plane, 0.0, out=in_plane)
    return h, np.sqrt(in_plane * in_plane + h * h)


def _outward(triangles: np.ndarray, vertex_count: int, a, b, c) -> int:
    """+1 / -1: the triangles close a volume and their normals point out / in; 0: not closed.

    Closed and consistently wound: every directed edge appears once and its reverse once.
    """
    if len(triangles) < 4:
        return 0
    heads = triangles.ravel()
    tails = triangles[:, [1, 2, 0]].ravel()
    edges = np.sort(heads * vertex_count + tails)
    if len(edges) > 1 and (np.diff(edges) == 0).any():
        return 0
    reverse = tails * vertex_count + heads
    at = np.minimum(np.searchsorted(edges, reverse), len(edges) - 1)
    if not (edges[at] == reverse).all():
        return 0
    volume = float(dot(a, cross(b, c)).sum())  # six times the signed volume
    return 0 if volume == 0.0 else (1 if volume > 0.0 else -1)


def _rotation_between(r0: np.ndarray, r1: np.ndarray, t: float) -> np.ndarray:
    """r0 rotated towards r1 by the fraction t (about the axis of r0ᵀ r1)."""
    relative = r0.T @ r1
    cos = max(-1.0, min(1.0, (float(np.trace(relative)) - 1.0) / 2.0))
    angle = math.acos(cos)
    if angle < 1e-9:
        return r0 + (r1 - r0) * t
    axis = np.array([relative[2, 1] - relative[1, 2], relative[0, 2] - relative[2, 0], relative[1, 0] - relative[0, 1]])
    norm = float(np.linalg.norm(axis))
    if norm < 1e-9:  # a half turn: fall back to interpolating the matrices
        return r0 + (r1 - r0) * t
    k = axis / norm
    skew = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    a = angle * t
    step = np.eye(3) + math.sin(a) * skew + (1 - math.cos(a)) * (skew @ skew)
    return r0 @ step


def _rigid(matrix) -> tuple[np.ndarray, np.ndarray]:
    m = np.asarray(matrix, dtype=np.float64)
    if m.shape != (4, 4):
        raise ValueError("a pose is a 4x4 matrix (own frame to world)")
    rotation = m[:3, :3]
    if not np.allclose(rotation.T @ rotation, np.eye(3), atol=1e-5):
        raise ValueError("a mesh collider's pose must be a rotation and translation (no scale)")
    return rotation.copy(), m[:3, 3].copy()


def _to_frame(rows: np.ndarray, rotation: np.ndarray, origin: np.ndarray) -> np.ndarray:
    """(3, k) columns of rotationᵀ (rows - origin) for (k, 3) rows, without BLAS."""
    d = [rows[:, j] - origin[j] for j in range(3)]
    out = np.empty((3, len(rows)))
    for i in range(3):
        np.multiply(d[0], rotation[0, i], out=out[i])
        out[i] += d[1] * rotation[1, i]
        out[i] += d[2] * rotation[2, i]
    return out


def _from_frame(columns: np.ndarray, rotation: np.ndarray, origin: np.ndarray) -> np.ndarray:
    """(k, 3) rows of rotation columns + origin."""
    out = np.empty((columns.shape[1], 3))
    for i in range(3):
        column = columns[0] * rotation[i, 0]
        column += columns[1] * rotation[i, 1]
        column += columns[2] * rotation[i, 2]
        column += origin[i]
        out[:, i] = column
    return out


class MeshCollider:
    """A triangle mesh that keeps cloth on the side each vertex comes from.

    Rigid: `mesh` is the shape in its own frame and `pose` (4x4, own frame to world, rotation and
    translation only) places it at the frame's end, `pose_start` at its start (default: `pose`);
    no pose means the shape is in world space and still. The broad phase is built once per mesh,
    so reuse one `TriangleMesh` across frames.
    Deforming: `mesh` is the world-space shape at the frame's end and `mesh_start` (same
    triangles) at its start.
    `offset` (m) is kept in addition to the cloth's thickness; `friction` None means the cloth's alone.
    """

    def __init__(self, mesh, triangles=None, *, mesh_start=None, pose=None, pose_start=None, friction=None, offset=0.0):
        self.mesh = mesh if isinstance(mesh, TriangleMesh) else TriangleMesh(mesh, triangles)
        if mesh_start is not None and not isinstance(mesh_start, TriangleMesh):
            mesh_start = np.asarray(mesh_start, dtype=np.float64).reshape(-1, 3)
            if mesh_start.shape != self.mesh.vertices.shape:
                raise ValueError("mesh_start must have the same vertices as mesh")
            mesh_start = TriangleMesh(mesh_start, self.mesh.triangles, drop_degenerate=False)
        if mesh_start is not None and pose is not None:
            raise ValueError("give a deforming collider's shapes in world space, without a pose")
        self.mesh_start = mesh_start
        self.pose: tuple[np.ndarray, np.ndarray] | None = None if pose is None else _rigid(pose)
        self.pose_start: tuple[np.ndarray, np.ndarray] | None = self.pose if pose_start is None else _rigid(pose_start)
        if pose is None and pose_start is not None:
            raise ValueError("pose_start needs a pose")
        self.friction = friction
        self.offset = float(offset)
        self._deform_grid: TriangleGrid | None = None

    # ------------------------------------------------------------------ frames and triangles

    def _pose_at(self, t: float):
        if self.pose is None or self.pose_start is None:
            return None
        (r0, o0), (r1, o1) = self.pose_start, self.pose
        if self.pose_start is self.pose:
            return r1, o1
        return _rotation_between(r0, r1, t), o0 + (o1 - o0) * t

    def _grid(self, gap: float) -> TriangleGrid:
        if self.mesh_start is None:
            return self.mesh.grid()
        if self._deform_grid is None:  # once per frame: the end shape grown by the largest motion
            motion = self.mesh.vertices - self.mesh_start.vertices
            reach = float(np.sqrt((motion * motion).sum(axis=1).max())) if len(motion) else 0.0
            self._deform_grid = TriangleGrid().build(self.mesh.vertices, self.mesh.triangles, reach)
        return self._deform_grid

    def _corners(self, tri: np.ndarray, t: float):
        """Triangle corners (three (3, P)) at time t, and (for deforming meshes) their motion per unit time."""
        end = [np.take(m, tri, axis=1) for m in (self.mesh.a, self.mesh.b, self.mesh.c)]
        if self.mesh_start is None:
            return end, None
        start = [np.take(m, tri, axis=1) for m in (self.mesh_start.a, self.mesh_start.b, self.mesh_start.c)]
        velocity = [e - s for e, s in zip(end, start, strict=True)]
        return [s + v * t for s, v in zip(start, velocity, strict=True)], velocity

    # ------------------------------------------------------------------ the substep

    def collide(self, x, x_start, active, t0: float, t1: float, thickness: float, cloth_friction: float) -> None:
        """Resolve contacts of vertices (rows of x where `active`) moving from x_start, for t0 -> t1."""
        if len(self.mesh) == 0:
            return
        gap = float(thickness) + self.offset
        grid = self._grid(gap)
        pose0, pose1 = self._pose_at(t0), self._pose_at(t1)
        idx = self._near(x, x_start, active, grid.lower - gap, grid.upper + gap, pose0, pose1)
        if len(idx) == 0:
            return
        rows1, rows0 = np.take(x, idx, axis=0), np.take(x_start, idx, axis=0)
        if pose1 is None:
            p1, p0 = _columns(rows1), _columns(rows0)
        else:
            p1, p0 = _to_frame(rows1, *pose1), _to_frame(rows0, *pose0)
        q, tri = self._candidates(len(x), gap, grid).pairs(grid, idx, p0, p1)
        if len(q) == 0:
            return
        moved = self._resolve(p0, p1, q, tri, t0, t1, gap, cloth_friction)
        if len(moved) == 0:
            return
        new = p1[:, moved]
        x[idx[moved]] = new.T if pose1 is None else _from_frame(new, *pose1)

    def _candidates(self, n: int, gap: float, grid: TriangleGrid) -> _Candidates:
        """The candidate list of a cloth of n vertices (kept on the mesh: own-frame boxes outlive a pose)."""
        for cache in self.mesh.candidates:
            if cache.vertex_count == n and cache.gap == gap:
                return cache
        cache = _Candidates(n, gap, _SKIN * grid.levels[0][1], self.mesh if self.mesh_start is None else None)
        self.mesh.candidates = [cache, *self.mesh.candidates[:7]]
        return cache

    @staticmethod
    def _near(x, x_start, active, lower, upper, pose0, pose1) -> np.ndarray:
        """Active vertices whose path's box meets the collider's box (in world space, both poses)."""
        if pose1 is not None:  # the world box around the own-frame box at both ends of the substep
            box = np.stack(np.meshgrid(*zip(lower, upper, strict=True), indexing="ij"), -1).reshape(-1, 3)
            world = np.concatenate([box @ r.T + o for r, o in (pose0, pose1)])
            lower, upper = world.min(axis=0), world.max(axis=0)
        near = active.copy()
        for j in range(3):
            near &= (np.maximum(x[:, j], x_start[:, j]) >= lower[j]) & (np.minimum(x[:, j], x_start[:, j]) <= upper[j])
        return np.flatnonzero(near)

    def _resolve(self, p0, p1, q, tri, t0, t1, gap, cloth_friction) -> np.ndarray:
        """Move p1's columns (in place) out of the candidate triangles; returns the columns moved.

        (q, tri): candidate pairs, q sorted.
        """
        mu = combined_friction(cloth_friction, self.friction)
        moved_any = np.zeros(p1.shape[1], dtype=bool)
        dt = t1 - t0
        all_q, all_tri = q, tri
        for _ in range(_PASSES):
            if self.mesh_start is None:
                hit = _rigid_contacts(p0, p1, q, tri, self.mesh, gap, mu)
            else:
                pairs = self._deforming_candidates(p0, p1, q, tri, t1, dt, gap)
                if pairs is None:
                    break
                pair_q, a, b, c, n, start, end, velocity = pairs
                hit = self._contacts(pair_q, a, b, c, n, start, end, velocity, dt, gap, mu, self.mesh.outward)
            if hit is None:
                break
            who, target, crowded = hit
            p1[:, who] = target
            moved_any[who] = True
            # The next pass re-checks only vertices that touched more than one triangle (creases, corners).
            again = np.zeros(p1.shape[1], dtype=bool)
            again[crowded] = True
            keep = np.flatnonzero(np.take(again, q))
            if len(keep) == 0:
                break
            q, tri = np.take(q, keep), np.take(tri, keep)
        moved = np.flatnonzero(moved_any)
        if len(moved):
            self._stop_before_crossings(p0, p1, all_q, all_tri, moved_any, t1, dt)
        return moved

    def _stop_before_crossings(self, p0, p1, q, tri, moved, t1, dt) -> None:
        """Keep each moved vertex's whole path clear of the candidate triangles (in place on p1).

        A push out of one triangle can carry a vertex through another where two parts of the mesh
        meet at a sharp concave crease (an ear against a head); on an open mesh the vertex would
        then stay on the wrong side for good. Such a vertex stops halfway to the first triangle its
        path (start to pushed position) crosses: still on the side it came from, and the next
        substep pushes it out to the gap.
        """
        use = np.flatnonzero(np.take(moved, q))
        q, tri = np.take(q, use), np.take(tri, use)
        start, end = np.take(p0, q, axis=1), np.take(p1, q, axis=1)
        (a, b, c), velocity = self._corners(tri, t1)
        if velocity is not None:  # the path relative to the moving triangle
            start = start + (velocity[0] + velocity[1] + velocity[2]) * (dt / 3.0)
        crossed, s = segment_crossings(start, end, a, b, c)
        if self.mesh.outward:  # out of a closed surface is always allowed
            crossed &= dot(cross(b - a, c - a), start - a) * self.mesh.outward > 0.0
        if not crossed.any():
            return
        pick = np.flatnonzero(crossed)
        pick = pick[np.lexsort((s[pick], q[pick]))]  # by vertex, its first crossing first
        pick = pick[np.flatnonzero(np.diff(q[pick], prepend=-1))]
        start, end = start[:, pick], end[:, pick]
        p1[:, q[pick]] = start + (end - start) * (0.5 * s[pick])

    def _deforming_candidates(self, p0, p1, q, tri, t1, dt, gap):
        """Pairs that can touch, with their data, for triangles moving over the substep."""
        (a, b, c), velocity = self._corners(tri, t1)
        assert velocity is not None
        n = cross(b - a, c - a)
        n /= np.maximum(np.sqrt(dot(n, n)), _EPS)
        fastest = np.maximum(
            np.maximum(dot(velocity[0], velocity[0]), dot(velocity[1], velocity[1])), dot(velocity[2], velocity[2])
        )
        slack = gap + np.sqrt(fastest) * dt
        start, end = np.take(p0, q, axis=1), np.take(p1, q, axis=1)
        h0, h1 = dot(n, start - a), dot(n, end - a)
        maybe = np.flatnonzero((h0 * h1 <= 0.0) | (np.minimum(np.abs(h0), np.abs(h1)) < slack))
        if len(maybe) == 0:
            return None
        q, tri = np.take(q, maybe), np.take(tri, maybe)
        a, b, c, n, start, end = (np.take(m, maybe, axis=1) for m in (a, b, c, n, start, end))
        velocity = [np.take(m, maybe, axis=1) for m in velocity]
        return q, a, b, c, n, start, end, velocity

    @staticmethod
    def _contacts(q, a, b, c, n, start, end, velocity, dt, gap, mu, outward=0):
        """(vertices, their new positions (3, k)) for one pass over candidate pairs, or None."""
        closest, v, w, region = closest_points(end, a, b, c)
        if velocity is not None:  # follow the triangle's motion at the contact over the substep
            u = 1.0 - v - w
            start = start + (velocity[0] * u + velocity[1] * v + velocity[2] * w) * dt
        h0, h1 = dot(n, start - a), dot(n, end - a)
        crossed, s = segment_crossings(start, end, a, b, c)
        _, v0, w0, region0 = closest_points(start - n * h0, a, b, c)  # the start's projection
        if outward:
            crossed &= h0 * outward > 0.0  # into a closed surface, not out of it
        side = _side(h0, h1, region0 == FACE, crossed, outward)
        h1 = h1 * side
        away = end - closest
        dist = np.sqrt(dot(away, away))
        use_normal = crossed | (region == FACE) | (dist < 1e-9)
        push = np.where(use_normal, gap - h1, gap - dist)
        contact = crossed | ((push > 0) & (dist < gap))
        if not contact.any():
            return None
        direction = np.where(use_normal, n * side, away)
        direction /= np.maximum(np.sqrt(dot(direction, direction)), _EPS)
        return _choose(q, contact, crossed, s, push, direction, start, end, gap, mu)


def _side(h0, h1, in_front, crossed, outward: int = 0):
    """Which side of each triangle's plane a vertex belongs on: outside a closed surface (`outward`
    ±1: the normals' sense); else where it started if it started in front of (or behind) the face or
    passed through it; else (it came round an edge) where it is."""
    if outward:
        return np.full(len(h0), float(outward))
    start_side = np.where(h0 > 0.0, 1.0, np.where(h0 < 0.0, -1.0, np.where(h1 <= 0.0, 1.0, -1.0)))
    end_side = np.where(h1 > 0.0, 1.0, np.where(h1 < 0.0, -1.0, start_side))
    return np.where(in_front | crossed, start_side, end_side)


def _choose(q, contact, crossed, s, push, direction, start, end, gap, mu):
    """One contact per vertex (the first crossing, else the deepest push), with friction.

    Returns (vertices, their new positions (3, k), vertices whose other contacts remain).
    """
    touching = np.flatnonzero(contact)  # only the contacts compete
    q, crossed, s, push = (np.take(m, touching) for m in (q, crossed, s, push))
    direction, start, end = (np.take(m, touching, axis=1) for m in (direction, start, end))
    score = np.where(crossed, 4.0 - s, np.minimum(push, 1.0))
    first = np.flatnonzero(np.diff(q, prepend=-1))
    best = np.maximum.reduceat(score, first)
    group = np.repeat(np.arange(len(first)), np.diff(first, append=len(q)))
    pick = np.flatnonzero(score == np.take(best, group))
    pick = pick[np.flatnonzero(np.diff(np.take(q, pick), prepend=-1))]  # the first such pair of each vertex
    normal, depth = np.take(direction, pick, axis=1), np.take(push, pick)
    target = np.take(end, pick, axis=1) + normal * depth
    # Vertices whose other contacts this push does not clear (creases, corners) get another pass.
    # (Every vertex here has a contact, so group g's pick is pick[g].)
    if len(pick) == len(q):
        crowded = q[:0]
    else:
        cleared = np.take(depth, group) * dot(np.take(normal, group, axis=1), direction)
        crowded = q[push - cleared > 1e-3 * gap]
    return np.take(q, pick), coulomb_friction(target, np.take(start, pick, axis=1), normal, depth, mu), crowded


def _rigid_contacts(p0, p1, q, tri, mesh: TriangleMesh, gap: float, mu: float):
    """`_contacts` for still triangles, from their table (one gather per pair): cheap rejections
    first, and the exact closest point only for pairs outside the face region (most contacts are
    on a face)."""
    data = np.take(mesh.fast, tri, axis=1)  # n, n.a, gv, gv.a, gw, gw.a, heights
    start, end = np.take(p0, q, axis=1), np.take(p1, q, axis=1)
    n = data[0:3]
    h0, h1 = dot(n, start), dot(n, end)
    h0 -= data[3]
    h1 -= data[3]
    v, w = dot(data[4:7], end), dot(data[8:11], end)
    v -= data[7]
    w -= data[11]
    u = 1.0 - v - w
    heights = data[12:15]
    in_plane = np.maximum(np.maximum(-u * heights[0], -v * heights[1]), -w * heights[2])
    np.maximum(in_plane, 0.0, out=in_plane)
    # The path crosses the triangle's plane, or ends within the gap of the triangle.
    across = (h0 * h1 <= 0.0) & ((h0 != 0.0) | (h1 != 0.0))
    in_plane *= in_plane
    maybe = across | (in_plane + h1 * h1 < gap * gap)
    if not maybe.any():
        return None
    maybe = np.flatnonzero(maybe)
    if len(maybe) < 0.75 * len(q):
        q, tri, across, h0, h1, u, v, w = (np.take(m, maybe) for m in (q, tri, across, h0, h1, u, v, w))
        n, start, end, data = (np.take(m, maybe, axis=1) for m in (n, start, end, data))
    v0, w0 = dot(data[4:7], start), dot(data[8:11], start)
    v0 -= data[7]
    w0 -= data[11]
    # Crossing the face: barycentrics are linear along the path, so interpolate them at the plane.
    t = h0 / np.where(h0 != h1, h0 - h1, 1.0)
    vc, wc = v0 + (v - v0) * t, w0 + (w - w0) * t
    crossed = across & (vc >= 0.0) & (wc >= 0.0) & (vc + wc <= 1.0)
    s = np.where(crossed, t, 0.0)
    if mesh.outward:
        crossed &= h0 * mesh.outward > 0.0  # into a closed surface, not out of it
    side = _side(h0, h1, (v0 >= 0.0) & (w0 >= 0.0) & (v0 + w0 <= 1.0), crossed, mesh.outward)
    face = (u >= 0.0) & (v >= 0.0) & (w >= 0.0)
    push = gap - h1 * side
    dist = np.abs(h1)
    direction = n * side
    edge = np.flatnonzero(~face & ~crossed)  # the exact closest point on an edge or corner
    if len(edge):
        te, ee = np.take(tri, edge), np.take(end, edge, axis=1)
        closest, *_ = closest_points(ee, *(np.take(m, te, axis=1) for m in (mesh.a, mesh.b, mesh.c)))
        away = ee - closest
        length = np.sqrt(dot(away, away))
        usable = length > 1e-9
        dist[edge] = length
        push[edge] = np.where(usable, gap - length, push[edge])
        direction[:, edge] = np.where(usable, away / np.maximum(length, _EPS), direction[:, edge])
    contact = crossed | ((push > 0) & (dist < gap))
    if not contact.any():
        return None
    return _choose(q, contact, crossed, s, push, direction, start, end, gap, mu)
