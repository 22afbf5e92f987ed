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

On closed meshes the pass runs on the mesh colliders' windows (every `step.MESH_COLLIDE_INTERVAL`-th
substep, over the motion since its last pass) and `hold_edges` keeps its contacts between passes; open meshes' rims
(nothing solid below them) get the pass every substep (docs/design.md, "round 8 (edgehold9)").

Deforming meshes (an armature, a shape key, a cloth used as a collider) get the end shape's sharp edges
every frame (`frame_sharp_edges`, the edge table kept across frames), with boxes over the frame's
motion, a list made afresh each frame, and the held contacts' edges followed as they move
(docs/design.md, "Issue 11, round 9 (layers11)").

This module drives the pass (`collide_cloth_edges`, `collide_edges`); its parts (round 24 (edgeflags24)):
sharp_rules.py (which edges are sharp), sharp_edges.py (`SharpEdges`: their geometry, parts and lists),
edge_list.py (the Verlet list of candidate pairs), edge_rims.py (rims: through a face, support and brake),
edge_schedule.py (which edges get the pass every substep), edge_hold.py (the hold between passes) and
edge_iterations.py. The rules that were module switches until round 24 are labelled by their old names.
"""

from __future__ import annotations

import numpy as np

from . import edge_rims
from .contact import add_averaged, combined_friction, vertex_places
from .edge_hold import _held, clamp, hold_edges
from .edge_iterations import iterate_edge_contacts
from .edge_list import squared_stray
from .edge_rims import COS_CONE_LEAST, low_rims_left, rim_support, side_rims_from_start, through_faces
from .edge_schedule import _below_a_tip, _split, _turning, travelling, up_of_gravity
from .inside_recovery import _bins_of, inside_closed
from .mesh_collider import MIN_GAP, MeshCollider, _to_frame, as_columns
from .sharp_edges import SharpEdges, _across, _one_face, frame_sharp_edges, sharp_edges_of
from .sharp_rules import _EMPTY, _EPS, COS_SHARP, inside_just_off, open_rounded_radius, rounded_radius
from .triangles import _EPS as _TRI_EPS
from .triangles import dot, segment_closest_along, segment_crossings

# The names other modules import from here (the pass's entry and a few helpers now in the modules above).
__all__ = [
    "COS_SHARP",
    "up_of_gravity",
    "clamp",
    "cloth_edges",
    "collide_cloth_edges",
    "collide_edges",
    "cut_history",
    "edge_colliders",
    "hold_edges",
    "inside_just_off",
    "sharp_of",
    "sharp_edges_of",
    "squared_stray",
    "travelling",
]

# BRAKED_EDGES (a rule, folded in round 24):
# Contacts with the braked edges (`SharpEdges.braked`: an open mesh's edges sharp by the rounded rule or the shallow
# ridges' alone, a closed mesh's by its convex shallow ridges' alone) brake the cloth's own slide, as the faces under
# it would (the closest points' slide leaves free a cloth edge that slides along itself across the edge, and the pass
# lifts its ends off the faces whose friction held them: a coarse cloth slid off a smooth open dome made sharp all
# over; docs/design.md, round 15 (bump18); off a low-poly ball, round 16 (lowpoly19)). Not the rod rule's or a cone's
# sides. (Named OPEN_ROUNDED_BRAKE until round 17.)

# OPEN_WINDOWS (a rule, folded in round 24):
# An open mesh's edges on two faces go on the mesh colliders' windows with the hold between, as a closed mesh's; its
# rims (one face: nothing solid below) keep the pass every substep (docs/design.md, round 16 (dome19)).
# RIM_SLIDE_ALONG (a rule, folded in round 24):
# An open mesh's rim (a still one) brakes a cloth sliding along it: the friction's slide was the closest points',
# and the closest point on the rim moves along with a cloth sliding along the rim, so that slide was not braked at
# all (an off-centre drape crept off along a wall's top at 5 cm/s, steadily; docs/design.md, round 19 (wall22)).

# OUTSIDE_ENDS_ONLY (a rule, folded in round 24):
# Those edges (sharp for long cloth edges alone) take no cloth edge with an end inside the mesh deeper than the gap
# (under both the edge's faces' planes by more) at the path's start or end: an end deep inside is the vertex pass's
# and the recovery's; across the ridge such edges were pushed up to 110 mm a substep, and a curtain that a
# spherified cube appeared round swung out 0.3-0.5 m (docs/design.md, round 18 (fanball21), round 19 (fan22)).
_INSIDE_DEPTH = 1.0  # gaps


def cloth_edges(triangles: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, float]:
    """(E, 2) unique edges of (T, 3) triangles, and twice the longest at `positions` (room for stretch)."""
    if len(triangles) == 0:
        return np.zeros((0, 2), dtype=np.int64), 0.0
    edges = np.concatenate([triangles[:, [0, 1]], triangles[:, [1, 2]], triangles[:, [2, 0]]])
    edges = np.unique(np.sort(edges, axis=1), axis=0)
    d = positions[edges[:, 0]] - positions[edges[:, 1]]
    return edges, 2.0 * float(np.sqrt((d * d).sum(axis=1)).max())


# RIDGE_CONE's other half (edge_rims.RIDGE_CONE, off): a closed still mesh's convex edge between two faces turning
# under 90 degrees pushes a fresh cloth edge only out of the mesh, within the edge's outward cone: a push from the
# side the cloth edge started on that points past a face's plane (the cloth slid across the ridge's line over the
# surface, as a fast swinging border does round a UV ball's 11.25 degree ridges) goes along that face's normal instead
# (`_in_cone`; docs/design.md, round 27). Not on a thin feature's edges (needles, a fine rod: main's push keeps cloth
# on them; round 28 (persist_r28b)). Main's: the start's side, whatever it is (a zero-thickness wall's rule).


def collide_cloth_edges(
    x, x_start, inv_mass, model, colliders, t0, t1, thickness, friction, window=None, contacts=None, closes=True,
    gravity=None, tipped_only: bool = False, found=None, history=None,
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
    round 9 (table11)), unless the collider has a sharp tip (TIPPED_RODS); without gravity, all thin edges.

    found: `edge_colliders(colliders, model, thickness)`, found once by the caller for its substeps (None: found
    here). history: the cloth's `CutHistory` (edge_rims.RIDGE_CONE; None: off, or no memory)."""
    edges, longest = model.cloth_edges
    if found is None:
        found = edge_colliders(colliders, model, thickness)
    if not found:
        return
    args = (edges, inv_mass, t0, t1, thickness, friction, longest)
    up = up_of_gravity(gravity)
    for index, collider, sharp in found:
        key = ("edges", index)  # (its place in the list: two colliders may share a mesh, not a pose)
        cut = None if history is None else (history, (index, len(collider.mesh.a[0])))
        if tipped_only:
            below = _below_a_tip(collider, sharp, up) if sharp.thin.any() else None
            hanging = None if below is None else _split(sharp, collider._pose_at(t1), gravity, below)[0]
            if hanging is not None:
                collide_edges(collider, x, x_start, *args, sharp=hanging, up=up, cut=cut)
            continue
        windowed_open = sharp.open and not collider.mesh.outward
        if contacts is None or (sharp.open and not windowed_open) or _turning(collider, thickness, t1 - t0):
            collide_edges(collider, x, x_start, *args, sharp=sharp, up=up, cut=cut)
            continue
        below = _below_a_tip(collider, sharp, up) if sharp.thin.any() else None
        if windowed_open:  # (its rims every substep, with its hanging thin edges)
            below = sharp.open_rims if below is None else below | sharp.open_rims
        hanging, rest = _split(sharp, collider._pose_at(t1), gravity, below)
        if hanging is not None:
            collide_edges(collider, x, x_start, *args, sharp=hanging, up=up, cut=cut)
        if rest is None:
            continue
        if closes:
            path_start, path_t0, settle = (x_start, t0, None) if window is None else (*window, (x_start, t0))
            found_contacts = collide_edges(
                collider, x, path_start, edges, inv_mass, path_t0, t1, thickness, friction, longest, settle, True,
                sharp=rest, up=up, cut=cut,
            )  # fmt: skip
            contacts[key] = None if found_contacts is None else (collider.mesh, found_contacts)
        else:
            held = contacts.get(key)
            if held is not None and held[0] is collider.mesh:
                hold_edges(collider, x, x_start, inv_mass, t0, t1, friction, held[1])


