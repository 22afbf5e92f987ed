"""Advance a cloth by one frame: Verlet substeps, each followed by constraint sweeps and collisions."""

from __future__ import annotations

import dataclasses

import numpy as np

from . import chord_contacts, tearing
from . import driven_motion as _driven
from .apex_contacts import collide_cloth_ridges
from .bounded_planes import converted as bounded_planes_converted
from .chord_contacts import collide_chords
from .colliders import Sphere, collide
from .contact_support import support_reach
from .corner_contacts import collide_cloth_corners
from .driven_motion import MAX_MOTION_SUBSTEPS, driven_motion, grown_substeps, motion_substeps
from .edge_contacts import collide_cloth_edges, cut_history, edge_colliders, travelling
from .face_collision import FaceCollision
from .grab import Grab
from .inputs import StepInputs
from .mesh_collider import MeshCollider, _from_frame, _to_frame
from .model import Model
from .params import Params
from .run import run_cache
from .self_collision import SelfCollision
from .state import State
from .tearing import TearCheck, ensure_tear_state, mark_torn_faces
from .vectors import column_mean, squared_distances
from .wind import WindField

# A partial pin of weight w pulls its vertex towards its target like a spring whose stiffness per
# kilogram is -ln(1 - w) × PIN_STIFFNESS (1/s²): the same sag at any frame rate and substep count.
# 5760 = 24 fps × 240 substeps per second: what weights meant before at the defaults (w of the way
# per frame at 24 fps, 10 substeps), so scenes made then keep their look at 24 fps.
PIN_STIFFNESS = 5760.0

