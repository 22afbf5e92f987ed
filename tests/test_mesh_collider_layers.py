"""Edge and corner contacts with deforming mesh colliders: cloth on cloth (the lower layer a collider), a
swaying wall and corners rising by a shape key (sharp edges and pointed corners found every frame,
docs/design.md, "Issue 11, round 9 (layers11)")."""

import numpy as np
import pytest
from test_mesh_collider_corners import apex_above_cloth, apex_edges_through_cloth, cube_on_corner, pyramid
from test_mesh_collider_edges import _edges_through, _wall

import solver
from solver import meshes
from solver.intersections import drawn_triangles, intersecting_pairs


def _ball(radius: float = 0.4, segments: int = 24, rings: int = 12):
    """A closed UV sphere on the floor (poles as fans): smooth, no sharp edge for a 6 cm cloth edge."""
    u, w = np.meshgrid(np.arange(segments) * (2 * np.pi / segments), np.arange(1, rings) * (np.pi / rings))
    body = np.stack([np.cos(u) * np.sin(w), np.sin(u) * np.sin(w), np.cos(w)], -1).reshape(-1, 3)
    vertices = np.concatenate([body, [[0, 0, 1], [0, 0, -1]]]) * radius + (0.0, 0.0, radius)
    top, bottom, last = len(body), len(body) + 1, (rings - 2) * segments
    tris = []
    for i in range(rings - 2):
        for j in range(segments):
            a, b = i * segments + j, i * segments + (j + 1) % segments
            tris += [(a, a + segments, b + segments), (a, b + segments, b)]
    for j in range(segments):
        tris += [(top, j, (j + 1) % segments), (bottom, last + (j + 1) % segments, last + j)]
    return vertices, np.array(tris)


def _layer(kind: str, height: float):
    if kind == "jittered":
        vertices, faces = meshes.jittered_grid(20, size=1.4, height=height, seed=3)
    else:
        vertices, faces = meshes.grid(20, 20, size=1.4, height=height)
        if kind == "triangulated":
            faces = meshes.triangulated(faces)
    return solver.build_model(vertices, faces)


def _crossing_pairs(low, low_x, top, top_x) -> int:
    """Pairs of drawn triangles, one of each layer, that pass through each other (exact)."""
    lower, upper = drawn_triangles(low, low_x), drawn_triangles(top, top_x) + len(low_x)
    pairs = intersecting_pairs(np.concatenate([low_x, top_x]), np.concatenate([lower, upper]))
    in_lower = pairs < len(lower)
    return int((in_lower[:, 0] != in_lower[:, 1]).sum())


@pytest.mark.parametrize("kind", ["quad", "triangulated", "jittered"])
def test_the_upper_layer_never_passes_through_the_lower_one_over_a_ball(kind):
    # The lower layer drapes over a ball; the upper one falls onto it with the lower layer as a deforming
    # collider (as the add-on gives a cloth whose collider kind is Mesh, offset by its own thickness).
    # Without edge contacts for deforming meshes the upper layer's edges cut through the lower one's
    # folds: 60-240 crossing pairs a frame at rest, up to 400 at impact (bench/cloth_layers.py).
    low, top = _layer(kind, 0.9), _layer(kind, 1.1)
    params = solver.Params()
    under = [solver.MeshCollider(*_ball()), solver.Plane(point=(0, 0, 0))]
    low_state, top_state = low.initial_state(), top.initial_state()
    counts = []
    for _ in range(30):
        start = low_state.positions.copy()
        solver.step(low, low_state, params, 1 / 24, under)
        lower = solver.MeshCollider(low_state.positions.copy(), low.triangles[0], mesh_start=start, offset=0.005)
        solver.step(top, top_state, params, 1 / 24, [lower, *under])
        counts.append(_crossing_pairs(low, low_state.positions, top, top_state.positions))
    assert top_state.positions[:, 2].min() > 0.0  # (on the ball and the floor, not fallen through)
    # The layers meet at frames 9-11: a few pairs cross there (up to 10 a frame); once they lie together
    # none or a stray pair or two (0-2 seen, against 60-190 a frame without the edge contacts).
    assert sum(counts[:15]) <= 40
    assert max(counts[15:]) <= 3


@pytest.mark.parametrize("thickness", [0.0, 0.02])
def test_cloth_hangs_over_a_swaying_thin_wall_given_as_a_deforming_mesh(thickness):
    # A thin wall whose top sways 2 cm to and fro (a shape key's motion: the add-on gives it as a deforming
    # mesh, its shape at each frame's start and end). Without edge contacts for deforming meshes the cloth
    # falls off its rim to the floor (as on a still wall before thinwall7).
    vertices, triangles = _wall(thickness)

    def swayed(frame: int) -> np.ndarray:
        return vertices + np.outer(vertices[:, 2], (0.02 * np.sin(frame * 2 * np.pi / 24), 0.0, 0.0))

    cloth, faces = solver.grid(25, 25, size=1.6, height=1.3)
    model = solver.build_model(cloth + (0.01, 0, 0), faces)
    state = model.initial_state()
    for frame in range(36):
        wall = solver.MeshCollider(swayed(frame + 1), triangles, mesh_start=swayed(frame))
        solver.step(model, state, solver.Params(), 1 / 24, colliders=[wall, solver.Plane(point=(0, 0, 0))])
    x = state.positions
    assert 0.99 < x[:, 2].max() < 1.05  # hangs on the wall's top
    assert _edges_through(model, x, (swayed(36), triangles)) <= 0.003 * len(model.cloth_edges[0])


@pytest.mark.parametrize(("shape", "triangulated"), [(cube_on_corner, False), (pyramid, True)])
def test_a_corner_rising_by_a_shape_key_stays_under_the_cloth(shape, triangulated):
    # As tests/test_mesh_collider_corners.py's rising corners, but the lift given as a deformation (a shape
    # key's): the corners are the end shape's pointed vertices, found every frame, moving in the substep.
    v, tris = shape()
    vertices, faces = solver.grid(33, 33, size=2.0, height=0.005)
    if triangulated:
        faces = meshes.triangulated(faces)
    model = solver.build_model(vertices + (0.011, 0.023, 0), faces)
    state = model.initial_state()

    def lifted(frame: int) -> np.ndarray:
        return v + (0.0, 0.0, -0.5 + min(frame, 36) / 36 * 0.5)

    for frame in range(40):
        collider = solver.MeshCollider(lifted(frame + 1), tris, mesh_start=lifted(frame))
        solver.step(model, state, solver.Params(), 1 / 24, colliders=[collider, solver.Plane(point=(0, 0, 0))])
        if frame % 4 == 3:
            now = lifted(frame + 1)
            # Without corner contacts for deforming meshes the apex comes through the cloth.
            assert apex_above_cloth(state.positions, model.triangles[0], now[np.argmax(now[:, 2])]) < 0.0
    assert apex_edges_through_cloth(state.positions, model.triangles[0], now, tris) == 0