def edge_colliders(colliders, model, thickness: float) -> list:
    """(place in the list, collider, its SharpEdges) of the mesh colliders with sharp edges for `model`'s cloth
    (those rounder than half its longest edge included): what `collide_cloth_edges` takes as `found`. The same
    for a step's substeps (the SharpEdges are the caches' own: `sharp_edges_of`, `frame_sharp_edges`), so the step
    finds them once (they were asked 2-4 times a substep, ~37 us a call on probe24's cape: 3 ms a frame)."""
    radius = 0.5 * model.cloth_edges[1]  # (the longest cloth edge: a feature rounder than that is sharp for this cloth)
    found = []
    for index, c in enumerate(colliders):
        if isinstance(c, MeshCollider):
            sharp = sharp_of(c, radius, thickness)
            if len(sharp):
                found.append((index, c, sharp))
    return found


def sharp_of(collider, radius: float, thickness: float) -> SharpEdges:
    """The collider's sharp edges for a cloth whose longest edge is 2 `radius` at this thickness (cached)."""
    gap = max(float(thickness) + collider.offset, MIN_GAP)
    if collider.mesh.outward:
        rounded = rounded_radius(radius, gap)
    else:
        rounded = open_rounded_radius(radius, gap)
    if collider.deforming:
        return frame_sharp_edges(collider, radius, rounded, gap)
    return sharp_edges_of(collider.mesh, radius, rounded, gap)


