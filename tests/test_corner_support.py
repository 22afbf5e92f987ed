"""corner_support's kept rings (round 16, ringbatch19): the same seeds asked in another order or repeated get the
same moves, each seed with its own corner (the rings are kept per seed set, where each seed is first per array)."""

import numpy as np

import solver
from solver import corner_support, meshes


def _hanging_cloth():
    """A 13² cloth draped over a ridge along y at x = 0 (its sides 40 % stretched), and two seeds on the ridge."""
    vertices, faces = meshes.grid(13, 13, size=1.2, height=0.0)
    model = solver.build_model(vertices, faces)
    x = model.rest_positions.copy()
    x[:, 2] = -1.4 * np.abs(x[:, 0])  # (steeper than the rest: the edges down the sides stretched)
    x[:, 0] *= 1.0 + 0.4 * (np.abs(x[:, 0]) > 0.0)
    ridge = np.flatnonzero(np.abs(vertices[:, 0]) < 1e-9)
    return model, x, ridge[[3, 8]]


def _supported(model, x, seeds, points, normals):
    x, x_start = x.copy(), model.rest_positions.copy()
    up = np.array([0.0, 0.0, 1.0])
    corner_support.support_hanging(
        x, x_start, seeds, model.structural_graph, model.inv_mass, 0.0, up, points, normals, 0.3
    )
    return x, x_start


def test_seeds_in_another_order_or_repeated_move_the_cloth_alike():
    model, x, (a, b) = _hanging_cloth()
    points = np.array([[0.0, 0.0], [-0.3, 0.3], [0.0, 0.0]])  # (3, 2): each seed's corner
    normals = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    first = _supported(model, x, np.array([a, b]), points, normals)
    assert np.abs(first[0] - x).max() > 1e-3  # (the support moved the hanging cloth)
    # The same seeds the other way round, and repeated, their corners alongside: kept rings, each seed's own corner.
    # A corner lowered 5 m (its cloth all above its plane: nothing hangs beyond it) tells the seeds apart.
    low = points.copy()
    low[2, 1] = -5.0
    reference = _supported(model, x, np.array([a, b]), low, normals)
    assert not np.array_equal(reference[0], first[0])
    for seeds, order in (([b, a], [1, 0]), ([a, b, a], [0, 1, 0]), ([b, b, a], [1, 1, 0])):
        got = _supported(model, x, np.array(seeds), low[:, order], normals[:, order])
        assert np.array_equal(got[0], reference[0]) and np.array_equal(got[1], reference[1]), seeds


def test_a_plan_made_once_moves_the_cloth_as_one_made_each_call():
    """The holds between corner passes hand `support_hanging` the pass's `support_plan` (round 25, tablecost25): the
    same moves to the bit, call after call (each call moving the cloth on from the last one's result)."""
    model, x, (a, b) = _hanging_cloth()
    seeds = np.array([b, a, b])
    points = np.array([[0.0, 0.0, 0.0], [0.3, -0.3, 0.3], [0.0, 0.0, 0.0]])
    normals = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    up = np.array([0.0, 0.0, 1.0])
    plan = corner_support.support_plan(seeds, model.structural_graph, model.inv_mass, 0.05, points, normals)
    assert plan is not None
    runs = []
    for kept in (None, plan):
        moved, start = x.copy(), model.rest_positions.copy()
        for _ in range(3):
            corner_support.support_hanging(
                moved, start, seeds, model.structural_graph, model.inv_mass, 0.05, up, points, normals, 0.3, kept
            )
        runs.append((moved, start))
    assert np.abs(runs[0][0] - x).max() > 1e-3
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])
