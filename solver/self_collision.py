"""Self-collision: non-neighbour vertices closer than a gap are pushed apart.

Close pairs are found with a spatial hash (Müller's "Ten Minute Physics" layout): integer cell
coordinates are hashed into a table, vertices are sorted by hash, counts and prefix sums give
each bucket's range, and the 27 cells around every vertex are queried at once with NumPy.
Hash collisions are filtered by comparing exact cell coordinates, so each pair is found once.

Pairs are gathered within gap + skin (a "Verlet list"), each vertex remembering where it was
(relative to the cloth's mean, on which pair distances do not depend) when its pairs were last
found. Only vertices that have since moved more than skin / 2 have their pairs found again, so
no pair closer than the gap is missed, a cloth falling as a whole never needs a query, and a
settling cloth re-queries just its few moving vertices. When much of the cloth moves, one full
query is cheaper; the skin then adapts between gap / 4 and the gap to how long full lists last.
Each substep then pushes every candidate pair closer than the gap apart, mass-weighted and equal
and opposite, accumulating the corrections with np.bincount and averaging by contact count.
"""

from __future__ import annotations

import numpy as np

_BITS = 21  # bits per packed cell coordinate; coordinates are clipped to ±(2^19) cells
_LIMIT = 2 ** (_BITS - 2)
_BIAS = 2 ** (_BITS - 1)
_TABLE = 8  # hash table buckets per point: few false hits from collisions
# The own cell and the 13 "forward" neighbours: each unordered pair of cells is visited once.
_OFFSETS = np.stack(np.meshgrid([-1, 0, 1], [-1, 0, 1], [-1, 0, 1], indexing="ij"), -1).reshape(-1, 3)[13:]
_STENCIL = len(_OFFSETS)
_OFFSET_KEYS = ((_OFFSETS[:, 0] << (2 * _BITS)) + (_OFFSETS[:, 1] << _BITS) + _OFFSETS[:, 2]).view(np.uint64)
_ALL = np.stack(np.meshgrid([-1, 0, 1], [-1, 0, 1], [-1, 0, 1], indexing="ij"), -1).reshape(-1, 3)
_ALL_KEYS = ((_ALL[:, 0] << (2 * _BITS)) + (_ALL[:, 1] << _BITS) + _ALL[:, 2]).view(np.uint64)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing multiplier (wraps modulo 2^64)


def _cell_keys(positions: np.ndarray, cell: float) -> np.ndarray:
    """Exact key of every point's cell: three biased 21-bit integer coordinates packed in 64 bits."""
    with np.errstate(invalid="ignore", over="ignore"):  # extreme input: nan_to_num and clip below handle it
        scaled = np.clip(np.nan_to_num(positions * (1.0 / cell)), -_LIMIT, _LIMIT)
    c = np.floor(scaled).astype(np.int64) + _BIAS
    return ((c[:, 0] << (2 * _BITS)) | (c[:, 1] << _BITS) | c[:, 2]).view(np.uint64)


