"""Long-range attachments (tethers; Kim, Chentanez and Müller 2012) for pinned cloth.

A Gauss-Seidel sweep moves a correction one edge per pass, so a cloth hanging from a few pins
stretches most near the pins, where the whole weight hangs on a handful of edges. A tether keeps
every free vertex within its rest distance (along the cloth) of a pin: a one-sided constraint on
that vertex alone, so it costs O(N) per substep and needs no colouring.

Rest distance. The straight-line rest distance is right for a flat rest shape but too tight for a
curved one (a cylinder that unrolls could never reach its width); distance along the edge graph
is never too tight but overestimates diagonals (by up to ~8% with quad diagonals in the graph).
So: on a planar rest shape, the straight-line distance where the graph distance is within `_FLAT`
of it (nothing in the way, e.g. no hole or notch), else the graph distance; on a curved rest
shape always the graph distance (a gently curved one has graph/straight ratios below `_FLAT`
too, and its straight lines would keep it from unrolling).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_FLAT = 1.1  # graph / straight-line distance below which the rest shape counts as flat between them
_MAX_ANCHORS = 8  # pins measured from (farthest-point sample of all pins)
_PER_VERTEX = 2  # tethers per free vertex: to its nearest anchors
_EPS = 1e-12
_any = np.logical_or.reduce  # (ndarray.any without its Python wrapper)


@dataclass(frozen=True)
class Tethers:
    """Tether k of vertex `vertex[i]` runs to pin `anchor[k, i]` with rest length `rest[k, i]`."""

    vertex: np.ndarray  # (n,) free vertices that have tethers
    anchor: np.ndarray  # (K, n) pin vertex of each tether
    rest: np.ndarray  # (K, n) rest distance along the cloth


def _graph_distance(source: int, indptr: np.ndarray, neighbour: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Shortest edge-path length from `source` to every vertex (inf where unreachable).

    Bellman-Ford over a wavefront: each round relaxes only the edges of the vertices whose distance
    just improved, so a round costs the front, not the whole mesh (a 447² cloth: seconds -> ~0.2 s).
    """
    dist = np.full(len(indptr) - 1, np.inf)
    dist[source] = 0.0
    front = np.array([source], dtype=np.int64)
    while front.size:
        counts = indptr[front + 1] - indptr[front]
        total = int(counts.sum())
        if total == 0:
            break
        edge = np.repeat(indptr[front] - np.cumsum(counts) + counts, counts) + np.arange(total)
        target = neighbour[edge]
        candidate = np.repeat(dist[front], counts) + length[edge]
        better = candidate < dist[target]
        target, candidate = target[better], candidate[better]
        if not target.size:
            break
        order = np.lexsort((candidate, target))  # the shortest candidate per target first
        target, candidate = target[order], candidate[order]
        first = np.r_[True, target[1:] != target[:-1]]
        front = target[first]
        dist[front] = candidate[first]
    return dist


def _planar(positions: np.ndarray) -> bool:
    """The rest shape lies in one plane (to 1e-6 of its size): straight lines may then be rest distances."""
    centred = positions - positions.mean(axis=0)
    size = float(np.abs(centred).max()) if len(centred) else 0.0
    if size == 0.0:
        return True
    thinnest = np.linalg.svd(centred / size, compute_uv=False)[-1] if len(centred) >= 3 else 0.0
    return bool(thinnest * size <= 1e-6 * size * np.sqrt(len(centred)))


def build_tethers(rest_positions: np.ndarray, pairs: np.ndarray, pinned: np.ndarray, free: np.ndarray):
    """Tethers from every free vertex more than one edge from a pin to its nearest pins, or None."""
    pins = np.nonzero(pinned)[0]
    n = len(rest_positions)
    if len(pins) == 0 or len(pairs) == 0 or not free.any():
        return None
    # Half-edges grouped by the vertex they leave (CSR).
    src = np.concatenate([pairs[:, 0], pairs[:, 1]])
    dst = np.concatenate([pairs[:, 1], pairs[:, 0]])
    order = np.argsort(src, kind="stable")
    src, dst = src[order], dst[order]
    length = np.linalg.norm(rest_positions[src] - rest_positions[dst], axis=1)
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(np.bincount(src, minlength=n))

    # Anchors: a farthest-point sample of the pins (all of them when there are few).
    anchors = [int(pins[0])]
    gap = np.linalg.norm(rest_positions[pins] - rest_positions[pins[0]], axis=1)
    while len(anchors) < min(_MAX_ANCHORS, len(pins)):
        k = int(np.argmax(gap))
        if gap[k] <= _EPS:
            break
        anchors.append(int(pins[k]))
        gap = np.minimum(gap, np.linalg.norm(rest_positions[pins] - rest_positions[pins[k]], axis=1))

    graph = np.stack([_graph_distance(a, indptr, dst, length) for a in anchors])  # (A, n)
    rest = graph
    if _planar(rest_positions):
        straight = np.linalg.norm(rest_positions[None, :, :] - rest_positions[anchors][:, None, :], axis=2)
        rest = np.where(graph <= _FLAT * straight, straight, graph)

    # Skip vertices next to a pin (their edge already is the tether) and those no pin reaches.
    near_pin = np.zeros(n, dtype=bool)
    near_pin[pairs[pinned[pairs[:, 0]], 1]] = True
    near_pin[pairs[pinned[pairs[:, 1]], 0]] = True
    reached = np.isfinite(graph).any(axis=0)
    vertex = np.nonzero(free & ~near_pin & reached)[0]
    if len(vertex) == 0:
        return None
    k = min(_PER_VERTEX, len(anchors))
    nearest = np.argsort(rest[:, vertex], axis=0, kind="stable")[:k]  # (k, n) anchor slots
    anchor = np.asarray(anchors)[nearest]
    tether_rest = np.take_along_axis(rest[:, vertex], nearest, axis=0)
    keep = np.isfinite(tether_rest)
    tether_rest = np.where(keep, tether_rest, np.inf)
    return Tethers(vertex, anchor, tether_rest)


