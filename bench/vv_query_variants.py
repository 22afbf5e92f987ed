"""Vertex–vertex self-collision's full hash query (`SpatialHash.pairs`) against variants, on the 128² impact's queries.

Runs bench.py's 128² drape (sphere + floor, vertex–vertex) to frame 20 and keeps the full queries' inputs (positions
less the mean, radius) of frames 8–19, where the adaptive skin is 0 and a full query comes every substep; then
times, interleaved, best of `--rounds` (CPU ms per query), and checks that every variant returns the same pairs
(`pairs`, in the same order) as the solver's, and the same set of pairs for `near` (every 8th point queried, twice
the radius, as a partial query does with the skin at the gap):

    .venv/bin/python bench/vv_query_variants.py [--kind quad] [--rounds 5] [--every 1] [--split]

`--every k`: keep every k-th of those queries (a quicker run on a loaded machine).

`--split`: also where a query's time goes (the solver's `pairs` and `pruned`, the stages of `_cells` and
`_within` timed apart, with the counts of look-ups, occupied buckets hit, candidates, candidates in the wanted cell).

Variants (round 22, vv26; none faster, so none is in solver/):
- `pruned`: cells of the radius as now, but an edge or corner neighbour cell looked up only where the point is
  closer to it than the radius (squared distances to the cell's faces in cell units, summed, below 1 + 1e-6):
  ~25 % fewer look-ups and candidates, paid for by the per-offset masks.
- `octants`: cells of twice the radius; a point looks up its own cell and the neighbours on its octant's side
  (the forward ones of 7 for `pairs`, 3.5 on average, not 14; 8 for `near`, not 27); the cells of twice the
  radius hold ~2x the candidates.
- `table16`, `table32`: 16 or 32 hash buckets a point (not 8): fewer false bucket hits, a larger table.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import solver  # noqa: E402
import solver.spatial_hash as sh  # noqa: E402
from solver import meshes  # noqa: E402

_MARGIN = 1.0 + 1e-6


def _octant_offsets() -> tuple[list[np.ndarray], list[np.ndarray]]:
    forward, every = [], []
    for code in range(8):
        signs = np.array([1 if code >> a & 1 else -1 for a in range(3)])
        masks = np.array([[mask >> a & 1 for a in range(3)] for mask in range(1, 8)])
        offsets = (masks * signs).astype(np.int64)
        first = offsets[np.arange(7), np.argmax(offsets != 0, axis=1)]
        forward.append(sh._offset_hashes(offsets[first > 0]))
        every.append(sh._offset_hashes(np.concatenate([np.zeros((1, 3), dtype=np.int64), offsets])))
    return forward, every


_OCTANT_FORWARD, _OCTANT_ALL = _octant_offsets()


def _scaled(positions: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(over="ignore"):
        scaled = positions * (1.0 / radius)
    np.fmax(scaled, -sh._LIMIT, out=scaled)
    np.fmin(scaled, sh._LIMIT, out=scaled)
    whole = np.floor(scaled)
    return whole, scaled - whole


def _packed_hashes(cells: np.ndarray) -> np.ndarray:
    packed = cells[:, 0] * 2.0 ** (2 * sh._BITS)
    packed += cells[:, 1] * 2.0**sh._BITS
    packed += cells[:, 2]
    hashes = packed.astype(np.uint64)
    hashes *= sh._GOLDEN
    return hashes


class Hashed(sh.SpatialHash):
    """`SpatialHash` whose `_build` takes the cells' hashes from `self.next_hashes` when set."""

    next_hashes: np.ndarray | None = None

    def _build(self, points, cell):
        hashes, self.next_hashes = self.next_hashes, None
        if hashes is None:
            return super()._build(points, cell)
        original = sh._cell_hashes
        sh._cell_hashes = lambda *_: hashes  # type: ignore[assignment]
        try:
            super()._build(points, cell)
        finally:
            sh._cell_hashes = original

    def _own_cell(self, n: int, radius: float) -> list:
        everyone = np.arange(n)
        rank = np.empty(n, dtype=np.intp)
        rank[self._order] = everyone
        ranges = np.take(self._ranges, self._bucket, axis=0)
        after = ranges[:, 0] + ranges[:, 1] - rank - 1
        some = np.flatnonzero(after)
        return [self._within(some, np.take(rank, some) + 1, np.take(after, some), np.take(self._hashes, some), radius)]

    @staticmethod
    def _sorted_pairs(found: list, n: int):
        i, j = np.concatenate([f[0] for f in found]), np.concatenate([f[1] for f in found])
        low, high = np.minimum(i, j), np.maximum(i, j)
        order = np.argsort(low * n + high)
        return low[order], high[order]


