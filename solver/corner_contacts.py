"""Contacts between a mesh collider's pointed corners and cloth triangles (Bridson et al. 2002).

The vertex pass keeps cloth vertices off the collider and the edge pass keeps cloth edges off its
sharp edges, but a cone's tip, a pyramid's apex or a box's corner can still come up through the
middle of a cloth triangle: the cloth's vertices slide down its sides and the cloth ends skewered.
This pass is the mirror of the vertex pass for the collider's *pointed* vertices (`pointed_corners`):
a corner whose projection lies in a cloth triangle (or that passed through it in the substep) and
which ends closer than the gap to it on the side it started on, or on the other side, pushes the
triangle's three vertices along the triangle's normal, weighted by its barycentrics and inverse
masses, so the corner ends at the gap; a corner under a ridge of tented cloth (projecting into
neither triangle) does the same with the cloth edge there. With Coulomb friction, the part of the push
that clears what was within the gap at the start carried to the start (no bounce), and a few Jacobi
iterations (as solver/edge_iterations.py). Still and rigid colliders; a collider without pointed
corners (a smooth torus or ball) pays nothing.
Measured in docs/design.md ("Round 8 (corners9)").
"""

from __future__ import annotations

import math
import weakref
from typing import NamedTuple

import numpy as np

from .clearance import Clearance
from .contact import add_averaged, combined_friction, vertex_places
from .contact_support import propagate_support
from .corner_support import support_hanging, support_plan
from .edge_contacts import clamp, sharp_of, squared_stray, up_of_gravity
from .mesh_collider import MIN_GAP, MeshCollider, _from_frame, _to_frame, as_columns
from .triangles import corner_angles, cross, dot
from .vectors import rows_among

# A vertex is pointed when one of its faces' normals is further than this from their mean: a cube's
# corner (54.7°), a cone's or pyramid's apex (90° - its half-angle), not a box edge's vertex (45°, the
# edge pass's) nor a smooth mesh's (a few degrees).
POINTED_ANGLE = 50.0
_COS_POINTED = math.cos(math.radians(POINTED_ANGLE))
# A sharp tip: a pointed corner whose faces turn more than this from their mean (a needle's or a spike's
# tip; not a cube's corner, 54.7°): its faces carry no cloth, which hangs from the tip alone, and the support
# propagation (contact_support) runs from its overloaded contacts only (a table's corners paid 25-50 %).
SHARP_TIP_ANGLE = 60.0
_COS_SHARP_TIP = math.cos(math.radians(SHARP_TIP_ANGLE))
# After each pass and hold with contacts, the cloth's stretch beyond the vertices a corner holds up goes to
# the cloth further out (solver/contact_support.py): a needle's tip held a falling cloth (robust12).
# The other pointed corners (a table's or a box's, not a tip's shoulders) support the cloth hanging from them
# after every pass and hold, from all their contacts (solver/corner_support.py): a tablecloth's corners hung
# 40-90 % stretched (docs/design.md, round 14 (corner17)). Still meshes only, and the hanging cloth's pull handed on
# to the cloth on the top (corner_support.py): without it cloth that must slide off a box stayed on it (round 15).
# The propagation starts from each overloaded contact's nearest cloth vertex (its largest barycentric), not
# all three: the contact triangle's other two hung 3 cm under it on a 64² cloth, their edges to it 50-70 %
# stretched and never shortened (both ends held), and the tip went through (round 11, needle13).
# A still mesh's vertices that share a face with a sharp tip (a 1 cm rod's shoulder ring, 1 cm below its point)
# are corners too: the cloth tented from the tip drapes its triangles over them, wider than the rod, and a
# shoulder vertex came up through a triangle's middle, where neither the edge pass (no cloth edge near) nor
# the vertex pass sees it (docs/design.md, round 13 (needle16)).
# A sharp tip's face contacts push along the cloth's smooth normal there (its vertex normals interpolated),
# as far as clears the flat triangle: the flat normal of a tent's steep side slid the vertex sitting on a
# needle's tip sideways off it (5-10 mm a substep on a 64² cloth).
# A still mesh's vertices where sides thinner than the cloth's edges (`SharpEdges.thin`, for the cloth's radius) meet
# other sharp edges (a flat-topped post's cap rim, an open tube's rim) are corners and sharp tips for that cloth: a
# cap smaller than a cloth triangle sits inside it, so neither a cloth vertex nor a cloth edge meets it, its rim
# vertices spread in one plane (not pointed), and 15 of 18 cloths dropped on 1-2 cm posts ended skewered
# (docs/design.md, round 14 (posts17)). Found per cloth radius (the edge pass's sharp edges); they are sharp tips too
# (support propagation, smooth normals). (These rules' switches, from SUPPORT_PROPAGATION to ROD_END_TIPS and
# ROUND_POINTS, folded in round 24 (flags24).)
# The pass's gap at most this x `longest` (twice the cloth's longest triangle edge at rest): a cloth whose Thickness
# is more than its edges wraps a box's corner at the gap, its triangles chords of that ball, every one of them within
# the gap of the corner and pushed along its own normal; a 1 m 24² cloth (49 mm edges) at Thickness 98 mm on a 0.3 m
# cube ended 184 % stretched, 98 edges through (bench/thick_cloth.py; docs/design.md, issue 11, round 22 (thick26)).
# The vertex pass still keeps the cloth's vertices the whole gap from the corner. None: the gap uncapped.
THICK_GAP_CAP: float | None = 0.25
# Only a rod's upper ends (its thin edges leave them within this of gravity's way: a post's top, not its foot on the
# floor, a round-legged table's feet or a pyramid's base corners).
ROD_END_ANGLE = 60.0
_COS_ROD_END = math.cos(math.radians(ROD_END_ANGLE))
# Only rods whose radius is under this x the cloth's longest edge (the edge pass's thin rule: 1). 0.3 in round 14:
# a 2 cm post under a 64² cloth (4.4 cm diagonals, 0.44) flung it 14-28 cm up with its ends as tips; with the support
# on hanging edges only (contact_support, `_HANGING`) and the sides' pass (edge_contacts.ROD_ENDS_TIPPED) it hangs
# from the cap, 0 crossings at every frame, where before it ended on the floor skewered (round 15, fling18).
ROD_END_RADIUS = 0.5
# (Deleted in round 27 (switchdebt_r27), aab9675 reproduces them: DROP_INWARD, a contact whose push leant into the
# mesh against its corner's mean normal while its cloth point lay outside dropped; DROP_INWARD_UP_ONLY, at corners
# facing up only; SKIP_COVERED / COVERED_WITHIN, a closed mesh's pointed vertex lying on another loose part of it no
# corner. They fixed the chair's quad and fan but put vertices inside where main keeps them out, on the chair, in
# three rounds (docs/design.md, rounds 23-25 (chair23b, chair24, chair25); docs/switches.md rows 2, 3, 15).)
_LEAST_COS = 0.3  # (a smooth normal further than this from the flat one: the flat one)
_OVERLOADED = 1.0  # gaps: a contact deeper than this (the corner through the cloth, not only in its gap) bears
_ITERATIONS = 4  # Jacobi passes over the contacts found (1 or 2 left a pyramid rising into cloth through it)
_REFRESH = 0.5  # of half a skin (see _CornerList.pairs)
_EPS = 1e-12
_EMPTY = np.zeros(0, dtype=np.int64)
_NEXT_VERTEX = np.array([1, 2, 0])  # each cloth triangle edge's second vertex (edges 0-1, 1-2, 2-0)


def pointed_corners(
    vertices: np.ndarray, triangles: np.ndarray, normals: np.ndarray, mesh=None, tips=False, means=False
):  # fmt: skip
    """(3, C) places of the mesh's pointed vertices (see POINTED_ANGLE; vertices at one place count as one);
    tips: and which of them are sharp tips (see SHARP_TIP_ANGLE); means (with tips): and their faces' mean
    normals, (3, C).

    With `mesh` (closed, its TriangleMesh) not those whose outside lies inside another part of it: a
    table leg's top corners in the plane of the top's underside (as edge_contacts' hidden sharp edges)."""
    if len(triangles) == 0:
        if means:
            return np.zeros((3, 0)), np.zeros(0, dtype=bool), np.zeros((3, 0))
        return (np.zeros((3, 0)), np.zeros(0, dtype=bool)) if tips else np.zeros((3, 0))
    places, weld = np.unique(vertices, axis=0, return_inverse=True)
    ids = weld.reshape(-1).take(triangles)
    angles = corner_angles(*(vertices.take(triangles[:, k], axis=0).T for k in range(3)))
    pointed, mean, tip = pointed_mask(ids, normals, len(places), angles, with_mean=True, with_tips=True)
    which = pointed.nonzero()[0]
    if mesh is not None and mesh.outward and len(which):
        from .edge_contacts import inside_just_off

        hidden = inside_just_off(mesh, places[which].T, mean.take(which, axis=1) * mesh.outward)
        which = which.take((~hidden).nonzero()[0])
    points = np.ascontiguousarray(places[which].T)
    if means:
        return points, tip.take(which), mean.take(which, axis=1)
    return (points, tip.take(which)) if tips else points