class PreparedTethers:
    """Tethers on one workspace: each sweep pulls every tethered vertex back within (1 + slack) × rest of its pins."""

    def __init__(self, tethers: Tethers, slot_of: np.ndarray, slack: float, keep: np.ndarray | None = None):
        vertex, anchor, rest = tethers.vertex, tethers.anchor, tethers.rest
        if keep is not None:
            vertex, anchor, rest = vertex[keep], anchor[:, keep], rest[:, keep]
        self.tethers, self.slot_of, self.slack = tethers, slot_of, slack
        self.vertex = slot_of[vertex]
        self.anchor = [slot_of[a] for a in anchor]
        self.limit = [(r * (1.0 + slack)).astype(np.float32) for r in rest]
        self.p = np.empty((3, len(vertex)), np.float32)
        # Indices into the flattened (3, N) workspace: the tethered vertices' (3V,) and every anchor's at once
        # (K, 3, V): one take each (the anchors are pinned, never tethered: their positions do not change while the
        # tethers project), one scatter back. 9 takes and 3 scatters a sweep before (24²: ~98 -> ~45 us).
        n = len(slot_of)
        rows = n * np.arange(3)[:, None]
        self.flat_vertex = (self.vertex[None, :] + rows).reshape(-1)
        flat_anchors = [a[None, :] + rows for a in self.anchor]
        self.flat_anchors = np.stack(flat_anchors) if flat_anchors else np.zeros((0, 3, 0), np.int64)
        self.anchors = np.empty(self.flat_anchors.shape, np.float32)
        self.offset, self.squared = np.empty_like(self.p), np.empty_like(self.p)  # scratch, reused every sweep
        self.distance, self.over = np.empty(len(vertex), np.float32), np.empty(len(vertex), bool)

    def begin_substep(self) -> None:
        pass

    def overridden(self, inv_mass: np.ndarray, broken: np.ndarray | None):
        """Held vertices are left to their holder; once the cloth has torn, tethers (which would hold torn-off
        pieces to the pins) are off."""
        if broken is not None and broken.any():
            return None
        return PreparedTethers(self.tethers, self.slot_of, self.slack, inv_mass[self.tethers.vertex] > 0)

    def project(self, buffer: np.ndarray) -> None:
        p = self.p
        if p.shape[1] == 0:
            return
        flat = buffer.reshape(-1)
        flat.take(self.flat_vertex, None, p.reshape(-1), "clip")
        flat.take(self.flat_anchors, None, self.anchors, "clip")
        moved = False
        offset, squared, distance, over = self.offset, self.squared, self.distance, self.over
        for a, limit in zip(self.anchors, self.limit, strict=True):
            np.subtract(p, a, out=offset)
            np.multiply(offset, offset, out=squared)
            np.add(squared[0], squared[1], out=distance)
            np.add(distance, squared[2], out=distance)
            np.sqrt(distance, out=distance)
            np.greater(distance, limit, out=over)
            if _any(over):
                offset *= np.where(over, limit / np.maximum(distance, _EPS), 1.0)
                np.add(a, offset, out=p)
                moved = True
        if moved:
            flat[self.flat_vertex] = p.reshape(-1)


@dataclass(frozen=True)
class TetherFamily:
    """Tethers as a constraint family (solver/family.py)."""

    tethers: Tethers
    name: str = "tethers"

    def prepare(self, model, params, dt: float, workspace, earlier=None) -> PreparedTethers | None:
        slack = params.limit_slack
        if not np.isfinite(slack) or slack < 0:
            return None
        return PreparedTethers(self.tethers, model.layout.slot_of, slack)
