"""A mesh's sharp edges (`SharpEdges`) for the edge pass (solver/edge_contacts.py): their ends, the directions into
their faces, the faces the rim rule sees (RIM_SPAN), the parts the pass runs on, and their candidate lists; found
once per still mesh (`sharp_edges_of`) or per deforming collider's frame (`frame_sharp_edges`)."""

from __future__ import annotations

import math
import weakref

import numpy as np

from .edge_list import _FAR, _FRAME_SKIN, _LEAST_SKIN, _SKIN, _EdgeList, _planes_of
from .edge_rims import COS_CONE_LEAST
from .edge_topology import edge_table, kept_edge_table
from .sharp_rules import _EPS, _hidden, _sharp_edges
from .triangle_grid import TriangleGrid
from .triangles import cross, dot

# RIM_SPAN (a rule, folded in round 24):
# ... as the cloth sees the rim: on a still closed mesh each face of a convex sharp edge stands for the face within
# the rod rule's radius (half the longest cloth edge) of the edge, reached over the faces round it, that turns
# furthest that way about the edge (`_rim_faces`): a box's rim rounded by a Bevel (two 45° edges, four 22.5° ones
# with 3 segments) is then the top and the side (the chamfer strips' diagonals change only the hops), and its edges
# carry and brake the cloth as a box's. Without, a 1.6 m cloth landing on a table with a 1 cm (or 3 mm) bevel slid
# off onto the floor, where it stays without the bevel (docs/design.md, round 14 (bevel17); left there: which face
# the edge table lists first still decides it on some tops). A 12-segment torus's ridges (10 cm facets) or a ball's
# are no rims for a cloth whose edges are under twice their facets' width.
RIM_SPAN_HOPS = 8  # triangles from the edge's faces (a 3-segment bevel's chamfer strips: up to 6 to the top)
# A closed mesh's convex edge is a rim (a cloth edge through either face goes out across it, in the face's plane)
# only where its faces turn by more than this (degrees; 0: every convex edge, main's). kinds_r26, off: on a 32 x 16 UV
# ball's 11.25 degree ridges the in-plane push is sideways along the surface (docs/design.md, round 26).
RIM_TURN_LEAST = 0.0
# (Turned less than this from the other face: a slab thinner than the radius is a slab, its top no face of its
# bottom rim; exactly 180° also has no sense.)
_RIM_SPAN_MOST = math.radians(150.0)