# A point whose faces turn less than POINTED_ANGLE from their mean but all round it (a cone's tip of half-angle
# 45°, an 8-segment rod's point: 45°, a box edge's vertex's angle) is a corner and a sharp tip too: its faces'
# normals spread across their mean more than a cone's of ROUND_ANGLE would in its lesser direction (a box
# edge's vertex spreads in one plane: 0; a 16-segment rod's cap rim 0.02, an 8-segment one's 0.08, a 45°
# point 0.27). Before, every cloth hanging on a 45° point was skewered (round 11, needle13).
_ROUND_SPREAD = 0.5 * math.sin(math.radians(40.0)) ** 2  # (0.21: a cone of half-angle 50° all round)
_COS_ROUND = math.cos(math.radians(40.0))


def _spread_all_round(ids, corner_normals, weights, mean, n):
    """Per vertex, the lesser spread of its faces' normals across their mean (the smaller nonzero eigenvalue
    of their weighted tangential scatter): a cone's tip spreads all round, a box edge's vertex in one plane."""
    t = corner_normals - mean.take(ids, axis=1) * dot(corner_normals, mean.take(ids, axis=1))
    total = np.maximum(np.bincount(ids, weights=weights, minlength=n), _EPS)
    s = {}
    for i, j in ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)):
        s[i, j] = np.bincount(ids, weights=weights * t[i] * t[j], minlength=n) / total
    trace = s[0, 0] + s[1, 1] + s[2, 2]
    minors = s[0, 0] * s[1, 1] - s[0, 1] ** 2 + s[0, 0] * s[2, 2] - s[0, 2] ** 2 + s[1, 1] * s[2, 2] - s[1, 2] ** 2
    return 0.5 * (trace - np.sqrt(np.maximum(trace * trace - 4.0 * minors, 0.0)))


