"""A mesh collider whose topology changed between two frames: where its new shape starts the frame.

A collider's evaluated mesh can change its vertex and triangle count between frames (a keyed Decimate
ratio, an animated Remesh voxel size or Array count, a Build modifier, Geometry Nodes adding points).
Its vertices at the frame's end then have no counterpart at the frame's start, so it was taken as still
in its new shape: a new part appearing round cloth lying there (a box added by the Array under a cloth on
the floor) left the cloth inside it or its edges through it, for good (the side rule keeps each vertex on
the side it starts the substep on). Instead, each new vertex starts the frame at its closest point on the
old surface, and the collider deforms from there to the new shape over the frame: the new part grows out
of the old one and sweeps the cloth ahead of it, which stays outside (docs/design.md, issue 11, round 17
(topo20)). A vertex farther than `REACH` times the old shape's size from it starts where it ends (a part
appearing far from the old shape came from nowhere near it).
"""

from __future__ import annotations

import numpy as np

from .triangles import closest_points, dot

REACH = 1.0  # how far from the old shape a new vertex is matched, in its box's diagonals
_PAIRS = 4_000_000  # candidate pairs per query at most (a query returning more is split)
_START = 0.25  # the first radius looked over, in median triangle sizes (a remeshed surface is near the old)


def _pairs(grid, points: np.ndarray, radius: np.ndarray, at: np.ndarray):
    """Candidate (point, triangle) pairs for points[at] within radius[at], queried in parts small enough."""
    q, t = grid.query_boxes(points[at] - radius[at, None], points[at] + radius[at, None])
    if len(q) <= _PAIRS or len(at) == 1:
        return at.take(q), t
    half = len(at) // 2
    q0, t0 = _pairs(grid, points, radius, at[:half])
    q1, t1 = _pairs(grid, points, radius, at[half:])
    return np.concatenate((q0, q1)), np.concatenate((t0, t1))


def closest_on(mesh, points: np.ndarray, reach: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each point's ((N, 3) rows) closest point on `mesh` (a TriangleMesh, in the points' frame) and whether
    it was found within `reach` (default: REACH times the mesh's box diagonal); the rest are their own."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    closest = points.copy()
    found = np.zeros(len(points), dtype=bool)
    if len(mesh) == 0 or len(points) == 0:
        return closest, found
    grid = mesh.grid()
    lower = np.minimum(np.minimum(mesh.a, mesh.b), mesh.c).min(axis=1)
    upper = np.maximum(np.maximum(mesh.a, mesh.b), mesh.c).max(axis=1)
    size = float(np.linalg.norm(upper - lower))
    limit = REACH * size if reach is None else float(reach)
    # Points farther than the limit from the mesh's box are not looked for.
    outside = np.maximum(np.maximum(lower - points, points - upper), 0.0)
    todo = (dot(outside.T, outside.T) <= limit * limit).nonzero()[0]
    radius = np.full(len(points), max(_START * mesh.cell, 1e-9))
    best = np.full(len(points), np.inf)
    corners = np.ascontiguousarray(np.concatenate((mesh.a, mesh.b, mesh.c)).T)  # (T, 9): one gather per pair
    while len(todo):
        q, t = _pairs(grid, points, radius, todo)
        if len(q):
            p = points.take(q, axis=0).T
            rows = corners.take(t, axis=0).T
            near, *_ = closest_points(p, rows[0:3], rows[3:6], rows[6:9])
            d = near - p
            distance = dot(d, d)
            order = np.lexsort((distance, q))
            q = q.take(order)
            first = order.take(np.flatnonzero(np.diff(q, prepend=-1)))  # each point's nearest pair
            who = q.take(np.flatnonzero(np.diff(q, prepend=-1)))
            nearest = np.sqrt(distance.take(first))
            better = nearest < best.take(who)
            who, first = who[better], first[better]
            best[who] = nearest[better]
            closest[who] = near.take(first, axis=1).T
        # Exact once the nearest found lies within the radius looked over (any nearer triangle's box is in it).
        done = best.take(todo) <= radius.take(todo)
        found[todo[done]] = True
        todo = todo[~done]
        radius[todo] *= 2.0  # (at limit + size every triangle is a candidate: it ends there)
    reached = np.isfinite(best) & (best <= limit)
    found &= reached
    closest[~found] = points[~found]
    return closest, found


def same_faces(old, new) -> bool:
    """Whether `new` (a TriangleMesh with as many vertices as `old`) is `old` deformed, vertex by vertex: most of
    the triangles given in both lists (by their place in it, `TriangleMesh.given`; the degenerate ones dropped
    either side not compared) join the same three vertices. A deformation keeps them all but a quad whose
    diagonal the triangulation flipped (Blender splits a concave quad the other way); a shape remeshed to the same
    vertex count, or its vertices sorted anew (Geometry Nodes' Sort Elements), keeps next to none."""
    if len(old.given) == 0 or len(new.given) == 0:
        return len(old.given) == len(new.given)
    if np.array_equal(old.given, new.given) and np.array_equal(old.triangles, new.triangles):
        return True  # (their spatial order kept too: the common case, one comparison)
    size = int(max(old.given.max(), new.given.max())) + 1
    rows = np.full((2, size, 3), -1, dtype=np.int64)
    rows[0, old.given] = old.triangles
    rows[1, new.given] = new.triangles
    both = (rows[0, :, 0] >= 0) & (rows[1, :, 0] >= 0)
    kept = int((rows[0, both] == rows[1, both]).all(axis=1).sum())
    return 2 * kept >= int(both.sum()) and kept > 0


def matched_start(old, old_pose: np.ndarray | None, new_vertices: np.ndarray) -> np.ndarray:
    """Where a collider's new vertices ((N, 3), world space at the frame's end) start the frame: their
    closest points on its old shape `old` (a TriangleMesh, placed in the world by the 4x4 rigid `old_pose`,
    None: in world space already), or where they end when far from it (`closest_on`)."""
    points = np.asarray(new_vertices, dtype=np.float64).reshape(-1, 3)
    if old_pose is None:
        return closest_on(old, points)[0]
    rotation, origin = old_pose[:3, :3], old_pose[:3, 3]
    local = (points - origin) @ rotation  # rotation.T applied to rows
    near, found = closest_on(old, local)
    start = near @ rotation.T + origin
    start[~found] = points[~found]
    return start
