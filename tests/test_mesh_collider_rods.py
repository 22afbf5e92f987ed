"""Cloth over a rod thinner than its edges: a clothesline, a rail, a thin pole lying across."""

import numpy as np
import pytest

import solver
from solver.triangles import segment_crossings


def rod(radius: float, segments: int, length: float = 2.0, height: float = 1.0):
    """A capped cylinder along y at `height`: its lengthwise edges meet at 360° / segments."""
    angle = np.arange(segments) * 2 * np.pi / segments
    ring = np.stack([radius * np.cos(angle), np.zeros(segments), height + radius * np.sin(angle)], -1)
    ends = [[0, -length / 2, height], [0, length / 2, height]]
    v = np.concatenate([ring - (0, length / 2, 0), ring + (0, length / 2, 0), ends])
    k = np.arange(segments)
    k1 = (k + 1) % segments
    n = segments
    tris = [np.stack([k, k + n, k1], -1), np.stack([k1, k + n, k1 + n], -1)]  # the side
    tris += [np.stack([np.full(n, 2 * n), k, k1], -1), np.stack([np.full(n, 2 * n + 1), k1 + n, k + n], -1)]  # caps
    return v, np.concatenate(tris)


def edges_through(model, x, shape) -> int:
    """Cloth edges that pass through one of the rod's triangles."""
    v, tris = shape
    edges, _ = model.cloth_edges
    p, q = x[edges[:, 0]].T, x[edges[:, 1]].T
    through = np.zeros(len(edges), dtype=bool)
    for tri in tris:
        a, b, c = (np.repeat(v[k][:, None], len(edges), axis=1) for k in tri)
        through |= segment_crossings(p, q, a, b, c)[0]
    return int(through.sum())


def drop_over(shape, shift: float, frames: int = 36, triangulated: bool = False):
    """A 1.6 m 25² cloth (6.7 cm edges) dropped across the rod from 30 cm above it, onto a floor 1 m below."""
    vertices, faces = solver.grid(25, 25, size=1.6, height=1.3)
    if triangulated:
        faces = solver.meshes.triangulated(faces)
    model = solver.build_model(vertices + (shift, 0, 0), faces)
    state = model.initial_state()
    colliders = [solver.MeshCollider(*shape), solver.Plane(point=(0, 0, 0))]
    worst = 0
    for frame in range(frames):
        solver.step(model, state, solver.Params(), 1 / 24, colliders=colliders)
        if frame % 6 == 5:
            worst = max(worst, edges_through(model, state.positions, shape))
    return model, state, worst


@pytest.mark.parametrize("segments", [8, 16, 32])  # lengthwise edges meeting at 45° / 22.5° / 11.25°
@pytest.mark.parametrize("shift", [0.0, 0.011])
def test_cloth_hangs_over_a_rod_thinner_than_its_edges(segments, shift):
    shape = rod(0.01, segments)
    model, state, worst = drop_over(shape, shift)
    x = state.positions
    # Hangs on the rod (its top at 1.01 m; the sides reach the floor), not on the floor with the rod above it.
    assert x[:, 2].max() > 1.0
    assert x[:, 2].mean() > 0.3  # (~0.5 hanging, ~0.05 on the floor)
    # No cloth edge through the rod at any checked frame (before round 8: the whole row across it, 24 edges).
    assert worst <= 2


def test_triangulated_cloth_hangs_over_a_fine_rod():
    shape = rod(0.005, 32)
    model, state, worst = drop_over(shape, 0.011, triangulated=True)
    assert state.positions[:, 2].max() > 1.0
    assert worst <= 2


def test_a_rods_edges_are_sharp_only_for_a_cloth_coarser_than_it():
    from solver.edge_contacts import sharp_edges_of

    mesh = solver.TriangleMesh(*rod(0.05, 32))
    assert len(sharp_edges_of(mesh)) == 64  # the caps' rims only (faces meet at 11.25° along it)
    assert len(sharp_edges_of(mesh, 0.03)) == 64  # a 5 cm rod is round for 3 cm cloth edges
    assert len(sharp_edges_of(mesh, 0.06)) == 96  # not for 6 cm ones: lengthwise too


def test_only_a_rod_lying_across_gravity_is_one_a_cloth_hangs_on():
    # A standing rod (a table's round leg) carries no hanging cloth: its edges go on the mesh colliders'
    # windows with the hold, a lying one's sides get their pass every substep (edge_contacts._hanging).
    from solver.edge_contacts import sharp_edges_of
    from solver.edge_schedule import _hanging

    down = (0.0, 0.0, -9.81)
    vertices, triangles = rod(0.01, 16)
    lying = sharp_edges_of(solver.TriangleMesh(vertices, triangles), 0.06)
    assert lying.thin.sum() == 16  # its lengthwise edges (not the caps' rims)
    assert (_hanging(lying, None, down) == lying.thin).all()
    standing = sharp_edges_of(solver.TriangleMesh(vertices[:, [0, 2, 1]] * (1, 1, -1), triangles), 0.06)
    assert standing.thin.sum() == 16
    assert not _hanging(standing, None, down).any()
    # The lying rod turned upright by its collider's pose, and without gravity (all thin edges then).
    upright = solver.MeshCollider(vertices, triangles, pose=[[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])
    assert not _hanging(lying, upright._pose_at(1.0), down).any()
    assert (_hanging(lying, None, (0.0, 0.0, 0.0)) == lying.thin).all()
