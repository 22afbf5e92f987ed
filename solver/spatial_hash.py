"""Spatial hashing: every pair of points closer than a radius, or the close points of a few.

The layout is Müller's ("Ten Minute Physics"): integer cell coordinates are hashed into a table,
points are sorted by bucket, and each bucket is a range of that order. Exact cell hashes filter
hash collisions, so a pair is found once. Cells are looked up a few stencil offsets at a time in
buffers kept between queries: on these machines the page faults of fresh multi-megabyte
temporaries cost more than the arithmetic (a 16k-point query: 12 ms with one big batch, 3.5 ms so).
"""

from __future__ import annotations

import numpy as np

_BITS = 17  # bits per cell coordinate: three pack into 51 bits, exact in a float64
_LIMIT = 2.0 ** (_BITS - 2)  # coordinates are clipped to ±(2^15) cells around the origin
_BIAS = 2.0 ** (_BITS - 1)
_TABLE = 8  # hash table buckets per point: few false hits from collisions
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing multiplier (wraps modulo 2^64)
_BATCH = 16384  # cell look-ups per pass: big enough to amortise NumPy calls, small enough to stay cached


def _offset_hashes(offsets: np.ndarray) -> np.ndarray:
    """Hashes of packed cell offsets: the hash is linear, so hash(cell + offset) = hash(cell) + this."""
    keys = ((offsets[:, 0] << (2 * _BITS)) + (offsets[:, 1] << _BITS) + offsets[:, 2]).astype(np.int64).view(np.uint64)
    return keys * _GOLDEN


_CUBE = np.stack(np.meshgrid([-1, 0, 1], [-1, 0, 1], [-1, 0, 1], indexing="ij"), -1).reshape(-1, 3)
_ALL = _offset_hashes(_CUBE)  # a cell and its 26 neighbours
_FORWARD = _offset_hashes(_CUBE[14:])  # 13 "forward" neighbours: each pair of cells once


def _cell_hashes(positions: np.ndarray, cell: float) -> np.ndarray:
    """Every point's packed integer cell coordinates times an odd constant, modulo 2^64.

    Multiplying by an odd number is a bijection modulo 2^64, so two hashes are equal exactly when
    the cells are; the top bits pick the bucket. The packing is done in float64 (exact below
    2^53) so that only one column is converted to integers.
    """
    with np.errstate(over="ignore"):  # far-flung input overflows to ±inf, clipped just below
        scaled = positions * (1.0 / cell)
    np.fmax(scaled, -_LIMIT, out=scaled)  # fmax/fmin also turn NaN into a (clipped) number
    np.fmin(scaled, _LIMIT, out=scaled)
    np.floor(scaled, out=scaled)
    scaled += _BIAS
    packed = scaled[:, 0] * 2.0 ** (2 * _BITS)
    packed += scaled[:, 1] * 2.0**_BITS
    packed += scaled[:, 2]
    hashes = packed.astype(np.uint64)
    hashes *= _GOLDEN
    return hashes


def _argsort_below(values: np.ndarray, bits: int) -> np.ndarray:
    """Stable argsort of integers in [0, 2^bits) by 16-bit radix passes (~15x quicker than quicksort)."""
    order = np.argsort(values.astype(np.uint16), kind="stable")  # the low 16 bits (astype wraps)
    for low in range(16, bits, 16):
        digit = (values >> low).astype(np.uint16)
        order = np.take(order, np.argsort(np.take(digit, order), kind="stable"))
    return order


