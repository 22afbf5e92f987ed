"""The edge pass's Verlet list of (cloth edge, sharp edge) candidate pairs (solver/edge_contacts.py): per-vertex
skins, the pairs' box separations, and the cull of pairs that cannot touch, so a resting cloth queries nothing and
the pass's closest points see few pairs."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .clearance import Clearance
from .sharp_rules import _EMPTY
from .triangle_grid import GROUPED_MOST, overlapping
from .triangles import dot
from .vectors import c_einsum

if TYPE_CHECKING:
    from .sharp_edges import SharpEdges

# The candidate list's skin, in longest cloth edges (twice the longest rest edge): a falling cloth
# queries every few substeps near the sharp edges, a resting one never. (Pairs not yet within reach
# are not handed out, so a wide skin costs little; see _EdgeList.)
_SKIN = 2.0
# A still mesh's list gives each vertex a skin of its own when anchored: _SKIN_PASSES times its motion over
# the pass, within _LEAST_SKIN.._SKIN longest cloth edges. Cloth lying on a table top kept ~9 cm boxes that
# reached the legs' edges through the top (the round-legged table's list: 54,000 -> 20,000 pairs, for
# 68 queries in 24 frames instead of 47; docs/design.md, round 10 (table12)).
_LEAST_SKIN = 1.0
_SKIN_PASSES = 4.0
# When some vertex strays half a skin, every vertex that strayed this fraction of it is queried too:
# a swinging cloth's vertices stray one after another, and each query costs fixed calls.
_REFRESH = 0.5
_BOUND_SHORT = 1.0 - 1e-9  # (the drift bound is a sum of roundings: short of the reach by more than them)
# A still mesh's list gives a vertex anchored far from every sharp edge a half skin as wide as keeps its box clear
# of them all (`Clearance`, cells of _ROOM_CELL half skins): the hanging cloth swinging a few cm between the legs
# queried the list ~2 times a frame, each time for a handful of vertices ~10-40 cm from any sharp edge.

_ROOM_CELL = 0.5
# A deforming mesh's (its list is made afresh every frame, so the skin need only cover a frame's motion).
_FRAME_SKIN = 0.5
# Box pairs up to which the candidate query compares all boxes with all (a TriangleGrid over a few
# long sharp edges cost ~3 ms a query of a few thousand cloth edges; all against all ~0.5; but 12k cloth
# edges against a deforming ground's 252 rim edges, 3 M pairs, 12.8 ms against the grid's 3).
_BRUTE = 1 << 20

# CULL_APART (a rule, folded in round 24):
# A still mesh's candidate pairs whose cloth edge lies, at the path's end, on one side of a plane through the sharp
# edge further than its travel + the gap, and through neither face, leave the pass before its closest points
# (`_cull_apart`, in `_EdgeList.pairs`, which keeps them out until their ends move far enough): they push nothing and
# the hold gets none of them, so the drapes are the same to the last bit. On a low-poly ball every edge is sharp and
# its boxes are wide: 920 pairs a pass met the boxes, 75 were contacts; 319 are handed out now (docs/design.md, round
# 18 (coarse21)).
# SHORT_UNLISTED (a rule, folded in round 24):
# Where every sharp edge is sharp for long cloth edges alone (`SharpEdges.least`: a torus's ridges under a 64² cloth),
# the Verlet list leaves out the cloth edges shorter than the least of those at the pass's start and end (whose pairs
# `SharpEdges.pairs` drops), checks them every pass and queries those grown long (their ends anchored afresh): the
# pass gets the same pairs (bit-identical) without querying, listing and boxing theirs (docs/design.md, round 20
# (ridge23)).
_CULL_ROUNDING = 1e-9  # m
_FAR = 1e30  # m: no pass yet (finite, so that a bound less a motion stays a number)


class _EdgeList:
    """A Verlet list of (cloth edge, sharp edge) pairs: each cloth edge's pairs are found for the box of
    its ends' `anchor`s (their places when it was last queried) grown by the larger of their half skins
    (`reach`: each vertex's own, from its motion when anchored), and kept while both ends stay within
    their own of their anchors; a vertex that strays further is anchored afresh and
    its edges queried again (a cloth resting on a table queries nothing, a swinging corner a few edges).

    Each pair keeps a lower bound of how far the box of its ends' places at the last pass (`last`) was
    from the sharp edge's box (grown by the gap): while neither end has moved that far since, the cloth
    edge's swept box cannot meet the sharp edge's, so the pair is not handed out (as face_collision's
    `_live`). Handed-out pairs get their exact separation, the others the bound less the motion since."""

    def __init__(self, edges, n: int, gap: float, skin: float, least: float | None = None):
        self.edges, self.gap, self.half = edges, gap, 0.5 * skin
        self._ends = (edges[:, 0].copy(), edges[:, 1].copy())  # (each cloth edge's ends, contiguous)
        self.least = self.half if least is None else 0.5 * least
        self.anchor = np.full((3, n), np.inf)
        self.reach = np.full(n, self.half)  # each vertex's half skin, by its motion when last anchored
        self.last = np.full((3, n), _FAR)
        self.e = self.s = self.i = self.j = _EMPTY
        self.apart = np.zeros(0)  # each pair's lower bound of its box separation at the last pass
        self.queries = 0
        self._stray = np.empty(n)  # reused: each vertex's squared stray from its anchor this substep
        self.drift = np.full(n, np.inf)  # each vertex's bound of its distance from its anchor at `last`
        self._moved = np.empty(n)  # reused: each vertex's squared motion since the last pass
        self._movable: tuple = (None, None)
        self._step = np.empty((3, n))
        self._clearance: tuple = (None, None)  # (the grid, a Clearance of its boxes: `_room`)
        self.room = np.full(n, -np.inf)  # each vertex's room at its anchor (`_room`; -inf: none known)
        # The least cloth edge length the sharp edges are sharp for (`SharpEdges.least`, 0: any): a cloth edge
        # shorter at a pass's start and end is not listed (`_short`), and is queried when it is no longer so
        # (SHORT_UNLISTED).
        self.shortest = 0.0
        self._short = np.zeros(len(edges), dtype=bool)
        self._short_ids = _EMPTY

    def pairs(self, inv_mass, p0, p1, grid, planes=None):
        """(e, s, i, j, start, end, travel): the listed pairs whose cloth edge's swept box meets the sharp edge's
        box this substep (cloth edge, sharp edge, its two ends, the ends' places (3, P) at the substep's start
        and end, and with `planes` each cloth edge's travel (P,), its ends' larger motion, as `_cull_apart` found
        it, else None), in a fixed order; None: none."""
        moved = squared_stray(p0, p1, self.last, self._moved, self._step)
        np.sqrt(moved, out=moved)
        # A vertex's stray from its anchor is at most its bound at the last pass plus its motion since: only when
        # that passes its reach somewhere is the stray measured (the same queries; resting cloth measures none).
        drift = np.add(self.drift, moved, out=self.drift)
        grown = None  # (SHORT_UNLISTED: the unlisted short edges grown long, their ends queried afresh)
        if len(self._short_ids):
            grown = self._short_ids.compress(~self._shorter(self._short_ids, p0, p1))
            grown = None if len(grown) == 0 else grown
        if grown is not None or (drift > _BOUND_SHORT * self.reach).any():
            stray = squared_stray(p0, p1, self.anchor, self._stray, self._step)
            np.sqrt(stray, out=stray)
            if grown is not None or (stray > self.reach).any():
                strayed = stray > _REFRESH * self.reach
                if grown is not None:
                    strayed[self._ends[0].take(grown)] = True
                    strayed[self._ends[1].take(grown)] = True
                self._query(strayed, inv_mass, p0, p1, grid)
            np.copyto(drift, stray)  # (>= each vertex's distance at p1 from its anchor; 0 where anchored afresh)
        self.last[...] = p1
        if len(self.e) == 0:
            return None
        if len(self.e) > len(self.edges):  # (more pairs than cloth edges: each cloth edge's, then its pairs')
            reach = np.maximum(moved.take(self._ends[0]), moved.take(self._ends[1])).take(self.e)
        else:
            reach = np.maximum(moved.take(self.i), moved.take(self.j))
        live = (self.apart <= reach).nonzero()[0]
        self.apart -= reach  # (a bound at this pass for the pairs not handed out; exact for the others below)
        if len(live) == 0:
            return None
        e, s, i, j = self.e.take(live), self.s.take(live), self.i.take(live), self.j.take(live)
        box_low, box_high = grid.low.take(s, axis=1), grid.high.take(s, axis=1)
        end = [p1.take(i, axis=1), p1.take(j, axis=1)]
        end_high, end_low = np.maximum(end[0], end[1]), np.minimum(end[0], end[1])
        self.apart[live] = _box_apart(end_low, end_high, box_low, box_high)
        # Only pairs whose cloth edge's swept box meets the sharp edge's box grown by the gap can touch.
        # (Grown by a fraction of an edge more for rims, to catch cloth edges through a rim's face further
        # below it: 0.5 of the longest edge slid the cloth off a zero-thickness wall, 0.1 changed nothing.)
        start = [p0.take(i, axis=1), p0.take(j, axis=1)]
        high = np.maximum(np.maximum(start[0], start[1]), end_high)
        low = np.minimum(np.minimum(start[0], start[1]), end_low)
        high -= box_low
        low -= box_high
        high, low = high >= 0.0, low <= 0.0
        meets = (high[0] & high[1] & high[2] & low[0] & low[1] & low[2]).nonzero()[0]
        if len(meets) == 0:
            return None
        travel = None
        if planes is not None:  # (`_cull_apart`: those that cannot touch, their bound kept)
            first, second = [[m.take(meets, axis=1) for m in ends] for ends in (start, end)]
            culled, bound, kept, travel = _cull_apart(planes, s.take(meets), first, second, self.gap)
            if len(culled):
                place = live.take(meets.take(culled))
                self.apart[place] = np.maximum(self.apart.take(place), bound)
                meets, travel = meets.take(kept), travel.take(kept)
                if len(meets) == 0:
                    return None
        # By sharp edge, then cloth edge, whatever order the list keeps them in: a vertex's pushes are summed in
        # this order, so how the list is kept (its queries' times) changes no result, not even its last bits.
        order = np.argsort(s.take(meets) * len(self.edges) + e.take(meets))
        meets = meets.take(order)
        if travel is not None:
            travel = travel.take(order)
        e, s, i, j = e.take(meets), s.take(meets), i.take(meets), j.take(meets)
        return e, s, i, j, [m.take(meets, axis=1) for m in start], [m.take(meets, axis=1) for m in end], travel

    def _query(self, strayed, inv_mass, p0, p1, grid) -> None:
        """Anchor the strayed vertices where they are and find their edges' pairs again."""
        self.queries += 1
        which = strayed.nonzero()[0]
        anchored = p1.take(which, axis=1)
        self.anchor[:, which] = anchored
        self._stray[which] = 0.0  # (their bound from the new anchor: `pairs`' drift)
        if self.least < self.half:  # a half skin of _SKIN_PASSES passes' motion, within least..half
            motion = anchored - p0.take(which, axis=1)
            motion = np.sqrt(dot(motion, motion)) * _SKIN_PASSES
            reach = np.clip(motion, self.least, self.half)
            room = self.room[which] = self._room(grid, anchored)
            np.maximum(reach, room, out=reach)
            self.reach[which] = reach
        first, second = self.edges[:, 0], self.edges[:, 1]
        again = strayed.take(first) | strayed.take(second)
        if len(self.e):
            keep = (~again.take(self.e)).nonzero()[0]
            self.e, self.s, self.i, self.j, self.apart = (
                m.take(keep) for m in (self.e, self.s, self.i, self.j, self.apart)
            )
        if self._movable[0] is not inv_mass:  # edges with a free end (kept while the masses are)
            self._movable = (inv_mass, (inv_mass.take(first) > 0.0) | (inv_mass.take(second) > 0.0))
        again &= self._movable[1]
        use = again.nonzero()[0]
        if self.shortest > 0.0 and len(use):  # (SHORT_UNLISTED: short for every sharp edge, not listed)
            short = self._shorter(use, p0, p1)
            self._short[use] = short
            self._short_ids = self._short.nonzero()[0]
            use = use.compress(~short)
        if len(use) == 0:
            return
        # Each edge's box: its ends' anchors and starts (a strayed vertex's start may be far from its new anchor).
        i, j = first.take(use), second.take(use)
        points = [p.take(v, axis=1) for p in (self.anchor, p0) for v in (i, j)]
        reach_i, reach_j = self.reach.take(i), self.reach.take(j)
        # Each end's anchor grown by its own half skin (with a wide one far from the sharp edges, the edge's box
        # grown by the wider would reach them), and its start (the box holds this pass's path too).
        low = np.minimum(np.minimum(points[0] - reach_i, points[1] - reach_j), np.minimum(points[2], points[3]))
        high = np.maximum(np.maximum(points[0] + reach_i, points[1] + reach_j), np.maximum(points[2], points[3]))
        # Quick: not within its first end's room (an edge far from every sharp edge), and within the sharp edges'
        # bounds.
        room_i = self.room.take(i)
        clear = (low >= points[0] - room_i).all(axis=0) & (high <= points[0] + room_i).all(axis=0)
        near = ~clear
        for k in range(3):
            near &= (high[k] >= grid.lower[k]) & (low[k] <= grid.upper[k])
        near = near.nonzero()[0]
        if len(near) == 0:
            return
        low, high = low.take(near, axis=1), high.take(near, axis=1)
        if grid.triangle_count <= GROUPED_MOST:  # a few hundred sharp edges: by groups of neighbours
            q, s = grid.groups().overlapping(low, high)
        elif len(near) * grid.triangle_count <= _BRUTE:  # few boxes: all against all beats the grid's fixed cost
            q, s = overlapping(low, high, grid.low, grid.high)
        else:
            q, s = grid.query_boxes(low.T, high.T)
        if len(q):
            e = use.take(near.take(q))
            i, j = first.take(e), second.take(e)
            self.e, self.s = np.concatenate([self.e, e]), np.concatenate([self.s, s])
            self.i, self.j = np.concatenate([self.i, i]), np.concatenate([self.j, j])
            # (at the last pass's places, as the kept pairs': `pairs` brings all to this pass)
            kept = len(self.apart)
            apart = np.empty(kept + len(s))
            apart[:kept] = self.apart
            _ends_apart(self.last, i, j, grid.low, grid.high, s, apart[kept:])
            self.apart = apart

    def _shorter(self, e, p0, p1) -> np.ndarray:
        """Whether each cloth edge e is shorter than `shortest` at this pass's start and end (as `SharpEdges.pairs`
        measures them: it drops such an edge's pairs with every sharp edge)."""
        i, j = self._ends[0].take(e), self._ends[1].take(e)
        least = self.shortest * self.shortest
        span = p0.take(j, axis=1) - p0.take(i, axis=1)
        short = dot(span, span) < least
        span = p1.take(j, axis=1) - p1.take(i, axis=1)
        short &= dot(span, span) < least
        return short

    def _room(self, grid, points) -> np.ndarray:
        """How far (along any axis) each of points (3, k) may move and stay clear of every sharp edge's box."""
        if self._clearance[0] is not grid:
            self._clearance = (grid, Clearance(grid.low, grid.high, 0.0, _ROOM_CELL * self.half))
        room = self._clearance[1].room(points)
        outside = np.maximum(grid.lower[:, None] - points, points - grid.upper[:, None])  # (off the map: its bounds)
        return np.maximum(room, outside.max(axis=0), out=room)


def squared_stray(p0, p1, reference, out, step) -> np.ndarray:
    """Each vertex's squared distance from `reference` (3, N), the larger at the substep's start and end."""
    # (the rows summed in order, as sum(axis=0) adds them, without its wrapper: ~3 us of ~10 at 400 vertices)
    np.subtract(p1, reference, out=step)
    step *= step
    np.add(step[0], step[1], out=out)
    out += step[2]
    np.subtract(p0, reference, out=step)
    step *= step
    other = step[0] + step[1]
    other += step[2]
    return np.maximum(out, other, out=out)


def _ends_apart(points, i, j, box_low, box_high, s, out) -> np.ndarray:
    """`_box_apart` of the boxes of points (3, N) i and j (P,) from boxes s (P,) of box_low..box_high (3, S), into
    out (P,), in blocks of _APART_BLOCK (the same values, with no temporaries the size of the list: a query may add
    ~35,000 pairs, and a fresh array that large costs more in page faults than its arithmetic)."""
    for start in range(0, len(s), _APART_BLOCK):
        block = slice(start, start + _APART_BLOCK)
        a, b, sb = points.take(i[block], axis=1), points.take(j[block], axis=1), s[block]
        low, high = np.minimum(a, b), np.maximum(a, b, out=a)
        out[block] = _box_apart(low, high, box_low.take(sb, axis=1), box_high.take(sb, axis=1))
    return out


_APART_BLOCK = 4096  # (32 KB temporaries: they come back from the allocator's free lists, no page faults)


def _box_apart(low, high, box_low, box_high) -> np.ndarray:
    """Distance (largest along an axis) from each box low..high (3, P) (a cloth edge's ends') to each box
    box_low..box_high: the cloth edge's swept box cannot meet it unless an end moves that far."""
    # Row by row into one array (the same maxima: exact; ~1/3 of the (3, P) temporaries and no strided reduction)
    apart = np.subtract(box_low[0], high[0])
    np.maximum(apart, np.subtract(low[0], box_high[0]), out=apart)
    for k in (1, 2):
        np.maximum(apart, np.subtract(box_low[k], high[k]), out=apart)
        np.maximum(apart, np.subtract(low[k], box_high[k]), out=apart)
    return np.maximum(apart, 0.0, out=apart)


def _planes_of(sharp: SharpEdges):
    """`_cull_apart`'s constants per sharp edge: four unit directions at right angles to it (3 each: its faces'
    normals and the directions into them; an edge on one face: its other two zero), each one's offset at the edge
    (u · a), and its other face's least side margin (inf on one face: nothing to go through, else 0), kept on
    `sharp`."""
    if sharp._planes is None:
        directions = np.stack([sharp.out_face, sharp.out_other, sharp.into, sharp.into_other])
        one = dot(sharp.into_other, sharp.into_other) < 0.5  # (an edge on one face: no other face to go through)
        sharp._planes = (directions, np.einsum("kjs,js->ks", directions, sharp.a), np.where(one, np.inf, 0.0))
    return sharp._planes


def _cull_apart(planes, s, start, end, gap: float):
    """Of a still mesh's candidate pairs (sharp edges s, their cloth edges' two ends (3, P) at the path's start and
    end): the places of those that cannot touch, a bound for each of them as `_EdgeList.apart`'s, the places of the
    others. One cannot where both of its cloth edge's ends lie, at the path's end, on one side of a plane through
    the sharp edge (its faces', or across it in them) further from it than the cloth edge's travel + the gap (so
    further from the sharp edge: never `close`, nor near for the hold, whose reach is within that), and the cloth
    edge crosses neither face (both ends off its plane on one side, or behind its edge's line in that plane): never
    `through`. The bound: how far its ends may move (each pass's larger motion, summed) and still be such, the
    travel being at most twice a pass's motion: (margin beyond the plane - the gap) / 3, and the sides' margins.
    Last, each pair's travel (the larger of its ends' motions), for `collide_edges`."""
    directions, offsets, one_face = planes
    (start_i, start_j), (end_i, end_j) = start, end
    moved_i, moved_j = end_i - start_i, end_j - start_j
    travel = np.maximum(dot(moved_i, moved_i), dot(moved_j, moved_j))
    np.sqrt(travel, out=travel)
    picked, at = directions.take(s, axis=2), offsets.take(s, axis=1)
    first = c_einsum("kjp,jp->kp", picked, end_i) - at
    second = c_einsum("kjp,jp->kp", picked, end_j) - at
    # (each direction's margin: how far both ends lie beyond the sharp edge on one side of it)
    larger = np.maximum(first, second)
    np.negative(larger, out=larger)
    margin = np.maximum(np.minimum(first, second), larger)
    beyond = margin.max(axis=0) - gap - _CULL_ROUNDING
    # each face: both ends off its plane on one side, or behind the edge in it (a one-face edge's other: none)
    sides = np.maximum(margin[:2], larger[2:])
    np.maximum(sides[1], one_face.take(s), out=sides[1])
    sides = sides.min(axis=0) - _CULL_ROUNDING
    apart = (beyond > travel) & (sides > 0.0)
    culled = apart.nonzero()[0]
    bound = np.minimum(beyond.take(culled) * (1.0 / 3.0), sides.take(culled))
    return culled, bound, (~apart).nonzero()[0], travel
