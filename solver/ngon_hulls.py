"""The triangles Blender may draw for an n-gon, beyond the fan the solver splits it into.

Blender tessellates a polygon of 5+ corners by ear clipping its projection on the polygon's normal
(mesh_tessellate.cc, BLI_polyfill), so which triangles it draws changes as the polygon bends. Every
triangle of corners lying inside the polygon at rest belongs to some such triangulation: face
self-collision keeps them all apart (each only from other polygons: see `OwnPairs`).
Built once per mesh; nothing here runs per step.
"""

from __future__ import annotations

import numpy as np

# Polygons with more corners keep their fan only (a 12-gon has 220 triangles of corners, a 32-gon 4 960).
MOST_CORNERS = 12
# (An n-gon's chord never colliding with an edge out of one of its corners, CHORD_AT_CORNER, was measured in
# docs/self-collision.md, round 19 (ngonpin22), left off and deleted in round 24 (flags24; base 7598006).)


def inside_triangles(faces, rest: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(T, 3) triangles of corners of the polygons with 5 to MOST_CORNERS corners that lie inside their
    polygon at rest (collinear corners allowed), other than the fan's (0, j, j + 1); (T,) their polygon."""
    sizes = np.asarray(faces.sizes)
    triangles, owners = [np.zeros((0, 3), dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    for k in np.unique(sizes[(sizes >= 5) & (sizes <= MOST_CORNERS)]):
        polygons = np.flatnonzero(sizes == k)
        corners = faces.corner_verts[faces.starts[polygons][:, None] + np.arange(k)]  # (P, k)
        flat = _projected(rest[corners])  # (P, k, 2), counter-clockwise
        scale = np.abs(flat - flat.mean(axis=1, keepdims=True)).max(axis=(1, 2))
        tolerance = 1e-9 * scale * scale  # for cross products and squared distances: well above rounding
        chords = _combinations(k, 2)
        chords = chords[~np.isin(chords[:, 1] - chords[:, 0], (1, k - 1))]
        is_diagonal = _diagonals(flat, chords, tolerance[:, None, None])  # (P, chords)
        column = {tuple(c): i for i, c in enumerate(chords)}
        picked = _combinations(k, 3)
        picked = picked[(picked[:, 0] != 0) | (picked[:, 2] != picked[:, 1] + 1)]
        a, b, c = flat[:, picked[:, 0]], flat[:, picked[:, 1]], flat[:, picked[:, 2]]
        keep = _cross(b - a, c - a) >= -tolerance[:, None]  # wound as the polygon (or flat)
        for i, j in ((0, 1), (1, 2), (0, 2)):
            sides = np.isin(picked[:, j] - picked[:, i], (1, k - 1))
            at = np.array([column.get((int(x), int(y)), 0) for x, y in picked[:, [i, j]]])
            keep &= sides | is_diagonal[:, at]
        owner, which = np.nonzero(keep)
        triangles.append(corners[owner[:, None], picked[which]])
        owners.append(polygons[owner])
    return np.concatenate(triangles), np.concatenate(owners)


class OwnPairs:
    """Which candidate pairs lie within one polygon of 5+ corners: its own triangles and chords against
    its own corners and chords. They pass through each other as it bends (and a triangle of a concave
    n-gon's fan lies partly outside it): never kept apart. Blender's count skips triangles sharing a
    corner; an n-gon folded into itself is all it leaves unchecked."""

    def __init__(self, faces, triangles: np.ndarray, triangle_face: np.ndarray, edges: np.ndarray, n_verts: int):
        sizes = np.asarray(faces.sizes)
        self.n = n_verts
        big = sizes >= 5
        self.any = bool(big.any())
        if not self.any:
            return
        face_of_corner = np.repeat(np.arange(len(sizes)), sizes)
        mine = big[face_of_corner]
        self.keys = np.sort(face_of_corner[mine] * n_verts + faces.corner_verts[mine])
        self.triangle_ngon = np.where(big[triangle_face], triangle_face, -1)
        # Each edge's n-gon (of its last triangle in one): the one it is a chord of, or one it is a side of.
        self.edge_ngon = np.full(len(edges), -1, dtype=np.int64)
        known = edges[:, 0] * n_verts + edges[:, 1]  # sorted
        ngon = np.flatnonzero(self.triangle_ngon >= 0)
        for i, j in ((0, 1), (1, 2), (2, 0)):
            first, second = triangles[ngon, i], triangles[ngon, j]
            at = np.searchsorted(known, np.minimum(first, second) * n_verts + np.maximum(first, second))
            self.edge_ngon[at] = self.triangle_ngon[ngon]
        self.edges = edges

    def _corner_of(self, polygon: np.ndarray, vertex: np.ndarray) -> np.ndarray:
        wanted = polygon * self.n + vertex
        at = np.minimum(np.searchsorted(self.keys, wanted), len(self.keys) - 1)
        return (polygon >= 0) & (self.keys[at] == wanted)

    def vertex_triangle(self, p: np.ndarray, t: np.ndarray) -> np.ndarray:
        if not self.any:
            return np.zeros(len(p), dtype=bool)
        return self._corner_of(self.triangle_ngon[t], p)

    def edge_edge(self, e: np.ndarray, f: np.ndarray) -> np.ndarray:
        if not self.any:
            return np.zeros(len(e), dtype=bool)
        out = np.zeros(len(e), dtype=bool)
        for mine, other in ((e, f), (f, e)):
            polygon, ends = self.edge_ngon[mine], self.edges[other]
            first, second = self._corner_of(polygon, ends[:, 0]), self._corner_of(polygon, ends[:, 1])
            out |= first & second
        return out


def _combinations(k: int, r: int) -> np.ndarray:
    """(C, r) the r-subsets of range(k), each increasing, in lexicographic order."""
    rows = np.indices((k,) * r).reshape(r, -1).T
    return rows[(np.diff(rows, axis=1) > 0).all(axis=1)]


def _projected(points: np.ndarray) -> np.ndarray:
    """(P, k, 2) polygons' corners in their plane (Newell normal), counter-clockwise."""
    following = np.roll(points, -1, axis=1)
    normal = np.cross(points, following).sum(axis=1)
    length = np.linalg.norm(normal, axis=1, keepdims=True)
    normal = np.where(length > 0, normal / np.where(length > 0, length, 1.0), [0.0, 0.0, 1.0])
    helper = np.where(np.abs(normal[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
    u = np.cross(normal, helper)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    v = np.cross(normal, u)
    return np.stack([np.einsum("pkj,pj->pk", points, u), np.einsum("pkj,pj->pk", points, v)], axis=2)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _diagonals(flat: np.ndarray, chords: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """(P, C) whether each chord runs inside its polygon: it properly crosses no side and its middle is
    inside or on the boundary (tol: (P, 1, 1), for cross products and squared distances)."""
    p, q = flat[:, chords[:, 0]], flat[:, chords[:, 1]]  # (P, C, 2)
    a, b = flat, np.roll(flat, -1, axis=1)  # sides a-b, (P, k, 2)
    P, Q, A, B = p[:, :, None], q[:, :, None], a[:, None], b[:, None]  # (P, C, k, 2)
    d1, d2 = _cross(Q - P, A - P), _cross(Q - P, B - P)
    d3, d4 = _cross(B - A, P - A), _cross(B - A, Q - A)
    crosses = (((d1 > tol) & (d2 < -tol)) | ((d1 < -tol) & (d2 > tol))) & (
        ((d3 > tol) & (d4 < -tol)) | ((d3 < -tol) & (d4 > tol))
    )
    middle = 0.5 * (p + q)[:, :, None]  # (P, C, 1, 2)
    # Crossing number of a ray along +x from the middle; on a side (within tol) counts as inside.
    up = (A[..., 1] > middle[..., 1]) != (B[..., 1] > middle[..., 1])
    dy = np.where(B[..., 1] != A[..., 1], B[..., 1] - A[..., 1], 1.0)
    at_x = A[..., 0] + (middle[..., 1] - A[..., 1]) * (B[..., 0] - A[..., 0]) / dy
    odd = np.count_nonzero(up & (at_x > middle[..., 0]), axis=2) % 2 == 1
    on_side = (_squared_distance_to_segment(middle, A, B) <= tol).any(axis=2)
    return ~crosses.any(axis=2) & (odd | on_side)


def _squared_distance_to_segment(point: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    along = b - a
    length2 = np.maximum(np.einsum("...i,...i->...", along, along), 1e-300)
    t = np.clip(np.einsum("...i,...i->...", point - a, along) / length2, 0.0, 1.0)
    gap = point - (a + along * t[..., None])
    return np.einsum("...i,...i->...", gap, gap)
