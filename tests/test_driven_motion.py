"""Auto Substeps and fast driven motion (solver/driven_motion.py): frames whose pins, grab or colliders
near the cloth move fast get more substeps; still scenes keep their count."""

import dataclasses
import math

import numpy as np

import solver
from solver.driven_motion import DRIVEN_MOVE_PER_EDGE, MAX_MOTION_SUBSTEPS, driven_motion, motion_substeps
from solver.inputs import StepInputs
from solver.intersections import count_drawn_intersections
from solver.meshes import box, fan_disc

FRAME = 1 / 24


def _sheet(n: int = 9, size: float = 1.0, pinned=None):
    """A flat n x n sheet at z 1 (edges size / (n - 1)), pinned along x = min if asked."""
    vertices, faces = solver.grid(n, n, size=size, height=1.0)
    weight = np.zeros(len(vertices)) if pinned is None else pinned(vertices).astype(float)
    return solver.build_model(vertices, faces, pin_weight=weight)


def _motion(model, params=None, **inputs) -> float:
    state = model.initial_state()
    return driven_motion(model, state, StepInputs(**inputs), params or solver.Params(), FRAME)


def _turned(rotation_z: float, origin=(0.0, 0.0, 0.0)) -> np.ndarray:
    c, s = math.cos(rotation_z), math.sin(rotation_z)
    pose = np.eye(4)
    pose[:3, :3] = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]
    pose[:3, 3] = origin
    return pose


def test_motion_substeps_keep_each_move_within_a_part_of_an_edge_and_stop_at_the_cap():
    edge = 0.05
    assert motion_substeps(0.0, edge) == 0
    assert motion_substeps(DRIVEN_MOVE_PER_EDGE * edge * 32, edge) == 32
    assert motion_substeps(DRIVEN_MOVE_PER_EDGE * edge * 32.5, edge) == 40  # in steps of 8
    assert motion_substeps(DRIVEN_MOVE_PER_EDGE * edge * 0.1, edge) == 8
    assert motion_substeps(1e3, edge) == 60000  # asked for (a third of 5 cm a substep); the step takes at most 100
    assert motion_substeps(math.inf, edge) > MAX_MOTION_SUBSTEPS and motion_substeps(1.0, 0.0) == 0


def test_a_frame_takes_what_its_motion_asks_for_up_to_the_cap_holds_it_one_frame_and_records_it():
    model = _sheet(pinned=lambda v: v[:, 0] < -0.49)  # edges of 1/8 m
    params = solver.Params(substeps=16, substeps_follow_motion=True)
    rest = model.rest_positions
    for move, taken in ((0.5, 16), (1.0, 24), (1.1, 32), (10.0, MAX_MOTION_SUBSTEPS)):
        state = model.initial_state()
        solver.step(model, state, params, FRAME, pin_targets=rest + (0.0, move, 0.0), pin_targets_start=rest)
        wanted = motion_substeps(move, 0.125)
        assert (state.last_substeps, state.wanted_substeps) == (taken, wanted), move
        assert math.isclose(state.substep_time, FRAME / taken)
    assert state.wanted_substeps > MAX_MOTION_SUBSTEPS  # capped
    still = rest + (0.0, 10.0, 0.0)
    solver.step(model, state, params, FRAME, pin_targets=still, pin_targets_start=still)
    assert state.last_substeps == MAX_MOTION_SUBSTEPS  # held one frame after the pins stop
    solver.step(model, state, params, FRAME, pin_targets=still, pin_targets_start=still)
    assert (state.last_substeps, state.wanted_substeps) == (16, 0)
    solver.step(model, state, dataclasses.replace(params, substeps_follow_motion=False), FRAME, pin_targets=rest * 2)
    assert state.last_substeps == 16