class SharpEdges:
    """A mesh's sharp edges as (triangle, edge k opposite corner k), their ends (3, S) (a deforming mesh's at
    the frame's end, and at its start) and broad phase grown by the gap (built on first use)."""

    def __init__(
        self, mesh, radius: float = 0.0, start: np.ndarray | None = None, rounded: float = 0.0, gap: float = 0.0
    ):
        """start: for a deforming mesh (the frame's end shape), its corner rows at the frame's start
        (`MeshCollider._corner_rows`): its sharp edges are the end shape's, with their ends at the start
        too (`a0`, `b0`, `c0`); no edges are culled as hidden, and none are thin (the pass runs every
        substep for deforming meshes anyway). gap: the distance kept from it (`_sharp_edges`)."""
        self.still = start is None
        self.radius = radius
        table = None if start is None else kept_edge_table(mesh)
        self.tri, self.k, other, other_k, thin, braked, least, ends_only = _sharp_edges(
            mesh.triangles, mesh.vertices, mesh.normals, mesh.heights, radius, table, rounded, mesh.outward, gap
        )
        # Sides of a rod or bar thinner than a cloth edge: a hanging cloth needs the pass every substep there.
        self.thin = thin & (start is None)
        self.a = self.b = self.c = self.c_other = self.into = self.into_other = np.zeros((3, 0))
        self.width = self.width_other = np.zeros(0)
        self.rim = np.zeros(0, dtype=bool)
        # Sharp by a rule of BRAKED_EDGES' alone: an open mesh's by the rounded rule or the shallow ridges (and
        # apexes), a closed mesh's by its convex shallow ridges (and apexes; not by its rounded rule's).
        self.braked = np.zeros(0, dtype=bool)
        # The least cloth edge length each is sharp for (0: any; CLOSED_APEX_NEAR's apexes).
        self.least = np.zeros(0)
        self.ends_only = np.zeros(0, dtype=bool)  # CLOSED_APEX_NEAR's (OUTSIDE_ENDS_ONLY)
        self.open_rims = np.zeros(0, dtype=bool)  # the edges on one face (or more than two)
        self.open = False
        if len(self.tri):
            self.a, self.b = _ends(_corners_of(mesh, self.tri), self.k)
            self.c = _opposite(_corners_of(mesh, self.tri), self.k)
            # Unit directions from the edge into its face(s), across it: cloth between two faces (in the
            # crease's wedge, less than 180°) meets the faces before the edge, so only the vertex pass.
            self.into = _across(self.a, self.b, self.c)
            two = other >= 0
            self.rim = ~two
            self.open = bool(self.rim.any())  # an edge on one face (or more than two): nothing solid below it
            self.open_rims = self.rim.copy()
            self.into_other = np.zeros_like(self.into)
            # Each face's width across the edge (its corner's height above it; the other's 0 on one face):
            # how far below the rim a cloth edge through the face is caught (`through_faces`).
            self.width = mesh.heights[self.k, self.tri]
            self.width_other = np.zeros_like(self.width)
            self.c_other = np.zeros_like(self.c)  # the other face's corner off the edge (one face: 0)
            if two.any():
                self.width_other[two] = mesh.heights[other_k.take(two.nonzero()[0]), other.take(two.nonzero()[0])]
                far = _opposite(_corners_of(mesh, other.take(two.nonzero()[0])), other_k.take(two.nonzero()[0]))
                self.into_other[:, two] = _across(self.a[:, two], self.b[:, two], far)
                self.c_other[:, two] = far
            self.braked = braked
            self.least = least
            self.ends_only = ends_only
            # Where a cloth edge through the face goes out across the edge: a rim (one face, or more than
            # two), or a closed mesh's convex edge (its other face bends away behind this one's outside).
            if mesh.outward:
                behind = dot(self.into_other, mesh.normals.take(self.tri, axis=1)) * mesh.outward < 0.0
                if RIM_TURN_LEAST > 0.0:  # (kinds_r26, off) only edges the faces turn at by more than this
                    behind &= dot(self.into, self.into_other) > -math.cos(math.radians(RIM_TURN_LEAST))
                self.rim |= two & behind
                if start is None:
                    self._drop(_hidden(mesh, self.a, self.b, self.into, self.into_other))
        self.any_braked = bool(self.braked.any())  # (asked on every `collide_edges` call)
        self.any_thin = bool(self.thin.any())
        self.any_least = bool(self.least.any())
        self.any_ends_only = bool(self.ends_only.any())
        self.a0, self.b0, self.c0 = self.a, self.b, self.c
        if start is not None and len(self.tri):
            rows = start.take(self.tri, axis=0)[:, :9].T.reshape(3, 3, -1)  # (corner, axis, edge) at the start
            self.a0, self.b0 = _ends(rows, self.k)
            self.c0 = _opposite(rows, self.k)
        # Each face's unit normal (3, S), away from the other face (a one-face edge's: either side, its other
        # zero): whether a face carries a cloth draped over the rim (see `rim_support`).
        self.out_face, self.out_other = _face_normals(self.a, self.b, self.into, self.into_other)
        # (a rim turning under 90 degrees anywhere: edge_rims.RIDGE_CONE's work; a part keeps its whole's, as the
        # cone's memory is the whole mesh's)
        self.any_cone = bool((self.rim & (dot(self.out_face, self.out_other) > COS_CONE_LEAST)).any())
        span = self.b - self.a
        self.along = span / np.maximum(np.sqrt(dot(span, span)), _EPS)  # unit (3, S), a to b
        # The faces the rim rule sees (`RIM_SPAN`): each face's furthest turned face within the radius.
        self.rim_face, self.rim_other = self.out_face, self.out_other
        if start is None and radius > 0.0 and mesh.outward and len(self.tri):
            self.rim_face, self.rim_other = _rim_faces(mesh, self, radius)
        # The wedge test's planes (see in_wedge), once: whether d is in the wedge between `into` and
        # `into_other` is d . (axis x into) >= 0 and d . (into_other x axis) >= 0, axis = into x into_other.
        axis = cross(self.into, self.into_other)
        self.creased = dot(axis, axis) >= 1e-12  # not on one face, nor folded flat
        self.wedge_from, self.wedge_to = cross(axis, self.into), cross(self.into_other, axis)
        self._grid: TriangleGrid | None = None
        self._grid_gap = -1.0
        self._lists: list[_EdgeList] = []  # per cloth (edges array, vertex count) and gap
        self._parts: dict = {}
        self._split: tuple | None = None  # (pose, gravity, parts) last asked for (`_split`)
        self._faces: tuple | None = None  # per sharp edge, `through_faces`'s constants (still meshes: `_face_table`)
        self._support: tuple | None = None  # (up, per sharp edge `rim_support`'s constants for that up)
        self._planes: tuple | None = None  # (`_cull_apart`'s directions (4, 3, S) and offsets (4, S), kept)

    def __len__(self) -> int:
        return len(self.tri)

    def _drop(self, which: np.ndarray) -> None:
        if which.any():
            keep = (~which).nonzero()[0]
            kept = (self.tri, self.k, self.rim, self.thin, self.width, self.width_other, self.braked, self.open_rims)
            self.tri, self.k, self.rim, self.thin, self.width, self.width_other, self.braked, self.open_rims = (
                m.take(keep) for m in kept
            )
            self.least, self.ends_only = self.least.take(keep), self.ends_only.take(keep)
            self.a, self.b, self.c, self.c_other, self.into, self.into_other = (
                m.take(keep, axis=1) for m in (self.a, self.b, self.c, self.c_other, self.into, self.into_other)
            )

    def parts(self, hanging: np.ndarray) -> tuple[SharpEdges | None, SharpEdges | None]:
        """(the edges marked `hanging`, the others) as SharpEdges of their own (None: no such edge; the
        whole when all are of one kind), each with its own candidate lists, kept while the marks are."""
        key = hanging.tobytes()
        found = self._parts.get(key)
        if found is None:
            if not hanging.any():
                found = (None, self)
            elif hanging.all():
                found = (self, None)
            else:
                found = (self._subset(hanging.nonzero()[0]), self._subset((~hanging).nonzero()[0]))
            if len(self._parts) >= 4:  # (a turning collider: keep a few)
                self._parts.clear()
            self._parts[key] = found
        return found

    def _subset(self, keep: np.ndarray) -> SharpEdges:
        part = object.__new__(SharpEdges)
        names = ("tri", "k", "rim", "thin", "creased", "width", "width_other", "braked", "open_rims", "least")
        for name in (*names, "ends_only"):
            setattr(part, name, getattr(self, name).take(keep))
        part.radius = self.radius
        columns = ("a", "b", "c", "c_other", "a0", "b0", "c0", "into", "into_other", "along", "wedge_from", "wedge_to")
        for name in (*columns, "out_face", "out_other", "rim_face", "rim_other"):
            setattr(part, name, getattr(self, name).take(keep, axis=1))
        part.open, part.still, part._parts, part._split = self.open, self.still, {}, None
        part.any_braked = bool(part.braked.any())
        part.any_thin = bool(part.thin.any())
        part.any_cone = self.any_cone
        part.any_least = bool(part.least.any())
        part.any_ends_only = bool(part.ends_only.any())
        part._faces, part._support, part._planes = None, None, None
        part._grid, part._grid_gap, part._lists = None, -1.0, []
        return part

    def in_wedge(self, direction, s) -> np.ndarray:
        """Whether each direction (3, P) from sharp edge s points into the wedge (< 180°) between its two
        faces' `into` directions (False for an edge on one face, or faces folded flat onto each other)."""
        inside = dot(direction, self.wedge_from.take(s, axis=1)) >= 0.0
        inside &= dot(direction, self.wedge_to.take(s, axis=1)) >= 0.0
        return inside & self.creased.take(s)

    def grid(self, gap: float) -> TriangleGrid:
        """The sharp edges' boxes grown by the gap: a deforming mesh's over the whole frame (from their ends
        at its start and end; they stay inside all frame, so the Verlet list's bounds hold as a still mesh's)."""
        if self._grid is not None and self._grid_gap == gap:
            return self._grid
        a0, b0, a1, b1 = self.a0, self.b0, self.a, self.b
        low = np.minimum(np.minimum(a0, b0), np.minimum(a1, b1)) - gap
        high = np.maximum(np.maximum(a0, b0), np.maximum(a1, b1)) + gap
        self._grid, self._grid_gap = TriangleGrid().build_boxes(low.T, high.T), gap
        return self._grid

    def pairs(self, edges, inv_mass, p0, p1, grid, gap: float, longest: float):
        """Candidate (cloth edge, sharp edge, its two ends, travel or None: see `_EdgeList.pairs`) for cloth
        vertices moving p0 -> p1 ((3, N), own frame), from a Verlet list kept while no vertex strays its half
        skin from where it was at the last query (a cloth resting on a table queries nothing); None: no pair."""
        n = p1.shape[1]
        found = next((c for c in self._lists if c.edges is edges and c.anchor.shape[1] == n and c.gap == gap), None)
        if found is None:
            skin = (_SKIN if self.still else _FRAME_SKIN) * longest
            found = _EdgeList(edges, n, gap, skin, _LEAST_SKIN * longest if self.still else skin)
            if self.any_least:
                found.shortest = float(self.least.min())
            self._lists = [found, *self._lists[:7]]
        planes = _planes_of(self) if self.still else None
        pairs = found.pairs(inv_mass, p0, p1, grid, planes)
        if pairs is None or not self.any_least:
            return pairs
        # (CLOSED_APEX_NEAR: the edges sharp for long cloth edges alone take the cloth edges as long, at either end)
        e, s, i, j, start, end, travel = pairs
        least = self.least.take(s)
        asked = (least > 0.0).nonzero()[0]
        if len(asked) == 0:
            return pairs
        least = least.take(asked) ** 2
        span0, span1 = (
            start[1].take(asked, axis=1) - start[0].take(asked, axis=1),
            end[1].take(asked, axis=1) - end[0].take(asked, axis=1),
        )
        short = (dot(span0, span0) < least) & (dot(span1, span1) < least)
        if not short.any():
            return pairs
        keep = np.ones(len(s), dtype=bool)
        keep[asked.take(short.nonzero()[0])] = False
        if not keep.any():
            return None
        keep = keep.nonzero()[0]
        start, end = [m.take(keep, axis=1) for m in start], [m.take(keep, axis=1) for m in end]
        travel = None if travel is None else travel.take(keep)
        return e.take(keep), s.take(keep), i.take(keep), j.take(keep), start, end, travel


