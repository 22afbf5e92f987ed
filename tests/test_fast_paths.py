"""The grid storage and the general storage of the same physics, long-range limits and tethers."""

import numpy as np
import pytest
from solver_scenes import hanging_cloth, run

import solver
from solver import meshes
from solver.gridpath import detect_grid
from solver.topology import BEND, build_constraints

FRAME = 1 / 24


def _scrambled(vertices, faces, seed=3):
    """The same mesh with its vertices stored in a random order, as a subdivided plane is."""
    order = np.random.default_rng(seed).permutation(len(vertices))
    where = np.argsort(order)  # new index of every old vertex
    return vertices[order], where[faces], order


@pytest.mark.parametrize(("cols", "rows"), [(2, 2), (3, 5), (7, 4), (16, 16), (33, 20), (10, 11)])
def test_grid_topology_is_found_in_any_vertex_order(cols, rows):
    vertices, faces = solver.grid(cols, rows)
    model = solver.build_model(vertices, faces)
    assert model.grid is not None and model.grid.identity
    assert (model.grid.rows, model.grid.columns) == (rows, cols)
    used = np.concatenate([c.constraint.ravel() for c in model.grid.colours])
    assert np.array_equal(np.sort(used), np.arange(len(model.constraints.pairs)))  # each constraint once

    v2, f2, order = _scrambled(vertices, faces)
    scrambled = solver.build_model(v2, f2)
    grid = scrambled.grid
    assert grid is not None
    assert not grid.identity or rows * cols == 4  # a shuffled single quad may come out row-major again
    # Neighbouring grid slots hold neighbouring vertices of the original grid (up to a flip/transpose).
    slots = order[grid.order].reshape(grid.rows, grid.columns)
    r, c = np.divmod(slots, cols)
    steps = np.abs(np.diff(r, axis=1)) + np.abs(np.diff(c, axis=1))
    assert (steps == 1).all()


def test_colours_are_independent_sets():
    vertices, faces = solver.grid(13, 9)
    model = solver.build_model(*_scrambled(vertices, faces)[:2])
    pairs = model.constraints.pairs
    for colour in model.grid.colours:
        ends = pairs[colour.constraint.ravel()].ravel()
        assert len(np.unique(ends)) == len(ends)


def test_meshes_that_are_not_plain_grids_use_the_general_path():
    vertices, faces = solver.grid(6, 6)
    assert detect_grid(len(vertices), build_constraints(vertices, faces=faces)) is not None
    extra_edge = build_constraints(vertices, edges=[(0, 35)], faces=faces)
    assert detect_grid(len(vertices), extra_edge) is None
    triangles = np.concatenate([faces[:, [0, 1, 2]], faces[:, [0, 2, 3]]])
    assert not solver.build_model(vertices, triangles).grid.colours  # stored as a grid, not the quad grid's batches
    torn = solver.build_model(vertices, faces[1:])  # a missing quad
    assert torn.grid is None
    assert solver.build_model(vertices, triangles[1:]).grid is None  # a missing triangle
    assert solver.build_model(vertices, faces, grid_fast_path=False).grid is None
    disc, fan = solver.meshes.fan_disc(16, 3)
    assert solver.build_model(disc, fan).grid is None


def _split_quads(faces, seed=5):
    """Every quad split into two triangles along a random diagonal each (as Triangulate's Beauty may)."""
    flip = np.random.default_rng(seed).random(len(faces)) < 0.5
    first = np.where(flip[:, None], faces[:, [0, 1, 3]], faces[:, [0, 1, 2]])
    second = np.where(flip[:, None], faces[:, [1, 2, 3]], faces[:, [0, 2, 3]])
    return np.concatenate([first, second])


