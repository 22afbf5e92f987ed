"""Which of a mesh's edges are sharp for a cloth (the edge pass's, solver/edge_contacts.py): boundary edges,
edges whose faces meet at more than SHARP_ANGLE, and the bends a cloth edge spans enough of to dip through (the rod
rule, the rounded rule, shallow ridges and apexes, tapered sides). The rules' history: docs/design.md, issue 11."""

from __future__ import annotations

import math

import numpy as np

from .edge_topology import EdgeTable, edge_table
from .mesh_collider import MIN_GAP
from .triangles import corner_angles, dot

SHARP_ANGLE = 30.0  # degrees between two faces' normals above which their shared edge is sharp
COS_SHARP = math.cos(math.radians(SHARP_ANGLE))
_EPS = 1e-12

_EMPTY = np.zeros(0, dtype=np.int64)

# ROUNDED_EDGES (a rule, folded in round 24):
# Convex bends rounder than SHARP_ANGLE are sharp too where a cloth edge spans enough of them to dip through
# (`rounded_radius`); without it: only by SHARP_ANGLE and the cloth edge's length (docs/design.md, round 12 (skirt15)).
ROUNDED_MOST = 1.5  # cloth edges: the largest such radius (1.5 × the rod rule's; 4: a 32² cloth made all 9,216
# lengthwise edges of the bench's torus sharp, 14 -> 58 ms a frame, none cut in before)
# ROUNDED_AROUND (a rule, folded in round 24):
# The rounded rule's radius from the vertex normals round each edge too (`_curvature_across`; both it and the two
# faces' own turn must call the bend tight: the vertex normals keep a metaball's slivers out, the faces a box's flat
# diagonals by its corners), so that it holds on still meshes; without it: from the two faces alone, on deforming meshes
# only (docs/design.md, round 13 (rounded16)).
ROUNDED_DIP = 0.5  # of the gap: how far a cloth edge's middle may dip towards the surface
# OPEN_ROUNDED (a rule, folded in round 24):
# Open meshes (a ground, a sheet: no outside) get the rounded rule too, for bends either way, up to the radius at
# which a cloth edge's middle dips the whole gap (`open_rounded_radius`), at most OPEN_ROUNDED_MOST edges: on a
# rising shape-key bump (R 11-13 cm) a jittered cloth's 6.7-8.8 cm edges, their ends 1-5 mm over the ground, dipped
# 1.5-3.7 mm under it, just past ROUNDED_MOST's cap. Closed meshes keep ROUNDED_MOST: there the wider cap made a coarse
# cloth's whole smooth ball sharp, and the cloth slid off it (docs/design.md, round 13 (rounded16), round 15 (bump18)).
OPEN_ROUNDED_MOST = 4.0

# SHALLOW_RIDGES (a rule, folded in round 24):
# Shallow ridges: on an open mesh, edges between two faces bending under SHARP_ANGLE are sharp too where a cloth edge
# across them, its ends the gap off their faces, dips through the ridge ((L / 2) tan(θ / 2) over the gap, L the rod
# rule's radius, the lever at most the narrower face's width): a 12-segment open dome's 22.5-29° ridges are such for
# a 24² 2 m cloth's 8.7-12.3 cm edges, though round its r 0.5 such a cloth edge dips 2-4 mm (under the gap: not the
# rounded rule's). They are braked edges. A closed mesh's convex ones too with CLOSED_RIDGES. Docs: design.md,
# round 16 (dome19). (Named OPEN_RIDGES until round 17.)
# SHALLOW_APEXES (a rule, folded in round 24):
# ... and so are the bent edges (over 1°) at an apex, a vertex whose faces turn from their mean by more than such a
# cloth edge across it allows ((L / 2) tan(turn) over the gap, the lever at most its faces' heights from it): the open
# dome's pole, its 12 faces turning 11° (6° between neighbours), poked through the 24² cloth's middle (a closed
# mesh's with CLOSED_RIDGES, at CLOSED_APEX_DIP). (Named OPEN_APEXES until round 17.)

