"""Bending (solver/bending.py): isometric curvature stencils toward the rest shape."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import solver
from solver import meshes

FRAME = 1 / 24


def _grid(n, size, triangulate, height=1.0):
    vertices, quads = solver.grid(n, n, size=size, height=height)
    return vertices, meshes.triangulated(quads) if triangulate else quads


@pytest.mark.parametrize("triangulate", [False, True])
def test_a_checkerboard_ripple_flattens_out(triangulate):
    """A flat sheet in zero gravity with every other vertex 3 mm up: bending removes the ripple.

    Distance pairs across a bend (the previous model) feel such a ripple only at second order
    (their length changes by ~δ²/h), so it cost them nothing; without bending it stays too."""
    vertices, faces = _grid(16, 1.0, triangulate)
    row, column = np.divmod(np.arange(len(vertices)), 16)
    sign = np.where((row + column) % 2 == 0, 1.0, -1.0)

    def ripple(bend):
        model = solver.build_model(vertices, faces)
        state = model.initial_state()
        state.positions[:, 2] += 0.003 * sign
        state.previous[...] = state.positions
        params = solver.Params(gravity=(0, 0, 0), bend_stiffness=bend)
        for _ in range(12):
            solver.step(model, state, params, FRAME)
        z = state.positions[:, 2]
        return abs(np.mean((z - z.mean()) * sign)) / 0.003  # what is left of the checkerboard

    assert ripple(2.0) < 0.01  # 0.000 measured (quad and triangulated)
    assert ripple(0.0) > 0.1  # 0.30 quad, 0.12 triangulated


def _panel(radius, angle, n=12, length=0.3):
    a, x = np.meshgrid(np.linspace(0, angle, n), np.linspace(-length / 2, length / 2, n))
    vertices = np.stack([x.ravel(), radius * np.sin(a).ravel(), 1.0 + radius * (1 - np.cos(a)).ravel()], 1)
    return vertices, a.ravel()


@pytest.mark.parametrize("triangulate", [False, True])
def test_a_curved_panel_springs_back_to_its_rest_curve(triangulate):
    """A quarter cylinder (r = 0.3 m) opened to a shallower arc of the same length (r = 0.6 m, 45°), in
    zero gravity: bending toward the REST shape curls it back (chord 0.424 m at rest, 0.459 m opened)."""
    rest, angle = _panel(0.3, np.pi / 2)
    opened, _ = _panel(0.6, np.pi / 4)
    _, quads = solver.grid(12, 12)
    model = solver.build_model(rest, meshes.triangulated(quads) if triangulate else quads)

    def chord(bend, flat_rest=False):
        used = model
        if flat_rest:  # the stencils' rest curvature dropped: bending toward flat, as in Bergou's model
            family = model.family("bending")
            flat = type(family)(tuple(replace(g, rest=np.zeros_like(g.rest)) for g in family.groups))
            used = replace(model, families=tuple(flat if f is family else f for f in model.families))
        state = used.initial_state()
        state.positions[...] = opened
        state.previous[...] = opened
        params = solver.Params(gravity=(0, 0, 0), damping=0.5, bend_stiffness=bend)
        for _ in range(48):
            solver.step(used, state, params, FRAME)
        x = state.positions
        return np.linalg.norm(x[np.isclose(angle, 0)] - x[np.isclose(angle, np.pi / 2)], axis=1).mean()

    assert chord(2.0) < 0.445  # 0.432 quad, 0.438 triangulated
    assert chord(0.0) > 0.455  # stays opened
    assert chord(2.0, flat_rest=True) > 0.465  # flattens: 0.469-0.470


def cap_angle(x, faces, centre=(0.0, 0.0, 0.5), radius=0.5):
    """Mean angle (degrees) between neighbouring triangles resting on the sphere's upper half."""
    a, b, c = (x[faces[:, k]] for k in range(3))
    normal = np.cross(b - a, c - a)
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    offset = (a + b + c) / 3 - centre
    on_cap = (np.abs(np.linalg.norm(offset, axis=1) - radius) < 0.05) & (offset[:, 2] > 0)
    edges = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]), axis=1)
    owner = np.tile(np.arange(len(faces)), 3)
    key = edges[:, 0] * len(x) + edges[:, 1]
    order = np.argsort(key, kind="stable")
    key, owner = key[order], owner[order]
    shared = np.flatnonzero(key[1:] == key[:-1])
    f, g = owner[shared], owner[shared + 1]
    both = on_cap[f] & on_cap[g]
    cosine = np.clip(np.abs(np.einsum("ij,ij->i", normal[f[both]], normal[g[both]])), 0, 1)
    return float(np.degrees(np.arccos(cosine)).mean())


