"""How far what drives the cloth moves in a frame, and the substeps that keep each of its moves small.

Pinned and grabbed vertices go to their targets, and colliders push the cloth with their surface, by
the whole of their motion in a substep: the speed clamp and self-collision's tunnelling guard bound
only the cloth's own (Verlet) motion. A pin that jumps a large part of an edge in one substep drags
its neighbours by as much before one constraint sweep can spread the pull, and they stretch and pass
through other layers of the cloth. Like XPBD's "small steps", the remedy is shorter substeps, not
more sweeps: with Auto Substeps a frame gets enough that nothing driving the cloth moves more than
DRIVEN_MOVE_PER_EDGE of a mean edge in one (`motion_substeps`), at most MAX_MOTION_SUBSTEPS, and
the next frame as many (what the drivers moved flies on with their speed when they stop). A fan disc
folded over itself by a pinned strip in 2 frames (~1 m a frame, face self-collision): 57 intersecting
face pairs for good at 16 substeps, 104 at 32 on the fold's frames (half an edge a substep), 27 at 48
on them alone, none at 48 held one frame more (docs/self-collision.md, round 10 (substeps12)).
Pins that accelerate hard (a leaning chest turning back, a shaken rail) load the cloth like more gravity:
those frames get the sag rule's count for that load (`pin_acceleration_substeps`, at most
PIN_ACCELERATION_MOST times the base count). Still pins and colliders (and colliders far from the cloth),
pins at a steady speed and gentle sways ask for nothing, so calm scenes keep the count `auto_substeps`
gives them.
"""

from __future__ import annotations

import math

import numpy as np

from .colliders import Plane, Sphere
from .grab import Grab
from .mesh_collider import MIN_GAP, MeshCollider
from .params import SAG_PER_EDGE

DRIVEN_MOVE_PER_EDGE = 1 / 3  # mean edges a pin target or a collider surface near the cloth moves per substep
# Counts go up in steps of MOTION_SUBSTEP_GRAIN, so a motion that speeds up and slows down changes the
# substep length (which rebuilds the per-run caches, solver/run.py: ~3 ms on a 64² grid) on few frames.
MOTION_SUBSTEP_GRAIN = 8
# A grown collider's surface (see `grown_substeps`) moves at most this much of the gap it keeps per substep.
GROWN_MOVE_PER_GAP = 1 / 3
# A frame whose pins accelerate (their move this frame minus the last frame's, over the frame time squared) gets the
# substeps the sag rule (solver/params.py, `auto_substeps`) gives for gravity plus that acceleration
# (`pin_acceleration_substeps`; round 24 (cape24), on since round 25 (pinacc25)): a cape pinned to a chest leaning
# ±15° every 12 frames (pins at ~80-100 m/s² where the linear keys turn) kept 16 substeps and stretched 16 % (mean
# of each frame's max, tri 24²); at 64: 4 %, with the rule 6.9 % at 46 a frame.
PIN_ACCELERATION_HOLD = 6  # frames the largest recent acceleration holds (6: the cape, 46 substeps a frame on average)
# Round 25 (pinacc25): a load (gravity + the pins' acceleration) at most PIN_ACCELERATION_FREE times what the base
# count's substeps hold asks for nothing (pins at a steady speed, a gentle sway, a walk's bob: a 64² cloth, whose
# base the sag rule sets, took 32 for a 2.4 m/s² bob instead of its 26 without it), and the rule asks for at most
# PIN_ACCELERATION_MOST times the base count (the cape, five kinds × lean / rail: 3 keeps the uncapped rule's
# stretch, 2 gives back up to 5× of it). Its memory is State's (`pin_moves`, `pin_accelerations`): a copied state
# resumes with the same counts.
PIN_ACCELERATION_FREE = 2.0
PIN_ACCELERATION_MOST = 3  # (0 turns the rule off: the benches' acc=0)
MAX_MOTION_SUBSTEPS = 100  # the Substeps setting's ceiling (params.MAX_SUBSTEPS): a frame ~6x the 16 floor's cost