def collide_edges(
    collider, x, x_start, edges, inv_mass, t0, t1, thickness, cloth_friction, longest: float, settle=None,
    keep_contacts: bool = False, sharp: SharpEdges | None = None, up=None, cut=None,
):  # fmt: skip
    """Push cloth edges (E, 2) rows of x off the collider's sharp edges, in place (see the module doc).

    longest: an upper bound of a cloth edge's length (finds the edges near the collider cheaply).
    settle: None, or (previous, t) when x_start is a window's start earlier than this substep's (previous,
    at frame fraction t): the path runs from x_start, the settled pushes are reckoned from and added to
    previous (as `MeshCollider.collide`'s). keep_contacts: return the contacts for `hold_edges` (still
    meshes), else None. sharp: the edges to collide with (default: all the mesh's sharp edges). up: the unit
    vector against gravity (world, (3,)), or None: no rim carries the cloth (see RIM_SUPPORT_FRICTION). cut: None,
    or (the cloth's CutHistory, this collider's key in it): edge_rims.RIDGE_CONE's memory (None: the start alone)."""
    if sharp is None:
        sharp = sharp_of(collider, 0.5 * longest, thickness)
    if len(sharp) == 0 or len(edges) == 0:
        return None

    gap = max(float(thickness) + collider.offset, MIN_GAP)
    grid = sharp.grid(gap)
    pose0, pose1 = collider._pose_at(t0), collider._pose_at(t1)
    if pose1 is None:  # every cloth vertex in the collider's frame, (3, N)
        # (contiguous copies: the lists and the pass take columns of them, ~10x quicker than of x.T's strided view)
        p1, p0 = as_columns(x), as_columns(x_start)
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
    fresh = None  # (RIDGE_CONE: which pairs' cloth edges the in-cone rules may turn)
    if edge_rims.RIDGE_CONE and collider.mesh.outward and not collider.deforming and sharp.any_cone:
        # (fresh: the cloth edge's middle outside the mesh at the substep's start and the last FRESH_MEMORY ends.
        # Asked once per cloth edge (it meets several sharp edges), at the start only of those on a shallow ridge's
        # rim: only there the rules act; the rest stay fresh, unused.)
        mesh = collider.mesh
        keys, one_pair, edge_of = np.unique(i.astype(np.int64) * len(x) + j, return_index=True, return_inverse=True)
        fresh = np.ones(len(keys), dtype=bool)
        if cut is not None:
            fresh &= ~cut[0].recent(cut[1], keys)
        cone = sharp.rim.take(s) & (
            dot(sharp.out_face.take(s, axis=1), sharp.out_other.take(s, axis=1)) > COS_CONE_LEAST
        )
        asked = np.zeros(len(keys), dtype=bool)
        asked[edge_of.compress(cone)] = True
        asked &= fresh
        asked = asked.nonzero()[0]
        if len(asked):
            on = one_pair.take(asked)
            middles = (start[0].take(on, axis=1) + start[1].take(on, axis=1)) * 0.5
            fresh[asked] = ~inside_closed(middles, mesh.a, mesh.b, mesh.c, _bins_of(mesh))[0]
        fresh = fresh.take(edge_of)
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
            cone = None if fresh is None else fresh.take(rim)
            through[rim], out_rim = through_faces(sharp, at, *ends_at, cone=cone)
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
                up_own = up if pose1 is None else up @ pose1[0]
                low_rims_left(sharp, through, rim, at, out, up_own)
                side_rims_from_start(sharp, through, rim, at, out, up_own, start, end, gap)
    if fresh is not None and cut is not None:  # (the cloth edges whose middle ends this substep inside the mesh)
        middles = (end[0].take(one_pair, axis=1) + end[1].take(one_pair, axis=1)) * 0.5
        cut[0].mark(cut[1], keys.compress(inside_closed(middles, mesh.a, mesh.b, mesh.c, _bins_of(mesh))[0]))
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
    if fresh is not None:
        normal = _in_cone(sharp, s, normal, through | ~fresh)
    apart = dot(d1, normal)  # the end's separation along it (negative: crossed)
    contact = (apart < gap) & ((dist1 < gap) | (apart <= 0.0)) & close
    in_wedge = sharp.in_wedge(normal, s)
    contact &= ~in_wedge
    if any_through:
        contact |= through
    if sharp.any_ends_only and collider.mesh.outward:
        contact &= ~_ends_inside(collider.mesh, sharp, s, (*start[:2], *end[:2]), contact, gap)
    hit = contact.nonzero()[0]
    if len(hit) == 0:
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
            supported, draped = rim_support(sharp, s.take(hit), *ends_now, up_own, pose1 is None)
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
    )
    if collider.deforming:  # (the hold finds the sharp edges where they are then)
        held = held._replace(moving=(sharp, at, v))
    local = held.local.reshape(2, -1).T
    _scatter(x, settle_into, held.rows, local, wi, wj, delta, n * amount, pose1)
    iterate_edge_contacts(x, ends, sharp_a, sharp_b, n, inv_mass, gap, pose1, _scatter, held.rows, local)
    return held


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


