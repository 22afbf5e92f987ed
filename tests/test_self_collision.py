"""Self-collision: the spatial hash finds exactly the close pairs, and folded cloth keeps its layers apart."""

import numpy as np
import pytest

import solver
from solver.self_collision import SelfCollision, close_pairs

FRAME = 1 / 24


def _brute_force_pairs(points, radius):
    d = np.linalg.norm(points[:, None] - points[None], axis=2)
    i, j = np.nonzero(np.triu(d < radius, 1))
    return i, j


def _sorted(i, j):
    order = np.lexsort((j, i))
    return i[order], j[order]


@pytest.mark.parametrize(
    ("n", "radius", "spread"), [(400, 0.1, 1.0), (300, 0.3, 1.0), (500, 0.02, 0.1), (64, 5.0, 1.0)]
)
def test_hash_finds_exactly_the_brute_force_pairs(n, radius, spread):
    points = np.random.default_rng(n).uniform(-spread, spread, (n, 3))
    points[: n // 10] = points[n // 10 : 2 * (n // 10)]  # some coincident points too
    i, j = _sorted(*close_pairs(points, radius))
    bi, bj = _brute_force_pairs(points, radius)
    assert len(bi) > 0
    assert np.array_equal(i, bi) and np.array_equal(j, bj)


def test_hash_survives_far_flung_and_tiny_inputs():
    points = np.array([[0, 0, 0], [1e30, -1e30, 1e30], [1e-3, 0, 0], [1e30, -1e30, 1e30]])
    i, j = _sorted(*close_pairs(points, 0.01))
    assert list(zip(i.tolist(), j.tolist(), strict=True)) == [(0, 2), (1, 3)]
    assert len(close_pairs(points[:1], 0.1)[0]) == 0


def _pile(self_collision, n=20):
    """A vertical sheet dropped onto the floor, tipped so it folds over itself."""
    vertices, faces = solver.grid(n, n, size=1.0)
    vertices = vertices[:, [0, 2, 1]] + [0.0, 0.0, 0.55]  # bottom edge 5 cm above the floor
    model = solver.build_model(vertices, faces)
    spacing = 1.0 / (n - 1)
    params = solver.Params(
        self_collision=self_collision,
        self_collision_distance=0.9 * spacing,
        thickness=0.01,
        bend_stiffness=0.5,
        friction=0.5,
    )
    state = model.initial_state()
    state.previous[:, 1] -= 0.3 * (state.positions[:, 2] - 0.05) * (FRAME / params.substeps)  # a tip along +Y
    for _ in range(72):
        solver.step(model, state, params, FRAME, colliders=[solver.Plane(point=(0, 0, 0))])
    return model, params, state


def _non_neighbour_distances(model, params, positions):
    n = len(positions)
    i, j = np.nonzero(np.triu(np.ones((n, n), dtype=bool), 1))
    neighbours = np.isin(i * n + j, model.neighbour_keys)
    rest = np.linalg.norm(model.rest_positions[i] - model.rest_positions[j], axis=1)
    keep = ~neighbours & (rest >= params.self_collision_gap)
    return np.linalg.norm(positions[i[keep]] - positions[j[keep]], axis=1)


def test_folded_cloth_keeps_its_layers_apart():
    model, params, state = _pile(True)
    assert np.isfinite(state.positions).all()
    assert state.positions[:, 2].max() < 0.3  # it did fall and fold into a pile
    distance = _non_neighbour_distances(model, params, state.positions)
    assert distance.min() >= params.thickness
    assert distance.min() > 0.8 * params.self_collision_gap


def test_without_self_collision_the_same_pile_interpenetrates():
    model, params, state = _pile(False)
    distance = _non_neighbour_distances(model, params, state.positions)
    assert (distance < params.thickness).sum() > 3


def test_pushes_are_mass_weighted_equal_and_opposite():
    model = solver.build_model([[0, 0, 0], [1, 0, 0]], mass=3.0)  # two loose particles
    collision = SelfCollision(model, gap=0.1)
    x = np.array([[0.0, 0.0, 0.0], [0.04, 0.0, 0.0]])
    inv_mass = np.array([1.0, 3.0])
    assert collision.resolve(x, inv_mass) == 1
    assert np.linalg.norm(x[1] - x[0]) == pytest.approx(0.1)
    assert (x[0, 0] - 0.0) * -1 == pytest.approx(0.06 * 0.25)  # the light one moves 3x as far
    assert x[1, 0] - 0.04 == pytest.approx(0.06 * 0.75)
    # Coincident vertices are separated along their rest offset, never NaN.
    x = np.zeros((2, 3))
    collision.resolve(x, inv_mass)
    assert np.isfinite(x).all() and x[1, 0] - x[0, 0] == pytest.approx(0.1)
