"""Rims in the edge pass (solver/edge_contacts.py): whether a cloth edge went through a rim's face (and which way is
out across the rim), and which contacts lie on a convex rim whose face carries the cloth (their friction brakes the
cloth's own slide)."""

from __future__ import annotations

import math

import numpy as np

from .sharp_rules import _EPS
from .triangles import dot

# RIM_SUPPORT_FRICTION (a rule, folded in round 24):
# A cloth edge across a convex rim with an end over a face that carries weight (within SUPPORT_ANGLE of
# facing up) has friction on the cloth's own slide along the edge over the rim too, by the rim's push (in
# the pass; in the hold while it is draped: the other end below the face): otherwise a coarse cloth walks
# off a box (the pass lifts the resting end off the top face, so nothing braked that slide; docs/design.md,
# "Round 10 (rimslide12)"). Elsewhere that slide stays free (braked at every sharp edge, a pyramid's apex
# came through a falling cloth and cloth layers crossed), and on deforming meshes (a box spinning through a
# curtain left a vertex inside). The hold's along-edge brake on undraped contacts kept a whipped-up corner
# of a coarse cloth up over a box (tests/test_blender_mesh_colliders.py).
SUPPORT_ANGLE = 45.0
_COS_SUPPORT = math.cos(math.radians(SUPPORT_ANGLE))
# Only rims whose faces meet at more than RIM_ANGLE (a box's 90°, a zero-thickness sheet's rim): at a
# 12-segment torus's 30° ridges the brake held the cloth over the hole (middle 0.347-0.354 m at frame 30
# against the Blender test's < 0.35; Blender's Cloth: 0.37), and such a ridge lifts a resting end less.
RIM_ANGLE = 60.0
_COS_RIM = math.cos(math.radians(RIM_ANGLE))

# A cloth edge through an open mesh's face by a rim whose way out across it points down (more than LOW_RIM_ANGLE
# below the horizontal: a zero-thickness wall's foot, its face above the rim) is left to the vertex pass, not
# pushed out under the rim: a wall standing on the floor pushed the cloth pooled at its foot 7 cm into the
# floor in a substep, the floor pushed it back and the drape was flung 1.2 m up (docs/design.md, round 18 (wall21);
# `low_rims_left`, always on: the switch LOW_RIMS_UNDER, False, pushed them out under the rim again).
LOW_RIM_ANGLE = 30.0
_SIN_LOW_RIM = math.sin(math.radians(LOW_RIM_ANGLE))
# SIDE_RIMS_FROM_START (a rule, folded in round 24):
# A cloth edge through an open mesh's face by a side rim (its way out across it within LOW_RIM_ANGLE of the
# horizontal: a zero-thickness wall's upright ends) that started wholly on one side of the face's plane goes back
# to its start's side, not out across the rim: a cloth hanging flat on a wall's face dipped a fraction of a
# millimetre through it by the wall's upright ends and was pushed 5-15 mm along the face out past the end, every
# substep; the two ends' pushes did not cancel, and a drape centred over the wall glided off along its top at
# 0.9 m/s (docs/design.md, round 19 (wall22)).
_SIDE_RIM_DEPTH = 2.0  # gaps: a side rim's crossing further into the face than this goes back too
# RIDGE_CONE (ridge_r27's two rules with persist_r28b's gates, one switch since ridgefold_r29; off): at a closed still
# mesh's convex ridge whose faces turn by under 90 degrees (a UV ball's 11.25, a torus's 30) cloth is pushed only out
# of the mesh, within the ridge's outward cone (between its faces' outward normals). Here: a cloth edge through a face
# goes out along the other face's outward normal, not across the ridge in the face's plane (that way runs along the
# surface and pushed cloth edges 2-3 cm sideways: 118 % stretch on a fan disc dropped on a ball). At 90 degrees (a
# box's rim) the two are the same; over 90 (a wedge's) the face's plane is inside the cone, kept. The other half is
# edge_contacts' (`_in_cone`). Both act only on a *fresh* cloth edge: its middle outside the mesh at the substep's
# start and at the ends of the last FRESH_MEMORY substeps (`edge_contacts.CutHistory`, the cloth's); the others (a
# curtain a ball appeared round) keep main's pushes (docs/design.md, rounds 27-29).
RIDGE_CONE = False
COS_CONE_LEAST = 1e-3  # (a box's 90 degrees, up to rounding: kept as it was)
FRESH_MEMORY = 30  # substeps a cloth edge cut through the mesh (its middle inside) stays not fresh (see above)


