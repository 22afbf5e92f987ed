"""Self-collision: the spatial hash finds exactly the close pairs, and folded cloth keeps its layers apart."""

import numpy as np
import pytest

import solver
from solver.self_collision import SelfCollision
from solver.spatial_hash import SpatialHash, close_pairs

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


def test_one_hash_reused_across_sizes_and_radii_stays_exact():
    """The table and buffers are kept between queries: stale entries must never leak into a result."""
    spatial_hash = SpatialHash()
    rng = np.random.default_rng(7)
    for n, radius in [(3000, 0.05), (500, 0.2), (3000, 0.02), (40000, 0.01), (500, 0.2)]:
        points = rng.uniform(-1.0, 1.0, (n, 3)) * [1.0, 1.0, 0.05]  # a slab: many points per cell
        i, j = spatial_hash.pairs(points, radius)
        expected = _sorted(*close_pairs(points, radius)) if n > 3000 else _brute_force_pairs(points, radius)
        assert len(i) > 0
        assert np.array_equal(i, expected[0]) and np.array_equal(j, expected[1])


def test_near_finds_exactly_the_close_points_of_the_queried_ones():
    spatial_hash = SpatialHash()
    points = np.random.default_rng(3).uniform(-1.0, 1.0, (600, 3))
    query = np.array([0, 5, 17, 599, 300])
    q, v = spatial_hash.near(points, query, 0.25)
    found = sorted(zip(q.tolist(), v.tolist(), strict=True))
    d = np.linalg.norm(points[query][:, None] - points[None], axis=2)
    expected = sorted((int(query[a]), int(b)) for a, b in zip(*np.nonzero(d < 0.25), strict=True) if query[a] != b)
    assert len(expected) > 5 and found == expected


def test_candidate_list_never_misses_a_close_pair_while_vertices_move():
    """The Verlet list (gap + skin, partial re-queries) holds every non-neighbour pair closer than
    the gap after each refresh, whatever mix of still, drifting and jumping vertices."""
    vertices, faces = solver.grid(12, 12, size=1.0)
    model = solver.build_model(vertices, faces)
    gap = 0.05
    collision = SelfCollision(model, gap)
    rng = np.random.default_rng(11)
    x = model.rest_positions.copy()
    x[:, 2] = rng.uniform(0.0, 0.2, len(x))  # crumpled: many pairs near the gap
    checked = 0
    for substep in range(60):
        share = 0.9 if substep % 10 == 0 else 0.05 if substep % 10 < 5 else 0.0  # violent, a few, still
        moving = rng.random(len(x)) < share
        x[moving] += rng.normal(0.0, 0.6 * gap, (int(moving.sum()), 3))
        x += [0.3, 0.0, -0.2]  # the whole cloth travels: must not trigger queries by itself
        collision.refresh(x)
        listed = set(zip(collision.i.tolist(), collision.j.tolist(), strict=True))
        i, j = collision._filter(*_brute_force_pairs(x, gap))
        assert set(zip(i.tolist(), j.tolist(), strict=True)) <= listed
        checked += len(i)
    assert checked > 50
    assert collision.rebuilds <= 30 + 6  # still substeps and a travelling cloth need no query


def _pile(self_collision, n=20):
    """A vertical sheet dropped onto the floor, tipped so it folds over itself."""
    vertices, faces = solver.grid(n, n, size=1.0)
    vertices = vertices[:, [0, 2, 1]] + [0.0, 0.0, 0.55]  # bottom edge 5 cm above the floor
    model = solver.build_model(vertices, faces)
    spacing = 1.0 / (n - 1)
    params = solver.Params(
        self_collision=self_collision,
        self_collision_faces=False,  # this file tests the vertex–vertex engine
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