# Mesh colliders run every MESH_COLLIDE_INTERVAL-th substep (and on a frame's last), over the motion
# since they last ran: their cost is per NumPy call, not per contact, so this cuts what a rigid mesh
# adds to a 64² step by ~40% (see docs/design.md, issue 11, round 7 (rigid8)); at the 384/s floor
# they still run at 128 Hz (Blender's Cloth collides at 120 Hz by default). With a deforming mesh
# every DEFORMING_COLLIDE_INTERVAL-th (at 3, the cloth on tests/test_mesh_collider.py's fast-rising
# sheet ended below it; deforming meshes do not hold cloth between passes, `MeshCollider.hold`). Under
# MESH_INTERVAL_MIN_SUBSTEPS substeps a frame (set by hand), every substep.
MESH_COLLIDE_INTERVAL = 3
DEFORMING_COLLIDE_INTERVAL = 2
MESH_INTERVAL_MIN_SUBSTEPS = 4
# DEFORMING_MANY_INTERVAL (capespeed_r29, off: 0): with a deforming mesh and DEFORMING_MANY_FROM substeps a frame or
# more, its windows are this many substeps (the candidate: 3): a walking body's cape gets 46-48 substeps a frame from
# the pin-acceleration rule (for the cloth's stretch), and at 2 the body's passes ran ~550 times a second, ~2/3 of the
# frame's cost (docs/design.md, issue 11, round 29 (capespeed_r29)).
DEFORMING_MANY_INTERVAL = 0
DEFORMING_MANY_FROM = 32
# A rigid mesh collider moving in the frame (its pose at the start not its pose at the end) runs every
# MOVING_COLLIDE_INTERVAL-th substep (0: as a still one's, MESH_COLLIDE_INTERVAL; kinds_r26, off: a table pulled at
# 3.6 m/s under a fan disc showed 38-75 % stretch spikes at 3, 4-10 % at 1; docs/design.md, round 26).
MOVING_COLLIDE_INTERVAL = 0
# Edge contacts with closed meshes' sharp edges (solver/edge_contacts.py) and the corner pass
# (solver/corner_contacts.py) run on the vertex pass's windows (the edge and corner passes' may take a lone last
# substep, below) and hold their contacts in between. Longer edge and corner windows (every 2nd or 3rd mesh collider
# window, on still colliders only) were measured and dropped: at 3 cloth edges ended through a 2 cm board
# (docs/design.md, round 8 (edgehold9)), at 2 a table's worst 1% of cloth edges stretched 11% over its rims (at 1
# 5%: edgewin10), a jittered cloth tucked under a table's top ended a vertex 5 mm inside (round 20 (table23)), a 48²
# tablecloth's corners stretched 0.12 -> 0.27 (round 23 (tablecost23)); their code went in round 24 (flags24: base
# 7598006 to reproduce them with step.EDGE_PASS_WINDOWS / CORNER_PASS_WINDOWS).
# A frame whose substeps leave a window of one substep at its end (16 at 3) gives that substep to the edge and
# corner passes' window before it (of 4), when every mesh collider is closed: 5 of their passes a frame, not 6
# (together ~3/4 of a pass's cost; a pass ~6x a hold). The vertex pass keeps its lone window: with it joined too
# a triangulated cloth's vertex ended 4 mm inside the table at impact (docs/design.md, round 11 (tablecost13)).
# Sweeping the lone substep's vertex pass from the last window's start instead (round 23's LONE_VERTEX_WINDOW) fixed
# the quad cloth 6 mm inside the chair's back but put vertices inside a chair's back, seat or leg at other placements
# (4.7-8.7 mm) where this keeps them out; deleted in round 25 (chair25: e555609 reproduces it).
# Windows shorter than this keep the lone substep (deforming meshes' 2). 0: never.
LONE_SUBSTEP_JOINS_FROM = 3
# A rigid mesh collider whose centre travels (`edge_contacts.travelling`: over TURN_TRAVEL gaps a substep) gets, where
# its vertex pass closes a window, an edge pass over that substep after it and its vertex pass again: the vertex pass
# runs last and can leave a cloth edge through the mesh with both ends out
# (a box running along a curtain at 6 m/s pushes the cloth round its edges: the ends go out through the faces either
# side of a sharp edge), which the next substep's edge pass, whose path starts through, does not see: 1-6 cloth edges
# ended through the box in 7 of 12 placements of bench/orbiting_box.py, 0 with it (docs/design.md, issue 11, round 21
# (orbit24)). Still and deforming meshes and those turning about a still centre (a turntable): unchanged.
# With two or more mesh colliders and windows: the substep starts (`previous`) that the edge, corner, ridge and
# tipped-edge passes moved (they settle their pushes into the start) are swept, from where they were to where they
# were moved, through every rigid mesh collider's vertex pass (without friction) before the windows take them; a
# start the sweep moves goes back to where it was before those passes (their push of the start undone; the position
# keeps the push and the vertex pass then takes it out from the start's side). A cube resting
# on a ground box: the cube's edge pass pushes a cloth edge off its bottom edge 45 degrees down, into the ground, its
# start too, and the ground's vertex pass (which keeps each vertex on the side its path starts) kept it 6-20 mm under
# (bench/cube_on_ground.py: 8 of 40 runs over kinds, motions and placements, 0 with it; the scenes of the tests with
# one mesh collider never take it). Leaving the start where the sweep put it (cube25's rule) also cleared those, but
# kept a cloth edge through the cube 10 frames in one run (docs/design.md, issue 11, rounds 21 (cube25) and 22
# (cube26); both switches folded in round 24 (flags24)).

# (Round 26's PIN_SUBSTEPS_COLLIDE_RATE, mesh colliders' windows k times as long where the pin-acceleration rule alone
# raised the count k-fold, was deleted in round 28 (edgeonce_r28): the cape 20 % quicker, but its stretch worse on the
# quad cape and a jittered cape on a moving chest; 20ea7af reproduces it. docs/design.md, round 28.)


def partial_pin_fraction(pin_weight: np.ndarray, dt: float) -> np.ndarray:
    """Fraction of the way to its target a partially pinned vertex moves in a substep of dt seconds."""
    weight = np.clip(pin_weight, 0.0, 1.0)
    with np.errstate(divide="ignore"):
        k = -np.log1p(-weight) * PIN_STIFFNESS * (dt * dt)
    return np.where(np.isfinite(k), k / (1.0 + k), 1.0)


_ORIGIN = np.zeros(3)
_max_reduce, _min_reduce = np.maximum.reduce, np.minimum.reduce  # without np.max's Python wrapper