def test_pin_targets_count_only_where_they_move():
    model = _sheet(pinned=lambda v: v[:, 0] < -0.49)
    rest = model.rest_positions
    assert _motion(model) == 0.0 and _motion(model, pin_targets=rest, pin_targets_start=rest.copy()) == 0.0
    moved = rest + (0.0, 0.3, 0.0)
    assert math.isclose(_motion(model, pin_targets=moved, pin_targets_start=rest), 0.3)
    free = _sheet()  # no pins: targets of free vertices drive nothing
    assert _motion(free, pin_targets=moved, pin_targets_start=rest) == 0.0
    grab = solver.Grab([0], [(0.0, 0.0, 1.7)], targets_start=[(0.0, 0.0, 1.0)])
    assert math.isclose(_motion(free, grab=grab), 0.7)


def test_collider_motion_counts_near_the_cloth_only_and_with_rotation():
    model = _sheet()  # 1 m at z 1
    vertices, faces = box(2, size=0.4)
    mesh = solver.TriangleMesh(
        vertices, np.asarray(faces)[:, [0, 1, 2]].tolist() + np.asarray(faces)[:, [0, 2, 3]].tolist()
    )
    near = solver.MeshCollider(mesh, pose=_turned(0.0, (0.25, 0.0, 1.0)), pose_start=_turned(0.0, (0.0, 0.0, 1.0)))
    far = solver.MeshCollider(mesh, pose=_turned(0.0, (5.25, 0.0, 1.0)), pose_start=_turned(0.0, (5.0, 0.0, 1.0)))
    assert math.isclose(_motion(model, colliders=[near]), 0.25)
    assert _motion(model, colliders=[far]) == 0.0
    # A quarter turn about its centre: its corners (0.2 √2 from the axis) move 0.2 √2 × √2 = 0.4.
    spun = solver.MeshCollider(
        mesh, pose=_turned(0.5 * math.pi, (0.0, 0.0, 1.0)), pose_start=_turned(0.0, (0.0, 0.0, 1.0))
    )
    assert 0.39 < _motion(model, colliders=[spun]) < 0.41
    # Spheres and planes: the surface's move where the cloth can meet it; a floor sliding along itself: none.
    sphere = solver.Sphere(center=(0.0, 0.0, 0.9), radius=0.2, center_start=(0.0, 0.0, 0.6))
    assert math.isclose(_motion(model, colliders=[sphere]), 0.3)
    assert (
        _motion(model, colliders=[solver.Sphere(center=(9.0, 0.0, 0.9), radius=0.2, center_start=(8.0, 0, 0.9))]) == 0
    )
    rising = solver.Plane(point=(0.0, 0.0, 0.5), point_start=(0.0, 0.0, 0.2))
    sliding = solver.Plane(point=(3.0, 0.0, 0.2), point_start=(0.0, 0.0, 0.2))
    assert math.isclose(_motion(model, colliders=[rising]), 0.3) and _motion(model, colliders=[sliding]) < 1e-12
    # A deforming mesh: its fastest triangle corner near the cloth.
    moved = np.asarray(vertices, dtype=np.float64) + (0.0, 0.0, 1.0)
    pushed = moved.copy()
    pushed[0] += (0.0, 0.0, 0.2)
    deforming = solver.MeshCollider(pushed, mesh.triangles, mesh_start=moved)
    assert math.isclose(_motion(model, colliders=[deforming]), 0.2)
    assert _motion(model, colliders=[solver.MeshCollider(pushed + 5.0, mesh.triangles, mesh_start=moved + 5.0)]) == 0


def test_a_still_scene_keeps_its_substeps():
    """A drape on a sphere and a floor, a curtain with still pins, a cloth on a still table: the count
    Auto Substeps gave them, every frame."""
    params = solver.Params(substeps=16, substeps_follow_motion=True, self_collision=True)
    drape = _sheet(17, 2.0)
    vertices, faces = box(2, size=1.0, center=(0.0, 0.0, 0.4))
    faces = np.asarray(faces)
    table = solver.MeshCollider(vertices, np.concatenate([faces[:, [0, 1, 2]], faces[:, [0, 2, 3]]]))
    curtain = _sheet(17, 1.0, pinned=lambda v: v[:, 0] < -0.49)
    scenes = [
        (drape, [solver.Sphere(center=(0.0, 0.0, 0.5), radius=0.4), solver.Plane(point=(0.0, 0.0, 0.0))], {}),
        (drape, [table, solver.Plane(point=(0.0, 0.0, 0.0))], {}),
        (curtain, [], {"pin_targets": curtain.rest_positions, "pin_targets_start": curtain.rest_positions.copy()}),
    ]
    for model, colliders, pins in scenes:
        state = model.initial_state()
        for _ in range(12):
            solver.step(model, state, params, FRAME, colliders=colliders, **pins)
            assert (state.last_substeps, state.wanted_substeps) == (16, 0)