@pytest.mark.parametrize("jitter", [0.0, 0.3])
def test_triangulated_grid_is_stored_as_its_grid_in_any_vertex_order(jitter):
    cols, rows = 9, 6
    vertices, quads = solver.grid(cols, rows, size=1.0)
    inner = (np.arange(len(vertices)) % cols > 0) & (np.arange(len(vertices)) % cols < cols - 1)
    inner &= (np.arange(len(vertices)) >= cols) & (np.arange(len(vertices)) < len(vertices) - cols)
    vertices[inner, :2] += np.random.default_rng(1).uniform(-jitter, jitter, (inner.sum(), 2)) / cols
    v2, f2, order = _scrambled(vertices, _split_quads(quads))
    model = solver.build_model(v2, f2)
    grid = model.grid
    assert grid is not None and sorted((grid.rows, grid.columns)) == [rows, cols]
    slots = order[grid.order].reshape(grid.rows, grid.columns)
    r, c = np.divmod(slots, cols)
    assert (np.abs(np.diff(r, axis=1)) + np.abs(np.diff(c, axis=1)) == 1).all()  # neighbouring slots: a grid edge
    # Every projected distance constraint once (bends are curvature stencils: solver/bending.py), in
    # batches of independent pairs; rows and columns are strided views.
    pairs = model.constraints.pairs
    batches = [b for f in model.families if f.name in ("bending", "stretch") for b in getattr(f, "batches", ())]
    members = np.concatenate([b.member.ravel() for b in batches])
    assert np.array_equal(np.sort(members), np.flatnonzero(model.constraints.kind != BEND))
    for b in batches:
        ends = np.stack([b.vertex_a.ravel(), b.vertex_b.ravel()])
        assert (np.sort(pairs[b.member.ravel()], axis=1) == np.sort(ends.T, axis=1)).all()
        if not b.hub:
            assert len(np.unique(ends)) == ends.size
    strided = sum(b.member.size for b in model.family("stretch").batches if b.view is not None)
    assert strided >= rows * (cols - 1) + cols * (rows - 1)


def _drape(model, frames=48, params=None):
    sphere = solver.Sphere(center=(0, 0, 0.5), radius=0.5)
    floor = solver.Plane(point=(0, 0, 0))
    state = model.initial_state()
    params = params or solver.Params()
    for _ in range(frames):
        solver.step(model, state, params, FRAME, colliders=[sphere, floor])
    return state.positions


@pytest.mark.parametrize(("scramble", "triangulate"), [(False, False), (True, False), (True, True)])
def test_grid_and_general_paths_agree_on_the_physics(scramble, triangulate):
    vertices, faces = solver.grid(24, 24, size=2.0, height=1.5)
    if triangulate:
        faces = _split_quads(faces)
    if scramble:
        vertices, faces, _ = _scrambled(vertices, faces)
    fast = solver.build_model(vertices, faces)
    general = solver.build_model(vertices, faces, grid_fast_path=False)
    assert fast.grid is not None and general.grid is None
    # Both store the same constraints, long-range limits included; only the storage differs.
    x_fast, x_general = _drape(fast), _drape(general)
    for model, x in ((fast, x_fast), (general, x_general)):
        mean, worst = solver.stretch_summary(model, x)
        assert mean < 0.01 and worst < 0.15
        assert solver.sphere_penetration(x, (0, 0, 0.5), 0.5 + 0.005) < 1e-9
        assert solver.plane_penetration(x, (0, 0, 0.005), (0, 0, 1)) < 1e-9
    # The same drape: the paths only differ in the Gauss-Seidel order, which changes the folds, not the shape.
    assert x_fast[:, 2].mean() == pytest.approx(x_general[:, 2].mean(), abs=0.01)
    assert np.mean(x_fast[:, 2] < 0.02) == pytest.approx(np.mean(x_general[:, 2] < 0.02), abs=0.03)
    centre = int(np.argmin(np.linalg.norm(vertices[:, :2], axis=1)))
    assert x_fast[centre, 2] == pytest.approx(x_general[centre, 2], abs=0.01)


