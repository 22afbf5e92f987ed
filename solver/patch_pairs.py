"""Face self-collision candidates without enumerating the cloth's own neighbourhood every substep.

The rest mesh's vertices are binned into patches (cells of a grid over the rest positions, `cell`
wide: any topology, holes, fans, torn faces). A primitive (vertex, triangle, edge) belongs to the
patch of its first vertex. Patches are neighbours when their cells touch (a 3 x 3 x 3 block).
Candidate pairs split in two:

- Pairs of primitives in neighbouring patches (the cloth's own neighbourhood): a static list built
  once from the rest mesh (minus the pairs that never collide), each row keeping `clear`, a lower
  bound on its distance at an origin (positions at the middle of a substep's paths). Each substep
  every patch gets a rigid motion from the origin (`_bound`: a rotation tracked per patch, its
  centroid's motion, the residual of its members), which bounds how much a row's distance at the
  middle of this substep's paths differs from the origin's (B); half the relative motion of two
  corners in the substep is bounded by the patches' motion spans (H). A row is measured again only
  when clear < gap + B + H. When a quarter of the rows were due the origin moves to the next
  substep's middles, each row's clear carried over less its B there: no row is measured for it.
- Pairs of primitives in patches that are not neighbours (separate layers, or the same sheet folded):
  patch boxes (the span of their primitives' boxes) are joined (a list of grown boxes' pairs kept while
  every box stays inside its grown one, filtered every substep), and only overlapping
  pairs of patches whose primitives' spans at the middles come within gap + H are expanded into
  primitive pairs: only the primitives whose boxes meet the other patch's span, and, for patches near
  at rest, only the pairs a mask made once from the rest mesh keeps (128² impact: a third of the
  overlapping pairs were excluded at rest, measured every substep only to be dropped).

Both give exactly the pairs the caller's test gives over every pair of primitives (`FaceCollision`'s
every-substep query: boxes overlapping, then the distance at the middle of the paths within gap + half
the largest relative corner motion, which a row's clear less B and H rules out).
Measured in docs/self-collision.md (rounds 8 and 9).
"""

from __future__ import annotations

import numpy as np

from .triangle_grid import TriangleGrid
from .vectors import spans_of_rows

_EMPTY = np.zeros(0, dtype=np.int64)

# The patches' min / max over runs of members a column at a time (`_Runs`) rather than by `reduceat`: the same
# numbers (bit-identical drapes), ~3x quicker for the runs of ~4 members a patch holds. Runs wider than PADDED_MOST,
# or padded to more than PADDED_SHARE times their values, keep the reduceat. (Its switch USE_RUNS folded in round 24.)
PADDED_MOST = 16
PADDED_SHARE = 2.5

# `_near` finds its due rows over the whole static list (one gather of each row's segment reach, one compare) rather
# than over its due segments' rows (listed by repeat / arange, gathered, compared, and gathered again for each
# segment's least) when the due segments hold more than this share of the rows (the 128² impact: ~80 %): exactly the
# same rows (a row is due only in a segment whose least, its smallest clear, is under the reach), the same leasts
# (made again over every segment: the others' are unchanged mins). 0: off (the due segments' rows always).
NEAR_WHOLE_SHARE = 0.5
# A new origin for the static rows' bounds (`find`: each row's clear carried over, less its segment's bound) once more
# than this share of the rows were due in a query. 0.1 at the 128² impact: a new origin every full query there, due
# rows -15 to -19 %, `_near` -7 % more: each patch's rigid fit from an origin a few substeps back bounds its rows more
# loosely than the bounds carried substep by substep; on whole 64² / 32² runs its extra origins (each a pass over
# every row) and the fewer due rows showed no difference either way at round 29's load. The same candidates whatever
# it is. Kept at main's quarter; 0.1 a candidate (docs/self-collision.md, round 29, nearrows_r29).
NEAR_RESET_SHARE = 0.25


def _cells(points: np.ndarray, cell: float) -> tuple[np.ndarray, np.ndarray]:
    """(patch of each point, (P, 3) cell coordinates of each patch)."""
    # Half a cell in: a regular grid whose spacing is the cell puts one vertex in each, not 0 or 2 by rounding.
    coords = np.floor((points - points.min(axis=0)) / cell + 0.5).astype(np.int64)
    unique, home = np.unique(coords, axis=0, return_inverse=True)
    return home.reshape(-1), unique


