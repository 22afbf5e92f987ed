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

The support lifts the hanging cloth as if the corner were infinitely heavy, so alone it kept the hanging cloth's
pull from the cloth on the top, and cloth that must slide off a box stayed on it (6 tests, round 14). With REACTION
the momentum its moves give (the moves of x alone, mass-weighted: what the sweep would have pulled the seed down
by) is handed on, per seed, to the seed's neighbours it left (the cloth on the top beside the corner), as a move of x
alone: across gravity only (the corner carries the weight), less the friction over the bend by the capstan rule
(exp(-mu θ), θ the angle the pull leans below the top's plane). Handed to the seed itself instead (moved off the
corner), the corner's edges stretched again (48² quad table 31-93 %) and the cloth ended 13 mm inside the table.
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

import numpy as np

from .caches import kept
from .contact_support import STRETCH_TOLERANCE, StructuralGraph

CORNER_RINGS = 4  # rings of structural edges (3 left a 48² tablecloth's corners 27 % stretched, 4: 11 %)
DOWNHILL = 0.3  # of an edge's rest length: how much lower its outer end must lie to hang from its inner end
# The momentum the support gives the hanging cloth (its moves of x alone, mass-weighted) pulls the cloth on the top
# next to the seed it hangs from (x alone; across gravity, less the capstan rule's friction over the bend): without
# it the cloth on the top never felt the hanging cloth's pull, and cloth that must slide off a box stayed on it
# (docs/design.md, round 15 (corner18)).
REACTION = True
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
    # (kept with the rings so that a call does no arithmetic on topology alone)
    down: np.ndarray  # (E,) -DOWNHILL x rest: how much its outer end must lie lower to hang
    tolerance: np.ndarray  # (E,) TOLERANCE x rest
    slots: np.ndarray  # (6, E) its outer end's place in the six channels' bincount
    row_origin: np.ndarray | None  # (R,) each row's seed when all its edges come from one seed, else None
    pull_slots: np.ndarray | None  # (3, R) each row's place in the three channels of the pull per seed, or None
    span: slice  # its edges' place among all the rings' (_Rings.outer ...)
    flat: np.ndarray  # (3 R,) its rows' coordinates' places in a flattened (N, 3) array (put and take)


class _Rings(NamedTuple):
    rings: list[_Ring]
    outer: np.ndarray  # (E,) all the rings' edges' outer ends, ring after ring (unmoved before their ring)
    origin: np.ndarray  # (E,) their seeds
    rest: np.ndarray  # (E,) their rest lengths


_RINGS: dict = {}  # id(graph.neighbours) -> (a weak reference to it, {(seed bytes, count): rings}, {asked: ...})
_CLOTHS = 8  # cloths kept
_ASKED = 4 * _CACHED  # seed arrays as asked (unsorted, repeated) kept per cloth


def _rings(graph: StructuralGraph, asked: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray, _Rings]:
    """The seeds `asked` sorted and unique, where each is first among them, and the first `count` rings of
    structural edges breadth first from them. Kept per seed set (the walk) and per seed array as asked (a drape
    asks 55-80 arrays of 17-49 sets: kept by the array alone, 32 entries thrashed; docs/design.md, round 16
    (ringbatch19))."""
    entry = _RINGS.get(id(graph.neighbours))
    if entry is None or entry[0]() is not graph.neighbours:
        _RINGS.pop(id(graph.neighbours), None)  # (a dead cloth's: its id taken again)
        entry = kept(_RINGS, id(graph.neighbours), _CLOTHS, lambda: (weakref.ref(graph.neighbours), {}, {}))
    by_set: dict[tuple[bytes, int], _Rings] = entry[1]
    by_asked: dict[tuple[bytes, int], tuple[np.ndarray, np.ndarray, _Rings]] = entry[2]

    def walked() -> tuple[np.ndarray, np.ndarray, _Rings]:
        seeds, first = np.unique(asked, return_index=True)
        return seeds, first, kept(by_set, (seeds.tobytes(), count), _CACHED, lambda: _walk(graph, seeds, count))

    return kept(by_asked, (asked.tobytes(), count), _ASKED, walked)