def close_pairs(positions: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """All pairs of points closer than `radius`, found by spatial hashing with cells of that size.

    Returns (i, j) int64 arrays with i < j, each pair once, sorted by (i, j). Cost grows linearly
    with the point count (for a bounded number of points per cell).
    """
    x = np.asarray(positions, dtype=np.float64)
    n = len(x)
    empty = np.zeros(0, dtype=np.int64)
    if n < 2 or not radius > 0:
        return empty, empty
    keys = _cell_keys(x, radius)
    shift = np.uint64(64 - max(int(_TABLE * n - 1).bit_length(), 1))
    bucket_of = ((keys * _GOLDEN) >> shift).view(np.int64)
    order = np.argsort(bucket_of)  # any order within a bucket will do: the output is sorted at the end
    sorted_keys = keys[order]
    counts = np.bincount(bucket_of, minlength=1 << (64 - int(shift)))
    ends = np.cumsum(counts)

    # Look up the own cell and 13 forward neighbours of every point at once; skip empty buckets.
    # In its own bucket a point only looks at those sorted after it, so each pair shows up once.
    wanted = (keys[:, None] + _OFFSET_KEYS).reshape(-1)  # modular: negative offsets wrap back
    bucket = ((wanted * _GOLDEN) >> shift).view(np.int64)
    start = np.take(ends - counts, bucket)
    start[::_STENCIL] = np.argsort(order) + 1  # own bucket: from just after the point's rank
    size = np.take(ends, bucket) - start
    used = np.flatnonzero(size > 0)
    size, start = size[used], start[used]
    first = np.cumsum(size) - size
    total = int(first[-1] + size[-1]) if len(size) else 0
    slot = np.repeat(start - first, size) + np.arange(total)
    i = np.repeat(used // _STENCIL, size)
    # Exact cell match drops hash collisions (other cells sharing a bucket).
    keep = np.take(sorted_keys, slot) == np.repeat(wanted[used], size)
    i, j = i[keep], np.take(order, slot[keep])
    d = np.take(x, i, axis=0) - np.take(x, j, axis=0)
    close = np.einsum("ij,ij->i", d, d) < radius * radius
    low, high = np.minimum(i[close], j[close]), np.maximum(i[close], j[close])
    order = np.argsort(low * n + high)  # unique keys: the same order whatever the sort algorithm
    return low[order], high[order]


def _near(points: np.ndarray, query: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (q, v), q in `query`, v any other point, closer than `radius` (27 cells per query point)."""
    n = len(points)
    keys = _cell_keys(points, radius)
    shift = np.uint64(64 - max(int(_TABLE * n - 1).bit_length(), 1))
    bucket_of = ((keys * _GOLDEN) >> shift).view(np.int64)
    order = np.argsort(bucket_of, kind="stable")
    sorted_keys = keys[order]
    counts = np.bincount(bucket_of, minlength=1 << (64 - int(shift)))
    ends = np.cumsum(counts)
    wanted = (keys[query][:, None] + _ALL_KEYS).reshape(-1)
    bucket = ((wanted * _GOLDEN) >> shift).view(np.int64)
    start = np.take(ends - counts, bucket)
    size = np.take(ends, bucket) - start
    used = np.flatnonzero(size > 0)
    size, start = size[used], start[used]
    first = np.cumsum(size) - size
    total = int(first[-1] + size[-1]) if len(size) else 0
    slot = np.repeat(start - first, size) + np.arange(total)
    q = np.repeat(query[used // len(_ALL_KEYS)], size)
    keep = np.take(sorted_keys, slot) == np.repeat(wanted[used], size)
    q, v = q[keep], np.take(order, slot[keep])
    d = np.take(points, q, axis=0) - np.take(points, v, axis=0)
    close = (np.einsum("ij,ij->i", d, d) < radius * radius) & (q != v)
    return q[close], v[close]


class SelfCollision:
    """Candidate pairs for one frame, refreshed where vertices have moved too far since the query."""

    def __init__(self, model, gap: float, skin: float | None = None):
        self.model = model
        self.gap = float(gap)
        self.adaptive = skin is None
        self.skin = self.gap if skin is None else float(skin)
        self.age = 0  # substeps since the last full query
        self.anchor: np.ndarray | None = None  # positions (less their mean) at each vertex's last query
        self.i = self.j = np.zeros(0, dtype=np.int64)
        self.rebuilds = 0

    def _filter(self, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Drop topological neighbours and pairs already closer than the gap at rest (i < j)."""
        n = self.model.vertex_count
        keys = self.model.neighbour_keys
        if len(keys) and len(i):
            at = np.minimum(np.searchsorted(keys, i * n + j), len(keys) - 1)
            keep = keys[at] != i * n + j  # not topological neighbours
            i, j = i[keep], j[keep]
        rest = self.model.rest_positions
        d = rest[i] - rest[j]
        keep = np.einsum("ij,ij->i", d, d) >= self.gap * self.gap  # not already this close at rest
        return i[keep], j[keep]

    def _query(self, y: np.ndarray, moved: np.ndarray | None = None) -> None:
        """All pairs (moved is None), or re-query only the pairs of the `moved` vertices."""
        self.rebuilds += 1
        radius = self.gap + self.skin
        if moved is None:
            self.anchor = y.copy()
            self.i, self.j = self._filter(*close_pairs(y, radius))
            return
        assert self.anchor is not None
        index = np.flatnonzero(moved)
        self.anchor[index] = y[index]
        q, v = _near(self.anchor, index, radius)
        keep = ~moved[v] | (q < v)  # both ends moved: found from both sides, keep one
        q, v = q[keep], v[keep]
        i, j = self._filter(np.minimum(q, v), np.maximum(q, v))
        stay = ~(moved[self.i] | moved[self.j])
        i, j = np.concatenate([self.i[stay], i]), np.concatenate([self.j[stay], j])
        n = len(y)
        order = np.argsort(i * n + j)  # unique keys: deterministic
        self.i, self.j = i[order], j[order]

    def refresh(self, x: np.ndarray) -> None:
        """Re-query the pairs of vertices that moved more than skin / 2 since their last query.

        Distances are compared relative to the cloth's mean position, which they do not depend
        on. A pair left out had anchors at least gap + skin apart, so while both its vertices
        stay within skin / 2 of their anchors it cannot come closer than the gap.
        """
        self.age += 1
        y = x - x.mean(axis=0)
        if self.anchor is None or len(self.anchor) != len(y):
            self._query(y)
            return
        moved = y - self.anchor
        moved = np.einsum("ij,ij->i", moved, moved) > 0.25 * self.skin * self.skin
        count = int(np.count_nonzero(moved))
        if count == 0:
            return
        calm = self.adaptive and self.age >= 8 and self.skin < self.gap  # widen the skin again
        if calm or 4 * count > len(y):  # much of the cloth: one full query is cheaper
            if self.adaptive:
                # Violent motion: full queries come every substep anyway, so make them cheap (a
                # small radius); calm motion: a wide skin lets one query last many substeps.
                factor = 0.5 if self.age <= 2 else 2.0 if self.age >= 8 else 1.0
                self.skin = float(np.clip(self.skin * factor, 0.25 * self.gap, self.gap))
            self.age = 0
            self._query(y)
        else:
            self._query(y, moved)

    def resolve(self, x: np.ndarray, inv_mass: np.ndarray) -> int:
        """Push apart, in place, candidate pairs closer than the gap; returns how many were."""
        self.refresh(x)
        if len(self.i) == 0:
            return 0
        i, j = self.i, self.j
        d = x[i] - x[j]
        dist = np.sqrt(np.einsum("ij,ij->i", d, d))
        hit = dist < self.gap
        if not hit.any():
            return 0
        i, j, d, dist = i[hit], j[hit], d[hit], dist[hit]
        wi, wj = inv_mass[i], inv_mass[j]
        wsum = wi + wj
        # Coincident vertices: push apart along their rest offset (never zero for kept pairs).
        direction = d
        coincident = dist < 1e-9 * self.gap
        if coincident.any():
            rest = self.model.rest_positions
            direction = np.where(coincident[:, None], rest[i] - rest[j], d)
        length = np.sqrt(np.einsum("ij,ij->i", direction, direction))
        push = np.where(wsum > 0, (self.gap - dist) / np.maximum(wsum, 1e-300), 0.0) / np.maximum(length, 1e-300)
        step = direction * push[:, None]  # (gap - dist) / (wi + wj) along the unit separation
        n = len(x)
        ends = np.concatenate([i, j])
        moves = np.concatenate([step * wi[:, None], step * -wj[:, None]])
        contacts = np.bincount(ends, minlength=n).astype(np.float64)
        touched = contacts > 0
        for axis in range(3):
            total = np.bincount(ends, weights=moves[:, axis], minlength=n)
            x[touched, axis] += total[touched] / contacts[touched]
        return len(i)