_HUGE = 2**31 - 1  # substeps asked for by a motion past any count
_BOX_CORNERS = np.array([[i, j, k] for i in (0, 1) for j in (0, 1) for k in (0, 1)], dtype=np.float64)


def motion_substeps(motion: float, edge_length: float) -> int:
    """Substeps a frame needs so that `motion` (m, the most anything driving the cloth moves in the
    frame) is at most DRIVEN_MOVE_PER_EDGE of `edge_length` (m) per substep, in steps of
    MOTION_SUBSTEP_GRAIN; 0: nothing moves (or the cloth has no edges). Not capped: the step takes at
    most MAX_MOTION_SUBSTEPS and records what was asked (`State.wanted_substeps`)."""
    if not (edge_length > 0.0 and motion > 0.0):
        return 0
    wanted = motion / (DRIVEN_MOVE_PER_EDGE * edge_length * MOTION_SUBSTEP_GRAIN)
    if not wanted < _HUGE:  # (also NaN)
        return _HUGE
    return int(max(math.ceil(wanted - 1e-9), 1) * MOTION_SUBSTEP_GRAIN)


def driven_motion(model, state, inputs, params, frame_time: float, skip=()) -> float:
    """The most (m) a pin target, a grab target or a collider's surface that can reach the cloth moves
    over this frame (straight from its start to its end pose, as the substeps see it); `skip`: colliders
    left out (grown ones, `grown_substeps`)."""
    start, end = inputs.pin_path(model.rest_positions)
    positions = state.positions
    most = 0.0
    if start is not end and (model.pin_weight > 0).any():
        driven = model.pin_weight > 0
        most = _longest(end[driven] - start[driven])
    grab = Grab.from_any(inputs.grab)
    if grab is not None:
        _, held_start, held_end = grab.resolved(positions)
        most = max(most, _longest(held_end - held_start))
    moving = [c for c in inputs.colliders if not _still(c) and not any(c is k for k in skip)]
    if not moving:
        return most
    low, high, reach = _cloth_box(model, state, inputs, params, frame_time)
    for collider in moving:
        grow = reach + float(getattr(collider, "offset", 0.0))
        most = max(most, collider_motion(collider, low - grow, high + grow))
    return most


def pin_acceleration_substeps(model, state, inputs, params, frame_time: float) -> int:
    """Substeps a frame whose pins accelerate needs: the sag rule's count for gravity plus the pins' largest
    acceleration over the last PIN_ACCELERATION_HOLD frames (a pin's move this frame minus its move the last frame,
    over the frame time squared), against the substep the base count (`params.substeps`) gives; 0 when that load
    is at most PIN_ACCELERATION_FREE times what the base count holds (still pins, pins at a steady speed, a gentle
    sway) and never more than PIN_ACCELERATION_MOST times the base count. Remembers the pins' moves and the
    accelerations in `state` (`pin_moves`, `pin_accelerations`)."""
    start, end = inputs.pin_path(model.rest_positions)
    driven = model.pin_weight > 0
    if start is end or not driven.any() or not model.mean_edge_length > 0.0:
        state.pin_moves, state.pin_accelerations = None, ()
        return 0
    moves = end[driven] - start[driven]
    last = state.pin_moves
    state.pin_moves = moves
    if last is None or last.shape != moves.shape:
        state.pin_accelerations = ()
        return 0
    held = (*state.pin_accelerations, _longest(moves - last) / (frame_time * frame_time))
    state.pin_accelerations = held = held[-PIN_ACCELERATION_HOLD:]
    accel = max(held)
    if not accel > 0.0:
        return 0
    base = max(int(params.substeps), 1)
    g = float(np.linalg.norm(np.asarray(params.gravity, dtype=np.float64)))
    # How far (m) a load may move a vertex in one substep: the sag rule's allowance, or what gravity moves it
    # in one of the base count's substeps where that is more (a fine cloth whose count the cap held down).
    allowance = max(SAG_PER_EDGE * model.mean_edge_length, g * (frame_time / base) ** 2)
    wanted = frame_time * math.sqrt((g + accel) / allowance)
    if not wanted * wanted > PIN_ACCELERATION_FREE * base * base:
        return 0
    if not wanted < _HUGE:
        return PIN_ACCELERATION_MOST * base
    grained = int(max(math.ceil(wanted / MOTION_SUBSTEP_GRAIN - 1e-9), 1) * MOTION_SUBSTEP_GRAIN)
    return min(grained, PIN_ACCELERATION_MOST * base)