def _groups(home: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(members sorted by patch, first slot of each patch, members per patch)."""
    order = np.argsort(home, kind="stable")
    size = np.bincount(home, minlength=count)
    return order, np.cumsum(size) - size, size


class _Runs:
    """Min / max over consecutive runs of a 1-D array, as `ufunc.reduceat(values, first)` gives them (every run
    non-empty), a column at a time: slot j of every run (its last slot again past its end) gathered, and the
    columns' elementwise minimum / maximum taken in slot order. The same numbers exactly (a min / max of the same
    values in the same order; a repeated value changes neither). NumPy's reduceat pays ~30 ns a run: the
    patches' runs of ~4 members are ~3x quicker this way (64², 16 k values in 4 k runs: 137 -> 54 µs). Runs
    too uneven for it (the widest over PADDED_MOST, or the padded columns over PADDED_SHARE times the values:
    a fan's centre) keep the reduceat."""

    def __init__(self, first: np.ndarray, total: int):
        self.first = np.asarray(first, dtype=np.intp)
        self.columns: list[np.ndarray] | None = None
        runs = len(self.first)
        if runs == 0:
            return
        size = np.diff(np.append(self.first, total))
        width = int(size.max())
        if width > PADDED_MOST or width * runs > PADDED_SHARE * total:
            return
        last = self.first + size - 1
        self.columns = [np.minimum(self.first + j, last) for j in range(width)]

    def reduce(self, ufunc, values: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """ufunc.reduceat(values, first) (ufunc np.minimum or np.maximum), into out if given."""
        columns = self.columns
        if columns is None:
            if out is None:
                return ufunc.reduceat(values, self.first)
            out[...] = ufunc.reduceat(values, self.first)
            return out
        if out is None:
            out = values.take(columns[0])
        else:
            values.take(columns[0], out=out)
        if len(columns) > 1:
            other = np.empty(len(columns[0]), dtype=values.dtype)
            for column in columns[1:]:
                values.take(column, out=other)
                ufunc(out, other, out=out)
        return out


def _product(first, second, P: np.ndarray, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (a, b) with a a member of patch P[k] in `first` and b of Q[k] in `second` ((order, start,
    size) groups), and k: grouped by k."""
    order1, start1, size1 = first
    order2, start2, size2 = second
    n1, n2 = size1[P], size2[Q]
    per = n1 * n2
    total = int(per.sum())
    if total == 0:
        return _EMPTY, _EMPTY, _EMPTY
    k = np.repeat(np.arange(len(P)), per)
    local = np.arange(total) - np.repeat(np.cumsum(per) - per, per)
    width = n2[k]
    a = order1[start1[P][k] + local // width]
    b = order2[start2[Q][k] + local % width]
    return a, b, k


def _block_product(group, A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (P, Q) with P a patch of block A[k] and Q one of B[k] ((order, start, size) group), grouped by k,
    in `_product`'s order: each P's slot repeated, Q's counted up (no integer division)."""
    order, start, size = group
    n1, n2 = size.take(A), size.take(B)
    # One row per (k, P): P's slot, and how many Q it pairs with.
    rows = np.repeat(np.arange(len(A)), n1)
    first = np.cumsum(n1) - n1
    slot_p = start.take(A).take(rows) + np.arange(len(rows)) - first.take(rows)
    width = n2.take(rows)
    total = int(width.sum())
    if total == 0:
        return _EMPTY, _EMPTY
    P = order.take(np.repeat(slot_p, width))
    # Q's slots: each row's run counts up from its block's first slot.
    run = np.cumsum(width) - width
    Q = order.take(np.arange(total) - np.repeat(run - start.take(B).take(rows), width))
    return P, Q


def _slots(ka: np.ndarray, kb: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Every (i, j) with ka[i] == kb[j] (ka and kb grouped by k, k < count), as (slots i, slots j) grouped by
    i in order: each i repeated, the j of its k counted up from its k's first (no division: a third of the
    expansion's time)."""
    n2 = np.bincount(kb, minlength=count)
    width = n2.take(ka)
    total = int(width.sum())
    if total == 0:
        return _EMPTY, _EMPTY
    slot_a = np.repeat(np.arange(len(ka)), width)
    slot_b = np.arange(total) - np.repeat(np.cumsum(width) - width - (np.cumsum(n2) - n2).take(ka), width)
    return slot_a, slot_b


def _members(group, P: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(members of patch P[k], k, each member's place in its patch) for every k, grouped by k
    ((order, start, size) group)."""
    order, start, size = group
    count = size[P]
    k = np.repeat(np.arange(len(P)), count)
    local = np.arange(len(k)) - np.repeat(np.cumsum(count) - count, count)
    return order[start[P][k] + local], k, local


class PatchPairs:
    """Candidate (vertex, triangle) and (edge, edge) pairs of one cloth, found per substep."""

    rigid = True  # rows bounded by a rigid motion per patch (else by translation alone; for measuring)
    far_filter = True  # far pairs of patches filtered by their spans at the middles (for measuring)
    around = 1  # patches within this many cells of each other (Chebyshev) are neighbours
    far_margin = 0.5  # the kept join of far patches: boxes grown by this many gaps (see _far_patches)
    far_motion = 2.0  # ... and by this many times the patch's largest motion in the substep
    far_middles = True  # far pairs dropped by their boxes at the middles before measuring (see _test)
    far_middles_share = 0.3  # ... while that dropped at least this share of them (`_middles_pay`)
    far_middles_retry = 8  # ... and every this many full queries anyway
    far_block = 2  # the far join over blocks of this many cells a side (1: over patches; see _far_blocks)

    @staticmethod
    def suits(rest: np.ndarray, triangles: np.ndarray, edges: np.ndarray, cell: float) -> bool:
        """Whether patches of `cell` suit this rest mesh: finite, with faces, the cells' coordinates in
        their keys, and not so many primitives per cell that the static rows would dwarf the mesh."""
        if len(triangles) == 0 or len(edges) < 2 or not np.isfinite(rest).all() or not cell > 0:
            return False
        if float(np.max(rest.max(axis=0) - rest.min(axis=0))) / cell >= 1 << 19:
            return False
        home, _ = _cells(rest, cell)
        per_cell = np.bincount(home[edges[:, 0]]).astype(np.float64)
        # The static rows grow with the edges sharing an edge's cell: a few on a cloth, all of them on a
        # mesh bunched into one cell (rows ~ edges²).
        return float((per_cell * per_cell).sum() / per_cell.sum()) <= 64.0

    def __init__(
        self,
        rest: np.ndarray,
        triangles: np.ndarray,
        edges: np.ndarray,
        cell: float,
        keep_vt,
        keep_ee,
        near=None,
        excluded_within: float | None = None,
    ):
        """keep_vt(p, t) / keep_ee(e, f): masks of the pairs that may collide at all (no shared vertex,
        not excluded at rest): applied once to the static rows, and to every expanded pair.
        excluded_within: keep drops no pair of primitives sharing no vertex and at least this far apart at
        rest but for a few far ones (seams); then far pairs of patches this near at rest get their kept
        pairs from a mask made once (see `_rest_masks`)."""
        self.triangles, self.edges = triangles, edges
        self.around = PatchPairs.around
        self.keep_vt, self.keep_ee = keep_vt, keep_ee
        n = len(rest)
        self.home, self.cells = _cells(rest, cell)
        count = self.count = len(self.cells)
        self.triangle_home = self.home[triangles[:, 0]] if len(triangles) else _EMPTY
        self.edge_home = self.home[edges[:, 0]] if len(edges) else _EMPTY
        self.vertex_group = _groups(self.home, count)
        # A patch's members: the vertices and corners of its primitives, each once, with a bit per kind
        # (1 vertex, 2 triangle, 4 edge) it is a corner of; grouped by patch (every patch has its vertex).
        key = np.concatenate(
            [self.home * n + np.arange(n), np.repeat(self.triangle_home, 3) * n + triangles.reshape(-1)]
        )
        key = np.concatenate([key, np.repeat(self.edge_home, 2) * n + edges.reshape(-1)])
        bits = np.repeat(np.array([1, 2, 4]), [n, triangles.size, edges.size])
        order = np.argsort(key, kind="stable")
        first = np.flatnonzero(np.diff(key[order], prepend=-1))
        key = key[order][first]
        self.member_kind = np.bitwise_or.reduceat(bits[order], first)
        self.member_patch, self.member_vertex = key // n, key % n
        self.member_start = np.searchsorted(self.member_patch, np.arange(count))
        self.member_count = np.diff(np.append(self.member_start, len(key))).astype(np.float64)
        # Per kind, the members holding it (a corner of one of its primitives): (their vertices, the patches holding
        # any, each such patch's first slot among them, whether every patch does), for `_set_paths`.
        self.kind_members: dict[str, tuple] = {}
        for kind, bit in (("vertex", 1), ("triangle", 2), ("edge", 4)):
            holding = np.flatnonzero(self.member_kind & bit)
            has, first = np.unique(self.member_patch.take(holding), return_index=True)
            self.kind_members[kind] = self.member_vertex.take(holding), has, first, len(has) == count
        self.triangle_group = _groups(self.triangle_home, count)
        self.edge_group = _groups(self.edge_home, count)
        # (the reductions over members and over each kind's primitives, a column at a time: `_Runs`)
        self.member_runs = _Runs(self.member_start, len(self.member_vertex))
        self.kind_runs = {kind: _Runs(found[2], len(found[0])) for kind, found in self.kind_members.items()}
        self.group_runs = {
            kind: _Runs(group[1].take(np.flatnonzero(group[2])), len(group[0])) for kind, group in self._kind_groups()
        }
        # Neighbouring patch pairs (P, Q), every ordered pair once (P == Q included): cells that touch, and
        # patches whose primitives come within `near` at rest (a primitive reaches an edge beyond its cell:
        # two cells apart they still hold pairs near at rest, which a wrinkle brings within the gap every
        # substep; as far pairs they were expanded every substep only to be excluded at rest).
        keys = self._keys(self.cells)
        P, Q = [], []
        span = list(range(-self.around, self.around + 1))
        for offset in np.array(np.meshgrid(span, span, span)).reshape(3, -1).T:
            found = np.searchsorted(keys, self._keys(self.cells + offset))
            found = np.minimum(found, count - 1)
            hit = keys[found] == self._keys(self.cells + offset)
            P.append(np.flatnonzero(hit))
            Q.append(found[hit])
        if near is not None:
            low, high = _patch_spans(rest, self, count)
            low -= 0.5 * near
            high += 0.5 * near
            p, q = TriangleGrid().build_boxes(low, high).query_boxes(low, high)
            P.append(p)
            Q.append(q)
        self.near_given = near is not None
        pair = np.unique(np.concatenate(P) * count + np.concatenate(Q))
        self.pair_p, self.pair_q = pair // count, pair % count
        self.pair_keys = pair  # sorted
        # Each pair's (Q, P) twin: the list holds both orders (cells touching, and `near`, are symmetric).
        self.pair_swap = np.searchsorted(pair, self.pair_q * count + self.pair_p)
        # Static rows: (vertex, triangle) with the vertex's patch P and the triangle's Q, and (edge, edge), e < f.
        p, t, k = _product(self.vertex_group, self.triangle_group, self.pair_p, self.pair_q)
        keep = np.flatnonzero(keep_vt(p, t)) if len(p) else _EMPTY
        self.vt_p, self.vt_t, self.vt_seg = p[keep], t[keep], k[keep]
        e, f, k = _product(self.edge_group, self.edge_group, self.pair_p, self.pair_q)
        lower = e < f
        e, f, k = e[lower], f[lower], k[lower]
        keep = np.flatnonzero(keep_ee(e, f)) if len(e) else _EMPTY
        self.ee_e, self.ee_f, self.ee_seg = e[keep], f[keep], k[keep]
        segments = len(self.pair_p)
        # Each segment's rows (first slot, count), by kind: what `_near` looks its due segments up in (was two
        # binary searches of the rows' segment ids each call).
        self.seg_rows = {
            kind: (np.searchsorted(seg, np.arange(segments)), np.bincount(seg, minlength=segments))
            for kind, seg in ((True, self.vt_seg), (False, self.ee_seg))
        }
        self.masks = None if excluded_within is None else self._rest_masks(rest, excluded_within)
        # Which static rows touch each vertex (for partial queries): (rows sorted by vertex, first slot per vertex).
        self.vt_by_vertex = _incidence(np.concatenate([self.vt_p[:, None], triangles[self.vt_t]], axis=1), n)
        self.ee_by_vertex = _incidence(np.concatenate([edges[self.ee_e], edges[self.ee_f]], axis=1), n)
        self.origin: np.ndarray | None = None
        # Set at each new origin (`_reset`): the members' positions there about their patch's centroid, the
        # centroids, each kind's largest distance from it per patch, and each patch's rotation since.
        self.member_rest = np.zeros((len(self.member_vertex), 3))
        self.member_centre = np.zeros((count, 3))
        self.pair_offset = np.zeros((len(self.pair_p), 3))
        self.member_size: dict[int, np.ndarray] = {}
        self.quaternion = np.zeros((count, 4))
        self.vt_clear = np.zeros(len(self.vt_p))
        self.ee_clear = np.zeros(len(self.ee_e))
        self.vt_least = np.full(segments, np.inf)  # each segment's smallest clear
        self.ee_least = np.full(segments, np.inf)
        self.seg_firsts: dict[bool, tuple] = {}  # by kind: (segments holding rows, their first rows) (`_seg_firsts`)
        self._fresh = True  # every row's clear to be measured
        # The last query's vertex boxes, each patch's span of its primitives' per kind, the primitives at each
        # vertex: what a partial query makes again only where boxes changed (`_partial_boxes`).
        self.boxes_of: tuple[np.ndarray, np.ndarray] | None = None
        self.kind_spans: dict | None = None
        self.touching_rows: tuple | None = None
        self._stale = False  # a new origin at the next find
        self._due = 0
        self.grid = TriangleGrid()
        self.measured = 0  # rows measured again, in all (statistics)
        self.resets = 0
        self.far_pairs = 0
        self.far_kept: tuple | None = None  # (grown low, high, P, Q) of `_far_patches` (of blocks: `_far_blocks`)
        self.patch_box: tuple | None = None  # each patch's box over all its primitives, kept (`_patch_boxes`)
        self._set_blocks()
        self.far_joins = 0
        self.patch_motion = np.zeros(count)  # each patch's largest member motion in the last full query's substep
        self.skin_pads: tuple | None = None  # (skin, each patch's largest pad) of a skin's full query (see find)
        self.gap = 0.0
        self.seg_limit: np.ndarray | None = None  # each segment's bound on its rows' listing limits (`_near`)
        self.middle_boxes: dict = {}  # each kind's boxes at the middle of the paths (`_middle_boxes`)
        self.middle_share: dict[str, float] = {}  # by kind: the share of far pairs they dropped, last time
        self.middle_skipped: dict[str, int] = {}  # by kind: full queries since the middles were last tried

    def _set_blocks(self) -> None:
        """Blocks of patches for the far join (`_far_blocks`): `far_block` cells a side, at most around + 1
        (the patches of one block are then all neighbours): (patches sorted by block, first slot of each
        block, patches per block)."""
        self.block_cells = max(min(self.far_block, self.around + 1), 1)
        _, block = np.unique(self._keys(self.cells // self.block_cells), return_inverse=True)
        self.block_of = block.reshape(-1)
        self.block_group = _groups(self.block_of, int(self.block_of.max(initial=-1)) + 1)
        self.block_runs = _Runs(self.block_group[1].take(np.flatnonzero(self.block_group[2])), len(self.block_group[0]))
        self.cell_columns = [np.ascontiguousarray(self.cells[:, k]) for k in range(3)]
        self.far_kept = None
        self.far_by_block: tuple | None = None  # the kept join's pairs at each block (`_incidence`; partial queries)
        self.block_box: tuple | None = None  # each block's box, kept (`_far_blocks`)

    def _rest_masks(self, rest: np.ndarray, within: float) -> dict:
        """For each pair of patches that are not neighbours but whose corners' boxes come within `within`
        of each other at rest (a primitive reaches an edge beyond its cell: patches two or three cells
        apart), which of their (vertex, triangle) and (edge, edge) pairs keep_* keeps, made once: keep is a
        property of the rest mesh (torn faces are dropped later, by `active`). Other pairs of patches are
        farther apart at rest than `within`: they share no vertex, and keep drops few of their pairs (seams),
        so it is still applied to those after they are measured. By kind: (sorted pair keys, first slot of
        each pair's mask, the masks, flat, in the order of `_product`)."""
        count = self.count
        low, high = _patch_spans(rest, self, count)
        grow = 0.5 * within * (1.0 + 1e-6) + 1e-12 * float(np.abs(rest).max(initial=1.0))
        low -= grow
        high += grow
        P, Q = TriangleGrid().build_boxes(low, high).query_boxes(low, high, below=True)
        apart = ~_member(self.pair_keys, P * count + Q)
        P, Q = P[apart], Q[apart]
        masks = {}
        for kinds, first, second, keep, unsorted in (
            ("vt", self.vertex_group, self.triangle_group, self.keep_vt, np.append(P * count + Q, Q * count + P)),
            ("ee", self.edge_group, self.edge_group, self.keep_ee, P * count + Q),  # P < Q: the caller orders them so
        ):
            key = np.sort(unsorted)
            ones, others = key // count, key % count
            a, b, _ = _product(first, second, ones, others)
            per = first[2][ones] * second[2][others]
            kept = keep(a, b) if len(a) else np.zeros(0, dtype=bool)
            masks[kinds] = key, np.cumsum(per) - per, kept
        return masks

    @staticmethod
    def _keys(cells: np.ndarray) -> np.ndarray:
        c = cells + (1 << 20)
        return (c[:, 0] << 42) + (c[:, 1] << 21) + c[:, 2]

    def _bound(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each segment's bound on how much its rows' distances at positions x differ from theirs at the
        origin: (vt, ee).

        Each patch gets a rigid motion from the origin (tracked towards its members' best fit; any rotation
        would be sound), x = R (y - c0) + c + r for its members (r: the residual). For a point a of a
        primitive of P and b of one of Q (convex combinations of corners; the map is affine):
        x_a - x_b = R_P (y_a - y_b) + [R_P (y_b - c0_P) + c_P - R_Q (y_b - c0_Q) - c_Q] + r_a - r_b, and
        the bracket is at most |R_P (c0_Q - c0_P) + c_P - c_Q| + |R_P - R_Q| |y_b - c0_Q| (or the same
        with P and Q swapped): patches turning together (a skirt swinging, a wrinkle rolling) keep their
        rows' bounds small, where a bound on translation alone grew with the turn times the patch's size."""
        assert self.origin is not None
        start, count = self.member_start, self.member_count
        X = x.take(self.member_vertex, axis=0)  # (take: ~4x quicker than [] on (K, 3) rows)
        c = np.add.reduceat(X, start, axis=0) / count[:, None]
        X -= c.take(self.member_patch, axis=0)
        Y = self.member_rest
        H = np.add.reduceat((Y[:, :, None] * X[:, None, :]).reshape(-1, 9), start, axis=0).reshape(-1, 3, 3)
        if self.rigid:
            self.quaternion = _rotation_towards(self.quaternion, H.transpose(0, 2, 1), 2)
            R = _matrices(self.quaternion)
        else:
            R = np.broadcast_to(np.eye(3), H.shape)
        E = X - np.einsum("mij,mj->mi", R.take(self.member_patch, axis=0), Y)
        residual = np.sqrt(np.einsum("ij,ij->i", E, E))
        P, Q = self.pair_p, self.pair_q
        turn = _turns(self.quaternion.take(P, axis=0), self.quaternion.take(Q, axis=0))
        d = np.einsum("kij,kj->ki", R.take(P, axis=0), self.pair_offset)
        d += c.take(P, axis=0)
        d -= c.take(Q, axis=0)
        into_q = np.sqrt(np.einsum("ij,ij->i", d, d))
        into_p = into_q.take(self.pair_swap)  # (P, Q)'s into_p is (Q, P)'s into_q
        residuals = {bit: _member_max(residual, self.member_kind & bit, start, self.member_runs) for bit in (1, 2, 4)}
        bounds = []
        for first, second in ((1, 2), (4, 4)):
            res_p, res_q = residuals[first][P], residuals[second][Q]
            size_p, size_q = self.member_size[first][P], self.member_size[second][Q]
            relative = np.minimum(into_q + turn * size_q, into_p + turn * size_p)
            bounds.append(res_p + res_q + relative + 1e-9 * (self.gap + size_p + size_q))
        return bounds[0], bounds[1]

    def _reset(self, origin: np.ndarray) -> None:
        """A new origin (positions at the middle of a substep's paths): every rigid motion starts again."""
        self.origin = origin.copy()
        start = self.member_start
        Y = origin[self.member_vertex]
        self.member_centre = np.add.reduceat(Y, start, axis=0) / self.member_count[:, None]
        self.pair_offset = self.member_centre[self.pair_q] - self.member_centre[self.pair_p]  # c0_Q - c0_P
        Y -= self.member_centre[self.member_patch]
        self.member_rest = Y
        size = np.sqrt(np.einsum("ij,ij->i", Y, Y))
        self.quaternion = np.zeros((len(self.member_centre), 4))
        self.quaternion[:, 0] = 1.0
        self.member_size = {bit: _member_max(size, self.member_kind & bit, start) for bit in (1, 2, 4)}
        self.resets += 1
        self._stale = False

    def find(
        self,
        start: np.ndarray,
        end: np.ndarray,
        low: np.ndarray,
        high: np.ndarray,
        gap: float,
        measure_vt,
        measure_ee,
        active: np.ndarray | None = None,
        moved: np.ndarray | None = None,
        pad: np.ndarray | None = None,
        skin: float = 0.0,
    ):
        """Candidates for the substep from `start` to `end` (each (N, 3)): ((p, t, distance), (e, f, distance)),
        each sorted by pair.

        low / high: each vertex's box (its path grown by gap / 2 on every side); a pair is a candidate
        when its primitives' boxes (spans of their corners') overlap and measure_*(first, second) ->
        (distance, limit) gives distance < limit, where limit <= gap + half the largest relative motion
        of two corners in the substep (what lets rows left out be skipped). active: triangles that collide.
        moved: only the pairs with a corner in it (a partial query: the anchors are of several substeps, so
        the bounds do not apply and every static row touching a moved vertex is measured).
        pad (with skin): a skin's full query instead: limit <= gap + skin + the largest pad of each primitive's
        corners (each vertex's, (N,)), measured at the middles of the paths; low / high then hold each vertex's
        middle grown by at least gap / 2 on every side."""
        self.gap = gap
        if moved is not None and self.origin is not None and len(self.origin) == len(start):
            index = np.flatnonzero(moved)
            spans, patched = self._partial_boxes(low, high)
            near_vt = self._touching(self.vt_by_vertex, index, True, measure_vt)
            near_ee = self._touching(self.ee_by_vertex, index, False, measure_ee)
            far_vt, far_ee = self._far(low, high, measure_vt, measure_ee, (moved, index), spans, patched)
            return self._merged(near_vt, near_ee, far_vt, far_ee, active)
        middle = 0.5 * (start + end)
        if self.origin is None or len(self.origin) != len(start):
            self._reset(middle)
            self._fresh = True
        vt_bound, ee_bound = self._bound(middle)
        if self._stale:
            # A new origin here, each row's clear carried over to it: its distance here is at least its
            # clear less its segment's bound (no row measured again for it).
            self.vt_clear -= vt_bound[self.vt_seg]
            self.ee_clear -= ee_bound[self.ee_seg]
            self.vt_least -= vt_bound
            self.ee_least -= ee_bound
            self._reset(middle)
            vt_bound, ee_bound = np.zeros_like(vt_bound), np.zeros_like(ee_bound)
        self._set_boxes(low, high)
        self._set_paths(start, end)
        # With a skin, each patch's largest pad over its members (every corner of its primitives) bounds its rows'.
        self.skin_pads = None
        if pad is not None:
            self.skin_pads = skin, np.maximum.reduceat(pad.take(self.member_vertex), self.member_start)
        self.middle, self.middle_boxes = middle, {}
        beyond = self._beyond_gap(self.pair_p, self.pair_q)
        half = gap + beyond
        vt_reach, ee_reach = half + vt_bound, half + ee_bound
        self.seg_limit = self._reach(beyond)
        if self._fresh:
            self._fresh = False
            self.vt_clear = self._gaps("vertex", self.vt_p, "triangle", self.vt_t, gap)
            self.vt_clear -= vt_bound[self.vt_seg]
            self.ee_clear = self._gaps("edge", self.ee_e, "edge", self.ee_f, gap)
            self.ee_clear -= ee_bound[self.ee_seg]
            self.vt_least = _segment_min(self.vt_clear, self.vt_seg, len(self.pair_p))
            self.ee_least = _segment_min(self.ee_clear, self.ee_seg, len(self.pair_p))
        near_vt = self._near(vt_bound, vt_reach, measure_vt, True)
        near_ee = self._near(ee_bound, ee_reach, measure_ee, False)
        far_vt, far_ee = self._far(low, high, measure_vt, measure_ee)
        # Too much of the cloth due: a new origin next substep (the bounds have grown).
        self._stale = self._due > NEAR_RESET_SHARE * (len(self.vt_p) + len(self.ee_e))
        self._due = 0
        return self._merged(near_vt, near_ee, far_vt, far_ee, active)

    def _set_boxes(self, low: np.ndarray, high: np.ndarray) -> None:
        """Each kind's primitive boxes, held a coordinate to a column (`_columns`): the box tests gather a
        coordinate at a time, and `take` on a column of a row-major (N, 3) array copies the whole column
        first (128² partial queries: ~30 µs a gather, half of a query re-asking a few vertices)."""
        # (the vertices' boxes these came from, kept and updated by `_partial_boxes`)
        self.boxes_of = np.array(low, order="F"), np.array(high, order="F")  # (copies)
        self.boxes = {
            "vertex": self.boxes_of,
            "triangle": _columns(*spans_of_rows(low, high, self.triangles)),
            "edge": _columns(*spans_of_rows(low, high, self.edges)),
        }

    def _partial_boxes(self, low: np.ndarray, high: np.ndarray) -> tuple[dict | None, np.ndarray]:
        """A partial query's primitive boxes (`boxes`) and each patch's span of them per kind (for `_far`), made
        again only where a vertex's box differs from the last query's (a partial query keeps the others' boxes:
        O(moved), not O(cloth)): (the spans, the patches whose spans were made again, sorted); (None, all) (`_far`
        makes the spans) when there is no last query's to start from. The same numbers as made afresh: a span is
        a min / max, exact in any order."""
        last, spans = self.boxes_of, self.kind_spans
        if last is None or spans is None or len(last[0]) != len(low):
            self._set_boxes(low, high)
            return None, _EMPTY
        # (a coordinate at a time: comparing the row-major boxes with the column-held ones whole is ~2x slower)
        differ = low[:, 0] != last[0][:, 0]
        for k in range(3):
            if k:
                differ |= low[:, k] != last[0][:, k]
            differ |= high[:, k] != last[1][:, k]
        changed = np.flatnonzero(differ)
        if 8 * len(changed) > len(low):  # (most boxes changed: made afresh is quicker)
            self._set_boxes(low, high)
            return None, _EMPTY
        last[0][changed] = low[changed]
        last[1][changed] = high[changed]
        if len(changed) == 0:
            return spans, _EMPTY
        homes = {"vertex": self.home.take(changed)}
        for kind, rows, (order, begin) in (
            ("triangle", self.triangles, self._touching_rows()[0]),
            ("edge", self.edges, self._touching_rows()[1]),
        ):
            ids = _incident((order, begin), changed)
            lo, hi = self.boxes[kind]
            lo[ids], hi[ids] = spans_of_rows(low, high, rows.take(ids, axis=0))
            homes[kind] = (self.triangle_home if kind == "triangle" else self.edge_home).take(ids)
        patched = []
        for kind, group in self._kind_groups():
            patches, lo, hi = _group_spans(*self.boxes[kind], group, np.unique(homes[kind]))
            spans[kind][0][patches], spans[kind][1][patches] = lo, hi
            patched.append(patches)
        return spans, np.unique(np.concatenate(patched))

    def _touching_rows(self) -> tuple:
        """(triangles, edges) at each vertex, as `_incidence`s (made once)."""
        if self.touching_rows is None:
            n = len(self.home)
            self.touching_rows = _incidence(self.triangles, n), _incidence(self.edges, n)
        return self.touching_rows

    def _kind_groups(self) -> tuple:
        """(kind, its primitives grouped by patch) for the vertices, triangles and edges."""
        return ("vertex", self.vertex_group), ("triangle", self.triangle_group), ("edge", self.edge_group)

    def _set_paths(self, start: np.ndarray, end: np.ndarray) -> None:
        """Each patch's span of its members' motion in the substep, and per kind the span of its primitives'
        corners at the middle of their paths (empty: inf .. -inf): what `_near` and `_far` bound relative
        motion and far pairs of patches by. A coordinate at a time, each kind's spans over only the members
        holding it (`kind_members`), held a coordinate to a column (`_columns`: `_may_list` and `_half_motion`
        gather them a coordinate at a time): the same numbers as masking the others with inf (a min / max
        skips an inf), in half the time (64²: 8.6 -> 4.3 ms a full query)."""
        count, members = self.count, self.member_vertex
        motion = np.empty((len(members), 3))
        span_low, span_high = np.empty((count, 3), order="F"), np.empty((count, 3), order="F")
        runs = self.member_runs  # (the members' runs: `member_start`)
        for k in range(3):
            column = np.subtract(end[:, k].take(members), start[:, k].take(members))
            motion[:, k] = column
            runs.reduce(np.minimum, column, span_low[:, k])
            runs.reduce(np.maximum, column, span_high[:, k])
        self.patch_motion = runs.reduce(np.maximum, np.sqrt(np.einsum("ij,ij->i", motion, motion)))
        self.motion_span = span_low, span_high
        middle = 0.5 * (start + end)
        self.middle_spans = {}
        for kind, (vertices, has, _, every) in self.kind_members.items():
            low, high = np.full((count, 3), np.inf, order="F"), np.full((count, 3), -np.inf, order="F")
            runs = self.kind_runs[kind]  # (its runs' first slots: kind_members' third)
            for k in range(3):
                column = middle[:, k].take(vertices)
                if every:
                    runs.reduce(np.minimum, column, low[:, k])
                    runs.reduce(np.maximum, column, high[:, k])
                elif len(has):
                    low[has, k] = runs.reduce(np.minimum, column)
                    high[has, k] = runs.reduce(np.maximum, column)
            self.middle_spans[kind] = low, high

    def _half_motion(self, P: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """Bounds on half the largest relative motion in the substep of a member of patch P[k] and one of
        Q[k]: half the widest difference of their motion spans."""
        low, high = self.motion_span
        return (0.5 + 1e-9) * np.sqrt(_widest_squared((low, high), P, (low, high), Q))

    def _beyond_gap(self, P: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """Bounds on how far beyond the gap a pair of primitives of patches P[k] and Q[k] is listed: half their
        largest relative motion in the substep, or with a skin (`find`'s pad) the skin and both patches' largest
        pads (a little more: the caller sums them in another order)."""
        if self.skin_pads is None:
            return self._half_motion(P, Q)
        skin, pads = self.skin_pads
        return (skin + pads.take(P) + pads.take(Q)) * (1.0 + 1e-9) + 1e-12 * self.gap

    def _may_list(self, kind1: str, kind2: str, P: np.ndarray, Q: np.ndarray, gap: float, beyond=None) -> np.ndarray:
        """Whether a (kind1 of patch P[k], kind2 of patch Q[k]) pair of primitives can be listed: their
        distance at the middle of the paths is at least their middle spans' separation, and half their
        largest relative corner motion at most half the widest difference of their motion spans (with a skin:
        the skin and their largest pads)."""
        apart = np.zeros(len(P))
        (lo1, hi1), (lo2, hi2) = self.middle_spans[kind1], self.middle_spans[kind2]
        for k in range(3):  # a coordinate at a time (see _boxes_meet)
            side = np.maximum(lo2[:, k].take(Q) - hi1[:, k].take(P), lo1[:, k].take(P) - hi2[:, k].take(Q))
            np.maximum(side, 0.0, out=side)
            apart += side * side
        reach = gap + (self._beyond_gap(P, Q) if beyond is None else beyond)
        return apart < reach * reach

    def _touching(self, incidence, who: np.ndarray, vertex_triangle: bool, measure):
        """The static rows with a corner among the vertices `who` that are candidates (all of them measured)."""
        order, begin = incidence
        size = begin[who + 1] - begin[who]
        slots = np.repeat(begin[who] - np.cumsum(size) + size, size) + np.arange(int(size.sum()))
        rows = np.unique(order[slots])
        if vertex_triangle:
            a, b = self.vt_p.take(rows), self.vt_t.take(rows)
            kinds = ("vertex", "triangle")
        else:
            a, b = self.ee_e.take(rows), self.ee_f.take(rows)
            kinds = ("edge", "edge")
        # (the boxes a coordinate at a time, the rows gathered only for those that overlap)
        overlap = np.flatnonzero(_boxes_meet(self.boxes[kinds[0]], a, self.boxes[kinds[1]], b))
        a, b = a.take(overlap), b.take(overlap)
        distance, limit = measure(self._rows(kinds[0], a), self._rows(kinds[1], b))
        hit = distance < limit
        return a[hit], b[hit], distance[hit]

    def _merged(self, near_vt, near_ee, far_vt, far_ee, active):
        p = np.concatenate([near_vt[0], far_vt[0]])
        t = np.concatenate([near_vt[1], far_vt[1]])
        d = np.concatenate([near_vt[2], far_vt[2]])
        if active is not None and len(t):
            keep = active[t]
            p, t, d = p[keep], t[keep], d[keep]
        e = np.concatenate([near_ee[0], far_ee[0]])
        f = np.concatenate([near_ee[1], far_ee[1]])
        g = np.concatenate([near_ee[2], far_ee[2]])
        order = np.lexsort((t, p))
        other = np.lexsort((f, e))
        return (p[order], t[order], d[order]), (e[other], f[other], g[other])

    def _near(self, bound: np.ndarray, reach: np.ndarray, measure, vertex_triangle: bool):
        """The static rows (neighbouring patches) that are candidates this substep; the due ones measured again."""
        if vertex_triangle:
            first_id, second_id, seg, clear, least = self.vt_p, self.vt_t, self.vt_seg, self.vt_clear, self.vt_least
        else:
            first_id, second_id, seg, clear, least = self.ee_e, self.ee_f, self.ee_seg, self.ee_clear, self.ee_least
        if len(first_id) == 0:
            return _EMPTY, _EMPTY, np.zeros(0)
        gap = self.gap
        segments = np.flatnonzero(least < reach)
        if len(segments) == 0:
            return _EMPTY, _EMPTY, np.zeros(0)
        begin, size = self.seg_rows[vertex_triangle]
        begin, size = begin.take(segments), size.take(segments)
        inside = int(size.sum())
        whole = NEAR_WHOLE_SHARE > 0 and inside > NEAR_WHOLE_SHARE * len(first_id)
        if whole:
            # (most rows in due segments: the whole list is quicker than listing theirs; the same rows, in order)
            rows = np.flatnonzero(clear < reach.take(seg))
        else:
            run = np.cumsum(size) - size  # each segment's first slot in `every` (each holds a row: its least is finite)
            every = np.repeat(begin - run, size) + np.arange(inside)
            rows = every[clear.take(every) < np.repeat(reach.take(segments), size)]
        self._due += len(rows)
        self.measured += len(rows)
        a, b = first_id.take(rows), second_id.take(rows)
        kinds = ("vertex", "triangle") if vertex_triangle else ("edge", "edge")
        row_seg = seg.take(rows)
        if self.seg_limit is not None:
            # First the primitives' boxes at the middles (their distance there is at least those
            # boxes'): a row that far apart is no candidate (its listing limit is at most its segment's
            # `_reach`) and keeps that separation as its clear, a tighter bound than the path boxes' (which hold
            # the substep's motion too), so it is not due again at once. The rest as below. The same candidates;
            # `_near` −30 % at the 128² impact frames (round 28, impact_r28; 68a0e7e has the switch NEAR_MIDDLES).
            # (every due row's clear written from its middle boxes at once, those not that far apart written again
            # below: the same clears as writing only the far rows', fewer passes over the rows)
            apart_mid = self._middle_apart(kinds[0], a, kinds[1], b)
            row_bound = bound.take(row_seg)
            clear[rows] = apart_mid - row_bound
            keep = np.flatnonzero(~(apart_mid >= self.seg_limit.take(row_seg)))
            rows, a, b, row_bound = rows.take(keep), a.take(keep), b.take(keep), row_bound.take(keep)
        else:
            row_bound = bound.take(row_seg)
        overlap, apart_by = self._overlap_gaps(kinds[0], a, kinds[1], b, gap)
        apart = np.flatnonzero(~overlap)
        clear[rows.take(apart)] = apart_by.take(apart) - row_bound.take(apart)
        touch = np.flatnonzero(overlap)
        a_touch, b_touch = a.take(touch), b.take(touch)
        first = a_touch[:, None] if vertex_triangle else self.edges.take(a_touch, axis=0)
        second = (self.triangles if vertex_triangle else self.edges).take(b_touch, axis=0)
        distance, limit = measure(first, second)
        clear[rows.take(touch)] = distance - row_bound.take(touch)
        if whole:
            held, first_rows = self._seg_firsts(vertex_triangle)
            least[held] = np.minimum.reduceat(clear, first_rows)
        else:
            least[segments] = np.minimum.reduceat(clear.take(every), run)
        hit = np.flatnonzero(distance < limit)
        return a_touch.take(hit), b_touch.take(hit), distance.take(hit)

    def _seg_firsts(self, vertex_triangle: bool) -> tuple[np.ndarray, np.ndarray]:
        """(the segments holding rows of a kind, each one's first row), made once: `_near`'s leasts over all rows."""
        found = self.seg_firsts.get(vertex_triangle)
        if found is None:
            begin, size = self.seg_rows[vertex_triangle]
            held = np.flatnonzero(size)
            found = self.seg_firsts[vertex_triangle] = held, begin.take(held)
        return found

    def _middle_apart(self, kind1: str, a: np.ndarray, kind2: str, b: np.ndarray) -> np.ndarray:
        """The distances between the primitives' boxes at the middle of the paths (`_middle_boxes`), a lower
        bound on the primitives' distance there; a coordinate at a time (see _boxes_meet)."""
        (lo1, hi1), (lo2, hi2) = self._middle_boxes(kind1), self._middle_boxes(kind2)
        apart = np.zeros(len(a))
        for k in range(3):
            low_a = lo1[:, k].take(a)
            high_a = low_a if hi1 is lo1 else hi1[:, k].take(a)  # (a vertex's box is its point: one gather)
            side = np.maximum(lo2[:, k].take(b) - high_a, low_a - hi2[:, k].take(b))
            np.maximum(side, 0.0, out=side)
            side *= side
            apart += side
        return np.sqrt(apart)

    def _far(self, low, high, measure_vt, measure_ee, moved: tuple | None = None, spans=None, patched=_EMPTY):
        """Candidates between patches that are not neighbours and whose boxes overlap (with `moved`, (whether
        each vertex moved, those that did): only pairs with a moved corner, from the patches holding such
        primitives). spans: each patch's per kind, if made (`_partial_boxes`: made again at `patched` only;
        so are the patches' and blocks' boxes here, O(moved))."""
        count = self.count
        if spans is None:
            patched = None
            spans = {}  # each patch's box over its primitives of one kind (empty: inf .. -inf)
            for kind, group in self._kind_groups():
                klow, khigh = np.full((count, 3), np.inf, order="F"), np.full((count, 3), -np.inf, order="F")
                some, lo, hi = _group_spans(*self.boxes[kind], group, runs=self.group_runs[kind])
                klow[some], khigh[some] = lo, hi
                spans[kind] = klow, khigh
            self.kind_spans = spans  # (kept for `_partial_boxes`)
        plow, phigh = self._patch_boxes(spans, patched)
        flagged = None
        touched: dict[str, np.ndarray] | None = None
        if moved is not None:
            # The primitives with a moved corner, per kind, and the patches holding them (from the moved vertices'
            # rows: O(moved)).
            touched = {"vertex": moved[0]}
            index = moved[1]
            flagged = np.zeros(count, dtype=bool)
            flagged[self.home.take(index)] = True
            for kind, incidence, home in (
                ("triangle", self._touching_rows()[0], self.triangle_home),
                ("edge", self._touching_rows()[1], self.edge_home),
            ):
                ids = _incident(incidence, index)
                touched[kind] = np.zeros(len(home), dtype=bool)
                touched[kind][ids] = True
                flagged[home.take(ids)] = True
        if self.block_cells > 1:
            P, Q = self._far_blocks(plow, phigh, flagged, patched)
        else:
            P, Q = self._far_patches(plow, phigh, flagged)
        empty = (_EMPTY, _EMPTY, np.zeros(0))
        if len(P) == 0:
            return empty, empty
        # Expand a pair of patches only for the kinds whose spans overlap: a patch's vertices sit in its
        # cell, its triangles and edges reach an edge beyond it, so most pairs two cells apart drop here.
        full = moved is None
        one = _spans_meet(spans["vertex"], spans["triangle"], P, Q)
        other = _spans_meet(spans["vertex"], spans["triangle"], Q, P)
        both = _spans_meet(spans["edge"], spans["edge"], P, Q)
        # `_beyond_gap` once for every pair of patches (symmetric in P and Q): `_may_list` and `_reach` take it.
        beyond = np.zeros(len(P))
        if full:  # (partial queries use neither)
            some = np.flatnonzero(one | other | both)
            beyond[some] = self._beyond_gap(P.take(some), Q.take(some))
        if self.far_filter and moved is None:  # (partial queries measure at anchors of other substeps)
            one[one] = self._may_list("vertex", "triangle", P[one], Q[one], self.gap, beyond[one])
            other[other] = self._may_list("vertex", "triangle", Q[other], P[other], self.gap, beyond[other])
            both[both] = self._may_list("edge", "edge", P[both], Q[both], self.gap, beyond[both])
        self.far_pairs += int(one.sum() + other.sum() + both.sum())
        vertices, triangles = (self.vertex_group, spans["vertex"]), (self.triangle_group, spans["triangle"])
        P1, Q1, P2, Q2 = P[one], Q[one], Q[other], P[other]
        vt_moved = None if touched is None else (touched["vertex"], touched["triangle"])
        p1, t1, kept1, k1, stay1 = self._expand("vertex", vertices, "triangle", triangles, P1, Q1, "vt", vt_moved)
        p2, t2, kept2, k2, stay2 = self._expand("vertex", vertices, "triangle", triangles, P2, Q2, "vt", vt_moved)
        p, t, vt_kept = np.concatenate([p1, p2]), np.concatenate([t1, t2]), np.concatenate([kept1, kept2])
        vt_stay = None
        if stay1 is not None or stay2 is not None:
            ones = [np.ones(len(p1), dtype=bool), np.ones(len(p2), dtype=bool)]
            vt_stay = np.concatenate([ones[0] if stay1 is None else stay1, ones[1] if stay2 is None else stay2])
        edges = (self.edge_group, spans["edge"])
        P, Q = np.minimum(P[both], Q[both]), np.maximum(P[both], Q[both])  # the masks' order
        ee_moved = None if touched is None else (touched["edge"], touched["edge"])
        e, f, ee_kept, k, ee_stay = self._expand("edge", edges, "edge", edges, P, Q, "ee", ee_moved)
        e, f = np.minimum(e, f), np.maximum(e, f)
        vt_reach = ee_reach = None
        # Each pair's reach, for `_test`: the limit of every pair of its patches (see `_may_list`).
        if full and self._middles_pay("vt"):
            vt_reach = np.concatenate([self._reach(beyond[one]).take(k1), self._reach(beyond[other]).take(k2)])
        if full and self._middles_pay("ee"):
            ee_reach = self._reach(beyond[both]).take(k)
        vt = self._test("vertex", p, "triangle", t, measure_vt, self.keep_vt, vt_kept, vt_reach, "vt", vt_stay)
        ee = self._test("edge", e, "edge", f, measure_ee, self.keep_ee, ee_kept, ee_reach, "ee", ee_stay)
        return vt, ee

    def _patch_boxes(self, spans: dict, patched: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Each patch's box over its primitives of every kind (kept: made again at the patches `patched` only;
        None: all)."""
        kept = self.patch_box
        if patched is None or kept is None:
            plow = np.minimum(np.minimum(spans["vertex"][0], spans["triangle"][0]), spans["edge"][0])
            phigh = np.maximum(np.maximum(spans["vertex"][1], spans["triangle"][1]), spans["edge"][1])
            self.patch_box = plow, phigh
            return plow, phigh
        plow, phigh = kept
        if len(patched):
            (v0, v1), (t0, t1), (e0, e1) = spans["vertex"], spans["triangle"], spans["edge"]
            plow[patched] = np.minimum(np.minimum(v0[patched], t0[patched]), e0[patched])
            phigh[patched] = np.maximum(np.maximum(v1[patched], t1[patched]), e1[patched])
        return plow, phigh

    def _middles_pay(self, kinds: str) -> bool:
        """Whether `_test` drops pairs by their boxes at the middles (`far_middles`) this full query: when
        it dropped at least `far_middles_share` of the pairs it saw the last time, and every
        `far_middles_retry`th query anyway. (The same candidates either way: a matter of cost. 128² impact:
        2/3 of the far (edge, edge) pairs measured dropped, ~11 % of a frame; 64²: 1/6, ~4 % dearer.)"""
        if not self.far_middles:
            return False
        skipped = self.middle_skipped.get(kinds, 0)
        if self.middle_share.get(kinds, 1.0) >= self.far_middles_share or skipped >= self.far_middles_retry:
            self.middle_skipped[kinds] = 0
            return True
        self.middle_skipped[kinds] = skipped + 1
        return False

    def _reach(self, beyond: np.ndarray) -> np.ndarray:
        """An upper bound on the listing limit of every pair of primitives of patches P[k] and Q[k] (gap +
        half their largest relative corner motion, or with a skin the skin and their pads, given as their
        `_beyond_gap`), a little over for rounding."""
        return (1.0 + 1e-9) * (self.gap + beyond) + 1e-9 * self.gap

    def _middle_boxes(self, kind: str) -> tuple[np.ndarray, np.ndarray]:
        """Each primitive's box at the middle of the paths (made once a full query)."""
        found = self.middle_boxes.get(kind)
        if found is None:
            # (held a coordinate to a column: `_test` gathers them a coordinate at a time)
            x = self.middle
            if kind == "vertex":
                x = np.asfortranarray(x)
                found = self.middle_boxes[kind] = x, x
            else:
                found = self.middle_boxes[kind] = _columns(*spans_of_rows(x, x, self._rows(kind, None)))
        return found

    def _far_patches(self, plow: np.ndarray, phigh: np.ndarray, flagged=None) -> tuple[np.ndarray, np.ndarray]:
        """The pairs of patches (P < Q) that are not neighbours and whose boxes plow..phigh overlap: those of
        a kept list of the pairs whose grown boxes overlapped when it was made (each box grown by `far_margin`
        gaps and `far_motion` times its patch's largest motion in the substep: a box moves about that much a
        substep), joined again only once a patch's box leaves its grown box (while none has, every pair
        overlapping now was listed: the same pairs as a join every substep). The join was a third of an
        every-substep query on the 64² drape (docs/self-collision.md, round 12). flagged: only the pairs with
        a flagged patch (a partial query: those picked from the list before its boxes are compared)."""
        kept = self.far_kept
        if kept is None or len(kept[0]) != len(plow) or not ((kept[0] <= plow).all() and (phigh <= kept[1]).all()):
            margin = (self.far_margin * self.gap + self.far_motion * self.patch_motion)[:, None]
            low, high = plow - margin, phigh + margin
            P, Q = self.grid.build_boxes(low, high).query_boxes(low, high, below=True)
            apart = ~_member(self.pair_keys, P * self.count + Q)
            kept = self.far_kept = (low, high, P[apart], Q[apart])
            self.far_joins += 1
        P, Q = kept[2], kept[3]
        if flagged is not None:
            some = np.flatnonzero(flagged.take(P) | flagged.take(Q))
            P, Q = P.take(some), Q.take(some)
        overlap = np.flatnonzero(_spans_meet((plow, phigh), (plow, phigh), P, Q))
        return P[overlap], Q[overlap]

    def _far_blocks(self, plow: np.ndarray, phigh: np.ndarray, flagged=None, patched=None) -> tuple:
        """The pairs of patches (P < Q) that are not neighbours and whose boxes plow..phigh overlap, as
        `_far_patches` gives them, from a kept join of blocks of patches (`block_cells` cells a side): a
        patch's box is 2-3 edges wide at 128², so a join of patches lists ~57 pairs a patch, each filtered
        every substep; a block's box is one edge wider for 4-8 patches. The kept list holds the pairs of
        blocks whose grown boxes overlapped (as `_far_patches`, with a block's largest patch motion); each
        substep the pairs of blocks whose boxes overlap now are expanded to their pairs of patches, kept if
        they are not neighbours and their boxes overlap. The patches of one block are all neighbours (a
        block is at most around + 1 cells a side), so a pair of blocks is two distinct blocks. patched: the
        patches whose boxes changed since the last call (None: all); the blocks' boxes are kept, made again
        and checked against the kept join's only at those (a partial query: O(moved), not O(blocks))."""
        order, begin, _ = self.block_group
        check = None
        if patched is None or self.block_box is None:
            _, blow, bhigh = _group_spans(
                plow, phigh, self.block_group, runs=self.block_runs
            )  # (every block holds a patch)
            blow, bhigh = self.block_box = _columns(blow, bhigh)
        else:
            blow, bhigh = self.block_box
            check = np.unique(self.block_of.take(patched))
            if len(check):
                _, blow[check], bhigh[check] = _group_spans(plow, phigh, self.block_group, check)
        kept = self.far_kept
        if kept is None or len(kept[0]) != len(blow) or not _inside(kept, blow, bhigh, check):
            motion = np.maximum.reduceat(self.patch_motion.take(order), begin)
            margin = (self.far_margin * self.gap + self.far_motion * motion)[:, None]
            low, high = blow - margin, bhigh + margin
            A, B = self.grid.build_boxes(low, high).query_boxes(low, high, below=True)
            kept = self.far_kept = (low, high, A, B)
            self.far_by_block = None
            self.far_joins += 1
        A, B = kept[2], kept[3]
        if flagged is not None:
            # The kept pairs of the flagged patches' blocks, looked up by block (in the kept list's order).
            if self.far_by_block is None:
                self.far_by_block = _incidence(np.stack([A, B], axis=1), len(blow))
            some = _incident(self.far_by_block, np.unique(self.block_of.take(np.flatnonzero(flagged))))
            A, B = A.take(some), B.take(some)
        overlap = np.flatnonzero(_spans_meet((blow, bhigh), (blow, bhigh), A, B))
        P, Q = _block_product(self.block_group, A.take(overlap), B.take(overlap))
        keep = _spans_meet((plow, phigh), (plow, phigh), P, Q)
        if flagged is not None:
            keep &= flagged.take(P) | flagged.take(Q)
        keep = np.flatnonzero(keep)
        P, Q = P.take(keep), Q.take(keep)
        apart = np.zeros(len(P), dtype=bool)
        for column in self.cell_columns:
            apart |= np.abs(column.take(P) - column.take(Q)) > self.around
        apart = np.flatnonzero(apart)
        P, Q = P.take(apart), Q.take(apart)
        P, Q = np.minimum(P, Q), np.maximum(P, Q)
        if self.near_given:  # neighbours also by `near` at rest
            apart = np.flatnonzero(~_member(self.pair_keys, P * self.count + Q))
            P, Q = P.take(apart), Q.take(apart)
        return P, Q

    def _expand(self, kind1: str, first, kind2: str, second, P: np.ndarray, Q: np.ndarray, kinds: str, moved=None):
        """The (a, b) pairs, a a kind1 primitive of patch P[k] and b a kind2 one of Q[k], whose boxes can
        overlap: (a, b, known, k, stay), known: kept at rest already, by the masks; stay (None: all): the pairs
        such a mask keeps (the others dropped with `_test`'s box test: no gather of the whole product here).
        a's box must meet Q's span of kind2 boxes and b's P's span of kind1 (first / second: (group, spans)):
        each side is tested against the other patch before the product, as a far pair of patches overlaps at a
        corner, where most of its (edge, edge) product does not (128² impact: a third of the product left,
        against a fifth overlapping). Pairs of patches near at rest drop the pairs their mask (`kinds`) does
        not keep. moved (a partial query: each kind's primitives with a moved corner, (kind1's, kind2's)):
        only the pairs with a moved primitive, the moved a's with every b, then the others with the moved
        b's (the same pairs as the whole product less those with neither moved, grouped by k in each run)."""
        a, ka, ia = _members(first[0], P)
        b, kb, ib = _members(second[0], Q)
        lo1, hi1 = self.boxes[kind1]
        lo2, hi2 = self.boxes[kind2]
        low, high = second[1]
        keep = np.flatnonzero(_boxes_meet((lo1, hi1), a, (low, high), Q.take(ka)))
        a, ka, ia = a.take(keep), ka.take(keep), ia.take(keep)
        low, high = first[1]
        keep = np.flatnonzero(_boxes_meet((lo2, hi2), b, (low, high), P.take(kb)))
        b, kb, ib = b.take(keep), kb.take(keep), ib.take(keep)
        if moved is None:
            slot_a, slot_b = _slots(ka, kb, len(P))
        else:
            # (128² impact, the failsafe's partial queries: 56-61 % of the whole product has no moved corner.)
            ma, mb = moved[0].take(a), moved[1].take(b)
            some_a, rest_a, some_b = np.flatnonzero(ma), np.flatnonzero(~ma), np.flatnonzero(mb)
            slot_a, slot_b = _slots(ka.take(some_a), kb, len(P))
            other_a, other_b = _slots(ka.take(rest_a), kb.take(some_b), len(P))
            slot_a = np.concatenate([some_a.take(slot_a), rest_a.take(other_a)])
            slot_b = np.concatenate([slot_b, some_b.take(other_b)])
        k = ka.take(slot_a)
        a, b = a.take(slot_a), b.take(slot_b)
        total = len(a)
        if total == 0:
            return _EMPTY, _EMPTY, np.zeros(0, dtype=bool), _EMPTY, None
        if self.masks is None:
            return a, b, np.zeros(total, dtype=bool), k, None
        keys, begin, kept = self.masks[kinds]
        entry = np.searchsorted(keys, P * self.count + Q)
        entry = np.minimum(entry, max(len(keys) - 1, 0))
        known = (keys[entry] == P * self.count + Q) if len(keys) else np.zeros(len(P), dtype=bool)
        known = known.take(k)
        row = np.flatnonzero(known)
        at = k.take(row)
        slot = begin.take(entry.take(at)) + ia.take(slot_a.take(row)) * second[0][2].take(Q.take(at))
        slot += ib.take(slot_b.take(row))
        stay = np.ones(total, dtype=bool)
        stay[row] = kept.take(slot)
        # Many dropped (a fan's dense centre: pairs near at rest): gathered out now, before `_test`'s box test.
        if 4 * (total - int(np.count_nonzero(stay))) > total:
            keep = np.flatnonzero(stay)
            return a.take(keep), b.take(keep), known.take(keep), k.take(keep), None
        return a, b, known, k, stay

    def _rows(self, kind: str, ids: np.ndarray | None) -> np.ndarray:
        """The rows (K, 1 | 3 | 2) of primitives ids of a kind (None: all of them)."""
        if kind == "vertex":
            return ids[:, None] if ids is not None else np.arange(len(self.home))[:, None]
        rows = self.triangles if kind == "triangle" else self.edges
        return rows if ids is None else rows.take(ids, axis=0)

    def _separations(self, kind1: str, a: np.ndarray, kind2: str, b: np.ndarray) -> np.ndarray:
        """(K, 3) signed separations of the primitives' boxes per axis (<= 0 on every axis: they overlap)."""
        lo1, hi1 = self.boxes[kind1]
        lo2, hi2 = self.boxes[kind2]
        out = np.empty((len(a), 3))
        for k in range(3):  # a coordinate at a time (see _boxes_meet)
            lo_a, hi_a, lo_b, hi_b = lo1[:, k].take(a), hi1[:, k].take(a), lo2[:, k].take(b), hi2[:, k].take(b)
            np.maximum(lo_b - hi_a, lo_a - hi_b, out=out[:, k])
        return out

    def _overlap_gaps(self, kind1: str, a: np.ndarray, kind2: str, b: np.ndarray, gap: float):
        """(whether the primitives' boxes overlap, `_gap_lengths` of their separations), a coordinate at a
        time (see _boxes_meet): the same numbers as `_separations` and `_gap_lengths`, no (K, 3) rows."""
        lo1, hi1 = self.boxes[kind1]
        lo2, hi2 = self.boxes[kind2]
        overlap = np.ones(len(a), dtype=bool)
        total = np.zeros(len(a))
        grown = gap * (1.0 - 1e-9)
        for k in range(3):
            side = np.maximum(lo2[:, k].take(b) - hi1[:, k].take(a), lo1[:, k].take(a) - hi2[:, k].take(b))
            overlap &= side <= 0.0
            side += grown
            np.maximum(side, 0.0, out=side)
            side *= side
            total += side
        return overlap, np.sqrt(total)

    def _gaps(self, kind1: str, a: np.ndarray, kind2: str, b: np.ndarray, gap: float) -> np.ndarray:
        return _gap_lengths(self._separations(kind1, a, kind2, b), gap)

    def _test(
        self,
        kind1: str,
        a: np.ndarray,
        kind2: str,
        b: np.ndarray,
        measure,
        keep,
        known: np.ndarray,
        reach=None,
        kinds="",
        stay=None,
    ):
        """Of pairs (a, b): those whose boxes overlap, sharing no vertex, within their limit, and kept
        (known: kept at rest already, by the masks; with masks, the others share no vertex).
        reach (full queries): a bound on each pair's limit; pairs whose boxes at the middle of the paths are
        that far apart are dropped before measuring (their distance there is at least their boxes').
        stay: the pairs not dropped by a mask made at rest (`_expand`; None: all)."""
        lo1, hi1 = self.boxes[kind1]
        lo2, hi2 = self.boxes[kind2]
        overlap = _boxes_meet((lo1, hi1), a, (lo2, hi2), b)
        if stay is not None:
            overlap &= stay
        overlap = np.flatnonzero(overlap)
        a, b, known = a.take(overlap), b.take(overlap), known.take(overlap)
        if reach is not None:
            # 128² impact: 2/3 of the far (edge, edge) pairs whose path boxes overlap, half the (vertex,
            # triangle) ones (the boxes' corners reach a gap on every axis at once).
            reach = reach.take(overlap)
            (lo1, hi1), (lo2, hi2) = self._middle_boxes(kind1), self._middle_boxes(kind2)
            apart = np.zeros(len(a))
            for k in range(3):  # a coordinate at a time (see _boxes_meet)
                side = np.maximum(lo2[:, k].take(b) - hi1[:, k].take(a), lo1[:, k].take(a) - hi2[:, k].take(b))
                np.maximum(side, 0.0, out=side)
                apart += side * side
            near = np.flatnonzero(apart < reach * reach)
            if len(a):
                self.middle_share[kinds] = 1.0 - len(near) / len(a)
            a, b, known = a.take(near), b.take(near), known.take(near)
        first, second = self._rows(kind1, a), self._rows(kind2, b)
        if self.masks is None:
            fine = np.flatnonzero((first[:, :, None] != second[:, None, :]).all(axis=(1, 2)))
            a, b, known, first, second = a[fine], b[fine], known[fine], first[fine], second[fine]
        distance, limit = measure(first, second)
        near = np.flatnonzero(distance < limit)
        a, b, distance, known = a.take(near), b.take(near), distance.take(near), known.take(near)
        check = np.flatnonzero(~known)
        if len(check):
            dropped = check[~keep(a[check], b[check])]
            if len(dropped):
                stay = np.ones(len(a), dtype=bool)
                stay[dropped] = False
                a, b, distance = a[stay], b[stay], distance[stay]
        return a, b, distance


def _inside(kept: tuple, low: np.ndarray, high: np.ndarray, at: np.ndarray | None) -> bool:
    """Whether the boxes low..high (those at `at`; None: all) lie inside the kept grown boxes kept[0]..kept[1]."""
    if at is None:
        return bool((kept[0] <= low).all() and (high <= kept[1]).all())
    return bool((kept[0][at] <= low[at]).all() and (high[at] <= kept[1][at]).all())


def _columns(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(N, 3) boxes low..high held a coordinate to a column (Fortran order: `low[:, k]` contiguous, so `take` on
    it gathers only what it is asked; the same numbers)."""
    return np.asfortranarray(low), np.asfortranarray(high)


def _boxes_meet(first, a: np.ndarray, second, b: np.ndarray) -> np.ndarray:
    """Whether box a[k] of first and box b[k] of second ((low, high) (N, 3) pairs) overlap, a coordinate at a
    time with `take`: gathering (K, 3) rows by fancy indexing and comparing them is ~8x slower."""
    (lo1, hi1), (lo2, hi2) = first, second
    meet = lo1[:, 0].take(a) <= hi2[:, 0].take(b)
    meet &= lo2[:, 0].take(b) <= hi1[:, 0].take(a)
    for k in (1, 2):
        meet &= lo1[:, k].take(a) <= hi2[:, k].take(b)
        meet &= lo2[:, k].take(b) <= hi1[:, k].take(a)
    return meet


def _widest_squared(first, a: np.ndarray, second, b: np.ndarray) -> np.ndarray:
    """|max(high1[a] - low2[b], high2[b] - low1[a])|² per row ((low, high) (N, 3) pairs), a coordinate at a time."""
    (lo1, hi1), (lo2, hi2) = first, second
    out = np.zeros(len(a))
    for k in range(3):
        widest = np.maximum(hi1[:, k].take(a) - lo2[:, k].take(b), hi2[:, k].take(b) - lo1[:, k].take(a))
        out += widest * widest
    return out


def _rows_all(flags: np.ndarray) -> np.ndarray:
    """flags.all(axis=1) for a (K, m) bool array, a column at a time: NumPy's reduction over a short last axis
    is ~13x slower (128² impact: 0.4 s a frame in the far phase's box tests)."""
    out = flags[:, 0].copy()
    for k in range(1, flags.shape[1]):
        out &= flags[:, k]
    return out


def _member(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Which of keys are in sorted_keys."""
    if len(sorted_keys) == 0:
        return np.zeros(len(keys), dtype=bool)
    found = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return sorted_keys[found] == keys


def _patch_spans(x: np.ndarray, patches: PatchPairs, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Each patch's box over the corners of all its primitives at positions x."""
    low, high = np.full((count, 3), np.inf), np.full((count, 3), -np.inf)
    for (_, group), rows in zip(patches._kind_groups(), (None, patches.triangles, patches.edges)):
        some, lo, hi = _group_spans(*((x, x) if rows is None else spans_of_rows(x, x, rows)), group)
        low[some] = np.minimum(low[some], lo)
        high[some] = np.maximum(high[some], hi)
    return low, high


def _group_spans(low: np.ndarray, high: np.ndarray, group, patches: np.ndarray | None = None, runs=None):
    """Each patch's span of its members' boxes low..high (rows of min / max over them), the members grouped
    by patch ((order, start, size) group): (patches, their lows, their highs) for `patches` (sorted, each
    holding a member; default: every patch that holds one)."""
    order, start, size = group
    patches_given = patches
    if patches is None:
        patches = np.flatnonzero(size)
        members, first = order, start.take(patches)
    else:
        members = _members(group, patches)[0]
        first = np.cumsum(size.take(patches)) - size.take(patches)
    if len(members) == 0:
        return patches, np.zeros((0, 3)), np.zeros((0, 3))
    # A coordinate at a time: `take` of rows of a column-held (Fortran) array (`_columns`: the primitives' boxes,
    # the patches' spans) copies the whole array first (128² partial queries: ~1 ms a call at 49 k edges).
    lows, highs = np.empty((len(first), 3)), np.empty((len(first), 3))
    if runs is not None and patches_given is None:  # (every patch's: the runs made once, `_Runs`)
        for k in range(3):
            lows[:, k] = runs.reduce(np.minimum, low[:, k].take(members))
            highs[:, k] = runs.reduce(np.maximum, high[:, k].take(members))
        return patches, lows, highs
    for k in range(3):
        lows[:, k] = np.minimum.reduceat(low[:, k].take(members), first)
        highs[:, k] = np.maximum.reduceat(high[:, k].take(members), first)
    return patches, lows, highs


def _matrices(q: np.ndarray) -> np.ndarray:
    """(K, 3, 3) rotation matrices of unit quaternions q (K, 4: w, x, y, z)."""
    w, x, y, z = q.T
    return np.stack(
        [
            1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
            2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
            2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
        ],
        axis=1,
    ).reshape(-1, 3, 3)  # fmt: skip


def _rotation_towards(q: np.ndarray, A: np.ndarray, iterations: int) -> np.ndarray:
    """Unit quaternions turned from q towards the rotation R maximising trace(R^T A) for each (3, 3) A
    (Mueller et al. 2016, "A robust method to extract the rotational part of deformations"; warm-started
    from the last substep's, a couple of iterations follow it; any rotation keeps the bounds sound)."""
    for _ in range(iterations):
        R = _matrices(q)
        omega = np.cross(R[:, :, 0], A[:, :, 0]) + np.cross(R[:, :, 1], A[:, :, 1]) + np.cross(R[:, :, 2], A[:, :, 2])
        along = np.abs(np.einsum("kij,kij->k", R, A)) + 1e-300
        omega /= along[:, None]
        angle = np.sqrt(np.einsum("ij,ij->i", omega, omega))
        if not np.isfinite(angle).all():  # (positions not finite: keep those patches' rotations)
            omega[~np.isfinite(angle)] = 0.0
            angle = np.sqrt(np.einsum("ij,ij->i", omega, omega))
        half = 0.5 * angle
        axis = omega * (np.sin(half) / np.where(angle > 0.0, angle, 1.0))[:, None]
        c = np.cos(half)
        turned = np.empty_like(q)
        turned[:, 0] = c * q[:, 0] - np.einsum("ij,ij->i", axis, q[:, 1:])
        turned[:, 1:] = c[:, None] * q[:, 1:] + q[:, :1] * axis + np.cross(axis, q[:, 1:])
        q = turned / np.sqrt(np.einsum("ij,ij->i", turned, turned))[:, None]
    return q


def _turns(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Upper bounds on |R_P - R_Q| (spectral) for the rotations of unit quaternions first and second (K, 4):
    2 sin(a / 2) for the angle a between them, at most 2 min(|p - q|, |p + q|) = 4 sin(a / 4) (no
    cancellation near 0, unlike 3 - trace(R_P^T R_Q); 1 / cos(a / 4) looser: 8 % at a right angle)."""
    minus, plus = first - second, first + second
    return 2.0 * np.sqrt(np.minimum(np.einsum("ij,ij->i", minus, minus), np.einsum("ij,ij->i", plus, plus)))


def _member_max(values: np.ndarray, mask: np.ndarray, start: np.ndarray, runs: _Runs | None = None) -> np.ndarray:
    """max of values over each patch's members where mask (0 for none); runs: start's, made once (`_Runs`)."""
    if runs is not None:
        return runs.reduce(np.maximum, np.where(mask != 0, values, 0.0))
    return np.maximum.reduceat(np.where(mask != 0, values, 0.0), start)


def _gap_lengths(separation: np.ndarray, gap: float) -> np.ndarray:
    """Lower bounds on the distances of primitives from their grown boxes' separations: the boxes given
    are the paths grown by gap / 2 on every side (a little less added back, for rounding)."""
    apart = separation + gap * (1.0 - 1e-9)
    np.maximum(apart, 0.0, out=apart)
    apart *= apart
    return np.sqrt(apart.sum(axis=1))


def _spans_meet(first, second, P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """Whether box first[P[k]] meets box second[Q[k]] ((low, high) (count, 3) pairs)."""
    return _boxes_meet(first, P, second, Q)


def _segment_min(values: np.ndarray, seg: np.ndarray, count: int) -> np.ndarray:
    """min of values per segment id (inf for none); seg sorted."""
    out = np.full(count, np.inf)
    if len(seg):
        first = np.flatnonzero(np.diff(seg, prepend=-1))
        out[seg[first]] = np.minimum.reduceat(values, first)
    return out


def _incident(incidence: tuple[np.ndarray, np.ndarray], vertices: np.ndarray) -> np.ndarray:
    """The rows (sorted, once each) with a corner among `vertices`, from an `_incidence`."""
    order, begin = incidence
    size = begin.take(vertices + 1) - begin.take(vertices)
    slots = np.repeat(begin.take(vertices) - np.cumsum(size) + size, size) + np.arange(int(size.sum()))
    return np.unique(order.take(slots))


def _incidence(rows: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(row ids sorted by vertex, first slot of each vertex (n + 1)) of the vertices in `rows` (K, m)."""
    vertex = rows.reshape(-1)
    row = np.repeat(np.arange(len(rows)), rows.shape[1])
    # (the same order from 16-bit keys when they fit: NumPy's stable sort of those is a radix sort, ~4x quicker;
    # a partial query makes the kept far join's by block, ~90 k pairs at 128²)
    order = np.argsort(vertex.astype(np.uint16) if n <= 1 << 16 else vertex, kind="stable")
    begin = np.concatenate([[0], np.cumsum(np.bincount(vertex, minlength=n))])
    return row[order], begin