def low_rims_left(sharp, through, rim, at, out, up) -> None:
    """Of an open mesh's cloth edges `through` its faces by a rim (pairs `rim`, sharp edges `at`, out across the rim
    `out` (3, P)), those whose way out points down (`up` (3,): against gravity, own frame) are not through (cleared
    in `through`, in place): they are the vertex pass's (a wall's foot; see LOW_RIM_ANGLE)."""
    low = (dot(out.take(rim, axis=1), up[:, None]) < -_SIN_LOW_RIM) & sharp.open_rims.take(at)
    if low.any():
        through[rim.take(low.nonzero()[0])] = False


def side_rims_from_start(sharp, through, rim, at, out, up, start, end, gap: float) -> None:
    """Of a still open mesh's cloth edges `through` its faces by a rim (pairs `rim`, sharp edges `at`, out across the
    rim `out` (3, P)), those by a side rim (`up` (3,): against gravity, own frame) that began wholly on one side of
    the face's plane (pair ends `start`, `end`: (3, P) each), or pierce it further than _SIDE_RIM_DEPTH gaps from the
    rim, are not through (cleared in `through`, in place): they go back to their start's side (SIDE_RIMS_FROM_START)."""
    crossing = through.take(rim) & sharp.open_rims.take(at)
    crossing &= np.abs(dot(out.take(rim, axis=1), up[:, None])) <= _SIN_LOW_RIM
    k = crossing.nonzero()[0]
    if len(k):  # (whether the edge began wholly on one side of the face's plane)
        at_k, rim_k, face_k = at.take(k), rim.take(k), sharp.out_face.take(at.take(k), axis=1)
        a_k = sharp.a.take(at_k, axis=1)
        hp = dot(face_k, start[0].take(rim_k, axis=1) - a_k)
        hq = dot(face_k, start[1].take(rim_k, axis=1) - a_k)
        one_side = hp * hq > 0.0
        # (or pierces the face further from the rim than _SIDE_RIM_DEPTH gaps)
        p_k, q_k = end[0].take(rim_k, axis=1) - a_k, end[1].take(rim_k, axis=1) - a_k
        ep, eq = dot(face_k, p_k), dot(face_k, q_k)
        f = ep / np.where(ep != eq, ep - eq, 1.0)
        depth = dot(p_k + (q_k - p_k) * f, sharp.into.take(at_k, axis=1))
        one_side |= depth > _SIDE_RIM_DEPTH * gap
        through[rim_k[one_side]] = False


def rim_support(sharp, at, first, second, up, still: bool = True):
    """(on a rim, draped): which contacts (cloth edge ends first, second (3, C), sharp edges `at`) are on a
    convex rim with an end over one of its faces that faces up (within SUPPORT_ANGLE; `up` (3,): against
    gravity, the collider's frame), and of those, which have the other end beyond the rim and below that
    face's plane (draped over it). still: `up` is the same every pass (the table is kept on `sharp`), else
    it is made for the sharp edges `at` only."""
    on_rim = np.zeros(len(at), dtype=bool)
    draped = np.zeros(len(at), dtype=bool)
    faces, rim = _support_table(sharp, up) if still else _support_table(sharp, up, at)
    off = None  # (the ends from the edge's first end, once for both faces)
    for face_facing, face_n, face_into in faces:
        facing = face_facing.take(at) if still else face_facing
        if not facing.any():
            continue
        n, inside = (face_n.take(at, axis=1), face_into.take(at, axis=1)) if still else (face_n, face_into)
        if off is None:
            a = sharp.a.take(at, axis=1)
            off = (first - a, second - a)
        over = [dot(end, inside) > 0.0 for end in off]
        below = [dot(end, n) < 0.0 for end in off]
        on_rim |= facing & (over[0] | over[1])
        draped |= facing & ((over[0] & ~over[1] & below[1]) | (over[1] & ~over[0] & below[0]))
    if still:
        rim = rim.take(at)
    return on_rim & rim, draped & rim


def _support_table(sharp, up, at=None):
    """Per sharp edge (or the edges `at`), for `rim_support` with this `up` (3,): each face's (whether it faces
    up, its normal turned up (a one-face edge's), the unit direction into it), and which edges are convex rims.
    For all edges, kept on `sharp` while `up` is the same (a still mesh's every pass)."""
    if at is None:
        kept = sharp._support
        if kept is not None and (kept[0] is up or np.array_equal(kept[0], up)):
            return kept[1]
    pick = (lambda m: m) if at is None else (lambda m: m.take(at, axis=-1))
    out_other = pick(sharp.out_other)
    rim_face, rim_other = pick(sharp.rim_face), pick(sharp.rim_other)  # (RIM_SPAN: a bevel's far faces)
    one_face = dot(out_other, out_other) < 0.5
    faces = []
    for normal, into in ((rim_face, sharp.into), (rim_other, sharp.into_other)):
        facing = up @ normal
        flip = one_face & (facing < 0.0)  # (one face: the side facing up)
        n = normal * np.where(flip, -1.0, 1.0)
        faces.append((np.where(flip, -facing, facing) > _COS_SUPPORT, n, pick(into)))
    rim = pick(sharp.rim) & (dot(rim_face, rim_other) < _COS_RIM)  # (one face: 0)
    table = (faces, rim)
    if at is None:
        sharp._support = (up, table)
    return table