def grown_substeps(model, state, inputs, params, frame_time: float, grown) -> int:
    """Substeps a frame needs so that no grown collider's surface (`MeshCollider.grown`: a remeshed shape
    growing out of its old one within the frame) near the cloth moves more than GROWN_MOVE_PER_GAP of the
    gap it keeps in one, in steps of MOTION_SUBSTEP_GRAIN (0: none near). Its made-up motion is no momentum
    (the step drops the speed it gives), so shorter substeps fling nothing: a Subdivision cube popping to
    its sharp corners (~0.1 m in the frame) under a resting cloth kept 3-11 edges through it at 16."""
    if not grown:
        return 0
    low, high, reach = _cloth_box(model, state, inputs, params, frame_time)
    wanted = 0
    for collider in grown:
        gap = max(float(params.thickness) + collider.offset, MIN_GAP)
        grow = reach + collider.offset
        motion = collider_motion(collider, low - grow, high + grow)
        # (and no more than a driver's DRIVEN_MOVE_PER_EDGE of an edge, on a cloth whose edges are shorter)
        length = min(gap * GROWN_MOVE_PER_GAP / DRIVEN_MOVE_PER_EDGE, model.mean_edge_length)
        wanted = max(wanted, motion_substeps(motion, length))
    return wanted


def _cloth_box(model, state, inputs, params, frame_time: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Where the cloth can be this frame: its box (and its pins' end box) and how far to grow it: by its own
    travel at its present speed (bounded by √3 × its largest move along an axis) and by what the colliders
    keep from it."""
    positions = state.positions
    start, end = inputs.pin_path(model.rest_positions)
    low, high = _box(positions)
    if start is not end:
        end_low, end_high = _box(end)
        low, high = np.fmin(low, end_low), np.fmax(high, end_high)
    substep = state.substep_time if state.substep_time > 0 else frame_time / max(int(params.substeps), 1)
    step = max(float(np.fmax.reduce(np.abs(positions[:, k] - state.previous[:, k]))) for k in range(3))
    travel = min(float(params.max_speed) * frame_time, math.sqrt(3.0) * step * frame_time / substep)
    reach = travel + float(params.thickness) + (params.self_collision_gap if params.self_collision else 0.0)
    return low, high, reach


def collider_motion(collider, low, high) -> float:
    """The most (m) the collider's surface inside the box [low, high] moves over the frame."""
    if isinstance(collider, Sphere):
        c0, r0 = collider.at(0.0)
        c1, r1 = collider.at(1.0)
        # The box of its whole path, as a rectangle's, not only its start or end pose: a 0.2 m sphere keyed across a
        # pinned hanging cloth in one frame (36 m/s, a teleport) kept 16 substeps and left 10 cloth edges 19 cm
        # through it for good; at 64 substeps none (docs/design.md, round 23 (probemove23); SWEPT_SPHERES, folded
        # in round 24).
        near = _meets(np.minimum(c0 - r0, c1 - r1), np.maximum(c0 + r0, c1 + r1), low, high)
        if not near:
            return 0.0
        return _longest((c1 - c0)[None]) + abs(r1 - r0)
    if isinstance(collider, Plane):
        return _plane_motion(collider, low, high)
    if isinstance(collider, MeshCollider):
        if collider.deforming:
            return _deforming_motion(collider, low, high)
        return _rigid_motion(collider, low, high)
    return 0.0


def _still(collider) -> bool:
    if isinstance(collider, Sphere):
        return collider.still
    if isinstance(collider, Plane):
        return collider.point_start is None and collider.normal_start is None and collider.extent_start is None
    if isinstance(collider, MeshCollider):
        return collider.still  # (equal poses at both ends: `_rigid_motion` would give 0 too)
    return True


def _plane_motion(plane: Plane, low, high) -> float:
    p0, n0, e0 = plane.at(0.0)
    p1, n1, e1 = plane.at(1.0)
    if e0 is None or e1 is None:
        # An unbounded plane pushes along its normal: the change of the signed distance of the box's
        # corners (affine in the point, so the corners bound it; sliding along itself pushes nothing).
        corners = low + (high - low) * _BOX_CORNERS
        return float(np.abs((corners - p1) @ n1 - (corners - p0) @ n0).max())
    # A rectangle: its corners' motion bounds every point's (affine in the point), when it comes near.
    signs = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]], dtype=np.float64)
    start, end = p0 + signs @ e0, p1 + signs @ e1
    both = np.concatenate([start, end])
    if not _meets(both.min(axis=0), both.max(axis=0), low, high):
        return 0.0
    return _longest(end - start)


