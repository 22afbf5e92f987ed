"""Which triangles share each edge of a mesh, for the sharp-edge rules (solver/edge_contacts.py).

A still mesh asks once; a deforming one (an armature, a shape key, a cloth used as a collider) is a new
shape every frame with the same triangles, so its table is kept for the last few triangle lists and only
the angles between faces are measured again each frame.
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

import numpy as np

from .caches import kept, triangles_key


class EdgeTable(NamedTuple):
    """Each edge once (by its welded ends): its first face (triangle, k: the edge opposite corner k), its
    second face (-1 where the edge has one face or more than two) and its face count (triangle numbers the
    mesh's). And, numbered as the triangles were given: each triangle's welded corner ids (T, 3) (vertices at
    one place share one), how many there are, the corners sorted by id and where each id starts there
    (`corner_order`, `corner_starts`), and each given triangle's place in the mesh (`place`, None: the same)."""

    first_t: np.ndarray
    first_k: np.ndarray
    second_t: np.ndarray
    second_k: np.ndarray
    counts: np.ndarray
    ids: np.ndarray
    places: int
    corner_order: np.ndarray
    corner_starts: np.ndarray
    place: np.ndarray | None = None


def edge_table(triangles: np.ndarray, vertices: np.ndarray) -> EdgeTable:
    """The edges of (T, 3) triangles; vertices at the same place count as one (split normals or UV seams
    are no boundary)."""
    _, weld = np.unique(vertices, axis=0, return_inverse=True)
    ids = weld.reshape(-1).take(triangles)
    t_count = len(triangles)
    first = np.concatenate([ids[:, 1], ids[:, 2], ids[:, 0]])  # edge k runs corner k+1 -> k+2
    second = np.concatenate([ids[:, 2], ids[:, 0], ids[:, 1]])
    n = int(ids.max()) + 1
    keys = np.minimum(first, second) * n + np.maximum(first, second)
    order = np.argsort(keys, kind="stable")
    keys = keys.take(order)
    starts = np.flatnonzero(np.diff(keys, prepend=-1))
    counts = np.diff(starts, append=len(keys))
    chosen = order.take(starts)
    two = counts == 2
    other = np.where(two, order.take(np.minimum(starts + 1, len(order) - 1)), -1)
    first_k, first_t = np.divmod(chosen, t_count)
    second_k, second_t = np.where(two, other // t_count, -1), np.where(two, other % t_count, -1)
    corner_order = np.argsort(ids.ravel(), kind="stable")
    corner_starts = np.flatnonzero(np.diff(ids.ravel().take(corner_order), prepend=-1))
    return EdgeTable(
        first_t, first_k, second_t, second_k, counts, ids, int(weld.max()) + 1, corner_order, corner_starts
    )


_KEPT: dict[tuple[int, int, bytes], EdgeTable] = {}  # the last few deforming meshes' tables, as given


_OF_MESH: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # TriangleMesh -> its table (edges and corners ask)


def kept_edge_table(mesh) -> EdgeTable:
    """`edge_table` of a TriangleMesh, kept for the last few triangle lists as given (a deforming mesh is a
    new TriangleMesh every frame, its triangles in a new spatial order; its welds are those of the first
    shape asked with). Its triangle numbers are the mesh's."""
    found = _OF_MESH.get(mesh)
    if found is None:
        found = _OF_MESH[mesh] = _kept_edge_table(mesh)
    return found


def _kept_edge_table(mesh) -> EdgeTable:
    count = len(mesh.triangles)
    if count == 0:
        empty = np.zeros(0, dtype=np.int64)
        return EdgeTable(empty, empty, empty, empty, empty, np.zeros((0, 3), dtype=np.int64), 0, empty, empty)
    if int(mesh.given.max()) != count - 1:  # (triangles dropped: not kept)
        return edge_table(mesh.triangles, mesh.vertices)
    place = np.empty(count, dtype=np.int64)
    place[mesh.given] = np.arange(count)  # each given triangle's place in the mesh
    given = mesh.triangles.take(place, axis=0)
    found = kept(_KEPT, triangles_key(given, len(mesh.vertices)), 8, lambda: edge_table(given, mesh.vertices))
    second = found.second_t
    return found._replace(
        first_t=place.take(found.first_t),
        second_t=np.where(second >= 0, place.take(second), -1),
        place=place,
    )
