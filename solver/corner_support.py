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
pull from the cloth on the top, and cloth that must slide off a box stayed on it (6 tests, round 14). So the
momentum its moves give (the moves of x alone, mass-weighted: what the sweep would have pulled the seed down by) is
handed on, per seed, to the seed's neighbours it left (the cloth on the top beside the corner), as a move of x
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
from .vectors import c_einsum

CORNER_RINGS = 4  # rings of structural edges (3 left a 48² tablecloth's corners 27 % stretched, 4: 11 %)
DOWNHILL = 0.3  # of an edge's rest length: how much lower its outer end must lie to hang from its inner end
# The momentum the support gives the hanging cloth (its moves of x alone, mass-weighted) pulls the cloth on the top
# next to the seed it hangs from (x alone; across gravity, less the capstan rule's friction over the bend): without
# it the cloth on the top never felt the hanging cloth's pull, and cloth that must slide off a box stayed on it
# (docs/design.md, round 15 (corner18); the switch REACTION until round 24).
# The support's lift beyond the stretch the edge started the substep with gives velocity (moves x alone). Settling a
# share of it too (moving the substep's start with it: LIFT_DAMPING, round 23's LIFT_SETTLES) quieted the coarse
# tablecloth's drape and stretched its corners: 0.1 left the 48² corners 18 % (base 13 %), 0.25 18 %, 0.5 37 %, 1 48 %
# (docs/design.md, round 24 (rest24)); the resting jitter's cause is the reach (REACH, round 25). Deleted in round 27
# (switchdebt_r27); aab9675 reproduces it.
# How far along the cloth the support reaches (m): CORNER_RINGS cut to round(REACH / the cloth's structural edge, as
# REACH_BY measures it), at least LEAST_RINGS; None: CORNER_RINGS whatever the edges. CORNER_RINGS was set on 48²
# tablecloths (3.8 cm edges, 4 rings: 15 cm); a 24² cloth's 4 rings (7.8 cm edges) reach 31 cm, and that surplus kept
# the cloth resting on a box moving (its inner top 1.9 mm a frame; 0.16: 2 rings, 0.04 mm). 48² and finer: 4 rings, as
# before. Off: with 1 ring least the 24² fan disc (15 cm median edge) slid 10 cm over 30 frames on the table, with 2 its
# few vertices resting on the box moved more (1.5 -> 6.7 mm a frame), and the suite was run with 1 only (docs/design.md,
# round 25 (rest25)). The candidate: 0.16 with LEAST_RINGS 2 (test_resting_on_a_box sets it), measured by REACH_BY.
REACH: float | None = None
LEAST_RINGS = 2
# What REACH is measured in (round 26 (reach_r26)): "quartile", the lower quartile of the cloth's structural rest
# lengths; "median", their median (round 25). The same on the grids (one edge length; the triangulated grid's diagonals
# are its longer third), but a fan disc's median is a spoke (15 cm at 24²) while 37 % of its edges run along its
# circles (2.9 cm): by the median it got 1 ring (slid 10 cm on the table) or LEAST_RINGS 2, by the quartile it keeps
# its 4 (its rows as with REACH off). The jittered grid's quartile is shorter than its median: 24² 2 rings either way,
# 32² 3 (median 2). Still off at 32²: 3 rings left the box quad resting 0.23 -> 0.72 mm a frame and the jittered
# tablecloth's corners 4.3 -> 11 % (docs/design.md, round 26). (A ring's shortest way back to the seeds, "nearest",
# gave the jittered 24² cloth 3 rings, its box rows twice the median's: dropped, commit 191eb9d.)
REACH_BY = "quartile"
_CACHED = 32  # seed sets kept per cloth
TOLERANCE = STRETCH_TOLERANCE  # of the rest length: less stretch is left to the sweeps
_EPS = 1e-12


