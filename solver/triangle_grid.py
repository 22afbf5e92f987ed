"""Broad phase for triangles: which triangles' boxes does each query box (or ball) touch?

A hierarchical hashed grid. Each triangle's bounding box (plus a margin) goes to the level whose
cells are at least as large as the box, so it lands in at most 2 x 2 x 2 cells whatever its size:
a 20 m floor of two triangles sits a few levels above a detailed object's 2 cm triangles, and
neither fills the other's cells. Levels double in size from a base cell near the median triangle.
A query box visits the cells it overlaps on every occupied level (usually one to eight).

Cells are hashed (Fibonacci hashing of the packed level and cell coordinates) into a table of
buckets; entries are sorted by bucket with a radix sort, each bucket a range of that order, and
exact keys filter hash collisions. A (query, triangle) pair is reported once: in the cell holding
the lowest corner of the two boxes' overlap, and only if the boxes overlap at all.

Built once for a rigid collider (queried in its own frame), or rebuilt each frame or step for a
deforming collider or a cloth's own triangles; the table and its buffers are kept between builds.
Not thread-safe: one instance per user.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .spatial_hash import _GOLDEN, _argsort_below

_BITS = 18  # bits per cell coordinate; the level goes above the three
_BIAS = 1 << (_BITS - 1)
_CLIP = float((1 << (_BITS - 2)) - 1)  # cell coordinates are clipped to ±2^16 (far cells share a key)
_TABLE = 4  # hash buckets per entry
_ROWS = 8192  # query boxes per pass: bounds the temporaries
# A query box spanning more cells than this on a level (a box far larger than that level's items:
# a 1 m edge against cells made for degenerate ones) is tested against the level's boxes directly.
_MOST_CELLS = 512
_BRUTE = 1 << 22  # box comparisons per block of that direct test
_EMPTY = np.zeros(0, dtype=np.int64)
# For each of a box's (up to) 8 cells, numbered as in `TriangleGrid._bin` (bit 4: x + 1, 2: y + 1, 1: z + 1),
# the axes on which it is the box's first cell (bit 1: x, 2: y, 4: z).
_FIRST = [(0 if corner & 4 else 1) | (0 if corner & 2 else 2) | (0 if corner & 1 else 4) for corner in range(8)]


def _corner_cells(low: np.ndarray, inv_cell: float) -> np.ndarray:
    """floor(low * inv_cell) as int64 cell coordinates, clipped; low is (3, n)."""
    scaled = low * inv_cell
    np.fmax(scaled, -_CLIP, out=scaled)  # also turns NaN into a number
    np.fmin(scaled, _CLIP, out=scaled)
    np.floor(scaled, out=scaled)
    return scaled.astype(np.int64)


def _keys(level: int, cells: np.ndarray) -> np.ndarray:
    """Packed (level, x, y, z) keys of (3, n) int64 cell coordinates, as uint64."""
    key = (cells[0] + (_BIAS + (level << _BITS))) << _BITS
    key += cells[1] + _BIAS
    key <<= _BITS
    key += cells[2] + _BIAS
    return key.view(np.uint64)


class TriangleGrid:
    """Candidate (query, triangle) pairs for query boxes or balls against a triangle set."""

    def __init__(self) -> None:
        self._capacity = -1
        self._runs = _EMPTY
        self.triangle_count = 0
        self.levels: list[tuple[int, float]] = []  # (level, cell size) of every occupied level
        self.low = self.high = np.zeros((3, 0))  # each triangle's box (margin included)
        self.lower = np.zeros(3)  # bounds of every triangle box (margin included)
        self.upper = np.zeros(3)
        self._groups: BoxGroups | None = None
        self._sweep: BoxSweep | None = None
        self._unfilled: list | None = None  # (`_bin`'s levels not yet in the hash table: `_table`)

    def build(
        self, vertices: np.ndarray, triangles: np.ndarray, margin: float | np.ndarray = 0.0, cell: float | None = None
    ):
        """Bin `triangles` (T, 3) indices into `vertices` (V, 3), boxes grown by `margin` (one, or one per triangle).

        `cell`: the finest cell size (default: the median triangle box). Returns self.
        """
        v = np.asarray(vertices, dtype=np.float64)
        tris = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
        count = self.triangle_count = len(tris)
        self._release()
        if count == 0:
            self.levels = []
            return self
        corners = [v.take(tris[:, k], axis=0).T for k in range(3)]  # three (3, T)
        low = np.minimum(np.minimum(corners[0], corners[1]), corners[2])
        high = np.maximum(np.maximum(corners[0], corners[1]), corners[2])
        low -= margin
        high += margin
        return self._bin(low, high, cell)

    def build_boxes(self, lower: np.ndarray, upper: np.ndarray, cell: float | None = None):
        """Bin boxes lower[k]..upper[k] ((K, 3) rows) as the items to query against. Returns self."""
        self.triangle_count = len(lower)
        self._release()
        if len(lower) == 0:
            self.levels = []
            return self
        low = np.ascontiguousarray(np.asarray(lower, dtype=np.float64).T)
        high = np.ascontiguousarray(np.asarray(upper, dtype=np.float64).T)
        return self._bin(low, high, cell)

    def _bin(self, low: np.ndarray, high: np.ndarray, cell: float | None):
        """Bin the (3, T) boxes low..high into levels and the hash table."""
        self.low, self.high = low, high  # (3, T) triangle boxes, margin included
        self.lower, self.upper = low.min(axis=1), high.max(axis=1)
        size = np.max(high - low, axis=0)
        base = float(cell) if cell else float(np.median(size))
        base = max(base, 1e-6, 1e-9 * float(np.max(self.upper - self.lower)))
        level = np.maximum(np.ceil(np.log2(np.maximum(size, 1e-300) / base)), 0).astype(np.int64)
        level = np.minimum(level, 60)
        self.levels = []
        self._level_boxes = {}
        unfilled = []  # each level's boxes and first cells, for the hash table (`_table`)
        self._level_of = np.empty(len(level), dtype=np.int64)  # each box's level, as its place in self.levels
        self._first_cell = np.empty((3, len(level)), dtype=np.int64)  # and its first cell there (`grid_order`)
        for lv in np.unique(level).tolist():
            which = self._level_boxes[lv] = (level == lv).nonzero()[0]
            width = base * 2.0**lv
            first = _corner_cells(low[:, which], 1.0 / width)
            self._level_of[which] = len(self.levels)
            self._first_cell[:, which] = first
            span = _corner_cells(high[:, which], 1.0 / width) - first  # 0 or 1 per axis (clipping aside)
            unfilled.append((lv, which, first, span))
            self.levels.append((lv, width))
        self._unfilled = unfilled
        return self

    def _table(self) -> None:
        """Fill the hash table of the boxes' cells, on the first cell query after a build (`query_boxes`): a
        deforming collider's grid, new each frame, is mostly asked through `sweep()` and `grid_order`, which
        need only the levels and first cells (the table was ~1/3 of its ~2 ms build on the cape's body;
        docs/design.md, issue 11, round 29 (capespeed_r29)). The same entries as filled at the build."""
        unfilled, self._unfilled = self._unfilled, None
        if unfilled is None:
            return
        keys, owners, firsts = [], [], []
        for lv, which, first, span in unfilled:
            for corner in range(8):
                step = np.array([(corner >> 2) & 1, (corner >> 1) & 1, corner & 1])[:, None]
                inside = ((step <= span).all(axis=0)).nonzero()[0]
                keys.append(_keys(lv, first[:, inside] + step))
                owners.append(which[inside])
                firsts.append(np.full(len(inside), _FIRST[corner], dtype=np.uint8))
        self._fill(np.concatenate(keys), np.concatenate(owners), np.concatenate(firsts))

    def _fill(self, keys: np.ndarray, owners: np.ndarray, firsts: np.ndarray) -> None:
        """The hash table of (key, triangle) entries, reusing the table arrays when they fit."""
        n = len(keys)
        bits = max(int(_TABLE * n - 1).bit_length(), 1)
        if self._capacity != 1 << bits:
            self._capacity = 1 << bits
            self._occupied = np.zeros(1 << bits, dtype=bool)
            self._ranges = np.zeros((1 << bits, 2), dtype=np.int64)  # first slot, entries
        self._shift = np.uint64(64 - bits)
        hashes = keys * _GOLDEN
        bucket = (hashes >> self._shift).view(np.int64)
        order = _argsort_below(bucket, bits)
        sorted_bucket = bucket.take(order)
        self._entry_keys = keys.take(order)
        self._entry_triangles = owners.take(order)
        self._entry_firsts = firsts.take(order)  # the axes (bits 1, 2, 4) on which the entry's cell is its box's first
        first = (np.diff(sorted_bucket, prepend=-1)).nonzero()[0]
        self._runs = sorted_bucket.take(first)
        self._occupied[self._runs] = True
        self._ranges[self._runs, 0] = first
        self._ranges[self._runs, 1] = np.diff(first, append=n)

    def groups(self) -> BoxGroups:
        """The binned boxes in `BoxGroups` (made on first use after each build)."""
        if self._groups is None:
            count = self.triangle_count  # (an empty build keeps the last boxes)
            self._groups = BoxGroups(self.low[:, :count], self.high[:, :count])
        return self._groups

    def sweep(self) -> BoxSweep:
        """The binned boxes in `BoxSweep` (made on first use after each build)."""
        if self._sweep is None:
            count = self.triangle_count
            self._sweep = BoxSweep(self.low[:, :count], self.high[:, :count])
        return self._sweep

    def _release(self) -> None:
        self._groups = None
        self._sweep = None
        self._unfilled = None
        if self._capacity > 0 and len(self._runs):
            self._occupied[self._runs] = False
        self._runs = _EMPTY

    def query_points(self, points: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
        """Pairs (q, t): triangle t's box (with margin) comes within `radius` of point q's box.

        points: (Q, 3) rows. Returns int64 arrays, each overlapping pair once, grouped by level.
        """
        p = np.asarray(points, dtype=np.float64)
        return self.query_boxes(p - radius, p + radius)

    def query_boxes(
        self, lower: np.ndarray, upper: np.ndarray, *, below: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """Pairs (q, t) whose boxes overlap: query box q is lower[q]..upper[q] ((Q, 3) rows).

        below: only pairs with q < t (querying the binned boxes themselves: each pair once)."""
        if self.triangle_count == 0 or len(lower) == 0:
            return _EMPTY, _EMPTY
        self._table()
        lo = np.ascontiguousarray(np.asarray(lower, dtype=np.float64).T)  # (3, Q) coordinate-major
        hi = np.ascontiguousarray(np.asarray(upper, dtype=np.float64).T)
        found_q, found_t = [], []
        for start in range(0, lo.shape[1], _ROWS):
            part_lo, part_hi = lo[:, start : start + _ROWS], hi[:, start : start + _ROWS]
            for lv, width in self.levels:
                q, t = self._level_pairs(lv, width, part_lo, part_hi, start if below else None)
                found_q.append(q + start)
                found_t.append(t)
        if len(found_q) == 1:
            return found_q[0], found_t[0]
        return np.concatenate(found_q), np.concatenate(found_t)

    def grid_order(self, lo: np.ndarray, hi: np.ndarray, q: np.ndarray, t: np.ndarray) -> np.ndarray:
        """The order `query_boxes` (stably sorted by q) gives the pairs (q, t) of query boxes lo..hi ((3, Q)), as
        a permutation of them: by q, then the triangle's level, then the cell that reports the pair (the
        overlap's lowest corner, cells in x, y, z order), then the triangle's entry in that cell (by which of its
        cells it is, then by triangle); a query box spanning more than _MOST_CELLS cells of a level takes that
        level's pairs by triangle, after the cells' (round 28 (bodywin_r28): `BoxSweep` gives the grid's order)."""
        level = self._level_of.take(t)
        inv = np.array([1.0 / width for _, width in self.levels]).take(level)
        first = _corner_cells(lo.take(q, axis=1) * inv, 1.0)
        span = _corner_cells(hi.take(q, axis=1) * inv, 1.0) - first + 1
        own = self._first_cell.take(t, axis=1)
        cell = np.maximum(first, own)
        k = ((cell[0] - first[0]) * span[1] + (cell[1] - first[1])) * span[2] + (cell[2] - first[2])
        corner = ((cell[0] - own[0]) * 4 + (cell[1] - own[1]) * 2) + (cell[2] - own[2])
        huge = span[0] * span[1] * span[2] > _MOST_CELLS
        k[huge] = _MOST_CELLS  # (after every cell's pairs: `_level_pairs` appends the direct ones)
        corner[huge] = 0
        key = ((q * len(self.levels) + level) * (_MOST_CELLS + 1) + k) * 8 + corner
        key *= self.triangle_count
        key += t
        return np.argsort(key, kind="stable")

    def _level_pairs(self, lv: int, width: float, lo: np.ndarray, hi: np.ndarray, below: int | None = None):
        inv = 1.0 / width
        first = _corner_cells(lo, inv)
        span = _corner_cells(hi, inv) - first + 1  # cells per axis, >= 1
        count = span[0] * span[1] * span[2]
        huge = count > _MOST_CELLS
        direct = self._direct_pairs(lv, lo, hi, huge.nonzero()[0], below) if huge.any() else None
        single = direct is None and bool((count == 1).all())
        if single:  # the usual case: each box inside one cell of this level
            who = np.arange(lo.shape[1])
            cells = first
        else:
            boxes = (~huge).nonzero()[0]
            count = count.take(boxes)
            who = np.repeat(boxes, count)
            k = np.arange(len(who)) - np.repeat(np.cumsum(count) - count, count)
            sy, sz = span[1].take(who), span[2].take(who)
            cells = first.take(who, axis=1)
            # The axes (bits 1, 2, 4) on which each cell is its query box's first.
            firsts = np.full(len(who), 7, dtype=np.uint8)
            offset = k % sz
            cells[2] += offset
            firsts[offset.nonzero()[0]] -= 4
            k //= sz
            offset = k % sy
            cells[1] += offset
            firsts[offset.nonzero()[0]] -= 2
            k //= sy
            cells[0] += k
            firsts[k.nonzero()[0]] -= 1
        keys = _keys(lv, cells)
        bucket = ((keys * _GOLDEN) >> self._shift).view(np.int64)
        used = (self._occupied.take(bucket)).nonzero()[0]
        if len(used) == 0:
            return direct if direct is not None else (_EMPTY, _EMPTY)
        ranges = self._ranges.take(bucket.take(used), axis=0)
        start, size = ranges[:, 0], ranges[:, 1]
        # Expand each bucket into its entries (most hold one or two).
        total = int(size.sum())
        origin = np.repeat(used, size)
        slot = np.arange(total) - np.repeat(np.cumsum(size) - size - start, size)
        same = self._entry_keys.take(slot) == keys.take(origin)
        if not single:
            # Report a pair only from the cell holding the overlap's lowest corner: on each axis the larger of
            # the two boxes' lowest cells (flooring is monotone), so a pair seen from several cells counts
            # once. Both boxes reach this cell, so on each axis the cell is that larger one exactly when it is
            # the first cell of either box: two small gathers, before the overlap's twelve.
            same &= (firsts.take(origin) | self._entry_firsts.take(slot)) == 7
        same = same.nonzero()[0]
        origin, slot = origin.take(same), slot.take(same)
        q = who.take(origin)
        t = self._entry_triangles.take(slot)
        if below is not None:  # q + below is the query's own index among the binned boxes
            lower = (q + below < t).nonzero()[0]
            q, t = q.take(lower), t.take(lower)
        # Overlap (single: each query box in one cell, every pair is seen once).
        keep = lo[0].take(q) <= self.high[0].take(t)
        for axis in range(3):
            if axis:
                keep &= lo[axis].take(q) <= self.high[axis].take(t)
            keep &= self.low[axis].take(t) <= hi[axis].take(q)
        keep = keep.nonzero()[0]
        q, t = q.take(keep), t.take(keep)
        if direct is not None:
            q, t = np.concatenate([q, direct[0]]), np.concatenate([t, direct[1]])
        return q, t

    def _direct_pairs(self, lv: int, lo: np.ndarray, hi: np.ndarray, boxes: np.ndarray, below: int | None):
        """Pairs of the query boxes `boxes` with every box of level lv that they overlap, compared
        directly (in blocks) rather than cell by cell."""
        items = self._level_boxes[lv]
        found_q, found_t = [], []
        step = max(_BRUTE // max(len(items), 1), 1)
        for start in range(0, len(boxes), step):
            b = boxes[start : start + step]
            meets = np.ones((len(b), len(items)), dtype=bool)
            for axis in range(3):
                meets &= lo[axis][b, None] <= self.high[axis][items][None, :]
                meets &= self.low[axis][items][None, :] <= hi[axis][b, None]
            qi, ti = np.nonzero(meets)
            q, t = b.take(qi), items.take(ti)
            if below is not None:
                lower = (q + below < t).nonzero()[0]
                q, t = q.take(lower), t.take(lower)
            found_q.append(q)
            found_t.append(t)
        return np.concatenate(found_q), np.concatenate(found_t)


def overlapping(low: np.ndarray, high: np.ndarray, box_low: np.ndarray, box_high: np.ndarray):
    """(q, t): every pair of query box q (3, Q) and box t (3, T) that overlap, sorted by q then t: all
    against all, quicker than a grid's query for a few boxes against a few items."""
    # (T, Q): the few boxes' values broadcast along the many queries' rows (~20% quicker than (Q, T)).
    # Sorted by q (then t) as read off the transpose: a copy of the bools is cheaper than sorting the pairs.
    q, t = np.ascontiguousarray(_meets(low, high, box_low, box_high).T).nonzero()
    return q, t


_GROUP = 16  # boxes per group of `BoxGroups`
# Items up to which `BoxGroups` beats the grid at any number of query boxes (32 groups, ~10 us each; the
# round-legged table's 140 sharp edges against 7,500 cloth edges' boxes: the grid ~30 ms).
GROUPED_MOST = 512
_UNGROUPED = 1 << 16  # box pairs up to which `BoxGroups` compares all with all (its groups cost ~10 us each)


class BoxGroups:
    """A few hundred boxes (3, T) in groups of up to _GROUP neighbours (in Morton order), each with the
    union of its members' boxes: a query box is compared with the groups first, then only with the members
    of the groups it meets (a table's 140 sharp edges: 2.4 -> 0.7 ms for ~5,000 cloth edges' boxes;
    docs/design.md, round 10 (table12))."""

    def __init__(self, low: np.ndarray, high: np.ndarray):
        count = low.shape[1]
        order = np.argsort(morton(0.5 * (low + high)), kind="stable")
        self.members = [np.sort(order[k : k + _GROUP]) for k in range(0, count, _GROUP)]
        self.boxes = [(np.ascontiguousarray(low[:, m]), np.ascontiguousarray(high[:, m])) for m in self.members]
        self.low = np.stack([box[0].min(axis=1) for box in self.boxes], axis=1) if count else np.zeros((3, 0))
        self.high = np.stack([box[1].max(axis=1) for box in self.boxes], axis=1) if count else np.zeros((3, 0))
        self.count = count
        self.all = (low, high)

    def overlapping(self, low: np.ndarray, high: np.ndarray):
        """As `overlapping(low, high, <the boxes>)`: (q, t) sorted by q then t."""
        if low.shape[1] * self.count <= _UNGROUPED:
            return overlapping(low, high, *self.all)
        groups = _meets(low, high, self.low, self.high)
        found_q, found_t = [], []
        for members, (box_low, box_high), meets in zip(self.members, self.boxes, groups, strict=True):
            asked = meets.nonzero()[0]
            if len(asked):
                t, q = _meets(low.take(asked, axis=1), high.take(asked, axis=1), box_low, box_high).nonzero()
                found_q.append(asked.take(q))
                found_t.append(members.take(t))
        if not found_q:
            return _EMPTY, _EMPTY
        q, t = np.concatenate(found_q), np.concatenate(found_t)
        order = _argsort_below(q * self.count + t, max(int(low.shape[1] * self.count).bit_length(), 1))
        return q.take(order), t.take(order)


_WIDE = 4.0  # `BoxSweep`: boxes longer than this many median boxes along its axis are compared with every query


class _SortedAxis(NamedTuple):
    """`BoxSweep`'s boxes sorted along one axis: the narrow ones by their starts there, the wide ones apart."""

    order: np.ndarray  # the narrow boxes' indices, by start on the axis
    start: np.ndarray  # their starts on the axis
    reach: float  # (padded) the longest narrow box's length on the axis
    low: np.ndarray  # (3, narrow) their boxes, in that order
    high: np.ndarray
    wide: np.ndarray  # the boxes longer than _WIDE median ones on the axis (compared with every query box)
    wide_boxes: tuple


class BoxSweep:
    """Boxes (3, T) sorted along an axis (one sort, no hash table): a query box meets only the boxes whose start on
    that axis lies within the longest box's length below its own span, found by two binary searches, then tested on
    all three axes. The few boxes longer than _WIDE median ones are compared with every query box. A deforming
    collider's triangles (new each frame) against a few dozen cloth paths: ~2x quicker than the grid's cells or
    `BoxGroups` (docs/design.md, issue 11, round 27 (bodylist_r27)). The pairs are those of `overlapping`, in its
    order (by q, then t).

    The axis: each call takes the one on which its query boxes meet the fewest boxes by their starts (a count, two
    binary searches an axis; the three sorts made on first use). The boxes' spread alone chose the long axis of a
    walking body's capsule while the cape's paths lay along a thin slab across it, testing up to 6x the pairs
    (docs/design.md, issue 11, round 29 (capespeed_r29)). `axis`, the spread's choice, still decides when a call is
    too large (`most`), so the answers are the same pairs in the same order whichever axis finds them."""

    def __init__(self, low: np.ndarray, high: np.ndarray):
        count = self.count = low.shape[1]
        self._boxes = (low, high)
        widths = self._widths = high - low
        self._limit = _WIDE * np.median(widths, axis=1, keepdims=True) if count else np.zeros((3, 1))
        # The axis on which a query meets the fewest boxes by their starts, by the boxes alone: the longest
        # (non-wide) box's length plus a median one, over the boxes' spread.
        spread = high.max(axis=1) - low.min(axis=1) if count else np.ones(3)
        longest = np.where(widths <= self._limit, widths, 0.0).max(axis=1) if count else np.zeros(3)
        self.axis = int(np.argmin((longest + self._limit[:, 0] / _WIDE) / np.maximum(spread, 1e-300)))
        self._sorted: list[_SortedAxis | None] = [None, None, None]
        self._along(self.axis)

    def _along(self, axis: int) -> _SortedAxis:
        found = self._sorted[axis]
        if found is not None:
            return found
        low, high = self._boxes
        width = self._widths[axis]
        wide = width > self._limit[axis, 0]
        narrow = (~wide).nonzero()[0]
        order = narrow.take(np.argsort(low[axis].take(narrow), kind="stable"))
        # (padded: a box's start is at least its end less this, whatever the rounding of its width)
        reach = float(width.take(narrow).max()) * 1.001 + 1e-12 if len(narrow) else 0.0
        wide = wide.nonzero()[0]
        found = self._sorted[axis] = _SortedAxis(
            order,
            np.ascontiguousarray(low[axis].take(order)),
            reach,
            np.ascontiguousarray(low.take(order, axis=1)),
            np.ascontiguousarray(high.take(order, axis=1)),
            wide,
            (low.take(wide, axis=1), high.take(wide, axis=1)),
        )
        return found

    @property
    def wide(self) -> np.ndarray:
        """The boxes compared with every query box on the spread's axis."""
        return self._along(self.axis).wide

    def _counts(self, low: np.ndarray, high: np.ndarray, most: int, on_axis_taken: bool = False):
        """(axis, its sorted boxes, each query box's first box and count there), on the axis with the fewest box
        pairs to test; None if more than `most` on the spread's axis (`axis`), or with `on_axis_taken` on the axis
        taken."""
        counts = []
        for a in (self.axis, *(k for k in (0, 1, 2) if k != self.axis)):
            along = self._along(a)
            begin = np.searchsorted(along.start, low[a] - along.reach)
            count = np.searchsorted(along.start, high[a], side="right")
            count -= begin
            np.maximum(count, 0, out=count)
            total = int(count.sum()) + len(along.wide) * low.shape[1]
            if not on_axis_taken and a == self.axis and total - len(along.wide) * low.shape[1] > most:
                return None
            counts.append((total, a, along, begin, count))
            if total == 0:
                break
        _, a, along, begin, count = min(counts, key=lambda c: c[0])
        if on_axis_taken and int(count.sum()) > most:
            return None
        return a, along, begin, count

    def overlapping(self, low: np.ndarray, high: np.ndarray, most: int, on_axis_taken: bool = False):
        """As `overlapping(low, high, <the boxes>)`: (q, t) sorted by q then t; None if more than `most`
        box pairs would be tested on the spread's axis, or with `on_axis_taken` on the axis taken (the caller asks
        the grid instead)."""
        found = self._counts(low, high, most, on_axis_taken)
        if found is None:
            return None
        a, along, begin, count = found
        total = int(count.sum())
        q = np.repeat(np.arange(low.shape[1]), count)
        at = np.arange(total) + np.repeat(begin - (np.cumsum(count) - count), count)
        b, c = (k for k in (0, 1, 2) if k != a)  # the other axes first (they drop the most), then the box's end
        keep = along.low[b].take(at) <= high[b].take(q)
        keep &= along.high[b].take(at) >= low[b].take(q)
        keep = keep.nonzero()[0]
        q, at = q.take(keep), at.take(keep)
        keep = along.low[c].take(at) <= high[c].take(q)
        keep &= along.high[c].take(at) >= low[c].take(q)
        keep &= along.high[a].take(at) >= low[a].take(q)
        keep = keep.nonzero()[0]
        q, t = q.take(keep), along.order.take(at.take(keep))
        if len(along.wide):
            t_wide, q_wide = _meets(low, high, *along.wide_boxes).nonzero()
            q, t = np.concatenate([q, q_wide]), np.concatenate([t, along.wide.take(t_wide)])
        if len(q) > 1:  # by q, then t (the sweep's order within a q is along the axis)
            order = _argsort_below(q * self.count + t, max(int(low.shape[1] * self.count).bit_length(), 1))
            q, t = q.take(order), t.take(order)
        return q, t

    def meets(self, low: np.ndarray, high: np.ndarray, most: int) -> np.ndarray:
        """Whether each query box low..high ((3, Q)) meets any of the boxes (`overlapping` finds a pair for it);
        all True if more than `most` box pairs would be tested on the spread's axis."""
        found = self._counts(low, high, most)
        if found is None:
            return np.ones(low.shape[1], dtype=bool)
        a, along, begin, count = found
        q = np.repeat(np.arange(low.shape[1]), count)
        at = np.arange(len(q)) + np.repeat(begin - (np.cumsum(count) - count), count)
        b, c = (k for k in (0, 1, 2) if k != a)
        keep = along.low[b].take(at) <= high[b].take(q)
        keep &= along.high[b].take(at) >= low[b].take(q)
        keep &= along.low[c].take(at) <= high[c].take(q)
        keep &= along.high[c].take(at) >= low[c].take(q)
        keep &= along.high[a].take(at) >= low[a].take(q)
        found_any = np.zeros(low.shape[1], dtype=bool)
        found_any[q.take(keep.nonzero()[0])] = True
        if len(along.wide):
            found_any |= _meets(low, high, *along.wide_boxes).any(axis=0)
        return found_any


def _meets(low, high, box_low, box_high) -> np.ndarray:
    """(T, Q): whether box t (3, T) and query box q (3, Q) overlap."""
    meets = (box_low[0][:, None] <= high[0]) & (box_high[0][:, None] >= low[0])
    for k in (1, 2):
        meets &= box_low[k][:, None] <= high[k]
        meets &= box_high[k][:, None] >= low[k]
    return meets


def morton(points: np.ndarray) -> np.ndarray:
    """Morton (Z-order) codes of (3, k) points, 16 bits per axis over their bounding box."""
    if points.shape[1] == 0:
        return np.zeros(0, dtype=np.int64)
    low = points.min(axis=1, keepdims=True)
    size = max(float((points.max(axis=1, keepdims=True) - low).max()), 1e-300)
    cells = np.clip((points - low) * (65535.0 / size), 0, 65535).astype(np.int64)
    code = np.zeros(points.shape[1], dtype=np.int64)
    for bit in range(16):
        for axis in range(3):
            code |= ((cells[axis] >> bit) & 1) << (3 * bit + axis)
    return code
