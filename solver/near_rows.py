"""Pairs near at rest that the face failsafe checks (never contacts): which of them can have met this substep.

A row (a vertex and a triangle, or two edges, as (4,) vertex rows) whose primitives were d apart when
it was last measured cannot meet while its vertices have moved by less than d relative to each other
since: a point of either primitive is a convex combination of its corners, so the distance between the
primitives shrinks by at most the largest relative motion of two corners. Each vertex's motion is
measured from an origin (the positions at the last reset) less a common translation (the cloth's
mean), as a running peak over every position the failsafe saw it at (substep starts and ends: any
point of the straight path between them is no farther, by convexity). A row measured at the end of a
substep keeps its distance less twice its corners' largest peak then (the motion up to that moment),
and is due again once twice its corners' largest peak reaches that. When a quarter of the rows are
due, every row is measured again from a new origin; when an origin does not last two substeps (violent
motion), every row is checked for a while with no bookkeeping (8 substeps, doubled each time, up to 64).
Checking every row cost the 128² quad sheet's 128 k rows 6.5 ms a substep (docs/self-collision.md, round 7).

Relative to the cloth's mean, a landing or swinging sheet's vertices move centimetres a substep, so every
row was due at once there (the 128² drape: every row checked from its first touch of the sphere on). A
row's corners are near on the cloth too: where a path of at most two mesh edges joins its first vertex to
each other corner, the corners' relative motion is bounded by the sums along those paths of each edge's
peak change (|(x_a - x_b) - (o_a - o_b)|, o the origin: unchanged by translation and small on a cloth
that bends slowly, however fast it moves), and a row is due only when the smaller of both bounds
reaches its distance (docs/self-collision.md, round 9). Each vertex is tested first: its reach (the largest
sum of edge changes along two edges from it) bounds the local bound of every row it is corner 0 of, so only the
rows of vertices reaching their rows' smallest clear are tested one by one (round 10: a flat 128² sheet
falling, 320 k rows, no row tested).
"""

from __future__ import annotations

import numpy as np

from .topology import adjacency
from .triangles import closest_points, dot, segment_closest
from .vectors import column_mean, columns_of, largest_of_rows

_EMPTY = np.zeros(0, dtype=np.int64)
_EVERY = 8  # substeps to check every row, with no bookkeeping, after an origin that did not last a substep
_LONGEST = 64  # ... doubled each time that happens again, up to this


