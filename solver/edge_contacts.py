"""Edge–edge contacts between cloth edges and a mesh collider's sharp edges (Bridson et al. 2002).

The vertex pass (solver/mesh_collider.py) keeps cloth *vertices* off the collider's triangles, so a
ridge thinner than a cloth edge (a zero-thickness wall's rim, a board's top corners, a table's
rim) passes between two vertices, through the middle of a cloth edge, and the cloth falls through.
This pass keeps cloth edges off the collider's *sharp* edges: boundary edges (one face) and edges
whose faces meet at more than `SHARP_ANGLE` (a smooth torus or ball has none and pays nothing).

Per substep, in the collider's own frame: a Verlet list of (cloth edge, sharp edge) pairs (`_EdgeList`),
then exact segment–segment closest points at the substep's end (how close) and start (which side). A
cloth edge closer than the gap, or one that crossed the sharp edge, has its two vertices pushed along
the separating direction, weighted by the closest point's parameter and inverse masses, so its closest
point ends at the gap; with Coulomb friction on the closest points' relative slide, and the part of the
push that clears what was already within the gap at the start carried to the start (no bounce), as the
vertex pass does. Measured in
docs/design.md ("Issue 11, round 7 (thinwall7)").

On closed meshes the pass runs on the mesh colliders' windows (every `step.EDGE_PASS_WINDOWS`-th, over
the motion since its last pass) and `hold_edges` keeps its contacts between passes; open meshes' rims
(nothing solid below them) get the pass every substep (docs/design.md, "round 8 (edgehold9)").

Deforming meshes (an armature, a shape key, a cloth used as a collider) get the end shape's sharp edges
every frame (`frame_sharp_edges`, the edge table kept across frames), with boxes over the frame's
motion, a list made afresh each frame, and the held contacts' edges followed as they move
(docs/design.md, "Issue 11, round 9 (layers11)").
"""

from __future__ import annotations

import math
import weakref
from typing import NamedTuple

import numpy as np

from .clearance import Clearance
from .contact import add_averaged, combined_friction, vertex_places
from .edge_iterations import iterate_edge_contacts
from .edge_topology import EdgeTable, edge_table, kept_edge_table
from .inside_recovery import _bins_of, inside_closed
from .mesh_collider import MIN_GAP, MeshCollider, _columns, _to_frame
from .triangle_grid import GROUPED_MOST, TriangleGrid, overlapping
from .triangles import _EPS as _TRI_EPS
from .triangles import corner_angles, cross, dot, segment_closest_along, segment_crossings
from .vectors import c_einsum, rows_among

SHARP_ANGLE = 30.0  # degrees between two faces' normals above which their shared edge is sharp
_COS_SHARP = math.cos(math.radians(SHARP_ANGLE))
_EPS = 1e-12
# The candidate list's skin, in longest cloth edges (twice the longest rest edge): a falling cloth
# queries every few substeps near the sharp edges, a resting one never. (Pairs not yet within reach
# are not handed out, so a wide skin costs little; see _EdgeList.)
_SKIN = 2.0
# A still mesh's list gives each vertex a skin of its own when anchored: _SKIN_PASSES times its motion over
# the pass, within _LEAST_SKIN.._SKIN longest cloth edges. Cloth lying on a table top kept ~9 cm boxes that
# reached the legs' edges through the top (the round-legged table's list: 54,000 -> 20,000 pairs, for
# 68 queries in 24 frames instead of 47; docs/design.md, round 10 (table12)).
_LEAST_SKIN = 1.0
_SKIN_PASSES = 4.0
# When some vertex strays half a skin, every vertex that strayed this fraction of it is queried too:
# a swinging cloth's vertices stray one after another, and each query costs fixed calls.
_REFRESH = 0.5
_BOUND_SHORT = 1.0 - 1e-9  # (the drift bound is a sum of roundings: short of the reach by more than them)
# A still mesh's list gives a vertex anchored far from every sharp edge a half skin as wide as keeps its box clear
# of them all (`Clearance`, cells of _ROOM_CELL half skins): the hanging cloth swinging a few cm between the legs
# queried the list ~2 times a frame, each time for a handful of vertices ~10-40 cm from any sharp edge.
ROOMY_SKINS = True  # (folded in here, round 24; corner_contacts.py still reads the name)
_ROOM_CELL = 0.5
# A deforming mesh's (its list is made afresh every frame, so the skin need only cover a frame's motion).
_FRAME_SKIN = 0.5
# Box pairs up to which the candidate query compares all boxes with all (a TriangleGrid over a few
# long sharp edges cost ~3 ms a query of a few thousand cloth edges; all against all ~0.5; but 12k cloth
# edges against a deforming ground's 252 rim edges, 3 M pairs, 12.8 ms against the grid's 3).
_BRUTE = 1 << 20
_EMPTY = np.zeros(0, dtype=np.int64)
# A thin sharp edge within this of gravity's line (a standing pole, a table's round leg) carries no
# hanging cloth: it is collided on the windows, with the hold (see collide_cloth_edges).
UPRIGHT_ANGLE = 30.0
_COS_UPRIGHT = math.cos(math.radians(UPRIGHT_ANGLE))
# TIPPED_RODS (a rule, folded in round 24):
# A still collider with a sharp tip (a pointed rod, a spike) gets the pass every substep on its standing thin edges
# that end at no sharp tip too (a rod's sides below its point): a cloth hanging from the tip is drawn in
# round the rod below it, and with the windows and the hold 3 cm cloth edges ended through a 1 cm rod's sides
# (docs/design.md, round 12 (needle15)). From the run's start: switched on when a tip first held the cloth, edges
# already through stayed through (kept on their side) and the rod ended through the cloth's whole skirt. Of the
# edges that reach the point, only those sharp by curvature alone (a cone's sides, bending under SHARP_ANGLE:
# they held an irregular 64² cloth the cone r 5 cm skewered): with a 2 cm pyramid's edges (90°) a triangulated
# 64² cloth was flung up off its apex.
# AFTER_CORNERS (a rule, folded in round 24):
# ... and that pass again after the corner pass: the tip's support propagation (contact_support.py) moves cloth
# 0.6-0.7 m from the tip after the edge pass, and carried skirt edges through a 1 cm rod's foot, where the next
# pass kept them (docs/design.md, round 13 (needle16)).
# ROD_ENDS_TIPPED (a rule, folded in round 24):
# A thin rod's upper ends (corner_contacts.ROD_ENDS: sharp tips too) switch that pass on for its sides as well. Off in
# round 14 (posts17: a fan disc on a 1 cm post and a 64² cloth on a 2 cm one were flung up); the flings were the support
# propagation's (contact_support.HANGING_ONLY), and without the pass cloth lying round a post's foot ended pierced by
# it (1 cm 8-segment post, quad / triangulated 64²: 14-64 crossings to the end at 3 of 4 placements; with it 0 at every
# frame; docs/design.md, round 15 (fling18)).
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
# (Turned less than this from the other face: a slab thinner than the radius is a slab, its top no face of its
# bottom rim; exactly 180° also has no sense.)
_RIM_SPAN_MOST = math.radians(150.0)
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
# BRAKED_EDGES (a rule, folded in round 24):
# Contacts with the braked edges (`SharpEdges.braked`: an open mesh's edges sharp by the rounded rule or the shallow
# ridges' alone, a closed mesh's by its convex shallow ridges' alone) brake the cloth's own slide, as the faces under
# it would (the closest points' slide leaves free a cloth edge that slides along itself across the edge, and the pass
# lifts its ends off the faces whose friction held them: a coarse cloth slid off a smooth open dome made sharp all
# over; docs/design.md, round 15 (bump18); off a low-poly ball, round 16 (lowpoly19)). Not the rod rule's or a cone's
# sides. (Named OPEN_ROUNDED_BRAKE until round 17.)
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
# OPEN_WINDOWS (a rule, folded in round 24):
# An open mesh's edges on two faces go on the mesh colliders' windows with the hold between, as a closed mesh's; its
# rims (one face: nothing solid below) keep the pass every substep (docs/design.md, round 16 (dome19)).
# A rim's way out across it within LOW_RIM_ANGLE of the horizontal: a side rim (SIDE_RIMS_FROM_START).
LOW_RIM_ANGLE = 30.0
_SIN_LOW_RIM = math.sin(math.radians(LOW_RIM_ANGLE))
# SIDE_RIMS_FROM_START (a rule, folded in round 24):
# A cloth edge through an open mesh's face by a side rim (its way out across it within LOW_RIM_ANGLE of the
# horizontal: a zero-thickness wall's upright ends) that started wholly on one side of the face's plane goes back
# to its start's side, not out across the rim: a cloth hanging flat on a wall's face dipped a fraction of a
# millimetre through it by the wall's upright ends and was pushed 5-15 mm along the face out past the end, every
# substep; the two ends' pushes did not cancel, and a drape centred over the wall glided off along its top at
# 0.9 m/s (docs/design.md, round 19 (wall22)).
# RIM_SLIDE_ALONG (a rule, folded in round 24):
# An open mesh's rim (a still one) brakes a cloth sliding along it: the friction's slide was the closest points',
# and the closest point on the rim moves along with a cloth sliding along the rim, so that slide was not braked at
# all (an off-centre drape crept off along a wall's top at 5 cm/s, steadily; docs/design.md, round 19 (wall22)).
_SIDE_RIM_DEPTH = 2.0  # gaps: a side rim's crossing further into the face than this goes back too
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
# OUTSIDE_ENDS_ONLY (a rule, folded in round 24):
# Those edges (sharp for long cloth edges alone) take no cloth edge with an end inside the mesh deeper than the gap
# (under both the edge's faces' planes by more) at the path's start or end: an end deep inside is the vertex pass's
# and the recovery's; across the ridge such edges were pushed up to 110 mm a substep, and a curtain that a
# spherified cube appeared round swung out 0.3-0.5 m (docs/design.md, round 18 (fanball21), round 19 (fan22)).
_INSIDE_DEPTH = 1.0  # gaps
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
# A rigid mesh that turns while its centre travels more than TURN_TRAVEL gaps a substep gets the edge pass every
# substep (`_turning`): with windows a box tumbling at 6 m/s hooked a curtain; turning about a still centre (a
# turntable, a box spinning in place) it keeps the windows, which hold there (docs/design.md, round 13 (turn16)).
TURN_TRAVEL = 0.5
# CULL_APART (a rule, folded in round 24):
# A still mesh's candidate pairs whose cloth edge lies, at the path's end, on one side of a plane through the sharp
# edge further than its travel + the gap, and through neither face, leave the pass before its closest points
# (`_cull_apart`, in `_EdgeList.pairs`, which keeps them out until their ends move far enough): they push nothing and
# the hold gets none of them, so the drapes are the same to the last bit. On a low-poly ball every edge is sharp and
# its boxes are wide: 920 pairs a pass met the boxes, 75 were contacts; 319 are handed out now (docs/design.md, round
# 18 (coarse21)).
# SHORT_UNLISTED (a rule, folded in round 24):
# Where every sharp edge is sharp for long cloth edges alone (`SharpEdges.least`: a torus's ridges under a 64² cloth),
# the Verlet list leaves out the cloth edges shorter than the least of those at the pass's start and end (whose pairs
# `SharpEdges.pairs` drops), checks them every pass and queries those grown long (their ends anchored afresh): the
# pass gets the same pairs (bit-identical) without querying, listing and boxing theirs (docs/design.md, round 20
# (ridge23)).
_CULL_ROUNDING = 1e-9  # m
_FAR = 1e30  # m: no pass yet (finite, so that a bound less a motion stays a number)


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
            # how far below the rim a cloth edge through the face is caught (`_through_faces`).
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
        # zero): whether a face carries a cloth draped over the rim (see `_supported`).
        self.out_face, self.out_other = _face_normals(self.a, self.b, self.into, self.into_other)
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
        self._faces: tuple | None = None  # per sharp edge, `_through_faces`'s constants (still meshes: `_face_table`)
        self._support: tuple | None = None  # (up, per sharp edge `_supported`'s constants for that up)
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


