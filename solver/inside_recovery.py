"""Cloth vertices found deep inside a closed mesh collider, pushed back out to its nearest surface.

The mesh collider's passes keep a vertex outside a closed surface by its path (a crossing) or by its
distance (within the gap of a face, pushed out); a vertex that is inside deeper than the gap with no
crossing in its path (a deforming collider that moved too fast for its triangles' linear motion, a
collider that appears or jumps around the cloth, a cloth started inside one) has no contact and stays
inside for good. Once a frame, for
closed meshes only (an open mesh or a sheet has no inside: a vertex beyond it stays where it came
from), the free vertices inside the mesh's box are tested by ray parity (a vertical ray, triangles
binned by their xy boxes, a top-left rule on shared edges so a ray through an edge or a vertex counts
one crossing), and each vertex inside goes to its nearest surface point plus the gap, outward; its
start moves with it (no velocity added). Measured in docs/design.md (round 10 (robust12); still and
rigid meshes: round 11 (needle13)).
"""

from __future__ import annotations

import weakref

import numpy as np

from .triangles import closest_points, dot

_EPS = 1e-12
_CHUNK = 256  # inside vertices per nearest-surface batch (vertices x triangles booleans)


def xy_bins(a, b, c):
    """The triangles (three (3, T)) binned by their xy boxes: (cell size, lower corner, columns, rows,
    (cell keys sorted, triangles in that order))."""
    low = np.minimum(np.minimum(a[:2], b[:2]), c[:2])
    high = np.maximum(np.maximum(a[:2], b[:2]), c[:2])
    extent = (high - low).max(axis=0)
    cell = float(np.median(extent)) if len(extent) else 1.0
    origin = low.min(axis=1)
    top = high.max(axis=1)
    cell = max(cell, float((top - origin).max()) / 512.0, 1e-9)  # (at most 512 cells a side)
    columns = int((top[0] - origin[0]) // cell) + 1
    lo = ((low - origin[:, None]) // cell).astype(np.int64)
    hi = ((high - origin[:, None]) // cell).astype(np.int64)
    span_x, span_y = hi[0] - lo[0] + 1, hi[1] - lo[1] + 1
    count = span_x * span_y
    tri = np.repeat(np.arange(len(count)), count)
    k = np.arange(len(tri)) - np.repeat(np.cumsum(count) - count, count)  # the cell's place in its box
    cx = lo[0].take(tri) + k % span_x.take(tri)
    cy = lo[1].take(tri) + k // span_x.take(tri)
    keys = cy * columns + cx
    order = np.argsort(keys, kind="stable")
    return cell, origin, columns, keys.take(order), tri.take(order)


def ray_crossings(points, a, b, c, bins=None):
    """Per point (3, M), the crossings of the vertical line through it with the triangles: (point,
    triangle, height of the crossing) for each, a shared edge or vertex counted once (top-left rule)."""
    cell, origin, columns, keys, tris = xy_bins(a, b, c) if bins is None else bins
    cx = np.floor((points[0] - origin[0]) / cell).astype(np.int64)
    cy = np.floor((points[1] - origin[1]) / cell).astype(np.int64)
    key = np.where((cx >= 0) & (cx < columns) & (cy >= 0), cy * columns + cx, -1)
    first = np.searchsorted(keys, key, side="left")
    count = np.searchsorted(keys, key, side="right") - first
    count[key < 0] = 0
    p = np.repeat(np.arange(points.shape[1]), count)
    t = tris.take(np.arange(len(p)) - np.repeat(np.cumsum(count) - count - first, count))
    px, py = points[0].take(p), points[1].take(p)
    corners = [m.take(t, axis=1) for m in (a, b, c)]
    area = (corners[1][0] - corners[0][0]) * (corners[2][1] - corners[0][1])
    area -= (corners[2][0] - corners[0][0]) * (corners[1][1] - corners[0][1])
    flip = area < 0.0  # wind every projection counter-clockwise (a face turned down covers as one turned up)
    corners[1], corners[2] = (np.where(flip, corners[2], corners[1]), np.where(flip, corners[1], corners[2]))
    inside = area != 0.0
    weights = []
    for k in range(3):
        s, e = corners[(k + 1) % 3], corners[(k + 2) % 3]  # edge opposite corner k
        ex, ey = e[0] - s[0], e[1] - s[1]
        f = ex * (py - s[1]) - ey * (px - s[0])
        top_left = (ey < 0.0) | ((ey == 0.0) & (ex > 0.0))
        inside &= (f > 0.0) | ((f == 0.0) & top_left)
        weights.append(f)
    hit = inside.nonzero()[0]
    total = np.abs(area.take(hit))
    height = sum(corners[k][2].take(hit) * weights[k].take(hit) for k in range(3)) / total
    return p.take(hit), t.take(hit), height


def inside_closed(points, a, b, c, bins=None):
    """Which points (3, M) lie inside the closed surface of triangles (a, b, c) (ray parity), and the
    distance to the nearest crossing of their vertical line (a surface point; inf: none)."""
    m = points.shape[1]
    p, _, height = ray_crossings(points, a, b, c, bins)
    above = height > points[2].take(p)
    parity = np.bincount(p, weights=above, minlength=m).astype(np.int64) % 2 == 1
    nearest = np.full(m, np.inf)
    if len(p):
        distance = np.abs(height - points[2].take(p))
        order = np.lexsort((distance, p))
        first = order.take(np.flatnonzero(np.diff(p.take(order), prepend=-1)))
        nearest[p.take(first)] = distance.take(first)
    return parity, nearest


def nearest_surface(points, reach, a, b, c):
    """Each point's (3, M) closest point on the triangles, among those whose box lies within `reach`
    (M,) of it (its nearest surface point is that close): (closest (3, M), distance (M,))."""
    low = np.minimum(np.minimum(a, b), c)
    high = np.maximum(np.maximum(a, b), c)
    best = np.full(points.shape[1], np.inf)
    closest = points.copy()
    for start in range(0, points.shape[1], _CHUNK):
        at = np.arange(start, min(start + _CHUNK, points.shape[1]))
        q = points[:, at]
        r = reach.take(at) * 1.001 + 1e-9  # (the nearest may be that very crossing: no round-off loss)
        near = np.ones((len(at), low.shape[1]), dtype=bool)
        for k in range(3):
            near &= (low[k][None] <= (q[k] + r)[:, None]) & (high[k][None] >= (q[k] - r)[:, None])
        pi, ti = near.nonzero()
        found, *_ = closest_points(q.take(pi, axis=1), a.take(ti, axis=1), b.take(ti, axis=1), c.take(ti, axis=1))
        d = found - q.take(pi, axis=1)
        distance = np.sqrt(dot(d, d))
        order = np.lexsort((distance, pi))
        pi, found, distance = pi.take(order), found.take(order, axis=1), distance.take(order)
        first = np.flatnonzero(np.diff(pi, prepend=-1))
        best[at.take(pi.take(first))] = distance.take(first)
        closest[:, at.take(pi.take(first))] = found.take(first, axis=1)
    return closest, best


def recover_inside(p1, mesh, gap: float):
    """Columns of p1 ((3, N), cloth vertices in the mesh's own frame) inside the closed `mesh` (a
    TriangleMesh) deeper than the gap: (which columns, their new places (3, k), how far each moved (3, k))."""
    empty = (np.zeros(0, dtype=np.int64), np.zeros((3, 0)), np.zeros((3, 0)))
    if not mesh.outward or len(mesh) == 0 or p1.shape[1] == 0:
        return empty
    a, b, c = mesh.a, mesh.b, mesh.c
    low = np.minimum(np.minimum(a.min(axis=1), b.min(axis=1)), c.min(axis=1))
    high = np.maximum(np.maximum(a.max(axis=1), b.max(axis=1)), c.max(axis=1))
    within = ((p1 >= (low + gap)[:, None]) & (p1 <= (high - gap)[:, None])).all(axis=0).nonzero()[0]
    if len(within) == 0:
        return empty
    points = p1.take(within, axis=1)
    inside, reach = inside_closed(points, a, b, c, _bins_of(mesh))
    which = inside.nonzero()[0]
    if len(which) == 0:
        return empty
    points, reach = points.take(which, axis=1), reach.take(which)
    closest, distance = nearest_surface(points, reach, a, b, c)
    deep = (distance > gap) & np.isfinite(distance)  # within the gap the passes push it out themselves
    which, points, closest, distance = which[deep], points[:, deep], closest[:, deep], distance[deep]
    if len(which) == 0:
        return empty
    out = (closest - points) / np.maximum(distance, _EPS)
    target = closest + out * gap
    return within.take(which), target, target - points


_BINS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # TriangleMesh -> its xy bins


def _bins_of(mesh):
    """The mesh's xy bins, made once per TriangleMesh (a deforming collider's end shape is a new one each frame)."""
    found = _BINS.get(mesh)
    if found is None:
        found = _BINS[mesh] = xy_bins(mesh.a, mesh.b, mesh.c)
    return found