class CutHistory:
    """edge_rims.RIDGE_CONE's memory, one per cloth (`cut_history`): for each closed still mesh collider (keyed by its
    place in the step's colliders and its triangle count), the cloth edges (first vertex x N + second) whose middle
    was inside it at the end of one of the last FRESH_MEMORY substeps, with that substep. `substep` counts the
    cloth's substeps (solver/step.py advances it, one a substep, whatever the frame's count); a collider's table
    takes the substep's marks at its first use in a later substep."""

    def __init__(self, model):
        self.model = model  # (the keys are its vertices')
        self.substep = 0
        self.colliders: dict = {}  # key -> [substep of the pending marks, keys (sorted), their substeps, [pending]]

    def recent(self, key, keys: np.ndarray) -> np.ndarray:
        """Which cloth edges `keys` were marked inside collider `key` at one of the last FRESH_MEMORY substeps."""
        record = self.colliders.get(key)
        if record is None:
            record = self.colliders[key] = [self.substep, _NO_KEYS, _NO_KEYS, []]
        elif record[0] != self.substep:
            self._roll(record)
        marked = record[1]
        if len(marked) == 0:
            return np.zeros(len(keys), dtype=bool)
        at = np.minimum(np.searchsorted(marked, keys), len(marked) - 1)
        return marked.take(at) == keys

    def mark(self, key, keys: np.ndarray) -> None:
        """Cloth edges `keys` end this substep inside collider `key` (after `recent` for it this substep)."""
        self.colliders[key][3].append(keys)

    def _roll(self, record) -> None:
        now = np.unique(np.concatenate(record[3])) if record[3] else _NO_KEYS
        merged = np.concatenate([now, record[1]])
        when = np.concatenate([np.full(len(now), record[0], dtype=np.int64), record[2]])
        merged, first = np.unique(merged, return_index=True)  # (now's first: its substep wins)
        when = when.take(first)
        kept = (self.substep - when <= edge_rims.FRESH_MEMORY).nonzero()[0]  # (older ones forgotten)
        record[:] = [self.substep, merged.take(kept), when.take(kept), []]