_SHARP: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # TriangleMesh -> {radius: its SharpEdges}


def sharp_edges_of(mesh, radius: float = 0.0, rounded: float = 0.0, gap: float = 0.0) -> SharpEdges:
    """The mesh's sharp edges for curvature radii below `radius` or `rounded` (see `_sharp_edges`), found once
    per TriangleMesh, radii and gap."""
    kept = _SHARP.get(mesh)
    if kept is None:
        kept = _SHARP[mesh] = {}
    found = kept.get((radius, rounded, gap))
    if found is None:
        found = kept[(radius, rounded, gap)] = SharpEdges(mesh, radius, rounded=rounded, gap=gap)
    return found


_FRAME_SHARP: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # deforming MeshCollider -> {radius: SharpEdges}


def frame_sharp_edges(collider, radius: float = 0.0, rounded: float = 0.0, gap: float = 0.0) -> SharpEdges:
    """A deforming collider's sharp edges for this frame (its end shape's, with their places at the frame's
    start), found once per collider (one a frame), radii and gap; its edge table is kept across frames."""
    kept = _FRAME_SHARP.get(collider)
    if kept is None:
        kept = _FRAME_SHARP[collider] = {}
    found = kept.get((radius, rounded, gap))
    if found is None:
        found = kept[(radius, rounded, gap)] = SharpEdges(
            collider.mesh, radius, start=collider._corner_rows, rounded=rounded, gap=gap
        )
    return found


