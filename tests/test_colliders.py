"""Spheres and planes: no vertex ends inside, moving colliders push, friction is Coulomb."""

import numpy as np
import pytest

import solver
from solver import bounded_planes

FRAME = 1 / 24


def _drape(n=24, frames=48, **params):
    vertices, faces = solver.grid(n, n, size=2.0, height=1.5)
    model = solver.build_model(vertices, faces)
    sphere = solver.Sphere(center=(0, 0, 0.5), radius=0.5)
    floor = solver.Plane(point=(0, 0, 0))
    state = model.initial_state()
    p = solver.Params(**params)
    for _ in range(frames):
        solver.step(model, state, p, FRAME, colliders=[sphere, floor])
        assert solver.sphere_penetration(state.positions, (0, 0, 0.5), 0.5 + p.thickness) < 1e-9
        assert solver.plane_penetration(state.positions, (0, 0, p.thickness), (0, 0, 1)) < 1e-9
    return model, state


def test_cloth_drapes_over_sphere_onto_floor():
    model, state = _drape()
    x = state.positions
    centre = np.argmin(np.linalg.norm(model.rest_positions[:, :2], axis=1))
    assert x[centre, 2] == pytest.approx(1.0 + 0.005, abs=0.02)  # rests on top of the sphere
    corners = [0, 23, 552, 575]
    assert (x[corners, 2] < 0.3).all()  # the skirt has fallen towards the floor
    mean, _ = solver.stretch_summary(model, x)
    assert mean < 0.01


def test_fast_sphere_hitting_a_resting_cloth_pushes_it():
    vertices, faces = solver.grid(16, 16, size=1.0, height=0.0)
    model = solver.build_model(vertices, faces)
    state = model.initial_state()
    # One substep per frame, and the sphere jumps 1.2 m (twice its diameter) up through the cloth:
    # a test on end positions alone would miss the contact entirely.
    params = solver.Params(gravity=(0, 0, 0), substeps=1)
    c0, c1 = np.array([0, 0, -0.6]), np.array([0, 0, 0.6])
    sphere = solver.Sphere(center=c1, radius=0.3, center_start=c0)
    solver.step(model, state, params, FRAME, colliders=[sphere])
    assert solver.sphere_penetration(state.positions, c1, 0.3 + params.thickness) < 1e-9
    # The middle of the cloth was carried up on top of the sphere, not left behind below it.
    middle = np.linalg.norm(vertices[:, :2], axis=1) < 0.2
    assert (state.positions[middle, 2] > 0.6).all()


def test_moving_floor_lifts_cloth_without_tunnelling():
    vertices, faces = solver.grid(8, 8, size=1.0, height=0.1)
    model = solver.build_model(vertices, faces)
    state = model.initial_state()
    for frame in range(5):
        floor = solver.Plane(point=(0, 0, 0.3 * (frame + 1)), point_start=(0, 0, 0.3 * frame))
        solver.step(model, state, solver.Params(), FRAME, colliders=[floor])
    assert state.positions[:, 2].min() >= 1.5 - 1e-9


def test_finite_plane_only_holds_what_lands_on_it():
    model = solver.build_model([[0, 0, 0.5], [2, 0, 0.5]], mass=1.0)
    table = solver.Plane(point=(0, 0, 0), extent=np.array([[0.5, 0, 0], [0, 0.5, 0]]))
    state = model.initial_state()
    for _ in range(24):
        solver.step(model, state, solver.Params(), FRAME, colliders=[table])
    assert state.positions[0, 2] == pytest.approx(0.005, abs=1e-6)  # on the table top
    assert state.positions[1, 2] < -0.5  # beside the table, falls past it


@pytest.mark.parametrize(("friction", "slides"), [(0.0, True), (0.2, True), (0.8, False)])
def test_friction_on_an_incline_is_coulomb(friction, slides):
    """A block on a 30° slope (tan = 0.577) sticks only when the friction coefficient exceeds it."""
    angle = np.radians(30)
    normal = np.array([0.0, -np.sin(angle), np.cos(angle)])
    model = solver.build_model([normal * 0.0051], mass=1.0)
    slope = solver.Plane(point=(0, 0, 0), normal=normal)
    state = model.initial_state()
    params = solver.Params(friction=friction, damping=0.0)
    for _ in range(24):
        solver.step(model, state, params, FRAME, colliders=[slope])
    travelled = np.linalg.norm(state.positions[0] - model.rest_positions[0])
    assert (travelled > 0.05) == slides
    if friction == 0.0:
        # Frictionless: 1 s of slide along the slope covers about g sin(30°) t² / 2.
        assert travelled == pytest.approx(0.5 * 9.81 * 0.5, rel=0.05)


