"""Per-face lookups derived once from a model's topology: fan triangles and face-edge constraints."""

from __future__ import annotations

import numpy as np

from .topology import STRUCTURAL, Constraints, Faces


def fan_triangles(faces: Faces) -> tuple[np.ndarray, np.ndarray]:
    """Fan triangulation of every polygon from its first corner.

    Returns (triangles (T, 3) vertex indices, face (T,) index of the polygon each came from).
    """
    sizes = np.asarray(faces.sizes, dtype=np.int64)
    count = np.maximum(sizes - 2, 0)
    face = np.repeat(np.arange(len(sizes), dtype=np.int64), count)
    if len(face) == 0:
        return np.zeros((0, 3), dtype=np.int64), face
    first = np.concatenate([[0], np.cumsum(count)[:-1]])
    k = np.arange(len(face)) - first[face] + 1  # fan index 1 .. size-2 within the face
    start = faces.starts[face]
    corners = faces.corner_verts
    triangles = np.stack([corners[start], corners[start + k], corners[start + k + 1]], axis=1)
    return triangles, face


def face_edge_constraints(faces: Faces, constraints: Constraints, n_verts: int) -> np.ndarray:
    """(K,) index of the structural constraint along each corner's outgoing edge (`Faces.edges` order).

    -1 where a face has a degenerate edge (the same vertex twice), which has no constraint.
    """
    edges = np.sort(faces.edges(), axis=1)
    structural = np.nonzero(constraints.kind == STRUCTURAL)[0]
    if len(structural) == 0 or len(edges) == 0:
        return np.full(len(edges), -1, dtype=np.int64)
    pairs = np.sort(constraints.pairs[structural], axis=1)
    keys = pairs[:, 0] * n_verts + pairs[:, 1]
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    wanted = edges[:, 0] * n_verts + edges[:, 1]
    at = np.minimum(np.searchsorted(sorted_keys, wanted), len(sorted_keys) - 1)
    return np.where(sorted_keys[at] == wanted, structural[order[at]], -1).astype(np.int64)


def constraint_keys(constraints: Constraints, n_verts: int) -> np.ndarray:
    """Sorted keys low * N + high of every constrained vertex pair (topological neighbours)."""
    pairs = np.sort(constraints.pairs, axis=1)
    return np.sort(pairs[:, 0] * n_verts + pairs[:, 1])