def vertex_triangle_distances(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Distances from vertices to triangles, rows (vertex, a, b, c)."""
    P, A, B, C = (columns_of(x, rows[:, k]) for k in range(4))
    closest, _, _, _ = closest_points(P, A, B, C)
    P -= closest
    return np.sqrt(dot(P, P))


def edge_distances(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Distances between segments, rows (a, b, c, d)."""
    A, B, C, D = (columns_of(x, rows[:, k]) for k in range(4))
    s, t = segment_closest(A, B, C, D)
    gap = (A + (B - A) * s) - (C + (D - C) * t)
    return np.sqrt(dot(gap, gap))


def short_paths(edges: np.ndarray, n: int, source: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """((2, K) edge indices, (K,) found) of a path of at most two of `edges` (E, 2) joining each source
    vertex to its target; index E (a slot whose change stays 0) where a path has fewer edges or none."""
    count = len(edges)
    path = np.full((2, len(source)), count, dtype=np.int64)
    found = np.zeros(len(source), dtype=bool)
    if count == 0 or len(source) == 0:
        return path, found
    keys = np.minimum(edges[:, 0], edges[:, 1]) * n + np.maximum(edges[:, 0], edges[:, 1])
    order = np.argsort(keys, kind="stable")
    keys = keys[order]

    def edge_of(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        key = np.minimum(a, b) * n + np.maximum(a, b)
        at = np.minimum(np.searchsorted(keys, key), count - 1)
        return np.where(keys[at] == key, order[at], -1)

    one = edge_of(source, target)
    found = one >= 0
    path[0, found] = one[found]
    rest = np.flatnonzero(~found)
    if len(rest):
        start, heads = adjacency(n, edges)
        degree = np.diff(start)[source[rest]]
        which = np.repeat(np.arange(len(rest)), degree)
        slot = np.arange(int(degree.sum())) - np.repeat(np.cumsum(degree) - degree, degree)
        middle = heads[slot + np.repeat(start[source[rest]], degree)]
        second = edge_of(middle, target[rest][which])
        ok = np.flatnonzero(second >= 0)
        joined, first = np.unique(which[ok], return_index=True)
        pick, rows = ok[first], rest[joined]
        path[0, rows] = edge_of(source[rows], middle[pick])
        path[1, rows] = second[pick]
        found[rows] = True
    return path, found


def _row_paths(edges: np.ndarray, n: int, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """((6, K) edge indices: for corners 1, 2, 3 of each row, the two of its path from corner 0; (K,)
    whether every corner has one)."""
    paths, local = [], np.ones(len(rows), dtype=bool)
    for k in (1, 2, 3):
        path, found = short_paths(edges, n, rows[:, 0], rows[:, k])
        paths.append(path)
        local &= found
    return np.concatenate(paths) if paths else np.zeros((6, 0), dtype=np.int64), local


class NearRows:
    """The rows near at rest of one cloth, with the distance each keeps until it is due again."""

    def __init__(self, vt: np.ndarray, ee: np.ndarray, vertex_count: int, margin: float, edges=None, floor=None):
        self.vt, self.ee = vt, ee
        self.margin = float(margin)  # kept clear of contact: the failsafe counts a plane within this as met
        self.origin: np.ndarray | None = None
        self.origin_mean = np.zeros(3)
        self.peak = np.zeros(vertex_count)
        # The local bound: the cloth's edges, each one's peak change since the origin (one more slot: 0),
        # and each row's paths from its corner 0 (rows with a corner no short path reaches: the mean's bound).
        self.edges = np.zeros((0, 2), dtype=np.int64) if edges is None else np.asarray(edges, dtype=np.int64)
        self.edge_peak = np.zeros(len(self.edges) + 1)
        self.origin_edge = np.zeros((3, len(self.edges)))  # (3, E): each edge's vector at the origin
        self.origin_column = np.zeros((3, vertex_count))  # the origin as (3, N) rows
        self.vt_paths, self.vt_local = _row_paths(self.edges, vertex_count, vt)
        self.ee_paths, self.ee_local = _row_paths(self.edges, vertex_count, ee)
        if not (self.vt_local.any() or self.ee_local.any()):
            self.edges = np.zeros((0, 2), dtype=np.int64)  # no row uses the local bound: skip its bookkeeping
        self.edge_a, self.edge_b = self.edges[:, 0].copy(), self.edges[:, 1].copy()
        self.vt_clear = np.zeros(len(vt))
        self.ee_clear = np.zeros(len(ee))
        # Rows by their corner 0, for a first test per vertex: a row's local bound is at most its corner 0's
        # `_reach` (twice it for edge pairs), so a vertex whose reach is under its rows' smallest clear (`floor`)
        # has none due (a flat sheet falling or sliding: no row measured; 128² quad, 320 k rows, the failsafe
        # cost 3.5x the plain step there on bookkeeping alone). Rows with no short path are tested one by one.
        self.incidence = _Incidence(self.edges, vertex_count)
        self.vt_by_vertex = _Rows(vt[:, 0] if len(vt) else _EMPTY, self.vt_local, vertex_count)
        self.ee_by_vertex = _Rows(ee[:, 0] if len(ee) else _EMPTY, self.ee_local, vertex_count)
        self.every = 0  # substeps left checking every row
        self._age = 0  # substeps since the last reset
        self._wait = _EVERY  # substeps of checking every row next time an origin does not last
        self.vt_due = np.ones(len(vt), dtype=bool)
        self.ee_due = np.ones(len(ee), dtype=bool)
        self._vt_rows = self._ee_rows = _EMPTY  # the due rows (when `due` bounded them) and their bounds
        self._vt_rows_bound = self._ee_rows_bound = np.zeros(0)
        # Edge lengths the edges' peaks certify (see `shorter_than_floor`): `floor` (E,) per edge, or None.
        self.floor = None if floor is None or len(self.edges) == 0 else np.asarray(floor, dtype=np.float64)
        self.edge_slack = np.zeros(len(self.edges))  # each edge's length at the origin less its floor
        self.edge_slack_least = -np.inf
        self._peaked = False  # whether `due` measured the edges' peaks for this substep
        self._peak_most = np.inf  # their largest then
        self._seen: np.ndarray | None = None  # the (3, N) end whose edge changes the peaks last took

    def due(self, previous: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which vt and ee rows can have met on the straight paths from `previous` to `x` (bool masks)."""
        if len(self.vt) + len(self.ee) == 0:
            return self.vt_due, self.ee_due
        self._peaked = False
        if self.origin is None or len(self.origin) != len(x) or self.every > 0:
            self.vt_due[:] = True
            self.ee_due[:] = True
            return self.vt_due, self.ee_due
        shift = column_mean(previous) - self.origin_mean  # one common translation for both ends
        seen = self._seen
        for end in (previous, x):
            # Coordinate by coordinate ((3, N) rows: a sum over a (N, 3) row's axis is slow), in the same order.
            column = end.T.copy()
            moved = self._squares(column, self.origin_column, shift)
            np.maximum(self.peak, np.sqrt(moved), out=self.peak)
            # (the start is most often the last substep's end, whose edges the peaks took: the same changes)
            if len(self.edges) and not (end is previous and seen is not None and np.array_equal(column, seen)):
                change = self._squares(column, self.origin_edge, None)
                np.maximum(self.edge_peak[:-1], np.sqrt(change), out=self.edge_peak[:-1])
            self._seen = column
        if len(self.edges):
            self._peaked = True
            self._peak_most = float(self.edge_peak.max())
            # No vertex reaches farther than twice the largest edge change (the whole sheet at once first).
            widest = 2.0 * self._peak_most
            if widest < self.vt_by_vertex.least and widest + widest < self.ee_by_vertex.least:
                self._vt_asked, self._ee_asked = self.vt_by_vertex.alone, self.ee_by_vertex.alone
            else:
                reach = self.incidence.reach(self.edge_peak)
                self._vt_asked = self.vt_by_vertex.asked(reach >= self.vt_by_vertex.floor)
                self._ee_asked = self.ee_by_vertex.asked(reach + reach >= self.ee_by_vertex.floor)
        else:
            self._vt_asked, self._ee_asked = np.arange(len(self.vt)), np.arange(len(self.ee))
        # The due rows and their bounds, kept for `checked` (the peaks do not change in between).
        bound = self._vt_bound(self._vt_asked)
        due = np.flatnonzero(bound >= self.vt_clear[self._vt_asked])
        self._vt_rows, self._vt_rows_bound = self._vt_asked[due], bound[due]
        self.vt_due[:] = False
        self.vt_due[self._vt_rows] = True
        bound = self._ee_bound(self._ee_asked)
        due = np.flatnonzero(bound >= self.ee_clear[self._ee_asked])
        self._ee_rows, self._ee_rows_bound = self._ee_asked[due], bound[due]
        self.ee_due[:] = False
        self.ee_due[self._ee_rows] = True
        return self.vt_due, self.ee_due

    def shorter_than_floor(self) -> np.ndarray | None:
        """The edges that can have been shorter than their `floor` at some moment of the substep `due` was
        last given (straight paths), or None when it did not bound them (no floor, no origin, every row
        checked). An edge's vector there is its origin's plus a change on the segment between its changes at
        both ends, each at most its peak: its length is at least its origin's less its peak. Those within
        the floor of that are listed (a second floor's slack: the lengths and peaks are rounded)."""
        if self.floor is None or not self._peaked:
            return None
        if self._peak_most < self.edge_slack_least:
            return _EMPTY
        return np.flatnonzero(self.edge_peak[:-1] >= self.edge_slack)

    def _squares(self, column: np.ndarray, origin: np.ndarray, shift) -> np.ndarray:
        """Squared lengths of the vertices' (shift given) or the edges' (none) change since the origin;
        column: the positions as (3, N) rows, origin (3, N) or (3, E)."""
        squares = []
        for k in range(3):
            if shift is None:
                d = column[k].take(self.edge_a) - column[k].take(self.edge_b)
            else:
                d = column[k] - origin[k]
            d -= origin[k] if shift is None else shift[k]
            d *= d
            squares.append(d)
        return squares[0] + squares[1] + squares[2]

    def _local(self, paths: np.ndarray) -> list[np.ndarray]:
        """Each of corners 1, 2, 3's path sum of edge peaks, for (6, K) `paths`."""
        peak = self.edge_peak
        return [peak.take(paths[2 * k]) + peak.take(paths[2 * k + 1]) for k in range(3)]

    def _vt_bound(self, which) -> np.ndarray:
        """How far the vertex of vt rows `which` can have moved relative to their triangles' corners since
        the origin: the mean's bound, or the smaller local one (paths from the vertex to each corner)."""
        rows = self.vt[which]
        bound = 2.0 * largest_of_rows(self.peak, rows)
        if len(self.edges):
            one, two, three = self._local(self.vt_paths[:, which])
            local = np.maximum(np.maximum(one, two), three)
            np.minimum(bound, np.where(self.vt_local[which], local, np.inf), out=bound)
        return bound

    def _ee_bound(self, which) -> np.ndarray:
        """Likewise for ee rows (a, b, c, d): a's paths to b, c, d; b to c or d is at most b's plus theirs."""
        rows = self.ee[which]
        bound = 2.0 * largest_of_rows(self.peak, rows)
        if len(self.edges):
            to_b, to_c, to_d = self._local(self.ee_paths[:, which])
            local = to_b + np.maximum(to_c, to_d)
            np.minimum(bound, np.where(self.ee_local[which], local, np.inf), out=bound)
        return bound

    def checked(self, x: np.ndarray) -> None:
        """After the failsafe checked the due rows on paths ending at `x`: measure them again there
        (or every row, from a new origin, when a quarter of them were due: the peaks have grown)."""
        if len(self.vt) + len(self.ee) == 0:
            return
        if self.every > 0:
            self.every -= 1
            if self.every == 0:
                self._reset(x)
            return
        total = len(self.vt) + len(self.ee)
        due = int(np.count_nonzero(self.vt_due)) + int(np.count_nonzero(self.ee_due))
        if self.origin is None or len(self.origin) != len(x):
            self._reset(x)
            return
        if 4 * due > total:
            if self._age <= 1:
                # The last origin did not last a substep: violent motion, where measuring every row costs
                # what checking it does. Check every row for a while (longer each time), then try again.
                self.every = self._wait
                self._wait = min(2 * self._wait, _LONGEST)
                return
            if self._age >= _EVERY:
                self._wait = _EVERY
            self._reset(x)
            return
        self._age += 1
        vt, ee = self._vt_rows, self._ee_rows  # the due rows, with the bounds `due` found them by
        if len(vt):
            self.vt_clear[vt] = vertex_triangle_distances(x, self.vt[vt]) - self._vt_rows_bound - self.margin
            self.vt_by_vertex.refloor(self.vt_clear)
        if len(ee):
            self.ee_clear[ee] = edge_distances(x, self.ee[ee]) - self._ee_rows_bound - self.margin
            self.ee_by_vertex.refloor(self.ee_clear)

    def _reset(self, x: np.ndarray) -> None:
        self.origin = x.copy()
        self.origin_mean = column_mean(x)
        self.peak[:] = 0.0
        self.edge_peak[:] = 0.0
        self.origin_column = x.T.copy()
        if len(self.edges):
            column = self.origin_column
            self.origin_edge = column.take(self.edge_a, axis=1) - column.take(self.edge_b, axis=1)
            self._seen = None
            if self.floor is not None:
                length = np.sqrt(dot(self.origin_edge, self.origin_edge))
                self.edge_slack = length - 2.0 * self.floor
                self.edge_slack_least = float(self.edge_slack.min()) if len(length) else np.inf
        self._age = 0
        self.vt_clear = vertex_triangle_distances(x, self.vt) - self.margin if len(self.vt) else self.vt_clear
        self.ee_clear = edge_distances(x, self.ee) - self.margin if len(self.ee) else self.ee_clear
        self.vt_by_vertex.refloor(self.vt_clear, everywhere=True)
        self.ee_by_vertex.refloor(self.ee_clear, everywhere=True)


class _Incidence:
    """The edges at each vertex, for `reach`."""

    def __init__(self, edges: np.ndarray, n: int):
        ends = np.concatenate([edges[:, 0], edges[:, 1]])
        order = np.argsort(ends, kind="stable")
        self.edge = np.concatenate([np.arange(len(edges)), np.arange(len(edges))])[order]
        self.other = np.concatenate([edges[:, 1], edges[:, 0]])[order]
        size = np.bincount(ends, minlength=n)
        self.has = np.flatnonzero(size)
        self.first = (np.cumsum(size) - size)[self.has]
        self.n = n

    def reach(self, peak: np.ndarray) -> np.ndarray:
        """Each vertex's largest sum of `peak` (per edge) along a path of at most two edges from it
        (0 with no edge): at least the local bound of any row whose corner 0 it is (the same sums, rounded
        the same way)."""
        out = np.zeros(self.n)
        if len(self.has) == 0:
            return out
        along = peak.take(self.edge)
        out[self.has] = np.maximum.reduceat(along, self.first)  # the largest one edge away
        along += out.take(self.other)
        out[self.has] = np.maximum.reduceat(along, self.first)
        return out


class _Rows:
    """Rows grouped by their corner 0 (those with short paths), with each vertex's smallest clear."""

    def __init__(self, corner: np.ndarray, local: np.ndarray, n: int):
        grouped = np.flatnonzero(local)
        order = np.argsort(corner[grouped], kind="stable")
        self.rows = grouped[order]
        self.size = np.bincount(corner[self.rows], minlength=n)
        self.begin = np.cumsum(self.size) - self.size
        self.has = np.flatnonzero(self.size)
        self.alone = np.flatnonzero(~local)  # rows tested one by one
        self.floor = np.full(n, -np.inf)  # each vertex's smallest clear over its rows (-inf: not measured)
        self.least = -np.inf  # the smallest floor
        self._asked = self._who = _EMPTY

    def asked(self, vertices: np.ndarray) -> np.ndarray:
        """The rows to test: those of the vertices in the mask `vertices`, and the rows tested alone."""
        who = np.flatnonzero(vertices & (self.size > 0))
        size = self.size[who]
        slot = np.arange(int(size.sum())) - np.repeat(np.cumsum(size) - size - self.begin[who], size)
        self._who = who
        self._asked = self.rows[slot]
        return np.concatenate([self._asked, self.alone]) if len(self.alone) else self._asked

    def refloor(self, clear: np.ndarray, everywhere: bool = False) -> None:
        """Each vertex's smallest clear again: every vertex's, or those whose rows were asked."""
        if everywhere:
            self.floor[:] = np.inf
            if len(self.has):
                self.floor[self.has] = np.minimum.reduceat(clear[self.rows], self.begin[self.has])
            self.least = float(self.floor.min()) if len(self.floor) else np.inf
            return
        who = self._who[self.size[self._who] > 0]
        if len(who):
            # The asked rows are grouped by vertex in `who`'s order: one segment each.
            size = self.size[who]
            self.floor[who] = np.minimum.reduceat(clear[self._asked], np.cumsum(size) - size)
            self.least = float(self.floor.min())
