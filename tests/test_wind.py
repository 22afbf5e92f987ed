"""Wind: aerodynamic pressure on triangles, turbulence, and air drag."""

import numpy as np
import pytest
from solver_scenes import FRAME, hanging_cloth, run

import solver
from solver.wind import turbulence_noise


def test_wind_blows_a_hanging_cloth_downwind():
    model = hanging_cloth(16)
    calm = run(model, solver.Params(substeps=8))
    windy = run(model, solver.Params(substeps=8, wind=(0.0, 6.0, 0.0)))
    assert abs(calm.positions[:, 1].mean()) < 1e-9  # no wind: it stays in its plane
    assert windy.positions[:, 1].mean() > 0.1  # blown along +Y
    assert np.isfinite(windy.positions).all()


def test_pressure_on_a_face_on_triangle_matches_the_formula():
    """F = ½ ρ C A w² along the normal, a third per corner: a = ½ ρ C w² / density, per corner."""
    density, wind = 0.15, 2.0
    model = solver.build_model([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]], density=density)
    state = model.initial_state()
    params = solver.Params(
        substeps=1,
        gravity=(0, 0, 0),
        damping=0.0,
        wind=(0, 0, wind),
        stretch_stiffness=0.0,
        shear_stiffness=0.0,
        bend_stiffness=0.0,
    )
    dt = 1e-3
    solver.step(model, state, params, dt)
    expected = 0.5 * 1.2 * 1.0 * wind**2 / density
    assert state.velocity(dt)[:, 2] == pytest.approx(np.full(3, expected * dt), rel=1e-9)
    assert state.velocity(dt)[:, :2] == pytest.approx(np.zeros((3, 2)), abs=1e-15)


def _push_on_moving_cloth(speed):
    """Velocity gained in one frame by a face-on cloth already moving at `speed` along the wind."""
    vertices, faces = solver.grid(6, 6)
    model = solver.build_model(vertices, faces)
    state = model.initial_state()
    dt = FRAME / 4
    state.previous[:, 2] -= speed * dt
    params = solver.Params(substeps=4, gravity=(0, 0, 0), damping=0.0, wind=(0, 0, 4.0))
    solver.step(model, state, params, FRAME)
    return state.velocity(dt)[:, 2].mean() - speed


def test_cloth_moving_with_the_wind_feels_less():
    still, half, along = (_push_on_moving_cloth(v) for v in (0.0, 2.0, 4.0))
    assert still > 0.5
    assert half < 0.4 * still  # quadratic in the relative wind: about a quarter
    assert abs(along) < 1e-9  # moving at the wind's speed: no force at all


def test_air_drag_brings_a_particle_to_the_wind_speed_exponentially():
    model = solver.build_model([[0.0, 0.0, 0.0]], mass=1.0)
    state = model.initial_state()
    params = solver.Params(gravity=(0, 0, 0), damping=0.0, wind=(3.0, 0, 0), air_drag=2.0, substeps=8)
    for _ in range(24):
        solver.step(model, state, params, FRAME)
    assert state.velocity(FRAME / 8)[0, 0] == pytest.approx(3.0 * (1 - np.exp(-2.0)), rel=1e-9)


def test_turbulence_is_deterministic_per_seed():
    model = hanging_cloth(16)
    a = run(model, solver.Params(substeps=4, wind=(0, 5.0, 0), turbulence=0.6, seed=1), frames=12)
    b = run(model, solver.Params(substeps=4, wind=(0, 5.0, 0), turbulence=0.6, seed=1), frames=12)
    c = run(model, solver.Params(substeps=4, wind=(0, 5.0, 0), turbulence=0.6, seed=2), frames=12)
    steady = run(model, solver.Params(substeps=4, wind=(0, 5.0, 0), seed=1), frames=12)
    assert np.array_equal(a.positions, b.positions) and np.array_equal(a.previous, b.previous)
    assert np.abs(a.positions - c.positions).max() > 1e-3
    assert np.abs(a.positions - steady.positions).max() > 1e-3
    assert a.time == pytest.approx(12 * FRAME)


def test_turbulence_noise_is_bounded_and_smooth():
    points = np.random.default_rng(0).uniform(-2, 2, (2000, 3))
    wind = np.array([4.0, 0.0, 0.0])
    noise = turbulence_noise(points, 1.0, wind, 1.0, seed=3)
    assert np.abs(noise).max() <= 1.0
    assert noise.std() > 0.1
    nearby = turbulence_noise(points + 1e-3, 1.0 + 1e-3, wind, 1.0, seed=3)
    assert np.abs(nearby - noise).max() < 0.05  # continuous in space and time


def test_extreme_wind_and_degenerate_faces_stay_finite():
    vertices = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 0], [2, 0, 0]], dtype=float)
    faces = [[0, 1, 2], [0, 3, 1], [1, 4, 1 + 0]]  # a normal, a zero-area and a sliver triangle
    model = solver.build_model(vertices, faces)
    state = model.initial_state()
    params = solver.Params(wind=(1e150, -1e150, 1e150), turbulence=1.0, air_drag=1e9, substeps=2)
    for _ in range(5):
        solver.step(model, state, params, FRAME)
    assert np.isfinite(state.positions).all() and np.isfinite(state.previous).all()