_NO_KEYS = np.zeros(0, dtype=np.int64)


def cut_history(state, model) -> CutHistory | None:
    """The cloth's CutHistory (kept in its state's scratch; a new one for another model), or None: RIDGE_CONE off."""
    if not edge_rims.RIDGE_CONE:
        return None
    found = state.scratch.get("cut_history")
    if found is None or found.model is not model:
        found = state.scratch["cut_history"] = CutHistory(model)
    return found


def _in_cone(sharp: SharpEdges, s, normal, through) -> np.ndarray:
    """RIDGE_CONE: each pair's push direction (3, P) on a closed mesh's convex edge between two faces, not
    through a face, turned to the nearer side of the edge's outward cone (between its faces' outward normals) where it
    points past a face's plane: beyond the face whose `into` it leans along (a cloth edge that slid across the
    ridge's line over the surface is on the surface, not beside a wall)."""
    convex = sharp.rim.take(s) & ~sharp.open_rims.take(s) & ~through
    if sharp.any_thin:  # (a thin feature's edges keep main's push: it holds cloth on needles and a fine rod)
        convex &= ~sharp.thin.take(s)
    k = convex.nonzero()[0]
    if len(k) == 0:
        return normal
    # (only ridges turning under 90 degrees, as through_faces' cone: at a box's rim main's side rule is kept)
    at = s.take(k)
    shallow = (dot(sharp.out_face.take(at, axis=1), sharp.out_other.take(at, axis=1)) > COS_CONE_LEAST).nonzero()[0]
    if len(shallow) == 0:
        return normal
    k, at = k.take(shallow), at.take(shallow)
    n = normal.take(k, axis=1)
    over_face = dot(n, sharp.into.take(at, axis=1))
    over_other = dot(n, sharp.into_other.take(at, axis=1))
    face = (over_face > 0.0) & (over_face >= over_other)
    other = (over_other > 0.0) & ~face
    if not (face.any() or other.any()):
        return normal
    n = np.where(face, sharp.out_face.take(at, axis=1), np.where(other, sharp.out_other.take(at, axis=1), n))
    normal = normal.copy()
    normal[:, k] = n
    return normal


def _point(points, s, first: int):
    return points[first] + (points[first + 1] - points[first]) * s


def _scatter(x, x_start, rows, local, wi, wj, delta, settle, pose1) -> None:
    """Add each contact's share of delta (and settle, to the start; None: none) to its two vertices, averaged."""
    share = np.concatenate([wi, wj])
    channels = delta if settle is None else np.concatenate([delta, settle])
    weighted = np.concatenate([channels, channels], axis=1) * share
    add_averaged(x, x_start, rows, np.concatenate([local[:, 0], local[:, 1]]), share, weighted, pose1)