def _edge_lengths(rest: np.ndarray) -> tuple[float, float]:
    """The median and the lower quartile of a cloth's structural rest lengths (0 without edges)."""
    if not len(rest):
        return 0.0, 0.0
    return float(np.median(rest)), float(np.quantile(rest, 0.25))


class _Ring(NamedTuple):
    inner: np.ndarray  # (E,) each edge's inner end (a vertex of the ring before)
    outer: np.ndarray  # (E,) its outer end (a vertex first reached in this ring)
    rest: np.ndarray  # (E,) its rest length
    source: np.ndarray  # (E,) where its inner end is among the ring before's rows
    origin: np.ndarray  # (E,) the seed it was reached from (its place among the seeds)
    rows: np.ndarray  # (R,) the ring's vertices, sorted
    at: np.ndarray  # (E,) where its outer end is among them
    # (kept with the rings so that a call does no arithmetic on topology alone)
    slots: np.ndarray  # (6, E) its outer end's place in the six channels' bincount
    pull_slots: np.ndarray | None  # (3, R) each row's place in the three channels of the pull per seed, or None
    span: slice  # its edges' place among all the rings' (_Rings.outer ...)
    number: int  # its place among the rings
    rows_at: slice  # its rows' place among the seeds' and all the rings' rows (_Rings.local)
    row_span: slice  # their place among the rings' rows alone (_Rings.local less the seeds)
    inner_at: np.ndarray  # (E,) where its inner end is among them


class _Rings(NamedTuple):
    rings: list[_Ring]
    outer: np.ndarray  # (E,) all the rings' edges' outer ends, ring after ring (unmoved before their ring)
    origin: np.ndarray  # (E,) their seeds
    rest: np.ndarray  # (E,) their rest lengths
    down: np.ndarray  # (E,) -DOWNHILL x rest: how much lower its outer end must lie to hang
    tolerance: np.ndarray  # (E,) TOLERANCE x rest
    outer_at: np.ndarray  # (E,) where their outer ends are among the rows (`local`)
    local: np.ndarray  # (M,) the seeds, then the rings' rows, ring after ring: the rows a call moves
    flat: np.ndarray  # (3 (M - S),) the rings' rows' coordinates' places in a flattened (N, 3) array
    pull_slots: np.ndarray  # (3, M - S) each ring row's place in the bincount of the pull per ring, channel and seed
    alike: bool  # whether every ring's rows have one seed each (else pull_slots is filled per call where not)
    channels: np.ndarray  # (rings, 3) each ring's channels' first places in that bincount
    limits: dict  # {slack: (1 + slack) x rest}


_RINGS: dict = {}  # id(graph.neighbours) -> (a weak reference to it, {(seed bytes, count): rings}, {asked: ...})
_CLOTHS = 8  # cloths kept
_ASKED = 4 * _CACHED  # seed arrays as asked (unsorted, repeated) kept per cloth


def _rings(graph: StructuralGraph, asked: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray, _Rings, np.ndarray]:
    """The seeds `asked` sorted and unique, where each is first among them, the first `count` rings of
    structural edges breadth first from them, and for each of the rings' edges the place of its seed in `asked`.
    Kept per seed set (the walk) and per seed array as asked (a drape asks 55-80 arrays of 17-49 sets: kept by the
    array alone, 32 entries thrashed; docs/design.md, round 16 (ringbatch19))."""
    entry = _RINGS.get(id(graph.neighbours))
    if entry is None or entry[0]() is not graph.neighbours:
        _RINGS.pop(id(graph.neighbours), None)  # (a dead cloth's: its id taken again)
        entry = kept(
            _RINGS, id(graph.neighbours), _CLOTHS,
            lambda: (weakref.ref(graph.neighbours), {}, {}, *_edge_lengths(graph.rest)),
        )  # fmt: skip
    edge = entry[4] if REACH_BY == "quartile" else entry[3]
    if REACH is not None and edge > 0.0:
        count = max(LEAST_RINGS, min(count, int(np.floor(REACH / edge + 0.5))))
    by_set: dict[tuple[bytes, int], _Rings] = entry[1]
    by_asked: dict[tuple[bytes, int], tuple[np.ndarray, np.ndarray, _Rings, np.ndarray]] = entry[2]

    def walked() -> tuple[np.ndarray, np.ndarray, _Rings, np.ndarray]:
        seeds, first = np.unique(asked, return_index=True)
        found = kept(by_set, (seeds.tobytes(), count), _CACHED, lambda: _walk(graph, seeds, count))
        return seeds, first, found, first.take(found.origin)

    return kept(by_asked, (asked.tobytes(), count), _ASKED, walked)


