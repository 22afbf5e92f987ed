"""A cloth on a coarse UV ball (issue 11, round 19 (uvball22)): Blender's Add > UV Sphere (24 × 12, r 0.15) meets at
15° between neighbouring faces, under SHARP_ANGLE, and is too wide for the rounded rule, but a triangulated 20² 1.2 m
cloth's 8.9 cm diagonals across one of its ridges, their ends the gap (5 mm) off the faces, dip 5.9 mm under it
(L / 2 tan 7.5°): they reach through. The closed mesh's convex ridges are sharp where the longest cloth edge reaches
through the gap (edge_contacts.CLOSED_RIDGE_GAP), not only past the rounded rule's L / 12 floor (7.4 mm here).
The same with a mirrored, squashed, turned ball (a negative determinant: its triangles wound inwards)."""

import math

import numpy as np
import pytest
from test_mesh_collider_rounded import _cloth
from test_mesh_collider_swinging_legs import edges_through

import solver
from solver import meshes


def _drop(vertices, triangles, cloth, faces, frames: int, bend: float):
    model = solver.build_model(cloth, faces)
    state, params = model.initial_state(), solver.Params(bend_stiffness=bend)
    colliders = [solver.MeshCollider(vertices, triangles), solver.Plane(point=(0, 0, 0))]
    edges, through = model.cloth_edges[0], []
    for _ in range(frames):
        solver.step(model, state, params, 1 / 24, colliders=colliders)
        through.append(edges_through(state.positions, edges, vertices, triangles))
    return state, through


@pytest.mark.parametrize("kind", ["quad", "triangulated", "holed"])
def test_a_cloth_on_a_24_by_12_uv_ball_rests_on_it_with_no_edge_through_it(kind):
    """A 1.2 m 20² cloth dropped from 0.6 m, 3 / 2 cm off centre, onto the UV ball (r 0.15, its centre 0.3 m up;
    bench/acceptance_probes.py self_sphere, in the solver alone)."""
    vertices, triangles = meshes.uv_sphere(24, 12, 0.15, (0.0, 0.0, 0.3))
    cloth, faces = _cloth(kind, 20, 0.6, size=1.2)
    state, through = _drop(vertices, triangles, cloth + (0.03, 0.02, 0.0), faces, 36, 0.02)
    # With CLOSED_RIDGE_GAP False: triangulated 4-18 edges through at every frame from frame 5, 6 at the end;
    # quad 1-2 at frames 9-19; holed 1-4 at frames 10-19.
    assert max(through) == 0, through
    middle = np.argmin(np.linalg.norm(cloth[:, :2], axis=1))
    assert state.positions[middle, 2] > 0.44  # on the ball (its top 0.45)


def _mirrored_ball():
    """The UV ball (r 0.3) scaled (-1.3, 0.7, 0.6), turned (0.2, 0.3, 0.4) rad about x, y, z and 0.2 m up, its
    transform applied as Blender's colliders read it: the triangles keep their corners' order, so they wind inwards."""
    vertices, triangles = meshes.uv_sphere(24, 12, 0.3)
    rx, ry, rz = 0.2, 0.3, 0.4
    turn_x = np.array([[1, 0, 0], [0, math.cos(rx), -math.sin(rx)], [0, math.sin(rx), math.cos(rx)]])
    turn_y = np.array([[math.cos(ry), 0, math.sin(ry)], [0, 1, 0], [-math.sin(ry), 0, math.cos(ry)]])
    turn_z = np.array([[math.cos(rz), -math.sin(rz), 0], [math.sin(rz), math.cos(rz), 0], [0, 0, 1]])
    matrix = turn_z @ turn_y @ turn_x @ np.diag([-1.3, 0.7, 0.6])
    return vertices @ matrix.T + (0.0, 0.0, 0.2), triangles


@pytest.mark.parametrize("kind", ["triangulated", "irregular"])
def test_a_cloth_on_a_mirrored_squashed_uv_ball_has_no_edge_through_it(kind):
    """A 1.6 m 24² cloth dropped 8 cm above the mirrored ball's top (bench/acceptance_probes.py negscale, ball
    only, in the solver alone)."""
    vertices, triangles = _mirrored_ball()
    assert solver.TriangleMesh(vertices, triangles).outward == -1
    top = vertices[:, 2].max()
    cloth, faces = _cloth(kind, 24, top + 0.08, size=1.6)
    state, through = _drop(vertices, triangles, cloth + (0.03, 0.02, 0.0), faces, 36, 0.05)
    # With CLOSED_RIDGE_GAP False: irregular 3-8 edges through at every frame from frame 4 (6 at the end);
    # triangulated 1-2 from frame 15 on.
    assert max(through[12:]) == 0, through
    assert state.positions[:, 2].max() > top - 0.02  # on the ball
