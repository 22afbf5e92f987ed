"""Exact triangle–triangle intersection: how many pairs of a mesh's faces pass through each other.

Two triangles in general position intersect exactly when an edge of one pierces the other, so
the test is six segment–triangle tests, each made of signs of 3×3 determinants (orientations),
with no tolerance. Touching and coplanar contacts (a zero determinant) do not count: a simulated
cloth never lands on them exactly. Triangle pairs that share a vertex are skipped: neighbours
meet along an edge or corner by construction. Candidate pairs come from a spatial hash on the
triangles' centroids, so the count costs about as much as a self-collision query.
"""

from __future__ import annotations

import numpy as np

from .ear_clipping import ngon_triangles
from .spatial_hash import SpatialHash


def _orient(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Sign-carrying volume (b - a) · ((c - a) × (d - a)) for rows of (n, 3)."""
    return np.einsum("ij,ij->i", b - a, np.cross(c - a, d - a))


def _pierces(p: np.ndarray, q: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Segments p–q that pass through the interior of triangles a, b, c (strictly)."""
    sp, sq = _orient(a, b, c, p), _orient(a, b, c, q)
    across = ((sp > 0) & (sq < 0)) | ((sp < 0) & (sq > 0))
    u, v, w = _orient(p, q, a, b), _orient(p, q, b, c), _orient(p, q, c, a)
    inside = ((u > 0) & (v > 0) & (w > 0)) | ((u < 0) & (v < 0) & (w < 0))
    return across & inside


def triangles_intersect(t1: np.ndarray, t2: np.ndarray) -> np.ndarray:
    """For (n, 3, 3) corner positions of two triangle lists, which pairs intersect."""
    hit = np.zeros(len(t1), dtype=bool)
    for first, second in ((t1, t2), (t2, t1)):
        a, b, c = second[:, 0], second[:, 1], second[:, 2]
        for k in range(3):
            hit |= _pierces(first[:, k], first[:, (k + 1) % 3], a, b, c)
    return hit


def candidate_pairs(positions: np.ndarray, triangles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of triangles (i < j) close enough to intersect and sharing no vertex."""
    corners = positions[triangles]  # (T, 3, 3)
    centroid = corners.mean(axis=1)
    reach = np.linalg.norm(corners - centroid[:, None], axis=2).max() if len(triangles) else 0.0
    if not np.isfinite(reach) or len(triangles) < 2:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    i, j = SpatialHash().pairs(centroid, 2.0 * reach * (1.0 + 1e-9) + 1e-12)
    shared = (triangles[i][:, :, None] == triangles[j][:, None, :]).any(axis=(1, 2))
    return i[~shared], j[~shared]


def intersecting_pairs(positions, triangles) -> np.ndarray:
    """(K, 2) pairs (i < j) of triangles, (T, 3) vertex indices, that pass through each other and
    share no vertex."""
    positions = np.asarray(positions, dtype=np.float64)
    triangles = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    i, j = candidate_pairs(positions, triangles)
    hit = triangles_intersect(positions[triangles[i]], positions[triangles[j]])
    return np.stack([i[hit], j[hit]], axis=1)


def _share_a_vertex(faces, f: np.ndarray, g: np.ndarray, n_verts: int) -> np.ndarray:
    """For polygon index arrays f and g (`Faces`), which pairs have a corner vertex in common."""
    face_of_corner = np.repeat(np.arange(len(faces.sizes)), faces.sizes)
    keys = np.sort(face_of_corner * n_verts + faces.corner_verts)
    shared = np.zeros(len(f), dtype=bool)
    if len(keys) == 0:
        return shared
    for k in range(int(faces.sizes[g].max()) if len(g) else 0):
        has = faces.sizes[g] > k
        wanted = f[has] * n_verts + faces.corner_verts[faces.starts[g[has]] + k]
        at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        shared[np.flatnonzero(has)[keys[at] == wanted]] = True
    return shared


def drawn_triangles(model, positions) -> np.ndarray:
    """(T, 3) triangles of the cloth as Blender draws it at `positions`: a quad (corners 0 1 2 3) on
    its 0-2 diagonal unless it is folded past 90° along it, then on 1-3 (mesh_tessellate.cc,
    is_quad_flip_v3_first_third_fast); an n-gon as Blender ear-clips it at `positions` (ear_clipping.py)."""
    positions = np.asarray(positions, dtype=np.float64)
    triangles, face = model.triangles
    first = np.flatnonzero(np.asarray(model.faces.sizes)[face] == 4)[::2]  # each quad's first fan triangle
    v0, v1, v2 = (positions[triangles[first, k]] for k in range(3))
    v3 = positions[triangles[first + 1, 2]]
    first = first[np.einsum("ij,ij->i", np.cross(v1 - v0, v2 - v0), np.cross(v3 - v0, v2 - v0)) > 0.0]
    c0, c1, c2, c3 = triangles[first, 0], triangles[first, 1], triangles[first, 2], triangles[first + 1, 2]
    triangles = triangles.copy()
    triangles[first] = np.stack([c0, c1, c3], axis=1)
    triangles[first + 1] = np.stack([c1, c2, c3], axis=1)
    sizes = np.asarray(model.faces.sizes)
    for polygon in np.flatnonzero(sizes > 4):  # a measuring tool: one n-gon at a time
        corners = model.faces.corner_verts[model.faces.starts[polygon] + np.arange(sizes[polygon])]
        rows = np.searchsorted(face, polygon) + np.arange(sizes[polygon] - 2)  # its fan's rows (in face order)
        triangles[rows] = ngon_triangles(np.asarray(corners, dtype=np.int64), positions)
    return triangles


def count_drawn_intersections(model, positions) -> int:
    """How many pairs of the triangles Blender draws (`drawn_triangles`) pass through each other and
    share no vertex: what mathutils' BVHTree.overlap finds on the evaluated mesh. Unlike
    `count_self_intersections`, two polygons sharing a corner count if two of their triangles meet."""
    return len(intersecting_pairs(positions, drawn_triangles(model, positions)))


def drawn_intersecting_faces(model, positions) -> np.ndarray:
    """(K, 2) pairs (f < g) of a cloth's polygons sharing no vertex two of whose triangles as Blender draws them
    (`drawn_triangles`) pass through each other, each pair once: one part of the cloth through another, as a
    user sees it (an n-gon's own triangles through each other, or through a neighbour's, are left out)."""
    _, face = model.triangles
    pairs = intersecting_pairs(positions, drawn_triangles(model, positions))
    f, g = face[pairs[:, 0]], face[pairs[:, 1]]  # drawn_triangles keeps the rows' polygons
    f, g = np.minimum(f, g), np.maximum(f, g)
    apart = (f != g) & ~_share_a_vertex(model.faces, f, g, model.vertex_count)
    return np.unique(np.stack([f[apart], g[apart]], axis=1), axis=0).reshape(-1, 2)


def intersecting_faces(model, positions, skip_faces=None) -> np.ndarray:
    """(K, 2) pairs (f < g) of a cloth's polygons that pass through each other, each pair once;
    polygons sharing a vertex are never paired (neighbours meet by construction).

    skip_faces: optional (F,) bool, polygons to leave out (e.g. torn ones).
    """
    triangles, face = model.triangles
    if skip_faces is not None:
        keep = ~np.asarray(skip_faces, dtype=bool)[face]
        triangles, face = triangles[keep], face[keep]
    pairs = intersecting_pairs(positions, triangles)
    f, g = face[pairs[:, 0]], face[pairs[:, 1]]
    f, g = np.minimum(f, g), np.maximum(f, g)
    apart = (f != g) & ~_share_a_vertex(model.faces, f, g, model.vertex_count)
    return np.unique(np.stack([f[apart], g[apart]], axis=1), axis=0).reshape(-1, 2)


def count_self_intersections(model, positions, skip_faces=None) -> int:
    """How many pairs of a cloth's polygons pass through each other (see `intersecting_faces`)."""
    return len(intersecting_faces(model, positions, skip_faces))
