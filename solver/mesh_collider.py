"""Triangle-mesh colliders: rigid (a fixed shape with a pose at the frame's start and end) or
deforming (its vertices at the frame's start and end).

Each substep, a vertex's path from its start to its end (relative to the collider) is tested
against the triangles near it (`TriangleGrid`, built once in the shape's own frame for a rigid
collider, once per frame for a deforming one):

- **Which side** comes from where the vertex was at the start of the substep, triangle by
  triangle, so zero-thickness sheets, thin walls and open meshes are never crossed. (Like
  Blender's cloth, a vertex that starts inside a closed mesh is kept on that side.)
- **Crossing** (continuous): a path that passes through a triangle is stopped at its first
  crossing and put back at the gap on the side it came from. A rigid collider's triangles are
  still in its own frame, so this is exact; a deforming triangle is tested in its own motion,
  exact for translation and first order over a substep otherwise.
- **Proximity**: a vertex ending closer than the gap (cloth thickness + offset) to a triangle's
  face, edge or corner is pushed out along the face normal or away from the edge or corner.

One contact per vertex and pass (the first crossing, else the deepest), two passes so concave
creases settle, then Coulomb friction on the motion relative to the surface.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .caches import kept, triangles_key
from .clearance import Clearance
from .contact import combined_friction, coulomb_friction, settled_pushes, window_settled_pushes
from .inside_recovery import recover_inside
from .moving_triangles import moving_crossings
from .spatial_hash import _argsort_below
from .triangle_grid import GROUPED_MOST, TriangleGrid, morton
from .triangles import FACE, closest_points, cross, dot, segment_crossings

_EPS = 1e-12
_ZERO = np.zeros(3)
_PASSES = 2
_EMPTY = np.zeros(0, dtype=np.int64)
_NEXT = np.array([2, 0, 1])  # each edge's start corner's barycentric (edges opposite corners a, b, c)
_NO_PUSH = np.zeros((3, 0))
_FRAME = np.arange(6)  # an edge's six values in `TriangleMesh.edge_frames`
# A triangle's size for the broad phase and the skin: its box's longest side, at most _SLIVER times the
# side of a square of twice its area (no triangle of a torus or ball is that long for its area).
_SLIVER = 2.0
_CELL = 2.0  # the rigid broad phase's finest cell, in median triangle boxes
_SKIN = 0.2  # of the finest cell: Verlet-list skin (0.1 before queries were batched; 0.2-0.3 measure best now)
# A deforming collider's: its boxes are grown by each triangle's motion already, and cloth riding on it
# strays from any box; 0.1 measured best (bench/deforming_collider_cost.py, against 0.05, 0.2, 0.4, 0.8).
_DEFORMING_SKIN = 0.1
_REFRESH = 0.5  # of the skin: a query also refreshes the vertices this close to their box's side
# The least gap kept (m): a vertex left exactly on a face (thickness and offset 0) has no side to
# keep, and the next substep's path from there is not a crossing (it fell through every mesh).
MIN_GAP = 1e-6
# A deforming triangle's crossings are tested against its own motion, exactly (docs/design.md, issue 11,
# round 9 (fastdeform11); the shifted-path test alone is first order for rotation). A closed mesh's free vertices
# found inside deeper than the gap at a frame's end go out to its nearest surface (solver/inside_recovery.py; round
# 10 (robust12)); still and rigid ones too: one that appears or jumps round the cloth (a pose set without motion),
# or a cloth started inside one, left 42-82 vertices of a curtain inside for good (round 11 (needle13)). (Their
# switches EXACT_MOVING_CROSSINGS, INSIDE_RECOVERY, RIGID_INSIDE_RECOVERY folded in round 24 (flags24).)
_INSIDE_CHECKED = "inside checked"  # (a key of the run's memory per collider: the mesh and pose last checked)
_FAST_MOTION = 1.0  # of the gap: a triangle's corner motion over a substep that needs the exact test
_CLEARANCE_CELL = 0.5  # the clearance map's cell, in median triangle boxes (1 before; docs/design.md, issue 11)
# The vertex list's query compares its boxes with the triangles' (`BoxGroups`) instead of asking the grid
# for meshes of up to GROUPED_MOST triangles, or up to _BRUTE box pairs: the grid costs ~0.15 ms a query
# plus ~1-2 us a box (the round-legged table's 252 triangles, 300 boxes: 0.24 against 0.40 ms; 4,000 boxes:
# 0.7 against 9.2; docs/design.md, round 10 (table12)).
_BRUTE = 1 << 15
# A deforming collider's list asks its (per-frame) triangle boxes by `BoxSweep` (the pairs the grid finds) while
# that tests at most _SWEEP_MOST box pairs, else the grid (a finely tessellated body: its slab along the sweep's
# axis holds too many). The cape's 1,104-triangle body: its queries' broad phase 1.8x quicker (round 27
# (bodylist_r27)). Where the grid would have answered, its pairs are put in the grid's order (`grid_order`):
# `_choose` breaks ties between a vertex's equal contacts by the list's order, and in the sweep's (by triangle)
# the cape tri 48² replay left main's run by a rounding at frame 26 (docs/design.md, issue 11, round 28
# (bodywin_r28)).
SWEEP_QUERY = True
_SWEEP_MOST = 1 << 16
# The query's own budget, counted on the axis the sweep takes (`BoxSweep.overlapping`'s `on_axis_taken`): the cape tri
# 48²'s list sent ~5 queries a frame past _SWEEP_MOST on the body's long axis to the grid (~4.7 ms each); within
# 2^18 pairs on the axis taken the sweep and `grid_order` answered all but 3 of 244 of them, 837 against 1,139 ms
# over 47 frames, each vertex's pairs in the grid's order (docs/design.md, issue 11, round 29 (capespeed_r29)).
_SWEEP_QUERY_MOST = 1 << 18
# A deforming collider's list: when the vertices that left their boxes (or entered the collider's) are a few and
# none has a path whose box grown by the gap meets a triangle box (the frame's boxes sorted, `BoxSweep.meets`),
# there is no query: they take no pairs this call (none can touch them, nothing moves them) and are asked again at
# the next (docs/design.md, issue 11, round 28 (bodywin_r28)). Up to _WINDOW_MOST stale vertices are tested (more:
# some are near, and the query comes anyway); -1 turns the window off (b762d52 has it as `BODY_WINDOW`).
_WINDOW_MOST = 16


def as_columns(rows: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(rows, dtype=np.float64).T)


class TriangleMesh:
    """A triangle soup with its broad phase (built on first use, once).

    Degenerate triangles are dropped and the rest kept in a spatial (Morton) order, which
    `triangles` gives; drop_degenerate=False keeps every triangle in the order given (a deforming
    collider's start shape, matching its end shape's `triangles`).
    """

    def __init__(self, vertices, triangles, drop_degenerate: bool = True):
        v = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
        tris = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
        if len(tris) and (tris.min() < 0 or tris.max() >= len(v)):
            raise ValueError("triangle indices out of range")
        self.vertices = v
        a, b, c = (as_columns(v.take(tris[:, k], axis=0)) for k in range(3))
        with np.errstate(invalid="ignore", over="ignore"):  # a NaN or inf corner: not finite, dropped below
            n = cross(b - a, c - a)
            area2 = np.sqrt(dot(n, n))
        # The mesh's size from its finite vertices: one NaN or inf vertex (a broken import) made the
        # threshold NaN or inf and dropped every triangle, so the cloth fell through the whole collider.
        finite = v[np.isfinite(v).all(axis=1)]
        scale = max(float(np.ptp(finite, axis=0).max()) if len(finite) else 0.0, 1e-9)
        keep = (np.isfinite(area2) & (area2 > 1e-12 * scale * scale) | (not drop_degenerate)).nonzero()[0]
        if drop_degenerate:  # nearby triangles next to each other in memory: gathers for a cloth patch stay local
            keep = keep[np.argsort(morton((a[:, keep] + b[:, keep] + c[:, keep]) / 3.0), kind="stable")]
        self.triangles = tris[keep]
        self.given = keep  # each triangle's place in the list given (a deforming mesh's topology is kept by it)
        self.a, self.b, self.c = a[:, keep].copy(), b[:, keep].copy(), c[:, keep].copy()
        finite_triangles = tris[np.isfinite(area2)]
        area2 = np.maximum(area2[keep], 1e-300)
        n = n[:, keep]
        self.normals = n / area2
        ab, ac = self.b - self.a, self.c - self.a
        # Barycentrics of a point's projection: v = (p - a).gv, w = (p - a).gw (0 for a degenerate
        # triangle kept in a deforming collider's start shape: its square area underflows).
        squared_area = np.maximum(area2 * area2, 1e-300)
        self.gv = cross(ac, n) / squared_area
        self.gw = cross(n, ab) / squared_area
        # Each corner's height above the opposite edge.
        self.heights = area2 / np.sqrt(
            np.maximum([dot(self.c - self.b, self.c - self.b), dot(ac, ac), dot(ab, ab)], 1e-300)
        )
        # What the rigid narrow phase and the broad phase's bound need per triangle, with the offsets that
        # spare them `a`: height n.p - n.a and barycentrics gv.p - gv.a, gw.p - gw.a. One row per triangle
        # (2 cache lines), so gathering a pair's data touches little memory (`_gather`).
        offsets = [dot(m, self.a)[None] for m in (self.normals, self.gv, self.gw)]
        fast = [self.normals, offsets[0], self.gv, offsets[1], self.gw, offsets[2], self.heights]
        self.fast_rows = np.ascontiguousarray(np.concatenate(fast).T)
        # Per edge (opposite corner a, b, c: running b->c, c->a, a->b) its length and where the opposite
        # corner's foot lies along it (as a fraction), so an outside point's closest edge point comes
        # from its barycentrics alone (see `_edge_distances`).
        lengths = np.sqrt(np.maximum([dot(self.c - self.b, self.c - self.b), dot(ac, ac), dot(ab, ab)], 1e-300))
        feet = [
            dot(self.a - self.b, self.c - self.b) / (lengths[0] * lengths[0]),
            dot(self.b - self.c, self.a - self.c) / (lengths[1] * lengths[1]),
            dot(ac, ab) / (lengths[2] * lengths[2]),
        ]
        self.edges_rows = np.ascontiguousarray(np.concatenate([np.array(feet), lengths]).T)
        self._edge_frames: np.ndarray | None = None
        # A closed, consistently wound surface has an outside: +1 if the normals point out, -1 if in,
        # 0 for open meshes and sheets (which keep each vertex on the side it came from). Closed counting the
        # zero-area triangles dropped above (they cover nothing): a subdivided cylinder's n-gon caps split
        # into slivers made a fast-swung forearm an open mesh, and cloth it carried in stayed inside.
        self.outward = _outward(finite_triangles, len(v), self.a, self.b, self.c)
        self._grid: TriangleGrid | None = None
        self._grid_margin = 0.0
        self.cell = 1.0  # the median triangle's size (set with the grid)
        self.candidates: list[_Candidates] = []  # per cloth size and gap (see MeshCollider._candidates)

    def __len__(self) -> int:
        return len(self.triangles)

    @property
    def edge_frames(self) -> np.ndarray:
        """Per triangle (T, 18), for each edge k (opposite corner k): its outward unit normal in the
        triangle's plane (-height_k x the gradient of barycentric k) and its direction (normal x that),
        so an edge contact's push direction is a few products (`_edge_offsets`, built on first use)."""
        table = self._edge_frames
        if table is None:
            frames = []
            for k, gradient in enumerate((-(self.gv + self.gw), self.gv, self.gw)):
                outward = gradient * -self.heights[k]
                frames += [outward, cross(self.normals, outward)]
            table = self._edge_frames = np.ascontiguousarray(np.concatenate(frames).T)
        return table

    def grid(self, margin: float = 0.0) -> TriangleGrid:
        """The broad phase, boxes grown by `margin` (rebuilt only if a larger margin is asked for)."""
        if self._grid is None or margin > self._grid_margin:
            size = np.maximum(np.maximum(self.a, self.b), self.c) - np.minimum(np.minimum(self.a, self.b), self.c)
            # A sliver counts by its area, not its length: a table's 73 cm leg sides (1.4 cm wide) made
            # the median box, the skin 15 cm and ~100k pairs (docs/design.md, round 9 (tablevtx11)).
            n = cross(self.b - self.a, self.c - self.a)
            size = np.minimum(size.max(axis=0), _SLIVER * np.sqrt(np.sqrt(dot(n, n))))
            self.cell = float(np.median(size)) + 2 * margin if len(self) else 1.0
            self._grid = TriangleGrid().build(self.vertices, self.triangles, margin, cell=_CELL * self.cell)
            self._grid_margin = margin
        return self._grid


