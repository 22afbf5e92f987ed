"""The cloth hanging from a pointed corner that is no sharp tip (a table's or a box's corner), supported from it.

A tablecloth tents over a table's top corner: one cloth triangle sits on the corner and the cloth of the two
sides and of the diagonal fold hangs from it. One constraint sweep a substep moves the corner's cloth vertices
as much as their neighbours (equal masses); the corner pass then pushes them back along their path (friction
included), so each substep the two undo each other and the first rings round the corner hang 40-90 %
stretched (docs/design.md, round 13 (corner16)). A sharp tip's contacts already get the shock propagation of
solver/contact_support.py; here the same runs from every contact of the other pointed corners, ring by ring
for CORNER_RINGS rings of structural edges, and only down the cloth that hangs from its inner end (its outer
end DOWNHILL × the edge's rest length lower, against gravity): the cloth lying on the top beside the corner is
not pulled towards it (with it, a fan disc slid 18 cm off the table and ended 10 mm inside it).

The rings are topology (breadth first from the seeds over the structural graph), kept per seed set (a resting
drape's contacts stay the same from pass to pass); what moves is decided from the positions, as in
`propagate_support`: an edge whose inner end the support reached (a seed, or moved in the ring before) and that
is stretched more than STRETCH_TOLERANCE beyond (1 + slack) × its rest length has its outer end moved back to that
length (the mean over its inner edges), the share that removes the stretch it started the substep with moving
the start too (no velocity).
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

import numpy as np

from .contact_support import STRETCH_TOLERANCE, StructuralGraph

CORNER_RINGS = 4  # rings of structural edges (3 left a 48² tablecloth's corners 27 % stretched, 4: 11 %)
DOWNHILL = 0.3  # of an edge's rest length: how much lower its outer end must lie to hang from its inner end
_CACHED = 32  # seed sets kept per cloth
TOLERANCE = STRETCH_TOLERANCE  # of the rest length: less stretch is left to the sweeps
_EPS = 1e-12


class _Ring(NamedTuple):
    inner: np.ndarray  # (E,) each edge's inner end (a vertex of the ring before)
    outer: np.ndarray  # (E,) its outer end (a vertex first reached in this ring)
    rest: np.ndarray  # (E,) its rest length
    source: np.ndarray  # (E,) where its inner end is among the ring before's rows
    origin: np.ndarray  # (E,) the seed it was reached from (its place among the seeds)
    rows: np.ndarray  # (R,) the ring's vertices, sorted
    at: np.ndarray  # (E,) where its outer end is among them


_RINGS: dict = {}  # id(graph.neighbours) -> (a weak reference to it, {(seed bytes, count): rings})
_CLOTHS = 8  # cloths kept


def _rings(graph: StructuralGraph, seeds: np.ndarray, count: int) -> list[_Ring]:
    """The first `count` rings of structural edges breadth first from `seeds` (sorted, unique)."""
    entry = _RINGS.get(id(graph.neighbours))
    if entry is None or entry[0]() is not graph.neighbours:
        if len(_RINGS) >= _CLOTHS:
            _RINGS.pop(next(iter(_RINGS)))
        entry = _RINGS[id(graph.neighbours)] = (weakref.ref(graph.neighbours), {})
    kept: dict[tuple[bytes, int], list[_Ring]] = entry[1]
    key = (seeds.tobytes(), count)
    found = kept.get(key)
    if found is not None:
        return found
    reached = np.zeros(len(graph.starts) - 1, dtype=bool)
    reached[seeds] = True
    frontier, rings = seeds, []
    origin = np.arange(len(seeds))  # (the frontier's seeds)
    for _ in range(count):
        counts = graph.starts.take(frontier + 1) - graph.starts.take(frontier)
        slot = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        slot += np.repeat(graph.starts.take(frontier), counts)
        source = np.repeat(np.arange(len(frontier)), counts)
        outer = graph.neighbours.take(slot)
        new = (~reached.take(outer)).nonzero()[0]
        if len(new) == 0:
            break
        slot, source, outer = slot.take(new), source.take(new), outer.take(new)
        rows, at = np.unique(outer, return_inverse=True)
        at = at.reshape(-1)
        reached[rows] = True
        edge_origin = origin.take(source)
        rings.append(_Ring(frontier.take(source), outer, graph.rest.take(slot), source, edge_origin, rows, at))
        origin = np.empty(len(rows), dtype=np.int64)
        origin[at] = edge_origin  # (a vertex reached from two seeds: either)
        frontier = rows
    if len(kept) >= _CACHED:
        kept.pop(next(iter(kept)))
    kept[key] = rings
    return rings


def support_hanging(x, x_start, seeds, graph: StructuralGraph, inv_mass, slack: float, up, points, normals) -> None:
    """Shorten the stretched structural edges hanging from `seeds` (rows of x), ring by ring outward (see the
    module doc), in place on x and x_start; `up`: the unit vector against gravity (3,); points, normals (3, S):
    each seed's corner and its faces' mean normal (the cloth beyond the corner's mean plane hangs from it too)."""
    seeds, first = np.unique(seeds, return_index=True)
    points, normals = points.take(first, axis=1), normals.take(first, axis=1)
    live = np.ones(len(seeds), dtype=bool)  # (the ring before's vertices the support reached)
    for ring in _rings(graph, seeds, CORNER_RINGS):
        outer_at = x.take(ring.outer, axis=0)
        d = outer_at - x.take(ring.inner, axis=0)
        length = np.sqrt(np.einsum("ij,ij->i", d, d))
        limit = ring.rest * (1.0 + slack)
        outer_at -= points.T.take(ring.origin, axis=0)
        beyond = np.einsum("ij,ji->i", outer_at, normals.take(ring.origin, axis=1))  # (from the corner's mean plane)
        hanging = live.take(ring.source) & ((d @ up < -DOWNHILL * ring.rest) | (beyond > 0.0))
        hanging &= length - limit > TOLERANCE * ring.rest
        hanging &= inv_mass.take(ring.outer) > 0.0
        which = hanging.nonzero()[0]
        if len(which) == 0:
            return  # the support's stretch ends here
        inner, outer, at = ring.inner.take(which), ring.outer.take(which), ring.at.take(which)
        d, length, limit = d.take(which, axis=0), length.take(which), limit.take(which)
        d0 = x_start.take(outer, axis=0) - x_start.take(inner, axis=0)
        started = np.sqrt(np.einsum("ij,ij->i", d0, d0))
        old = np.maximum(np.minimum(started, length) - limit, 0.0)  # the stretch it started the substep with
        # Each edge's correction of its outer end and the share of it that settles (moves the start too), unit
        # inner to outer, summed per outer end in one bincount of six channels.
        scale = np.concatenate([length - limit, old]) / np.concatenate([length, length])
        count = len(ring.rows)
        slots = (np.arange(6) * count)[:, None] + at
        weights = np.concatenate([d.T, d.T]) * np.repeat(scale.reshape(2, -1), 3, axis=0)
        total = np.bincount(slots.ravel(), weights=weights.ravel(), minlength=6 * count).reshape(6, count)
        share = np.bincount(at, minlength=count)
        live = share > 0
        moved = live.nonzero()[0]
        total = total.take(moved, axis=1) / share.take(moved)
        moved = ring.rows.take(moved)
        x[moved] -= total[:3].T
        x_start[moved] -= total[3:].T