def _limit_displacement(displacement: np.ndarray, limit: float, origin=None) -> None:
    """Scale down, in place, displacements longer than `limit` (a speed clamp).

    With `origin` (3,), the length limited is that of displacement - origin.
    """
    # Column by column: ~2.5x quicker than einsum over rows of 3 (it runs every substep).
    if displacement.size == 0:
        return
    if origin is None:
        # Nothing near the limit (the usual case): |d|² <= 3 max|d_k|² < limit², two reductions and no
        # temporaries (~5 against ~11 us at 2,304 vertices). A NaN fails the test and takes the full path.
        largest = max(_max_reduce(displacement, axis=None), -_min_reduce(displacement, axis=None))
        if 3.001 * largest * largest < limit * limit:
            return
        # |d|² without subtracting a zero origin: the rows squared at once, then summed
        squares = displacement * displacement  # by column in the same order (the same sums, ~10% quicker)
        length = squares[:, 0] + squares[:, 1]
        length += squares[:, 2]
        origin = _ORIGIN
    else:
        length = squared_distances(displacement, origin)
    too_fast = np.flatnonzero(length > limit * limit)
    if len(too_fast):
        scale = (limit / np.sqrt(length[too_fast]))[:, None]
        displacement[too_fast] = origin + (displacement[too_fast] - origin) * scale


