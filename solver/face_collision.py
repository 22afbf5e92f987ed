"""Face-based self-collision: vertex–triangle and edge–edge proximity with a continuous crossing
check and a failsafe, between non-neighbouring parts of one cloth.

What `step` uses with `Params.self_collision_faces` (the default; off: vertex–vertex,
self_collision.py, cheaper but leaky). Its broad phase costs tens of times the plain step on fine
meshes (see docs/self-collision.md). `FaceCollision.install(state, model, params)` puts it in place
for a state whatever the setting.

Narrow phase (every substep): each candidate (vertex, triangle) and (edge, edge) pair closer than
the gap is pushed apart along its contact normal, mass- and barycentric-weighted (Bridson et al.
2002, as a position correction, Jacobi-averaged per vertex, vertex–triangle contacts first, then
edge–edge ones on the corrected positions), with Coulomb friction between the layers. A vertex
that crossed a triangle during the substep (its side of the plane changed and the path it swept,
taken in the triangle's frame, pierces the face), or two edges that passed through each other
(their tetrahedron changed orientation where, to first order, they met inside both), are pushed
back to the side they came from: the continuous check that keeps fast folds from tunnelling with
no speed limit. After the substep's last pass (and the colliders), `undo_crossings` sends whatever
is still crossed back to where it was at the substep's start, with the face or edge it crossed:
a layer squeezed between the floor and the layers above it, or a flap landing faster than the gap
per substep, would otherwise stay through the layer below for good.

The triangles kept apart are each polygon's triangles Blender may draw: for a quad, the fan's and
the two on its other diagonal (Blender draws a quad folded past 90° along its first diagonal on the
other one; 35-55 % of the cost on quad meshes), for an n-gon every triangle of its corners inside it
(Blender ear-clips its projection, which changes as it bends; ngon_hulls.py): `_protected_triangles`.

Exclusions: a vertex never collides with the triangles around it, an edge with the edges it
shares a vertex with, an n-gon's own triangles and chords with its own corners and chords
(`OwnPairs`), and no pair closer than `reach` (1.5 × the gap) at rest collides; nor torn faces.

Broad phase: a Verlet list of the (vertex, triangle) and (edge, edge) pairs themselves, found
with TriangleGrid boxes (no vertex pairs expanded into the triangles and edges around them).
Each vertex has an anchor (the middle of its substep's path at its last query, less the cloth's
mean) and a pad (half that path); pairs within gap + skin + both pads at the anchors are listed,
and a vertex whose substep start or end strays more than skin / 2 + its pad from its anchor is
queried again. That holds every pair that comes within the gap at any moment of a substep, so
the continuous check needs nothing else. Only the pairs of re-queried vertices are found again,
in the grids kept from the last full query (only the boxes that changed since are binned again).
Under violent motion (a cloth landing: no skin lasts a substep) there is no skin and no list:
each substep finds the pairs within gap + half their vertices' largest relative motion at the
middle of the substep's paths, from boxes around each vertex's path; neighbours moving together
are then no candidates, however fast they move. Those pairs come from `patch_pairs.PatchPairs`
(the same pairs as a box query over every primitive, without enumerating the cloth's own
neighbourhood every substep: see that module). Once that motion is predictable (after an impact:
the cloth sliding into place; few vertices off their last substep's motion run on), the same query
is made for a glide of a few substeps: each vertex's path predicted (its motion run on, relative to
the mean), pairs listed within gap + slack on those paths, a vertex more than half the slack off
its prediction queried again (partially). The adaptive skin ranges from a quarter gap to a
gap, or from half a gap to twice the gap while nothing is listed (a flag, a swinging skirt), and
never so wide that it lists the flat cloth's own nearest pairs (fine meshes: `_widest`).
Each substep the narrow phase and the failsafe go through the live candidates only: those whose
distance at the anchors, less how far their vertices strayed since, is under 1.25 × gap.
"""

from __future__ import annotations

import numpy as np

from .collapsed_edges import CollapsedEdges
from .near_rows import NearRows
from .ngon_hulls import OwnPairs, inside_triangles
from .patch_pairs import PatchPairs
from .seams import SewnPolygons, seam_groups
from .topology import components, has_pair
from .triangle_grid import TriangleGrid
from .triangles import FACE, closest_points, cross, cubic_roots, dot, segment_closest, segment_crossings
from .vectors import column_mean, columns_of, largest_of_rows, spans_of_rows, squared_distances, translated

# The patches' cell (`_patch_cell`) at least the whole number of median rest edges nearest this many gaps (None:
# `patch_edges` edges). 3: two edges where edges are ~1.6 gaps (the 128² 2 m drape, the 64² 1 m flag), one where
# they are 3 gaps (the 64² 2 m drape). The same candidates whatever the cell (`PatchPairs` gives the box query's
# pairs), so the same positions (identity 27/27, the face / self-collision test files 112/112 with it); after the
# impact -12 to -25 % a frame, the 64² crumple -14 % over its run, the 128² quad drape -2 %, the build a few
# seconds dearer once at first contact (docs/self-collision.md, round 27 (selfafter_r27); on at the round's close).
PATCH_CELL_GAPS: float | None = 3.0