class Pruned(Hashed):
    def _pruned(self, who, fraction, first, radius):
        near_low = [np.square(np.take(f, who)) for f in fraction]
        near_high = [np.square(1.0 - np.take(f, who)) for f in fraction]
        hashes = np.take(self._hashes, who)
        found = []
        total = np.empty(len(who))
        for k in range(first, len(sh._CUBE)):
            offset = sh._CUBE[k]
            axes = np.flatnonzero(offset)
            if len(axes) > 1:
                terms = [(near_low if offset[a] < 0 else near_high)[a] for a in axes]
                np.add(terms[0], terms[1], out=total)
                if len(axes) > 2:
                    total += terms[2]
                some = np.flatnonzero(total < _MARGIN)
                sub, sub_hashes = np.take(who, some), np.take(hashes, some)
            else:
                sub, sub_hashes = who, hashes
            for s in range(0, len(sub), len(self._wanted)):
                stop = s + len(self._wanted)
                found.append(self._cells(sub[s:stop], sub_hashes[s:stop], sh._ALL[k : k + 1], radius))
        return found

    def _prepare(self, x, radius):
        whole, fraction = _scaled(x, radius)
        self.next_hashes = _packed_hashes(whole + sh._BIAS)
        self._build(x, radius)
        return [fraction[:, a].copy() for a in range(3)]

    def pairs(self, points, radius):
        x = np.asarray(points, dtype=np.float64)
        fraction = self._prepare(x, radius)
        found = self._own_cell(len(x), radius) + self._pruned(np.arange(len(x)), fraction, 14, radius)
        self._release()
        return self._sorted_pairs(found, len(x))

    def near(self, points, query, radius):
        x = np.asarray(points, dtype=np.float64)
        fraction = self._prepare(x, radius)
        found = self._pruned(np.asarray(query, dtype=np.intp), fraction, 0, radius)
        self._release()
        q, v = np.concatenate([f[0] for f in found]), np.concatenate([f[1] for f in found])
        return q[q != v], v[q != v]


class Octants(Hashed):
    def _prepare(self, x, radius):
        whole, _ = _scaled(x, radius)
        whole += sh._BIAS  # even: keeps each cell's parity
        coarse = np.floor(whole * 0.5)
        half = whole - 2.0 * coarse
        code = (half[:, 0] + 2.0 * half[:, 1] + 4.0 * half[:, 2]).astype(np.int8)
        self.next_hashes = _packed_hashes(coarse)
        self._build(x, radius)
        return code

    def pairs(self, points, radius):
        x = np.asarray(points, dtype=np.float64)
        code = self._prepare(x, radius)
        found = self._own_cell(len(x), radius)
        by_code = np.argsort(code, kind="stable")
        bounds = np.searchsorted(np.take(code, by_code), np.arange(9))
        for c in range(1, 8):
            if bounds[c + 1] > bounds[c]:
                found += self._lookup(by_code[bounds[c] : bounds[c + 1]], _OCTANT_FORWARD[c], radius)
        self._release()
        return self._sorted_pairs(found, len(x))

    def near(self, points, query, radius):
        x = np.asarray(points, dtype=np.float64)
        code = self._prepare(x, radius)
        query = np.asarray(query, dtype=np.intp)
        qcode = np.take(code, query)
        by_code = np.argsort(qcode, kind="stable")
        bounds = np.searchsorted(np.take(qcode, by_code), np.arange(9))
        found = []
        for c in range(8):
            if bounds[c + 1] > bounds[c]:
                found += self._lookup(np.take(query, by_code[bounds[c] : bounds[c + 1]]), _OCTANT_ALL[c], radius)
        self._release()
        q, v = np.concatenate([f[0] for f in found]), np.concatenate([f[1] for f in found])
        return q[q != v], v[q != v]