def step(
    model: Model,
    state: State,
    params: Params,
    frame_time: float,
    colliders=(),
    pin_targets=None,
    pin_targets_start=None,
    acceleration=None,
    grab=None,
    *,
    inputs: StepInputs | None = None,
) -> State:
    """Advance `state` by `frame_time` seconds in place and return it.

    The per-step inputs come as `inputs` (a StepInputs) or as the keywords of the same names:
    pin_targets: (N, 3) where pinned vertices should be at the end of the frame (default: rest
    positions); pin_targets_start: where they were at the start (default: the same), so moving
    pins are interpolated across substeps.
    acceleration: extra (3,) or (N, 3) acceleration in m/s², added to gravity.
    grab: a `Grab` or (vertex indices, target positions): vertices held at moving targets for
    this frame only (drag with the mouse).
    Wind, tearing and self-collision follow `params`; the tears live in `state`.
    """
    if inputs is None:
        inputs = StepInputs(colliders, pin_targets, pin_targets_start, acceleration, grab)
    as_meshes = bounded_planes_converted(inputs.colliders)  # a bounded Plane collides as its rectangle's mesh
    if as_meshes is not None:
        inputs = dataclasses.replace(inputs, colliders=as_meshes)
    params.validated()
    substeps, iterations = int(params.substeps), int(params.iterations)
    if not (np.isfinite(float(frame_time)) and float(frame_time) > 0):
        raise ValueError("frame_time must be a positive number of seconds")

    state.__post_init__()  # positions may have been replaced by the caller
    x, previous = state.positions, state.previous
    if len(x) != model.vertex_count:
        raise ValueError(f"the state has {len(x)} vertices but the model has {model.vertex_count}")
    wanted = 0
    grown = [c for c in inputs.colliders if isinstance(c, MeshCollider) and c.grown]
    if params.substeps_follow_motion:
        motion = driven_motion(model, state, inputs, params, frame_time, skip=grown)
        asked = motion_substeps(motion, model.mean_edge_length)
        # Pins that accelerate (a body that leans and turns back) load the cloth like more gravity.
        asked = max(asked, _driven.pin_acceleration_substeps(model, state, inputs, params, frame_time))
        # What the drivers moved keeps their speed into the next frame (a folded flap flies on when its
        # pins stop): their count holds one frame more.
        wanted, state.driven_substeps = max(asked, state.driven_substeps), asked
        # A grown collider's count is this frame's alone: the speed its growth gives is dropped (below).
        if grown:
            wanted = max(wanted, grown_substeps(model, state, inputs, params, frame_time, grown))
        substeps = max(substeps, min(wanted, MAX_MOTION_SUBSTEPS))
    dt = float(frame_time) / substeps
    if not (np.isfinite(dt) and dt > 0):
        raise ValueError("frame_time must be a positive number of seconds")
    if state.substep_time > 0 and state.substep_time != dt:
        # `previous` is one substep ago: a substep of another length keeps the velocity, not the step.
        previous[...] = x - (x - previous) * (dt / state.substep_time)
    state.substep_time, state.last_substeps, state.wanted_substeps = dt, substeps, wanted
    own = (x - previous) if grown else None  # the cloth's own motion a substep, before a grown collider's push
    target_start, target_end = inputs.pin_path(model.rest_positions)
    pinned = model.pinned
    any_pinned = bool(pinned.any())
    free = model.inv_mass > 0
    partial = (model.pin_weight > 0) & ~pinned

    accel = np.asarray(params.gravity, dtype=np.float64)
    extra = inputs.extra_acceleration()
    if extra is not None:
        accel = accel + extra
    kick = accel * (dt * dt)
    kick_axes = [k for k in range(3) if kick[k] != 0.0] if kick.ndim == 1 else []
    keep = (1.0 - float(params.damping)) ** dt  # velocity kept per substep
    max_step = float(params.max_speed) * dt

    run = run_cache(state, model, params, dt)
    work = run.workspace
    families = run.families
    inv_mass = model.inv_mass
    held = Grab.from_any(inputs.grab)
    if held is not None:
        held_index, held_start, held_end = held.resolved(x)
        inv_mass = inv_mass.copy()
        inv_mass[held_index] = 0.0
        free, partial = free.copy(), partial.copy()
        free[held_index] = partial[held_index] = False
    any_partial = bool(partial.any())
    partial_fraction = partial_pin_fraction(model.pin_weight[partial], dt)[:, None] if any_partial else None
    pulled = partial if any_partial else None  # (the colliders push these out at once: `collide_sphere`)
    # The pinned and partially pinned rows' targets over the frame, start + span × t, taken once a frame (each substep
    # interpolated all N rows and then picked these: the same values, ~3 fewer (N, 3) passes and masks a substep).
    pin_rows = np.flatnonzero(pinned) if any_pinned else None
    if pin_rows is not None:
        pin_start = target_start.take(pin_rows, axis=0)
        pin_span = target_end.take(pin_rows, axis=0) - pin_start
    partial_rows = np.flatnonzero(partial) if any_partial else None
    if partial_rows is not None:
        partial_start = target_start.take(partial_rows, axis=0)
        partial_span = target_end.take(partial_rows, axis=0) - partial_start
    broken, face_torn_frame = ensure_tear_state(state, model)
    if held is not None or broken.any():
        families = _overridden(run.families, inv_mass, broken)
    intact = None if (face_torn_frame < 0).all() else face_torn_frame < 0
    wind = WindField(model, params, x, state.time + 0.5 * float(frame_time), intact)
    gap = params.self_collision_gap
    self_collision = None
    if params.self_collision and gap > 0:
        self_collision = _self_collision(state, model, params, gap)
        self_collision.set_active_faces(intact)
    tear = TearCheck(model, broken, float(params.tear_factor)) if params.tear_factor > 0 else None
    tore = False
    # The mesh colliders' edge, corner and ridge passes: the torn cloth's intact triangles and edges only.
    collided = _torn_view(model, broken, run) if broken.any() else model

    mesh_interval = _mesh_interval(inputs.colliders, substeps, self_collision)
    any_meshes = any(isinstance(c, MeshCollider) for c in inputs.colliders)
    window_start = run.window_buffer(len(x)) if mesh_interval > 1 else None
    # (closed meshes only: cloth squeezed into an open V ended behind a wall with a 4-substep window)
    join_lone = all(c.mesh.outward for c in inputs.colliders if isinstance(c, MeshCollider))
    moving = (
        [
            c
            for c in inputs.colliders
            if isinstance(c, MeshCollider) and not c.deforming and travelling(c, params.thickness, 1.0 / substeps)
        ]
        if mesh_interval > 1  # (the windows' pass: none without them)
        else []
    )
    # The mesh colliders with sharp edges for this cloth, found once a step (again if it tears: the edge pass's
    # radius is its longest edge's), and the travelling ones among them.
    sharp_found = edge_colliders(inputs.colliders, collided, params.thickness) if any_meshes else []
    sharp_moving = [f for f in sharp_found if any(f[1] is c for c in moving)]
    edge_window_start = run.window_buffer(len(x), "edges") if mesh_interval > 1 else np.empty((0, 3))
    meshes = [c for c in inputs.colliders if isinstance(c, MeshCollider)]
    rigid_meshes = [c for c in meshes if not c.deforming]  # (a start has no motion: no deforming mesh's sweep)
    recheck = mesh_interval > 1 and len(meshes) > 1 and bool(rigid_meshes)
    starts_before = run.window_buffer(len(x), "starts") if recheck else None
    # The cloth beyond a corner's support keeps within the long-range limits' stretch, as far as a stretch wave
    # travels in a substep (solver/contact_support.py; not with tearing: a torn edge's ends are no longer held).
    support = None
    if any_meshes and params.tear_factor <= 0 and np.isfinite(params.limit_slack):
        support = (params.limit_slack, support_reach(model, params.stretch_stiffness, dt))
    displacement = np.empty_like(x)  # reused by every substep (same arithmetic, no temporaries)
    # The failsafe rewinds to the substep's true start: the colliders settle resting contacts by moving
    # `previous`, which can carry a layer's start through another's (a 24-spoke fan's crumple at 2 substeps).
    face_collision = self_collision if isinstance(self_collision, FaceCollision) else None
    start = np.empty_like(x) if face_collision is not None and inputs.colliders else previous
    # The face failsafe sends a crossed row back to its substep start, which a moving collider may have swept
    # over (the vertex left inside it, pushed out later through its far side: a curtain swept by a box,
    # docs/self-collision.md rounds 22-27). A start that a moving collider covers at the substep's end makes its
    # crossed zone move as one piece by its mean motion, at least as far as the collider's motion there
    # (`_rewind_carrier`, `_zone_carry`; once REWIND_WITH_COLLIDERS).
    movers = [c for c in inputs.colliders if not _driven._still(c)] if face_collision is not None else []
    # (edge_rims.RIDGE_CONE: which cloth edges cut through the closed meshes lately, counted in this cloth's substeps)
    history = cut_history(state, model) if any_meshes else None
    for s in range(substeps):
        t0, t1 = s / substeps, (s + 1) / substeps
        if history is not None:
            history.substep += 1
        np.subtract(x, previous, out=displacement)
        displacement *= keep
        if kick.ndim == 1:  # column by column: ~3x quicker than broadcasting a (3,) kick over rows
            for k in kick_axes:  # gravity alone: only the vertical column
                displacement[:, k] += kick[k]
        else:  # a per-vertex (N, 3) acceleration
            displacement += kick
        wind.apply(displacement, x, previous, dt)
        _limit_displacement(displacement, max_step)
        if self_collision is not None and self_collision.needs_speed_limit:
            # The tunnelling guard: no vertex moves more than half the gap relative to the cloth.
            _limit_displacement(displacement, 0.5 * self_collision.gap, column_mean(displacement))
        previous[...] = x
        if start is not previous:
            start[...] = x
        x += displacement
        if pin_rows is not None:
            x[pin_rows] = pin_start + pin_span * t1
        if held is not None:
            x[held_index] = held_start + (held_end - held_start) * t1

        project(x, work, families, iterations)

        if self_collision is not None:
            self_collision.resolve(x, inv_mass, previous=previous, friction=params.friction)
        edge_args = (params.thickness, params.friction)
        chords = chord_contacts.CHORD_PASS
        if window_start is None:
            if any_meshes:  # (edge and corner contacts are the mesh colliders': ~5 us a substep to find none)
                collide_cloth_edges(
                    x, previous, inv_mass, collided, inputs.colliders, t0, t1, *edge_args, gravity=params.gravity,
                    found=sharp_found, history=history,
                )  # fmt: skip
                collide_cloth_corners(
                    x, previous, inv_mass, collided, inputs.colliders, t0, t1, *edge_args, support=support,
                    gravity=params.gravity,
                )  # fmt: skip
                collide_cloth_ridges(x, previous, inv_mass, collided, inputs.colliders, params.thickness, t0, t1)
                collide_cloth_edges(
                    x, previous, inv_mass, collided, inputs.colliders, t0, t1, *edge_args, gravity=params.gravity,
                    tipped_only=True, found=sharp_found, history=history,
                )  # fmt: skip
            collide(x, previous, free, inputs.colliders, t0, t1, params.thickness, params.friction, pulled=pulled)
            if any_meshes and chords:
                collide_chords(x, previous, inv_mass, collided, inputs.colliders, t0, t1, params.thickness)
        else:  # windows of mesh_interval substeps, the last one cut short by the frame's end
            first, last = _window(s, mesh_interval, substeps)
            opens, closes = s == first, s == last
            window = None if opens else (window_start, first / substeps)
            # (the edge and corner passes' windows may take a lone last substep, the vertex pass's not)
            corner_first, corner_last = _window(s, mesh_interval, substeps, join_lone)
            corner_window = None if s == corner_first else (window_start, corner_first / substeps)
            edge_first, edge_last = _window(s, mesh_interval, substeps, join_lone)
            edge_opens, edge_closes = s == edge_first, s == edge_last
            if starts_before is not None:
                starts_before[...] = previous
            collide_cloth_edges(
                x, previous, inv_mass, collided, inputs.colliders, t0, t1, params.thickness, params.friction,
                window=None if edge_opens else (edge_window_start, edge_first / substeps),
                contacts=run.mesh_contacts, closes=edge_closes, gravity=params.gravity, found=sharp_found,
                history=history,
            )  # fmt: skip
            # On the windows with a hold between passes (on the windows alone corners went 5-33 mm
            # through the cloth, corners9).
            collide_cloth_corners(
                x, previous, inv_mass, collided, inputs.colliders, t0, t1, *edge_args, window=corner_window,
                contacts=run.mesh_contacts, closes=s == corner_last, support=support, gravity=params.gravity,
            )  # fmt: skip
            collide_cloth_ridges(x, previous, inv_mass, collided, inputs.colliders, params.thickness, t0, t1)
            collide_cloth_edges(  # (a pointed rod's sides again, after the corner pass: AFTER_CORNERS)
                x, previous, inv_mass, collided, inputs.colliders, t0, t1, *edge_args, gravity=params.gravity,
                tipped_only=True, found=sharp_found, history=history,
            )  # fmt: skip
            if starts_before is not None:  # (the moved starts swept through the other meshes)
                _recheck_moved_starts(previous, starts_before, rigid_meshes, t0, params.thickness)
            if edge_opens and not edge_closes:
                edge_window_start[...] = previous
            if opens and not closes:  # (after the edge pass: with its settled pushes)
                window_start[...] = previous
            collide(
                x, previous, free, inputs.colliders, t0, t1, params.thickness, params.friction,
                with_meshes=closes, window=window, contacts=run.mesh_contacts, pulled=pulled,
            )  # fmt: skip
            if closes and chords:
                collide_chords(x, previous, inv_mass, collided, inputs.colliders, t0, t1, params.thickness)
            if closes and moving:  # (an edge pass after a travelling mesh's vertex pass, above)
                collide_cloth_edges(
                    x, previous, inv_mass, collided, moving, t0, t1, *edge_args, gravity=params.gravity,
                    found=sharp_moving, history=history,
                )  # fmt: skip
                collide(
                    x, previous, free, inputs.colliders, t0, t1, params.thickness, params.friction, window=window,
                    contacts=run.mesh_contacts, only=moving,
                )  # fmt: skip
        if face_collision is not None:
            if inputs.colliders:
                # Face-based contacts against a layer the colliders just moved back (they undo its share).
                face_collision.resolve(x, inv_mass, previous=previous, friction=params.friction, refresh=False)
                collide(x, previous, free, inputs.colliders, t0, t1, params.thickness, params.friction, pulled=pulled)
            carrier = None
            if movers:  # (a start a moving collider swept over is no place to go back to)
                carrier = _rewind_carrier(start, movers, t0, t1, params.thickness)
            face_collision.undo_crossings(x, start, inv_mass, settled=previous, carrier=carrier)  # nothing left crossed

        if partial_rows is not None:
            target = partial_start + partial_span * t1
            x[partial_rows] += (target - x.take(partial_rows, axis=0)) * partial_fraction

        if tear is not None and tear(x):
            tore = True
            families = _overridden(run.families, inv_mass, broken)
            collided = _torn_view(model, broken, run)
            sharp_found = edge_colliders(inputs.colliders, collided, params.thickness) if any_meshes else []
            sharp_moving = [f for f in sharp_found if any(f[1] is c for c in moving)]

    if own is not None:
        most = float(np.sqrt(np.max(np.einsum("ij,ij->i", np.atleast_2d(accel), np.atleast_2d(accel)))))
        _cap_growth_speed(x, previous, own, free, most * float(frame_time) * dt)
    state.frame += 1
    state.time += float(frame_time)
    if tore:
        mark_torn_faces(model, broken, face_torn_frame, state.frame)
    return state