class _EdgeList:
    """A Verlet list of (cloth edge, sharp edge) pairs: each cloth edge's pairs are found for the box of
    its ends' `anchor`s (their places when it was last queried) grown by the larger of their half skins
    (`reach`: each vertex's own, from its motion when anchored), and kept while both ends stay within
    their own of their anchors; a vertex that strays further is anchored afresh and
    its edges queried again (a cloth resting on a table queries nothing, a swinging corner a few edges).

    Each pair keeps a lower bound of how far the box of its ends' places at the last pass (`last`) was
    from the sharp edge's box (grown by the gap): while neither end has moved that far since, the cloth
    edge's swept box cannot meet the sharp edge's, so the pair is not handed out (as face_collision's
    `_live`). Handed-out pairs get their exact separation, the others the bound less the motion since."""

    def __init__(self, edges, n: int, gap: float, skin: float, least: float | None = None):
        self.edges, self.gap, self.half = edges, gap, 0.5 * skin
        self._ends = (edges[:, 0].copy(), edges[:, 1].copy())  # (each cloth edge's ends, contiguous)
        self.least = self.half if least is None else 0.5 * least
        self.anchor = np.full((3, n), np.inf)
        self.reach = np.full(n, self.half)  # each vertex's half skin, by its motion when last anchored
        self.last = np.full((3, n), _FAR)
        self.e = self.s = self.i = self.j = _EMPTY
        self.apart = np.zeros(0)  # each pair's lower bound of its box separation at the last pass
        self.queries = 0
        self._stray = np.empty(n)  # reused: each vertex's squared stray from its anchor this substep
        self.drift = np.full(n, np.inf)  # each vertex's bound of its distance from its anchor at `last`
        self._moved = np.empty(n)  # reused: each vertex's squared motion since the last pass
        self._movable: tuple = (None, None)
        self._step = np.empty((3, n))
        self._clearance: tuple = (None, None)  # (the grid, a Clearance of its boxes: `_room`)
        self.room = np.full(n, -np.inf)  # each vertex's room at its anchor (`_room`; -inf: none known)
        # The least cloth edge length the sharp edges are sharp for (`SharpEdges.least`, 0: any): a cloth edge
        # shorter at a pass's start and end is not listed (`_short`), and is queried when it is no longer so
        # (SHORT_UNLISTED).
        self.shortest = 0.0
        self._short = np.zeros(len(edges), dtype=bool)
        self._short_ids = _EMPTY

    def pairs(self, inv_mass, p0, p1, grid, planes=None):
        """(e, s, i, j, start, end, travel): the listed pairs whose cloth edge's swept box meets the sharp edge's
        box this substep (cloth edge, sharp edge, its two ends, the ends' places (3, P) at the substep's start
        and end, and with `planes` each cloth edge's travel (P,), its ends' larger motion, as `_cull_apart` found
        it, else None), in a fixed order; None: none."""
        moved = squared_stray(p0, p1, self.last, self._moved, self._step)
        np.sqrt(moved, out=moved)
        # A vertex's stray from its anchor is at most its bound at the last pass plus its motion since: only when
        # that passes its reach somewhere is the stray measured (the same queries; resting cloth measures none).
        drift = np.add(self.drift, moved, out=self.drift)
        grown = None  # (SHORT_UNLISTED: the unlisted short edges grown long, their ends queried afresh)
        if len(self._short_ids):
            grown = self._short_ids.compress(~self._shorter(self._short_ids, p0, p1))
            grown = None if len(grown) == 0 else grown
        if grown is not None or (drift > _BOUND_SHORT * self.reach).any():
            stray = squared_stray(p0, p1, self.anchor, self._stray, self._step)
            np.sqrt(stray, out=stray)
            if grown is not None or (stray > self.reach).any():
                strayed = stray > _REFRESH * self.reach
                if grown is not None:
                    strayed[self._ends[0].take(grown)] = True
                    strayed[self._ends[1].take(grown)] = True
                self._query(strayed, inv_mass, p0, p1, grid)
            np.copyto(drift, stray)  # (>= each vertex's distance at p1 from its anchor; 0 where anchored afresh)
        self.last[...] = p1
        if len(self.e) == 0:
            return None
        if len(self.e) > len(self.edges):  # (more pairs than cloth edges: each cloth edge's, then its pairs')
            reach = np.maximum(moved.take(self._ends[0]), moved.take(self._ends[1])).take(self.e)
        else:
            reach = np.maximum(moved.take(self.i), moved.take(self.j))
        live = (self.apart <= reach).nonzero()[0]
        self.apart -= reach  # (a bound at this pass for the pairs not handed out; exact for the others below)
        if len(live) == 0:
            return None
        e, s, i, j = self.e.take(live), self.s.take(live), self.i.take(live), self.j.take(live)
        box_low, box_high = grid.low.take(s, axis=1), grid.high.take(s, axis=1)
        end = [p1.take(i, axis=1), p1.take(j, axis=1)]
        end_high, end_low = np.maximum(end[0], end[1]), np.minimum(end[0], end[1])
        self.apart[live] = _box_apart(end_low, end_high, box_low, box_high)
        # Only pairs whose cloth edge's swept box meets the sharp edge's box grown by the gap can touch.
        # (Grown by a fraction of an edge more for rims, to catch cloth edges through a rim's face further
        # below it: 0.5 of the longest edge slid the cloth off a zero-thickness wall, 0.1 changed nothing.)
        start = [p0.take(i, axis=1), p0.take(j, axis=1)]
        high = np.maximum(np.maximum(start[0], start[1]), end_high)
        low = np.minimum(np.minimum(start[0], start[1]), end_low)
        high -= box_low
        low -= box_high
        high, low = high >= 0.0, low <= 0.0
        meets = (high[0] & high[1] & high[2] & low[0] & low[1] & low[2]).nonzero()[0]
        if len(meets) == 0:
            return None
        travel = None
        if planes is not None:  # (`_cull_apart`: those that cannot touch, their bound kept)
            first, second = [[m.take(meets, axis=1) for m in ends] for ends in (start, end)]
            culled, bound, kept, travel = _cull_apart(planes, s.take(meets), first, second, self.gap)
            if len(culled):
                place = live.take(meets.take(culled))
                self.apart[place] = np.maximum(self.apart.take(place), bound)
                meets, travel = meets.take(kept), travel.take(kept)
                if len(meets) == 0:
                    return None
        # By sharp edge, then cloth edge, whatever order the list keeps them in: a vertex's pushes are summed in
        # this order, so how the list is kept (its queries' times) changes no result, not even its last bits.
        order = np.argsort(s.take(meets) * len(self.edges) + e.take(meets))
        meets = meets.take(order)
        if travel is not None:
            travel = travel.take(order)
        e, s, i, j = e.take(meets), s.take(meets), i.take(meets), j.take(meets)
        return e, s, i, j, [m.take(meets, axis=1) for m in start], [m.take(meets, axis=1) for m in end], travel

    def _query(self, strayed, inv_mass, p0, p1, grid) -> None:
        """Anchor the strayed vertices where they are and find their edges' pairs again."""
        self.queries += 1
        which = strayed.nonzero()[0]
        anchored = p1.take(which, axis=1)
        self.anchor[:, which] = anchored
        self._stray[which] = 0.0  # (their bound from the new anchor: `pairs`' drift)
        if self.least < self.half:  # a half skin of _SKIN_PASSES passes' motion, within least..half
            motion = anchored - p0.take(which, axis=1)
            motion = np.sqrt(dot(motion, motion)) * _SKIN_PASSES
            reach = np.clip(motion, self.least, self.half)
            room = self.room[which] = self._room(grid, anchored)
            np.maximum(reach, room, out=reach)
            self.reach[which] = reach
        first, second = self.edges[:, 0], self.edges[:, 1]
        again = strayed.take(first) | strayed.take(second)
        if len(self.e):
            keep = (~again.take(self.e)).nonzero()[0]
            self.e, self.s, self.i, self.j, self.apart = (
                m.take(keep) for m in (self.e, self.s, self.i, self.j, self.apart)
            )
        if self._movable[0] is not inv_mass:  # edges with a free end (kept while the masses are)
            self._movable = (inv_mass, (inv_mass.take(first) > 0.0) | (inv_mass.take(second) > 0.0))
        again &= self._movable[1]
        use = again.nonzero()[0]
        if self.shortest > 0.0 and len(use):  # (SHORT_UNLISTED: short for every sharp edge, not listed)
            short = self._shorter(use, p0, p1)
            self._short[use] = short
            self._short_ids = self._short.nonzero()[0]
            use = use.compress(~short)
        if len(use) == 0:
            return
        # Each edge's box: its ends' anchors and starts (a strayed vertex's start may be far from its new anchor).
        i, j = first.take(use), second.take(use)
        points = [p.take(v, axis=1) for p in (self.anchor, p0) for v in (i, j)]
        reach_i, reach_j = self.reach.take(i), self.reach.take(j)
        # Each end's anchor grown by its own half skin (with a wide one far from the sharp edges, the edge's box
        # grown by the wider would reach them), and its start (the box holds this pass's path too).
        low = np.minimum(np.minimum(points[0] - reach_i, points[1] - reach_j), np.minimum(points[2], points[3]))
        high = np.maximum(np.maximum(points[0] + reach_i, points[1] + reach_j), np.maximum(points[2], points[3]))
        # Quick: not within its first end's room (an edge far from every sharp edge), and within the sharp edges'
        # bounds.
        room_i = self.room.take(i)
        clear = (low >= points[0] - room_i).all(axis=0) & (high <= points[0] + room_i).all(axis=0)
        near = ~clear
        for k in range(3):
            near &= (high[k] >= grid.lower[k]) & (low[k] <= grid.upper[k])
        near = near.nonzero()[0]
        if len(near) == 0:
            return
        low, high = low.take(near, axis=1), high.take(near, axis=1)
        if grid.triangle_count <= GROUPED_MOST:  # a few hundred sharp edges: by groups of neighbours
            q, s = grid.groups().overlapping(low, high)
        elif len(near) * grid.triangle_count <= _BRUTE:  # few boxes: all against all beats the grid's fixed cost
            q, s = overlapping(low, high, grid.low, grid.high)
        else:
            q, s = grid.query_boxes(low.T, high.T)
        if len(q):
            e = use.take(near.take(q))
            i, j = first.take(e), second.take(e)
            self.e, self.s = np.concatenate([self.e, e]), np.concatenate([self.s, s])
            self.i, self.j = np.concatenate([self.i, i]), np.concatenate([self.j, j])
            # (at the last pass's places, as the kept pairs': `pairs` brings all to this pass)
            kept = len(self.apart)
            apart = np.empty(kept + len(s))
            apart[:kept] = self.apart
            _ends_apart(self.last, i, j, grid.low, grid.high, s, apart[kept:])
            self.apart = apart

    def _shorter(self, e, p0, p1) -> np.ndarray:
        """Whether each cloth edge e is shorter than `shortest` at this pass's start and end (as `SharpEdges.pairs`
        measures them: it drops such an edge's pairs with every sharp edge)."""
        i, j = self._ends[0].take(e), self._ends[1].take(e)
        least = self.shortest * self.shortest
        span = p0.take(j, axis=1) - p0.take(i, axis=1)
        short = dot(span, span) < least
        span = p1.take(j, axis=1) - p1.take(i, axis=1)
        short &= dot(span, span) < least
        return short

    def _room(self, grid, points) -> np.ndarray:
        """How far (along any axis) each of points (3, k) may move and stay clear of every sharp edge's box."""
        if self._clearance[0] is not grid:
            self._clearance = (grid, Clearance(grid.low, grid.high, 0.0, _ROOM_CELL * self.half))
        room = self._clearance[1].room(points)
        outside = np.maximum(grid.lower[:, None] - points, points - grid.upper[:, None])  # (off the map: its bounds)
        return np.maximum(room, outside.max(axis=0), out=room)