def test_grid_path_keeps_xpbd_stiffness_and_stretch_only():
    vertices, faces = solver.grid(4, 4, size=0.3)
    vertices = vertices[:, [0, 2, 1]]  # hanging in the XZ plane
    top = np.isclose(vertices[:, 2], vertices[:, 2].max())
    params = solver.Params(stretch_stiffness=50.0, shear_stiffness=5.0, damping=0.9, stretch_limit=float("inf"))
    sag = {}
    for fast in (True, False):
        model = solver.build_model(vertices, faces, pin_weight=top.astype(float), mass=0.5, grid_fast_path=fast)
        state = model.initial_state()
        for _ in range(24 * 6):
            solver.step(model, state, params, FRAME)
        sag[fast] = model.rest_positions[:, 2].min() - state.positions[:, 2].min()
    assert sag[True] > 0.01  # soft: it visibly stretches
    assert sag[True] == pytest.approx(sag[False], rel=0.05)

    for fast in (True, False):
        model = solver.build_model(vertices, faces, grid_fast_path=fast)
        state = model.initial_state()
        state.positions[:, 0] *= 0.5
        state.previous[:] = state.positions
        solver.step(
            model,
            state,
            solver.Params(gravity=(0, 0, 0), stretch_only=True, shear_stiffness=0, bend_stiffness=0),
            FRAME,
        )
        assert np.allclose(state.positions[:, 0], model.rest_positions[:, 0] * 0.5)  # squeezed, not pushed back


def _hang(n, **params):
    model = hanging_cloth(n)
    return model, run(model, solver.Params(**params), frames=72)


def test_tethers_remove_the_stretch_near_the_pins():
    model, state = _hang(20)
    assert model.tethers is not None
    mean, worst = solver.stretch_summary(model, state.positions)
    assert mean < 0.002 and worst < 0.02
    loose_model, loose_state = _hang(20, stretch_limit=float("inf"))
    _, loose = solver.stretch_summary(loose_model, loose_state.positions)
    assert loose > 5 * worst  # without them the corners overstretch
    # No vertex is farther from a pin than its tether allows.
    t = model.tethers
    distance = np.linalg.norm(state.positions[t.vertex][None] - state.positions[t.anchor], axis=2)
    assert (distance <= t.rest * 1.002).all()


def test_tether_rest_lengths_follow_a_curved_rest_shape():
    """A half-cylinder pinned along one straight edge may unroll: its tethers must allow that."""
    n = 16
    angle = np.linspace(0, np.pi, n)
    along = np.linspace(0, 1, n)
    a, z = np.meshgrid(angle, along)
    vertices = np.stack([np.cos(a).ravel() * 0.3, np.sin(a).ravel() * 0.3, z.ravel()], 1)
    _, faces = solver.grid(n, n)
    pins = np.isclose(angle[np.arange(n * n) % n], 0.0).astype(float)
    model = solver.build_model(vertices, faces, pin_weight=pins)
    t = model.tethers
    far = np.isclose(angle[t.vertex % n], np.pi)  # the opposite edge of the half-cylinder
    straight = np.linalg.norm(vertices[t.vertex][None] - vertices[t.anchor], axis=2)
    assert (t.rest[:, far] > 1.4 * straight[:, far]).all()  # arc length (0.3π) rather than chord (0.6)


def test_long_range_pairs_on_a_grid_are_its_rows_and_columns_as_strided_views():
    vertices, faces = solver.grid(48, 48, size=2.0, height=1.5)
    model = solver.build_model(vertices, faces)
    long_range = model.family("long_range")
    assert all(b.view is not None for b in long_range.batches)  # rows and columns: strided
    for k in (4, 16):
        pairs = long_range.pairs[long_range.span == k]
        r, c = np.divmod(pairs, 48)
        steps = np.sort(np.stack([np.abs(r[:, 0] - r[:, 1]), np.abs(c[:, 0] - c[:, 1])], 1), axis=1)
        assert (steps == [0, k]).all()
        assert len(pairs) == 2 * 48 * (48 - k)
    with_limits = _drape(model, frames=36)
    # One-sided: no pair ends farther apart than its rest distance along the cloth, up to the solver's slack.
    x = with_limits
    distance = np.linalg.norm(x[long_range.pairs[:, 0]] - x[long_range.pairs[:, 1]], axis=1)
    assert (distance <= long_range.rest * 1.05).all()


