"""Distance constraints from any polygon mesh: structural, shear and bend pairs.

All work here is vectorised and runs once per mesh topology, never per step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

STRUCTURAL, SHEAR, BEND = 0, 1, 2
KIND_NAMES = ("structural", "shear", "bend")

# Two edges at a vertex continue "straight" when the angle between them is at least ~135 degrees.
_STRAIGHT_COS = -0.7


@dataclass(frozen=True)
class Faces:
    """Polygons as flat corner lists, the layout Blender's `foreach_get` gives."""

    corner_verts: np.ndarray  # (K,) vertex index of every face corner
    starts: np.ndarray  # (F,) first corner of each face
    sizes: np.ndarray  # (F,) corner count of each face

    @staticmethod
    def from_any(faces) -> Faces:
        """Accept a Faces, a list of vertex-index sequences, or an (F, k) array."""
        if isinstance(faces, Faces):
            return faces
        if faces is None:
            faces = []
        if isinstance(faces, np.ndarray) and faces.ndim == 2:
            sizes = np.full(len(faces), faces.shape[1], dtype=np.int64)
            corners = faces.astype(np.int64).reshape(-1)
        else:
            faces = [tuple(int(v) for v in f) for f in faces]
            sizes = np.array([len(f) for f in faces], dtype=np.int64)
            corners = np.array([v for f in faces for v in f], dtype=np.int64)
        starts = np.zeros(len(sizes), dtype=np.int64)
        if len(sizes):
            starts[1:] = np.cumsum(sizes)[:-1]
        return Faces(corners, starts, sizes)

    def __len__(self) -> int:
        return len(self.sizes)

    def corner(self, k: int, mask: np.ndarray) -> np.ndarray:
        """Vertex at corner `k` (wrapping) of every face selected by `mask`."""
        return self.corner_verts[self.starts[mask] + k % self.sizes[mask]]

    def edges(self) -> np.ndarray:
        """(K, 2) directed boundary edges of every face, in corner order."""
        if len(self.corner_verts) == 0:
            return np.zeros((0, 2), dtype=np.int64)
        face_of_corner = np.repeat(np.arange(len(self.sizes)), self.sizes)
        local = np.arange(len(self.corner_verts)) - self.starts[face_of_corner]
        nxt = self.starts[face_of_corner] + (local + 1) % self.sizes[face_of_corner]
        return np.stack([self.corner_verts, self.corner_verts[nxt]], axis=1)

    def areas(self, positions: np.ndarray) -> np.ndarray:
        """Area of every polygon (fan triangulation from its first corner)."""
        area = np.zeros(len(self.sizes))
        if len(self.sizes) == 0:
            return area
        for k in range(1, int(self.sizes.max()) - 1):
            has = self.sizes > k + 1
            a = positions[self.corner(0, has)]
            b = positions[self.corner(k, has)]
            c = positions[self.corner(k + 1, has)]
            area[has] += 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1)
        return area