def squared_stray(p0, p1, reference, out, step) -> np.ndarray:
    """Each vertex's squared distance from `reference` (3, N), the larger at the substep's start and end."""
    # (the rows summed in order, as sum(axis=0) adds them, without its wrapper: ~3 us of ~10 at 400 vertices)
    np.subtract(p1, reference, out=step)
    step *= step
    np.add(step[0], step[1], out=out)
    out += step[2]
    np.subtract(p0, reference, out=step)
    step *= step
    other = step[0] + step[1]
    other += step[2]
    return np.maximum(out, other, out=out)


def _ends_apart(points, i, j, box_low, box_high, s, out) -> np.ndarray:
    """`_box_apart` of the boxes of points (3, N) i and j (P,) from boxes s (P,) of box_low..box_high (3, S), into
    out (P,), in blocks of _APART_BLOCK (the same values, with no temporaries the size of the list: a query may add
    ~35,000 pairs, and a fresh array that large costs more in page faults than its arithmetic)."""
    for start in range(0, len(s), _APART_BLOCK):
        block = slice(start, start + _APART_BLOCK)
        a, b, sb = points.take(i[block], axis=1), points.take(j[block], axis=1), s[block]
        low, high = np.minimum(a, b), np.maximum(a, b, out=a)
        out[block] = _box_apart(low, high, box_low.take(sb, axis=1), box_high.take(sb, axis=1))
    return out


_APART_BLOCK = 4096  # (32 KB temporaries: they come back from the allocator's free lists, no page faults)


def _box_apart(low, high, box_low, box_high) -> np.ndarray:
    """Distance (largest along an axis) from each box low..high (3, P) (a cloth edge's ends') to each box
    box_low..box_high: the cloth edge's swept box cannot meet it unless an end moves that far."""
    # Row by row into one array (the same maxima: exact; ~1/3 of the (3, P) temporaries and no strided reduction)
    apart = np.subtract(box_low[0], high[0])
    np.maximum(apart, np.subtract(low[0], box_high[0]), out=apart)
    for k in (1, 2):
        np.maximum(apart, np.subtract(box_low[k], high[k]), out=apart)
        np.maximum(apart, np.subtract(low[k], box_high[k]), out=apart)
    return np.maximum(apart, 0.0, out=apart)


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
    bent = cos < _COS_SHARP
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