@pytest.mark.parametrize("anti", [False, True])
def test_long_range_diagonal_chains_of_a_triangulated_grid_are_strided_views_too(anti):
    """Every quad split the same way: the diagonals are straight edge chains, so the long-range pairs
    along them are k slots apart along the grid's diagonals (or anti-diagonals), and strided like its
    rows and columns; every pair in exactly one batch of independent pairs, in any vertex order."""
    n = 40
    vertices, quads = solver.grid(n, n, size=2.0, height=1.5)
    corners = [0, 1, 3] if anti else [0, 1, 2]
    rest = [1, 2, 3] if anti else [0, 2, 3]
    vertices, faces, order = _scrambled(vertices, np.concatenate([quads[:, corners], quads[:, rest]]))
    model = solver.build_model(vertices, faces)
    assert model.grid is not None
    long_range = model.family("long_range")
    assert all(b.view is not None for b in long_range.batches)
    members = np.concatenate([b.member.ravel() for b in long_range.batches])
    assert np.array_equal(np.sort(members), np.arange(len(long_range.pairs)))
    for b in long_range.batches:
        ends = np.stack([b.vertex_a.ravel(), b.vertex_b.ravel()])
        assert len(np.unique(ends)) == ends.size
        assert (np.sort(long_range.pairs[b.member.ravel()], axis=1) == np.sort(ends.T, axis=1)).all()
    for k in (4, 16):  # rows, columns and one diagonal direction: (n - k) pairs along each of n rows and
        assert (long_range.span == k).sum() == 2 * n * (n - k) + (n - k) ** 2  # columns, (n - k)² diagonals
    x = _drape(model, frames=36)
    distance = np.linalg.norm(x[long_range.pairs[:, 0]] - x[long_range.pairs[:, 1]], axis=1)
    assert (distance <= long_range.rest * 1.05).all()


@pytest.mark.parametrize(
    ("cols", "rows", "triangulate"), [(24, 24, False), (24, 24, True), (30, 17, False), (18, 30, True)]
)
def test_phantom_pairs_that_chain_a_strided_colour_move_nothing(cols, rows, triangulate):
    """A strided colour one pair short of its row's end is padded with a phantom pair per row (zero
    coefficients), so its rows chain into one run (pairs.chained_axis): the sweep moves every vertex
    exactly as on an unpadded buffer, torn and held too, and the workspace's padding stays zero."""
    from solver.workspace import Workspace

    vertices, quads = solver.grid(cols, rows, size=1.0)
    faces = meshes.triangulated(quads) if triangulate else quads
    model = solver.build_model(vertices, faces)
    assert model.layout.grid is not None
    n = model.vertex_count
    shaken = vertices + np.random.default_rng(0).normal(0, 0.02, vertices.shape)
    params = solver.Params(stretch_stiffness=1e3)
    broken = np.zeros(len(model.constraints.pairs), bool)
    broken[::37] = True
    held = np.where(np.arange(n) % 11 == 0, 0.0, model.inv_mass)

    def swept(padded: bool, override):
        work = Workspace(model.layout.order, n)
        if not padded:
            work.buffer = np.zeros((3, n), np.float32)  # no room after it: no phantoms
        families = [f.prepare(model, params, FRAME / 16, work, {}) for f in model.families]
        families = [f for f in families if f is not None and f.__class__.__name__ == "PreparedPairs"]
        chained = sum(co.pad is not None for f in families for co in f.coefficients)
        if override == "torn":
            families = [f.overridden(model.inv_mass, broken) for f in families]
        elif override == "held":
            families = [f.overridden(held, None) for f in families]
        work.load(shaken)
        before = work.buffer.copy()
        for family in families:
            family.project(work.buffer)
        if padded:
            assert not work.storage[3 * n :].any()
        assert np.abs(work.buffer - before).max() > 1e-4  # the shaken cloth was pulled together
        return work.buffer.copy(), chained

    for override in (None, "torn", "held"):
        (with_phantoms, chained), (without, none) = swept(True, override), swept(False, override)
        assert chained >= 1 and none == 0
        assert np.array_equal(with_phantoms, without)