def test_a_triangulated_drape_rests_smoothly_on_the_sphere():
    """The 32² triangulated drape of `make bench`: Blender's Cloth rests at ~10.1° between neighbouring
    faces on the cap; the previous bending model (far-vertex distance pairs) at 12.9°, no bending ~11°."""
    vertices, faces = _grid(32, 2.0, True, height=1.5)
    model = solver.build_model(vertices, faces)
    colliders = [solver.Sphere(center=(0, 0, 0.5), radius=0.5), solver.Plane(point=(0, 0, 0))]

    def angle(bend):
        state = model.initial_state()
        params = solver.Params(bend_stiffness=bend)
        for _ in range(48):
            solver.step(model, state, params, FRAME, colliders)
        return cap_angle(state.positions, faces)

    assert angle(2.0) < 10.5  # 9.8 measured


def test_bending_stops_across_a_tear_and_holds_grabbed_vertices_still():
    """Stencils across a broken edge are switched off (a cut strip's halves fold apart freely), and a
    grab's held vertices (inverse mass 0) are not moved by bending."""
    vertices, faces = _grid(8, 0.4, True)
    model = solver.build_model(vertices, faces)
    family = model.family("bending")
    run = family.prepare(model, solver.Params(), FRAME / 10, type("W", (), {"buffer": np.zeros((3, 64))})())
    cut = np.abs(vertices[model.constraints.pairs[:, 0], 0] + vertices[model.constraints.pairs[:, 1], 0]) < 1e-9
    broken = cut.copy()
    torn = run.overridden(model.inv_mass, broken)
    on = [np.abs(p.scaled).sum(axis=0) > 0 for p in torn.groups]
    across = [
        ((p.group.constraints >= 0) & broken[np.maximum(p.group.constraints, 0)]).any(axis=0) for p in torn.groups
    ]
    assert all(not (o & a).any() for o, a in zip(on, across)) and any(a.any() for a in across)
    held = np.zeros(len(vertices), bool)
    held[:8] = True
    grabbed = run.overridden(np.where(held, 0.0, model.inv_mass), None)
    buffer = (vertices.T + np.random.default_rng(0).normal(0, 0.01, (3, len(vertices)))).astype(np.float32)
    before = buffer.copy()
    grabbed.project(buffer)
    assert np.array_equal(buffer[:, held], before[:, held]) and not np.array_equal(buffer, before)


def _one_projection(model, rest, uses):
    """moved(on, override): how one bending projection moves a shaken `rest` shape, with the fast forms
    (on: as the solver runs, asserting `uses(run)`) or every stencil gathered (`PreparedBending(..., fast=False)`),
    as is or with torn edges ("torn") or held vertices ("held")."""
    from solver.bending import PreparedBending

    family = model.family("bending")
    n = len(rest)
    slots = model.layout.slot_of
    shaken = rest + np.random.default_rng(0).normal(0, 0.01, rest.shape)
    broken = np.zeros(len(model.constraints.pairs), bool)
    broken[np.random.default_rng(2).choice(len(broken), 20, replace=False)] = True
    held = np.zeros(n, bool)
    held[::7] = True

    def moved(on: bool, override=None):
        buffer = np.zeros((3, n), np.float32)
        run = family.prepare(model, solver.Params(), FRAME / 10, type("W", (), {"buffer": buffer})())
        if not on:
            run = PreparedBending(family, run.compliance, slots, n, model.inv_mass, fast=False)
        assert uses(run) == on
        if override == "torn":
            run = run.overridden(model.inv_mass, broken)
        elif override == "held":
            run = run.overridden(np.where(held, 0.0, model.inv_mass), None)
        buffer[:, slots] = shaken.T
        before = buffer.copy()
        run.project(buffer)
        return (buffer - before)[:, slots]

    return moved