def _walk(graph: StructuralGraph, seeds: np.ndarray, count: int) -> _Rings:
    """The first `count` rings of structural edges breadth first from `seeds` (sorted, unique)."""
    reached = np.zeros(len(graph.starts) - 1, dtype=bool)
    reached[seeds] = True
    frontier, rings = seeds, []
    origin = np.arange(len(seeds))  # (the frontier's seeds)
    channels = np.arange(3) * len(seeds)
    first = 0
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
        rest = graph.rest.take(slot)
        origin = np.empty(len(rows), dtype=np.int64)
        origin[at] = edge_origin  # (a vertex reached from two seeds: either)
        alike = bool((origin.take(at) == edge_origin).all())
        ring = _Ring(
            frontier.take(source), outer, rest, source, edge_origin, rows, at, -DOWNHILL * rest, TOLERANCE * rest,
            (np.arange(6) * len(rows))[:, None] + at, origin if alike else None,
            channels[:, None] + origin if alike else None, slice(first, first + len(outer)),
            (rows[:, None] * 3 + np.arange(3)).ravel(),
        )  # fmt: skip
        rings.append(ring)
        first += len(outer)
        frontier = rows
    return _Rings(
        rings,
        np.concatenate([r.outer for r in rings]) if rings else np.zeros(0, dtype=np.int64),
        np.concatenate([r.origin for r in rings]) if rings else np.zeros(0, dtype=np.int64),
        np.concatenate([r.rest for r in rings]) if rings else np.zeros(0),
    )