def _rigid_motion(collider: MeshCollider, low, high) -> float:
    """A rigid mesh's motion where it can meet the box: a point at p (own frame) moves by
    (R1 - R0) p + (o1 - o0), affine in p, so the corners of the part of its own bounding box that
    comes into the world box (at the frame's start, middle or end) bound it (a turntable's rim far
    from the cloth asks for nothing)."""
    first, last, middle = collider.pose_start, collider.pose, collider._pose_at(0.5)
    if first is None or last is None or middle is None:  # (no pose: still, in world space)
        return 0.0
    (r0, o0), (r1, o1) = first, last
    own_low, own_high = _box(collider.mesh.vertices)
    world = low + (high - low) * _BOX_CORNERS
    poses = [first, middle, last]
    seen = np.concatenate([(world - o) @ r for r, o in poses])  # the world box in the own frame
    own_low, own_high = np.maximum(own_low, seen.min(axis=0)), np.minimum(own_high, seen.max(axis=0))
    if not (own_low <= own_high).all():
        return 0.0
    corners = own_low + (own_high - own_low) * _BOX_CORNERS
    return _longest(corners @ (r1 - r0).T + (o1 - o0))


def _deforming_motion(collider: MeshCollider, low, high) -> float:
    """The most a deforming mesh's triangle corner moves, among the triangles that can meet the box."""
    mesh = collider.mesh
    if len(mesh) == 0:
        return 0.0
    ends = np.stack([mesh.a, mesh.b, mesh.c])  # (3 corners, 3 axes, T)
    travel = collider._motion  # each triangle's largest corner move over the frame
    lo = ends.min(axis=0) - travel
    hi = ends.max(axis=0) + travel
    near = ((lo <= high[:, None]) & (hi >= low[:, None])).all(axis=0)
    return float(travel[near].max()) if near.any() else 0.0


def _box(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) corners of the box around (N, 3) rows, NaN rows left out; column by column (a
    reduction along the rows of an (N, 3) array costs ~15x as much)."""
    low = np.array([np.fmin.reduce(rows[:, k]) for k in range(3)])
    high = np.array([np.fmax.reduce(rows[:, k]) for k in range(3)])
    return low, high


def _meets(low_a, high_a, low_b, high_b) -> bool:
    return bool((low_a <= high_b).all() and (high_a >= low_b).all())


def _longest(moves: np.ndarray) -> float:
    if len(moves) == 0:
        return 0.0
    squared = np.einsum("ij,ij->i", moves, moves)
    largest = float(squared.max())
    return math.sqrt(largest) if math.isfinite(largest) else math.inf