def _projects_alike(moved) -> None:
    for override in (None, "torn", "held"):
        reference, fast = moved(False, override), moved(True, override)
        assert np.abs(reference).max() > 1e-4  # the shaken shape is bent
        np.testing.assert_allclose(fast, reference, rtol=0, atol=1e-6)


@pytest.mark.parametrize("scrambled", [False, True])
def test_strided_grid_paths_project_as_the_gathered_stencils(scrambled):
    """On a quad grid's workspace the path stencils run on strided views (solver/grid_bending.py):
    one projection moves every vertex as the gathered stencils do, to float32 rounding, for a curved
    rest shape (the quarter cylinder), any vertex order, with torn edges and with held vertices."""
    rest, _ = _panel(0.3, np.pi / 2)
    _, quads = solver.grid(12, 12)
    quads = np.asarray(quads)
    if scrambled:
        order = np.random.default_rng(1).permutation(len(rest))
        rest, quads = rest[order], np.argsort(order)[quads]
    model = solver.build_model(rest, quads)

    def strided(run) -> bool:  # a quad grid: paths only, all strided or none
        on = {p.grid is not None for p in run.groups}
        assert len(on) == 1
        return on.pop()

    _projects_alike(_one_projection(model, rest, strided))


@pytest.mark.parametrize("kind", ["irregular", "fan", "half_cylinder"])
def test_flat_stencils_as_one_sparse_operator_project_as_the_gathered_stencils(kind):
    """Flat stencils (zero rest curvature) run as one sparse operator (solver/linear_bending.py): one
    projection moves every vertex as the per-stencil form does, to float32 rounding, on an irregular
    triangle mesh, a fan disc (its centre in 128 stencils: the rows beyond the table) and a curved
    rest shape (its flat stencils linear, the curved ones not), with torn edges and held vertices.
    On the jittered grid (a grid layout) the operator reads its neighbours as 25 shifted grids (a
    sliding window), elsewhere from its table."""
    if kind == "irregular":
        rest, faces = meshes.jittered_grid(14, size=1.0)
    elif kind == "fan":
        rest, faces = meshes.fan_disc(64, 3, radius=0.5)
    else:
        rest, _ = _panel(0.3, np.pi / 2)
        faces = meshes.triangulated(np.asarray(solver.grid(12, 12)[1]))  # flat diagonal hinges, curved others
    model = solver.build_model(rest, faces)
    windowed = kind != "fan"  # the panel's 12² triangulated grid is a grid layout too

    def uses(run):
        return run.linear is not None and (run.linear.window is not None) == windowed

    moved = _one_projection(model, rest, uses)
    _projects_alike(moved)


def test_a_mesh_whose_stencils_are_all_degenerate_steps_and_stays_finite():
    # Found by tests/test_robustness.py's search: four vertices at one point, a repeated triangle.
    # A gathered stencil group with no stencil left had no contributions buffer and the sweep failed.
    model = solver.build_model(np.zeros((4, 3)), [[0, 1, 2], [0, 1, 2], [0, 1, 3]], [])
    state = model.initial_state()
    for substeps in (1, 3):
        solver.step(model, state, solver.Params(stretch_stiffness=1.0, damping=0.0, substeps=substeps), 1 / 24)
    assert np.isfinite(state.positions).all()