# CLOSED_RIDGES (a rule, folded in round 24):
# A closed mesh's convex shallow ridges and apexes are sharp (and braked) too (with SHALLOW_RIDGES, SHALLOW_APEXES),
# with its own gap (`rounded_radius`: half the gap,
# at least L / 12): a low-poly ball (an icosphere, a decimated or 8-12-segment UV sphere) meets at 20-28°, under
# SHARP_ANGLE, and is too wide for the rounded rule, so a 20² cloth pushed 6-89 edges up to 11 mm through it
# (Blender's Cloth: 0; docs/design.md, probed scenes (sixteenth round), `bench/lowpoly_spheres.py`).
# (a closed mesh's apexes only where such a cloth edge dips the whole gap, not half: a spherified cube of r 0.2,
# its vertices turning ~10°, was all sharp at half, and a curtain it appeared round swung 31 cm out, not 23)
CLOSED_APEX_DIP = 2.0
# ... or where such a cloth edge (its lever the longest cloth edge's half) dips CLOSED_APEX_GAP gaps, whichever is
# less: the dip above is max(gap, L / 6) (L the longest cloth edge), so for a coarse cloth it asked a turn over
# atan(1 / 3) (18°) whatever the gap, and the 320-triangle icosphere's vertices (10°) were not sharp for a 20² 1.4 m
# cloth (10.4 cm diagonals: 9.0-9.7 mm of lever × tan(turn) against a 5 mm gap): 2-28 of its edges through (quad,
# triangulated, irregular). The spherified cube's under the curtain's 5.9 cm diagonals: 2.9-6.8 mm. Never under
# the ridges' own dip (max(gap / 2, L / 12), the rounded rule's cap): at a 2 mm gap 1.5 gaps made the whole torus
# (3,072 triangles) sharp for 6 cm cloth edges. 0: off.
# One threshold, two bounds: clip(CLOSED_APEX_GAP × gap, dip, CLOSED_APEX_DIP × dip), dip the ridges' (the gap unknown:
# CLOSED_APEX_DIP × dip). Both constants bind: without the cap the 80-triangle icosphere's sharp edges go 120 -> 60
# for 6 cm cloth edges at a 5 mm gap, the 8 × 6 UV ball's 88 -> 72 (docs/design.md, round 18 (tidy21)).
CLOSED_APEX_GAP = 1.5
# ... and, for the cloth edges long enough, where a cloth edge across it (its lever its own half) dips
# CLOSED_APEX_NEAR gaps, i.e. goes through the faces: such an edge is sharp only for the cloth edges at least as long
# as that asks (`SharpEdges.least`), so a cloth with long edges in one place (a fan disc's rim) makes the mesh sharp
# for those alone. The 320-triangle icosphere's vertices (10° turns) under a fan disc's 7.1 cm edges (6.3 mm dips
# at a 5 mm gap; 1.5 gaps left 2-31 of its edges through). 0: off (docs/design.md, round 19 (fan22)).
CLOSED_APEX_NEAR = 1.0

# CLOSED_RIDGE_GAP (a rule, folded in round 24):
# A closed mesh's convex shallow ridges are sharp where such a cloth edge (lever L / 2, L the longest cloth edge),
# its ends the gap off the faces, dips half the gap under the ridge ((L / 2) tan(θ / 2) > gap / 2, the rounded
# rule's ROUNDED_DIP), without the rounded rule's L / 12 floor on that dip: with it, a 24 × 12 UV ball (r 0.15, its
# faces meeting at 15°) was not sharp at all for a triangulated 20² 1.2 m cloth (8.9 cm diagonals: 5.9 mm across a
# ridge, past the 5 mm gap, against the floor's 7.4 mm), which kept 6-18 edges up to 2.6 mm through it; a jittered
# cloth on a mirrored, squashed one 6-8, a 32² cloth on the torus 16-25 (docs/design.md, round 19 (uvball22)). The
# apexes keep their dip (CLOSED_APEX_GAP).
CLOSED_RIDGE_DIP = 0.5  # (gaps: the dip asked; 1: the whole gap, through the faces)
# TAPERED_SIDES (a rule, folded in round 24):
# A still mesh's edges between faces that bend at all (over 1°) and that end at a pointed corner (a cone's or a
# spike's sides) are sharp for any cloth: the sides narrow to nothing at the point, so near it they are thinner
# than a cloth edge whatever their bend (a cone r 5 cm, 32 segments, meets at 11°), and a cloth hanging from
# the point folded through them (docs/design.md, round 12 (needle15)).
_COS_TAPER_BEND = math.cos(math.radians(1.0))