def test_a_frame_of_other_substeps_keeps_the_velocity():
    """`previous` is one substep ago: a frame with twice the substeps first halves that step, so a
    falling cloth keeps falling at g t (it fell twice as fast before, or half as fast the other way)."""
    model, g = _sheet(3), 9.81
    for first, second in ((16, 32), (32, 16)):
        state = model.initial_state()
        solver.step(model, state, solver.Params(substeps=first, damping=0.0), FRAME)
        before = state.positions[:, 2].copy()
        solver.step(model, state, solver.Params(substeps=second, damping=0.0), FRAME)
        # Verlet from a speed g T over n substeps of T / n: g T² + ½ g T² (1 + 1/n).
        expected = g * FRAME**2 + 0.5 * g * FRAME**2 * (1 + 1 / second)
        assert np.allclose(before - state.positions[:, 2], expected, rtol=1e-9), (first, second)


def _fast_fold(follow: bool, frames: int = 7) -> list[int]:
    """A fan disc (32 spokes, 8 rings, r 0.7 m) on the floor, its left strip pinned and swung 180° over
    it about the centre in 2 frames (eased; ~1 m a frame at the tip), face self-collision: the drawn
    intersecting face pairs after each frame."""
    vertices, faces = fan_disc(spokes=32, rings=8, radius=0.7)
    vertices = np.asarray(vertices, dtype=np.float64)
    vertices[:, 2] = 0.03
    strip = vertices[:, 0] < vertices[:, 0].min() + 0.07
    model = solver.build_model(vertices, faces, pin_weight=strip.astype(float))
    params = solver.Params(self_collision=True, bend_stiffness=0.05, substeps=16, substeps_follow_motion=follow)

    def pins(frame: int) -> np.ndarray:
        t = min(max((frame - 2) / 2, 0.0), 1.0)
        angle = math.pi * t * t * (3 - 2 * t)
        c, s = math.cos(angle), math.sin(angle)
        x, z = vertices[:, 0], vertices[:, 2] - 0.03
        return np.stack([x * c + z * s, vertices[:, 1], -x * s + z * c + 0.03], 1)

    state, floor, pairs = model.initial_state(), [solver.Plane(point=(0.0, 0.0, 0.0))], []
    for frame in range(2, 2 + frames):
        solver.step(
            model, state, params, FRAME, colliders=floor, pin_targets=pins(frame), pin_targets_start=pins(frame - 1)
        )
        pairs.append(count_drawn_intersections(model, state.positions))
    assert state.positions[strip, 0].min() > 0.6  # the strip did come over
    return pairs


def test_a_disc_folded_over_itself_in_two_frames_ends_with_no_intersecting_faces():
    """At Auto Substeps' 16 alone, 57 pairs stay from the fold's second frame on; following the pins
    (48 on the fold's frames and the next), none."""
    assert _fast_fold(follow=True) == [0] * 7


def test_a_sphere_keyed_across_the_cloth_in_one_frame_asks_for_substeps():
    """A 0.2 m sphere from 0.6 m under the sheet to 0.6 m over it in one frame (a teleport swept, ~29 m/s): neither
    pose comes near the cloth, its path does (in Blender it left 10 cloth edges 19 cm through it at 16 substeps)."""
    model = _sheet()  # 1 m at z 1
    across = solver.Sphere(center=(0.0, 0.0, 1.6), radius=0.2, center_start=(0.0, 0.0, 0.4))
    assert math.isclose(_motion(model, colliders=[across]), 1.2)
    beside = solver.Sphere(center=(3.0, 0.0, 1.6), radius=0.2, center_start=(3.0, 0.0, 0.4))
    assert _motion(model, colliders=[beside]) == 0.0