def _walk(graph: StructuralGraph, seeds: np.ndarray, count: int) -> _Rings:
    """The first `count` rings of structural edges breadth first from `seeds` (sorted, unique)."""
    reached = np.zeros(len(graph.starts) - 1, dtype=bool)
    reached[seeds] = True
    rings: list[_Ring] = []
    frontier = seeds
    origin = np.arange(len(seeds))  # (the frontier's seeds)
    channels = np.arange(3) * len(seeds)
    first, row = 0, len(seeds)  # (the first ring's edges' and rows' places)
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
        before = row - len(frontier)  # (the frontier's place among the rows)
        ring = _Ring(
            frontier.take(source), outer, rest, source, edge_origin, rows, at,
            (np.arange(6) * len(rows))[:, None] + at, channels[:, None] + origin if alike else None,
            slice(first, first + len(outer)), len(rings), slice(row, row + len(rows)),
            slice(row - len(seeds), row - len(seeds) + len(rows)), before + source,
        )  # fmt: skip
        rings.append(ring)
        first += len(outer)
        row += len(rows)
        frontier = rows

    def joined(parts, empty) -> np.ndarray:
        return np.concatenate(parts, axis=-1) if parts else empty

    rest = joined([r.rest for r in rings], np.zeros(0))
    rows = joined([r.rows for r in rings], np.zeros(0, dtype=np.int64))
    ring_channels = (np.arange(len(rings)) * 3 * len(seeds))[:, None] + channels
    pull_slots = [np.zeros((3, len(r.rows)), dtype=np.int64) if r.pull_slots is None else r.pull_slots for r in rings]
    return _Rings(
        rings,
        joined([r.outer for r in rings], np.zeros(0, dtype=np.int64)),
        joined([r.origin for r in rings], np.zeros(0, dtype=np.int64)),
        rest,
        -DOWNHILL * rest,
        TOLERANCE * rest,
        joined([r.rows_at.start + r.at for r in rings], np.zeros(0, dtype=np.int64)),
        np.concatenate([seeds, rows]),
        (rows[:, None] * 3 + np.arange(3)).ravel(),
        joined([slots + r.number * 3 * len(seeds) for slots, r in zip(pull_slots, rings)], np.zeros((3, 0), np.int64)),
        all(r.pull_slots is not None for r in rings),
        ring_channels,
        {},
    )


class SupportPlan(NamedTuple):
    """What `support_hanging` works out from its seeds, corners, masses and slack alone (no positions): the same
    for every call with the same ones (a corner pass's contacts, held on the substeps between passes)."""

    seeds: np.ndarray  # the seeds sorted and unique
    found: _Rings
    corner_at: np.ndarray  # (E, 3) each ring edge's seed's corner
    facing: np.ndarray  # (3, E) its faces' mean normal
    free_all: np.ndarray  # (E,) whether its outer end is free
    tolerance_all: np.ndarray  # (E,) TOLERANCE x rest, +inf where the outer end is fixed
    limit_all: np.ndarray  # (E,) (1 + slack) x rest