def _columns(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """x[rows] as a C-contiguous (3, k) array."""
    return columns_of(x, rows)


def _largest_difference(motion: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """max over a in first (K, m), b in second (K, l) of |motion[a] - motion[b]|."""
    out = np.zeros(len(first))
    others = [motion.take(second[:, j], axis=0) for j in range(second.shape[1])]  # each gathered once
    for i in range(first.shape[1]):
        mine = motion.take(first[:, i], axis=0)
        for other in others:
            np.maximum(out, squared_distances(mine, other), out=out)
    return np.sqrt(out)


_EMPTY = np.zeros(0, dtype=np.int64)
# The failsafe counts pairs in one plane all along as crossed when the vertex slides onto the face
# (`_slid_onto`) or the edges slide across each other (`_slid_across`) in that plane. Such a row (in the plane at
# both ends of the substep) is not sent back: its vertex (edge) and face (other edge) are pushed a gap apart along
# the plane's normal (`_push_slides`), the side fixed by the vertex indices (the higher on the normal's side), and
# the substep's start moves with them (no speed out of the plane). An exactly planar sheet crushed in its plane
# buckles out of it instead of freezing; a row whose vertices were already pushed or sent back in this call is sent
# back. (Rounds 23-27, docs/self-collision.md: a slide sent back froze a curtain swept edge-on by a moving box;
# not counting slides let an edge-first drop fold in its plane. Once IN_PLANE_SLIDES_CROSS / SLIDES_PUSHED_OFF.)
# With a `carrier` (zones, `_zone_carry`) the failsafe may take this many times its rounds: each round places a
# zone by its mean motion, which can meet the rows just outside it, and the zone grows by them the next round (the
# fan disc on the fast box: 19 rounds at one substep; the 16th round's placement, untested, left 3 pairs crossed).
ZONE_ROUNDS = 4
# With a `carrier`, once the zones leave nothing crossed, the vertices placed in the call are put out of the moving
# colliders along their paths (the colliders' vertex pass from their starts, no friction: `carrier(..., path=True)`),
# each alone, and the rows tested again (at most twice a call; a push that crosses a row is undone by the zones'
# next placement, and a push the rounds cannot test is taken back). A zone placed rigidly by its mean motion could
# lift a vertex resting under the collider into it (the quad curtain on the fast box: vertex 1 under the box's
# bottom, inside for part of frames 4-5), which no later pass sees (its start is then inside at both ends).
# Only pushes longer than the thickness (pushing every placement within the gap too made the fan disc on the moving
# sphere worse: 514 pushes, 4 vertices inside at frame 9 against main's 1 at frame 7, stretch 5.82 against 2.23).
# Off: it pushes only on the quad curtain whose hem is flush with the fast box's bottom face (17 pushes; every other
# kind and collider, and that box 1-20 mm higher or lower: none, main's positions), and there the hem, kept out,
# stays under the box while the row above rides its front face and top: 5.2x stretch over frames 5-6, where main
# lets the hem tunnel up through the box (1.2x); the edges across the box are the collider passes' (round 29,
# zonepush_r29, docs/self-collision.md; round 28, fastquad_r28).
ZONES_PUSHED_OUT = False
_ZONE_PUSHES = 2  # (`ZONES_PUSHED_OUT`: pushes a call)
# With a `carrier`, zones still crossed after all their rounds (their last placement untested) are not kept: every
# vertex placed in the call goes back to its start from rest and the plain failsafe (no zones) takes over (never
# fired on the curtains or crumples; forced, it ends the call with 0 pairs: round 28 (fastquad_r28)).
_ZERO = np.zeros(3)


def _across_seams(model, edges: np.ndarray) -> np.ndarray:
    """Sorted keys low * N + high of the vertex pairs a seam makes one vertex: the twins of each seam,
    and every two vertices joined through seams (three panels sewn at one corner).

    Sewn panels start apart, so their rest distance does not exclude them; once sewn the twins are one
    vertex, so a vertex and the triangles and edges at its twin are neighbours (kept a gap apart, the
    seam would stay open) and nothing else is: the two panels' border triangles beyond the shared point
    stay apart, as two triangles around one vertex of a merged mesh do. (Until round 14 the twins' whole
    one-rings were excluded against each other, and the panels' border strips passed through each other
    freely: 59 crossed pairs of Blender's triangles at worst in a sewn bag falling onto the floor.)"""
    seams = model.family("seams")
    if seams is None or len(seams.pairs) == 0 or len(edges) == 0:
        return _EMPTY
    n = model.vertex_count
    label = seam_groups(seams.pairs, n)
    members = np.unique(seams.pairs)
    left, right = _every_two(members, label[members])
    return np.unique(np.minimum(left, right) * n + np.maximum(left, right))


def _every_two(items: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every two items of one group (groups of a few): (first, second) pairs, each pair once."""
    order = np.argsort(group, kind="stable")
    items, group = items[order], group[order]
    first = np.searchsorted(group, group)
    size = np.searchsorted(group, group, side="right") - first
    later = size - (np.arange(len(items)) - first) - 1  # each item with each later item of its group
    offset = np.arange(later.sum()) - np.repeat(np.cumsum(later) - later, later)
    return np.repeat(items, later), items[np.repeat(np.arange(len(items)) + 1, later) + offset]


def _protected_triangles(model) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The triangles kept apart, the polygon of each, each quad's diagonals ((Q, 4): the ends of one,
    then the other's), and where the n-gons' own triangles start. Every polygon's fan triangles, each
    quad's two on its other diagonal (Blender draws a quad on its 0-2 diagonal, the fan's, until it is
    folded past 90° along it, then on 1-3: mesh_tessellate.cc), then each n-gon's other triangles
    inside it (Blender ear-clips its projection; `inside_triangles`):
    every surface it may draw must stay uncrossed."""
    triangles, face = model.triangles
    quad = np.flatnonzero(np.asarray(model.faces.sizes)[face] == 4)[::2]  # each quad's first fan triangle
    c0, c1, c2, c3 = triangles[quad, 0], triangles[quad, 1], triangles[quad, 2], triangles[quad + 1, 2]
    other = np.concatenate([np.stack([c0, c1, c3], axis=1), np.stack([c1, c2, c3], axis=1)])
    triangles = np.concatenate([triangles, other]) if len(quad) else triangles
    face = np.concatenate([face, face[quad], face[quad]])
    ngon_from = len(triangles)
    ngon_triangles, ngon_face = inside_triangles(model.faces, model.rest_positions)
    triangles = np.concatenate([triangles, ngon_triangles])
    return triangles, np.concatenate([face, ngon_face]), np.stack([c0, c2, c1, c3], axis=1), ngon_from


def _unique_edges(triangles: np.ndarray) -> np.ndarray:
    """(E, 2) the triangles' edges, low end first, sorted."""
    if len(triangles) == 0:
        return np.zeros((0, 2), dtype=np.int64)
    edges = np.concatenate([triangles[:, [0, 1]], triangles[:, [1, 2]], triangles[:, [2, 0]]])
    return np.unique(np.sort(edges, axis=1), axis=0)


def _edge_keys(ends: np.ndarray, n: int) -> np.ndarray:
    return ends.min(axis=1) * n + ends.max(axis=1)


class FaceCollision:
    """Vertex–triangle and edge–edge self-collision over a Verlet list of candidate pairs."""

    needs_speed_limit = False  # the continuous check replaces the speed limit
    rounds = 2  # passes over the contacts per substep
    every_substep = True  # violent motion: no skin, this substep's candidates only (see refresh)
    installed = False  # set by `install`: `step` keeps this engine for the state
    use_patches = True  # every-substep candidates from patch_pairs.PatchPairs (else the box query)
    patch_edges = 1.0  # the patches' cell, in median rest edges (measured: 1 beats 1.5 and 2)
    violent_most = 16  # the longest stay without a skin once returns to it did not last (measured: 16 beats 1)
    # Back to a skin once at most 1 / calm_share of the vertices would have strayed from a quarter-gap one (was a
    # quarter: a 64² skirt swinging then ran a partial query every substep, twice the every-substep query's cost).
    calm_share = 64
    patch_near = None  # patches within this of each other at rest (in cells) are neighbours too (no gain measured)
    # A skin's full queries from the patches too (the box query over every edge was ~0.9 s at 128², each edge's
    # box meeting dozens of its own neighbours'): the patches are built at the first full query then.
    skin_patches = True
    # A partial query from the patches makes only the moved vertices' boxes (balls) again and keeps the others'
    # from the last query (with no skin: their paths' boxes; docs/self-collision.md, round 16 (selfsafe19)).
    partial_boxes_kept = True
    # After an impact, lists that last: once the cloth's motion is predictable (few vertices off their last
    # substep's motion run on), the every-substep query is made for `glide` substeps of each vertex's predicted
    # path (its motion, relative to the mean, run on), listing within gap + `glide_slack` x gap; a vertex more
    # than half the slack off its prediction is queried again (partially), on the window's clock. 0: off.
    glide = 4
    glide_slack = 0.5
    # Each vertex's own glide slack from its room at rest (`_glide_slacks`), so that fine meshes (128², jittered,
    # fan) glide too; off: one slack for all, and no glides where it exceeds half the flat cloth's room (measured
    # in docs/self-collision.md, round 18 (selfglide21): no gain shown at 128² yet, so off by default).
    glide_rooms = False
    # When a glide starts: at most 1 / glide_share of the vertices (None: calm_share) more than glide_entry x their
    # slack off their last substep's path run on (`_predictable`). Looser (8, 0.5) lets glides start at an impact,
    # where most vertices are predictable a substep ahead and a few hundred are not (docs/self-collision.md, round
    # 19 (selfimpact22)); the others are queried partially every substep of the glide.
    glide_share: int | None = None
    glide_entry = 0.25

    def __init__(self, model, gap: float, skin: float | None = None):
        self.model = model
        self.gap = float(gap)
        self.adaptive = skin is None
        # Adaptive: from a quarter gap. A full gap lists the flat cloth's own two-ring wherever edges are
        # not much longer than the gap (128² 2 m sheet: 670 k pairs, 7 s a frame of free fall).
        self.skin = 0.25 * self.gap if skin is None else float(skin)
        # Pairs closer than this at rest never collide: the cloth between them is shorter than the
        # tightest fold that holds two layers a gap apart (a half circle, pi / 2 x the gap).
        self.reach = 1.5 * self.gap
        n = model.vertex_count
        self.triangles, self.triangle_face, diagonals, self.ngon_from = _protected_triangles(model)
        self.active: np.ndarray | None = None  # (T,) bool, None: every triangle
        self.edges = _unique_edges(self.triangles)
        self.own = OwnPairs(model.faces, self.triangles, self.triangle_face, self.edges, n)
        self.collapsed = CollapsedEdges(self.edges, model.rest_positions)
        self.diagonal_pairs = self._edge_pair_keys(diagonals)  # each quad's two diagonals: they cross at rest
        self.p = self.t = self.e = self.f = _EMPTY  # vertex–triangle, edge–edge candidates
        self.vt_apart = self.ee_apart = np.zeros(0)  # each candidate's distance at its vertices' anchors
        # The candidates that can come within 1.25 × gap this substep (see _live): the narrow phase's pairs.
        self.live_vt = self.live_ee = _EMPTY
        self.anchor: np.ndarray | None = None  # positions (less the cloth's mean) at each vertex's last query
        self.pad = np.zeros(n)  # how far beyond skin / 2 each vertex may stray from its anchor
        self.moves = np.zeros(n)  # each vertex's motion in the last substep, relative to the mean motion
        self.motion = np.zeros((n, 3))  # each vertex's motion (relative to the mean) in its last queried substep
        self.low = self.high = np.zeros((n, 3))  # each vertex's box (see _query)
        self.age = 0  # substeps since the last full query
        self.violent_left = self.violent_wait = 0  # substeps left without a skin, at least; the last such wait
        self.age_skin = 0  # substeps since the skin mode was entered
        self.straying = 0  # substeps with more than 1 / calm_share of the vertices strayed since one with none
        self.rebuilds = 0
        self.undone = 0  # vertices `undo_crossings` sent back, in all
        self.zone_pushes = self.zone_fallbacks = 0  # (`ZONES_PUSHED_OUT`: vertices pushed; the fallback: calls)
        self.rounds_out = 0  # `undo_crossings` calls that ran out of rounds (their last placement untested)
        self.found_at: np.ndarray | None = None  # positions at the substep's candidate search
        self.triangle_grid, self.edge_grid, self.point_grid = TriangleGrid(), TriangleGrid(), TriangleGrid()
        # The triangle and edge grids are kept from the last full query; a partial query looks up only the
        # primitives of re-queried vertices in them, and binns afresh only the primitives whose boxes changed
        # since (a vertex in `changed`), in `stale_grid`.
        self.stale_grid = TriangleGrid()
        self.changed = np.zeros(n, dtype=bool)  # vertices whose box changed since the grids were built
        self.stale_work = 0  # the stale vertices' count summed over the partial queries since (see _query)
        self.grid_alive = _EMPTY  # the triangles binned in triangle_grid
        self.sewn = _across_seams(model, self.edges)
        self.sewn_polygons = SewnPolygons(model, self.triangles, self.triangle_face, self.edges)
        # Pairs never in contact that still must not cross: (vertex, a, b, c) rows, their triangles, (a, b, c, d) rows.
        self.near_vt, self.near_triangles, self.near_ee = self._near_at_rest()
        # Which of them can have met in a substep (a distance kept per row; see near_rows.py).
        # (the edges' peaks also certify which edges cannot have collapsed: `CollapsedEdges`' floor)
        self.near = NearRows(self.near_vt, self.near_ee, n, 1e-3 * self.gap, self.edges, self.collapsed.shortest)
        # Every-substep candidates from patches of the rest mesh (patch_pairs.py), built at the first need.
        self.patches: PatchPairs | None = None
        self.flat: float | None = None  # see _flat_distance
        # The glide (see `glide`): its length in substeps (0: not gliding), the substep's place in it (the
        # substep from clock to clock + 1), each vertex's predicted motion a substep (anchors: the predicted
        # positions at the window's middle), the slack added to the gap, the last substep's middles and pads.
        self.window = self.clock = 0
        self.slack = 0.0
        # Each vertex's slack in a glide (None: `slack` for all): a vertex near at rest to primitives it may collide
        # with gets less (see `_glide_slacks`); `rooms`: (glide_slack × gap, `_glide_slacks`), made at the first glide.
        self.lane: np.ndarray | None = None
        self.rooms: tuple[float, float, np.ndarray | None] | None = None
        self.step_motion = np.zeros((n, 3))
        self.seen: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    @staticmethod
    def install(state, model, params) -> FaceCollision:
        """Make `step` use face-based self-collision for `state` (params.self_collision must be on)."""
        collision = state.scratch["self_collision"] = FaceCollision(model, params.self_collision_gap)
        collision.installed = True  # kept whatever params.self_collision_faces says
        return collision

    def set_active_faces(self, intact: np.ndarray | None) -> None:
        """Collide only with triangles of faces where `intact` is True (None: all)."""
        active = None if intact is None else np.asarray(intact, dtype=bool)[self.triangle_face]
        before = self.active
        if (active is None or before is None) and active is not before:
            self.anchor = None  # the candidates change: query again
        elif active is not None and before is not None and not np.array_equal(active, before):
            self.anchor = None  # the candidates change: query again
        self.active = active

    def refresh(self, x: np.ndarray, previous: np.ndarray | None = None) -> None:
        """Find the candidates again where a vertex strayed from its anchor, at the substep's start
        (`previous`) or end (`x`), by more than skin / 2 + its pad (distances relative to the
        cloth's mean, on which the pairs' distances do not depend).

        While no vertex has, every pair that comes within the gap at any moment of the substep
        (positions linear in time, the mean too) was within gap + skin + both pads at its anchors,
        and so is a candidate: the continuous check needs no other radius."""
        previous = x if previous is None else previous
        n = len(x)
        self.age += 1
        self.age_skin += 1
        mean, mean0 = column_mean(x), column_mean(previous)
        motion = squared_distances(x, previous, mean - mean0)
        self.moves = np.sqrt(motion)
        if self.anchor is None or len(self.anchor) != n:
            self.window, self.slack, self.lane = 0, 0.0, None
            self._query(x, previous, mean, mean0)
            self._live(x, previous)
            return
        anchor, pad, last_path = self.anchor, self.pad, (self.anchor, self.motion)
        if self.window:
            if self._glide(x, previous, mean, mean0):
                return
            assert self.seen is not None
            # The last substep's middles, pads and motions, as after a substep without a skin.
            anchor, pad, motion = self.seen
            last_path = (anchor, motion)
        stray = np.maximum(squared_distances(x, anchor, mean), squared_distances(previous, anchor, mean0))
        if self.skin == 0.0:
            # Violent motion, no skin: the candidates of this substep only, every substep, until a
            # quarter-gap skin would have lasted this one (a quarter of the cloth or less strayed), and
            # no sooner than `violent_left` substeps (1, doubled up to `violent_most` while returns fail).
            allowed = 0.125 * self.gap + pad
            self.violent_left -= 1
            if self.violent_left <= 0 and self.calm_share * np.count_nonzero(stray > allowed * allowed) <= n:
                self.skin = 0.25 * self.gap
                self.age_skin = 0
                self.window = 0
                self.slack, self.lane = 0.0, None
            elif self._glides() and self._predictable(x, previous, mean, mean0, *last_path):
                self.window, self.clock = self.glide, 0
                self.slack, self.lane = self._glide_slacks()
                self.age_skin = 0
            else:
                self.window = 0
                self.slack, self.lane = 0.0, None
            self._query(x, previous, mean, mean0)
            self._live(x, previous)
            return
        allowed = 0.5 * self.skin + self.pad
        moved = stray > allowed * allowed
        count = int(np.count_nonzero(moved))
        if count == 0:
            self.straying = 0
            self._live(x, previous, np.sqrt(stray))
            return
        # Many strays on 8 substeps since the last with none (a skirt swinging: a partial query every substep,
        # ~460 strays of 4 225 at 64², twice the every-substep query's cost): no skin.
        self.straying += self.calm_share * count > n
        if self.adaptive and self.every_substep and self.straying >= 8:
            self.straying = 0
            self.skin = 0.0
            self.violent_left = self.violent_wait = max(self.violent_wait, 1)
            self._query(x, previous, mean, mean0)
            self._live(x, previous)
            return
        skin = self.skin
        if self.adaptive and (self.age >= 8 or 4 * count > n):
            # Calm: a wide skin lets a query last many substeps; violent (queries every substep or
            # two): a narrow one makes each cheap, and none (`every_substep`) cheaper still.
            factor = 0.5 if self.age <= 2 else 2.0 if self.age >= 8 else 1.0
            self.skin = float(np.clip(self.skin * factor, self._narrowest(), self._widest()))
            # Full queries every other substep at the narrowest skin (a 128² skirt sliding into place, 1 s
            # each there) cost more than this substep's candidates every substep (0.4 s): none.
            if self.every_substep and self.age <= 2 and skin == self._narrowest():
                self.skin = 0.0
                # Back in the skin mode after few substeps: stay without for longer next time (each
                # return costs full queries at the narrowest skin that do not last).
                self.violent_wait = max(2 * self.violent_wait, 1) if self.age_skin < 8 else 1
                self.violent_wait = min(self.violent_wait, self.violent_most)
                self.violent_left = self.violent_wait
        elif self.adaptive and self.skin > self._widest():
            self.skin = self._widest()
        if 4 * count > n or self.skin != skin:  # much of the cloth, or a new skin: query everything
            self._query(x, previous, mean, mean0)
        else:
            self._query(x, previous, mean, mean0, moved)
        self._live(x, previous)

    def _glides(self) -> bool:
        """Whether glides are made: on, with patches, and (without `glide_rooms`) the slack not so wide that a
        glide lists the flat cloth's own nearest pairs (gap + slack + the pairs' relative motion beyond
        `_flat_distance`: a 128² 2 m sheet's 1.56 cm edges against a 1 cm gap listed 0.7 M pairs, twice the time
        a frame; so at most half the margin)."""
        if not self.glide or not self._patches_queried():
            return False
        return self.glide_rooms or self.glide_slack * self.gap <= 0.5 * (self._flat_distance() - self.gap)

    def _glide_slacks(self) -> tuple[float, np.ndarray | None]:
        """(the largest slack, each vertex's slack or None: the same for every vertex) in a glide: `glide_slack`
        × gap, or half the vertex's room at rest (`_rooms`) if less, so that a glide does not list the flat
        cloth's own nearest pairs (a 128² 2 m sheet's 1.56 cm edges against a 1 cm gap, half a gap for all: 0.7 M
        pairs, twice the time a frame). A pair is listed within gap + half the largest slack of each side's
        corners, and a vertex more than half its slack off its prediction is queried again: the true distance is
        at least the predicted one less that, whatever the slacks. The query's boxes take the largest."""
        slack = self.glide_slack * self.gap
        if not self.glide_rooms:
            return slack, None
        if self.rooms is None or self.rooms[0] != slack:
            slacks = np.minimum(slack, 0.5 * self._rooms(self.gap + 2.0 * slack))
            most = float(slacks.max()) if len(slacks) else slack
            self.rooms = slack, most, None if bool((slacks == most).all()) else slacks
        return self.rooms[1], self.rooms[2]

    def _rooms(self, within: float) -> np.ndarray:
        """Each vertex's room at rest: the distance less the gap of the nearest primitive pair with it as a
        corner that may collide, of those nearer than `within` (inf: none), over the patches' static rows
        (the pairs of neighbouring patches that may collide: the cloth's own neighbourhood; a pair near at rest
        across patches that are not neighbours is missed, which only lets its vertices' slack be wider)."""
        rest, n = self.model.rest_positions, self.model.vertex_count
        rooms = np.full(n, np.inf)
        patches = self.patches
        if patches is None:
            return rooms
        ids, apart = [], []
        # Rows whose bounding spheres (each triangle's and edge's about its middle) are `within` apart are
        # farther than that: measured no further (the 64² fan's centre has 7 M rows, most of them so).
        margin = within * (1.0 + 1e-9) + 1e-12
        if len(patches.vt_p):
            corners = rest[self.triangles]  # (T, 3, 3)
            middle = corners.mean(axis=1)
            radius = np.sqrt(((corners - middle[:, None]) ** 2).sum(axis=2).max(axis=1))
            gap = rest[patches.vt_p] - middle[patches.vt_t]
            rows = np.flatnonzero(np.sqrt(np.einsum("ij,ij->i", gap, gap)) - radius[patches.vt_t] < margin)
            p, t = patches.vt_p[rows], patches.vt_t[rows]
            d = np.sqrt(self._distance2(rest, p, t))
            near = np.flatnonzero(d < within)
            ids += [p[near], *self.triangles[t[near]].T]
            apart += [d[near]] * 4
        if len(patches.ee_e):
            middle = 0.5 * (rest[self.edges[:, 0]] + rest[self.edges[:, 1]])
            half = 0.5 * np.linalg.norm(rest[self.edges[:, 1]] - rest[self.edges[:, 0]], axis=1)
            gap = middle[patches.ee_e] - middle[patches.ee_f]
            rows = np.flatnonzero(
                np.sqrt(np.einsum("ij,ij->i", gap, gap)) - half[patches.ee_e] - half[patches.ee_f] < margin
            )
            e, f = patches.ee_e[rows], patches.ee_f[rows]
            d = np.sqrt(self._edge_distance2(rest, e, f))
            near = np.flatnonzero(d < within)
            ids += [*self.edges[e[near]].T, *self.edges[f[near]].T]
            apart += [d[near]] * 4
        if ids:
            who, d = np.concatenate(ids), np.concatenate(apart)
            if len(who):
                order = np.argsort(who, kind="stable")
                who, d = who[order], d[order]
                first = np.flatnonzero(np.diff(who, prepend=-1))
                rooms[who[first]] = np.minimum.reduceat(d, first) - self.gap
        return rooms

    def _predictable(self, x, previous, mean, mean0, middle: np.ndarray, motion: np.ndarray) -> bool:
        """Whether at most 1 / calm_share of the vertices strayed more than a quarter of their glide slack
        from their last substep's path (middle, motion; less the mean) run on by its motion at this substep's
        ends: the prediction a glide lists by."""
        slack, lane = self._glide_slacks()
        limit = self.glide_entry * (slack if lane is None else lane)
        ahead = middle + 0.5 * motion  # the last substep's end: this one's predicted start
        off = squared_distances(previous, ahead, mean0)
        ahead += motion
        np.maximum(off, squared_distances(x, ahead, mean), out=off)
        share = self.calm_share if self.glide_share is None else self.glide_share
        return share * np.count_nonzero(off > limit * limit) <= len(x)

    def _predicted(self, tau: float) -> np.ndarray:
        """Each vertex's predicted position (less the mean) at `tau` substeps into the glide."""
        assert self.anchor is not None
        return self.anchor + (tau - 0.5 * self.window) * self.step_motion

    def _off(self, x, previous, mean, mean0) -> np.ndarray:
        """Each vertex's largest distance from its predicted path at this substep's ends (less the means)."""
        off = squared_distances(previous, self._predicted(self.clock), mean0)
        np.maximum(off, squared_distances(x, self._predicted(self.clock + 1), mean), out=off)
        return np.sqrt(off)

    def _glide(self, x, previous, mean, mean0) -> bool:
        """A substep of the glide: True when done (the candidates kept, or found again for the vertices off
        their predictions), False when it ends (over, or a quarter of the cloth off: `refresh` chooses the
        mode again)."""
        self.clock += 1
        if self.clock >= self.window:
            self.window = 0
            return False
        off = self._off(x, previous, mean, mean0)
        moved = off > 0.5 * (self.slack if self.lane is None else self.lane)
        count = int(np.count_nonzero(moved))
        if 4 * count > len(x):
            self.window = 0
            if self.clock < 4:  # cut short: stay without a glide or a skin for longer next time
                self.violent_wait = min(max(2 * self.violent_wait, 1), self.violent_most)
                self.violent_left = self.violent_wait
            return False
        end, start = translated(x, mean), translated(previous, mean0)
        end -= start
        start += 0.5 * end
        self.seen = start, 0.5 * self.moves, end
        if count == 0:
            self._live(x, previous, off)
            return True
        self._query(x, previous, mean, mean0, moved)
        self._live(x, previous)
        return True

    def _glide_query(self, start: np.ndarray, end: np.ndarray, moved: np.ndarray | None) -> None:
        """The every-substep query over the glide's predicted paths (this substep's motion run on to the
        window's ends, on its clock): pairs that come within gap + slack on them. A vertex that stays within
        slack / 2 of its prediction (checked at each substep's ends; the difference is linear in between)
        keeps every pair that comes within the gap on the true paths a candidate. From the patches (glides are made
        only with them: `_glides`)."""
        step = end - start
        ends = start - self.clock * step, start + (self.window - self.clock) * step
        middle = 0.5 * (ends[0] + ends[1])
        half = 0.5 * (self.gap + self.slack)
        if moved is None:
            self.age = 0
            self.seen = start + 0.5 * step, 0.5 * np.sqrt(squared_distances(step, _ZERO)), step
            self.step_motion, self.anchor = step, middle
            self.motion = self.window * step
            self.pad = 0.5 * np.sqrt(squared_distances(self.motion, _ZERO))
            self.low, self.high = np.minimum(*ends), np.maximum(*ends)
            self.low -= half
            self.high += half
            assert self.patches is not None
            (self.p, self.t, self.vt_apart), (self.e, self.f, self.ee_apart) = self.patches.find(
                ends[0], ends[1], self.low, self.high, self.gap + self.slack, self._measure, self._measure, self.active
            )
            self.grid_alive = np.arange(len(self.triangles)) if self.active is None else np.flatnonzero(self.active)
            self.changed[:] = True
            return
        assert self.anchor is not None and self.patches is not None
        index = np.flatnonzero(moved)
        self.step_motion[index] = step[index]
        self.anchor[index] = middle[index]
        self.motion[index] = self.window * step[index]
        self.pad[index] = 0.5 * np.sqrt(squared_distances(self.motion[index], _ZERO))
        self.low[index] = np.minimum(ends[0][index], ends[1][index]) - half
        self.high[index] = np.maximum(ends[0][index], ends[1][index]) + half
        (p, t, apart), (e, f, apart_ee) = self.patches.find(
            start, end, self.low, self.high, self.gap + self.slack, self._measure, self._measure, self.active, moved
        )
        self._merge(moved, p, t, apart, e, f, apart_ee)

    def _glide_live(self, x: np.ndarray, previous: np.ndarray, off: np.ndarray | None = None) -> None:
        """`_live` for a glide: a pair's distance on the predicted paths this substep is at least its distance at
        their middles less half its corners' largest relative predicted motion a substep; the true one at least
        that less how far each side is off its prediction (`off`)."""
        if off is None:
            off = self._off(x, previous, column_mean(x), column_mean(previous))
        reach = 1.25 * self.gap
        middle = self._predicted(self.clock + 0.5)
        tri, edges, step = self.triangles[self.t], self.edges, self.step_motion
        near = np.sqrt(self._distance2(middle, self.p, self.t))
        near -= 0.5 * _largest_difference(step, self.p[:, None], tri)
        near -= off[self.p] + largest_of_rows(off, tri)
        self.live_vt = np.flatnonzero(near < reach)
        first, second = edges[self.e], edges[self.f]
        near = np.sqrt(self._edge_distance2(middle, self.e, self.f))
        near -= 0.5 * _largest_difference(step, first, second)
        near -= largest_of_rows(off, first) + largest_of_rows(off, second)
        self.live_ee = np.flatnonzero(near < reach)

    def _narrowest(self) -> float:
        """The narrowest adaptive skin: a quarter gap, or half a gap while nothing is listed (a skirt
        swinging into place with nothing near: a quarter-gap list lasts a substep or two there)."""
        return 0.5 * self.gap if len(self.p) + len(self.e) == 0 else 0.25 * self.gap

    def _widest(self) -> float:
        """The widest adaptive skin: twice the gap while nothing is listed (a flag, a swinging sheet:
        a query lasts twice as long) and, once that wide, while the list is short (an eighth of the
        vertices: the flat cloth's farther neighbours a wide query finds; dropping back at once made
        the flag alternate full queries at both skins); else the gap (wider would list a pile's own
        neighbourhood, or the flat cloth's where edges are not much longer than the gap)."""
        listed = len(self.p) + len(self.e)
        flat = self._flat_distance() - self.gap  # the skin that lists the flat cloth's nearest pairs
        if listed == 0 or (self.skin > self.gap and 8 * listed <= len(self.pad)):
            return min(2.0 * self.gap, max(flat, 0.5 * self.gap))
        # Half of it once anything is listed: the pads of a cloth in motion take the rest (128² drape, frame 8,
        # the skin at the gap listed 1.4 M pairs of the cloth's own neighbourhood: 25 s a frame; 5.7 s so).
        return min(self.gap, max(0.5 * flat, 0.25 * self.gap))

    def _flat_distance(self) -> float:
        """How far apart at rest the cloth's nearest pairs that may collide are, for most of the cloth: the
        10th percentile over a sample of ~512 edges of each one's nearest such edge (3 gaps: none nearer).
        A listing limit (gap + skin + pads) beyond it lists the flat cloth's own neighbourhood: where edges
        are not much longer than the gap (a 128² 2 m sheet, 1.56 cm edges), every pair across a quad."""
        if self.flat is None:
            edges, rest = self.edges, self.model.rest_positions
            sample = np.arange(0, len(edges), max(1, len(edges) // 512))
            if len(sample) == 0:
                self.flat = np.inf
                return self.flat
            low, high = spans_of_rows(rest - 1.5 * self.gap, rest + 1.5 * self.gap, edges)
            e, f = TriangleGrid().build_boxes(low, high).query_boxes(low[sample], high[sample])
            e = sample[e]
            keep = self._may_touch_ee(e, f)
            e, f = e[keep], f[keep]
            order = np.argsort(e, kind="stable")
            e, distance2 = e[order], self._edge_distance2(rest, e[order], f[order])
            first = np.flatnonzero(np.diff(e, prepend=-1))
            nearest = np.full(len(edges), 3.0 * self.gap)  # none found: farther (the boxes hold 3 gaps)
            if len(first):
                nearest[e[first]] = np.sqrt(np.minimum.reduceat(distance2, first))
            self.flat = float(np.percentile(nearest[sample], 10))
        return self.flat

    def _live(self, x: np.ndarray, previous: np.ndarray, stray: np.ndarray | None = None) -> None:
        """The candidates that can come within 1.25 × gap on the substep's straight paths (`previous`
        to `x`): a pair's distance at its anchors less how far each side strayed from them (`stray`:
        each vertex's largest distance from its anchor at either end, relative to the cloth's mean;
        the largest over a side's corners bounds any of its points'). The narrow phase and the
        failsafe go through these only: the others stay farther apart than the gap on the straight
        paths, and the passes and the failsafe move no vertex more than half a gap from where this
        was found (farther, `undo_crossings` queries it again), so none of them can cross."""
        if self.window:
            self._glide_live(x, previous, stray)
            return
        if stray is None:
            assert self.anchor is not None
            mean, mean0 = column_mean(x), column_mean(previous)
            stray = np.sqrt(
                np.maximum(squared_distances(x, self.anchor, mean), squared_distances(previous, self.anchor, mean0))
            )
        reach = 1.25 * self.gap
        near = self.vt_apart - stray[self.p] - largest_of_rows(stray, self.triangles[self.t]) < reach
        self.live_vt = np.flatnonzero(near)
        edges = self.edges
        near = self.ee_apart - largest_of_rows(stray, edges[self.e]) - largest_of_rows(stray, edges[self.f]) < reach
        self.live_ee = np.flatnonzero(near)

    def _query(self, x, previous, mean, mean0, moved: np.ndarray | None = None) -> None:
        """All candidates (moved None), or again those with a `moved` vertex. A queried vertex's
        anchor is the middle of its substep's path and its pad half that path."""
        self.rebuilds += 1
        end, start = translated(x, mean), translated(previous, mean0)
        if self.window:
            self._glide_query(start, end, None if moved is None or self.anchor is None else moved)
            return
        middle = 0.5 * (end + start)
        self.motion = end - start
        pad = 0.5 * np.sqrt(squared_distances(self.motion, _ZERO))
        if moved is None or self.anchor is None:
            self.age = 0
            self.anchor, self.pad = middle, pad
            if self.skin == 0.0:  # this substep's paths: their boxes, grown by gap / 2
                self.low, self.high = np.minimum(start, end), np.maximum(start, end)
                self.low -= 0.5 * self.gap
                self.high += 0.5 * self.gap
                if self._patches_ready():
                    self._patch_query(start, end)
                    return
            else:
                self._ball_boxes()
                if self.skin_patches and self._patches_ready():
                    self._patch_query(start, end, self.pad)
                    return
            self.p, self.t, self.vt_apart = self._vertex_triangle_candidates()
            self.e, self.f, self.ee_apart = self._edge_edge_candidates()
            self.changed[:] = False
            self.stale_work = 0
            return
        index = np.flatnonzero(moved)
        # No kept grids (or a skin's full query from the patches, which builds none): the patches. (128² frame
        # 7, first contact: a partial query in the kept grids binned every ball box afresh, each edge's meeting
        # dozens of its own neighbours', ~0.35-1 s each; the patches measure only the rows with a moved corner.)
        if (self.skin == 0.0 or self.skin_patches) and self.use_patches and self._patches_queried():
            assert self.patches is not None
            self.anchor[index] = middle[index]
            self.pad[index] = pad[index]
            self._ball_boxes(index if self.partial_boxes_kept else None)
            (p, t, apart), (e, f, apart_ee) = self.patches.find(
                start, end, self.low, self.high, self.gap, self._measure, self._measure, self.active, moved
            )
            self._merge(moved, p, t, apart, e, f, apart_ee)
            return
        self.anchor[index] = middle[index]
        self.pad[index] = pad[index]
        self._ball_boxes()
        self._query_kept_grids(moved)

    def _query_kept_grids(self, moved: np.ndarray) -> None:
        """A partial query of the `moved` vertices in the kept grids (meshes the patches do not suit), merged."""
        self.changed |= moved
        # Bin afresh when the kept grids are mostly stale, or when the stale boxes binned by the partial
        # queries since add up to more than binning every box once costs (a few vertices straying every
        # substep kept half the cloth stale, binned again each time: 64² drape, frame 96, -20 %).
        stale = int(np.count_nonzero(self.changed))
        self.stale_work += stale
        if 2 * stale > len(moved) or self.stale_work > len(moved):
            self._rebin()
        p, t, apart = self._vertex_triangle_candidates(moved)
        e, f, apart_ee = self._edge_edge_candidates(moved)
        self._merge(moved, p, t, apart, e, f, apart_ee)

    def _merge(self, moved, p, t, apart, e, f, apart_ee) -> None:
        """Keep the candidates with no moved vertex, add those found again (p, t, e, f and distances)."""
        tri, edges = self.triangles, self.edges
        old = ~(moved[self.p] | moved[tri[self.t]].any(axis=1))
        n_tri = max(len(tri), 1)
        keys, first = np.unique(np.concatenate([self.p[old] * n_tri + self.t[old], p * n_tri + t]), return_index=True)
        self.p, self.t = keys // n_tri, keys % n_tri
        self.vt_apart = np.concatenate([self.vt_apart[old], apart])[first]
        old = ~(moved[edges[self.e]].any(axis=1) | moved[edges[self.f]].any(axis=1))
        n_edges = max(len(edges), 1)
        keys, first = np.unique(
            np.concatenate([self.e[old] * n_edges + self.f[old], e * n_edges + f]), return_index=True
        )
        self.e, self.f = keys // n_edges, keys % n_edges
        self.ee_apart = np.concatenate([self.ee_apart[old], apart_ee])[first]

    def _patches_queried(self) -> bool:
        """Whether the patches have had a full query (a partial one measures from its boxes)."""
        patches = self.patches
        return patches is not None and patches.origin is not None and len(patches.origin) == len(self.pad)

    def _patches_ready(self) -> bool:
        """Whether every-substep queries use `PatchPairs` (built at the first one; not for meshes it does
        not suit: then the box query, as before)."""
        if self.patches is None and self.use_patches:
            rest, cell = self.model.rest_positions, self._patch_cell()
            if PatchPairs.suits(rest, self.triangles, self.edges, cell):
                keep_vt, keep_ee = self._may_touch_vt, self._may_touch_ee
                near = None if self.patch_near is None else self.patch_near * cell
                self.patches = PatchPairs(rest, self.triangles, self.edges, cell, keep_vt, keep_ee, near, self.reach)
            else:
                self.use_patches = False
        return self.use_patches and self.patches is not None

    def _patch_query(self, start: np.ndarray, end: np.ndarray, pad: np.ndarray | None = None) -> None:
        """The every-substep candidates (the same pairs as the box query's) from `PatchPairs`: the
        cloth's own neighbourhood from a static list measured again only where it deformed enough.
        pad: a skin's full query (the ball boxes, listed within gap + skin + pads), the same pairs as
        `_vertex_triangle_candidates` and `_edge_edge_candidates` find with no `moved`."""
        assert self.patches is not None
        (self.p, self.t, self.vt_apart), (self.e, self.f, self.ee_apart) = self.patches.find(
            start, end, self.low, self.high, self.gap, self._measure, self._measure, self.active, None, pad, self.skin
        )
        self.grid_alive = np.arange(len(self.triangles)) if self.active is None else np.flatnonzero(self.active)
        self.changed[:] = True  # the kept grids were not built: a partial query bins them afresh

    def _patch_cell(self) -> float:
        """The patches' cell: `patch_edges` × the median rest edge (with PATCH_CELL_GAPS, at least the whole number
        of edges nearest that many gaps), and no less than the gap."""
        rest = self.model.rest_positions
        if len(self.edges) == 0:
            return max(self.gap, 1e-6)
        length = np.sqrt(squared_distances(rest[self.edges[:, 0]], rest[self.edges[:, 1]]))
        median = float(np.median(length))
        edges = self.patch_edges
        if PATCH_CELL_GAPS is not None and median > 0:
            edges = max(edges, float(round(PATCH_CELL_GAPS * self.gap / median)))
        return max(edges * median, self.gap, 1e-9)

    def _measure(self, first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(distance at the anchors, listing limit) of primitive pairs, vertex rows first (K, 1 or 2) and
        second (K, 3 or 2): a vertex and a triangle, or two edges."""
        anchor = self.anchor
        assert anchor is not None
        limit = self._limits(first, second)
        if first.shape[1] == 1:
            point = _columns(anchor, first[:, 0])
            closest, _, _, _ = closest_points(
                point, _columns(anchor, second[:, 0]), _columns(anchor, second[:, 1]), _columns(anchor, second[:, 2])
            )
            point -= closest
            return np.sqrt(dot(point, point)), limit
        A, B = _columns(anchor, first[:, 0]), _columns(anchor, first[:, 1])
        C, D = _columns(anchor, second[:, 0]), _columns(anchor, second[:, 1])
        s, t = segment_closest(A, B, C, D)
        gap = (A + (B - A) * s) - (C + (D - C) * t)
        return np.sqrt(dot(gap, gap)), limit

    def _may_touch_vt(self, p: np.ndarray, t: np.ndarray) -> np.ndarray:
        """(vertex, triangle) pairs that may collide at all: not a corner, not within reach at rest, not sewn."""
        corners = self.triangles[t]
        keep = (corners != p[:, None]).all(axis=1)
        keep[keep] = self._distance2(self.model.rest_positions, p[keep], t[keep]) >= self.reach * self.reach
        keep &= ~self.own.vertex_triangle(p, t)
        keep &= ~self.sewn_polygons.vertex_triangle(p, t)
        for k in range(3):
            if len(self.sewn):
                keep &= ~has_pair(self.sewn, p, corners[:, k], self.model.vertex_count)
        return keep

    def _may_touch_ee(self, e: np.ndarray, f: np.ndarray) -> np.ndarray:
        """(edge, edge) pairs that may collide at all: sharing no vertex, not within reach at rest, not sewn."""
        first, second = self.edges[e], self.edges[f]
        keep = (first[:, :, None] != second[:, None, :]).all(axis=(1, 2))
        keep[keep] = self._edge_distance2(self.model.rest_positions, e[keep], f[keep]) >= self.reach * self.reach
        keep &= ~self.own.edge_edge(e, f)
        keep &= ~self.sewn_polygons.edge_edge(e, f)
        if len(self.sewn):
            for i in range(2):
                for j in range(2):
                    keep &= ~has_pair(self.sewn, first[:, i], second[:, j], self.model.vertex_count)
        return keep

    def _ball_boxes(self, index: np.ndarray | None = None) -> None:
        """Every vertex's box (or those of the vertices `index`): its anchor, grown by half of gap + skin and
        its pad."""
        assert self.anchor is not None
        if index is None:
            margin = (0.5 * (self.gap + self.skin) + self.pad)[:, None]
            self.low, self.high = self.anchor - margin, self.anchor + margin
            return
        margin = (0.5 * (self.gap + self.skin) + self.pad[index])[:, None]
        self.low[index] = self.anchor[index] - margin
        self.high[index] = self.anchor[index] + margin

    def _rebin(self) -> None:
        """Bin every (alive) triangle's and edge's current box in the kept grids: none is stale now."""
        alive = self.grid_alive
        low, high = spans_of_rows(self.low, self.high, self.triangles[alive])
        self.triangle_grid.build_boxes(low, high)
        if len(self.edges) >= 2:
            self.edge_grid.build_boxes(*spans_of_rows(self.low, self.high, self.edges))
        self.changed[:] = False
        self.stale_work = 0

    def _limits(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """How close at the anchors pairs of primitives (vertex rows first (K, m), second (K, l)) must
        be to be listed. With a skin: gap + skin + the largest pad of each (each vertex stays within
        skin / 2 + its pad of its anchor). With none (this substep only: positions linear in time,
        anchors the middle of the paths): gap + half their vertices' largest relative motion."""
        if self.skin == 0.0:
            if self.window and self.lane is not None:  # a glide's slacks per vertex: half the largest of each side
                slack = 0.5 * (largest_of_rows(self.lane, first) + largest_of_rows(self.lane, second))
                return self.gap + slack + 0.5 * _largest_difference(self.motion, first, second)
            return self.gap + self.slack + 0.5 * _largest_difference(self.motion, first, second)
        return self.gap + self.skin + largest_of_rows(self.pad, first) + largest_of_rows(self.pad, second)

    def _vertex_triangle_candidates(self, moved: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(vertex, triangle) pairs within `_limits` at the anchors, not excluded, and their distances
        there; with `moved`, only those with a moved vertex. Boxes first (each vertex's, and each
        triangle's holding its corners', in a TriangleGrid), then exact distances."""
        tri, anchor = self.triangles, self.anchor
        assert anchor is not None
        if len(tri) == 0:
            return _EMPTY, _EMPTY, np.zeros(0)
        low, high = spans_of_rows(self.low, self.high, tri)
        if moved is None:
            alive = self.grid_alive = np.arange(len(tri)) if self.active is None else np.flatnonzero(self.active)
            p, t = self.triangle_grid.build_boxes(low[alive], high[alive]).query_boxes(self.low, self.high)
            t = alive[t]
        else:
            # The moved vertices against every triangle: in the kept grid those whose box has not changed
            # since it was built, the others binned afresh; and the triangles with a moved corner against
            # every vertex.
            alive = self.grid_alive
            who = np.flatnonzero(moved)
            stale = self.changed[tri].any(axis=1)
            p, t = self.triangle_grid.query_boxes(self.low[who], self.high[who])
            p, t = who[p], alive[t]
            kept = ~stale[t]
            p, t = p[kept], t[kept]
            redone = alive[stale[alive]]
            p2, t2 = self.stale_grid.build_boxes(low[redone], high[redone]).query_boxes(self.low[who], self.high[who])
            touched = alive[moved[tri[alive]].any(axis=1)]
            p3, t3 = self.point_grid.build_boxes(low[touched], high[touched]).query_boxes(self.low, self.high)
            p = np.concatenate([p, who[p2], p3])
            t = np.concatenate([t, redone[t2], touched[t3]])
        keep = (tri[t] != p[:, None]).all(axis=1)
        p, t = p[keep], t[keep]
        limit = self._limits(p[:, None], tri[t])
        dist2 = self._distance2(anchor, p, t)
        near = dist2 < limit * limit
        p, t, dist2 = p[near], t[near], dist2[near]
        apart = self._distance2(self.model.rest_positions, p, t) >= self.reach * self.reach
        if self.own.any:
            apart &= ~self.own.vertex_triangle(p, t)
        if self.sewn_polygons.any:
            apart &= ~self.sewn_polygons.vertex_triangle(p, t)
        if len(self.sewn):
            corners = tri[t]
            for k in range(3):
                apart &= ~has_pair(self.sewn, p, corners[:, k], self.model.vertex_count)
        return p[apart], t[apart], np.sqrt(dist2[apart])

    def _edge_edge_candidates(self, moved: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(edge, edge) pairs, e < f, within `_limits` at the anchors, sharing no vertex and not
        excluded, and their distances there; with `moved`, only those with a moved end."""
        edges, anchor = self.edges, self.anchor
        assert anchor is not None
        if len(edges) < 2:
            return _EMPTY, _EMPTY, np.zeros(0)
        low, high = spans_of_rows(self.low, self.high, edges)
        if moved is None:
            e, f = self.edge_grid.build_boxes(low, high).query_boxes(low, high, below=True)  # each pair once, e < f
        else:
            # The edges with a moved end against every edge: the kept grid for those whose box has not
            # changed since it was built, the others binned afresh.
            who = np.flatnonzero(moved[edges].any(axis=1))
            stale = self.changed[edges].any(axis=1)
            e, f = self.edge_grid.query_boxes(low[who], high[who])
            kept = ~stale[f]
            e, f = e[kept], f[kept]
            redone = np.flatnonzero(stale)
            e2, f2 = self.stale_grid.build_boxes(low[redone], high[redone]).query_boxes(low[who], high[who])
            e, f = who[np.concatenate([e, e2])], np.concatenate([f, redone[f2]])
            asked = np.zeros(len(edges), dtype=bool)
            asked[who] = True
            keep = (e < f) | ~asked[f]  # a pair of two moved edges is found from both: keep one
            e, f = e[keep], f[keep]
            e, f = np.minimum(e, f), np.maximum(e, f)
        first, second = edges[e], edges[f]
        keep = (first[:, 0] != second[:, 0]) & (first[:, 0] != second[:, 1])
        keep &= (first[:, 1] != second[:, 0]) & (first[:, 1] != second[:, 1])
        e, f = e[keep], f[keep]
        limit = self._limits(edges[e], edges[f])
        dist2 = self._edge_distance2(anchor, e, f)
        near = dist2 < limit * limit
        e, f, dist2 = e[near], f[near], dist2[near]
        apart = self._edge_distance2(self.model.rest_positions, e, f) >= self.reach * self.reach
        if self.own.any:
            apart &= ~self.own.edge_edge(e, f)
        if self.sewn_polygons.any:
            apart &= ~self.sewn_polygons.edge_edge(e, f)
        if len(self.sewn):
            first, second = edges[e], edges[f]
            for i in range(2):
                for j in range(2):
                    apart &= ~has_pair(self.sewn, first[:, i], second[:, j], self.model.vertex_count)
        return e[apart], f[apart], np.sqrt(dist2[apart])

    def _edge_pair_keys(self, rows: np.ndarray) -> np.ndarray:
        """Keys low * E + high of the edge pairs (a, b, c, d) of `rows` (both edges among self.edges)."""
        edges, n = self.edges, self.model.vertex_count
        known = edges[:, 0] * n + edges[:, 1]  # sorted: np.unique sorted the rows
        first = np.searchsorted(known, np.minimum(rows[:, 0], rows[:, 1]) * n + np.maximum(rows[:, 0], rows[:, 1]))
        second = np.searchsorted(known, np.minimum(rows[:, 2], rows[:, 3]) * n + np.maximum(rows[:, 2], rows[:, 3]))
        return np.minimum(first, second) * len(edges) + np.maximum(first, second)

    def _edge_distance2(self, x: np.ndarray, e: np.ndarray, f: np.ndarray) -> np.ndarray:
        first, second = self.edges[e], self.edges[f]
        A, B = _columns(x, first[:, 0]), _columns(x, first[:, 1])
        C, D = _columns(x, second[:, 0]), _columns(x, second[:, 1])
        s, t = segment_closest(A, B, C, D)
        gap = (A + (B - A) * s) - (C + (D - C) * t)
        return dot(gap, gap)

    def _distance2(self, x: np.ndarray, p: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Squared distances from vertices p to triangles t at positions x."""
        tri = self.triangles[t]
        point = _columns(x, p)
        closest, _, _, _ = closest_points(point, _columns(x, tri[:, 0]), _columns(x, tri[:, 1]), _columns(x, tri[:, 2]))
        point -= closest
        return dot(point, point)

    def resolve(
        self, x: np.ndarray, inv_mass: np.ndarray, previous=None, friction: float = 0.0, refresh: bool = True
    ) -> int:
        """Push apart, in place, candidate pairs closer than the gap or crossed during the substep
        (from `previous` to `x`); returns how many contacts there were in the first pass.
        refresh=False: more passes in the same substep, on the same candidates."""
        previous = x if previous is None else previous
        if refresh:
            self.refresh(x, previous)
            self.found_at = x.copy()  # where the candidates were found: see undo_crossings
        first = 0
        for round_ in range(self.rounds):
            for find in (self._vertex_triangle, self._edge_edge):
                contacts = find(x, previous)
                if contacts is not None:
                    ends, coefficient, direction, depth, slip = contacts
                    _respond(x, inv_mass, ends, coefficient, direction, depth, slip, self.gap, friction)
                    first += ends.shape[1] if round_ == 0 else 0
        return first

    def _near_at_rest(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(vertex, a, b, c) rows and their triangles, and (a, b, c, d) rows, of the pairs sharing no
        vertex but closer than `reach` at rest: too close to hold a gap apart (no contacts), yet they
        must not pass through each other either (sheared slivers, jittered diagonals); the failsafe
        checks them every substep."""
        rest, tri, edges = self.model.rest_positions, self.triangles, self.edges
        if len(tri) == 0 or self.reach < 1e-6:  # below a micrometre nothing is near but coincident points
            return np.zeros((0, 4), dtype=np.int64), _EMPTY, np.zeros((0, 4), dtype=np.int64)
        low, high = rest - 0.5 * self.reach, rest + 0.5 * self.reach
        p, t = TriangleGrid().build_boxes(*spans_of_rows(low, high, tri)).query_boxes(low, high)
        keep = (tri[t] != p[:, None]).all(axis=1)
        p, t = p[keep], t[keep]
        # Pairs touching at rest (an unmerged seam's twin vertices, an n-gon's corner on its fan's
        # chord) have no side to keep: the failsafe would count them crossed and rewind every substep.
        touching = (1e-6 * self.gap) ** 2
        dist2 = self._distance2(rest, p, t)
        near = (dist2 < self.reach * self.reach) & (dist2 > touching)
        p, t = p[near], t[near]
        vt = np.concatenate([p[:, None], tri[t]], axis=1)
        # An n-gon's added triangles and chords near other primitives at rest run along a side through a
        # corner that is nearly straight: they pass through them whenever the cloth bends there, and
        # Blender then draws them no more (the corner turned reflex). Only contacts keep those apart.
        fan = (t < self.ngon_from) & ~self.own.vertex_triangle(p, t)
        vt, t = vt[fan], t[fan]
        edge_low, edge_high = spans_of_rows(low, high, edges)
        e, f = TriangleGrid().build_boxes(edge_low, edge_high).query_boxes(edge_low, edge_high, below=True)
        keep = (edges[e][:, :, None] != edges[f][:, None, :]).all(axis=(1, 2))
        keep &= ~np.isin(np.minimum(e, f) * len(edges) + np.maximum(e, f), self.diagonal_pairs)
        e, f = e[keep], f[keep]
        dist2 = self._edge_distance2(rest, e, f)
        near = (dist2 < self.reach * self.reach) & (dist2 > touching)
        ee = np.concatenate([edges[e[near]], edges[f[near]]], axis=1)
        plain = _edge_keys(_unique_edges(tri[: self.ngon_from]), len(rest))
        fan = np.isin(_edge_keys(ee[:, :2], len(rest)), plain) & np.isin(_edge_keys(ee[:, 2:], len(rest)), plain)
        fan &= ~self.own.edge_edge(e[near], f[near])
        return vt, t, ee[fan]

    def _live_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """The live candidates as (vertex, a, b, c) and (a, b, c, d) rows: the failsafe checks them and the
        due near rows (`_due_near_rows`)."""
        edges = self.edges
        live_vt, live_ee = self.live_vt, self.live_ee
        vt = np.concatenate([self.p[live_vt, None], self.triangles[self.t[live_vt]]], axis=1)
        ee = np.concatenate([edges[self.e[live_ee]], edges[self.f[live_ee]]], axis=1)
        return vt, ee

    def _due_near_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """The rows near at rest that can have met this substep (`NearRows.due`, at the failsafe's start). The
        failsafe checks every pair near at rest (those due): they cross where the cloth folds sharply across
        the short distance between them (a jittered mesh's sliver), with no other layer near: none of their
        vertices need be in a candidate pair (checking only those around one let the 64² jittered drape cross)."""
        due_vt, due_ee = self._near_due()
        return self.near_vt[due_vt], self.near_ee[due_ee]

    def _near_due(self) -> tuple[np.ndarray, np.ndarray]:
        """(bool masks) The near rows `NearRows.due` last found due, of the active triangles."""
        due_vt = self.near.vt_due if self.active is None else self.near.vt_due & self.active[self.near_triangles]
        return due_vt, self.near.ee_due

    def undo_crossings(
        self,
        x: np.ndarray,
        previous: np.ndarray,
        inv_mass: np.ndarray,
        rounds: int = 16,
        settled=None,
        carrier=None,
    ) -> int:
        """Failsafe after the substep's last pass, in place: send the vertices of candidate pairs
        still crossed (a vertex now on the other side of a triangle it passed through, two edges that
        passed through each other, exact continuous tests on the straight paths from `previous`; a
        vertex ending in the plane of a face it is over counts) back to their substep start, with the
        corners of the face or edge they crossed, until none is left (the last resort of impact zones,
        Harmon et al. 2008: the start was not crossed, so rewinding everything involved ends clean).
        Vertices that cannot move (inverse mass 0) stay. Returns how many vertices went back.
        `settled`: the start the next substep's velocity comes from, if not `previous` (the colliders
        moved it); the vertices sent back start there from rest too.
        `carrier`: None, or a function of vertex indices (k,) giving (k, 3) how far a moving collider carries
        each one's start in the substep (0 for a start no collider swept over). Then the crossed rows are
        joined into zones, and a zone with a swept start goes to its start moved as one piece by its mean
        motion, at least as far as the collider carries it (`_zone_carry`), not back into the collider; the
        vertices of such zones keep that motion as their speed."""
        found = self.found_at if self.found_at is not None and len(self.found_at) == len(x) else x.copy()
        flat = 1e-6 * self.gap  # nearer a plane than this is in it
        back = np.zeros(len(x), dtype=bool)
        # Each vertex's motion relative to the mean's: with its partners' it bounds how near a pair came.
        shift = column_mean(x) - column_mean(previous)
        motion = np.sqrt(squared_distances(x, previous, shift))
        self.near.due(previous, x)
        # Edges squeezed through (or to) zero length: their triangles pass through each other at a shared
        # corner, where no continuous test can tell (a vertical edge landing in one substep on the floor).
        movable = inv_mass > 0
        # (only those the near rows' edge peaks do not keep longer than that: a calm or falling cloth has none)
        maybe = self.near.shorter_than_floor()
        collapsed = self.collapsed.send_back(previous, x, back, movable, every=True, rows=maybe)
        motion[collapsed] = np.sqrt(dot(shift, shift))
        # Two groups of rows each: the live candidates (found again with the candidates) and the due near rows
        # (fixed for the substep: their start sides are found once, and after a query only those with a vertex
        # sent back are tested again, as between queries: the others' ends and motions are as they were).
        taken_vt, taken_ee = (mask.copy() for mask in self._near_due())
        near_vt, near_ee = self.near_vt[taken_vt], self.near_ee[taken_ee]
        near_vt0, near_ee0 = _heights(previous, near_vt), _separations(previous, near_ee)
        near_vt_rows, near_ee_rows = np.arange(len(near_vt)), np.arange(len(near_ee))
        vt, ee = self._live_rows()
        stale = True  # the live rows' start sides are to be found
        pushed = np.zeros(len(x), dtype=bool)  # vertices pushed off an in-plane slide (`_push_slides`)
        pushed_by = np.zeros_like(x)
        carried_by = None if carrier is None else np.zeros_like(x)  # how far each vertex sent back was carried
        zone_rows: list = []
        ends = None
        entry = x.copy() if carrier is not None else None
        plain_rounds = rounds
        if carrier is not None:  # a zone grows by about a ring of rows a round (its placement meets its neighbours)
            rounds *= ZONE_ROUNDS
        outs_left = _ZONE_PUSHES if carrier is not None and ZONES_PUSHED_OUT else 0
        before_out = None  # (the clean state a push out left, while its rows are not yet tested)
        for _ in range(rounds):
            # Vertices more than half a gap from where the candidates were found (moved by the passes,
            # or sent back): their pairs are found again (otherwise no pair's distance moved by a gap).
            drift = squared_distances(x, found) > 0.25 * self.gap * self.gap
            count = int(np.count_nonzero(drift))
            if count:
                mean, mean0 = column_mean(x), column_mean(previous)
                # All pairs when that is a quarter of the cloth or more (as `refresh`), or when a drifted
                # vertex's new ball would dwarf the grid's cells (a partial query keeps the others'
                # balls: its cost would explode).
                pad = 0.5 * np.sqrt(squared_distances(x, previous, mean - mean0)[drift].max())
                dwarfs = pad > 16.0 * (self.gap + self.skin + float(self.pad.max()))
                full = 4 * count >= len(x) or dwarfs
                self._query(x, previous, mean, mean0, None if full else drift)
                found[drift] = x[drift]
                self._live(found, previous)  # where no vertex is more than half a gap from (see _live)
                vt, ee = self._live_rows()
                stale = True
            if len(vt) + len(ee) + len(near_vt) + len(near_ee) == 0:
                break
            if stale:
                stale = False
                vt0, ee0 = _heights(previous, vt), _separations(previous, ee)
                vt_rows, ee_rows = np.arange(len(vt)), np.arange(len(ee))
            vt_bad = _crossed_rows(_vertex_crossed, previous, x, vt, vt0, vt_rows, flat, motion)
            near_vt_bad = _crossed_rows(_vertex_crossed, previous, x, near_vt, near_vt0, near_vt_rows, flat, motion)
            ee_bad = _crossed_rows(_edges_crossed, previous, x, ee, ee0, ee_rows, flat, motion)
            near_ee_bad = _crossed_rows(_edges_crossed, previous, x, near_ee, near_ee0, near_ee_rows, flat, motion)
            bad = [vt[vt_bad], near_vt[near_vt_bad], ee[ee_bad], near_ee[near_ee_bad]]
            starts = [vt0[vt_bad], near_vt0[near_vt_bad], ee0[ee_bad], near_ee0[near_ee_bad]]
            bad, moved_off = self._push_slides(x, inv_mass, bad, starts, flat, back, pushed, pushed_by)
            if moved_off is not None:
                motion[moved_off] += self.gap
            involved = np.concatenate([rows.ravel() for rows in bad])
            involved = involved[(inv_mass[involved] > 0) & ~back[involved]]
            carry = None
            if carrier is not None and carried_by is not None and entry is not None:  # zones (`_zone_carry`)
                if sum(len(rows) for rows in bad) == 0:
                    before_out = None
                    out = self._zones_pushed_out(x, previous, back & movable, carrier) if outs_left else None
                    if out is None:
                        break
                    outs_left -= 1
                    before_out, moved = out
                    motion[moved] = np.sqrt(squared_distances(x[moved], previous[moved], shift))
                    changed = np.zeros(len(x), dtype=bool)
                    changed[moved] = True
                    vt_rows, ee_rows = _with_any(changed, vt), _with_any(changed, ee)
                    near_vt, near_vt0, near_vt_rows, near_ee, near_ee0, near_ee_rows = self._near_again(
                        previous, x, changed, near_vt, near_vt0, near_ee, near_ee0, taken_vt, taken_ee
                    )
                    continue
                before_out = None
                zone_rows.append(np.concatenate(bad))
                if ends is None:
                    ends = x.copy()  # (where the passes left the vertices: each zone's mean motion from them)
                    ends[back] = entry[back]
                carry, involved = _zone_carry(ends, previous, inv_mass, zone_rows, carrier, carried_by)
            if len(involved) == 0 and moved_off is None:
                break
            if carry is None:
                carry = _carried(previous, x, inv_mass, np.concatenate(bad))
            if carry is None:
                x[involved] = previous[involved]
                motion[involved] = np.sqrt(dot(shift, shift))
            else:  # with the held vertices they crossed: back to the start as it was, moved along with them
                x[involved] = previous[involved] + carry[involved]
                motion[involved] = np.sqrt(squared_distances(carry[involved], np.zeros_like(carry[involved]), shift))
            back[involved] = True
            # Neighbours a vertex sent back would meet through their edge go back with it.
            motion[self.collapsed.send_back(previous, x, back, movable)] = np.sqrt(dot(shift, shift))
            # Only pairs with a vertex just sent back (or pushed off the plane) can have changed.
            changed = back | pushed
            vt_rows, ee_rows = _with_any(changed, vt), _with_any(changed, ee)
            near_vt, near_vt0, near_vt_rows, near_ee, near_ee0, near_ee_rows = self._near_again(
                previous, x, changed, near_vt, near_vt0, near_ee, near_ee0, taken_vt, taken_ee
            )
        else:  # (no round left: the last placement is untested)
            self.rounds_out += 1
            if before_out is not None:  # a push out not tested: back to the clean state before it
                x[before_out[0]] = before_out[1]
            elif carrier is not None and carried_by is not None:  # the fallback
                self.zone_fallbacks += 1
                x[back] = previous[back]
                carried_by[back] = 0.0
                _UNDO_CROSSINGS(self, x, previous, inv_mass, plain_rounds, settled=settled)  # (not a wrapper of it)
        self.near.checked(x)  # the due near rows measured again where the substep ends
        if pushed.any():  # their start moves with them
            kept = pushed & ~back  # (no speed out of the plane)
            (previous if settled is None else settled)[kept] += pushed_by[kept]
        if settled is not None and settled is not previous:
            settled[back] = x[back]
            if carried_by is not None:  # a zone keeps its motion (0 for those sent back to their starts)
                settled[back] -= carried_by[back]
        count = int(np.count_nonzero(back))
        self.undone += count
        return count

    def _near_again(self, previous, x, changed, near_vt, near_vt0, near_ee, near_ee0, taken_vt, taken_ee):
        """(`undo_crossings`) Its near rows after the `changed` vertices moved (sent back, pushed): of each kind
        (vertex–triangle, edge–edge) the rows, their start sides and the indices to test again — those with a
        changed vertex, and the rows due only now, appended (`_newly_due`). The near rows' bounds took each vertex
        and edge where `due` saw them, at the substep's ends: a vertex moved without its neighbour makes an edge
        (start to end) `due` never saw, and a row not due may now have met (the fan drape: a 3 mm ring edge
        shortened by a half, a sliver through its neighbour's). So the paths to the new ends are bounded again."""
        near_vt_rows, near_ee_rows = _with_any(changed, near_vt), _with_any(changed, near_ee)
        self.near.due(previous, x)
        due_vt, due_ee = self._near_due()
        near_vt, near_vt0, near_vt_rows = _newly_due(
            previous, _heights, self.near_vt, due_vt, taken_vt, near_vt, near_vt0, near_vt_rows
        )
        near_ee, near_ee0, near_ee_rows = _newly_due(
            previous, _separations, self.near_ee, due_ee, taken_ee, near_ee, near_ee0, near_ee_rows
        )
        return near_vt, near_vt0, near_vt_rows, near_ee, near_ee0, near_ee_rows

    def _zones_pushed_out(self, x, previous, placed, carrier):
        """(`ZONES_PUSHED_OUT`) The `placed` vertices out of the moving colliders along their paths from `previous`,
        in place, each alone: None when none moved, else ((the moved vertices, their places before), the moved)."""
        index = np.flatnonzero(placed)
        if len(index) == 0:
            return None
        push = carrier(index, x[index], path=True)
        far = np.einsum("ij,ij->i", push, push) > (1e-3 * self.gap) ** 2
        if not far.any():
            return None
        moved = index[far]
        before = x[moved].copy()
        x[moved] += push[far]
        self.zone_pushes += len(moved)
        return (moved, before), moved

    def _push_slides(self, x, inv_mass, bad, starts, flat, back, pushed, pushed_by):
        """Of the failsafe's crossed rows `bad` (vertex–triangle, near vertex–triangle,
        edge–edge, near edge–edge; `starts`: their start heights / separations), those crossed only by a slide in
        their plane whose vertices are neither sent back nor pushed yet: pushed a gap apart along the plane's
        normal, in place (x, and `pushed_by` the push, `pushed` marked). Returns (the rows left to send back,
        the vertices pushed or None)."""
        kinds = (_heights, _heights, _separations, _separations)
        done = back | pushed
        left, taken = [], []
        for rows, start, measure in zip(bad, starts, kinds):
            if len(rows) == 0:
                left.append(rows)
                taken.append(rows)
                continue
            slide = (np.abs(start) <= flat) & (np.abs(measure(x, rows)) <= flat) & ~_with_any_mask(done, rows)
            if measure is _separations and slide.any():  # edges crossing at a clear angle: the plane is theirs
                A, B, C, D = (_columns(x, rows[:, k]) for k in range(4))
                first, second = B - A, D - C
                normal = cross(first, second)
                slide &= dot(normal, normal) > 1e-6 * dot(first, first) * dot(second, second)
            left.append(rows[~slide])
            taken.append(rows[slide])
        if sum(len(rows) for rows in taken) == 0:
            return bad, None
        normals = self._vertex_normals(x)
        parts = []
        for rows, is_vt in zip(taken, (True, True, False, False)):
            if len(rows) == 0:
                continue
            P, A, B, C = (_columns(x, rows[:, k]) for k in range(4))
            if is_vt:
                _, v, w, _ = closest_points(P, A, B, C)
                coefficient = np.stack([np.ones(len(rows)), v + w - 1.0, -v, -w])
                normal = cross(B - A, C - A)
                up = rows[:, 0] * 3 > rows[:, 1:].sum(axis=1)
            else:
                s, t = segment_closest(P, A, B, C)
                coefficient = np.stack([1.0 - s, s, t - 1.0, -t])
                normal = cross(A - P, C - B)
                up = rows[:, :2].sum(axis=1) > rows[:, 2:].sum(axis=1)
            around = normals[rows].sum(axis=1).T  # (3, K): the cloth's side here
            orient = np.where(dot(normal, around) < 0.0, -1.0, 1.0) * np.where(up, 1.0, -1.0)
            normal = normal * (orient / np.maximum(np.sqrt(dot(normal, normal)), 1e-300))
            parts.append((rows.T, coefficient, normal))
        ends = np.concatenate([p[0] for p in parts], axis=1)
        coefficient = np.concatenate([p[1] for p in parts], axis=1)
        direction = np.concatenate([p[2] for p in parts], axis=1)
        moved = np.unique(ends)
        moved = moved[inv_mass[moved] > 0]
        before = x[moved]
        _respond(x, inv_mass, ends, coefficient, direction, np.zeros(ends.shape[1]), direction, self.gap, 0.0)
        pushed_by[moved] += x[moved] - before
        pushed[moved] = True
        return left, moved

    def _vertex_normals(self, x: np.ndarray) -> np.ndarray:
        """(N, 3) area-weighted vertex normals of the triangles at x (not normalised)."""
        tri = self.triangles
        face = np.cross(x[tri[:, 1]] - x[tri[:, 0]], x[tri[:, 2]] - x[tri[:, 0]])
        flat_tri = tri.ravel()
        return np.stack(
            [np.bincount(flat_tri, weights=np.repeat(face[:, k], 3), minlength=len(x)) for k in range(3)], axis=1
        )

    def _vertex_triangle(self, x: np.ndarray, previous: np.ndarray):
        """Vertex–triangle contacts: (ends (4, K), coefficients (4, K), direction (3, K), depth (K,),
        slip (3, K)), or None."""
        if len(self.live_vt) == 0:
            return None
        p, t = self.p[self.live_vt], self.t[self.live_vt]
        tri = self.triangles[t]
        a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
        P, A, B, C = _columns(x, p), _columns(x, a), _columns(x, b), _columns(x, c)
        closest, v, w, region = closest_points(P, A, B, C)
        d = P - closest
        dist2 = dot(d, d)
        # Close enough to touch, or on a face it may have crossed within this substep.
        reach = self.gap + self.moves[p] + self.moves[tri].max(axis=1)
        near = np.flatnonzero((dist2 < self.gap * self.gap) | ((region == FACE) & (dist2 < reach * reach)))
        if len(near) == 0:
            return None
        p, a, b, c, v, w, region = p[near], a[near], b[near], c[near], v[near], w[near], region[near]
        P, A, B, C, d, closest = P[:, near], A[:, near], B[:, near], C[:, near], d[:, near], closest[:, near]
        dist = np.sqrt(dist2[near])
        u = 1.0 - v - w
        normal = cross(B - A, C - A)
        normal /= np.maximum(np.sqrt(dot(normal, normal)), 1e-300)
        P0, A0, B0, C0 = _columns(previous, p), _columns(previous, a), _columns(previous, b), _columns(previous, c)
        side0 = dot(cross(B0 - A0, C0 - A0), P0 - A0)  # which side of the face the vertex came from
        height = dot(normal, d)  # signed distance from the face
        # Crossed: the side changed and the path swept relative to the triangle pierces its face.
        crossed = (region == FACE) & (height * side0 < 0.0)
        if crossed.any():
            start = P0 - (A0 * u + B0 * v + C0 * w) + closest  # the start, moved by the triangle's motion there
            pierced, _ = segment_crossings(start, P, A, B, C)
            crossed &= pierced
        side = np.where(crossed | (height == 0.0), np.sign(side0), np.sign(height))  # the side it belongs on
        facing = (region == FACE) | (dist < 1e-9 * self.gap)
        direction = np.where(facing, normal * side, d / np.maximum(dist, 1e-300))
        depth = np.where(facing, height * side, dist)  # signed distance, positive on the right side
        hit = np.flatnonzero(depth < self.gap)
        if len(hit) == 0:
            return None
        ends = np.stack([p[hit], a[hit], b[hit], c[hit]])
        coefficient = np.stack([np.ones(len(hit)), -u[hit], -v[hit], -w[hit]])
        slip = (P - P0) - ((A - A0) * u + (B - B0) * v + (C - C0) * w)
        return ends, coefficient, direction[:, hit], depth[hit], slip[:, hit]

    def _edge_edge(self, x: np.ndarray, previous: np.ndarray):
        """Edge–edge contacts, in the form of `_vertex_triangle`'s, or None."""
        if len(self.live_ee) == 0:
            return None
        first, second = self.edges[self.e[self.live_ee]], self.edges[self.f[self.live_ee]]
        a, b, c, d = first[:, 0], first[:, 1], second[:, 0], second[:, 1]
        A, B, C, D = _columns(x, a), _columns(x, b), _columns(x, c), _columns(x, d)
        s, t = segment_closest(A, B, C, D)
        gap = (A + (B - A) * s) - (C + (D - C) * t)
        dist2 = dot(gap, gap)
        inside = (s > 0.0) & (s < 1.0) & (t > 0.0) & (t < 1.0)
        moves = self.moves
        reach = self.gap + np.maximum(moves[a], moves[b]) + np.maximum(moves[c], moves[d])
        near = np.flatnonzero((dist2 < self.gap * self.gap) | (inside & (dist2 < reach * reach)))
        if len(near) == 0:
            return None
        a, b, c, d, s, t, inside = a[near], b[near], c[near], d[near], s[near], t[near], inside[near]
        A, B, C, D, gap = A[:, near], B[:, near], C[:, near], D[:, near], gap[:, near]
        dist = np.sqrt(dist2[near])
        A0, B0, C0, D0 = _columns(previous, a), _columns(previous, b), _columns(previous, c), _columns(previous, d)
        normal = cross(B - A, D - C)
        normal /= np.maximum(np.sqrt(dot(normal, normal)), 1e-300)
        height = dot(normal, gap)
        # Crossed: the tetrahedron (a, b, c, d) changed orientation, and where its volume (linear
        # in time, to first order) vanished the edges met inside both.
        volume0 = dot(cross(B0 - A0, D0 - C0), C0 - A0)
        volume1 = dot(cross(B - A, D - C), C - A)
        side0 = -volume0  # its sign is the side of the second edge the first came from
        crossed = volume0 * volume1 < 0.0
        if crossed.any():
            k = np.flatnonzero(crossed)
            tau = volume0[k] / (volume0[k] - volume1[k])
            At, Bt = A0[:, k] + (A[:, k] - A0[:, k]) * tau, B0[:, k] + (B[:, k] - B0[:, k]) * tau
            Ct, Dt = C0[:, k] + (C[:, k] - C0[:, k]) * tau, D0[:, k] + (D[:, k] - D0[:, k]) * tau
            st, tt = segment_closest(At, Bt, Ct, Dt)
            meet = (At + (Bt - At) * st) - (Ct + (Dt - Ct) * tt)
            met = (dot(meet, meet) < (0.25 * self.gap) ** 2) & (st > 0) & (st < 1) & (tt > 0) & (tt < 1)
            crossed[k] = met
        side = np.where(crossed | (height == 0.0), np.sign(side0), np.sign(height))
        use_normal = crossed | (dist < 1e-9 * self.gap)
        direction = np.where(use_normal, normal * side, gap / np.maximum(dist, 1e-300))
        depth = np.where(use_normal, height * side, dist)
        hit = np.flatnonzero(depth < self.gap)
        if len(hit) == 0:
            return None
        slip = ((A - A0) * (1.0 - s) + (B - B0) * s) - ((C - C0) * (1.0 - t) + (D - D0) * t)
        ends = np.stack([a[hit], b[hit], c[hit], d[hit]])
        s, t = s[hit], t[hit]
        coefficient = np.stack([1.0 - s, s, t - 1.0, -t])
        return ends, coefficient, direction[:, hit], depth[hit], slip[:, hit]


_UNDO_CROSSINGS = FaceCollision.undo_crossings  # (the zones' fallback calls it without a carrier)


def _zone_carry(ends, previous, inv_mass, zone_rows, carrier, carried_by):
    """(see `undo_crossings`' `carrier`) The crossed rows found so far in this call joined into zones (vertices
    sharing a row, `_components`). A zone with a start a moving collider swept over moves as one piece from its
    start by its vertices' mean motion this substep (from `ends`, where the passes left them), and at least as far
    along the collider's motion as the collider carries that start (the longest such carry in the zone): its shape
    is its uncrossed start's and it keeps moving (a rigid impact zone, translation only, Bridson et al. 2002); if
    that would leave one of its vertices inside the collider at t1, it moves by that carry alone (as the collider).
    A zone with a held vertex moves by the held vertices' mean motion (as `_carried`); the
    others go back to their starts. Returns ((N, 3) carry, every movable vertex of the zones); `carried_by` takes
    the carries."""
    rows = np.concatenate(zone_rows)
    n = len(ends)
    labels = components(n, np.concatenate([rows[:, k : k + 2] for k in range(rows.shape[1] - 1)]))
    flat = np.unique(rows.ravel())
    movable = inv_mass[flat] > 0
    free = flat[movable]
    swept = np.zeros((n, 3))
    if len(free):
        swept[free] = carrier(free)
    label = labels[flat]
    motion = ends[flat] - previous[flat]
    mean, _ = _zone_means(label, motion, n)
    held = ~movable
    held_mean, held_count = _zone_means(label[held], motion[held], n)
    # the longest swept carry in each zone
    length = dot(swept[flat].T, swept[flat].T)
    order = np.lexsort((length, label))
    last = np.ones(len(order), dtype=bool)
    last[:-1] = label[order[1:]] != label[order[:-1]]
    zone_carry = np.zeros((n, 3))
    zone_carry[label[order[last]]] = swept[flat[order[last]]]
    carry_length = np.sqrt(dot(zone_carry.T, zone_carry.T))
    is_swept = carry_length > 0
    d = np.where(is_swept[:, None], mean, 0.0)
    unit = zone_carry / np.maximum(carry_length, 1e-300)[:, None]
    short = carry_length - dot(d.T, unit.T)
    d += np.where((is_swept & (short > 0))[:, None], short[:, None] * unit, 0.0)
    # A zone whose mean motion would put a vertex inside the collider at t1 moves with the collider alone.
    moved = free[is_swept[labels[free]]]
    if len(moved):
        inside = (carrier(moved, previous[moved] + d[labels[moved]]) != 0.0).any(axis=1)
        if inside.any():
            rigid = np.zeros(n, dtype=bool)
            rigid[labels[moved[inside]]] = True
            d = np.where(rigid[:, None], zone_carry, d)
    d = np.where((held_count > 0)[:, None], held_mean, d)
    carry = np.zeros((n, 3))
    carry[free] = d[labels[free]]
    carried_by[free] = carry[free]
    return carry, free


def _zone_means(label: np.ndarray, values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """((n, 3) the mean of the (k, 3) `values` over each label in 0..n-1 (0 where none), (n,) how many)."""
    count = np.bincount(label, minlength=n).astype(float)
    sums = np.stack([np.bincount(label, weights=values[:, k], minlength=n) for k in range(3)], 1).astype(float)
    return sums / np.maximum(count, 1.0)[:, None], count


def _carried(previous: np.ndarray, x: np.ndarray, inv_mass: np.ndarray, rows: np.ndarray) -> np.ndarray | None:
    """(N, 3) how far each vertex of the crossed `rows` is carried by the vertices that cannot move in
    its rows (a grabbed vertex, an animated pin: their mean motion in the substep, averaged over the
    vertex's rows), or None when none of them moved. Sent back to its start plus that, a row is its
    uncrossed start moved as one piece; sent back to the start alone, it stays crossed with a held
    vertex that was dragged through the cloth."""
    held = inv_mass[rows] == 0.0
    if not held.any():
        return None
    moved = np.where(held[..., None], x[rows] - previous[rows], 0.0)  # (R, m, 3)
    carrying = held.any(axis=1) & (np.abs(moved).max(axis=(1, 2)) > 0.0)
    if not carrying.any():
        return None
    rows, held, moved = rows[carrying], held[carrying], moved[carrying]
    row_carry = moved.sum(axis=1) / held.sum(axis=1)[:, None]  # (R, 3)
    n, width = len(x), rows.shape[1]
    flat = rows.ravel()
    count = np.bincount(flat, minlength=n)
    carry = np.stack([np.bincount(flat, weights=np.repeat(row_carry[:, k], width), minlength=n) for k in range(3)], 1)
    return carry / np.maximum(count, 1)[:, None]


def _crossed_rows(test, previous, x, rows: np.ndarray, start_sides: np.ndarray, which: np.ndarray, flat, motion):
    """The indices among `which` of the rows that `test` (`_vertex_crossed` or `_edges_crossed`) finds crossed."""
    if len(which) == 0:
        return which
    return which[test(previous, x, rows[which], start_sides[which], flat, motion)]


def _newly_due(previous, start_sides, table: np.ndarray, due: np.ndarray, taken: np.ndarray, rows, sides, which):
    """The failsafe's near rows of one kind (rows, their start sides, the indices to test `which`) with the
    rows of `table` due but not yet `taken` appended (marked taken now, their start sides by `start_sides`:
    `_heights` or `_separations`)."""
    new = np.flatnonzero(due & ~taken)
    if len(new) == 0:
        return rows, sides, which
    taken[new] = True
    added = table[new]
    which = np.concatenate([which, len(rows) + np.arange(len(added))])
    return np.concatenate([rows, added]), np.concatenate([sides, start_sides(previous, added)]), which


def _with_any(flags: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The indices of the rows (K, m) with a vertex flagged (a column at a time: `any` over a short axis is slow)."""
    out = flags.take(rows[:, 0])
    for k in range(1, rows.shape[1]):
        out |= flags.take(rows[:, k])
    return np.flatnonzero(out)


def _with_any_mask(flags: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """(bool mask) The rows (K, m) with a vertex flagged."""
    out = flags.take(rows[:, 0])
    for k in range(1, rows.shape[1]):
        out |= flags.take(rows[:, k])
    return out


def _heights(x: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Signed distances of vertices from their triangles' planes, rows (vertex, a, b, c) of `ends`."""
    P, A, B, C = (_columns(x, ends[:, k]) for k in range(4))
    normal = cross(B - A, C - A)
    return dot(normal, P - A) / np.maximum(np.sqrt(dot(normal, normal)), 1e-300)


def _separations(x: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Signed distances between the lines of edge pairs, rows (a, b, c, d) of `ends`: which way ab
    passes cd (the sign of the tetrahedron's volume)."""
    A, B, C, D = (_columns(x, ends[:, k]) for k in range(4))
    normal = cross(B - A, D - C)
    return dot(normal, C - A) / np.maximum(np.sqrt(dot(normal, normal)), 1e-300)


def _flipped(before: np.ndarray, after: np.ndarray, flat: float) -> np.ndarray:
    """Rows that started clearly on one side (farther than `flat`) and ended in the plane or past it.
    Ending *in* the plane counts: layers a floor flattened into one plane are as good as crossed."""
    return (np.abs(before) > flat) & (after * np.sign(before) <= flat)


def _returned(before: np.ndarray, after: np.ndarray, flat: float, reach: np.ndarray) -> np.ndarray:
    """Rows that started and ended clearly on one side, but near enough (both distances from the plane,
    which bound the pair's, within `reach`: the most its points moved relative to each other) to have
    been in the plane twice in between: through the face, and back across its plane beside it."""
    same = (np.abs(before) > flat) & (after * np.sign(before) > flat)
    return same & (np.abs(before) + np.abs(after) <= reach + 2.0 * flat)


def _left(before: np.ndarray, after: np.ndarray, flat: float, reach: np.ndarray) -> np.ndarray:
    """Rows that started in the plane (a flat sheet's pairs all do) and ended off it, near enough to
    have passed through the face or edge on the way: their side at the start says nothing, so only
    the moments they are in the plane again can tell (one substep can fold a flat sheet through itself)."""
    return (np.abs(before) <= flat) & (np.abs(after) > flat) & (np.abs(after) <= reach + 2.0 * flat)


def _crossing_moments(previous, x, ends: np.ndarray, ended_flat: np.ndarray) -> np.ndarray:
    """(3, K) moments in the substep (NaN: none) when the four points of each row of `ends` (K, 4),
    moving on straight lines from `previous` to `x`, are coplanar (exact continuous collision:
    the tetrahedron's volume is cubic in time); rows `ended_flat` count the end as coplanar."""
    then = [_columns(previous, ends[:, k]) for k in range(4)]
    now = [_columns(x, ends[:, k]) for k in range(4)]
    samples = []
    for t in (0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0):
        P, A, B, C = (p0 + (p1 - p0) * t for p0, p1 in zip(then, now))
        samples.append(dot(cross(B - A, C - A), P - A))
    samples[3] = np.where(ended_flat, 0.0, samples[3])
    return cubic_roots(samples[0], samples[1], samples[2], samples[3])


def _at(previous, x, ends: np.ndarray, tau: np.ndarray) -> list[np.ndarray]:
    """The (3, K) positions of each of the four points of rows `ends` at moments tau (K,)."""
    return [p0 + (_columns(x, ends[:, k]) - p0) * tau for k in range(4) for p0 in [_columns(previous, ends[:, k])]]


def _vertex_crossed(previous, x, ends: np.ndarray, height0: np.ndarray, flat: float, motion: np.ndarray) -> np.ndarray:
    """Which (vertex, a, b, c) rows `ends` (K, 4) passed through their triangle's face in the substep
    (`height0`: their `_heights` at the start; `motion`: each vertex's, relative to a common one):
    the vertex ends in the triangle's plane or past it, or came back to its side (through the face
    and back around its edge), and at a moment it was in the plane it was on the face (boundary included)."""
    height1 = _heights(x, ends)
    out = _slid_onto(previous, x, ends, height0, height1, flat)
    reach = motion[ends[:, 0]] + largest_of_rows(motion, ends[:, 1:])
    flipped = _flipped(height0, height1, flat)
    returned = np.flatnonzero(
        (_returned(height0, height1, flat, reach) | _left(height0, height1, flat, reach)) & ~flipped
    )
    if len(returned):
        # Cloth near at rest lies nearly in its neighbours' planes: the heights bound little there, the
        # distances to the triangle (start and end) do (as `_edges_crossed`'s segments).
        came = [_columns(previous, ends[returned, k]) for k in range(4)]
        went = [_columns(x, ends[returned, k]) for k in range(4)]
        apart = _face_distances(came) + _face_distances(went) > reach[returned] + 2.0 * flat
        flipped[returned[~apart]] = True
    rows = np.flatnonzero(flipped)
    if len(rows) == 0:
        return out
    ends = ends[rows]
    moments = _crossing_moments(previous, x, ends, np.abs(height1[rows]) <= flat)
    out[rows] |= _met_at(previous, x, ends, moments, _on_face)
    return out


def _face_distances(points: list[np.ndarray]) -> np.ndarray:
    """Distances from points P to triangles ABC (points: P, A, B, C, each (3, n))."""
    P, A, B, C = points
    closest, _, _, _ = closest_points(P, A, B, C)
    gap = P - closest
    return np.sqrt(dot(gap, gap))


def _on_face(points: list[np.ndarray]) -> np.ndarray:
    """`_over_face` of points (P, A, B, C, each (3, n)): P onto triangle ABC."""
    P, A, B, C = points
    return _over_face(P, A, B, C, cross(B - A, C - A))


def _met_at(previous, x, ends: np.ndarray, moments, test) -> np.ndarray:
    """Which rows of `ends` (K, 4) pass `test` (on their four points' (3, k) positions) at one of
    their `moments` (each (K,), not finite: no such moment)."""
    met = np.zeros(len(ends), dtype=bool)
    for tau in moments:
        some = np.flatnonzero(np.isfinite(tau))
        if len(some):
            met[some] |= test(_at(previous, x, ends[some], tau[some]))
    return met


def _slid_onto(previous, x, ends: np.ndarray, height0, height1, flat: float) -> np.ndarray:
    """Rows (vertex, a, b, c) of `ends` in their triangle's plane all along (layers a floor holds
    flat) whose vertex ends on the face but did not start on it: it slid into the face in its plane."""
    out = np.zeros(len(ends), dtype=bool)
    rows = np.flatnonzero((np.abs(height0) <= flat) & (np.abs(height1) <= flat))
    if len(rows):
        P, A, B, C = (_columns(x, ends[rows, k]) for k in range(4))
        rows = rows[_over_face(P, A, B, C, cross(B - A, C - A))]  # the end first: few do
    if len(rows):
        P0, A0, B0, C0 = (_columns(previous, ends[rows, k]) for k in range(4))
        out[rows] = ~_over_face(P0, A0, B0, C0, cross(B0 - A0, C0 - A0))
    return out


def _slid_across(previous, x, ends: np.ndarray, separation0, separation1, flat: float) -> np.ndarray:
    """Edge pairs (a, b, c, d) of `ends` in one plane all along that meet at the end, inside both,
    and did not at the start: one slid across the other in their plane."""
    out = np.zeros(len(ends), dtype=bool)
    rows = np.flatnonzero((np.abs(separation0) <= flat) & (np.abs(separation1) <= flat))
    if len(rows):
        rows = rows[_edges_meet([_columns(x, ends[rows, k]) for k in range(4)], flat)]  # the end first (rare)
    if len(rows):
        out[rows] = ~_edges_meet([_columns(previous, ends[rows, k]) for k in range(4)], flat)
    return out


def _edges_meet(points: list[np.ndarray], flat: float) -> np.ndarray:
    """Which segments AB and CD (points: A, B, C, D, each (3, n)) pass within `flat` of each other, inside both."""
    A, B, C, D = points
    s, t = segment_closest(A, B, C, D)
    meet = (A + (B - A) * s) - (C + (D - C) * t)
    return (s > 0.0) & (s < 1.0) & (t > 0.0) & (t < 1.0) & (dot(meet, meet) <= flat * flat)


def _over_face(q, a, b, c, normal) -> np.ndarray:
    """Which points q project onto their triangles (a, b, c), boundary included (a vertex falling
    exactly onto a corner or an edge crosses the triangles there), all (3, n); normal: (b - a) x (c - a)."""
    e, ab, ac = q - a, b - a, c - a
    size = dot(normal, normal)
    v, w = dot(cross(e, ac), normal), dot(cross(ab, e), normal)
    margin = -1e-9 * size
    return (v >= margin) & (w >= margin) & (v + w <= size - margin) & (size > 0.0)


def _edges_crossed(
    previous, x, ends: np.ndarray, separation0: np.ndarray, flat: float, motion: np.ndarray
) -> np.ndarray:
    """Which edge pairs (a, b, c, d) rows `ends` (K, 4) passed through each other in the substep
    (`separation0`: their `_separations` at the start; `motion` as `_vertex_crossed`'s): their lines
    changed sides (or met) or came back to theirs, and at a moment the four ends were coplanar the
    edges met, inside both."""
    separation1 = _separations(x, ends)
    out = _slid_across(previous, x, ends, separation0, separation1, flat)
    reach = largest_of_rows(motion, ends[:, :2]) + largest_of_rows(motion, ends[:, 2:])
    rows = np.flatnonzero(
        _flipped(separation0, separation1, flat)
        | _returned(separation0, separation1, flat, reach)
        | _left(separation0, separation1, flat, reach)
    )
    if len(rows) == 0:
        return out
    # Lines turning through parallel flip too: skip the pairs whose segments stayed apart (a point
    # of one moves relative to a point of the other by at most the largest relative corner motion).
    then = [_columns(previous, ends[rows, k]) for k in range(4)]
    now = [_columns(x, ends[rows, k]) for k in range(4)]
    relative = np.zeros(len(rows))
    for i in (0, 1):
        for j in (2, 3):
            step = (now[i] - then[i]) - (now[j] - then[j])
            np.maximum(relative, dot(step, step), out=relative)
    apart = _segment_distances(then) + _segment_distances(now) > np.sqrt(relative) + 2.0 * flat
    rows = rows[~apart]
    if len(rows) == 0:
        return out
    ends = ends[rows]
    moments = _crossing_moments(previous, x, ends, np.abs(separation1[rows]) <= flat)
    out[rows] |= _met_at(previous, x, ends, moments, lambda p: _edges_meet(p, flat))
    return out


def _segment_distances(points: list[np.ndarray]) -> np.ndarray:
    """Distances between segments AB and CD (points: A, B, C, D, each (3, n))."""
    A, B, C, D = points
    s, t = segment_closest(A, B, C, D)
    gap = (A + (B - A) * s) - (C + (D - C) * t)
    return np.sqrt(dot(gap, gap))


def _respond(x, inv_mass, ends, coefficient, direction, depth, slip, gap: float, friction: float) -> None:
    """Move contacts apart to `gap`, in place: each contact is the constraint
    direction · sum_k coefficient_k x_k >= gap, projected mass-weighted (XPBD with no compliance),
    with Coulomb friction on its tangential slip; corrections are averaged per vertex."""
    w = inv_mass[ends] * coefficient  # (4, K): each end's share
    weight = (w * coefficient).sum(axis=0)
    inverse = np.where(weight > 0, 1.0 / np.where(weight > 0, weight, 1.0), 0.0)
    push = direction * ((gap - depth) * inverse)
    if friction > 0:
        # Cancel the tangential slip of this substep, up to friction x the normal correction.
        slip = slip - direction * dot(slip, direction)
        length = np.sqrt(dot(slip, slip))
        factor = np.minimum(1.0, friction * (gap - depth) / np.maximum(length, 1e-300))
        push -= slip * (factor * inverse)
    flat_ends = ends.reshape(-1)
    n = len(x)
    contacts = np.bincount(flat_ends, weights=(w != 0).reshape(-1).astype(np.float64), minlength=n)
    touched = contacts > 0
    share = w.reshape(-1)
    for axis in range(3):
        total = np.bincount(flat_ends, weights=np.tile(push[axis], 4) * share, minlength=n)
        x[touched, axis] += total[touched] / contacts[touched]
