"""Integration, damping, pins and stiffness: the Verlet step does what the equations say."""

import numpy as np
import pytest
from solver_scenes import hanging_grid

import solver

FRAME = 1 / 24


def _particle(height=1.0):
    return solver.build_model([[0.0, 0.0, height]], mass=1.0)


def test_unconstrained_particle_falls_as_verlet_predicts():
    model = _particle()
    state = model.initial_state()
    params = solver.Params(substeps=4, damping=0.0, gravity=(0.0, 0.0, -9.81))
    for _ in range(10):
        solver.step(model, state, params, FRAME)
    n = 40
    dt = FRAME / 4
    # x_n = x_0 + g dt² n(n+1)/2 for Verlet started at rest.
    assert state.positions[0, 2] == pytest.approx(1.0 - 9.81 * dt * dt * n * (n + 1) / 2, rel=1e-12)
    assert state.positions[0, :2] == pytest.approx([0.0, 0.0])
    # Which is the free-fall parabola, up to Verlet's O(dt) start-up offset.
    t = 10 * FRAME
    assert state.positions[0, 2] == pytest.approx(1.0 - 0.5 * 9.81 * t * t, abs=9.81 * t * dt)


def test_damping_is_a_fraction_of_velocity_lost_per_second():
    model = _particle()
    for substeps in (4, 16):
        state = model.initial_state()
        state.previous[0, 0] -= 1.0 * FRAME / substeps  # 1 m/s along +x
        params = solver.Params(substeps=substeps, damping=0.5, gravity=(0, 0, 0))
        for _ in range(24):
            solver.step(model, state, params, FRAME)
        speed = state.velocity(FRAME / substeps)[0, 0]
        assert speed == pytest.approx(0.5, rel=1e-9)


def test_pinned_vertices_never_move():
    vertices, faces = solver.grid(12, 12, height=1.0)
    pins = np.zeros(len(vertices))
    pins[[0, 11, 60]] = 1.0
    model = solver.build_model(vertices, faces, pin_weight=pins)
    state = model.initial_state()
    floor = solver.Plane(point=(0, 0, 0.5))
    for _ in range(30):
        solver.step(model, state, solver.Params(), FRAME, colliders=[floor])
        assert np.array_equal(state.positions[[0, 11, 60]], vertices[[0, 11, 60]])
    assert state.positions[143, 2] < 0.9  # the far corner fell


def test_moving_pin_targets_carry_the_pinned_vertices():
    model = solver.build_model([[0, 0, 0], [0, 0, -0.1]], edges=[(0, 1)], pin_weight=[1, 0])
    state = model.initial_state()
    target = model.rest_positions + [0.5, 0, 0]
    solver.step(model, state, solver.Params(), FRAME, pin_targets=target, pin_targets_start=model.rest_positions)
    assert state.positions[0] == pytest.approx([0.5, 0, 0])


def _partial_pin_sag(weight, fps, substeps):
    """How far a free-hanging vertex on a partial pin sags under gravity after 2 s."""
    model = solver.build_model([[0.0, 0.0, 0.0]], mass=1.0, pin_weight=[weight])
    state = model.initial_state()
    params = solver.Params(substeps=substeps, damping=0.9)
    for _ in range(2 * fps):
        solver.step(model, state, params, 1.0 / fps)
    return -state.positions[0, 2]


def test_partial_pins_act_per_second_not_per_frame():
    """Weight 0.5 used to sag 4.7 cm at 24 fps and 0.7 cm at 60 fps; the pull is a rate in time now."""
    sag = {(fps, sub): _partial_pin_sag(0.5, fps, sub) for fps in (24, 60) for sub in (5, 10, 20)}
    reference = sag[(24, 10)]
    assert reference > 1e-3  # it does sag
    for value in sag.values():
        assert value == pytest.approx(reference, rel=0.05)
    # A weight is a spring: the sag is g over its stiffness per kilogram, -ln(1 - w) * PIN_STIFFNESS.
    from solver.step import PIN_STIFFNESS

    assert reference == pytest.approx(9.81 / (np.log(2.0) * PIN_STIFFNESS), rel=0.05)
    assert _partial_pin_sag(0.9, 24, 10) < 0.5 * reference  # heavier weights hold tighter
    assert _partial_pin_sag(1.0, 60, 10) == 0.0


def test_a_cloth_on_partial_pins_sags_the_same_at_24_and_60_fps():
    vertices, faces, corners = hanging_grid(10)
    top = np.isclose(vertices[:, 2], vertices[:, 2].max())
    model = solver.build_model(vertices, faces, pin_weight=np.where(top, 0.5, 0.0))
    sag = {}
    for fps in (24, 60):
        state = model.initial_state()
        for _ in range(2 * fps):
            solver.step(model, state, solver.Params(damping=0.5), 1.0 / fps)
        sag[fps] = float(np.mean(model.rest_positions[top, 2] - state.positions[top, 2]))
    assert sag[24] > 1e-3
    assert sag[60] == pytest.approx(sag[24], rel=0.1)


@pytest.mark.parametrize("substeps", [8, 32])
def test_soft_stiffness_does_not_depend_on_substeps(substeps):
    """XPBD: a 1 kg mass on a k = 200 N/m constraint settles at m g / k below its rest length."""
    model = solver.build_model([[0, 0, 0], [0, 0, -1.0]], edges=[(0, 1)], pin_weight=[1, 0], mass=2.0)
    params = solver.Params(substeps=substeps, stretch_stiffness=200.0, damping=0.9)
    state = model.initial_state()
    for _ in range(24 * 8):
        solver.step(model, state, params, FRAME)
    extension = -state.positions[1, 2] - 1.0
    assert extension == pytest.approx(model.mass[1] * 9.81 / 200.0, rel=0.02)


def test_iterations_keep_xpbd_stiffness():
    model = solver.build_model([[0, 0, 0], [0, 0, -1.0]], edges=[(0, 1)], pin_weight=[1, 0], mass=2.0)
    params = solver.Params(substeps=4, iterations=6, stretch_stiffness=200.0, damping=0.9)
    state = model.initial_state()
    for _ in range(24 * 8):
        solver.step(model, state, params, FRAME)
    assert -state.positions[1, 2] - 1.0 == pytest.approx(model.mass[1] * 9.81 / 200.0, rel=0.02)


def test_stretch_only_lets_structural_edges_compress():
    def squeezed(stretch_only):
        model = solver.build_model([[0, 0, 0], [1, 0, 0]], edges=[(0, 1)])
        state = model.initial_state()
        state.positions[1, 0] = state.previous[1, 0] = 0.5
        solver.step(model, state, solver.Params(gravity=(0, 0, 0), stretch_only=stretch_only), FRAME)
        return np.linalg.norm(state.positions[1] - state.positions[0])

    assert squeezed(True) == pytest.approx(0.5)
    assert squeezed(False) == pytest.approx(1.0, rel=1e-3)


def _hanging_cloth(n=20):
    vertices, faces, corners = hanging_grid(n)
    return solver.build_model(vertices, faces, pin_weight=corners.astype(float)), corners


def test_cloth_pinned_at_two_corners_settles_with_little_stretch():
    model, corners = _hanging_cloth()
    state = model.initial_state()
    params = solver.Params()
    for _ in range(96):
        solver.step(model, state, params, FRAME)
    mean, _ = solver.stretch_summary(model, state.positions)
    assert mean < 0.01
    assert np.array_equal(state.positions[corners], model.rest_positions[corners])
    # It has settled: nothing still moves fast.
    speed = np.linalg.norm(state.velocity(FRAME / params.substeps), axis=1).max()
    assert speed < 0.5
