"""Long-range strain limiting on any mesh: one-sided pairs k edges apart along straight edge paths.

A Gauss-Seidel sweep carries a correction about one edge, so fine cloth stretches far more than
its stiffness says. Hierarchically (Müller 2008), pairs of vertices k = 4 and 16 edges apart
along "straight" edge paths (at each vertex an edge continues into its most opposite edge, when
the choice is mutual and the angle is at least ~135°) may not get farther apart than
(1 + stretch_limit) × their rest distance along the cloth. They are hard and one-sided, so they
only remove solver error: unstretched cloth is never pulled, bending and folding are free.

Rest distance along the cloth. The path's length overestimates it wherever the path zigzags
(triangulated and irregular meshes); the straight line underestimates it on a curved rest shape
(a half cylinder could never unroll). So the path is developed into the plane: edge lengths and
the turning angles within the surface (measured in each vertex's tangent plane, so bending out
of the surface, as around a cylinder, counts as straight), and the pair's rest distance is the
developed chord, kept between the straight line and the path length. It is exact for any path
on a flat rest shape and for geodesic paths on a developable one.

On a quad grid the paths are the rows and columns, and the pairs are projected as strided views
of the grid workspace; the pairs themselves are found the same way on every mesh.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .facemap import fan_triangles
from .gridpath import diagonal_span_specs, span_specs
from .pairs import Layout, PairBatch, PreparedPairs, hard_compliance, layout_batches
from .topology import STRUCTURAL, Constraints, Faces

LEVELS = (16, 4)  # edges per pair, coarse to fine
# A level's colour sets smaller than this share of its first set are projected together as one split
# batch (pairs.gathered_batches): the jittered 48² mesh's 12 long-range batches become 7 (tails of 1-96
# pairs at its few vertices on 7-8 paths), ~5% of its frame.
TAILS = 0.4
_STRAIGHT_COS = -0.7  # an edge continues into its most opposite edge at ~135° or straighter


@dataclass(frozen=True)
class Chains:
    """Half-edges of the structural edges and how straight paths continue through their heads."""

    tail: np.ndarray  # (H,) vertex each half-edge leaves
    head: np.ndarray  # (H,) vertex it reaches
    constraint: np.ndarray  # (H,) model constraint of its edge
    length: np.ndarray  # (H,) rest length
    next: np.ndarray  # (H,) half-edge continuing straight through the head, -1: the path ends
    turn: np.ndarray  # (H,) signed turning angle to `next` within the surface (radians)
    flip: np.ndarray  # (H,) the surface normal flips between this head and the next (winding)


def _vertex_normals(positions: np.ndarray, faces: Faces) -> np.ndarray:
    normals = np.zeros_like(positions)
    triangles, _ = fan_triangles(faces)
    if len(triangles):
        a, b, c = (positions[triangles[:, k]] for k in range(3))
        area_normal = np.cross(b - a, c - a)
        for k in range(3):
            for axis in range(3):
                normals[:, axis] += np.bincount(triangles[:, k], weights=area_normal[:, axis], minlength=len(positions))
    length = np.linalg.norm(normals, axis=1, keepdims=True)
    return np.where(length > 1e-12, normals / np.maximum(length, 1e-300), 0.0)


def build_chains(positions: np.ndarray, faces: Faces, constraints: Constraints) -> Chains:
    structural = np.flatnonzero(constraints.kind == STRUCTURAL)
    edges = constraints.pairs[structural]
    e = len(edges)
    tail = np.concatenate([edges[:, 0], edges[:, 1]])
    head = np.concatenate([edges[:, 1], edges[:, 0]])
    constraint = np.concatenate([structural, structural])
    direction = positions[head] - positions[tail]
    length = np.linalg.norm(direction, axis=1)
    direction /= np.maximum(length, 1e-12)[:, None]
    nxt = np.full(2 * e, -1, dtype=np.int64)
    # Outgoing half-edges grouped by their tail; at each vertex pair each with its most opposite.
    order = np.lexsort((head, tail))
    valence = np.bincount(tail, minlength=len(positions))
    first = np.concatenate([[0], np.cumsum(valence)[:-1]])
    for k in np.unique(valence[valence >= 2]):
        verts = np.flatnonzero(valence == k)
        slots = order[first[verts][:, None] + np.arange(k)]  # (nv, k) outgoing half-edges
        d = direction[slots]
        cos = np.einsum("vad,vbd->vab", d, d)
        cos[:, np.arange(k), np.arange(k)] = np.inf
        best = np.argmin(cos, axis=2)
        a = np.arange(k)[None, :]
        mutual = np.take_along_axis(best, best, axis=1) == a
        straight = np.take_along_axis(cos, best[:, :, None], axis=2)[:, :, 0] < _STRAIGHT_COS
        rows, cols = np.nonzero(mutual & straight)
        out_a = slots[rows, cols]
        out_b = slots[rows, best[rows, cols]]
        twin_a = np.where(out_a < e, out_a + e, out_a - e)  # the half-edge arriving along out_a's edge
        nxt[twin_a] = out_b

    normals = _vertex_normals(positions, faces)
    has = nxt >= 0
    turn = np.zeros(2 * e)
    flip = np.zeros(2 * e, dtype=bool)
    if has.any():
        h = np.flatnonzero(has)
        n = normals[head[h]]
        t1, t2 = direction[h], direction[nxt[h]]
        t1 = t1 - n * np.einsum("ij,ij->i", n, t1)[:, None]
        t2 = t2 - n * np.einsum("ij,ij->i", n, t2)[:, None]
        turn[h] = np.arctan2(np.einsum("ij,ij->i", n, np.cross(t1, t2)), np.einsum("ij,ij->i", t1, t2))
        flip[h] = np.einsum("ij,ij->i", n, normals[head[nxt[h]]]) < 0
    return Chains(tail, head, constraint, length, nxt, turn, flip)


def level_pairs(chains: Chains, positions: np.ndarray, k: int):
    """(first half-edge (P,), pairs (P, 2), rest distances (P,)) of the vertices k edges apart along paths."""
    start = np.flatnonzero(chains.next >= 0) if k > 1 else np.arange(len(chains.tail))
    cur = start.copy()
    theta = np.zeros(len(start))
    sign = np.ones(len(start))
    px = chains.length[cur].copy()
    py = np.zeros(len(start))
    path = chains.length[cur].copy()
    alive = np.ones(len(start), dtype=bool)
    for _ in range(k - 1):
        nxt = chains.next[cur]
        alive &= nxt >= 0
        step = np.where(alive, nxt, cur)
        theta += sign * chains.turn[cur]
        sign = np.where(chains.flip[cur], -sign, sign)
        cur = step
        px += chains.length[cur] * np.cos(theta)
        py += chains.length[cur] * np.sin(theta)
        path += chains.length[cur]
    a, b = chains.tail[start], chains.head[cur]
    keep = alive & (a != b)
    start, a, b = start[keep], a[keep], b[keep]
    if len(start) == 0:
        return start, np.zeros((0, 2), dtype=np.int64), np.zeros(0)
    straight = np.linalg.norm(positions[a] - positions[b], axis=1)
    rest = np.clip(np.hypot(px[keep], py[keep]), straight, path[keep])
    # Each pair is found from both ends (and maybe along two paths): keep it once, at its longest rest.
    low, high = np.minimum(a, b), np.maximum(a, b)
    key = low * len(positions) + high
    order = np.lexsort((-rest, key))
    first = np.r_[True, key[order][1:] != key[order][:-1]]
    chosen = order[first]
    return start[chosen], np.stack([low[chosen], high[chosen]], 1), rest[chosen]


@dataclass(frozen=True)
class LongRangeFamily:
    chains: Chains
    pairs: np.ndarray  # (P, 2)
    rest: np.ndarray  # (P,) rest distance along the cloth
    first: np.ndarray  # (P,) first half-edge of each pair's path
    span: np.ndarray  # (P,) edges along it
    batches: tuple[PairBatch, ...]
    name: str = "long_range"

    @staticmethod
    def build(positions, faces: Faces, constraints: Constraints, layout: Layout, n: int, seed: int = 0):
        chains = build_chains(positions, faces, constraints)
        parts = []
        for k in LEVELS:
            first, pairs, rest = level_pairs(chains, positions, k)
            if len(pairs):
                parts.append((k, first, pairs, rest))
        if not parts:
            return None
        pairs = np.concatenate([p[2] for p in parts])
        rest = np.concatenate([p[3] for p in parts])
        first = np.concatenate([p[1] for p in parts])
        span = np.concatenate([np.full(len(p[2]), p[0]) for p in parts])
        batches: list[PairBatch] = []
        offset = 0
        for k, _, level, _ in parts:
            members = np.arange(offset, offset + len(level))
            offset += len(level)
            batches += _level_batches(layout, pairs, members, k, n, seed)
        return LongRangeFamily(chains, pairs, rest, first, span, tuple(batches))

    def broken_pairs(self, broken: np.ndarray) -> np.ndarray:
        """(P,) pairs whose path crosses a broken constraint."""
        out = np.zeros(len(self.pairs), dtype=bool)
        cur = self.first.copy()
        for step in range(int(self.span.max())):
            inside = step < self.span
            out |= inside & broken[self.chains.constraint[cur]]
            cur = np.where(inside & (self.chains.next[cur] >= 0), self.chains.next[cur], cur)
        return out

    def prepare(self, model, params, dt: float, workspace, earlier=None) -> PreparedPairs | None:
        limit = params.limit_slack
        if not np.isfinite(limit) or limit < 0:
            return None
        return PreparedPairs(
            self.batches,
            self.rest * (1.0 + limit),
            np.full(len(self.pairs), hard_compliance()),
            np.zeros(len(self.pairs)),  # one-sided: only too far apart is corrected
            model.inv_mass,
            workspace.buffer,
            model.layout.grid,
            int(params.iterations),
            broken_of=self.broken_pairs,
        )


def _level_batches(layout: Layout, pairs: np.ndarray, members: np.ndarray, k: int, n: int, seed: int):
    """The level's pairs: on a grid layout, its rows and columns k apart as strided views, and so are a
    triangulated grid's diagonal chains when every quad is split the same way; the rest gathered."""
    grid = layout.grid
    specs: tuple = ()
    if grid is not None:  # diagonals first: they came first while they were gathered
        specs = (*diagonal_span_specs(grid.rows, grid.columns, k), *span_specs(grid.rows, grid.columns, k))
    return layout_batches(pairs, members, layout, n, specs, seed=seed, tails=TAILS)