def _cap_growth_speed(x, previous, own, free, cap: float) -> None:
    """What a grown collider's made-up growth (`MeshCollider.grown`) gave the cloth is no speed: each free vertex's
    motion a substep gained over the frame (against `own`, its motion before it) is kept within `cap` (what the
    cloth's acceleration gives in a frame: a free fall is untouched). The Subdivision cube popping to its corners
    under a resting cloth flung it to 4.4-4.8 m at 64 substeps; dropping the speed only within 1-3 mean edges of
    the moving corners still flung it to 1.4-3.4 m (docs/design.md, issue 11, round 19 (pop22))."""
    gained = (x - previous) - own
    length = np.sqrt(np.einsum("ij,ij->i", gained, gained))
    over = (free & (length > cap)).nonzero()[0]
    if len(over):
        scale = cap / length.take(over)
        previous[over] = x[over] - own[over] - gained[over] * scale[:, None]


def _rewind_carrier(start, movers, t0: float, t1: float, thickness: float):
    """For `undo_crossings`: a function of vertex indices (k,) giving (k, 3) how far the
    moving colliders carry each one's substep start: 0 unless the collider's vertex pass (from rest at the start,
    t0 to t1, no friction) would push it further than the gap (it covers the start at t1); then the collider's
    own motion at that start from t0 to t1 (a rigid mesh's pose, a sphere's centre; otherwise the push). With
    `points` (k, 3), the same for those points instead of the vertices' starts. With `path`, the push the
    colliders' vertex pass gives `points` on their paths from the vertices' starts (t0 to t1, no friction), where it
    is longer than the thickness (0 elsewhere: a placement within the gap is left to the next substep's passes)."""

    def carrier(rows: np.ndarray, points: np.ndarray | None = None, path: bool = False) -> np.ndarray:
        if path and points is not None:  # (a placement the failsafe made: out of the colliders along its path)
            pushed, settled = points.copy(), start.take(rows, axis=0)
            collide(pushed, settled, np.ones(len(rows), dtype=bool), movers, t0, t1, thickness, 0.0)
            push = pushed - points
            push[np.einsum("ij,ij->i", push, push) <= float(thickness) ** 2] = 0.0  # (within the gap: left)
            return push
        p0 = start.take(rows, axis=0) if points is None else points  # (or other points held still: inside at t1?)
        out = np.zeros_like(p0)
        for collider in movers:
            pushed, settled = p0.copy(), p0.copy()
            collide(pushed, settled, np.ones(len(rows), dtype=bool), [collider], t0, t1, thickness, 0.0)
            push = pushed - p0
            gap = float(thickness) + float(getattr(collider, "offset", 0.0) or 0.0)
            swept = np.einsum("ij,ij->i", push, push) > gap * gap  # (further than the gap: inside it at t1)
            if swept.any():
                out[swept] = _collider_carry(collider, p0[swept], t0, t1, push[swept])
        return out

    return carrier