def _sharp_edges(
    triangles, vertices, normals, heights, radius: float = 0.0, table: EdgeTable | None = None,
    rounded: float = 0.0, outward: int = 0, gap: float = 0.0,
):  # fmt: skip
    """(triangle, k) of each sharp edge once: on one face, on more than two, or between two faces
    whose unit normals (3, T) differ by more than SHARP_ANGLE, or that bend round a curvature radius
    below `radius` (a rod, a rail, a thin ring thinner than a cloth edge: its edges meet at 11-23°,
    but the cloth's edges span it) or, convex on a closed mesh (`outward`: +1 or -1, the side its normals
    face; either way on an open one, 0), `rounded` (never thin: see `rounded_radius`). Vertices at the same
    place count as one (split normals or UV seams are no boundary). heights (3, T): each corner's height
    above the opposite edge. Also the other face of an edge between two (its triangle and the edge's k
    there), else -1. Last, which are braked (`SharpEdges.braked`): sharp by the `rounded` bend or the shallow ridges
    alone (a closed mesh: by its convex shallow ridges alone).
    table: the triangles' `EdgeTable` when known (a deforming mesh keeps it). gap: the distance kept from the
    mesh (0: unknown; a closed mesh's apexes then by CLOSED_APEX_DIP alone)."""
    if len(triangles) == 0:
        none = np.zeros(0, dtype=bool)
        return _EMPTY, _EMPTY, _EMPTY, _EMPTY, none, none, np.zeros(0), none
    still = table is None
    if table is None:
        table = edge_table(triangles, vertices)
    sharp = table.counts != 2
    pair = (~sharp).nonzero()[0]
    t1, t2 = table.first_t.take(pair), table.second_t.take(pair)
    cos = dot(normals.take(t1, axis=1), normals.take(t2, axis=1))
    bent = cos < COS_SHARP
    angles = None
    if radius > 0.0 and still and len(pair):
        angles = corner_angles(*(vertices.take(triangles[:, k], axis=0).T for k in range(3)))
        bent |= _tapered(normals, table, pair, angles) & (cos < _COS_TAPER_BEND)
    thin = np.zeros(len(sharp), dtype=bool)
    braked = np.zeros(len(sharp), dtype=bool)
    least = np.zeros(len(sharp))
    ends_only = np.zeros(len(sharp), dtype=bool)
    if max(radius, rounded) > 0.0:
        # The faces' widths across the edge w (the lesser height) and the bend theta between them: a
        # polygon of sides w bending theta at each corner has a circumradius w / (2 sin(theta / 2)) (an
        # n-gon rod of radius r: exactly r).
        one, other = heights[table.first_k.take(pair), t1], heights[table.second_k.take(pair), t2]
        narrow, wide = np.minimum(one, other), np.maximum(one, other)
        half_sine = np.sqrt(np.maximum(0.5 * (1.0 - cos), 0.0))
        bend = 2.0 * radius * half_sine
        bent |= narrow < bend
        if rounded > 0.0:
            tight = (narrow < 2.0 * rounded * half_sine) & ~bent
            convex = None
            if outward:  # convex: the second face's far corner lies inside the first face's plane
                far = vertices.take(triangles[t2, table.second_k.take(pair)], axis=0)
                on_first = vertices.take(triangles[t1, table.first_k.take(pair)], axis=0)
                convex = dot((far - on_first).T, normals.take(t1, axis=1)) * outward < 0.0
                tight &= convex
            # (an open mesh: convex from either side, the cloth may lie on either)
            if tight.any():  # (asked only where the faces' own turn says tight: few edges)
                if angles is None:
                    angles = corner_angles(*(vertices.take(triangles[:, k], axis=0).T for k in range(3)))
                asked = tight.nonzero()[0]
                curvature = _curvature_across(triangles, vertices, normals, table, pair.take(asked), angles)
                tight[asked] = (curvature * outward if outward else np.abs(curvature)) * rounded > 1.0
            if radius > 0.0:
                # A ridge between two faces wide enough for a cloth edge's ends (the radius's half each side):
                # a cloth edge across it with both ends the gap off their faces dips (L / 2) tan(θ / 2) under
                # it, whatever the surface's curvature round it (see SHALLOW_RIDGES; a closed mesh's convex ones:
                # CLOSED_RIDGES).
                lever = np.minimum(0.5 * radius, narrow)
                dip = radius * radius / (8.0 * rounded)  # (the gap `open_rounded_radius` was given, or L / 32)
                half_cosine = np.sqrt(np.maximum(0.5 * (1.0 + cos), _EPS))
                ridge = lever * half_sine > dip * half_cosine
                gapped = None
                if outward and gap > 0.0:  # (see CLOSED_RIDGE_GAP: no L / 12 floor; `gapped` is `ridge`, grown below)
                    ridge = gapped = lever * half_sine > min(dip, CLOSED_RIDGE_DIP * gap) * half_cosine
                if angles is None:
                    angles = corner_angles(*(vertices.take(triangles[:, k], axis=0).T for k in range(3)))
                apex_dip = dip
                if outward:
                    apex_dip *= CLOSED_APEX_DIP
                    if CLOSED_APEX_GAP > 0.0 and gap > 0.0:  # (never under the ridges' dip: see CLOSED_APEX_GAP)
                        apex_dip = max(min(apex_dip, CLOSED_APEX_GAP * gap), dip)
                apex = _at_apexes(normals, heights, table, pair, angles, 0.5 * radius, apex_dip)[0]
                near = None
                if outward and CLOSED_APEX_NEAR > 0.0 and gap > 0.0:  # (CLOSED_APEX_NEAR)
                    near_dip = max(min(dip * CLOSED_APEX_DIP, CLOSED_APEX_NEAR * gap), dip)
                    if near_dip < apex_dip:
                        near, need = _at_apexes(normals, heights, table, pair, angles, 0.5 * radius, near_dip)
                        near &= ~(apex | ridge | bent | tight) & (cos < _COS_TAPER_BEND)
                ridge |= apex & (cos < _COS_TAPER_BEND)
                if near is not None:
                    if convex is not None:
                        near &= convex
                    least[pair] = np.where(near, 2.0 * need, 0.0)
                    # (OUTSIDE_ENDS_ONLY: the apexes' alone, not the ridges' by the gap)
                    ends_only[pair] = near if gapped is None else near & ~gapped
                    ridge |= near
                if convex is not None:
                    ridge &= convex
                    braked[pair] = ridge & ~bent & ~tight  # (a closed mesh's: the ridges alone)
                tight |= ridge & ~bent
            bent |= tight
            if not outward:
                braked[pair] = tight
        # Thin: the same with the wider face's width, both faces narrow across the edge (a rod's or a
        # bar's side, where a cloth hangs on one ridge; not a table's rim, a 4 cm side face by its top).
        thin[pair] = wide < bend
    sharp[pair] = bent
    which = sharp.nonzero()[0]
    return (table.first_t.take(which), table.first_k.take(which), table.second_t.take(which),
            table.second_k.take(which), thin.take(which), braked.take(which), least.take(which),
            ends_only.take(which))  # fmt: skip