class SpatialHash:
    """Close-pair queries on point sets, reusing the hash table and buffers between queries.

    Not thread-safe: one instance per simulation.
    """

    def __init__(self) -> None:
        self._capacity = -1

    def pairs(self, points: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
        """All pairs of points closer than `radius`: (i, j) int64 arrays, i < j, sorted by (i, j)."""
        x = np.asarray(points, dtype=np.float64)
        n = len(x)
        if n < 2 or not radius > 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        self._build(x, radius)
        everyone = np.arange(n)
        rank = np.empty(n, dtype=np.intp)
        rank[self._order] = everyone
        # Own cell: the points sorted after this one in its bucket (a run ends where the next starts).
        ranges = np.take(self._ranges, self._bucket, axis=0)
        after = ranges[:, 0] + ranges[:, 1] - rank - 1
        some = np.flatnonzero(after)
        found = [self._within(some, np.take(rank, some) + 1, np.take(after, some), np.take(self._hashes, some), radius)]
        found += self._lookup(everyone, _FORWARD, radius)
        self._release()
        i, j = np.concatenate([f[0] for f in found]), np.concatenate([f[1] for f in found])
        low, high = np.minimum(i, j), np.maximum(i, j)
        order = np.argsort(low * n + high)  # unique keys: the same order whatever the sort algorithm
        return low[order], high[order]

    def near(self, points: np.ndarray, query: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
        """Pairs (q, v), q in the index array `query`, v any other point, closer than `radius`."""
        x = np.asarray(points, dtype=np.float64)
        if len(x) < 2 or len(query) == 0 or not radius > 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        self._build(x, radius)
        found = self._lookup(np.asarray(query, dtype=np.intp), _ALL, radius)
        self._release()
        q, v = np.concatenate([f[0] for f in found]), np.concatenate([f[1] for f in found])
        other = q != v
        return q[other], v[other]

    def _build(self, points: np.ndarray, cell: float) -> None:
        """Hash `points` into cells of size `cell`; fill the table's buckets."""
        n = len(points)
        bits = max(int(_TABLE * n - 1).bit_length(), 1)
        if self._capacity != 1 << bits:
            self._capacity = 1 << bits
            self._occupied = np.zeros(1 << bits, dtype=bool)  # reset after each query
            self._ranges = np.zeros((1 << bits, 2), dtype=np.int32)  # first slot, points (where occupied)
            self._starts, self._sizes = self._ranges[:, 0], self._ranges[:, 1]  # views: one gather fetches both
            self._wanted = np.empty(_BATCH, dtype=np.uint64)
            self._bucket_buffer = np.empty(_BATCH, dtype=np.uint64)
            self._hit_buffer = np.empty(_BATCH, dtype=bool)
        self._points = points
        self._shift = np.uint64(64 - bits)
        self._hashes = _cell_hashes(points, cell)
        self._bucket = (self._hashes >> self._shift).view(np.int64)
        self._order = _argsort_below(self._bucket, bits)
        sorted_bucket = np.take(self._bucket, self._order)
        self._sorted_hashes = np.take(self._hashes, self._order)
        self._sorted_points = np.take(points, self._order, axis=0)
        first = np.flatnonzero(np.diff(sorted_bucket, prepend=-1))
        self._runs = np.take(sorted_bucket, first)
        self._occupied[self._runs] = True
        self._sizes[self._runs] = np.diff(first, append=n)
        self._starts[self._runs] = first

    def _release(self) -> None:
        self._occupied[self._runs] = False

    def _lookup(self, who: np.ndarray, offsets: np.ndarray, radius: float) -> list[tuple[np.ndarray, np.ndarray]]:
        """Close pairs (w, p) of each point w in `who` and the points p in its cells at `offsets`."""
        hashes = np.take(self._hashes, who)
        per_pass = max(1, len(self._wanted) // len(who))  # offsets per pass
        rows = min(len(who), len(self._wanted))  # points per pass
        return [
            self._cells(who[s : s + rows], hashes[s : s + rows], offsets[k : k + per_pass], radius)
            for k in range(0, len(offsets), per_pass)
            for s in range(0, len(who), rows)
        ]

    def _cells(self, who, hashes, offsets, radius):
        """Close pairs of `who` with the points in cells hashes + each offset (fits one pass)."""
        count = len(who) * len(offsets)
        wanted, bucket, hit = self._wanted[:count], self._bucket_buffer[:count], self._hit_buffer[:count]
        np.add(hashes[:, None], offsets, out=wanted.reshape(len(who), len(offsets)))
        np.right_shift(wanted, self._shift, out=bucket)
        bucket_index = bucket.view(np.int64)
        np.take(self._occupied, bucket_index, out=hit)
        used = np.flatnonzero(hit)
        bucket_index = np.take(bucket_index, used)
        ranges = np.take(self._ranges, bucket_index, axis=0)
        start, size = ranges[:, 0], ranges[:, 1]
        return self._within(np.take(who, used // len(offsets)), start, size, np.take(wanted, used), radius)

    def _within(self, who, start, size, wanted, radius):
        """Pairs (who[k], p), p in sorted slots [start[k], start[k] + size[k]) of the cell hashed
        wanted[k], closer than `radius`. Exact hashes drop the other cells that share a bucket."""
        more = np.flatnonzero(size > 1)  # most buckets hold one point: expand only the others
        if len(more):
            extra = np.take(size, more) - 1
            first = np.cumsum(extra) - extra
            slot = np.repeat(np.take(start, more) + 1 - first, extra) + np.arange(int(first[-1] + extra[-1]))
            slot = np.concatenate([start, slot])
            who = np.concatenate([who, np.repeat(np.take(who, more), extra)])
            wanted = np.concatenate([wanted, np.repeat(np.take(wanted, more), extra)])
        else:
            slot = start
        same_cell = np.flatnonzero(np.take(self._sorted_hashes, slot) == wanted)
        i, slot = np.take(who, same_cell), np.take(slot, same_cell)
        d = np.take(self._points, i, axis=0) - np.take(self._sorted_points, slot, axis=0)
        close = np.flatnonzero(np.einsum("ij,ij->i", d, d) < radius * radius)
        return np.take(i, close), np.take(self._order, np.take(slot, close))


def close_pairs(positions: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """All pairs of points closer than `radius`: (i, j) int64 arrays, i < j, each pair once,
    sorted by (i, j). Cost grows linearly with the point count (for bounded points per cell)."""
    return SpatialHash().pairs(positions, radius)