class _Candidates:
    """A Verlet list: each vertex's candidate triangles, found for its path's box grown by a skin
    and reused while its path stays inside that box (so a resting cloth queries nothing).

    `mesh` (the shape at the frame's end) lets pairs that cannot touch anywhere in the box be
    dropped; `motion` (per triangle, deforming meshes) is how far each triangle strays from that
    shape during the frame, taken off the distance bounds."""

    def __init__(
        self,
        vertex_count: int,
        gap: float,
        skin: float,
        mesh: TriangleMesh | None = None,
        motion: np.ndarray | None = None,
    ):
        self.vertex_count, self.gap, self.skin = vertex_count, gap, skin
        self.mesh = mesh
        self.motion = motion
        self.low = np.full((3, vertex_count), np.inf)  # each vertex's box (empty: never queried)
        self.high = np.full((3, vertex_count), -np.inf)
        self.v = np.zeros(0, dtype=np.int64)  # pairs (vertex, triangle), sorted by vertex
        self.t = np.zeros(0, dtype=np.int64)
        # Each pair's distance lower bound from its vertex's box centre, to the end shape (-inf without a
        # mesh; a deforming triangle strays from that shape by up to its motion). Distances
        # are 1-Lipschitz, so a pair matters only while its vertex is within bound - gap of it.
        self.bound = np.zeros(0)
        self.centre = np.zeros((3, vertex_count))
        # Vertex i's pairs are first[i]:first[i + 1]; nearest[i] is the least bound among them (inf: none),
        # so a substep looks only at the pairs of vertices that stray within reach of their nearest.
        self.first = np.zeros(vertex_count + 1, dtype=np.int64)
        self.nearest = np.full(vertex_count, np.inf)
        self.clearance: Clearance | None = None  # still triangles: answers vertices clear of them (built on use)
        self.queries = 0

    def pairs(self, grid: TriangleGrid, idx: np.ndarray, p0: np.ndarray, p1: np.ndarray, lag: float = 1.0):
        """Candidate pairs (column of p0/p1, triangle), sorted by column, for vertices idx moving p0 -> p1.

        lag: the fraction of the frame left from the substep's start (deforming meshes: a triangle is
        then within lag x its motion of its end shape)."""
        low, high = np.minimum(p0, p1), np.maximum(p0, p1)
        box_low, box_high = self.low.take(idx, axis=1), self.high.take(idx, axis=1)
        inside = (low >= box_low) & (high <= box_high)
        stale = ~(inside[0] & inside[1] & inside[2])
        away = None  # (deforming, the window) columns out of their box that meet no triangle box at all
        if stale.any():
            out = stale.nonzero()[0]
            if self.mesh is not None and self.motion is None:
                out, freed = self._free(grid, idx, out, low, high)
            elif self.motion is not None and len(out) <= _WINDOW_MOST:
                path_low, path_high = low.take(out, axis=1) - self.gap, high.take(out, axis=1) + self.gap
                if not grid.sweep().meets(path_low, path_high, _SWEEP_MOST).any():
                    away, out = out, out[:0]
            if len(out):
                # One query also refreshes the vertices that have used half their skin, so queries
                # (with a fixed cost of ~0.2 ms a call) come every few substeps, not every one.
                half = _REFRESH * self.skin
                inside = (low >= box_low + half) & (high <= box_high - half)
                stale |= ~(inside[0] & inside[1] & inside[2])
                if self.mesh is not None and self.motion is None:
                    stale[freed] = False  # (their boxes above are the old ones)
                if away is not None:
                    stale[away] = False  # (they keep their old box and pairs, unused this call)
                self._query(grid, idx, stale.nonzero()[0], low, high)
        # How far each vertex's path strays from its box centre: pairs farther than that + gap wait.
        centre = self.centre.take(idx, axis=1)
        d0, d1 = p0 - centre, p1 - centre
        reach = np.sqrt(np.maximum(dot(d0, d0), dot(d1, d1)))
        reach += self.gap
        if away is not None:
            reach[away] = -np.inf
        hot = (self.nearest.take(idx) < reach).nonzero()[0]
        if len(hot) == 0:
            return _EMPTY, _EMPTY
        who = idx.take(hot)
        first = self.first.take(who)
        count = self.first.take(who + 1) - first
        column = np.repeat(hot, count)
        at = np.arange(len(column)) + np.repeat(first - (np.cumsum(count) - count), count)
        bound = self.bound.take(at)
        if self.motion is not None:
            bound -= lag * self.motion.take(self.t.take(at))
        use = (bound < reach.take(column)).nonzero()[0]
        return column.take(use), self.t.take(at.take(use))

    def _clearance(self, grid: TriangleGrid) -> Clearance:
        if self.clearance is None:  # cells of half a median triangle box
            self.clearance = Clearance(grid.low, grid.high, self.gap, _CLEARANCE_CELL * self.skin / _SKIN)
        return self.clearance

    def _free(self, grid: TriangleGrid, idx: np.ndarray, out: np.ndarray, low: np.ndarray, high: np.ndarray):
        """Give the vertices idx[out] that have no pairs and whose skin box lies in a free block that
        block as their box, with no query (most vertices leaving their box are cloth swinging in and
        out of the collider's bounds, far from its triangles). Returns (the rest of out, those freed)."""
        lonely = (self.nearest.take(idx.take(out)) == np.inf).nonzero()[0]
        if len(lonely) == 0:
            return out, _EMPTY
        cols = out.take(lonely)
        path_low, path_high = low.take(cols, axis=1), high.take(cols, axis=1)
        clear, block_low, block_high = self._clearance(grid).blocks(path_low - self.skin, path_high + self.skin)
        if len(clear) == 0:
            return out, _EMPTY
        freed = cols.take(clear)
        who = idx.take(freed)
        self.low[:, who], self.high[:, who] = block_low, block_high
        self.centre[:, who] = (block_low + block_high) * 0.5
        return np.delete(out, lonely.take(clear)), freed

    def _query(self, grid: TriangleGrid, idx: np.ndarray, stale: np.ndarray, low: np.ndarray, high: np.ndarray):
        """Find the pairs of the vertices idx[stale] again, for their paths' boxes (low, high) grown by the skin."""
        self.queries += 1
        who = idx.take(stale)
        path_low, path_high = low.take(stale, axis=1), high.take(stale, axis=1)
        box_low, box_high = path_low - self.skin, path_high + self.skin
        asked = np.arange(len(who))
        if self.mesh is not None and self.motion is None:  # vertices in a free block keep it as their box
            clear, block_low, block_high = self._clearance(grid).blocks(box_low, box_high)  # only if roomier
            box_low[:, clear], box_high[:, clear] = block_low, block_high
            asked = np.delete(asked, clear)
        self.low[:, who], self.high[:, who] = box_low, box_high
        self.centre[:, who] = (box_low + box_high) * 0.5
        ask_low, ask_high = box_low.take(asked, axis=1) - self.gap, box_high.take(asked, axis=1) + self.gap
        found = None
        grouped = grid.triangle_count <= GROUPED_MOST or len(asked) * grid.triangle_count <= _BRUTE
        if SWEEP_QUERY and self.motion is not None:  # a deforming mesh's grid is new each frame: a sort is cheaper
            found = grid.sweep().overlapping(ask_low, ask_high, _SWEEP_QUERY_MOST, on_axis_taken=True)
        if found is not None:
            q, t = found
            if not grouped and len(q) > 1:  # the grid's order (ties in `_choose` go by it)
                order = grid.grid_order(ask_low, ask_high, q, t)
                q, t = q.take(order), t.take(order)
        elif grouped:
            q, t = grid.groups().overlapping(ask_low, ask_high)
        else:
            q, t = grid.query_boxes(ask_low.T, ask_high.T)
        q = asked.take(q)
        if self.mesh is not None:
            q, t, bound, least = self._prune(q, t, box_low, box_high)
        else:
            bound = least = np.full(len(q), -np.inf)
        requeried = np.zeros(self.vertex_count, dtype=bool)
        requeried[who] = True
        keep = (~requeried.take(self.v)).nonzero()[0]
        # Merge the new pairs (sorted among themselves) into the kept ones, still sorted by vertex.
        v = who.take(q)
        if len(v) > 1 and bool((v[1:] < v[:-1]).any()):  # (one grid level: the query's order is by vertex already)
            order = _argsort_below(v, max(self.vertex_count.bit_length(), 1))
            v, t, bound, least = v.take(order), t.take(order), bound.take(order), least.take(order)
        kept_v = self.v.take(keep)
        # Where each new pair and each kept one lands in the merged list (np.insert works them out
        # again for every array, and through a boolean mask).
        new_at = np.searchsorted(kept_v, v)
        new_at += np.arange(len(v))
        kept_at = np.ones(len(kept_v) + len(v), dtype=bool)
        kept_at[new_at] = False
        self.v = _merged(kept_v, kept_at, v, new_at)
        self.t = _merged(self.t.take(keep), kept_at, t, new_at)
        self.bound = _merged(self.bound.take(keep), kept_at, bound, new_at)
        counts = np.bincount(self.v, minlength=self.vertex_count)
        np.cumsum(counts, out=self.first[1:])
        # Only the re-queried vertices' least bounds change (from their new pairs, sorted by vertex).
        self.nearest[who] = np.inf
        if len(v):
            runs = (np.diff(v, prepend=-1)).nonzero()[0]
            self.nearest[v.take(runs)] = np.minimum.reduceat(least, runs)

    def _prune(self, q, t, box_low, box_high):
        """Keep the pairs whose triangle comes within the gap of some point of the box at some moment of
        the frame: (q, t, their bounds to the end shape, their bounds at any moment)."""
        assert self.mesh is not None
        centre = (box_low + box_high).take(q, axis=1) * 0.5
        half = (box_high - box_low).take(q, axis=1) * 0.5
        reach = np.sqrt(dot(half, half)) + self.gap
        _, bound = _lower_bound(self.mesh, centre, t)
        # A deforming triangle anywhere in its frame-long motion; the bound kept is the end shape's.
        least = bound if self.motion is None else bound - self.motion.take(t)
        keep = (least < reach).nonzero()[0]
        return q.take(keep), t.take(keep), bound.take(keep), least.take(keep)