def support_plan(seeds, graph: StructuralGraph, inv_mass, slack: float, points, normals) -> SupportPlan | None:
    """`support_hanging`'s plan for these seeds (rows of x), masses, slack and corners (points, normals (3, S));
    None: no ring to support (the seeds have no free neighbours)."""
    seeds, first, found, corner_of = _rings(graph, seeds, CORNER_RINGS)
    if not found.rings:
        return None
    corner_at = points.T.take(corner_of, axis=0)
    facing = normals.take(corner_of, axis=1)
    free_all = inv_mass.take(found.outer) > 0.0
    tolerance_all = np.where(free_all, found.tolerance, np.inf)
    limit_all = found.limits.get(slack)
    if limit_all is None:
        limit_all = found.limits[slack] = found.rest * (1.0 + slack)
    return SupportPlan(seeds, found, corner_at, facing, free_all, tolerance_all, limit_all)


def support_hanging(
    x, x_start, seeds, graph: StructuralGraph, inv_mass, slack: float, up, points, normals, friction: float = 0.0,
    plan: SupportPlan | None = None,
) -> None:  # fmt: skip
    """Shorten the stretched structural edges hanging from `seeds` (rows of x), ring by ring outward (see the
    module doc), in place on x and x_start; `up`: the unit vector against gravity (3,); points, normals (3, S):
    each seed's corner and its faces' mean normal (the cloth beyond the corner's mean plane hangs from it too).
    friction: the corner's; the momentum the moves gave the hanging cloth pulls the cloth on the top
    next to its seed (`_pull_the_top`). plan: `support_plan` of these seeds, graph, inv_mass, slack, points and
    normals, made once for the calls that share them (the same arithmetic); None: made here."""
    if plan is None:
        plan = support_plan(seeds, graph, inv_mass, slack, points, normals)
        if plan is None:
            return
    seeds, found = plan.seeds, plan.found
    # The rows the rings move (the seeds, then each ring's rows), now and at the substep's start, gathered once:
    # (2, M, 3). Each ring reads its inner ends there (the ring before's moves included) and moves its rows there,
    # and they go back to x and x_start once at the end (the same arithmetic as moving x and x_start ring by ring).
    local = np.empty((2, len(found.local), 3))
    x.take(found.local, axis=0, out=local[0])
    x_start.take(found.local, axis=0, out=local[1])
    # What does not change before an edge's ring, for all the rings' edges at once: a ring moves only its own outer
    # ends (first reached in it), so their positions, the side of the corner's mean plane they lie on, whether they
    # are free, and their limits are the same when their ring comes. An edge beyond the corner's mean plane hangs
    # whatever its slope (a lower bound of +inf), a fixed outer end is never moved (a tolerance of +inf).
    outer = local.take(found.outer_at, axis=1)
    # (beyond the corner's mean plane)
    beyond_all = c_einsum("ij,ji->i", outer[0] - plan.corner_at, plan.facing) > 0.0
    free_all, tolerance_all, limit_all = plan.free_all, plan.tolerance_all, plan.limit_all
    down_all = np.where(beyond_all, np.inf, found.down)
    live = None  # (the ring before's vertices the support reached; None: all, the seeds)
    # (the reaction: each row's moves' dynamic part x its mass after the rings, per ring and seed in one bincount)
    kicks = np.zeros((3, len(found.flat) // 3))
    moved = np.zeros(len(found.flat) // 3, dtype=bool)
    pull_slots = found.pull_slots if found.alike else found.pull_slots.copy()
    top = None  # (the seeds' own edges to cloth that does not hang: on the top, for the reaction)
    # Every edge of a ring in each array (the ones that do not hang with zero corrections: a bincount adds their
    # zeros, a row no edge moved is moved by zero, so the same sums and positions as the hanging edges' alone).
    for ring in found.rings:
        span, edges, count = ring.span, len(ring.inner), len(ring.rows)
        # Each edge now and where it started the substep (its inner end's moves in the ring before included), and
        # their lengths in one einsum.
        pair = outer[:, span] - local.take(ring.inner_at, axis=1)
        pair = pair.reshape(2 * edges, 3)
        lengths = np.sqrt(c_einsum("ij,ij->i", pair, pair))
        d, length, started = pair[:edges], lengths[:edges], lengths[edges:]
        limit = limit_all[span]
        stretch = np.empty((2, edges))  # (the stretch now, then the stretch it started the substep with)
        excess = np.subtract(length, limit, out=stretch[0])
        hanging = d @ up < down_all[span]
        if top is None:
            top = ~hanging
        if live is not None:
            hanging &= live.take(ring.source)
        hanging &= excess > tolerance_all[span]
        if not np.count_nonzero(hanging):
            break  # the support's stretch ends here
        old = np.minimum(started, length, out=stretch[1])  # the stretch it started the substep with
        old -= limit
        np.maximum(old, 0.0, out=old)
        # Each edge's correction of its outer end and the share of it that settles (moves the start too), unit
        # inner to outer, summed per outer end in one bincount of six channels.
        scale = np.zeros((2, edges))
        np.divide(stretch, length, out=scale, where=hanging)
        weights = d.T[None] * scale[:, None]
        total = np.bincount(ring.slots.ravel(), weights=weights.ravel(), minlength=6 * count).reshape(6, count)
        share = np.bincount(ring.at, weights=hanging, minlength=count)
        live = np.greater(share, 0.0, out=moved[ring.row_span])
        np.divide(total, share, out=total, where=live)
        rows = local[:, ring.rows_at]
        np.subtract(rows, total.reshape(2, 3, count).transpose(0, 2, 1), out=rows)
        # (the reaction's kicks)
        kick = kicks[:, ring.row_span]
        np.subtract(total[:3], total[3:], out=kick)
        if ring.pull_slots is None:  # (its rows' seeds: each one's last hanging edge's)
            which = hanging.nonzero()[0]
            origin = np.zeros(count, dtype=np.int64)
            origin[ring.at.take(which)] = ring.origin.take(which)
            pull_slots[:, ring.row_span] = found.channels[ring.number][:, None] + origin
    # (x[rows] -= total[:3].T ring by ring, the same arithmetic; fancy assignment costs twice the put)
    x.put(found.flat, local[0, len(seeds) :])
    x_start.put(found.flat, local[1, len(seeds) :])
    if top is not None:
        # (the pull as the sum of each ring's bincount, ring after ring: rows not moved add zeros)
        np.divide(kicks, inv_mass.take(found.local[len(seeds) :]), out=kicks, where=moved)
        per_ring = np.bincount(pull_slots.ravel(), weights=kicks.ravel(), minlength=found.channels.size * len(seeds))
        pull = np.add.reduce(per_ring.reshape(len(found.rings), 3, len(seeds)), axis=0)
        if np.count_nonzero(pull):
            first_ring = found.rings[0]
            _pull_the_top(x, inv_mass, first_ring, top, free_all[first_ring.span], pull, up, friction)


def _pull_the_top(
    x, inv_mass, ring: _Ring, top: np.ndarray, free: np.ndarray, pull: np.ndarray, up, friction: float
) -> None:
    """Move the seeds' neighbours on the top (`top` edges of the first `ring`) by the hanging cloth's `pull` (3, S),
    per seed (mass x displacement, momentum): across gravity only (the corner carries the weight), less what friction
    holds over the bend (the capstan rule, exp(-friction x the angle the pull bends over the top)), all moved alike.
    free: (E,) whether each of its edges' outer ends is free."""
    top &= free
    which = top.nonzero()[0]
    if len(which) == 0:
        return
    along = up @ pull
    down = np.maximum(-along, 0.0)
    pull -= up[:, None] * along
    across = np.sqrt(c_einsum("ij,ij->j", pull, pull))
    pull *= np.exp(-friction * np.arctan2(down, across))
    origin, outer = ring.origin.take(which), ring.outer.take(which)
    mass = np.bincount(origin, weights=1.0 / inv_mass.take(outer), minlength=pull.shape[1])
    x[outer] += (pull.take(origin, axis=1) / mass.take(origin)).T  # (all alike: a light one is not flung)