def support_hanging(
    x, x_start, seeds, graph: StructuralGraph, inv_mass, slack: float, up, points, normals, friction: float = 0.0
) -> None:
    """Shorten the stretched structural edges hanging from `seeds` (rows of x), ring by ring outward (see the
    module doc), in place on x and x_start; `up`: the unit vector against gravity (3,); points, normals (3, S):
    each seed's corner and its faces' mean normal (the cloth beyond the corner's mean plane hangs from it too).
    friction: the corner's; with REACTION, the momentum the moves gave the hanging cloth pulls the cloth on the top
    next to its seed (`_pull_the_top`)."""
    seeds, first, found = _rings(graph, seeds, CORNER_RINGS)
    if not found.rings:
        return
    # What does not change before an edge's ring, for all the rings' edges at once: a ring moves only its own outer
    # ends (first reached in it), so their positions, the side of the corner's mean plane they lie on, whether they
    # are free, and their limits are the same when their ring comes.
    outer_at = x.take(found.outer, axis=0)
    corner_at = points.T.take(first, axis=0).take(found.origin, axis=0)
    facing = normals.take(first, axis=1).take(found.origin, axis=1)
    beyond_all = np.einsum("ij,ji->i", outer_at - corner_at, facing) > 0.0  # (beyond the corner's mean plane)
    outer_start = x_start.take(found.outer, axis=0)
    free_all = inv_mass.take(found.outer) > 0.0
    limit_all = found.rest * (1.0 + slack)
    live = None  # (the ring before's vertices the support reached; None: all, the seeds)
    pull = np.zeros((3, len(seeds)))  # (mass x the moves' dynamic part, summed per seed: REACTION)
    channels = None
    seed_ring: _First | None = None
    for ring in found.rings:
        span, edges = ring.span, len(ring.inner)
        # Each edge now and where it started the substep (its inner end's moves in the ring before included), and
        # their lengths in one einsum.
        pair = np.concatenate(
            [outer_at[span] - x.take(ring.inner, axis=0), outer_start[span] - x_start.take(ring.inner, axis=0)]
        )
        lengths = np.sqrt(np.einsum("ij,ij->i", pair, pair))
        d, length, started = pair[:edges], lengths[:edges], lengths[edges:]
        limit = limit_all[span]
        excess = length - limit
        hanging = (d @ up < ring.down) | beyond_all[span]
        if seed_ring is None:  # (the seeds' own edges to cloth that does not hang: on the top, REACTION)
            seed_ring = _First(ring, ~hanging)
        if live is not None:
            hanging &= live.take(ring.source)
        hanging &= excess > ring.tolerance
        hanging &= free_all[span]
        which = hanging.nonzero()[0]
        if len(which) == 0:
            break  # the support's stretch ends here
        d, length, limit, started = d.take(which, axis=0), length.take(which), limit.take(which), started.take(which)
        old = np.maximum(np.minimum(started, length) - limit, 0.0)  # the stretch it started the substep with
        # Each edge's correction of its outer end and the share of it that settles (moves the start too), unit
        # inner to outer, summed per outer end in one bincount of six channels.
        scale = np.concatenate([excess.take(which), old]) / np.concatenate([length, length])
        count = len(ring.rows)
        weights = d.T[None] * scale.reshape(2, 1, -1)
        total = np.bincount(ring.slots.take(which, axis=1).ravel(), weights=weights.ravel(), minlength=6 * count)
        total = total.reshape(6, count)
        at = ring.at.take(which)
        share = np.bincount(at, minlength=count)
        live = share > 0
        if np.count_nonzero(live) == count:
            moved, rows, flat = None, ring.rows, ring.flat
            np.divide(total, share, out=total)
        else:
            moved = live.nonzero()[0]
            total = total.take(moved, axis=1) / share.take(moved)
            rows, flat = ring.rows.take(moved), ring.flat.reshape(-1, 3).take(moved, axis=0).ravel()
        # (x[rows] -= total[:3].T, the same arithmetic; fancy assignment costs twice the put)
        x.put(flat, x.take(flat) - total[:3].T.ravel())
        x_start.put(flat, x_start.take(flat) - total[3:].T.ravel())
        if REACTION:
            if ring.pull_slots is not None:
                slot = ring.pull_slots if moved is None else ring.pull_slots.take(moved, axis=1)
            else:
                origin = np.empty(count, dtype=np.int64)
                origin[at] = ring.origin.take(which)
                if channels is None:
                    channels = (np.arange(3) * len(seeds))[:, None]
                slot = channels + (origin if moved is None else origin.take(moved))
            kick = (total[:3] - total[3:]) / inv_mass.take(rows)
            pull += np.bincount(slot.ravel(), weights=kick.ravel(), minlength=3 * len(seeds)).reshape(3, -1)
    if REACTION and seed_ring is not None and np.count_nonzero(pull):
        _pull_the_top(x, inv_mass, seed_ring.ring, seed_ring.top, pull, up, friction)


class _First(NamedTuple):
    ring: _Ring  # the first ring (the seeds' own edges)
    top: np.ndarray  # (E,) which of its edges lead to cloth that does not hang from the seed (on the top)


def _pull_the_top(x, inv_mass, ring: _Ring, top: np.ndarray, pull: np.ndarray, up, friction: float) -> None:
    """Move the seeds' neighbours on the top (`top` edges of the first `ring`) by the hanging cloth's `pull` (3, S),
    per seed (mass x displacement, momentum): across gravity only (the corner carries the weight), less what friction
    holds over the bend (the capstan rule, exp(-friction x the angle the pull bends over the top)), all moved alike."""
    top &= inv_mass.take(ring.outer) > 0.0
    which = top.nonzero()[0]
    if len(which) == 0:
        return
    along = up @ pull
    down = np.maximum(-along, 0.0)
    pull -= up[:, None] * along
    across = np.sqrt(np.einsum("ij,ij->j", pull, pull))
    pull *= np.exp(-friction * np.arctan2(down, across))
    origin, outer = ring.origin.take(which), ring.outer.take(which)
    mass = np.bincount(origin, weights=1.0 / inv_mass.take(outer), minlength=pull.shape[1])
    x[outer] += (pull.take(origin, axis=1) / mass.take(origin)).T  # (all alike: a light one is not flung)