def _merged(kept: np.ndarray, kept_at: np.ndarray, new: np.ndarray, new_at: np.ndarray) -> np.ndarray:
    """One array of kept and new values, each at its place in the merged order (kept_at: a mask)."""
    out = np.empty(len(kept) + len(new), dtype=kept.dtype)
    out[kept_at] = kept
    out[new_at] = new
    return out


def _within(x, x_start, lower, upper) -> np.ndarray:
    """Which rows' paths x_start -> x ((k, 3) rows) have a box meeting the box lower..upper."""
    meets = np.ones(len(x), dtype=bool)
    for k in range(3):  # column by column: (k, 3) rows against a 3-vector broadcast slowly
        end, start = x[:, k], x_start[:, k]
        meets &= np.minimum(end, start) <= upper[k]
        meets &= np.maximum(end, start) >= lower[k]
    return meets


def _lower_bound(mesh: TriangleMesh, points: np.ndarray, tri: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(|signed distance to the plane|, a lower bound of the distance to the triangle) for (3, P) points.

    The in-plane part is the distance to the half-plane beyond the edge where a barycentric is
    negative: (negative barycentric) x (that corner's height). Both are 1-Lipschitz in the point.
    """
    data = _gather(mesh.fast_rows, tri)
    h = np.abs(_heights(data, points))
    beyond = np.maximum(-_inside_by(_barycentrics(data, points), data), 0.0)
    return h, np.sqrt(beyond * beyond + h * h)


def _gather(rows: np.ndarray, tri: np.ndarray) -> np.ndarray:
    """Columns (k, P) of per-triangle rows (T, k): gathering whole rows touches a few cache lines per
    triangle, where gathering from k separate arrays touches k."""
    out = np.empty((rows.shape[1], len(tri)))
    out[...] = rows.take(tri, axis=0).T
    return out


def _outward(triangles: np.ndarray, vertex_count: int, a, b, c) -> int:
    """+1 / -1: the triangles close a volume and their normals point out / in; 0: not closed."""
    if not _closed(triangles, vertex_count):
        return 0
    volume = float(dot(a, cross(b, c)).sum())  # six times the signed volume
    return 0 if volume == 0.0 else (1 if volume > 0.0 else -1)


_CLOSED: dict[tuple[int, int, bytes], bool] = {}  # the last few meshes' answers (a deforming one asks every frame)


def _closed(triangles: np.ndarray, vertex_count: int) -> bool:
    """Closed and consistently wound: every directed edge appears once and its reverse once."""
    if len(triangles) < 4:
        return False
    return kept(_CLOSED, triangles_key(triangles, vertex_count), 8, lambda: _each_edge_twice(triangles, vertex_count))


def _each_edge_twice(triangles: np.ndarray, vertex_count: int) -> bool:
    heads = triangles.ravel()
    tails = triangles[:, [1, 2, 0]].ravel()
    edges = np.sort(heads * vertex_count + tails)
    reverse = tails * vertex_count + heads
    at = np.minimum(np.searchsorted(edges, reverse), len(edges) - 1)
    unique = len(edges) < 2 or not (np.diff(edges) == 0).any()
    return bool(unique and (edges[at] == reverse).all())


def _rotation_between(r0: np.ndarray, r1: np.ndarray, t: float) -> np.ndarray:
    """r0 rotated towards r1 by the fraction t (about the axis of r0ᵀ r1)."""
    relative = r0.T @ r1
    cos = max(-1.0, min(1.0, (float(np.trace(relative)) - 1.0) / 2.0))
    angle = math.acos(cos)
    if angle < 1e-9:
        return r0 + (r1 - r0) * t
    axis = np.array([relative[2, 1] - relative[1, 2], relative[0, 2] - relative[2, 0], relative[1, 0] - relative[0, 1]])
    norm = float(np.linalg.norm(axis))
    if norm < 1e-9:  # a half turn: fall back to interpolating the matrices
        return r0 + (r1 - r0) * t
    k = axis / norm
    skew = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    a = angle * t
    step = np.eye(3) + math.sin(a) * skew + (1 - math.cos(a)) * (skew @ skew)
    return r0 @ step


def _same_pose(a, b) -> bool:
    """Whether two poses ((rotation, origin) or None: the mesh's own frame) are the same."""
    if a is None or b is None:
        return a is None and b is None
    return bool(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]))


def _rigid(matrix) -> tuple[np.ndarray, np.ndarray]:
    m = np.asarray(matrix, dtype=np.float64)
    if m.shape != (4, 4):
        raise ValueError("a pose is a 4x4 matrix (own frame to world)")
    rotation = m[:3, :3]
    if not np.allclose(rotation.T @ rotation, np.eye(3), atol=1e-5):
        raise ValueError("a mesh collider's pose must be a rotation and translation (no scale)")
    return rotation.copy(), m[:3, 3].copy()


def _to_frame(rows: np.ndarray, rotation: np.ndarray, origin: np.ndarray) -> np.ndarray:
    """(3, k) columns of rotationᵀ (rows - origin) for (k, 3) rows, without BLAS."""
    d = [rows[:, j] - origin[j] for j in range(3)]
    out = np.empty((3, len(rows)))
    for i in range(3):
        np.multiply(d[0], rotation[0, i], out=out[i])
        out[i] += d[1] * rotation[1, i]
        out[i] += d[2] * rotation[2, i]
    return out


def _from_frame(columns: np.ndarray, rotation: np.ndarray, origin: np.ndarray) -> np.ndarray:
    """(k, 3) rows of rotation columns + origin."""
    out = np.empty((columns.shape[1], 3))
    for i in range(3):
        column = columns[0] * rotation[i, 0]
        column += columns[1] * rotation[i, 1]
        column += columns[2] * rotation[i, 2]
        column += origin[i]
        out[:, i] = column
    return out


class MeshCollider:
    """A triangle mesh that keeps cloth on the side each vertex comes from.

    Rigid: `mesh` is the shape in its own frame and `pose` (4x4, own frame to world, rotation and
    translation only) places it at the frame's end, `pose_start` at its start (default: `pose`);
    no pose means the shape is in world space and still. The broad phase is built once per mesh,
    so reuse one `TriangleMesh` across frames.
    Deforming: `mesh` is the world-space shape at the frame's end and `mesh_start` (same
    triangles) at its start.
    `offset` (m) is kept in addition to the cloth's thickness; `friction` None means the cloth's alone.
    `grown`: a deforming collider whose start is made up, not a motion it had (a remeshed shape grown from
    its old one, `remeshed.matched_start`): what it pushes the cloth by over the frame is not momentum, and
    Auto Substeps keeps its surface's moves within the gap (solver/step.py, `driven_motion.grown_substeps`).
    """

    def __init__(
        self,
        mesh,
        triangles=None,
        *,
        mesh_start=None,
        pose=None,
        pose_start=None,
        friction=None,
        offset=0.0,
        grown: bool = False,
    ):
        self.mesh = mesh if isinstance(mesh, TriangleMesh) else TriangleMesh(mesh, triangles)
        self.deforming = mesh_start is not None
        if grown and not self.deforming:
            raise ValueError("a grown collider needs its made-up start (mesh_start)")
        self.grown = bool(grown)
        if self.deforming and pose is not None:
            raise ValueError("give a deforming collider's shapes in world space, without a pose")
        self.pose: tuple[np.ndarray, np.ndarray] | None = None if pose is None else _rigid(pose)
        self.pose_start: tuple[np.ndarray, np.ndarray] | None = self.pose if pose_start is None else _rigid(pose_start)
        if pose is None and pose_start is not None:
            raise ValueError("pose_start needs a pose")
        self.friction = friction
        self.offset = float(offset)
        self._deform_grid: TriangleGrid | None = None
        self._touched: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # see `_resolve`
        self._window_rows: np.ndarray | None = None  # the last `collide_rows`' vertices (rows of x)
        self._deform_candidates: list[_Candidates] = []  # this frame's only: bounds hold for its motion
        if self.deforming:
            start = self._start_corners(mesh_start)
            velocity = [e - s for e, s in zip((self.mesh.a, self.mesh.b, self.mesh.c), start, strict=True)]
            # Each triangle's corners at the frame's start and their motion over it, one row per triangle
            # (one gather per pair, see `_gather`), and how far any corner moves: a triangle stays within
            # that of its end shape all frame long, which bounds its box and its distance to a point.
            self._corner_rows = np.ascontiguousarray(np.concatenate(start + velocity).T)
            squared = [dot(v, v) for v in velocity]
            self._motion = np.sqrt(np.maximum(np.maximum(squared[0], squared[1]), squared[2]))

    # ------------------------------------------------------------------ frames and triangles

    @property
    def still(self) -> bool:
        """Whether the collider stays put over the frame: not deforming, the same pose at both ends (a still one
        may have a pose)."""
        if self.deforming:
            return False
        if self.pose is self.pose_start:
            return True
        assert self.pose is not None and self.pose_start is not None  # (a pose_start needs a pose)
        (r0, o0), (r1, o1) = self.pose_start, self.pose
        return bool(np.array_equal(r0, r1) and np.array_equal(o0, o1))

    def _start_corners(self, mesh_start) -> list[np.ndarray]:
        """The corners (three (3, T)) of the end shape's triangles at the frame's start: from a
        TriangleMesh made on `self.mesh.triangles`, or from the start's vertices (no mesh built)."""
        if isinstance(mesh_start, TriangleMesh):
            return [mesh_start.a, mesh_start.b, mesh_start.c]
        vertices = np.asarray(mesh_start, dtype=np.float64).reshape(-1, 3)
        if vertices.shape != self.mesh.vertices.shape:
            raise ValueError("mesh_start must have the same vertices as mesh")
        return [as_columns(vertices.take(self.mesh.triangles[:, k], axis=0)) for k in range(3)]

    def _pose_at(self, t: float):
        if self.pose is None or self.pose_start is None:
            return None
        (r0, o0), (r1, o1) = self.pose_start, self.pose
        if self.pose_start is self.pose:
            return r1, o1
        return _rotation_between(r0, r1, t), o0 + (o1 - o0) * t

    def _grid(self, gap: float) -> TriangleGrid:
        if not self.deforming:
            return self.mesh.grid()
        if self._deform_grid is None:  # once per frame: each end triangle grown by its own motion
            self._deform_grid = TriangleGrid().build(self.mesh.vertices, self.mesh.triangles, self._motion)
        return self._deform_grid

    def _corners(self, tri: np.ndarray, t: float):
        """Triangle corners (three (3, P)) at time t, and (for deforming meshes) their motion per unit time."""
        if not self.deforming:
            return [m.take(tri, axis=1) for m in (self.mesh.a, self.mesh.b, self.mesh.c)], None
        rows = _gather(self._corner_rows, tri)
        rows[0:9] += rows[9:18] * t  # the corners at time t, in place of the start ones
        return [rows[0:3], rows[3:6], rows[6:9]], [rows[9:12], rows[12:15], rows[15:18]]

    # ------------------------------------------------------------------ the substep

    def collide(
        self,
        x,
        x_start,
        active,
        t0: float,
        t1: float,
        thickness: float,
        cloth_friction: float,
        settle=None,
        contacts: dict | None = None,
    ) -> None:
        """Resolve contacts of vertices (rows of x where `active`) moving from x_start, for t0 -> t1.

        settle: None, or (previous, t) when x_start is a window's start earlier than the last substep's
        (previous, at frame fraction t): the path (side, crossings, friction) runs from x_start, but the
        settled pushes (`contact.settled_pushes`) are reckoned from and added to `previous`, which is
        what the next substep's velocity is taken from (else resting cloth would bounce).
        contacts: with `settle`, a dict (one per cloth) where a still mesh leaves the contact planes
        it found, for `hold` on the substeps until its next pass.
        """
        self._touched = None
        if settle is not None and contacts is not None and not self.deforming:
            found = contacts.get(self.mesh)
            settle = (*settle, None if found is None else found[3])  # the rows `hold` kept on the surface
        self.collide_rows(x, x_start, active, t0, t1, thickness, cloth_friction, settle)
        if t1 >= 1.0:  # once a frame, last pass
            if self._inside_check_due(contacts):
                self.recover_inside(x, x_start if settle is None else settle[0], active, thickness)
        if contacts is None or self.deforming or settle is None:
            return
        if len(contacts) > 8:  # (meshes no longer used)
            contacts.clear()
        contacts[self.mesh] = None
        touched, rows = self._last_pass()
        if touched is not None and rows is not None:
            normal, level, has = touched
            which = has.nonzero()[0]
            contacts[self.mesh] = (rows.take(which), normal.take(which, axis=1), level.take(which), None)

    def _inside_check_due(self, kept) -> bool:
        """Whether the deep-inside recovery runs this frame. Deforming meshes: every frame. A still or rigid
        mesh's passes catch every path through its surface, so a vertex can only come to lie deep inside it
        when the mesh appears or jumps round the cloth, or at a run's start: the first frame with `kept` (the
        run's memory for this collider) and frames that do not start where the last checked one ended (the
        check cost the 64² torus and ball drapes ~2 ms a frame, a fifth of the plain step, every frame)."""
        if self.deforming or kept is None:
            return True
        last = kept.get(_INSIDE_CHECKED)
        kept[_INSIDE_CHECKED] = (self.mesh, self._pose_at(1.0))
        return last is None or last[0] is not self.mesh or not _same_pose(last[1], self._pose_at(0.0))

    def recover_inside(self, x, starts, active, thickness: float) -> None:
        """Free vertices (rows of x where `active`, a mask, or the rows it lists) deeper than the gap inside
        this closed mesh at the frame's end go out to its nearest surface, their starts moved alike
        (`inside_recovery`); nothing for open meshes."""
        if not self.mesh.outward or len(self.mesh) == 0:
            return
        rows = active.nonzero()[0] if active.dtype == bool else active
        pose = self._pose_at(1.0)
        p1 = as_columns(x.take(rows, axis=0)) if pose is None else _to_frame(x.take(rows, axis=0), *pose)
        which, target, moved = recover_inside(p1, self.mesh, max(float(thickness) + self.offset, MIN_GAP))
        if len(which):
            rows = rows.take(which)
            _write_back(x, rows, target, starts, rows, moved, pose)

    def _last_pass(self):
        """The last `collide_rows`' contact planes (see `_resolve`) and vertices (rows of x)."""
        return self._touched, self._window_rows

    def hold(self, x, x_start, active, t0: float, t1: float, cloth_friction: float, contacts: dict) -> None:
        """Between passes over a window: push the vertices that touched a still mesh at its last pass
        back onto their contact planes, with friction, as a pass would, so the constraints never work
        on cloth sunk into the mesh (which let edges cut a table's edge) and friction keeps its strength."""
        found = None if self.deforming else contacts.get(self.mesh)
        if found is None:
            return
        rows, normal, level, _ = found
        if len(rows) and active.dtype == bool:
            keep = active.take(rows).nonzero()[0]
            if len(keep) < len(rows):
                rows, normal, level = rows.take(keep), normal.take(keep, axis=1), level.take(keep)
        if len(rows) == 0:
            return
        pose0, pose1 = self._pose_at(t0), self._pose_at(t1)
        end = x.take(rows, axis=0)
        end = as_columns(end) if pose1 is None else _to_frame(end, *pose1)
        depth = level - dot(normal, end)
        inside = (depth > 0.0).nonzero()[0]
        if len(inside) == 0:
            return
        rows, normal, depth = rows.take(inside), normal.take(inside, axis=1), depth.take(inside)
        end = end.take(inside, axis=1)
        start = x_start.take(rows, axis=0)
        start = as_columns(start) if pose0 is None else _to_frame(start, *pose0)
        settling, settled = settled_pushes(normal, depth, start, end)
        end += normal * depth
        end = coulomb_friction(end, start, normal, depth, combined_friction(cloth_friction, self.friction))
        contacts[self.mesh] = (*found[:3], rows)  # held: the next pass carries none of their friction
        _write_back(x, rows, end, x_start, rows.take(settling), settled, pose1)

    def collide_rows(
        self, x, x_start, active, t0: float, t1: float, thickness: float, cloth_friction: float, settle=None
    ) -> None:
        """`collide` for the rows of x where `active` (a mask), or the rows `active` lists (indices)."""
        if len(self.mesh) == 0:
            return
        gap = max(float(thickness) + self.offset, MIN_GAP)
        grid = self._grid(gap)
        pose0, pose1 = self._pose_at(t0), self._pose_at(t1)
        lower, upper = self._world_box(grid.lower - gap, grid.upper + gap, pose0, pose1)
        if active.dtype == bool:
            idx = (_within(x, x_start, lower, upper) & active).nonzero()[0]
        else:
            idx = active.take((_within(x[active], x_start[active], lower, upper)).nonzero()[0])
        self._window_rows = idx
        if len(idx) == 0:
            return
        rows1, rows0 = x.take(idx, axis=0), x_start.take(idx, axis=0)
        if pose1 is None:
            p1, p0 = as_columns(rows1), as_columns(rows0)
        else:
            p1, p0 = _to_frame(rows1, *pose1), _to_frame(rows0, *pose0)
        q, tri = self._candidates(len(x), gap, grid).pairs(grid, idx, p0, p1, 1.0 - t0)
        if len(q) == 0:
            return
        settle_into, since = x_start, None  # where settled pushes go, and from where they are reckoned
        if settle is not None:
            settle_into, t_previous, *rest = settle
            held = rest[0] if rest else None
            rows_previous = settle_into.take(idx, axis=0)
            pose_previous = self._pose_at(t_previous)
            columns = as_columns(rows_previous) if pose_previous is None else _to_frame(rows_previous, *pose_previous)
            span, window = t1 - t_previous, t1 - t0
            carry = np.full(len(idx), (window - span) / (window + span))
            if held is not None and len(held):
                was_held = np.zeros(len(x), dtype=bool)
                was_held[held] = True
                carry[was_held.take(idx)] = 0.0
            since = _Since(columns, span, carry)
        moved, settling, settled = self._resolve(p0, p1, q, tri, t0, t1, gap, cloth_friction, since)
        if len(moved) == 0:
            return
        _write_back(x, idx.take(moved), p1.take(moved, axis=1), settle_into, idx.take(settling), settled, pose1)

    def _candidates(self, n: int, gap: float, grid: TriangleGrid) -> _Candidates:
        """The candidate list of a cloth of n vertices (kept on the mesh: own-frame boxes outlive a pose)."""
        rigid = not self.deforming
        kept = self.mesh.candidates if rigid else self._deform_candidates
        for cache in kept:
            if cache.vertex_count == n and cache.gap == gap:
                return cache
        cell = self.mesh.cell if rigid else grid.levels[0][1]
        cache = _Candidates(
            n, gap, (_SKIN if rigid else _DEFORMING_SKIN) * cell, self.mesh, None if rigid else self._motion
        )
        if rigid:
            self.mesh.candidates = [cache, *self.mesh.candidates[:7]]
        else:
            self._deform_candidates = [cache, *self._deform_candidates[:7]]
        return cache

    @staticmethod
    def _world_box(lower, upper, pose0, pose1):
        """The world box around the own-frame box lower..upper at both ends of the substep."""
        if pose1 is None:
            return lower, upper
        box = np.stack(np.meshgrid(*zip(lower, upper, strict=True), indexing="ij"), -1).reshape(-1, 3)
        world = np.concatenate([box @ r.T + o for r, o in (pose0, pose1)])
        return world.min(axis=0), world.max(axis=0)

    def _resolve(
        self, p0, p1, q, tri, t0, t1, gap, cloth_friction, since=None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Move p1's columns (in place) out of the candidate triangles; returns the columns moved, the
        columns whose start moves with them and how far ((3, k), `contact.settled_pushes`).

        (q, tri): candidate pairs, q sorted. since: None (settled pushes reckoned from p0), or a `_Since`
        to reckon them from instead (see `collide`).
        """
        mu = combined_friction(cloth_friction, self.friction)
        moved_any = np.zeros(p1.shape[1], dtype=bool)
        settles = []  # each pass's (columns, settled pushes), only those not zero
        dt = t1 - t0
        all_q, all_tri = q, tri
        planes: list = []  # the first pass's (rigid)
        touched = None  # window passes: each column's last contact plane (normal, level) and whether it has one
        if since is not None:
            touched = (np.zeros_like(p1), np.zeros(p1.shape[1]), np.zeros(p1.shape[1], dtype=bool))
        for _ in range(_PASSES):
            if not self.deforming:
                hit = _rigid_contacts(p0, p1, q, tri, self.mesh, gap, mu, None if planes else planes, since)
            else:
                pairs = self._deforming_candidates(p0, p1, q, tri, t1, dt, gap)
                if pairs is None:
                    break
                pair_q, a, b, c, n, start, end, velocity, motion = pairs
                outward = self.mesh.outward
                hit = self._contacts(pair_q, a, b, c, n, start, end, velocity, dt, gap, mu, outward, since, motion)
            if hit is None:
                break
            who, target, crowded, (settle_at, settle), plane = hit
            p1[:, who] = target
            if touched is not None and plane is not None:
                touched[0][:, who], touched[1][who], touched[2][who] = plane[0], plane[1], True
            if len(settle_at):
                settles.append((who.take(settle_at), settle))
            moved_any[who] = True
            # The next pass re-checks only vertices that touched more than one triangle (creases, corners).
            again = np.zeros(p1.shape[1], dtype=bool)
            again[crowded] = True
            keep = (again.take(q)).nonzero()[0]
            if len(keep) == 0:
                break
            q, tri = q.take(keep), tri.take(keep)
        moved = moved_any.nonzero()[0]
        stopped = _EMPTY
        if len(moved):
            stopped = self._stop_before_crossings(p0, p1, all_q, all_tri, moved_any, t1, dt, planes)
        if touched is not None:
            touched[2][stopped] = False
        self._touched = touched
        if not settles:
            return moved, _EMPTY, _NO_PUSH
        if len(settles) == 1:
            settling, settled = settles[0]
        else:  # a column may settle in both passes: sum them as one array
            total = np.zeros_like(p1)
            for at, push in settles:
                total[:, at] += push
            settling = np.unique(np.concatenate([at for at, _ in settles]))
            settled = total.take(settling, axis=1)
        if len(stopped):  # stopped before a crossing: nothing settles
            still = np.ones(p1.shape[1], dtype=bool)
            still[stopped] = False
            keep = still.take(settling).nonzero()[0]
            settling, settled = settling.take(keep), settled.take(keep, axis=1)
        return moved, settling, settled

    def _stop_before_crossings(self, p0, p1, q, tri, moved, t1, dt, planes=()) -> np.ndarray:
        """Keep each moved vertex's whole path clear of the candidate triangles (in place on p1).

        A push out of one triangle can carry a vertex through another where two parts of the mesh
        meet at a sharp concave crease (an ear against a head); on an open mesh the vertex would
        then stay on the wrong side for good. Such a vertex stops halfway to the first triangle its
        path (start to pushed position) crosses: still on the side it came from, and the next
        substep pushes it out to the gap. `planes`: the pairs' planes and start heights (still triangles).
        """
        if planes:  # only paths that reach the other side of a triangle's plane can cross it
            plane, h0 = planes
            end = p1.take(q, axis=1)
            across = (h0 * _heights(plane, end) <= 0.0) & (h0 * self.mesh.outward >= 0.0)
            across &= moved.take(q)
            across = across.nonzero()[0]
            if len(across) == 0:  # (resting cloth: none)
                return q[:0]
            q, tri = q.take(across), tri.take(across)
            start, end = p0.take(q, axis=1), end.take(across, axis=1)
            return self._stop_at_crossings(p1, q, tri, start, end, t1, dt)
        use = (moved.take(q)).nonzero()[0]
        q, tri = q.take(use), tri.take(use)
        start, end = p0.take(q, axis=1), p1.take(q, axis=1)
        if not self.deforming:  # only paths that reach the other side of a triangle's plane can cross it
            data = _gather(self.mesh.fast_rows, tri)
            h0 = _heights(data, start)
            across = ((h0 * _heights(data, end) <= 0.0) & (h0 * self.mesh.outward >= 0.0)).nonzero()[0]
            if len(across) == 0:  # (resting cloth: none)
                return q[:0]
            q, tri = q.take(across), tri.take(across)
            start, end = start.take(across, axis=1), end.take(across, axis=1)
        return self._stop_at_crossings(p1, q, tri, start, end, t1, dt)

    def _stop_at_crossings(self, p1, q, tri, start, end, t1, dt) -> np.ndarray:
        """`_stop_before_crossings` for the pairs (q, tri) whose paths start -> end may cross."""
        (a, b, c), velocity = self._corners(tri, t1)
        if velocity is not None:  # the path relative to the moving triangle
            start = start + (velocity[0] + velocity[1] + velocity[2]) * (dt / 3.0)
        crossed, s = segment_crossings(start, end, a, b, c)
        if self.mesh.outward:  # out of a closed surface is always allowed
            crossed &= dot(cross(b - a, c - a), start - a) * self.mesh.outward > 0.0
        if not crossed.any():
            return q[:0]
        pick = crossed.nonzero()[0]
        pick = pick[np.lexsort((s[pick], q[pick]))]  # by vertex, its first crossing first
        pick = pick[(np.diff(q[pick], prepend=-1)).nonzero()[0]]
        start, end = start[:, pick], end[:, pick]
        p1[:, q[pick]] = start + (end - start) * (0.5 * s[pick])
        return q[pick]

    def _deforming_candidates(self, p0, p1, q, tri, t1, dt, gap):
        """Pairs that can touch, with their data, for triangles moving over the substep."""
        (a, b, c), velocity = self._corners(tri, t1)
        assert velocity is not None
        n = cross(b - a, c - a)
        n /= np.maximum(np.sqrt(dot(n, n)), _EPS)
        motion = self._motion.take(tri) * dt  # its fastest corner's motion over the substep
        slack = motion + gap
        start, end = p0.take(q, axis=1), p1.take(q, axis=1)
        h0, h1 = dot(n, start - a), dot(n, end - a)
        maybe = ((h0 * h1 <= 0.0) | (np.minimum(np.abs(h0), np.abs(h1)) < slack)).nonzero()[0]
        if len(maybe) == 0:
            return None
        q, tri = q.take(maybe), tri.take(maybe)
        a, b, c, n, start, end = (m.take(maybe, axis=1) for m in (a, b, c, n, start, end))
        velocity = [m.take(maybe, axis=1) for m in velocity]
        return q, a, b, c, n, start, end, velocity, motion.take(maybe)

    @staticmethod
    def _contacts(q, a, b, c, n, start, end, velocity, dt, gap, mu, outward=0, since=None, motion=None):
        """(vertices, their new positions (3, k)) for one pass over candidate pairs, or None.

        since: None, or a `_Since` to reckon settled pushes from (see `collide`). motion: how far each
        pair's triangle's fastest corner moves over the substep (None: crossings by the shifted path alone)."""
        closest, v, w, region = closest_points(end, a, b, c)
        settle_from = None if since is None else since.columns.take(q, axis=1)
        if velocity is not None:  # follow the triangle's motion at the contact over the substep
            u = 1.0 - v - w
            at_contact = velocity[0] * u + velocity[1] * v + velocity[2] * w
            shift = at_contact * dt
            start0, start = start, start + shift
            if settle_from is not None:
                settle_from = settle_from + at_contact * since.span
        h0, h1 = dot(n, start - a), dot(n, end - a)
        crossed, s = segment_crossings(start, end, a, b, c)
        if outward:
            crossed &= h0 * outward > 0.0  # into a closed surface, not out of it
        away = end - closest
        if velocity is not None and motion is not None:
            found = _moving_crossings(start0, end, away, (a, b, c), velocity, dt, motion, gap, h1, crossed, outward)
            if found is not None:
                which, hit_s, start_heights = found
                s[which] = np.where(crossed.take(which), s.take(which), hit_s)
                if not outward:  # the side it came from: where it was against the triangle where it was
                    h0[which] = np.where(crossed.take(which), h0.take(which), start_heights)
                crossed[which] = True
        if outward:
            if velocity is not None:
                behind = (h1 * outward < 0.0).nonzero()[0]
                more = _crossed_on_one_path(q, start0, end, shift, end - closest, behind, (a, b, c, n), outward)
                if more is not None:
                    s = np.where(crossed, s, more[1])
                    crossed |= more[0]
            in_front = None  # the side is the outside, wherever the start is
        else:
            in_front = closest_points(start - n * h0, a, b, c)[3] == FACE  # the start's projection on the face
        side = _side(h0, h1, in_front, crossed, outward)
        h1 = h1 * side
        dist = np.sqrt(dot(away, away))
        use_normal = crossed | (region == FACE) | (dist < 1e-9)
        push = np.where(use_normal, gap - h1, gap - dist)
        contact = crossed | ((push > 0) & (dist < gap))
        if not contact.any():
            return None
        direction = np.where(use_normal, n * side, away)
        direction /= np.maximum(np.sqrt(dot(direction, direction)), _EPS)
        carry = 0.0 if since is None else since.carry.take(q)
        return _choose(q, contact, crossed, s, push, direction, start, end, gap, mu, settle_from, carry)


def _moving_crossings(start, end, away, triangles, velocity, dt, motion, gap, h1, crossed, outward: int):
    """Crossings the shifted-path test missed, by the exact test against the triangles' own motion
    (`moving_triangles.moving_crossings`): only for pairs whose vertex ends on the other side of its
    triangle than it started on (closed surfaces: started outside, ends inside), where an odd number
    of crossings must have happened, and ends within its path's length and the triangle's `motion` of
    the triangle (`away`: from its closest point), as a crossing point then within those of both, but
    not within the gap (the proximity push brings those out). Only triangles whose corners move more than
    `_FAST_MOTION` gaps over the substep: the shifted test errs by at most twice that (the corners' motions'
    spread) and a vertex starts a substep at the gap from the surface, so slower ones rarely need it (at
    0.5 gap the bending cylinder's bench cost rose 10-20%, at 1 not measurably). Returns (those pairs
    crossed, when, their start heights) or None."""
    fast = motion > _FAST_MOTION * gap
    if not fast.any():
        return None
    a, b, c = triangles
    path = end - start
    reach = np.sqrt(dot(path, path))
    reach += motion
    distance = dot(away, away)
    maybe = distance <= reach * reach
    maybe &= distance >= gap * gap
    maybe &= fast
    maybe &= ~crossed
    if outward:
        maybe &= h1 * outward < 0.0
    maybe = maybe.nonzero()[0]
    if len(maybe) == 0:
        return None
    a0, b0, c0 = (m.take(maybe, axis=1) - v.take(maybe, axis=1) * dt for m, v in zip(triangles, velocity, strict=True))
    p0 = start.take(maybe, axis=1)
    h0 = dot(cross(b0 - a0, c0 - a0), p0 - a0)  # the start's height over the triangle then (unnormalised)
    flipped = h0 * outward > 0.0 if outward else h0 * h1.take(maybe) < 0.0
    keep = flipped.nonzero()[0]
    if len(keep) == 0:
        return None
    maybe = maybe.take(keep)
    a1, b1, c1 = (m.take(maybe, axis=1) for m in (a, b, c))
    a0, b0, c0, p0 = (m.take(keep, axis=1) for m in (a0, b0, c0, p0))
    hit, s = moving_crossings(p0, end.take(maybe, axis=1), a0, b0, c0, a1, b1, c1)
    at = hit.nonzero()[0]
    if len(at) == 0:
        return None
    return maybe.take(at), s.take(at), h0.take(keep).take(at)


def _crossed_on_one_path(q, start, end, shift, away, behind, triangles, outward: int):
    """Crossings into a closed deforming surface when all the pairs of a vertex (q sorted) take one path
    relative to the mesh: shifted by the motion (`shift`, per pair) of its nearest triangle. Each
    triangle's own motion gives each pair its own path, and one passing a moving edge can miss both faces
    there: a vertex pulled over a twisting cylinder's rim ended 2 cm inside it (/work/probe9/arm_replay.py).
    (crossed, s) for every pair, or None. behind: the pairs whose end is behind their triangle's plane
    (only those can have crossed it); triangles: (a, b, c, unit normal), each (3, len(q))."""
    if len(behind) == 0:
        return None
    nearest, group = _best_per_vertex(q, -dot(away, away))
    if len(nearest) == len(q):  # one pair per vertex: its path is the pair's own
        return None
    start = start.take(behind, axis=1) + shift.take(nearest.take(group.take(behind)), axis=1)
    a, b, c, n = (m.take(behind, axis=1) for m in triangles)
    front = (dot(n, start - a) * outward > 0.0).nonzero()[0]  # into the surface, not out of it
    if len(front) == 0:
        return None
    behind, start, a, b, c = (
        behind.take(front),
        start.take(front, axis=1),
        a.take(front, axis=1),
        b.take(front, axis=1),
        c.take(front, axis=1),
    )
    hit, s_behind = segment_crossings(start, end.take(behind, axis=1), a, b, c)
    crossed, s = np.zeros(len(q), dtype=bool), np.zeros(len(q))
    crossed[behind], s[behind] = hit, s_behind
    return crossed, s


def _side(h0, h1, in_front, crossed, outward: int = 0):
    """Which side of each triangle's plane a vertex belongs on: outside a closed surface (`outward`
    ±1: the normals' sense); else where it started if it started in front of (or behind) the face or
    passed through it; else (it came round an edge) where it is."""
    if outward:
        return np.full(len(h0), float(outward))
    start_side = np.where(h0 > 0.0, 1.0, np.where(h0 < 0.0, -1.0, np.where(h1 <= 0.0, 1.0, -1.0)))
    end_side = np.where(h1 > 0.0, 1.0, np.where(h1 < 0.0, -1.0, start_side))
    return np.where(in_front | crossed, start_side, end_side)


def _choose(q, contact, crossed, s, push, direction, start, end, gap, mu, settle_from=None, carry=0.0):
    """One contact per vertex (the first crossing, else the deepest push), with friction.

    Returns (vertices, their new positions (3, k), vertices whose other contacts remain, settled pushes
    reckoned from start, or from `settle_from` with `carry` (per pair, `contact.window_settled_pushes`)).
    """
    touching = contact.nonzero()[0]  # only the contacts compete
    q, crossed, s, push = (m.take(touching) for m in (q, crossed, s, push))
    direction, start, end = (m.take(touching, axis=1) for m in (direction, start, end))
    score = np.where(crossed, 4.0 - s, np.minimum(push, 1.0))
    first = (np.diff(q, prepend=-1)).nonzero()[0]
    best = np.maximum.reduceat(score, first)
    group = np.repeat(np.arange(len(first)), np.diff(first, append=len(q)))
    pick = (score == best.take(group)).nonzero()[0]
    pick = pick[(np.diff(q.take(pick), prepend=-1)).nonzero()[0]]  # the first such pair of each vertex
    normal, depth = direction.take(pick, axis=1), push.take(pick)
    target = end.take(pick, axis=1) + normal * depth
    # Vertices whose other contacts this push does not clear (creases, corners) get another pass.
    # (Every vertex here has a contact, so group g's pick is pick[g].)
    if len(pick) == len(q):
        crowded = q[:0]
    else:
        cleared = depth.take(group) * dot(normal.take(group, axis=1), direction)
        crowded = q[push - cleared > 1e-3 * gap]
    start, end = start.take(pick, axis=1), end.take(pick, axis=1)
    moved = coulomb_friction(target, start, normal, depth, mu)
    if settle_from is None:
        return q.take(pick), moved, crowded, settled_pushes(normal, depth, start, end), None
    chosen = touching.take(pick)
    previous = settle_from.take(chosen, axis=1)
    settled = window_settled_pushes(normal, depth, previous, end, moved - target, carry.take(chosen))
    return q.take(pick), moved, crowded, settled, (normal, dot(normal, target))


def _rigid_contacts(p0, p1, q, tri, mesh: TriangleMesh, gap: float, mu: float, planes: list | None = None, since=None):
    """`_contacts` for still triangles, from their table (one gather per pair).

    Cheap rejections first; the crossing test only for paths that cross a plane; the exact distance
    to an edge or corner from the barycentrics (`_edge_distances`); the contact choice on the scores
    alone, and directions only for the chosen contacts. A vertex whose other contacts its push does
    not clear (checked at its new position) gets another pass. `planes` (a list) receives every pair's
    plane (n, n.a) and start height, for `_stop_before_crossings`. `since` (a `_Since`):
    where settled pushes are reckoned from instead of p0 (see `MeshCollider.collide`).
    """
    data = _gather(mesh.fast_rows, tri)  # n, n.a, gv, gv.a, gw, gw.a, heights
    start, end = p0.take(q, axis=1), p1.take(q, axis=1)
    h0, h1 = _heights(data, start), _heights(data, end)
    if planes is not None:
        planes += [data[0:4], h0]
    bary = _barycentrics(data, end)
    # The path crosses the triangle's plane, or ends within the gap of the triangle (a lower bound).
    across = (h0 * h1 <= 0.0) & ((h0 != 0.0) | (h1 != 0.0))
    beyond = -_inside_by(bary, data)  # > 0: how far the end's projection lies beyond an edge's line
    outside = np.maximum(beyond, 0.0)
    outside *= outside
    maybe = across | (outside + h1 * h1 < gap * gap)
    if not maybe.any():
        return None
    at = None  # the remaining pairs' columns in data, start and end (None: all, in order)
    if np.count_nonzero(maybe) < 0.75 * len(q):
        at = maybe.nonzero()[0]
        q, tri, across, h0, h1, beyond = (m.take(at) for m in (q, tri, across, h0, h1, beyond))
        bary = bary.take(at, axis=1)
        if not mesh.outward:  # every start's projection is needed: compact the columns too
            start, end, data = (m.take(at, axis=1) for m in (start, end, data))
            at = None
    # (The wide per-pair columns of closed meshes are picked by `_columns_of` only where used.)
    side, crossed, s = _rigid_crossings(mesh.outward, data, start, bary, h0, h1, across, at)
    push = gap - h1 * side
    dist = np.abs(h1)
    off_face = beyond > 0.0  # the end is off the face: the exact distance
    if crossed is not None:
        off_face &= ~crossed
    edge = off_face.nonzero()[0]
    nearest_edge = None
    if len(edge):
        te = tri.take(edge)
        squared, *nearest_edge = _edge_distances(
            bary.take(edge, axis=1), _columns_of(data[12:15], at, edge), _gather(mesh.edges_rows, te)
        )
        squared += h1.take(edge) ** 2
        length = np.sqrt(squared)
        dist[edge] = length
        push[edge] = np.where(length > 1e-9, gap - length, push.take(edge))
    contact = (push > 0) & (dist < gap)
    if crossed is not None:
        contact |= crossed
    if not contact.any():
        return None
    touching = contact.nonzero()[0]  # only the contacts compete
    tq = q.take(touching)
    score = np.minimum(push.take(touching), 1.0)
    if crossed is not None and crossed.any():  # the first crossing wins over any push
        score = np.where(crossed.take(touching), 4.0 - s.take(touching), score)
    pick, group = _best_per_vertex(tq, score)
    chosen = touching.take(pick)  # pair of each vertex's contact
    depth = push.take(chosen)
    normal = _columns_of(data[0:3], at, chosen) * (side if np.isscalar(side) else side.take(chosen))
    if nearest_edge is not None:  # chosen edge or corner contacts push away from their closest point
        on_edge = beyond.take(chosen) > 0.0  # (the pairs in `edge`)
        if crossed is not None:
            on_edge &= ~crossed.take(chosen)
        on_edge &= dist.take(chosen) > 1e-9
        which = on_edge.nonzero()[0]
        if len(which):
            c = chosen.take(which)
            e = np.searchsorted(edge, c)  # its place among the edge pairs
            k, edge_beyond, edge_along = nearest_edge
            k = k.take(e)
            away = _edge_offsets(tri.take(c), k, _at_edge(edge_beyond, k, e), _at_edge(edge_along, k, e), mesh)
            away += _columns_of(data[0:3], at, c) * h1.take(c)
            away /= dist.take(c)
            normal[:, which] = away
    end_chosen, start_chosen = _columns_of(end, at, chosen), _columns_of(start, at, chosen)
    target = end_chosen + normal * depth
    moved = coulomb_friction(target, start_chosen, normal, depth, mu)
    crowded = _still_touching(
        tq, pick, group, touching, target, _Picked(data, at), side, crossed, beyond, mesh.edges_rows, tri, gap
    )
    if since is None:
        return tq.take(pick), moved, crowded, settled_pushes(normal, depth, start_chosen, end_chosen), None
    previous = since.columns.take(tq.take(pick), axis=1)
    plane = (normal, dot(normal, target))  # each contact's plane: n.p >= level keeps it out
    slowed = np.subtract(moved, target, out=target)
    settled = window_settled_pushes(normal, depth, previous, end_chosen, slowed, since.carry.take(tq.take(pick)))
    return tq.take(pick), moved, crowded, settled, plane


class _Since(NamedTuple):
    """Where settled pushes are reckoned from when a collision resolves a window of substeps (see
    `MeshCollider.collide`): the last substep's start (3, columns), that substep's length (frame
    fraction) and each column's share of friction's slowing carried to it (`contact.window_settled_pushes`;
    none for vertices `MeshCollider.hold` kept on the surface: their friction came substep by substep)."""

    columns: np.ndarray
    span: float
    carry: np.ndarray


def _columns_of(columns: np.ndarray, at: np.ndarray | None, which: np.ndarray) -> np.ndarray:
    """The columns of pairs `which` (numbered after compaction) from (k, P) columns kept for every
    pair before it: `at` maps one numbering to the other (None: they are the same)."""
    return columns.take(which if at is None else at.take(which), axis=1)


class _Picked(NamedTuple):
    """Gathered per-pair columns and the map from compacted pairs to them (see `_columns_of`)."""

    columns: np.ndarray
    at: np.ndarray | None


def _heights(data: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Signed heights of (3, P) points above their triangles' planes (`fast_rows` gathered as `data`)."""
    h = dot(data[0:3], points)
    h -= data[3]
    return h


def _barycentrics(data: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(3, P) barycentrics u, v, w of (3, P) points' projections onto their triangles."""
    bary = np.empty_like(points)
    np.subtract(dot(data[4:7], points), data[7], out=bary[1])
    np.subtract(dot(data[8:11], points), data[11], out=bary[2])
    np.subtract(1.0 - bary[1], bary[2], out=bary[0])
    return bary


def _inside_by(bary: np.ndarray, data: np.ndarray) -> np.ndarray:
    """How far inside every edge's line each projection lies (negative: beyond one, by that much)."""
    return (bary * data[12:15]).min(axis=0)


def _rigid_crossings(outward: int, data, start, bary, h0, h1, across, at=None):
    """(side (scalar or per pair), crossed, s): which side of each triangle the vertex belongs on, whether
    its path passes through the triangle (into a closed surface) and where along the path (crossed and
    s None: no path crosses). `data` and `start` are columns picked through `at` (`_columns_of`)."""
    if outward:  # outside a closed surface; only paths entering it can cross
        which = (across & (h0 * outward > 0.0)).nonzero()[0]
        if len(which) == 0:  # (resting cloth: none)
            return float(outward), None, None
        crossed = np.zeros(len(h0), dtype=bool)
        s = np.zeros(len(h0))
        start_bary = _barycentrics(_columns_of(data, at, which), _columns_of(start, at, which))
        end_bary = bary.take(which, axis=1)
    else:
        which = None
        start_bary, end_bary = _barycentrics(data, start), bary
    # Crossing the face: barycentrics are linear along the path, so interpolate them at the plane.
    a0, a1 = (h0, h1) if which is None else (h0.take(which), h1.take(which))
    t = a0 / np.where(a0 != a1, a0 - a1, 1.0)
    at_plane = start_bary + (end_bary - start_bary) * t
    hit = at_plane.min(axis=0) >= 0.0
    if which is None:
        crossed = across & hit
        s = np.where(crossed, t, 0.0)
        in_front = start_bary.min(axis=0) >= 0.0
        return _side(h0, h1, in_front, crossed, 0), crossed, s
    crossed[which] = hit
    s[which] = np.where(hit, t, 0.0)
    return float(outward), crossed, s


def _best_per_vertex(q: np.ndarray, score: np.ndarray):
    """(pick, group): the first best-scoring pair of each run of equal q (sorted), and each pair's run."""
    change = np.empty(len(q), dtype=bool)
    change[0] = True
    np.not_equal(q[1:], q[:-1], out=change[1:])
    first = change.nonzero()[0]
    group = np.cumsum(change) - 1
    if len(first) == len(q):  # one pair per vertex
        return first, group
    best = np.maximum.reduceat(score, first)
    pick = (score == best.take(group)).nonzero()[0]
    keep = np.empty(len(pick), dtype=bool)
    keep[0] = True
    picked = group.take(pick)
    np.not_equal(picked[1:], picked[:-1], out=keep[1:])
    return pick.take(keep.nonzero()[0]), group


def _still_touching(q, pick, group, touching, moved, picked: _Picked, side, crossed, beyond, edges, tri, gap):
    """Vertices (from q, sorted: the vertices of the contact pairs `touching`) some other contact of which
    their push may not clear. Checked at the pushed position `moved` (one column per vertex; friction
    aside, as the push's own first-order estimate was): a face contact by its height on its side, an
    edge contact by its distance; a crossing always gets another pass."""
    if len(pick) == len(q):
        return q[:0]
    other = np.ones(len(q), dtype=bool)
    other[pick] = False
    other = other.nonzero()[0]
    pair = touching.take(other)
    data = _columns_of(picked.columns, picked.at, pair)
    points = moved.take(group.take(other), axis=1)
    h = _heights(data, points)
    h *= side if np.isscalar(side) else side.take(pair)
    bary = _barycentrics(data, points)
    beyond_now = np.maximum(-_inside_by(bary, data), 0.0)
    clear = gap * (1.0 - 1e-3)
    close = beyond_now * beyond_now + h * h < clear * clear  # by the lower bound: make sure off the face
    edge = (close & (beyond_now > 0.0)).nonzero()[0]
    if len(edge):
        te = tri.take(pair.take(edge))
        squared, *_ = _edge_distances(bary.take(edge, axis=1), data[12:15].take(edge, axis=1), _gather(edges, te))
        close[edge] = squared + h.take(edge) ** 2 < clear * clear
    if crossed is not None:
        close |= crossed.take(pair)
    close |= (beyond.take(pair) <= 0.0) & (h < clear)  # was a face contact
    return q.take(other.take(close.nonzero()[0]))


def _edge_distances(bary: np.ndarray, heights: np.ndarray, edges: np.ndarray):
    """For projections outside their triangles (barycentrics `bary` (3, E), some negative), the squared
    in-plane distance to the closest point of the triangle, from the barycentrics alone.

    The closest point lies on an edge the projection is beyond (its barycentric negative). Beyond the
    edge opposite corner k by -bary_k x height_k, with its foot at the fraction t_k = bary_next +
    bary_k x foot_k along the edge (`TriangleMesh.edges_rows`; next: the barycentric of the edge's start);
    clamping t_k to [0, 1] gives the closest point on that edge, and the nearest such edge wins.
    Returns (squared distances, that edge k, and for every edge (3, E): -(distance beyond its line),
    (t_k - clamped) x length; `_at_edge` picks edge k's).
    """
    feet, lengths = edges[0:3], edges[3:6]
    t = bary * feet
    t += bary.take(_NEXT, axis=0)
    along = np.maximum(t, 0.0)
    np.minimum(along, 1.0, out=along)
    np.subtract(t, along, out=along)
    along *= lengths
    beyond = bary * heights
    squared = beyond * beyond
    squared += along * along
    np.copyto(squared, np.inf, where=bary >= 0.0)
    # The first least of the three, as argmin would pick it (row by row: argmin down columns is slow).
    s0, s1, s2 = squared
    k = (s1 < s0).astype(np.int64)
    least = np.minimum(s0, s1)
    np.copyto(k, 2, where=s2 < least)
    return np.minimum(least, s2, out=least), k, beyond, along


def _at_edge(rows: np.ndarray, k: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """rows[k, columns] for a C-contiguous (3, E) array (a flat take: quicker than fancy indexing)."""
    return rows.reshape(-1).take(k * rows.shape[1] + columns)


def _edge_offsets(tri, k, beyond, along, mesh: TriangleMesh) -> np.ndarray:
    """In-plane offsets (3, E) from the closest points found by `_edge_distances` to the projections
    on triangles tri: (distance beyond the line) x edge k's outward normal + `along` x its direction."""
    frame = mesh.edge_frames.reshape(-1).take((tri * 18 + k * 6) + _FRAME[:, None])  # outward, direction
    offset = frame[3:6] * along
    offset += frame[0:3] * -beyond
    return offset


def _write_back(x, rows, new, starts, settle_rows, settled, pose1) -> None:
    """x[rows] = new and starts[settle_rows] += settled, for (3, k) columns in the collider's own frame
    (pose1 None: the world's), column by column when no transform is needed (~2x quicker than rows of three)."""
    if pose1 is None:
        for k in range(3):
            x[rows, k] = new[k]
    else:
        x[rows] = _from_frame(new, *pose1)
    if len(settle_rows):
        if pose1 is None:
            for k in range(3):
                starts[settle_rows, k] += settled[k]
        else:
            starts[settle_rows] += _from_frame(settled, pose1[0], _ZERO)