def _collider_carry(collider, points: np.ndarray, t0: float, t1: float, fallback: np.ndarray) -> np.ndarray:
    """(k, 3) how far a rigid collider's motion from t0 to t1 moves `points` (k, 3) held in its frame; `fallback`
    for a collider with no rigid pose (a deforming mesh, a plane)."""
    if isinstance(collider, Sphere):
        return np.broadcast_to(collider.at(t1)[0] - collider.at(t0)[0], points.shape).copy()
    if isinstance(collider, MeshCollider) and not collider.deforming:
        first, last = collider._pose_at(t0), collider._pose_at(t1)
        if first is None or last is None:
            return fallback
        return _from_frame(_to_frame(points, *first), *last) - points
    return fallback


def _recheck_moved_starts(previous, before, meshes, t0: float, thickness: float) -> None:
    """The starts the edge and corner passes moved (rows where `previous` is not `before`) swept from `before` to
    where they are through every rigid mesh collider's vertex pass at t0, without friction: a start one mesh pushed
    into another goes back out on the side it was, and one the sweep moves goes back to `before` (as it was before
    those passes; the sweep's settled pushes go into `before` too)."""
    moved = (previous != before).any(axis=1).nonzero()[0]
    if len(moved) == 0:
        return
    was, pushed = before.take(moved, axis=0), previous.take(moved, axis=0)
    collide(previous, before, moved, meshes, t0, t0, thickness, 0.0, only=meshes)
    again = (previous.take(moved, axis=0) != pushed).any(axis=1)
    previous[moved] = np.where(again[:, None], was, pushed)


