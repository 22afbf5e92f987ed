"""Drag targets: grabbed vertices follow their targets for one frame; the rest of the cloth follows physically."""

import numpy as np
import pytest
from solver_scenes import FRAME, hanging_cloth

import solver


def test_grabbed_vertex_follows_its_target_and_the_cloth_follows_it():
    model = hanging_cloth(12)
    state = model.initial_state()
    params = solver.Params()
    corner = 0  # bottom-left corner, free
    neighbour = 1
    start = state.positions[corner].copy()
    inv_mass_before = model.inv_mass.copy()
    for frame in range(1, 25):
        target = start + np.array([0.0, 0.6, 0.3]) * frame / 24  # pull it out of the plane, towards +Y
        solver.step(model, state, params, FRAME, grab=([corner], [target]))
        assert state.positions[corner] == pytest.approx(target, abs=1e-12)
    assert np.array_equal(model.inv_mass, inv_mass_before)  # no rebuild, nothing changed in the model
    # Its neighbour was dragged along; the far (pinned) side stayed put.
    assert state.positions[neighbour, 1] > 0.3
    edge = np.linalg.norm(state.positions[neighbour] - state.positions[corner])
    assert edge < 1.2 * np.linalg.norm(model.rest_positions[neighbour] - model.rest_positions[corner])
    assert np.array_equal(state.positions[model.pinned], model.rest_positions[model.pinned])

    # Released: it falls and swings back towards the cloth's plane.
    held = state.positions[corner].copy()
    for _ in range(12):
        solver.step(model, state, params, FRAME)
    assert state.positions[corner, 2] < held[2] - 0.05
    assert state.positions[corner, 1] < held[1]


def test_a_grab_object_interpolates_from_targets_start():
    model = solver.build_model([[0.0, 0.0, 0.0], [0.0, 0.0, -0.1]], edges=[(0, 1)])
    state = model.initial_state()
    grab = solver.Grab(indices=[0], targets=[[1.0, 0.0, 0.0]], targets_start=[[0.5, 0.0, 0.0]])
    params = solver.Params(substeps=4, gravity=(0, 0, 0), damping=0.0)
    solver.step(model, state, params, FRAME, grab=grab)
    assert state.positions[0] == pytest.approx([1.0, 0.0, 0.0])
    assert state.previous[0] == pytest.approx([0.875, 0.0, 0.0])  # 3/4 of the way at the last-but-one substep
    # The follower is pulled along by the (infinitely heavy) grabbed vertex.
    assert np.linalg.norm(state.positions[1] - state.positions[0]) == pytest.approx(0.1, rel=0.05)


def test_grab_ignores_colliders_and_rejects_bad_input():
    model = solver.build_model([[0.0, 0.0, 1.0]], mass=1.0)
    state = model.initial_state()
    floor = solver.Plane(point=(0, 0, 0))
    solver.step(model, state, solver.Params(), FRAME, colliders=[floor], grab=([0], [[0.0, 0.0, -0.5]]))
    assert state.positions[0, 2] == pytest.approx(-0.5)  # the user may drag it anywhere
    with pytest.raises(ValueError):
        solver.step(model, state, solver.Params(), FRAME, grab=([3], [[0.0, 0.0, 0.0]]))
    with pytest.raises(ValueError):
        solver.step(model, state, solver.Params(), FRAME, grab=([0], [[np.nan, 0.0, 0.0]]))