def _face_table(sharp):
    """Per sharp edge, `through_faces`'s constants: its length, and for each face its width across the edge
    (at least _EPS) and where its corner off the edge lies along it (kept on `sharp`)."""
    if sharp._faces is None:
        a, along = sharp.a, sharp.along
        faces = tuple(
            (np.maximum(width, _EPS), dot(corner - a, along))
            for width, corner in ((sharp.width, sharp.c), (sharp.width_other, sharp.c_other))
        )
        sharp._faces = (dot(sharp.b - a, along), faces)
    return sharp._faces


def through_faces(sharp, at, first, second, cone=None):
    """(through, out): whether each cloth edge first -> second ((3, C), the collider's frame) crosses either
    triangle on sharp edge `at`, and the unit direction out across the edge in the plane of the face(s)
    crossed (3, C) (through both: between them). Both faces alike, whichever the edge table lists first.
    cone: None (main's), or which pairs RIDGE_CONE may turn out along the other face's normal ((C,) bool: fresh)."""
    lengths, sizes = _face_table(sharp)
    a = sharp.a.take(at, axis=1)
    along = sharp.along.take(at, axis=1)
    length = lengths.take(at)
    p, q = first - a, second - a
    through = np.zeros(len(at), dtype=bool)
    out = np.zeros((3, len(at)))
    # An end behind both faces (inside a closed mesh, by the edge) is the vertex pass's, which pushes it out
    # through the face whose plane is nearer: a cloth edge from there through that face (cloth lying on a
    # table top, dipping into it by the rim) is not under the rim (out across the rim from there pushed it
    # off the table), one through the other face (wrapped round the rim, under it) is (round 10 (drift12)).
    face_n, other_n = sharp.out_face.take(at, axis=1), sharp.out_other.take(at, axis=1)
    # (each end's height over each face's plane, once: the depths below and the crossings below use them)
    heights = ((dot(face_n, p), dot(face_n, q)), (dot(other_n, p), dot(other_n, q)))
    depth_face = np.zeros(len(at))
    depth_other = np.zeros(len(at))
    for end in (0, 1):
        below_face, below_other = -heights[0][end], -heights[1][end]
        inside = (below_face > 0.0) & (below_other > 0.0)
        depth_face = np.where(inside, below_face, depth_face)
        depth_other = np.where(inside, below_other, depth_other)
    allowed = (depth_other <= depth_face, depth_face <= depth_other)  # (no end inside: both 0, both allowed)
    faces = zip(heights, (sharp.into, sharp.into_other), sizes, allowed, (other_n, face_n), strict=True)
    shallow = None
    if cone is not None:  # (RIDGE_CONE: a closed mesh's ridge turning under 90 degrees: out along the other's normal)
        shallow = (dot(face_n, other_n) > COS_CONE_LEAST) & cone
    for (height_p, height_q), into, (width, corner_along), exits_other, beyond_n in faces:
        hp, hq = height_p, height_q
        crosses = ((hp > 0.0) & (hq <= 0.0)) | ((hp < 0.0) & (hq >= 0.0))  # (one face's other: n = 0, never)
        # (the rest only for the cloth edges through the face's plane: a few percent of a pass's)
        k = (crosses & exits_other).nonzero()[0]
        if len(k) == 0:
            continue
        hp, hq, on = hp.take(k), hq.take(k), at.take(k)
        f = hp / (hp - hq)
        pk = p.take(k, axis=1)
        r = pk + (q.take(k, axis=1) - pk) * f
        inside = into.take(on, axis=1)
        x, y = dot(r, along.take(k, axis=1)), dot(r, inside)
        # (within the face's triangle: a strip along the whole edge reached past a pyramid's apex, and its
        # apex came 5 mm through a triangulated cloth; the 0.5 cm 8-segment rod lost the shifted cloth)
        h = width.take(on)
        xc = corner_along.take(on)  # the face's corner off the edge, along it
        edge_length = length.take(k)
        crossed = (y >= 0.0) & (y <= h)
        crossed &= (x >= xc * y / h) & (x <= edge_length + (xc - edge_length) * y / h)
        through[k] |= crossed
        if shallow is not None and shallow.any():
            inside = np.where(shallow.take(k), -beyond_n.take(k, axis=1), inside)
        out[:, k] -= inside * crossed
    out /= np.maximum(np.sqrt(dot(out, out)), _EPS)
    return through, out