def _supported(sharp, at, first, second, up, still: bool = True):
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
    """Per sharp edge (or the edges `at`), for `_supported` with this `up` (3,): each face's (whether it faces
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
    """Per sharp edge, `_through_faces`'s constants: its length, and for each face its width across the edge
    (at least _EPS) and where its corner off the edge lies along it (kept on `sharp`)."""
    if sharp._faces is None:
        a, along = sharp.a, sharp.along
        faces = tuple(
            (np.maximum(width, _EPS), dot(corner - a, along))
            for width, corner in ((sharp.width, sharp.c), (sharp.width_other, sharp.c_other))
        )
        sharp._faces = (dot(sharp.b - a, along), faces)
    return sharp._faces


def _through_faces(sharp, at, first, second):
    """(through, out): whether each cloth edge first -> second ((3, C), the collider's frame) crosses either
    triangle on sharp edge `at`, and the unit direction out across the edge in the plane of the face(s)
    crossed (3, C) (through both: between them). Both faces alike, whichever the edge table lists first."""
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
    faces = zip(heights, (sharp.into, sharp.into_other), sizes, allowed, strict=True)
    for (height_p, height_q), into, (width, corner_along), exits_other in faces:
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
        out[:, k] -= inside * crossed
    out /= np.maximum(np.sqrt(dot(out, out)), _EPS)
    return through, out


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


def cloth_edges(triangles: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, float]:
    """(E, 2) unique edges of (T, 3) triangles, and twice the longest at `positions` (room for stretch)."""
    if len(triangles) == 0:
        return np.zeros((0, 2), dtype=np.int64), 0.0
    edges = np.concatenate([triangles[:, [0, 1]], triangles[:, [1, 2]], triangles[:, [2, 0]]])
    edges = np.unique(np.sort(edges, axis=1), axis=0)
    d = positions[edges[:, 0]] - positions[edges[:, 1]]
    return edges, 2.0 * float(np.sqrt((d * d).sum(axis=1)).max())


def collide_cloth_edges(
    x, x_start, inv_mass, model, colliders, t0, t1, thickness, friction, window=None, contacts=None, closes=True,
    gravity=None, tipped_only: bool = False, hold_near: float | None = None,
) -> None:  # fmt: skip
    """`collide_edges` for every mesh collider with sharp edges, for the substep t0 -> t1 (step's hook).

    tipped_only: only the every-substep pass of still meshes with a sharp tip (TIPPED_RODS), run again after the
    corner pass, whose support propagation moves cloth far from the tip and carried skirt edges back through a
    pointed rod's foot (AFTER_CORNERS; docs/design.md, round 13 (needle16)).

    With `contacts` (a dict per cloth), the mesh colliders' windows (solver/step.py): a closed mesh's
    pass runs where a window `closes`, over the window's path (`window`: (positions, frame fraction) where
    it starts, None: this substep's start; the settled pushes still go to x_start), and leaves its contacts
    in `contacts` for `hold_edges` on the substeps in between. An open mesh's rims (a zero-thickness
    wall's) get the pass every substep: nothing else keeps cloth edges off a rim that has no solid below
    it (with windows and the hold, 62 of 64 cloth edges across a wall's rim ended under it; docs/design.md).
    So do the sides of a rod or bar thinner than a cloth edge (`SharpEdges.thin`) that a cloth can hang on,
    in a pass of their own: with the hold's one averaged push a vertex a cloth hanging on a rod fell
    through (docs/design.md, round 8 (edgewin10)). Not those within UPRIGHT_ANGLE of `gravity` (3,) (a
    table's round legs: nothing hangs on them, and their pass every substep tripled the table's cost;
    round 9 (table11)), unless the collider has a sharp tip (TIPPED_RODS); without gravity, all thin edges."""
    edges, longest = model.cloth_edges
    radius = 0.5 * longest  # (the longest cloth edge: a feature rounder than that is sharp for this cloth)
    found = _edge_colliders(colliders, radius, thickness)
    if not found:
        return
    args = (edges, inv_mass, t0, t1, thickness, friction, longest)
    up = _up(gravity)
    for index, collider, sharp in found:
        key = ("edges", index)  # (its place in the list: two colliders may share a mesh, not a pose)
        if tipped_only:
            below = _below_a_tip(collider, sharp, up) if sharp.thin.any() else None
            hanging = None if below is None else _split(sharp, collider._pose_at(t1), gravity, below)[0]
            if hanging is not None:
                collide_edges(collider, x, x_start, *args, sharp=hanging, up=up)
            continue
        windowed_open = sharp.open and not collider.mesh.outward
        if contacts is None or (sharp.open and not windowed_open) or _turning(collider, thickness, t1 - t0):
            collide_edges(collider, x, x_start, *args, sharp=sharp, up=up)
            continue
        below = _below_a_tip(collider, sharp, up) if sharp.thin.any() else None
        if windowed_open:  # (its rims every substep, with its hanging thin edges)
            below = sharp.open_rims if below is None else below | sharp.open_rims
        hanging, rest = _split(sharp, collider._pose_at(t1), gravity, below)
        if hanging is not None:
            collide_edges(collider, x, x_start, *args, sharp=hanging, up=up)
        if rest is None:
            continue
        if closes:
            path_start, path_t0, settle = (x_start, t0, None) if window is None else (*window, (x_start, t0))
            found_contacts = collide_edges(
                collider, x, path_start, edges, inv_mass, path_t0, t1, thickness, friction, longest, settle, True,
                sharp=rest, up=up, hold_near=hold_near,
            )  # fmt: skip
            contacts[key] = None if found_contacts is None else (collider.mesh, found_contacts)
        else:
            held = contacts.get(key)
            if held is not None and held[0] is collider.mesh:
                hold_edges(collider, x, x_start, inv_mass, t0, t1, friction, held[1])


_LAST_UP: list = [None, None]  # (gravity, the unit vector against it) last asked for by a tuple (immutable)


def _up(gravity):
    """The unit vector (3,) against `gravity`, None without gravity (or without one given)."""
    if gravity is None:
        return None
    if _LAST_UP[0] is gravity:
        return _LAST_UP[1]
    down = np.asarray(gravity, dtype=np.float64)
    length = float(np.sqrt(down @ down))
    up = -down / length if length > 0.0 else None
    if isinstance(gravity, tuple):
        _LAST_UP[:] = gravity, up
    return up


def _split(sharp: SharpEdges, pose, gravity, below=None):
    """`sharp.parts` of its `_hanging` edges (and `below`'s, `_below_a_tip`: the same for a mesh's SharpEdges),
    kept on `sharp` while the pose and gravity (a tuple: immutable) are the same objects (a still mesh's every
    substep: its pose is None)."""
    kept = sharp._split
    if kept is not None and kept[0] is pose and kept[1] is gravity:
        return kept[2]
    hanging = _hanging(sharp, pose, gravity)
    found = sharp.parts(hanging if below is None else hanging | below)
    if gravity is None or isinstance(gravity, tuple):
        sharp._split = (pose, gravity, found)
    return found


def _hanging(sharp: SharpEdges, pose, gravity) -> np.ndarray:
    """Which sharp edges are thin (`SharpEdges.thin`) and further than UPRIGHT_ANGLE from `gravity`'s
    line at the collider's pose (rotation, origin) or None: a cloth can hang on them."""
    if gravity is None or not sharp.thin.any():
        return sharp.thin
    down = np.asarray(gravity, dtype=np.float64)
    length = float(np.sqrt(down @ down))
    if not length > 0.0:
        return sharp.thin
    along = sharp.along if pose is None else pose[0] @ sharp.along  # (own frame to world)
    return sharp.thin & (np.abs(down @ along) < _COS_UPRIGHT * length)


def _turning(collider, thickness: float, substep: float) -> bool:
    """Whether a rigid mesh turns this frame while its centre travels more than TURN_TRAVEL gaps in a substep
    (`substep`: its share of the frame): its edge pass then runs every substep. With windows, a box tumbling
    through a curtain at 6 m/s hooked cloth edges over its leading corner for good (664% stretch at 16 substeps;
    docs/design.md, round 12 (tumble15)); a turntable's windows (its centre still) hold, at 22% less cost."""
    return travelling(collider, thickness, substep) and not np.array_equal(collider.pose_start[0], collider.pose[0])


def travelling(collider, thickness: float, substep: float) -> bool:
    """Whether a rigid mesh's centre travels more than TURN_TRAVEL gaps in a substep (`substep`: its share of the
    frame), turning or not (solver/step.py EDGES_AFTER_MOVING_VERTICES)."""
    first, last = collider.pose_start, collider.pose
    if first is last or first is None:
        return False
    centre = _centre(collider.mesh)
    travel = (last[0] @ centre + last[1]) - (first[0] @ centre + first[1])
    gap = max(float(thickness) + collider.offset, MIN_GAP)
    return float(np.sqrt(travel @ travel)) * substep > TURN_TRAVEL * gap


_CENTRES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # TriangleMesh -> its bounding box's centre


def _centre(mesh) -> np.ndarray:
    """The centre (3,) of a mesh's bounding box, in its own frame."""
    found = _CENTRES.get(mesh)
    if found is None:
        vertices = np.asarray(mesh.vertices, dtype=np.float64).reshape(-1, 3)
        found = _CENTRES[mesh] = 0.5 * (vertices.min(axis=0) + vertices.max(axis=0)) if len(vertices) else np.zeros(3)
    return found


_BELOW_A_TIP: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # SharpEdges -> (its corners, its mask or None)


def _below_a_tip(collider, sharp: SharpEdges, up=None) -> np.ndarray | None:
    """Of a still mesh's sharp edges, the thin ones that end at none of its sharp tips or bend less than SHARP_ANGLE,
    when it has a sharp tip (a pointed rod's sides, a cone's; not a pyramid's edges), else None (see TIPPED_RODS).
    up (3,): against gravity, world (a thin rod's upper ends count as tips here, corner_contacts.ROD_ENDS)."""
    from .corner_contacts import _corners_of_collider

    rods = None
    if up is not None and not collider.deforming and sharp.thin.any():
        pose = collider._pose_at(1.0)
        rods = (sharp, up if pose is None else pose[0].T @ up, sharp.radius)
    corners = _corners_of_collider(collider, rods)
    found = _BELOW_A_TIP.get(sharp)
    if found is None or found[0] is not corners:
        mask = None
        apexes = corners.tips & ~corners.ends
        if not collider.deforming and (apexes.any() or corners.ends.any()):
            tips = corners.points.T[apexes]
            at_tip = rows_among(sharp.a.T, tips) | rows_among(sharp.b.T, tips)
            curved = dot(sharp.into, sharp.into_other) <= -_COS_SHARP  # (sharp by curvature only: a cone's sides)
            mask = sharp.thin & (~at_tip | curved)
        found = _BELOW_A_TIP[sharp] = (corners, mask if mask is not None and mask.any() else None)
    return found[1]


def _edge_colliders(colliders, radius: float, thickness: float) -> list:
    """(place in the list, collider, its SharpEdges) of the mesh colliders with sharp edges (those rounder than
    `radius` included)."""
    found = []
    for index, c in enumerate(colliders):
        if isinstance(c, MeshCollider):
            sharp = _sharp_of(c, radius, thickness)
            if len(sharp):
                found.append((index, c, sharp))
    return found


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


def _sharp_of(collider, radius: float, thickness: float) -> SharpEdges:
    gap = max(float(thickness) + collider.offset, MIN_GAP)
    if collider.mesh.outward:
        rounded = rounded_radius(radius, gap)
    else:
        rounded = open_rounded_radius(radius, gap)
    if collider.deforming:
        return frame_sharp_edges(collider, radius, rounded, gap)
    return sharp_edges_of(collider.mesh, radius, rounded, gap)


def has_braked_edges(collider, longest: float, thickness: float) -> bool:
    """Whether the collider has sharp edges for a cloth whose longest edge is `longest` that only the rounded rule or
    the shallow ridges made sharp (`SharpEdges.braked`: a low-poly ball's ridges)."""
    return _sharp_of(collider, 0.5 * longest, thickness).any_braked


def collide_edges(
    collider, x, x_start, edges, inv_mass, t0, t1, thickness, cloth_friction, longest: float, settle=None,
    keep_contacts: bool = False, sharp: SharpEdges | None = None, up=None, hold_near: float | None = None,
):  # fmt: skip
    """Push cloth edges (E, 2) rows of x off the collider's sharp edges, in place (see the module doc).

    longest: an upper bound of a cloth edge's length (finds the edges near the collider cheaply).
    settle: None, or (previous, t) when x_start is a window's start earlier than this substep's (previous,
    at frame fraction t): the path runs from x_start, the settled pushes are reckoned from and added to
    previous (as `MeshCollider.collide`'s). keep_contacts: return the contacts for `hold_edges` (still
    meshes), else None. sharp: the edges to collide with (default: all the mesh's sharp edges). up: the unit
    vector against gravity (world, (3,)), or None: no rim carries the cloth (see RIM_SUPPORT_FRICTION). hold_near:
    with keep_contacts, a substep's length (frame fraction): the contacts kept take the cloth edges that can reach a
    sharp edge in a substep too (HOLD_REACH); None: the contacts alone."""
    if sharp is None:
        sharp = _sharp_of(collider, 0.5 * longest, thickness)
    if len(sharp) == 0 or len(edges) == 0:
        return None

    gap = max(float(thickness) + collider.offset, MIN_GAP)
    grid = sharp.grid(gap)
    pose0, pose1 = collider._pose_at(t0), collider._pose_at(t1)
    if pose1 is None:  # every cloth vertex in the collider's frame, (3, N)
        # (contiguous copies: the lists and the pass take columns of them, ~10x quicker than of x.T's strided view)
        p1, p0 = _columns(x), _columns(x_start)
    else:
        p1, p0 = _to_frame(x, *pose1), _to_frame(x_start, *pose0)
    found = sharp.pairs(edges, inv_mass, p0, p1, grid, gap, longest)
    if found is None:
        return None
    if collider.deforming:  # the sharp edges at the substep's start and end (the vertices move linearly)
        a0, b0 = sharp.a0 + (sharp.a - sharp.a0) * t0, sharp.b0 + (sharp.b - sharp.b0) * t0
        a1, b1 = sharp.a0 + (sharp.a - sharp.a0) * t1, sharp.b0 + (sharp.b - sharp.b0) * t1
        c1 = sharp.c0 + (sharp.c - sharp.c0) * t1
    else:
        a0 = a1 = sharp.a
        b0 = b1 = sharp.b
        c1 = sharp.c
    # (the pairs whose swept boxes meet the sharp edges' boxes, their ends at the path's start and end)
    _, s, i, j, start, end, travel = found
    # Closest points at the substep's end (how close) and start (which side), in one call: columns
    # [0, P) the start, [P, 2P) the end.
    count = len(s)
    both = np.concatenate([s, s])
    if collider.deforming:
        sharp_a = np.concatenate([a0.take(s, axis=1), a1.take(s, axis=1)], axis=1)
        sharp_b = np.concatenate([b0.take(s, axis=1), b1.take(s, axis=1)], axis=1)
    else:
        sharp_a, sharp_b = a1.take(both, axis=1), b1.take(both, axis=1)
    points = [np.concatenate([start[0], end[0]], axis=1), np.concatenate([start[1], end[1]], axis=1), sharp_a, sharp_b]
    # (segment_closest's, with the spans kept for the offsets)
    spans = (points[1] - points[0], points[3] - points[2])
    sharp2 = dot(spans[1], spans[1])
    line = sharp2 > _TRI_EPS
    u, v = segment_closest_along(points[0], spans[0], points[2], spans[1], sharp2, line, np.where(line, sharp2, 1.0))
    d = (points[0] + spans[0] * u) - (points[2] + spans[1] * v)
    dist = np.sqrt(dot(d, d))
    start, end = [m[:, :count] for m in points], [m[:, count:] for m in points]
    u0, v0, d0, dist0 = u[:count], v[:count], d[:, :count], dist[:count]
    u1, v1, d1, dist1 = u[count:], v[count:], d[:, count:], dist[count:]
    # Touching, or crossed (or through a rim's face): then the closest points met in the substep, so they
    # end within the cloth edge's travel of each other.
    if travel is None:  # (else `_cull_apart`'s, the same)
        first_moved, second_moved = end[0] - start[0], end[1] - start[1]
        travel = dot(first_moved, first_moved)
        np.maximum(travel, dot(second_moved, second_moved), out=travel)
        np.sqrt(travel, out=travel)
    if collider.deforming:  # and the sharp edge's
        moved = np.sqrt(np.maximum(dot(a1 - a0, a1 - a0), dot(b1 - b0, b1 - b0)))
        travel += moved.take(s)
    travel += gap
    # A cloth edge through a rim's face (not far below the rim) went under it: a zero-thickness wall's
    # rim, where the vertex pass pushes the vertex on top to one side or the other. It goes back out
    # across the rim, in the face's plane, whatever its start (which is then often under the rim too).
    # A still mesh's edge: through either of its triangles (not only the edge table's first: whether that was
    # a table's top or side came from the triangulation, and a centred cloth walked off the table; round 10
    # (drift12)); a deforming mesh's: through its first triangle at the substep's end, and not at its edges
    # between two faces: there the face moved into a cloth edge lying over the edge (a box's top rising
    # under a drape), which the side it started on pushes out with the edge's motion; out across the edge
    # it yanked the sides' cloth up over the rim and flung it (docs/design.md, "Issue 11, round 10 (fling12)").
    through = np.zeros(len(s), dtype=bool)
    rim = sharp.rim.take(s) & (dist1 < 0.5 * longest)
    if collider.deforming:
        rim &= _one_face(sharp, s)
    rim = rim.nonzero()[0]
    out = None
    if len(rim):
        at = s.take(rim)
        ends_at = (end[0].take(rim, axis=1), end[1].take(rim, axis=1))
        if collider.deforming:
            corners = (a1.take(at, axis=1), b1.take(at, axis=1), c1.take(at, axis=1))
            through[rim] = segment_crossings(*ends_at, *corners)[0]
        else:
            through[rim], out_rim = _through_faces(sharp, at, *ends_at)
            out = np.zeros((3, len(s)))
            out[:, rim] = out_rim
            # A thin feature's edge (a rod's, a needle's) keeps the first triangle's catch: both faces'
            # pushed a cloth hanging from a pointed rod's tip down round it (32 collider edges through).
            thin = sharp.thin.take(at).nonzero()[0] if sharp.any_thin else _EMPTY
            if len(thin):
                at_thin, rim_thin = at.take(thin), rim.take(thin)
                corners = (a1.take(at_thin, axis=1), b1.take(at_thin, axis=1), c1.take(at_thin, axis=1))
                first, second = ends_at[0].take(thin, axis=1), ends_at[1].take(thin, axis=1)
                through[rim_thin] = segment_crossings(first, second, *corners)[0]
                out[:, rim_thin] = -_across(*corners)
            if up is not None and sharp.open:
                crossing = through.take(rim) & sharp.open_rims.take(at)
                up_own = up if pose1 is None else up @ pose1[0]
                crossing &= np.abs(dot(out.take(rim, axis=1), up_own[:, None])) <= _SIN_LOW_RIM
                k = crossing.nonzero()[0]
                if len(k):  # (whether the edge began wholly on one side of the face's plane)
                    at_k, rim_k, face_k = at.take(k), rim.take(k), sharp.out_face.take(at.take(k), axis=1)
                    a_k = a1.take(at_k, axis=1)
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
    close = (dist1 < travel) | through
    if not close.any():
        return None
    # (`close` as a mask: most pairs that met the boxes are, and taking them out costs more calls than it saves.)
    # Which side: the start's (a zero-thickness ridge is never crossed), unless it started on the edge.
    from_start = dist0 > 1e-9
    normal = np.where(from_start, d0 / np.maximum(dist0, _EPS), d1 / np.maximum(dist1, _EPS))
    any_through = bool(through.any())
    if any_through:
        if out is None:  # (a deforming mesh's: out across the edge from its first triangle, now)
            out = -_across(a1.take(s, axis=1), b1.take(s, axis=1), c1.take(s, axis=1))
        normal = np.where(through, out, normal)
    apart = dot(d1, normal)  # the end's separation along it (negative: crossed)
    contact = (apart < gap) & ((dist1 < gap) | (apart <= 0.0)) & close
    in_wedge = sharp.in_wedge(normal, s)
    contact &= ~in_wedge
    if any_through:
        contact |= through
    if sharp.any_ends_only and collider.mesh.outward:
        contact &= ~_ends_inside(collider.mesh, sharp, s, (*start[:2], *end[:2]), contact, gap)
    hit = contact.nonzero()[0]
    near = _EMPTY
    if keep_contacts and hold_near is not None and HOLD_REACH > 0.0:  # for the hold only (the pass pushes none)
        # (travel: the edge's motion over the window + gap; its share of a substep, + gap)
        reach = (travel - gap) * min(1.0, hold_near / max(t1 - t0, _EPS)) + gap
        np.minimum(reach, gap * (1.0 + HOLD_REACH), out=reach)
        near = (dist1 < reach) & ~contact & ~in_wedge
        if sharp.any_thin:
            near &= ~sharp.thin.take(s)
        if sharp.any_ends_only and collider.mesh.outward:
            near &= ~_ends_inside(collider.mesh, sharp, s, (*start[:2], *end[:2]), near, gap)
        near = near.nonzero()[0]
    if len(hit) == 0 and len(near) == 0:
        return None
    ends = np.concatenate([i.take(hit)[:, None], j.take(hit)[:, None]], axis=1)
    u, push, n = u1.take(hit), gap - apart.take(hit), normal.take(hit, axis=1)
    wi, wj = inv_mass.take(ends[:, 0]) * (1.0 - u), inv_mass.take(ends[:, 1]) * u
    weight = (1.0 - u) * wi + u * wj
    ok = weight > 0.0
    scale = np.where(ok, push / np.where(ok, weight, 1.0), 0.0)
    delta = n * scale  # per unit of each end's (share x inverse mass)
    # Coulomb friction on the closest points' slide relative to the sharp edge's.
    mu = combined_friction(cloth_friction, collider.friction)
    supported = draped = None
    if mu > 0.0:
        # The slide of the closest points (the contact's place moves along the cloth edge as it slides
        # along itself: no friction on that); on a supported rim the cloth's own (at the end's parameter).
        end_points = (_point(end, u1, 0), _point(end, v1, 2))  # (the closest points at the end, both uses)
        slide = (end_points[0] - _point(start, u0, 0)) - (end_points[1] - _point(start, v0, 2))
        slide = slide.take(hit, axis=1)
        if sharp.open and not collider.deforming:  # (a still rim's point does not move)
            along_rim = sharp.open_rims.take(s.take(hit))
            if along_rim.any():
                cloth_slide = (end_points[0] - _point(start, u0, 0)).take(hit, axis=1)
                slide = np.where(along_rim, cloth_slide, slide)
        if up is not None and not collider.deforming:
            up_own = up if pose1 is None else up @ pose1[0]
            ends_now = (end[0].take(hit, axis=1), end[1].take(hit, axis=1))
            supported, draped = _supported(sharp, s.take(hit), *ends_now, up_own, pose1 is None)
        if not collider.mesh.outward or sharp.any_braked:
            braked = sharp.braked.take(s.take(hit))
            supported = braked if supported is None else supported | braked
            if keep_contacts:  # (and the hold's, on the windows: OPEN_WINDOWS)
                draped = braked if draped is None else draped | braked
        if supported is not None and supported.any():
            own = (end_points[0] - _point(start, u1, 0)) - (end_points[1] - _point(start, v1, 2))
            slide = np.where(supported, own.take(hit, axis=1), slide)
        slide -= n * dot(slide, n)
        length = np.sqrt(dot(slide, slide))
        keep = np.minimum(1.0, mu * push / np.maximum(length, _EPS))
        delta -= slide * (keep / np.where(ok, weight, 1.0))
    # The part of the push that clears what was within the gap at the start moves the start too.
    at, v = s.take(hit), v1.take(hit)
    sharp_a, sharp_b = a1.take(at, axis=1), b1.take(at, axis=1)
    on_edge = None  # (each contact's closest point on its sharp edge, when needed)
    if settle is None:
        settle_into, within = x_start, gap - dist0.take(hit)
    else:  # reckoned from where the last substep started (its velocity is taken from there)
        settle_into, t_previous = settle
        pose_previous = collider._pose_at(t_previous)
        before = [settle_into.take(ends[:, k], axis=0) for k in (0, 1)]
        before = [m.T if pose_previous is None else _to_frame(m, *pose_previous) for m in before]
        on_edge = _point([sharp_a, sharp_b], v, 0)
        within = (dot(n, on_edge) + gap) - dot(n, _point(before, u, 0))
    per_weight = np.where(ok, 1.0 / np.where(ok, weight, 1.0), 0.0)
    amount = clamp(within, 0.0, push) * per_weight
    if not keep_contacts:
        rows, local = vertex_places(ends, len(inv_mass))
        _scatter(x, settle_into, rows, local, wi, wj, delta, n * amount, pose1)
        iterate_edge_contacts(x, ends, sharp_a, sharp_b, n, inv_mass, gap, pose1, _scatter, rows, local)
        return None
    if on_edge is None:
        on_edge = _point([sharp_a, sharp_b], v, 0)
    pushed = None
    if len(near):  # the pass pushes its contacts (the first len(hit)); the hold has the near edges too
        pushed = (ends, wi, wj, delta, n * amount, sharp_a, sharp_b, n)
        at_near, v_near = s.take(near), v1.take(near)
        ends_near = np.concatenate([i.take(near)[:, None], j.take(near)[:, None]], axis=1)
        u_near, n_near = u1.take(near), normal.take(near, axis=1)
        wi_near, wj_near = inv_mass.take(ends_near[:, 0]) * (1.0 - u_near), inv_mass.take(ends_near[:, 1]) * u_near
        weight_near = (1.0 - u_near) * wi_near + u_near * wj_near
        ok_near = weight_near > 0.0
        ends, at, v = np.concatenate([ends, ends_near]), np.concatenate([at, at_near]), np.concatenate([v, v_near])
        u, n = np.concatenate([u, u_near]), np.concatenate([n, n_near], axis=1)
        wi, wj = np.concatenate([wi, wi_near]), np.concatenate([wj, wj_near])
        per_weight = np.concatenate([per_weight, np.where(ok_near, 1.0 / np.where(ok_near, weight_near, 1.0), 0.0)])
        sharp_a, sharp_b = a1.take(at, axis=1), b1.take(at, axis=1)
        on_edge = _point([sharp_a, sharp_b], v, 0)
        if draped is not None:
            draped = np.concatenate([draped, np.zeros(len(near), dtype=bool)])
    near_mask = None
    if len(near):
        near_mask = np.concatenate([np.zeros(len(hit), dtype=bool), np.ones(len(near), dtype=bool)])
    held = _held(ends[:, 0], ends[:, 1], u, n, on_edge, sharp.along.take(at, axis=1), gap, wi, wj, per_weight, inv_mass)
    length = dot(sharp_b - sharp_a, held.along)
    # (the hold's per-contact constants, once: where along the line the nearest point may lie, the ends' inverse
    # masses, the contacts' sides not braked along the cloth edge, the ends on short sharp edges)
    extent = np.concatenate([-v * length - gap, (1.0 - v) * length + gap]).reshape(2, -1)
    long = length > longest
    held = held._replace(
        draped=None if draped is None else ~draped,
        extent=extent,
        long=long,
        short=np.concatenate([~long, ~long]),
        end_mass=inv_mass.take(held.ends),
        near=near_mask,
    )
    if collider.deforming:  # (the hold finds the sharp edges where they are then)
        held = held._replace(moving=(sharp, at, v))
    if pushed is not None:
        ends, wi, wj, delta, settled, sharp_a, sharp_b, n = pushed
        if len(ends):
            rows, local = vertex_places(ends, len(inv_mass))
            _scatter(x, settle_into, rows, local, wi, wj, delta, settled, pose1)
            iterate_edge_contacts(x, ends, sharp_a, sharp_b, n, inv_mass, gap, pose1, _scatter, rows, local)
        return held
    local = held.local.reshape(2, -1).T
    _scatter(x, settle_into, held.rows, local, wi, wj, delta, n * amount, pose1)
    iterate_edge_contacts(x, ends, sharp_a, sharp_b, n, inv_mass, gap, pose1, _scatter, held.rows, local)
    return held


def _planes_of(sharp: SharpEdges):
    """`_cull_apart`'s constants per sharp edge: four unit directions at right angles to it (3 each: its faces'
    normals and the directions into them; an edge on one face: its other two zero), each one's offset at the edge
    (u · a), and its other face's least side margin (inf on one face: nothing to go through, else 0), kept on
    `sharp`."""
    if sharp._planes is None:
        directions = np.stack([sharp.out_face, sharp.out_other, sharp.into, sharp.into_other])
        one = dot(sharp.into_other, sharp.into_other) < 0.5  # (an edge on one face: no other face to go through)
        sharp._planes = (directions, np.einsum("kjs,js->ks", directions, sharp.a), np.where(one, np.inf, 0.0))
    return sharp._planes


def _cull_apart(planes, s, start, end, gap: float):
    """Of a still mesh's candidate pairs (sharp edges s, their cloth edges' two ends (3, P) at the path's start and
    end): the places of those that cannot touch, a bound for each of them as `_EdgeList.apart`'s, the places of the
    others. One cannot where both of its cloth edge's ends lie, at the path's end, on one side of a plane through
    the sharp edge (its faces', or across it in them) further from it than the cloth edge's travel + the gap (so
    further from the sharp edge: never `close`, nor near for the hold, whose reach is within that), and the cloth
    edge crosses neither face (both ends off its plane on one side, or behind its edge's line in that plane): never
    `through`. The bound: how far its ends may move (each pass's larger motion, summed) and still be such, the
    travel being at most twice a pass's motion: (margin beyond the plane - the gap) / 3, and the sides' margins.
    Last, each pair's travel (the larger of its ends' motions), for `collide_edges`."""
    directions, offsets, one_face = planes
    (start_i, start_j), (end_i, end_j) = start, end
    moved_i, moved_j = end_i - start_i, end_j - start_j
    travel = np.maximum(dot(moved_i, moved_i), dot(moved_j, moved_j))
    np.sqrt(travel, out=travel)
    picked, at = directions.take(s, axis=2), offsets.take(s, axis=1)
    first = c_einsum("kjp,jp->kp", picked, end_i) - at
    second = c_einsum("kjp,jp->kp", picked, end_j) - at
    # (each direction's margin: how far both ends lie beyond the sharp edge on one side of it)
    larger = np.maximum(first, second)
    np.negative(larger, out=larger)
    margin = np.maximum(np.minimum(first, second), larger)
    beyond = margin.max(axis=0) - gap - _CULL_ROUNDING
    # each face: both ends off its plane on one side, or behind the edge in it (a one-face edge's other: none)
    sides = np.maximum(margin[:2], larger[2:])
    np.maximum(sides[1], one_face.take(s), out=sides[1])
    sides = sides.min(axis=0) - _CULL_ROUNDING
    apart = (beyond > travel) & (sides > 0.0)
    culled = apart.nonzero()[0]
    bound = np.minimum(beyond.take(culled) * (1.0 / 3.0), sides.take(culled))
    return culled, bound, (~apart).nonzero()[0], travel


def _ends_inside(mesh, sharp: SharpEdges, s, ends, asked, gap: float) -> np.ndarray:
    """Which pairs (cloth edge, sharp edge s) of those `asked` (a mask) whose sharp edge is CLOSED_APEX_NEAR's have
    one of the cloth edge's `ends` (columns (3, P), own frame: its ends at the path's start and end) inside the closed
    `mesh`, under both of the sharp edge's faces' planes by more than _INSIDE_DEPTH gaps (see OUTSIDE_ENDS_ONLY). Only
    such ends are tested (ray parity), so a cloth lying on the mesh costs a few products."""
    found = np.zeros(len(s), dtype=bool)
    asked = (asked & sharp.ends_only.take(s)).nonzero()[0]
    if len(asked) == 0:
        return found
    at = s.take(asked)
    a, face, other = sharp.a.take(at, axis=1), sharp.out_face.take(at, axis=1), sharp.out_other.take(at, axis=1)
    for points in ends:
        p = points.take(asked, axis=1) - a
        under = ((dot(p, face) < -_INSIDE_DEPTH * gap) & (dot(p, other) < -_INSIDE_DEPTH * gap)).nonzero()[0]
        if len(under):
            tested = points.take(asked.take(under), axis=1)
            found[asked.take(under)] |= inside_closed(tested, mesh.a, mesh.b, mesh.c, _bins_of(mesh))[0]
    return found


class _Held(NamedTuple):
    """A pass's contacts, for `hold_edges` (own frame): each cloth edge's closest point's parameter u, the
    contact's unit normal, the closest point on the sharp edge and the sharp edge's unit direction (3, C);
    the rows of both ends (2C,: first ends, then second ends), the moved rows and where each end's row is
    among them, and each end's share of its contact's push (weight x inverse mass; the hold takes the mean
    over the vertex's contacts that press then)."""

    u: np.ndarray
    n: np.ndarray
    on_edge: np.ndarray
    along: np.ndarray
    gap: float
    ends: np.ndarray
    rows: np.ndarray
    local: np.ndarray
    share: np.ndarray
    inv_mass: np.ndarray
    slots: np.ndarray  # (18C,) each end's place in the hold's one bincount of nine channels (channel c's at c x rows)
    moving: tuple | None = None  # a deforming mesh's (SharpEdges, each contact's sharp edge, v along it)
    draped: np.ndarray | None = None  # contacts NOT draped over a rim whose face carries the cloth (`_supported`)
    extent: np.ndarray | None = None  # (2, C) where each sharp edge's ends lie along it from on_edge, grown by the gap
    long: np.ndarray | None = None  # (C,) sharp edges longer than the longest cloth edge (a table's rims)
    short: np.ndarray | None = None  # (2C,) each end's contact is with a short sharp edge (~long, twice)
    end_mass: np.ndarray | None = None  # (2C,) each end's inverse mass
    near: np.ndarray | None = None  # (C,) the near edges (HOLD_REACH), not the pass's contacts; None: none


def _held(i, j, u, n, on_edge, along, gap, wi, wj, per_weight, inv_mass) -> _Held:
    ends = np.concatenate([i, j])
    rows, local = vertex_places(ends, len(inv_mass))
    share = np.concatenate([wi, wj]) * np.concatenate([per_weight, per_weight])
    slots = ((np.arange(9) * len(rows))[:, None] + local).ravel()
    return _Held(u, n, on_edge, along, gap, ends, rows, local, share, inv_mass, slots)


# NEAREST_HOLD_POINT (a rule, folded in round 24):
# The hold pushes each held cloth edge's point nearest its sharp edge's line now (NEAREST_HOLD_POINT), and the
# settled part of a vertex's pushes (what moves x_start too: no velocity) takes the step along their sum that
# best meets its contacts (STEP_SEARCH), not their mean: the point the pass found has moved along the cloth edge
# once the cloth slid over the rim, and the mean of a vertex's 2-3 rim contacts, at up to 90° to each other,
# cleared about half of each, so the rim's cloth sank between passes, was thrown out at the next, and crept off
# a table. The velocity the pushes give (friction, the unsettled part) stays the mean's: with the step on all of
# it a jittered cloth landing on the round-legged table slid off it. Both only on sharp edges longer than the
# longest cloth edge (`_Held.long`): on a rod's short tip edges they pushed a hanging cloth through the rod's
# sides (docs/design.md, round 13 (creep16)).
# With edge windows longer than the vertex pass's (step.EDGE_PASS_WINDOWS), the pass leaves the hold, besides its
# contacts, the cloth edges that end within their travel in a substep (their motion over the window, its share of a
# substep) + the gap of a sharp edge, at most HOLD_REACH gaps beyond the gap, not on thin sides (`SharpEdges.thin`):
# not pushed by the pass, the hold pushes them once they press. Cloth sliding over a rim meets new sharp edges
# between passes (docs/design.md, round 16 (tablewin19), round 17 (tablewin20)). 0: the contacts alone.
HOLD_REACH = 3.0
# NEAR_FRICTION_ALONG (a rule, folded in round 24):
# The near edges' friction brakes their slide along the sharp edge only, not over it (round 19 (table22)): a
# contact's friction brakes the slide across its cloth edge, which on a cloth edge square to a rim is the slide along
# the rim, but on a triangulated cloth's diagonals half the slide over it too, and with the near edges' contacts
# added that grip held a triangulated 16² cloth landing 0.55 m over a 0.8 m box's side on the box (mean z 0.39 m at
# frame 72, Coulomb at mu 0.3 holds ~0.49 m; without: 0.02 m, on the floor, as with windows of 3).
STEP_MOST = 2.0  # the step search's largest step, in means


def hold_edges(collider, x, x_start, inv_mass, t0, t1, cloth_friction, held: _Held) -> None:
    """Between passes: keep each cloth edge that touched a sharp edge at the last pass (`held`) off that
    sharp edge, as the pass would (weights, friction on the point's slide over the substep, settled pushes
    to x_start): the point nearest the sharp edge's line stays the gap from it (free to go round it) and on
    the contact normal's side of it. Without it the constraints of the substeps in between drag edges under
    a rim (docs/design.md). A vertex in several contacts takes a step from those that press now (as the
    pass: from those it finds; see STEP_SEARCH)."""
    if held.inv_mass is not inv_mass:  # (a grab changed the masses since the pass)
        return
    pose0, pose1 = collider._pose_at(t0), collider._pose_at(t1)
    on_edge, along, edge_moved = held.on_edge, held.along, None
    if held.moving is not None:  # a deforming mesh's sharp edge, where it is now (and its motion since t0)
        on_edge, along = _on_moving_edge(held.moving, t1)
        edge_moved = on_edge - _on_moving_edge(held.moving, t0)[0]
    ends = x.take(held.ends, axis=0)
    ends = ends.T if pose1 is None else _to_frame(ends, *pose1)
    count = len(held.u)
    first = ends[:, :count]
    span = ends[:, count:] - first
    u, share, length2 = _nearest(first, span, on_edge, along, held)
    point = first + span * u
    off = point - on_edge
    off -= along * dot(off, along)  # from the sharp edge's line
    side = dot(off, held.n)
    distance = np.sqrt(dot(off, off))
    crossed = side <= 1e-3 * distance  # on the far side (or on the line): back along the contact normal
    depth = held.gap - np.where(crossed, side, distance)
    pressed = depth > 0.0
    if not pressed.any():
        return
    np.maximum(depth, 0.0, out=depth)
    direction = np.where(crossed, held.n, off / np.maximum(distance, _EPS))
    starts = x_start.take(held.ends, axis=0)
    starts = starts.T if pose0 is None else _to_frame(starts, *pose0)
    slide = point - (starts[:, :count] + (starts[:, count:] - starts[:, :count]) * u)
    if edge_moved is not None:  # relative to the sharp edge
        slide -= edge_moved
    approach = dot(slide, direction)
    settle = np.maximum(depth + np.minimum(approach, 0.0), 0.0)
    wanted = direction * depth
    push = wanted.copy()
    mu = combined_friction(cloth_friction, collider.friction)
    if mu > 0.0:
        # Friction on the slide across the cloth edge only: sliding along it moves the contact along the
        # edge, as the pass measures it (the closest points' motion); braking that too kept a cloth from
        # sagging into a 12-segment torus's hole (tests/test_blender_mesh_colliders.py).
        unit = span / np.maximum(np.sqrt(length2), _EPS)
        # Draped over a rim that carries the cloth (see `_supported`), that slide is braked too.
        along_edge = unit * dot(slide, unit)
        if held.draped is not None:  # (the contacts not draped)
            along_edge *= held.draped
        slide -= along_edge
        slide -= direction * dot(slide, direction)
        if held.near is not None:  # the near edges: along the sharp edge only
            slide = np.where(held.near, along * dot(slide, along), slide)
        length = np.sqrt(dot(slide, slide))
        push -= slide * np.minimum(1.0, mu * depth / np.maximum(length, _EPS))
    # The nine sums per moved row in one bincount: the push's, the settled push's and the wanted (frictionless)
    # push's axes, each end's share of its contacts' that press now (over all it had at the pass, those left
    # behind diluted the push: the vibration that made a holed tablecloth creep, round 11 (creep13)).
    pressing = np.concatenate([pressed, pressed]) & (share > 0.0)
    channels = np.concatenate([push, direction * settle, wanted])
    weights = np.concatenate([channels, channels], axis=1) * (share * pressing)
    rows = len(held.rows)
    total = np.bincount(held.slots, weights=weights.ravel(), minlength=9 * rows).reshape(9, rows)
    mean = 1.0 / np.maximum(np.bincount(held.local, weights=pressing, minlength=rows), 1.0)
    moved, settled = total[:3] * mean, total[3:6] * mean
    # The settled part's extra, to x and x_start alike.
    step = _step_search(total[6:], np.concatenate([direction, direction], axis=1), pressing, held.local, rows)
    # At most twice the mean: a vertex on a rod's point, pressed from all round, took nearly the whole sum of
    # its contacts' pushes and left cloth edges through the rod (tests/test_mesh_collider_corners.py).
    np.minimum(step, STEP_MOST * mean, out=step)
    if held.long is not None:  # only where all its pressing contacts are with long edges (not a rod's point)
        short = held.short & pressing
        step = np.where(np.bincount(held.local, weights=short, minlength=rows) > 0, mean, step)
    extra = total[3:6] * (step - mean)
    moved += extra
    settled += extra
    if pose1 is not None:  # own-frame offsets to world
        moved, settled = moved.T @ pose1[0].T, settled.T @ pose1[0].T
    else:
        moved, settled = moved.T, settled.T
    x[held.rows] += moved
    x_start[held.rows] += settled


def _step_search(summed, directions, pressing, local, rows: int) -> np.ndarray:
    """Each moved row's step along `summed` (3, rows: its contacts' wanted pushes d_c n_c, summed) that best
    meets them (least squares of d_c - n_c . step): |g|^2 / sum (n_c . g)^2 with g the sum, over the contacts
    that press (`directions`, (3, 2C): each end's contact's n_c; local: its row). The mean for contacts
    pushing the same way, the sum for square ones; a lone contact's whole push; never more than the sum."""
    per_end = dot(summed.take(local, axis=1), directions)
    spread = np.bincount(local, weights=per_end * per_end * pressing, minlength=rows)
    ok = spread > 0.0
    step = np.where(ok, dot(summed, summed) / np.where(ok, spread, 1.0), 0.0)
    # At most the sum: contacts pushing against each other leave a small sum nearly square to each, and the
    # least-squares step along it grew without bound (a jittered cloth slid 26 cm off the round-legged table).
    return np.minimum(step, 1.0, out=step)


def _nearest(first, span, on_edge, along, held: _Held):
    """Each held cloth edge's parameter (C,) of its point nearest its sharp edge's line now (the pass's where
    the edge lies along the line), its ends' shares of a push there (2C,), as the pass weighs them, and the
    cloth edges' squared lengths (C,)."""
    offset = first - on_edge
    first_along = dot(offset, along)
    offset -= along * first_along  # (across the line, so its dot with the span is with the span's across)
    lengthwise, length2 = dot(span, along), dot(span, span)
    across2 = length2 - lengthwise * lengthwise
    ok = across2 > 1e-12 * length2
    u = clamp(-dot(offset, span) / np.where(ok, across2, 1.0), 0.0, 1.0)
    if held.extent is not None:  # nearest the line beside the sharp edge, not beyond its ends (a rod's short tip
        # edges: their lines ran through the rod's sides, and a cloth hanging from its point was pushed through them)
        at = first_along + lengthwise * u
        ok &= (at >= held.extent[0]) & (at <= held.extent[1])  # (the extent grown by the gap)
    if held.long is not None:
        ok &= held.long
    u = np.where(ok, u, held.u)
    count = len(u)
    if held.end_mass is None:
        mass_i, mass_j = held.inv_mass.take(held.ends[:count]), held.inv_mass.take(held.ends[count:])
    else:
        mass_i, mass_j = held.end_mass[:count], held.end_mass[count:]
    rest = 1.0 - u
    wi, wj = mass_i * rest, mass_j * u
    weight = rest * wi + u * wj
    ok = weight > 0.0
    per_weight = np.where(ok, 1.0 / np.where(ok, weight, 1.0), 0.0)
    return u, np.concatenate([wi * per_weight, wj * per_weight]), length2


def _on_moving_edge(moving, t: float):
    """The held contacts' points on a deforming mesh's sharp edges at frame fraction t, and the edges'
    unit directions (3, C)."""
    sharp, at, v = moving
    a0, b0 = sharp.a0.take(at, axis=1), sharp.b0.take(at, axis=1)
    a = a0 + (sharp.a.take(at, axis=1) - a0) * t
    b = b0 + (sharp.b.take(at, axis=1) - b0) * t
    span = b - a
    return a + span * v, span / np.maximum(np.sqrt(dot(span, span)), _EPS)


def _one_face(sharp: SharpEdges, s) -> np.ndarray:
    """Whether each sharp edge s is on one face only (its `into_other` is left zero)."""
    other = sharp.into_other.take(s, axis=1)
    return (other[0] == 0.0) & (other[1] == 0.0) & (other[2] == 0.0)


def clamp(values: np.ndarray, low, high) -> np.ndarray:
    """np.clip(values, low, high) as np.minimum(np.maximum(...)): the same values (NaN stays NaN), without
    np.clip's Python wrapper (~10 us a call on NumPy 1.26, more than the work on a pass's few hundred contacts)."""
    return np.minimum(np.maximum(values, low), high)


def _point(points, s, first: int):
    return points[first] + (points[first + 1] - points[first]) * s


def _scatter(x, x_start, rows, local, wi, wj, delta, settle, pose1) -> None:
    """Add each contact's share of delta (and settle, to the start; None: none) to its two vertices, averaged."""
    share = np.concatenate([wi, wj])
    channels = delta if settle is None else np.concatenate([delta, settle])
    weighted = np.concatenate([channels, channels], axis=1) * share
    add_averaged(x, x_start, rows, np.concatenate([local[:, 0], local[:, 1]]), share, weighted, pose1)