def pointed_mask(ids, normals, n: int, angles, with_mean=False, sorting=None, with_tips=False):
    """Which of n vertices are pointed, for triangles (T, 3) of vertex ids with unit normals (3, T) and
    interior angles (T, 3) (each face's normal weighs by its angle at the vertex, so how a face is split
    into triangles does not move the mean: a fan-capped cylinder's rim is not pointed, and a triangulated
    cube's corners are all alike; with_mean: and the unit mean of each vertex's faces' normals, (3, n);
    sorting: the corners sorted by id and where each id starts there, when kept; with_tips: and last which
    are sharp tips, SHARP_TIP_ANGLE or pointed by their normals' spread all round alone (a 45° point))."""
    ids = ids.ravel()  # each triangle corner's vertex
    corner_normals = normals.take(np.repeat(np.arange(len(ids) // 3), 3), axis=1)
    weights = angles.ravel()
    mean = np.stack([np.bincount(ids, weights=corner_normals[k] * weights, minlength=n) for k in range(3)])
    mean = mean / np.maximum(np.sqrt(dot(mean, mean)), _EPS)
    cos = dot(corner_normals, mean.take(ids, axis=1))
    least = np.full(n, 2.0)  # each vertex's least cos between a face normal and their mean
    if sorting is None:
        order = np.argsort(ids, kind="stable")
        starts = np.flatnonzero(np.diff(ids.take(order), prepend=-1))
    else:
        order, starts = sorting
    least[ids.take(order.take(starts))] = np.minimum.reduceat(cos.take(order), starts)
    pointed = least < _COS_POINTED
    tips = least < _COS_SHARP_TIP
    # (the lesser spread is at most half the tangential spread: faces < 40° from the mean cannot reach it)
    candidate = ~pointed & (least < _COS_ROUND)
    if candidate.any():
        at = candidate.take(ids).nonzero()[0]
        spread = _spread_all_round(ids.take(at), corner_normals.take(at, axis=1), weights.take(at), mean, n)
        round_point = candidate & (spread > _ROUND_SPREAD)
        pointed |= round_point
        tips |= round_point
    found = (pointed, mean) if with_mean else (pointed,)
    if with_tips:
        found = (*found, tips)
    return found if len(found) > 1 else found[0]


class _Corners:
    """A mesh's pointed corners and, per cloth, a Verlet list of (corner, cloth triangle) pairs.

    With `collider` (deforming, `mesh` its end shape): the end shape's pointed corners (welded as its kept
    edge table; none culled as hidden), `points0` where they were at the frame's start and `motion` the
    farthest any moves in the frame (the list is made afresh each frame, its boxes grown by that)."""

    def __init__(self, mesh, collider=None):
        self.lists: list[_CornerList] = []
        self.motion = 0.0
        self.tips = np.zeros(0, dtype=bool)  # which corners are sharp tips (SHARP_TIP_ANGLE)
        self.ends = np.zeros(0, dtype=bool)  # which are thin rods' ends (only in `_with_rod_ends`)
        self.key = b""  # (`_with_rod_ends`: which ends)
        self.carries = np.zeros(0, dtype=bool)  # which carry the cloth hanging from them (corner_support)
        self.normals = np.zeros((3, 0))  # (3, C) the mean normal of each corner's faces (still meshes')
        # (3, C) APEX_CORNERS' apexes' mean normals out of the mesh, of length 1 / tan(their turn) (0: another corner),
        # or None: no apexes. Such a corner is kept on its outside of a cloth triangle, or of a cloth edge under it,
        # whatever side it started the substep on.
        self.outs: np.ndarray | None = None
        if mesh is None:  # (none)
            self.points = self.points0 = np.zeros((3, 0))
            return
        if collider is None:
            found = pointed_corners(mesh.vertices, mesh.triangles, mesh.normals, mesh, tips=True, means=True)
            self.points, self.tips, self.normals = found
            self.carries = ~self.tips  # (not a tip's shoulders below)
            if self.tips.any():
                shoulders = _shoulders(mesh.vertices, mesh.triangles, self.points, self.tips)
                self.points = np.ascontiguousarray(np.concatenate([self.points, shoulders], axis=1))
                self.tips = np.concatenate([self.tips, np.zeros(shoulders.shape[1], dtype=bool)])
                self.carries = np.concatenate([self.carries, np.zeros(shoulders.shape[1], dtype=bool)])
                self.normals = np.concatenate([self.normals, np.zeros(shoulders.shape)], axis=1)
            self.points0 = self.points
            self.ends = np.zeros(len(self.tips), dtype=bool)
            return
        from .edge_topology import kept_edge_table

        table = kept_edge_table(mesh)  # (its ids numbered as the triangles were given: `place` maps them)
        normals = mesh.normals if table.place is None else mesh.normals.take(table.place, axis=1)
        sorting = (table.corner_order, table.corner_starts)
        which, tip = _EMPTY, np.zeros(0, dtype=bool)
        if table.places:
            angles = corner_angles(mesh.a, mesh.b, mesh.c)
            angles = angles if table.place is None else angles.take(table.place, axis=0)
            pointed, tip = pointed_mask(table.ids, normals, table.places, angles, sorting=sorting, with_tips=True)
            which = pointed.nonzero()[0]
        self.tips = tip.take(which)
        self.ends = np.zeros(len(which), dtype=bool)
        self.carries = np.zeros(len(which), dtype=bool)  # (a deforming mesh's corners: none)
        flat = table.ids.ravel()
        slot = np.empty(table.places, dtype=np.int64)
        slot[flat] = np.arange(len(flat))  # a triangle corner at each welded vertex
        t, k = np.divmod(slot.take(which), 3)
        if table.place is not None:
            t = table.place.take(t)
        self.points = np.ascontiguousarray(mesh.vertices.take(mesh.triangles.reshape(-1).take(t * 3 + k), axis=0).T)
        rows = collider._corner_rows.take(t, axis=0)  # (C, 18): the triangles' corners at the start first
        self.points0 = np.ascontiguousarray(np.take_along_axis(rows, 3 * k[:, None] + np.arange(3), axis=1).T)
        if len(which):
            self.motion = float(np.sqrt(dot(self.points - self.points0, self.points - self.points0).max()))

    def __len__(self) -> int:
        return self.points.shape[1]


def _shoulders(vertices, triangles, points, tips) -> np.ndarray:
    """(3, S) places of a still mesh's vertices that share a face with a sharp tip and are not pointed corners
    already (a pointed rod's shoulder ring, where its point meets its sides; see SHARP_TIP_ANGLE's notes)."""
    vertices = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
    at_tip = rows_among(vertices, points.T[tips])
    fan = at_tip.take(triangles).any(axis=1)
    near = np.zeros(len(vertices), dtype=bool)
    near[triangles[fan].ravel()] = True
    near &= ~at_tip
    places = np.unique(vertices[near], axis=0)
    if points.shape[1] and len(places):
        places = places[~rows_among(places, points.T)]
    return np.ascontiguousarray(places.T)


def _with_rod_ends(corners: _Corners, sharp, up, radius: float) -> _Corners:
    """`corners` with the upper ends of `sharp`'s thin edges (their ends on one of its other sharp edges too, the thin
    edges leaving them downwards, within ROD_END_ANGLE of -up (3,), the mesh's own frame). `corners`
    itself when there are none. Kept per SharpEdges while the ends are the same."""
    kept = _ROD_ENDS.get(sharp)
    if kept is None or kept[0] is not corners:
        kept = _ROD_ENDS[sharp] = (corners, *_rod_ends(corners, sharp, radius), {})
    _, places, away, chosen = kept
    if len(places) == 0:
        return corners
    found = chosen.get(up.tobytes())  # (a still mesh's up is the same every substep)
    if found is not None:
        return found
    upper = np.bincount(away[0], weights=(dot(away[1], up[:, None]) < -_COS_ROD_END), minlength=len(places)) > 0.0
    if len(chosen) >= 4:  # (a turning collider: keep a few)
        chosen.clear()
    if not upper.any():
        chosen[up.tobytes()] = corners
        return corners
    key = upper.tobytes()
    found = next((c for c in chosen.values() if c is not corners and c.key == key), None)
    if found is None:
        ends = places[upper]
        known = rows_among(corners.points.T, ends) if len(corners) else np.zeros(0, dtype=bool)
        if len(corners):  # (an 8-segment post's rims are pointed corners already)
            ends = ends[~rows_among(ends, corners.points.T)]
        found = object.__new__(_Corners)
        found.lists, found.motion, found.outs = [], 0.0, None
        found.points = np.ascontiguousarray(np.concatenate([corners.points, ends.T], axis=1))
        found.points0 = found.points
        found.ends = np.concatenate([known, np.ones(len(ends), dtype=bool)])
        found.tips = np.concatenate([corners.tips, np.zeros(len(ends), dtype=bool)])
        # (a rod's end is no table's corner, even where its cap's rim is pointed: with the reaction the cloth over
        # the 1 cm 8-segment post's top ended with 36 edges through it, 18 without the support; round 15)
        found.carries = np.concatenate([corners.carries & ~known, np.zeros(len(ends), dtype=bool)])
        found.normals = np.concatenate([corners.normals, np.zeros((3, len(ends)))], axis=1)
        found.tips |= found.ends
        found.key = key
    chosen[up.tobytes()] = found
    return found


def _rod_ends(corners: _Corners, sharp, radius: float):
    """(places (R, 3) of the ends of `sharp`'s thin edges that lie on one of its other sharp edges too, (each thin
    edge's end at such a place, unit directions (3, E) along the thin edge away from it))."""
    thin = sharp.thin
    none = (np.zeros((0, 3)), (_EMPTY, np.zeros((3, 0))))
    if not thin.any() or thin.all() or corners.tips.any():  # (a pointed rod's point has the tips' rules)
        return none
    if ROD_END_RADIUS < 1.0:  # (only rods clearly thinner than the cloth's edges: their faces' circumradius)
        cos = -dot(sharp.into, sharp.into_other)
        half_sine = np.sqrt(np.maximum(0.5 * (1.0 - cos), 0.0))
        across = np.maximum(sharp.width, sharp.width_other)
        thin = thin & (across < 2.0 * ROD_END_RADIUS * radius * half_sine)
        if not thin.any():
            return none
    a, b = sharp.a[:, thin], sharp.b[:, thin]
    at_thin = np.unique(np.concatenate([a, b], axis=1).T, axis=0)
    other = np.concatenate([sharp.a[:, ~thin], sharp.b[:, ~thin]], axis=1).T
    places = at_thin[rows_among(at_thin, other)]
    if len(places) == 0:
        return none
    span = b - a
    span = span / np.maximum(np.sqrt(dot(span, span)), _EPS)
    ends = np.concatenate([a, b], axis=1).T
    away = np.concatenate([span, -span], axis=1)
    on = rows_among(ends, places).nonzero()[0]
    places, which = np.unique(ends.take(on, axis=0), axis=0, return_inverse=True)
    return places, (which, away.take(on, axis=1))


# A closed mesh's convex vertices whose faces' normals spread all round their mean (a UV ball's pole, a coarse
# icosphere's vertices; not a box edge's, whose spread in one plane) by more than a cloth edge across them, its ends
# `lever` (half the cloth's longest edge, at most the faces' heights there) out and the gap off the faces, can span
# without dipping under the vertex: reach x sin(turn) > gap x cos(turn), the turn the lesser spread's (sin^2 / 2 a
# cone's) are corners too for that cloth (not tips, carrying nothing): their faces turn 6-20°, under POINTED_ANGLE,
# the UV pole's 24 edges bend ~2° (no sharp edge), the 80-triangle ball's are sharp but the edge pass's pushes round
# a vertex point sideways, and a 20² cloth's edge ended 2-7 mm under the top vertex with both ends outside
# (docs/design.md, round 22 (uvpole26)). Still and rigid meshes. Off: a coarse ball's step costs ~10-50 % more with
# a 20² cloth (the corner pass now runs on it; measured under load, round 23 (apex23)), and 101 of the 235 tests of
# tests/test_mesh_collider*.py were run with it on (all passed, with the outside-only rule below).
APEX_CORNERS = False
# An apex meets only cloth triangles whose three vertices are all outside its faces' cone (none under it, as
# `_under_apex` tells; `collide_corners`): a cloth cut through the mesh (a closed ball appearing round a curtain,
# tests/test_mesh_collider_inside.py) has triangles across the apexes with vertices inside, whose "outside" is no
# side of the cloth: each was pushed the way its normal leant to the apex's and the curtain was flung 0.46-0.53 m
# (0.10-0.33 m without apexes); kept on the side they started on instead, a vertex ended inside. Those are left to
# the vertex pass and the inside recovery, as without apexes. Docs/design.md, round 23 (apex23). (The sub-switch
# APEX_OUTSIDE_ONLY, True, folded in round 27 (switchdebt_r27); aab9675 has it.)
# The lever of the cloth edge across an apex, in `longest` (twice the cloth's longest rest triangle edge, L): L / 2,
# the edge's end when the apex is under its middle, where it dips deepest (as the edge pass's SHALLOW_APEXES). Round
# 22 took 0.5 (L, twice that): a 64² 1.4 m cloth (31 mm diagonals) had all 86 vertices of the 12 x 8 UV ball as
# apexes and none with L / 2; the 20² cloths of bench/pole_apex.py keep the same apexes (round 23 (apex23)).
APEX_LEVER = 0.25
# A pass's apex contacts are held on the substeps between the windows' passes as every other corner's (`_hold`, with
# _ITERATIONS Jacobi iterations). Tried not held (the next pass keeps the apex on its outside whichever side the cloth
# went; the holds were ~1/3 of the apexes' time in a profile): a 4.7 mm cloth edge under the 80-triangle ball at the
# landing (0 held), and no clear saving under load; 1 iteration: 1.5 mm (0.6 with 4) (round 23 (apex23)). (The
# switches APEX_HOLD, True, and APEX_HOLD_ITERATIONS, 4, folded in round 27 (switchdebt_r27); aab9675 has them.)
_APEXES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # _Corners -> {(lever, gap): _Corners}


def _with_apexes(corners: _Corners, mesh, lever: float, gap: float) -> _Corners:
    """`corners` with the closed mesh's apexes for a cloth whose longest edge is 2 x `lever`, kept gap off (see
    APEX_CORNERS); `corners` itself when there are none. Kept per (corners, lever, gap)."""
    chosen = _APEXES.get(corners)
    if chosen is None:
        chosen = _APEXES[corners] = {}
    key = (float(lever), float(gap))
    found = chosen.get(key)
    if found is not None:
        return found
    if len(chosen) >= 8:  # (a few cloths and gaps)
        chosen.clear()
    points, outs = apex_points(mesh, lever, gap)
    if len(corners) and len(points):
        new = ~rows_among(points, corners.points.T)
        points, outs = points[new], outs[:, new]
    if len(points) == 0:
        chosen[key] = corners
        return corners
    found = object.__new__(_Corners)
    found.lists, found.motion = [], 0.0
    found.points = np.ascontiguousarray(np.concatenate([corners.points, points.T], axis=1))
    found.points0 = found.points
    none = np.zeros(len(points), dtype=bool)
    found.ends = np.concatenate([corners.ends, none])
    found.tips = np.concatenate([corners.tips, none])
    found.carries = np.concatenate([corners.carries, none])
    found.normals = np.concatenate([corners.normals, np.zeros((3, len(points)))], axis=1)
    found.outs = np.concatenate([np.zeros((3, len(corners))), outs], axis=1)
    found.key = corners.key
    chosen[key] = found
    return found


def apex_points(mesh, lever: float, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """(A, 3) places of the closed mesh's apexes for a cloth edge of half length `lever` kept `gap` off (see
    APEX_CORNERS), and their faces' mean normals out of the mesh (3, A), each of length 1 / tan(its turn). Vertices
    at one place count as one."""
    triangles = mesh.triangles
    if not mesh.outward or len(triangles) == 0:
        return np.zeros((0, 3)), np.zeros((3, 0))
    places, weld = np.unique(mesh.vertices, axis=0, return_inverse=True)
    ids = weld.reshape(-1).take(triangles)
    n = len(places)
    normals = mesh.normals * mesh.outward
    angles = corner_angles(mesh.a, mesh.b, mesh.c)
    flat = ids.ravel()
    corner_normals = normals.take(np.repeat(np.arange(len(flat) // 3), 3), axis=1)
    weights = angles.ravel()
    mean = np.stack([np.bincount(flat, weights=corner_normals[k] * weights, minlength=n) for k in range(3)])
    mean = mean / np.maximum(np.sqrt(dot(mean, mean)), _EPS)
    spread = _spread_all_round(flat, corner_normals, weights, mean, n)
    sine = np.sqrt(np.clip(2.0 * spread, 0.0, 1.0))
    cosine = np.sqrt(1.0 - sine * sine)
    order = np.argsort(flat, kind="stable")
    starts = np.flatnonzero(np.diff(flat.take(order), prepend=-1))
    first = flat.take(order.take(starts))
    reach = np.full(n, float(lever))  # the least height of its faces from it, up to `lever`
    reach[first] = np.minimum(np.minimum.reduceat(mesh.heights.T.ravel().take(order), starts), lever)
    # Convex: its faces' other corners all lie under the plane through it across its mean normal.
    at = places.take(flat, axis=0).T  # (3, 3T)
    higher = np.zeros(len(flat))
    for shift in (1, 2):
        other = places.take(ids[:, [shift % 3, (shift + 1) % 3, (shift + 2) % 3]].ravel(), axis=0).T
        higher = np.maximum(higher, dot(other - at, mean.take(flat, axis=1)))
    convex = np.ones(n, dtype=bool)
    convex[first] = np.maximum.reduceat(higher.take(order), starts) <= 0.0
    apex = convex & (reach * sine > gap * cosine)
    # (the normal scaled by 1 / tan(turn): `_edge_contacts` tells a point under the apex by it)
    return places[apex], np.ascontiguousarray(mean[:, apex] * (cosine[apex] / sine[apex]))


def _cloth_corners(collider, longest: float, thickness, gravity, t1: float) -> _Corners:
    """The collider's corners for a cloth whose longest edge is `longest` (thin rods' upper ends with gravity, a closed
    still or rigid mesh's apexes, APEX_CORNERS)."""
    corners = _corners_of_collider(collider, _rod_sharp(collider, longest, thickness, gravity, t1))
    if APEX_CORNERS and not collider.deforming and collider.mesh.outward:
        gap = max(float(thickness) + collider.offset, MIN_GAP)
        corners = _with_apexes(corners, collider.mesh, APEX_LEVER * longest, gap)
    return corners


_CORNERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # TriangleMesh -> its _Corners
_FRAME_CORNERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # deforming MeshCollider -> its _Corners
_ROD_ENDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # SharpEdges -> (corners, ends, {up: _Corners})


def _corners_of_collider(collider, sharp=None) -> _Corners:
    """A still or rigid collider's mesh's corners (with `sharp`, (SharpEdges of its mesh for a cloth, up (3,) in its
    frame): and its thin rods' upper ends, ROD_END_ANGLE), or a deforming one's for this frame (once a frame)."""
    if not collider.deforming:
        corners = corners_of(collider.mesh)
        return _with_rod_ends(corners, *sharp) if sharp is not None else corners
    found = _FRAME_CORNERS.get(collider)
    if found is None:
        # Closed deforming meshes only: an open one's pointed vertices (a cloth collider's crumples) made no
        # difference to cloth on cloth (crossing pairs equal or fewer without, on 4 scenes of
        # bench/cloth_layers.py) and cost ~15% of the upper layer's step (docs/design.md, round 9 (layers11)).
        mesh = collider.mesh if collider.mesh.outward else None
        found = _FRAME_CORNERS[collider] = _Corners(mesh, collider)
    return found


def corners_of(mesh) -> _Corners:
    """The mesh's pointed corners, found once per TriangleMesh."""
    found = _CORNERS.get(mesh)
    if found is None:
        found = _CORNERS[mesh] = _Corners(mesh)
    return found


class _CornerList:
    """(corner, cloth triangle) pairs for triangles whose vertices' anchors (their places at the last
    query) lie in a box within their half skins + gap of the corner; a vertex that strays its half skin from
    its anchor is anchored afresh and its triangles queried again (resting cloth queries nothing). A still
    mesh's list gives a vertex anchored far from every corner a half skin as wide as keeps it clear of them
    all (as the edge pass's list, `edge_list.py`)."""

    def __init__(self, triangles: np.ndarray, n: int, gap: float, skin: float):
        self.triangles, self.gap, self.half = triangles, gap, 0.5 * skin
        self.anchor = np.full((3, n), np.inf)
        self.reach = np.full(n, self.half)  # each vertex's half skin
        self.squared_reach = self.reach * self.reach
        self.c = self.t = _EMPTY
        self.order: np.ndarray | None = None  # the corners by x
        self._stray, self._step = np.empty(n), np.empty((3, n))  # (reused every pass)
        self._clearance: tuple = (None, None)  # (the corners, a Clearance of their boxes)

    def pairs(self, points, p0, p1, slack: float = 0.0):
        """(corner, cloth triangle) pairs for corners `points` (3, C) and cloth vertices moving p0 -> p1
        ((3, N), the collider's frame); slack: how far the corners may be from `points` (deforming). A query
        also re-anchors the vertices that strayed _REFRESH of the way, so a swinging cloth queries in
        batches (as the edge pass's list)."""
        stray = squared_stray(p0, p1, self.anchor, self._stray, self._step)
        if (stray > self.squared_reach).any():
            self._query(stray > (_REFRESH * _REFRESH) * self.squared_reach, points, p0, p1, slack)
        return self.c, self.t

    def _query(self, strayed, points, p0, p1, slack: float) -> None:
        which = strayed.nonzero()[0]
        anchored = p1.take(which, axis=1)
        self.anchor[:, which] = anchored
        if slack == 0.0:
            # (less a cloth triangle's width, two half skins: its box spans its three vertices' boxes, and a wide
            # one beside narrow ones reached corners none of them did; the round-legged table's list grew from
            # ~330 to ~5,200 pairs a pass)
            reach = np.maximum(self._room(points, anchored) - 2.0 * self.half, self.half)
            self.reach[which] = reach
            self.squared_reach[which] = reach * reach
        tris = self.triangles
        again = strayed.take(tris[:, 0]) | strayed.take(tris[:, 1]) | strayed.take(tris[:, 2])
        if len(self.t):
            keep = (~again.take(self.t)).nonzero()[0]
            self.c, self.t = self.c.take(keep), self.t.take(keep)
        use = again.nonzero()[0]
        # Each triangle's box: its vertices' anchors grown by their half skins, and their starts (a strayed
        # vertex's start may be far from its new anchor; the box holds this pass's path too), + gap + slack.
        ends = [tris.take(use, axis=0)[:, k] for k in range(3)]
        corners = [self.anchor.take(v, axis=1) for v in ends]
        reaches = [self.reach.take(v) for v in ends]
        starts = [p0.take(v, axis=1) for v in ends]
        low = np.minimum(np.minimum(corners[0] - reaches[0], corners[1] - reaches[1]), corners[2] - reaches[2])
        high = np.maximum(np.maximum(corners[0] + reaches[0], corners[1] + reaches[1]), corners[2] + reaches[2])
        np.minimum(low, np.minimum(np.minimum(starts[0], starts[1]), starts[2]), out=low)
        np.maximum(high, np.maximum(np.maximum(starts[0], starts[1]), starts[2]), out=high)
        low -= self.gap + slack
        high += self.gap + slack
        near = np.ones(len(use), dtype=bool)  # quick: against the corners' bounds first
        for k in range(3):
            near &= (high[k] >= points[k].min()) & (low[k] <= points[k].max())
        near = near.nonzero()[0]
        if len(near) == 0:
            return
        low, high = low.take(near, axis=1), high.take(near, axis=1)
        # Sweep along x (corners sorted once): each box's corners within its x range, then y and z.
        order = self._order(points)
        xs = points[0].take(order)
        first = np.searchsorted(xs, low[0], side="left")
        count = np.searchsorted(xs, high[0], side="right") - first
        q = np.repeat(np.arange(len(near)), count)
        c = order.take(np.arange(len(q)) - np.repeat(np.cumsum(count) - count - first, count))
        keep = np.ones(len(q), dtype=bool)
        for k in (1, 2):
            at = points[k].take(c)
            keep &= (high[k].take(q) >= at) & (low[k].take(q) <= at)
        keep = keep.nonzero()[0]
        self.c = np.concatenate([self.c, c.take(keep)])
        self.t = np.concatenate([self.t, use.take(near.take(q.take(keep)))])

    def _room(self, points, anchored) -> np.ndarray:
        """How far (along any axis) each of points `anchored` (3, k) may move and stay clear of every corner
        `points` (3, C) by the gap (cells of a half skin)."""
        if self._clearance[0] is not points:
            self._clearance = (points, Clearance(points, points, self.gap, self.half))
        room = self._clearance[1].room(anchored)
        low, high = points.min(axis=1) - self.gap, points.max(axis=1) + self.gap
        outside = np.maximum(low[:, None] - anchored, anchored - high[:, None])  # (off the map: its bounds)
        return np.maximum(room, outside.max(axis=0), out=room)

    def _order(self, points) -> np.ndarray:
        if self.order is None:
            self.order = np.argsort(points[0], kind="stable")
        return self.order


def collide_cloth_corners(
    x, x_start, inv_mass, model, colliders, t0, t1, thickness, friction, window=None, contacts=None, closes=True,
    support=None, gravity=None,
) -> None:  # fmt: skip
    """Keep every still or rigid mesh collider's pointed corners out of the cloth's triangles (step's hook).

    With `contacts` (a dict per cloth), the mesh colliders' windows (as edge_contacts.collide_cloth_edges):
    the pass runs where a window `closes`, over the window's path (`window`: (positions, frame fraction)
    where it starts, None: this substep's start; the settled pushes still go to x_start), and `_hold`
    re-applies its contacts on the substeps in between. Still closed meshes only: a rising cone's tip passed
    into the next cloth triangle between passes and skewered the cloth, and cloth squeezed into an open V
    ended behind a wall (docs/design.md, round 8 (edgewin10)).
    support: (slack, reach) of the shock propagation from the vertices a corner holds up after every pass
    and hold with contacts (`contact_support.propagate_support`); None: none. gravity (3,): which thin rods' ends
    are corners (ROD_END_ANGLE), and the cloth hangs against it from the other pointed corners (`corner_support`);
    None: none."""
    _, longest = model.cloth_edges
    up = up_of_gravity(gravity)
    meshes = [
        (index, c)
        for index, c in enumerate(colliders)
        if isinstance(c, MeshCollider) and len(_cloth_corners(c, longest, thickness, gravity, t1))
    ]
    if not meshes:
        return
    triangles = model.triangles[0]
    args = (triangles, inv_mass, t0, t1, thickness, friction, longest)
    for index, collider in meshes:
        key = ("corners", index)
        found = None
        if contacts is None or not collider.mesh.outward or not collider.still:
            if contacts is not None:
                contacts.pop(key, None)  # (no stale contacts held once it stops)
            found = collide_corners(collider, x, x_start, *args, keep=support is not None, gravity=gravity)
        elif closes:
            path_start, path_t0 = (x_start, t0) if window is None else window
            found = collide_corners(collider, x, path_start, triangles, inv_mass, path_t0, t1, thickness, friction,
                                    longest, settle_into=x_start, keep=True, gravity=gravity)  # fmt: skip
            contacts[key] = None if found is None else (collider.mesh, found)
        else:
            held = contacts.get(key)
            if held is not None and held[0] is collider.mesh and held[1].inv_mass is inv_mass:
                # With friction, as the pass: frictionless, its pushes along a tented cloth's tilted normals slid a
                # 24² cloth 12 cm off-centre on a box (docs/design.md, round 11 (creep13)).
                mu = combined_friction(friction, collider.friction)
                pushed = _hold(collider, x, x_start, t0, t1, held[1], mu)
                if support is not None:  # (the sharp tips' among them: the propagation's seeds)
                    found = held[1]._replace(overloaded=pushed.take(held[1].tips.take(pushed).nonzero()[0]))
        if found is None or support is None or not collider.mesh.outward:
            continue
        # Only from supports the cloth was pulled through: a cloth resting on a
        # pyramid's sides (its apex pushing a few mm) slid off it when pulled towards the apex too.
        if len(found.overloaded):
            # (each contact's vertex of the largest barycentric: one take of the (H, 3) rows)
            nearest = found.beta.take(found.overloaded, axis=1).argmax(axis=0)
            seeds = found.verts.take(found.overloaded * 3 + nearest)
            slack, reach = support
            # (hanging edges only from a mesh with rod ends: on a pointed rod it let a triangulated 64² cloth's
            # skirt through the rod at one placement of six, so pointed meshes keep the propagation as it was)
            ends = _corners_of_collider(collider, _rod_sharp(collider, longest, thickness, gravity, t1)).ends
            hanging = up if ends.any() else None
            propagate_support(x, x_start, seeds, model.structural_graph, inv_mass, slack, reach, up=hanging)
        if len(found.carries) and up is not None and collider.still:  # (a table, not a box flung through)
            pose1 = collider._pose_at(t1)
            # (the holds' support: the pass's seeds, corners and plan, kept while its contacts, the masses, up, the
            # slack, the pose's rotation and origin and the model are the same objects: the same arithmetic, ~15
            # calls fewer a hold)
            pose = (None, None) if pose1 is None else pose1
            asked = (found.carries, inv_mass, up, support[0], pose[0], pose[1], model)
            kept_plan = None if contacts is None else contacts.get(("support", index))
            if kept_plan is None or not _same(kept_plan[0], asked):
                kept_plan = (asked, _support_of(found, pose1, up, model.structural_graph, inv_mass, support[0]))
                if contacts is not None:
                    contacts[("support", index)] = kept_plan
            if kept_plan[1] is None:
                continue
            seeds, points, normals, plan = kept_plan[1]
            mu = combined_friction(friction, collider.friction)
            support_hanging(
                x, x_start, seeds, model.structural_graph, inv_mass, support[0], up, points, normals, mu, plan
            )


def _same(kept: tuple, asked: tuple) -> bool:
    """Whether two tuples hold the same objects (`is`), slack (a float) equal."""
    return all(a is b or (isinstance(a, float) and a == b) for a, b in zip(kept, asked, strict=True))


def _support_of(found: _Held, pose1, up, graph, inv_mass, slack: float):
    """(seeds, points, normals, plan) of `support_hanging` for a pass's contacts `found` with carrying corners (their
    corners facing up, each contact's nearest vertex), or None: no corner faces up or the plan has no ring."""
    points, normals = found.corner.take(found.carries, axis=1), found.carried
    if pose1 is not None:  # (to the world, where x is)
        points, normals = _from_frame(points, *pose1).T, (normals.T @ pose1[0].T).T
    # Only corners facing up (a pyramid's foot on the floor carries nothing: with it, cloth draped from a
    # thin pyramid's apex ended with 4-6 of its edges through the pyramid's sides)
    facing = (up @ normals > 0.0).nonzero()[0]
    if len(facing) == 0:
        return None
    carries = found.carries.take(facing)  # (each contact's nearest vertex, as the propagation's)
    nearest = found.beta.take(carries, axis=1).argmax(axis=0)
    seeds = found.verts.take(carries * 3 + nearest)
    points, normals = points.take(facing, axis=1), normals.take(facing, axis=1)
    plan = support_plan(seeds, graph, inv_mass, slack, points, normals)
    return None if plan is None else (seeds, points, normals, plan)


def _rod_sharp(collider, longest: float, thickness, gravity, t1: float):
    """(the still or rigid collider's sharp edges for a cloth whose longest edge is `longest` (the edge pass's), up in
    its frame at t1), whose thin rods' upper ends are corners too (ROD_END_ANGLE); None: none asked (no gravity)."""
    if collider.deforming or gravity is None:
        return None
    up = up_of_gravity(gravity)
    if up is None:
        return None
    sharp = sharp_of(collider, 0.5 * longest, thickness)
    if not sharp.thin.any():
        return None
    pose = collider._pose_at(t1)
    return sharp, (up if pose is None else pose[0].T @ up), 0.5 * longest


def collide_corners(
    collider, x, x_start, triangles, inv_mass, t0, t1, thickness, cloth_friction, longest, settle_into=None,
    keep=False, gravity=None,
):  # fmt: skip
    """Push cloth triangles (T, 3) rows of x off the collider's pointed corners, in place (see the module doc).

    settle_into: where the settled pushes go (default x_start, the path's start); keep: return the contacts
    (`_Held`) for `_hold`, else None."""
    corners = _cloth_corners(collider, longest, thickness, gravity, t1)
    if len(corners) == 0 or len(triangles) == 0:
        return
    gap = max(float(thickness) + collider.offset, MIN_GAP)
    if THICK_GAP_CAP is not None:  # (a cloth thicker than its edges: see THICK_GAP_CAP)
        gap = max(min(gap, THICK_GAP_CAP * longest), MIN_GAP)
    pose0, pose1 = collider._pose_at(t0), collider._pose_at(t1)
    if pose1 is None:  # every cloth vertex in the collider's frame, (3, N)
        # (contiguous copies: the lists and the pass take columns of them, ~10x quicker than of x.T's strided view)
        p1, p0 = as_columns(x), as_columns(x_start)
    else:
        p1, p0 = _to_frame(x, *pose1), _to_frame(x_start, *pose0)
    n = p1.shape[1]
    found = next(
        (c for c in corners.lists if c.triangles is triangles and c.anchor.shape[1] == n and c.gap == gap), None
    )
    if found is None:
        found = _CornerList(triangles, n, gap, longest)
        corners.lists = [found, *corners.lists[:7]]
    c, t = found.pairs(corners.points, p0, p1, corners.motion)
    if len(t) == 0:
        return
    point = corners.points.take(c, axis=1)
    point0 = point
    if collider.deforming:  # the corners at the substep's start and end (the vertices move linearly)
        start_point = corners.points0.take(c, axis=1)
        point, point0 = start_point + (point - start_point) * t1, start_point + (point - start_point) * t0
    tri = triangles.take(t, axis=0)
    # The triangles' vertices at the end and the start, (3, 3, P) (axis, vertex k, pair): one take each.
    flat = tri.T.ravel()
    ends3, starts3 = p1.take(flat, axis=1).reshape(3, 3, -1), p0.take(flat, axis=1).reshape(3, 3, -1)
    # Only triangles whose swept box comes within the gap of the corner can touch it (most listed pairs
    # on a draped table are a skin away).
    high = np.maximum(ends3.max(axis=1), starts3.max(axis=1))
    low = np.minimum(ends3.min(axis=1), starts3.min(axis=1))
    high -= np.minimum(point, point0)
    low -= np.maximum(point, point0)
    meets = ((high >= -gap).all(axis=0) & (low <= gap).all(axis=0)).nonzero()[0]
    if len(meets) == 0:
        return
    # By corner, then cloth triangle, whatever order the list keeps them in (as the edge pass's pairs).
    meets = meets.take(np.argsort(c.take(meets) * len(triangles) + t.take(meets)))
    # (a still corner's start is its end: one array, so the hold need not follow it)
    point0 = point0.take(meets, axis=1) if collider.deforming else None
    point, tri, c = point.take(meets, axis=1), tri.take(meets, axis=0), c.take(meets)
    outs = None if corners.outs is None else corners.outs.take(c, axis=1)
    point0 = point if point0 is None else point0
    ends3, starts3 = ends3.take(meets, axis=2), starts3.take(meets, axis=2)
    if outs is not None:  # (no apex against a cloth triangle with a vertex under it)
        under = _under_apex(ends3[:, 0], point, outs) | _under_apex(ends3[:, 1], point, outs)
        outside = (~(under | _under_apex(ends3[:, 2], point, outs))).nonzero()[0]
        if len(outside) < len(c):
            if len(outside) == 0:
                return
            moving = point0 is not point
            point, tri, c = point.take(outside, axis=1), tri.take(outside, axis=0), c.take(outside)
            outs = outs.take(outside, axis=1)
            point0 = point0.take(outside, axis=1) if moving else point
            ends3, starts3 = ends3.take(outside, axis=2), starts3.take(outside, axis=2)
    ends, starts = [ends3[:, k] for k in range(3)], [starts3[:, k] for k in range(3)]
    moves = ends3 - starts3
    moves *= moves
    reach = 2.0 * gap + np.sqrt(moves.sum(axis=0).max(axis=0))  # (each vertex's squared motion, the largest)
    corner_moved = None
    if point0 is not point:  # (a deforming mesh's corner moves too)
        corner_moved = point - point0
        reach += np.sqrt(dot(corner_moved, corner_moved))
    found_faces = _face_contacts(point, tri, starts, ends, gap, reach, point0, outs)
    if collider.mesh.outward and len(found_faces[0]):  # (closed: an open V's crease
        # is all "tips", and its cloth pushed along the smooth normal ended behind a wall)
        found_faces = _smooth_tips(found_faces, corners.tips.take(c), triangles, p1)
    found_edges = _edge_contacts(point, tri, starts3, ends3, gap, reach, point0, outs)
    if len(found_edges[0]):  # (a cloth edge's two triangles both find it)
        found_edges = _once(found_edges, c, n)
    verts, beta, direction, at, depth, start_gap = (
        np.concatenate([f[k] for f in (found_faces, found_edges)], axis=-1 if k in (1, 2) else 0) for k in range(6)
    )
    if len(verts) == 0:
        return
    corner = point.take(at, axis=1)
    weights = beta * inv_mass.take(verts.T)  # (3, H): each vertex's share
    total = dot(beta, weights)
    ok = total > 0.0
    per = np.where(ok, 1.0 / np.where(ok, total, 1.0), 0.0)
    delta = direction * (depth * per)  # per unit of each vertex's (share x inverse mass)
    flat = verts.T.ravel()  # (the first vertices, then the second, then the third)
    mu = combined_friction(cloth_friction, collider.friction)
    if mu > 0.0:  # Coulomb friction on the cloth's point at the contact, relative to the corner
        slide = _at_points(p1.take(flat, axis=1) - p0.take(flat, axis=1), beta)
        if corner_moved is not None:
            slide -= corner_moved.take(at, axis=1)
        slide -= direction * dot(slide, direction)
        length = np.sqrt(dot(slide, slide))
        delta -= slide * (np.minimum(1.0, mu * depth / np.maximum(length, _EPS)) * per)
    rows, slots = vertex_places(verts.T, n)  # (the moved vertices once: the iterations and holds scatter to them too)
    if settle_into is not None and settle_into is not x_start:
        # A window's pass: what was within the gap where the settled push goes (the last substep's start), as
        # the vertex and edge passes reckon it; from the window's start it gave wrong velocities every pass.
        contacts = _Held(verts, beta, weights, per, direction, corner, gap, inv_mass, rows, slots, flat)
        start_gap = _left(settle_into, contacts, pose0)  # (windows are for still meshes: one pose)
    settle = direction * (clamp(start_gap, 0.0, depth) * per)
    _scatter(x, x_start if settle_into is None else settle_into, rows, slots, weights, delta, settle, pose1)
    tips = corners.tips.take(c.take(at))
    overloaded = ((depth > _OVERLOADED * gap) & tips).nonzero()[0]
    carries = corners.carries.take(c.take(at)).nonzero()[0]
    carried = corners.normals.take(c.take(at.take(carries)), axis=1)
    held = _Held(verts, beta, weights, per, direction, corner, gap, inv_mass, rows, slots, flat)
    held = held._replace(overloaded=overloaded, tips=tips, carries=carries, carried=carried)
    if corner_moved is not None:  # (the hold finds the corners where they are then)
        held = held._replace(moving=(corners, c.take(at)))
    _push_again(x, held, pose1, _ITERATIONS - 1)
    return held if keep else None


def _smooth_tips(found, tips, triangles, p1):
    """`_face_contacts`' contacts `found` with sharp tips (`tips`, per pair) pushed along the cloth's smooth
    normal at the contact point (area-weighted vertex normals of cloth vertices p1 (3, N), interpolated),
    each depth grown so the push still clears the flat triangle (see _smooth_tips)."""
    verts, beta, direction, pair, depth, start_gap = found
    which = tips.take(pair).nonzero()[0]
    if len(which) == 0:
        return found
    a, b, c = (p1.take(triangles[:, k], axis=1) for k in range(3))
    face = cross(b - a, c - a)
    ends = triangles.ravel()
    normals = np.stack([np.bincount(ends, weights=np.repeat(face[k], 3), minlength=p1.shape[1]) for k in range(3)])
    chosen, flat = verts.take(which, axis=0), direction.take(which, axis=1)
    smooth = sum(normals.take(chosen[:, k], axis=1) * beta[k].take(which) for k in range(3))
    smooth *= np.sign(dot(smooth, flat))  # (on the side the flat push goes)
    smooth /= np.maximum(np.sqrt(dot(smooth, smooth)), _EPS)
    cos = dot(smooth, flat)
    use = cos > _LEAST_COS
    direction, depth = direction.copy(), depth.copy()
    direction[:, which] = np.where(use, smooth, flat)
    depth[which] = depth.take(which) / np.where(use, cos, 1.0)
    return verts, beta, direction, pair, depth, start_gap


class _Held(NamedTuple):
    """A corner pass's contacts (own frame): the cloth vertices (H, 3), their barycentrics and shares (3, H),
    1 / the shares' weight (H,), the unit directions the cloth moves (3, H), the corners (3, H), the gap;
    the vertices moved (sorted) and each contact vertex's place among them (3, H)."""

    verts: np.ndarray
    beta: np.ndarray
    weights: np.ndarray
    per: np.ndarray
    direction: np.ndarray
    corner: np.ndarray
    gap: float
    inv_mass: np.ndarray
    rows: np.ndarray
    slots: np.ndarray
    flat: np.ndarray  # (3H,) the contacts' first vertices, then their second, then their third (verts.T.ravel())
    moving: tuple | None = None  # a deforming mesh's (_Corners, each contact's corner)
    overloaded: np.ndarray = _EMPTY  # the sharp tips' contacts the pass found through the cloth
    carries: np.ndarray = _EMPTY  # the contacts with corners that carry hanging cloth (corner_support)
    carried: np.ndarray = np.zeros((3, 0))  # (3, K) those corners' faces' mean normals
    tips: np.ndarray = _EMPTY  # (H,) whether each contact's corner is a sharp tip


def _left(x, held: _Held, pose) -> np.ndarray:
    """How far each contact's cloth point at x lies within the gap of its corner, along its direction."""
    moved = x.take(held.flat, axis=0)
    moved = moved.T if pose is None else _to_frame(moved, *pose)
    cloth_point = _at_points(moved, held.beta)
    cloth_point -= held.corner
    return held.gap - dot(held.direction, cloth_point)


def _at_points(columns: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """The contacts' cloth points (3, H) from their vertices' columns (3, 3H; first vertices, then second, then
    third) and barycentrics beta (3, H): vertex by vertex, in that order (one product and one sum)."""
    return np.add.reduce(columns.reshape(3, 3, -1) * beta, axis=1)  # (.sum's reduce without its Python wrapper)


def _push_again(x, held: _Held, pose1, iterations: int, x_start=None, pose0=None, mu: float = 0.0) -> np.ndarray:
    """Jacobi iterations of the contacts at the pushed positions: each still within the gap is pushed out
    again (with x_start, the first also settles what was within the gap there and has Coulomb friction
    (`mu`) on the cloth point's slide since x_start, as the pass does).
    Returns the contacts the first iteration found through the cloth (`_OVERLOADED`)."""
    first = _EMPTY
    for iteration in range(iterations):
        left = _left(x, held, pose1)
        live = (left > 1e-3 * held.gap).nonzero()[0]
        if iteration == 0:
            first = (left > _OVERLOADED * held.gap).nonzero()[0]
        if len(live) == 0:
            return first
        every = len(live) == len(left)  # (then the contacts' arrays as they are: no takes)
        per = held.per if every else held.per.take(live)
        direction = held.direction if every else held.direction.take(live, axis=1)
        if not every:
            left = left.take(live)
        delta = direction * (left * per)
        settle = None
        if x_start is not None:
            within = _left(x_start, held, pose0)
            within = clamp(within if every else within.take(live), 0.0, left)
            settle = direction * (within * per)
            if mu > 0.0:
                slide = _slide(x, x_start, held, None if every else live, pose1, pose0)
                slide -= direction * dot(slide, direction)
                length = np.sqrt(dot(slide, slide))
                delta -= slide * (np.minimum(1.0, mu * left / np.maximum(length, _EPS)) * per)
        if every:
            slots, weights = held.slots, held.weights
        else:
            slots, weights = held.slots.take(live, axis=1), held.weights.take(live, axis=1)
        _scatter(x, x_start, held.rows, slots, weights, delta, settle, pose1)
        x_start = None
    return first


def _slide(x, x_start, held: _Held, live, pose1, pose0) -> np.ndarray:
    """The motion (3, L) of contacts `live`'s cloth points from x_start to x, relative to their corners
    (live None: all the contacts')."""
    if live is None:
        rows, beta = held.flat, held.beta
    else:
        rows, beta = held.verts.take(live, axis=0).T.ravel(), held.beta.take(live, axis=1)
    end, start = x.take(rows, axis=0), x_start.take(rows, axis=0)
    end = end.T if pose1 is None else _to_frame(end, *pose1)
    start = start.T if pose0 is None else _to_frame(start, *pose0)
    return _at_points(end - start, beta)


def _hold(collider, x, x_start, t0, t1, held: _Held, mu: float = 0.0) -> np.ndarray:
    """Between passes: the last pass's contacts pushed out again where still within the gap (its
    iterations' rule, the first settling and braking as the pass does), so a corner cannot come through a
    cloth triangle between passes (corners9: on the windows alone, 5-33 mm through). Returns the contacts
    still within the gap (pushed)."""
    if held.moving is not None:
        corners, c = held.moving
        start = corners.points0.take(c, axis=1)
        held = held._replace(corner=start + (corners.points.take(c, axis=1) - start) * t1)
    return _push_again(x, held, collider._pose_at(t1), _ITERATIONS, x_start, collider._pose_at(t0), mu)


def _face_contacts(point, tri, starts, ends, gap: float, reach, point0, outs=None):
    """Corners whose projection lies in the cloth triangle at the end and that end within the gap of
    its plane on the side they started on, or crossed it within `reach`: (vertices (H, 3), barycentrics
    (3, H), the way the triangle must move (3, H), pair, depth, how far within the gap it started).
    point0: the corners at the start (`point` at the end); outs (3, P): an apex's normal out of the mesh (its side:
    under the triangle, whichever it started on; 0: another corner's), or None."""
    h0 = dot(_unit_normal(*starts), point0 - starts[0])
    normal1 = _unit_normal(*ends)
    h1 = dot(normal1, point - ends[0])
    side = np.where(h0 != 0.0, np.sign(h0), np.sign(h1))
    if outs is not None:
        facing = dot(normal1, outs)  # (the triangle lies out of the mesh from the apex: the apex on its -facing side)
        side = np.where(facing != 0.0, -np.sign(facing), side)
    depth = gap - h1 * side  # how far the triangle must move away from the corner, along -side x normal
    bary = _barycentrics(point, *ends)
    near = (depth > 0.0) & (depth < reach)
    inside = bary.min(axis=0) >= 0.0
    # A corner that passed through the triangle in the substep (its projection at the end may have left it
    # under the pull of the cloth hanging from it): where it met the plane, with the barycentrics there.
    crossed = (near & ~inside & (h1 * side < 0.0)).nonzero()[0]
    if len(crossed):
        a0, a1 = h0.take(crossed), h1.take(crossed)
        s = clamp(a0 / np.where(a0 != a1, a0 - a1, 1.0), 0.0, 1.0)  # where it met the plane
        then = [b.take(crossed, axis=1) * (1.0 - s) + e.take(crossed, axis=1) * s for b, e in zip(starts, ends)]
        at = point0.take(crossed, axis=1)
        at += (point.take(crossed, axis=1) - at) * s
        met = _barycentrics(at, *then)
        through = (met.min(axis=0) >= 0.0).nonzero()[0]
        inside[crossed.take(through)] = True
        bary[:, crossed.take(through)] = met.take(through, axis=1)
    hit = (near & inside).nonzero()[0]
    direction = normal1.take(hit, axis=1) * -side.take(hit)
    start_gap = np.maximum(gap - np.abs(h0.take(hit)), 0.0)
    return tri.take(hit, axis=0), bary.take(hit, axis=1), direction, hit, depth.take(hit), start_gap


def _edge_contacts(point, tri, starts, ends, gap: float, reach, point0, outs=None):
    """Corners closer than the gap to the middle of a cloth triangle's edge (under a ridge of tented
    cloth, where the corner projects into neither triangle), kept on the side of the edge they started
    on (the start's direction from the corner): as `_face_contacts`, barycentrics (1 - u, u, 0).
    starts, ends: the triangles' vertices (3, 3, P) (axis, vertex, pair), C-contiguous. outs (3, P): an apex's
    normal out of the mesh, or 0 (see `_face_contacts`): an edge whose point nearest the apex lies under it (inside
    the cone its faces' turn makes) is pushed out along the normal, whatever side it started on."""
    # The three edges (0-1, 1-2, 2-0) stacked as columns [0, P), [P, 2P), [2P, 3P): one set of calls.
    a0, b0 = starts.reshape(3, -1), starts.take(_NEXT_VERTEX, axis=1).reshape(3, -1)
    a1, b1 = ends.reshape(3, -1), ends.take(_NEXT_VERTEX, axis=1).reshape(3, -1)
    corner = np.concatenate([point, point, point], axis=1)
    corner0 = corner if point0 is point else np.concatenate([point0, point0, point0], axis=1)
    u0, u1 = _along(corner0, a0, b0), _along(corner, a1, b1)
    d0 = a0 + (b0 - a0) * u0 - corner0
    d1 = a1 + (b1 - a1) * u1 - corner
    dist0, dist1 = np.sqrt(dot(d0, d0)), np.sqrt(dot(d1, d1))
    normal = np.where(dist0 > 1e-9, d0 / np.maximum(dist0, _EPS), d1 / np.maximum(dist1, _EPS))
    if outs is not None:  # (an edge point under the apex: deeper along its normal than its faces' slope takes it)
        outs3 = np.concatenate([outs, outs, outs], axis=1)
        slope = np.sqrt(dot(outs3, outs3))
        out = outs3 / np.maximum(slope, _EPS)
        down = dot(d1, out)
        aside = d1 - out * down
        under = (slope > 0.0) & (-down * slope > np.sqrt(dot(aside, aside)))
        normal = np.where(under, out, normal)
    depth = gap - dot(d1, normal)
    far = np.concatenate([reach, reach, reach])
    hit = (depth > 0.0) & (depth < far) & ((dist1 < gap) | (depth >= gap)) & (u1 > 0.0) & (u1 < 1.0)
    hit = hit.nonzero()[0]
    pair, edge = hit % len(tri), hit // len(tri)
    first = tri.reshape(-1).take(pair * 3 + edge)
    second = tri.reshape(-1).take(pair * 3 + (edge + 1) % 3)
    u = u1.take(hit)
    beta = np.stack([1.0 - u, u, np.zeros(len(hit))])
    verts = np.stack([first, second, first], axis=1)
    return verts, beta, normal.take(hit, axis=1), pair, depth.take(hit), np.maximum(gap - dist0.take(hit), 0.0)


def _once(found_edges, corner, n: int):
    """The ridge contacts (`_edge_contacts`) each (corner, cloth edge) once, for pairs' corners `corner`
    and n cloth vertices: both of a cloth edge's triangles find it, and kept twice its vertices' pushes
    were averaged with each other's and with the face contacts' (docs/design.md, round 8 (edgewin10))."""
    verts, beta, direction, pair, depth, start_gap = found_edges
    first, second = verts[:, 0], verts[:, 1]
    key = corner.take(pair) * (n * n) + np.minimum(first, second) * n + np.maximum(first, second)
    _, keep = np.unique(key, return_index=True)
    return (
        verts.take(keep, axis=0), beta.take(keep, axis=1), direction.take(keep, axis=1), pair.take(keep),
        depth.take(keep), start_gap.take(keep),
    )  # fmt: skip


def _under_apex(p, apex, outs) -> np.ndarray:
    """Whether points p (3, P) lie under apexes `apex` (3, P), inside the cone their faces make (outs (3, P): their
    normals out of the mesh of length 1 / tan(turn), see `apex_points`; 0: no apex, never under)."""
    d = p - apex
    down = dot(d, outs)  # (|outs| x the height along the unit normal)
    aside = dot(d, d) - down * down / np.maximum(dot(outs, outs), _EPS)
    return (down < 0.0) & (down * down > np.maximum(aside, 0.0))


def _along(p, a, b) -> np.ndarray:
    """Where along segments a -> b (3, P) the closest point to p lies, in [0, 1]."""
    ab = b - a
    return clamp(dot(p - a, ab) / np.maximum(dot(ab, ab), _EPS), 0.0, 1.0)


def _unit_normal(a, b, c) -> np.ndarray:
    n = cross(b - a, c - a)
    return n / np.maximum(np.sqrt(dot(n, n)), _EPS)


def _barycentrics(p, a, b, c) -> np.ndarray:
    """(3, P) barycentrics of points p's projections onto triangles (a, b, c)."""
    ab, ac, ap = b - a, c - a, p - a
    d00, d01, d11 = dot(ab, ab), dot(ab, ac), dot(ac, ac)
    d20, d21 = dot(ap, ab), dot(ap, ac)
    det = d00 * d11 - d01 * d01
    det = np.where(np.abs(det) > _EPS * _EPS, det, np.inf)
    v = (d11 * d20 - d01 * d21) / det
    w = (d00 * d21 - d01 * d20) / det
    return np.stack([1.0 - v - w, v, w])


def _scatter(x, x_start, rows, slots, weights, delta, settle, pose1) -> None:
    """Add each contact's delta (and settle, to the start; None: none) x its vertices' weights (3, H) to
    its vertices (rows[slots], slots (3, H)), averaged over each vertex's contacts (rows a contact of
    this call does not move are left as they are)."""
    local = slots.ravel()  # vertex k of contact h at k * H + h
    channels = delta if settle is None else np.concatenate([delta, settle])
    weighted = (channels[:, None, :] * weights).reshape(len(channels), -1)  # (channel, vertex k * H + h)
    add_averaged(x, x_start, rows, local, weights.ravel(), weighted, pose1)