@pytest.mark.parametrize("collider", ["floor", "sphere"])
def test_cloth_found_within_the_thickness_is_set_out_without_being_launched(collider):
    # Pushing a vertex 8 mm out in one substep used to leave it 8 mm / substep (3 m/s) of upward
    # velocity: the cloth jumped ~0.4 m. The push that clears what was already there moves its start too.
    vertices, faces = solver.grid(8, 8, size=0.3, height=-0.003)  # 3 mm into the floor: 8 mm within the gap
    obstacle = solver.Plane(point=(0, 0, 0))
    if collider == "sphere":
        vertices[:, 2] += 1.0
        obstacle = solver.Sphere(center=(0, 0, 0.0), radius=1.0)
    model = solver.build_model(vertices, faces)
    state = model.initial_state()
    params = solver.Params()
    top = []
    for _ in range(6):
        solver.step(model, state, params, 1 / 24, colliders=[obstacle])
        top.append(state.positions[:, 2].max() - vertices[:, 2].max())
    assert max(top) < params.thickness + 0.005  # set on the surface, not thrown off it
    assert min(top) > params.thickness - 0.005


def test_a_sphere_appearing_around_a_resting_cloth_lifts_it_out_without_flinging_it():
    # A collider switched to a sphere that already holds the whole cloth (0.3-0.6 m deep): pushed out at
    # once, the cloth stretched 1.7x over the surface and left at 32 m/s, 4 m up after 8 frames.
    vertices, faces = solver.grid(13, 13, size=0.6, height=0.805)
    model = solver.build_model(vertices, faces)
    state = model.initial_state()
    params = solver.Params(substeps=16)
    centre, radius = np.array([0.0, 0.0, 0.4]), 0.69
    colliders = [solver.Plane(point=(0, 0, 0)), solver.Sphere(center=centre, radius=radius)]
    fastest = 0.0
    for _ in range(12):
        solver.step(model, state, params, FRAME, colliders=colliders)
        speed = np.linalg.norm(state.positions - state.previous, axis=1) * params.substeps / FRAME
        fastest = max(fastest, float(speed.max()))
    x = state.positions
    assert fastest < 3.0
    assert solver.sphere_penetration(x, centre, radius + params.thickness) < 1e-6  # out, resting on it
    assert x[:, 2].max() == pytest.approx(centre[2] + radius + params.thickness, abs=0.01)
    assert np.isfinite(x).all()


@pytest.mark.parametrize("weight", [0.5, 0.9])
def test_partial_pins_pulling_into_a_sphere_do_not_sink_the_cloth_into_it(weight):
    # Partial pins pull after the colliders each substep, so their vertices start the next one a little
    # inside; eased out like a sphere that appeared around them, they sank 51-77 mm in.
    vertices, faces = solver.grid(16, 16, size=1.0, height=0.9)  # the middle rests 0.1 m inside the sphere
    centre, radius = np.array([0.0, 0.0, 0.5]), 0.5
    model = solver.build_model(vertices, faces, pin_weight=np.full(len(vertices), weight))
    state = model.initial_state()
    params = solver.Params(substeps=16)
    deepest = 0.0
    for _ in range(24):
        solver.step(model, state, params, FRAME, colliders=[solver.Sphere(center=centre, radius=radius)])
        depth = radius + params.thickness - np.linalg.norm(state.positions - centre, axis=1)
        deepest = max(deepest, float(depth.max()))
    assert deepest < 0.01


@pytest.mark.parametrize("kind", ["quad", "fan disc"])
def test_cloth_over_a_bounded_planes_rim_does_not_cross_it(kind, monkeypatch):
    """A 1.2 m cloth draped over a 0.8 x 0.5 m bounded plane (a table top): no cloth edge passes through the
    rectangle. Its vertex-only pass had 42 (quad) / 384 (fan disc) edges from the top over the rim to the skirt
    hanging under it (round 23); with the switch on it collides as a two-triangle mesh (`solver.bounded_planes`)."""
    monkeypatch.setattr(bounded_planes, "BOUNDED_PLANES_AS_MESHES", True)  # off by default (round 23)
    if kind == "quad":
        v, f = solver.meshes.grid(16, 16, size=1.2, height=0.6)
    else:
        v, f = solver.meshes.fan_disc(24, 8, radius=0.6, height=0.6)
    model = solver.build_model(v, f)
    point, u, w = np.array([0.0, 0.0, 0.5]), np.array([0.4, 0.0, 0.0]), np.array([0.0, 0.25, 0.0])
    table = solver.Plane(point=point, extent=np.stack([u, w]))
    state = model.initial_state()
    edges = np.array(sorted({tuple(sorted((int(a[i]), int(a[i - 1])))) for a in f for i in range(len(a))}))
    worst = 0
    for _ in range(36):
        solver.step(model, state, solver.Params(), FRAME, colliders=[table])
        d = state.positions[:, 2] - 0.5
        a, b = d[edges[:, 0]], d[edges[:, 1]]
        cross = (a > 0) != (b > 0)
        t = (a[cross] / (a[cross] - b[cross]))[:, None]
        at = state.positions[edges[cross, 0]] * (1 - t) + state.positions[edges[cross, 1]] * t - point
        worst = max(worst, int(((np.abs(at @ u) < u @ u) & (np.abs(at @ w) < w @ w)).sum()))
    assert worst == 0, f"{worst} cloth edges through the bounded plane"
    middle = np.abs(model.rest_positions[:, :2]).max(axis=1) < 0.15  # (the skirt swings in under the board)
    z = state.positions[middle, 2]
    assert z.min() > 0.5 and z.max() < 0.6, "the middle rests on the plane (a fan disc's dense middle wrinkles)"