def _corners_of(mesh, tri: np.ndarray) -> np.ndarray:
    return np.stack([mesh.a.take(tri, axis=1), mesh.b.take(tri, axis=1), mesh.c.take(tri, axis=1)])


def _opposite(corners: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Corner k (3, S) of each triangle, from corners (3 corners, 3, S)."""
    return corners[k, :, np.arange(len(k))].T


def _face_normals(a, b, into, into_other):
    """Unit normals (3, S) of each sharp edge's two faces (spanned by the edge and `into`, `into_other`), each
    on the side away from the other face; an edge on one face: its face's normal (either side) and zero."""
    span = b - a
    span = span / np.maximum(np.sqrt(dot(span, span)), _EPS)
    face, other = cross(span, into), cross(span, into_other)
    one = dot(into_other, into_other) < 0.5  # (one face: into_other is zero)
    face *= np.where(one, 1.0, -np.sign(dot(face, into_other)))
    other *= -np.sign(dot(other, into))
    return face, other


def _rim_faces(mesh, sharp: SharpEdges, radius: float):
    """The unit normals (3, S) the rim rule sees for each sharp edge's two faces (`RIM_SPAN`): among the faces
    reached from the edge's two over at most RIM_SPAN_HOPS shared edges, each staying within `radius` of the edge
    (a corner or the centre), the one whose normal, in the plane across the edge, turns furthest from the other
    face's normal past its own (under 150°). An edge on one face, or folded flat: its own. Once per still mesh
    (a loop over hops only)."""
    face, other = sharp.out_face.copy(), sharp.out_other.copy()
    # Across the edge: e1 the other face's normal, e2 this face's normal square to it (the turn's sense).
    e2 = face - other * dot(face, other)
    size = np.sqrt(dot(e2, e2))
    asked = ((dot(other, other) > 0.5) & (size > 1e-6)).nonzero()[0]
    if not len(asked):
        return face, other
    table = edge_table(mesh.triangles, mesh.vertices)
    triangles = len(mesh.triangles)
    neighbours = np.full((triangles + 1, 3), triangles, dtype=np.int64)  # row `triangles`: none
    pair = (table.counts == 2).nonzero()[0]
    t1, t2 = table.first_t.take(pair), table.second_t.take(pair)
    neighbours[t1, table.first_k.take(pair)] = t2
    neighbours[t2, table.second_k.take(pair)] = t1
    far = np.full((3, 1), _FAR)
    points = [np.concatenate([m, far], axis=1) for m in (mesh.a, mesh.b, mesh.c, (mesh.a + mesh.b + mesh.c) / 3.0)]
    normals = np.concatenate([mesh.normals * mesh.outward, np.zeros((3, 1))], axis=1)  # (outward)
    tri = sharp.tri.take(asked)
    start, end = (m.take(asked, axis=1)[:, :, None] for m in (sharp.a, sharp.b))
    along = sharp.along.take(asked, axis=1)[:, :, None]
    e1f, e2f = other.take(asked, axis=1), e2.take(asked, axis=1) / size.take(asked)
    e1o = face.take(asked, axis=1)
    e2o = e1f - e1o * dot(e1f, e1o)
    e2o /= np.maximum(np.sqrt(dot(e2o, e2o)), _EPS)
    basis = [(e1f[:, :, None], e2f[:, :, None]), (e1o[:, :, None], e2o[:, :, None])]
    best = [np.full(len(asked), -np.inf), np.full(len(asked), -np.inf)]
    found = [face.take(asked, axis=1), other.take(asked, axis=1)]
    wide = np.append(_face_heights(mesh) >= 0.5 * radius, False)
    near_wide = np.zeros(len(asked), dtype=bool)  # (any face within the radius wider across than half of it)
    frontier = tri[:, None]
    for hop in range(RIM_SPAN_HOPS + 1):
        if hop:
            frontier = neighbours[frontier].reshape(len(asked), -1)
            distance = np.min([_to_segment(m[:, frontier], start, end) for m in points], axis=0)
            frontier = np.where(distance <= radius, frontier, triangles)
            frontier = np.sort(frontier, axis=1)  # (each face once a row: repeats to none, then drop all-none columns)
            frontier[:, 1:][frontier[:, 1:] == frontier[:, :-1]] = triangles
            frontier = frontier[:, (frontier < triangles).any(axis=0)]
            if not frontier.shape[1]:
                break
        near_wide |= wide[frontier].any(axis=1)
        g = normals[:, frontier]
        g = g - along * (g * along).sum(axis=0)  # across the edge
        real = (g * g).sum(axis=0) > 0.75  # (faces turned over 30° along the edge, and none, say nothing)
        for side, (e1, e2s) in enumerate(basis):
            turn = np.arctan2((g * e2s).sum(axis=0), (g * e1).sum(axis=0))
            turn = np.where(real & (turn < _RIM_SPAN_MOST), turn, -np.inf)
            column = turn.argmax(axis=1)
            rows = np.arange(len(asked))
            better = turn[rows, column] > best[side]
            best[side] = np.where(better, turn[rows, column], best[side])
            found[side][:, better] = normals[:, frontier[rows, column]][:, better]
    # Only where a face within the radius is wider across than half of it (a bevelled top's top or side): a rod
    # thinner than the cloth's edges has narrow faces all round, which the search wraps round (every rod edge a rim).
    face[:, asked[near_wide]], other[:, asked[near_wide]] = found[0][:, near_wide], found[1][:, near_wide]
    return face, other


def _face_heights(mesh) -> np.ndarray:
    """Each triangle's height over its longest side (twice its area over that side): how wide it is across."""
    sides = [mesh.b - mesh.a, mesh.c - mesh.b, mesh.a - mesh.c]
    longest = np.sqrt(np.max([dot(side, side) for side in sides], axis=0))
    normal = cross(sides[0], -sides[2])
    twice_area = np.sqrt(dot(normal, normal))
    return twice_area / np.maximum(longest, _EPS)


def _to_segment(points, a, b):
    """Distances of points (3, ...) to segments a -> b (broadcast alike)."""
    span = b - a
    u = np.clip(((points - a) * span).sum(axis=0) / np.maximum((span * span).sum(axis=0), _EPS), 0.0, 1.0)
    offset = points - (a + u * span)
    return np.sqrt((offset * offset).sum(axis=0))


def _across(a, b, c) -> np.ndarray:
    """Unit (3, S) directions in each triangle's plane, at right angles to its edge a-b, towards corner c."""
    rim = b - a
    out = c - a
    out -= rim * (dot(out, rim) / np.maximum(dot(rim, rim), _EPS))
    return out / np.maximum(np.sqrt(dot(out, out)), _EPS)


def _ends(corners: np.ndarray, k: np.ndarray):
    """Ends (3, S) of edges k (opposite corner k: corner k+1 to corner k+2) from corners (3 corners, 3, S)."""
    columns = np.arange(corners.shape[2])
    return corners[(k + 1) % 3, :, columns].T, corners[(k + 2) % 3, :, columns].T


def _one_face(sharp: SharpEdges, s) -> np.ndarray:
    """Whether each sharp edge s is on one face only (its `into_other` is left zero)."""
    other = sharp.into_other.take(s, axis=1)
    return (other[0] == 0.0) & (other[1] == 0.0) & (other[2] == 0.0)