def _window(s: int, interval: int, substeps: int, join_lone: bool = False) -> tuple[int, int]:
    """(first, last) substep of the window of `interval` substeps holding substep s: windows from the frame's
    start, the last cut short by the frame's end; join_lone: one of a lone substep joins the window before it,
    when windows are LONE_SUBSTEP_JOINS_FROM substeps or longer (see there)."""
    first = s - s % interval
    last = min(first + interval, substeps) - 1
    lone = substeps % interval == 1 and substeps > interval
    if join_lone and LONE_SUBSTEP_JOINS_FROM and interval >= LONE_SUBSTEP_JOINS_FROM and lone:
        if last == substeps - 2:
            last += 1
        elif first == substeps - 1:
            first -= interval
    return first, last


def _mesh_interval(colliders, substeps: int, self_collision) -> int:
    """Every how many substeps the mesh colliders run (see MESH_COLLIDE_INTERVAL)."""
    if substeps < MESH_INTERVAL_MIN_SUBSTEPS or not any(isinstance(c, MeshCollider) for c in colliders):
        return 1
    if isinstance(self_collision, FaceCollision):
        # Its failsafe sends vertices back to the substep's start, which must then be clear of the meshes.
        return 1
    if any(isinstance(c, MeshCollider) and c.deforming for c in colliders):
        if DEFORMING_MANY_INTERVAL and substeps >= DEFORMING_MANY_FROM:
            return DEFORMING_MANY_INTERVAL
        return DEFORMING_COLLIDE_INTERVAL
    if MOVING_COLLIDE_INTERVAL and any(isinstance(c, MeshCollider) and not c.still for c in colliders):
        return MOVING_COLLIDE_INTERVAL  # (a rigid one: a deforming mesh returned above)
    return MESH_COLLIDE_INTERVAL