class Table(sh.SpatialHash):
    buckets = 8

    def _build(self, points, cell):
        original = sh._TABLE
        sh._TABLE = self.buckets
        try:
            super()._build(points, cell)
        finally:
            sh._TABLE = original


class Table16(Table):
    buckets = 16


class Table32(Table):
    buckets = 32


def impact_queries(kind: str) -> list[tuple[np.ndarray, float]]:
    n = 128
    if kind == "quad":
        vertices, faces = meshes.grid(n, n, size=2.0, height=1.5)
    elif kind == "tri":
        vertices, quads = meshes.grid(n, n, size=2.0, height=1.5)
        faces = meshes.triangulated(quads)
    elif kind == "jitter":
        vertices, faces = meshes.jittered_grid(n, size=2.0, height=1.5)
    else:
        vertices, faces = meshes.holed_grid(n, size=2.0, height=1.5)
    saved: list[tuple[np.ndarray, float]] = []
    frame = [0]
    original = sh.SpatialHash.pairs

    def keep(self, points, radius):
        if 8 <= frame[0] < 20:
            saved.append((np.array(points), radius))
        return original(self, points, radius)

    sh.SpatialHash.pairs = keep  # type: ignore[method-assign]
    model = solver.build_model(vertices, faces)
    state = model.initial_state()
    colliders = [solver.Sphere(center=(0.0, 0.0, 0.5), radius=0.5), solver.Plane(point=(0, 0, 0))]
    params = solver.Params(self_collision=True, self_collision_faces=False)
    for frame[0] in range(20):
        solver.step(model, state, params, 1 / 24, colliders)
    sh.SpatialHash.pairs = original  # type: ignore[method-assign]
    return saved