def _unique_pairs(pairs: np.ndarray) -> np.ndarray:
    """Sorted (low, high) pairs without duplicates or self-pairs."""
    if len(pairs) == 0:
        return np.zeros((0, 2), dtype=np.int64)
    pairs = np.sort(pairs.astype(np.int64), axis=1)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    if len(pairs) == 0:
        return np.zeros((0, 2), dtype=np.int64)
    n = int(pairs.max()) + 1  # one int64 key per pair: ~5x quicker than np.unique(axis=0) on rows
    keys = np.unique(pairs[:, 0] * n + pairs[:, 1])
    return np.stack([keys // n, keys % n], 1)


def _pair_keys(pairs: np.ndarray, n: int) -> np.ndarray:
    return pairs[:, 0] * n + pairs[:, 1]


def has_pair(keys: np.ndarray, a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """Whether each vertex pair (a, b), in either order, is among the sorted `keys` (low * n + high)."""
    key = np.minimum(a, b) * n + np.maximum(a, b)
    if len(keys) == 0:
        return np.zeros(len(key), dtype=bool)
    at = np.minimum(np.searchsorted(keys, key), len(keys) - 1)
    return keys[at] == key


def adjacency(n: int, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR (indptr, neighbours) of the undirected edges `pairs`: vertex v's are neighbours[indptr[v]:indptr[v + 1]]."""
    src = np.concatenate([pairs[:, 0], pairs[:, 1]])
    dst = np.concatenate([pairs[:, 1], pairs[:, 0]])
    neighbours = dst[np.argsort(src, kind="stable")]
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(np.bincount(src, minlength=n))
    return indptr, neighbours


def components(n: int, pairs: np.ndarray) -> np.ndarray:
    """(n,) label of each vertex's connected component over `pairs` (the smallest vertex index in it)."""
    label = np.arange(n)
    if len(pairs) == 0:
        return label
    a, b = pairs[:, 0], pairs[:, 1]
    while True:
        low = np.minimum(label[a], label[b])
        new = label.copy()
        np.minimum.at(new, a, low)  # build time only
        np.minimum.at(new, b, low)
        new = new[new]  # pointer jumping
        if np.array_equal(new, label):
            return label
        label = new


def _without(pairs: np.ndarray, existing: np.ndarray, n: int) -> np.ndarray:
    if len(pairs) == 0 or len(existing) == 0:
        return pairs
    return pairs[~np.isin(_pair_keys(pairs, n), _pair_keys(existing, n))]


def structural_pairs(n_verts: int, edges, faces: Faces) -> np.ndarray:
    """Mesh edges: the given edge list plus every face's boundary edges."""
    given = np.asarray(edges if edges is not None else np.zeros((0, 2)), dtype=np.int64).reshape(-1, 2)
    return _unique_pairs(np.concatenate([given, faces.edges()]))


def shear_pairs(faces: Faces) -> np.ndarray:
    """Both diagonals of every quad."""
    quad = faces.sizes == 4
    a, b, c, d = (faces.corner(k, quad) for k in range(4))
    return _unique_pairs(np.concatenate([np.stack([a, c], 1), np.stack([b, d], 1)]))


def _triangle_edge_mask(structural: np.ndarray, faces: Faces, n: int) -> np.ndarray:
    tri_edges = _unique_pairs(faces.edges()[np.repeat(faces.sizes == 3, faces.sizes)])
    return np.isin(_pair_keys(structural, n), _pair_keys(tri_edges, n))


def _path_bend_pairs(positions: np.ndarray, structural: np.ndarray) -> np.ndarray:
    """Skip-one pairs (u, w) of the straight paths u-v-w (`path_bend_triples`)."""
    triples = path_bend_triples(positions, structural)
    return _unique_pairs(triples[:, [0, 2]]) if len(triples) else np.zeros((0, 2), dtype=np.int64)


def path_bend_triples(positions: np.ndarray, structural: np.ndarray) -> np.ndarray:
    """(P, 3) paths u-v-w of two edges that continue straight through v, each once (u < w).

    At every vertex, each incident edge is paired with its most opposite incident edge; a pair
    is kept when the choice is mutual and the angle is at least ~135 degrees. On a grid this
    gives exactly the over-one-step neighbours, and on a rope it follows the rope.
    """
    if len(structural) == 0:
        return np.zeros((0, 3), dtype=np.int64)
    # Half-edges (v -> other), grouped by v.
    v = np.concatenate([structural[:, 0], structural[:, 1]])
    other = np.concatenate([structural[:, 1], structural[:, 0]])
    order = np.lexsort((other, v))
    v, other = v[order], other[order]
    direction = positions[other] - positions[v]
    direction /= np.maximum(np.linalg.norm(direction, axis=1), 1e-12)[:, None]
    valence = np.bincount(v, minlength=len(positions))
    first = np.concatenate([[0], np.cumsum(valence)[:-1]])
    found = []
    for k in np.unique(valence[valence >= 2]):
        verts = np.nonzero(valence == k)[0]
        slots = first[verts][:, None] + np.arange(k)  # (nv, k) half-edge indices
        d = direction[slots]  # (nv, k, 3)
        cos = np.einsum("vad,vbd->vab", d, d)
        cos[:, np.arange(k), np.arange(k)] = np.inf
        best = np.argmin(cos, axis=2)  # (nv, k) most opposite partner of each edge
        a = np.arange(k)[None, :]
        mutual = np.take_along_axis(best, best, axis=1) == a
        straight = np.take_along_axis(cos, best[:, :, None], axis=2)[:, :, 0] < _STRAIGHT_COS
        keep = mutual & straight & (a < best)
        rows, cols = np.nonzero(keep)
        u, w = other[slots[rows, cols]], other[slots[rows, best[rows, cols]]]
        found.append(np.stack([np.minimum(u, w), verts[rows], np.maximum(u, w)], 1))
    return np.concatenate(found) if found else np.zeros((0, 3), dtype=np.int64)


def _triangle_bend_pairs(faces: Faces, n: int) -> np.ndarray:
    """Far vertices of two triangles that share an edge."""
    hinges = triangle_hinges(faces, n)
    return _unique_pairs(hinges[:, 2:]) if len(hinges) else np.zeros((0, 2), dtype=np.int64)


def triangle_hinges(faces: Faces, n: int) -> np.ndarray:
    """(H, 4) interior edges shared by exactly two triangles: the edge's ends (low, high), then the far vertices."""
    tri = faces.sizes == 3
    if not tri.any():
        return np.zeros((0, 4), dtype=np.int64)
    a, b, c = (faces.corner(k, tri) for k in range(3))
    edges = np.sort(np.concatenate([np.stack([a, b], 1), np.stack([b, c], 1), np.stack([c, a], 1)]), axis=1)
    opposite = np.concatenate([c, a, b])
    key = _pair_keys(edges, n)
    order = np.argsort(key, kind="stable")
    key, opposite, edges = key[order], opposite[order], edges[order]
    _, start, count = np.unique(key, return_index=True, return_counts=True)
    two = start[count == 2]  # manifold interior edges only
    return np.stack([edges[two, 0], edges[two, 1], opposite[two], opposite[two + 1]], 1)


def bend_pairs(positions: np.ndarray, structural: np.ndarray, faces: Faces) -> np.ndarray:
    """Straight skip-one pairs along edges not bordering triangles, plus triangle-pair far vertices."""
    n = len(positions)
    on_triangle = _triangle_edge_mask(structural, faces, n)
    pairs = np.concatenate([_path_bend_pairs(positions, structural[~on_triangle]), _triangle_bend_pairs(faces, n)])
    return _unique_pairs(pairs)


@dataclass(frozen=True)
class Constraints:
    """Distance constraints: vertex pairs, their kind and rest length."""

    pairs: np.ndarray  # (C, 2) int64
    kind: np.ndarray  # (C,) int8: STRUCTURAL, SHEAR or BEND
    rest_length: np.ndarray  # (C,) float64

    def count(self, kind: int) -> int:
        return int(np.count_nonzero(self.kind == kind))


def build_constraints(positions: np.ndarray, edges=None, faces=None) -> Constraints:
    """Structural, shear and bend constraints of a mesh, each pair used once (first kind wins)."""
    positions = np.asarray(positions, dtype=np.float64).reshape(-1, 3)
    n = len(positions)
    faces = Faces.from_any(faces)
    structural = structural_pairs(n, edges, faces)
    if len(structural) and (structural.min() < 0 or structural.max() >= n):
        raise ValueError("an edge or face refers to a vertex index outside the vertex list")
    shear = _without(shear_pairs(faces), structural, n)
    bend = _without(_without(bend_pairs(positions, structural, faces), structural, n), shear, n)
    pairs = np.concatenate([structural, shear, bend]).reshape(-1, 2)
    kind = np.repeat(np.array([STRUCTURAL, SHEAR, BEND], dtype=np.int8), [len(structural), len(shear), len(bend)])
    rest = np.linalg.norm(positions[pairs[:, 0]] - positions[pairs[:, 1]], axis=1)
    return Constraints(pairs, kind, rest)