def _self_collision(state: State, model: Model, params: Params, gap: float) -> FaceCollision | SelfCollision:
    """The state's self-collision engine for this model and gap: face contacts with `self_collision_faces`
    (or once `FaceCollision.install` put them there), else vertex–vertex."""
    found = state.scratch.get("self_collision")
    installed = isinstance(found, FaceCollision) and found.installed
    engine = FaceCollision if params.self_collision_faces or installed else SelfCollision
    if found is None or found.model is not model or found.gap != gap or type(found) is not engine:
        found = state.scratch["self_collision"] = engine(model, gap)
        if isinstance(found, FaceCollision):
            found.installed = installed
    return found


def project(x: np.ndarray, work, families, iterations: int) -> None:
    """`iterations` Gauss-Seidel sweeps of every constraint family, in place on the (N, 3) positions."""
    if not families:
        return
    work.load(x)
    if iterations > 1:
        for family in families:
            family.begin_substep()
    for _ in range(iterations):
        for family in families:
            family.project(work.buffer)
    work.store(x)


def _torn_view(model, broken, run):
    """The torn cloth as the mesh colliders' passes see it (`tearing.TornView`), made again only when more tore
    (kept on `run`). The windows' held contacts stay (they name vertices, not list entries) to the next pass."""
    count = int(np.count_nonzero(broken))
    kept = run.torn_view
    if kept is not None and kept[0] == count and kept[1] is model:
        return kept[2]
    view = tearing.TornView(model, broken)
    run.torn_view = (count, model, view)
    return view


def _overridden(families, inv_mass, broken):
    out = (f.overridden(inv_mass, broken if broken.any() else None) for f in families)
    return [f for f in out if f is not None]


def simulate(model: Model, params: Params, frames: int, frame_time: float, colliders=(), state: State | None = None):
    """Run `frames` frames from rest (or from `state`) and return the list of positions per frame."""
    state = model.initial_state() if state is None else state
    out = [state.positions.copy()]
    for _ in range(frames):
        step(model, state, params, frame_time, colliders)
        out.append(state.positions.copy())
    return out