def test_vertices_squeezed_under_a_resting_sphere_slide_out_along_the_floor():
    """Where a sphere rests on the floor, neither push alone can free a vertex: the floor lifts it into
    the sphere and the sphere pushes it into the floor. It must end outside both."""
    sphere = solver.Sphere(center=(0, 0, 0.5), radius=0.5)
    floor = solver.Plane(point=(0, 0, 0))
    points = np.array([[0.0, 0.0, 0.001], [0.003, -0.002, 0.002], [0.01, 0.0, 0.004]])
    model = solver.build_model(points, mass=0.01)  # loose vertices: nothing but the colliders moves them
    state = model.initial_state()
    params = solver.Params(gravity=(0, 0, 0))
    solver.step(model, state, params, FRAME, colliders=[sphere, floor])
    x = state.positions
    assert solver.sphere_penetration(x, (0, 0, 0.5), 0.5 + params.thickness) < 1e-6
    assert solver.plane_penetration(x, (0, 0, params.thickness), (0, 0, 1)) < 1e-9
    assert np.isfinite(x).all()


def test_a_colourings_tail_sets_project_as_one_split_batch_that_conserves_momentum():
    """The long-range colour sets left after the big ones (a few pairs each, at vertices on many paths)
    are one split batch: a vertex in several of its pairs moves by the mean of its copies' corrections,
    each copy acting with its inverse mass times its count, so momentum is kept and every pair is
    pulled in, as in a plain batch."""
    from solver.pairs import _kernel
    from solver.run import RunCache

    vertices, triangles = meshes.jittered_grid(48, size=2.0, height=1.5)
    model = solver.build_model(vertices, triangles)
    family = model.family("long_range")
    split = [b for b in family.batches if b.split]
    assert len(split) >= 1 and len(family.batches) <= 8  # 12 batches without
    ends = np.concatenate([split[0].vertex_a, split[0].vertex_b])
    assert len(np.unique(ends)) < len(ends)  # vertices repeat in it
    params = solver.Params()
    run = RunCache(model, params, FRAME / params.substeps)
    prepared = next(f for f in run.families if getattr(f, "batches", None) is family.batches)
    co = next(c for c in prepared.coefficients if c.batch.split)
    x = model.rest_positions * [1.03, 1.03, 1.0] + np.random.default_rng(0).normal(0.0, 2e-3, (model.vertex_count, 3))
    before = x.copy()
    run.workspace.load(x)
    _kernel(co, run.workspace.buffer)()
    run.workspace.store(x)
    moved = x - before
    touched = np.unique(ends)
    assert np.abs(moved).max() > 1e-3 and np.abs(np.delete(moved, touched, axis=0)).max() == 0.0
    momentum = (model.mass[:, None] * moved).sum(axis=0)
    assert np.abs(momentum).max() < 1e-6 * (model.mass[:, None] * np.abs(moved)).sum()
    pairs, limit = family.pairs[co.batch.member], prepared.rest[co.batch.member]

    def excess(p):
        return np.maximum(np.linalg.norm(p[pairs[:, 0]] - p[pairs[:, 1]], axis=1) - limit, 0.0)

    assert excess(before).sum() > 0.05
    assert excess(x).sum() < 0.6 * excess(before).sum()
    assert (excess(x) <= excess(before) + 1e-6).all()


@pytest.mark.parametrize("triangulate", [False, True])
def test_small_cloth_call_cuts_give_the_same_positions_bit_for_bit(monkeypatch, triangulate):
    """A small cloth's fewer-call paths (round 27: the strided batches' broadcast update, the workspace's block copy)
    end where the column-by-column and three-call paths do, to the last bit (a swinging, pinned 12² cloth: the
    tethers, long-range limits and stretch all act)."""
    from solver import pairs, workspace

    vertices, faces = meshes.grid(12, 12, size=1.0, height=1.0)
    if triangulate:
        faces = meshes.triangulated(faces)
    top = vertices[:, 1] >= vertices[:, 1].max() - 1e-9
    model = solver.build_model(vertices, faces, pin_weight=top.astype(float))
    params = solver.Params(gravity=(2.0, 0.0, -9.81))
    assert pairs.BROADCAST_UPDATE_BELOW > 12 * 12 and workspace.BLOCK_BELOW > 12 * 12  # the small paths run
    small = run(model, params, frames=6).positions
    monkeypatch.setattr(pairs, "BROADCAST_UPDATE_BELOW", 0)
    monkeypatch.setattr(workspace, "BLOCK_BELOW", 0)
    general = run(model, params, frames=6).positions
    assert np.isfinite(small).all() and np.abs(small - vertices).max() > 0.05  # it moved
    assert np.array_equal(small, general)