def _at_apexes(normals, heights, table: EdgeTable, pair, angles, lever: float, dip: float):
    """Which edges `pair` (of `table`, two faces each) end at an apex (see SHALLOW_APEXES): a vertex whose
    faces' normals turn from their mean (weighted by their corner angles) by more than a cloth edge across it, its
    ends `lever` (at most the faces' heights from the vertex) out and the gap off the faces, lets it dip (`dip`).
    Also each such edge's least lever that dips so at one of its apex ends (inf at none)."""
    corners = _corners_in_order(table)
    ids = corners.ravel()
    corner_normals = normals.take(np.repeat(np.arange(len(ids) // 3), 3), axis=1)
    mean = _vertex_normals(normals, table, ids, angles)
    cos = dot(corner_normals, mean.take(ids, axis=1))
    order = np.argsort(ids, kind="stable")
    starts = np.flatnonzero(np.diff(ids.take(order), prepend=-1))
    first = ids.take(order.take(starts))
    least = np.ones(table.places)  # each vertex's least cos between a face normal and their mean
    least[first] = np.minimum.reduceat(cos.take(order), starts)
    reach = np.full(table.places, lever)  # and the least height of its faces from it, up to `lever`
    reach[first] = np.minimum(np.minimum.reduceat(heights.T.ravel().take(order), starts), lever)
    sine = np.sqrt(np.maximum(1.0 - least * least, 0.0))
    apex = reach * sine > dip * least
    need = np.where(apex, dip * least / np.maximum(sine, _EPS), np.inf)
    t1, k1 = table.first_t.take(pair), table.first_k.take(pair)
    one, other = corners[t1, (k1 + 1) % 3], corners[t1, (k1 + 2) % 3]
    return apex.take(one) | apex.take(other), np.minimum(need.take(one), need.take(other))


def _corners_in_order(table: EdgeTable) -> np.ndarray:
    """The table's place of each triangle corner (T, 3), in the order the triangles were given (a kept table's
    rows are not)."""
    if table.place is None:
        return table.ids
    corners = np.empty_like(table.ids)
    corners[table.place] = table.ids
    return corners


def _vertex_normals(normals, table: EdgeTable, ids, angles) -> np.ndarray:
    """Unit normals (3, places) at the table's places: the faces' normals (3, T) weighted by their corner angles
    (T, 3), so a sliver adds little; ids: `_corners_in_order(table).ravel()`."""
    weights = angles.ravel()
    summed = np.stack(
        [np.bincount(ids, weights=weights * np.repeat(normals[axis], 3), minlength=table.places) for axis in range(3)]
    )
    return summed / np.maximum(np.sqrt(dot(summed, summed)), _EPS)


def _tapered(normals, table: EdgeTable, pair, angles) -> np.ndarray:
    """Which edges `pair` (of `table`, two faces each) end at a pointed corner (corner_contacts.pointed_mask);
    angles (T, 3): the triangles' corner angles."""
    from .corner_contacts import pointed_mask

    sorting = (table.corner_order, table.corner_starts)
    pointed = pointed_mask(table.ids, normals, table.places, angles, sorting=sorting)
    t, k = table.first_t.take(pair), table.first_k.take(pair)
    ends = table.ids.ravel()
    return pointed.take(ends.take(t * 3 + (k + 1) % 3)) | pointed.take(ends.take(t * 3 + (k + 2) % 3))


def _curvature_across(triangles, vertices, normals, table: EdgeTable, pair, angles) -> np.ndarray:
    """Each edge's (`pair`, two faces each) curvature across it, from the surface round it rather than its two
    faces: the normal curvature between the two faces' far corners, (n_k - n_l) · d / |d|², d their offset
    across the edge (along it removed), n their vertex normals (the faces' normals weighted by their corner
    angles, so a sliver adds little). Positive where it bends towards the normals' back (convex for outward
    normals). Exact on a sphere and round a regular polygon's corners whatever the triangles; the two faces'
    own turn over the narrower one's width read a still metaball's slivers as tight bends (ROUNDED_AROUND)."""
    corners = _corners_in_order(table)
    ids = corners.ravel()
    vertex_normals = _vertex_normals(normals, table, ids, angles)
    places = np.zeros((3, table.places))
    places[:, ids] = vertices.take(triangles.ravel(), axis=0).T
    t1, k1 = table.first_t.take(pair), table.first_k.take(pair)
    start, end = corners[t1, (k1 + 1) % 3], corners[t1, (k1 + 2) % 3]
    near, far = corners[t1, k1], corners[table.second_t.take(pair), table.second_k.take(pair)]
    along = places[:, end] - places[:, start]
    along /= np.maximum(np.sqrt(dot(along, along)), _EPS)
    offset = places[:, near] - places[:, far]
    offset -= dot(offset, along) * along
    turn = vertex_normals[:, near] - vertex_normals[:, far]
    return dot(turn, offset) / np.maximum(dot(offset, offset), _EPS)


# Pairs of (sharp edge, triangle) up to which `_hidden` looks for sharp edges inside another part (a
# mesh with more keeps them all: the test costs ~0.1 s per million).
_HIDDEN_BUDGET = 4_000_000


def _hidden(mesh, a, b, into, into_other) -> np.ndarray:
    """Sharp edges of a closed mesh that cloth cannot reach: just off the edge's middle, on the side away
    from its faces, lies inside the mesh (another part's volume), e.g. a table leg's top edges in the
    plane of the top's underside, which pushed cloth into the top (docs/design.md, round 8 (edgehold9))."""
    out = -(into + into_other)
    return inside_just_off(mesh, 0.5 * (a + b), out / np.maximum(np.sqrt(dot(out, out)), _EPS))


def inside_just_off(mesh, points, out) -> np.ndarray:
    """Whether points (3, P) moved 1e-5 of the mesh's size along unit directions `out` (3, P) lie inside
    the closed mesh, by the generalised winding number (solid angles): ~1 inside, ~0 outside. All False
    past _HIDDEN_BUDGET point-triangle pairs."""
    count = points.shape[1]
    if count == 0 or count * len(mesh) > _HIDDEN_BUDGET:
        return np.zeros(count, dtype=bool)
    finite = mesh.vertices[np.isfinite(mesh.vertices).all(axis=1)]  # (a broken vertex's triangles are dropped)
    size = float(np.sqrt(np.sum((finite.max(axis=0) - finite.min(axis=0)) ** 2))) if len(finite) else 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        probe = points + out * (1e-5 * size)
        winding = np.zeros(count)
        step = max(1, _HIDDEN_BUDGET // (16 * len(mesh)))
        for first in range(0, count, step):  # (chunks: ~16 x the triangles' size in temporaries)
            p = probe[:, first : first + step, None]
            corners = [m[:, None, :] - p for m in (mesh.a, mesh.b, mesh.c)]
            lengths = [np.sqrt((m * m).sum(axis=0)) for m in corners]
            u, v, w = corners
            volume = (u * (v[[1, 2, 0]] * w[[2, 0, 1]] - v[[2, 0, 1]] * w[[1, 2, 0]])).sum(axis=0)
            below = lengths[0] * lengths[1] * lengths[2]
            below += (u * v).sum(axis=0) * lengths[2] + (u * w).sum(axis=0) * lengths[1]
            below += (v * w).sum(axis=0) * lengths[0]
            winding[first : first + step] = np.arctan2(volume, below).sum(axis=1) / (2.0 * np.pi)
        return np.abs(winding) > 0.5


def rounded_radius(edge: float, gap: float) -> float:
    """The curvature radius below which a collider's bends are sharp for cloth edges of length `edge` kept
    `gap` off it: an edge lying round a bend of radius r dips edge² / (8 r) between its ends, so its middle
    comes within half the gap of the surface below edge² / (4 gap) (a skirt's 5 cm hem edges cut 1-3 mm into
    8.5 cm legs whose 16 faces meet at 22.5°; docs/design.md, round 12 (skirt15)). At most ROUNDED_MOST
    edges (at thickness 0 every bend would be sharp, and a coarse cloth made a whole torus sharp)."""
    if edge <= 0.0:
        return 0.0
    return min(edge * edge / (8.0 * ROUNDED_DIP * max(gap, MIN_GAP)), ROUNDED_MOST * edge)


def open_rounded_radius(edge: float, gap: float) -> float:
    """`rounded_radius` for open meshes: bends round which a cloth edge of length `edge` dips the whole gap,
    edge² / (8 gap), at most OPEN_ROUNDED_MOST edges (see OPEN_ROUNDED)."""
    if edge <= 0.0:
        return 0.0
    return min(edge * edge / (8.0 * max(gap, MIN_GAP)), OPEN_ROUNDED_MOST * edge)