def split(table: sh.SpatialHash, queries: list[tuple[np.ndarray, float]], rounds: int = 2) -> str:
    """CPU ms per query by stage, and counts per query, of `table.pairs` over `queries` (stages re-implemented
    with timers, the same operations as `SpatialHash._cells` / `_within`)."""
    spent: dict[str, float] = {}

    def tick(key: str, start: float, count: int = 0) -> float:
        now = time.process_time()
        spent[key] = spent.get(key, 0.0) + now - start
        if count:
            spent["#" + key] = spent.get("#" + key, 0) + count
        return now

    def within(self, who, start, size, wanted, radius):
        t = time.process_time()
        more = np.flatnonzero(size > 1)
        if len(more):
            extra = np.take(size, more) - 1
            first = np.cumsum(extra) - extra
            slot = np.repeat(np.take(start, more) + 1 - first, extra) + np.arange(int(first[-1] + extra[-1]))
            slot = np.concatenate([start, slot])
            who = np.concatenate([who, np.repeat(np.take(who, more), extra)])
            wanted = np.concatenate([wanted, np.repeat(np.take(wanted, more), extra)])
        else:
            slot = start
        t = tick("expand (candidates)", t, len(slot))
        same_cell = np.flatnonzero(np.take(self._sorted_hashes, slot) == wanted)
        i, slot = np.take(who, same_cell), np.take(slot, same_cell)
        t = tick("same cell (in the wanted cell)", t, len(i))
        d = np.take(self._points, i, axis=0) - np.take(self._sorted_points, slot, axis=0)
        t = tick("gather points", t)
        close = np.flatnonzero(np.einsum("ij,ij->i", d, d) < radius * radius)
        found = np.take(i, close), np.take(self._order, np.take(slot, close))
        tick("distance (pairs)", t, len(close))
        return found

    def cells(self, who, hashes, offsets, radius):
        t = time.process_time()
        count = len(who) * len(offsets)
        wanted, bucket, hit = self._wanted[:count], self._bucket_buffer[:count], self._hit_buffer[:count]
        np.add(hashes[:, None], offsets, out=wanted.reshape(len(who), len(offsets)))
        np.right_shift(wanted, self._shift, out=bucket)
        bucket_index = bucket.view(np.int64)
        np.take(self._occupied, bucket_index, out=hit)
        used = np.flatnonzero(hit)
        t = tick("look-up (look-ups)", t, count)
        bucket_index = np.take(bucket_index, used)
        ranges = np.take(self._ranges, bucket_index, axis=0)
        start, size = ranges[:, 0], ranges[:, 1]
        who, wanted = np.take(who, used // len(offsets)), np.take(wanted, used)
        tick("ranges (occupied hit)", t, len(used))
        return within(self, who, start, size, wanted, radius)

    build = sh.SpatialHash._build

    def timed_build(self, *args):
        t = time.process_time()
        build(self, *args)
        tick("build", t)

    saved = sh.SpatialHash._cells, sh.SpatialHash._within, sh.SpatialHash._build
    sh.SpatialHash._cells, sh.SpatialHash._within, sh.SpatialHash._build = cells, within, timed_build  # type: ignore[method-assign]
    try:
        start = time.process_time()
        for _ in range(rounds):
            for y, r in queries:
                table.pairs(y, r)
        total = time.process_time() - start
    finally:
        sh.SpatialHash._cells, sh.SpatialHash._within, sh.SpatialHash._build = saved  # type: ignore[method-assign]
    per = rounds * len(queries)
    text = f"total {1000 * total / per:.2f} ms"
    for key, value in spent.items():
        text += f", {key} {value / per:.0f}" if key.startswith("#") else f", {key} {1000 * value / per:.2f} ms"
    return text


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kind", default="quad", choices=("quad", "tri", "jitter", "holed"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--split", action="store_true")
    parser.add_argument("--every", type=int, default=1)
    args = parser.parse_args()
    queries = impact_queries(args.kind)[:: args.every]
    variants = {
        "solver": sh.SpatialHash(),
        "pruned": Pruned(),
        "octants": Octants(),
        "table16": Table16(),
        "table32": Table32(),
    }
    reference = [variants["solver"].pairs(y, r) for y, r in queries]
    for name, table in variants.items():
        for (y, r), (i, j) in zip(queries, reference, strict=True):
            a, b = table.pairs(y, r)
            assert np.array_equal(a, i) and np.array_equal(b, j), name
            query = np.arange(0, len(y), 8)
            q, v = table.near(y, query, 2 * r)
            q0, v0 = variants["solver"].near(y, query, 2 * r)
            assert np.array_equal(np.sort(q * len(y) + v), np.sort(q0 * len(y) + v0)), name
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.rounds):
        for name, table in variants.items():
            start = time.process_time()
            for y, r in queries:
                table.pairs(y, r)
            times.setdefault((name, "pairs"), []).append(1000 * (time.process_time() - start) / len(queries))
            start = time.process_time()
            for y, r in queries:
                table.near(y, np.arange(0, len(y), 8), 2 * r)
            times.setdefault((name, "near"), []).append(1000 * (time.process_time() - start) / len(queries))
    found = sum(len(i) for i, _ in reference)
    print(f"{len(queries)} full queries of frames 8-19 ({args.kind} 128²), {found} pairs; all variants equal")
    for (name, what), values in times.items():
        print(f"{name} {what}: best {min(values):.2f} median {np.median(values):.2f} ms/query")
    if args.split:
        for name in ("solver", "pruned", "solver", "pruned"):
            print(f"split {name}: {split(variants[name], queries)}")


if __name__ == "__main__":
    main()
