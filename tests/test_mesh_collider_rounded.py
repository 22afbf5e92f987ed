"""Cloth edges lying round a still collider's rounded bends (issue 11, round 13 (rounded16)): a cloth edge of
length L lying round a bend of radius R dips L² / (8 R) between its ends, held at the gap from the faces, so a
coarse cloth's edges cut through a torus whose faces meet far under the sharp angle. The rounded rule makes
such bends sharp; its radius comes from the vertex normals round each edge, so a metaball's slivers do not read
as tight bends (tests/test_blender_curve_colliders.py's metaball)."""

import numpy as np
import pytest
from solver_scenes import torus
from test_mesh_collider_swinging_legs import edges_through

import solver
from solver import meshes


def _cloth(kind: str, n: int, height: float, size: float = 2.0):
    if kind == "irregular":
        return meshes.jittered_grid(n, size=size, height=height)
    if kind == "holed":
        return meshes.holed_grid(n, size=size, height=height, centre=(0.2, 0.1), radius=0.2)
    if kind == "fan":
        return meshes.fan_disc(36, n // 2, radius=size / 2, height=height)
    vertices, faces = meshes.grid(n, n, size=size, height=height)
    return vertices, meshes.triangulated(faces) if kind == "triangulated" else faces


def _drop(vertices, triangles, cloth, faces, frames: int):
    """The cloth dropped onto the still collider (and the floor) for `frames` frames: its model, its state at
    the end and the cloth edges through the collider's triangles at each frame."""
    model = solver.build_model(cloth, faces)
    state, params = model.initial_state(), solver.Params()
    colliders = [solver.MeshCollider(vertices, triangles), solver.Plane(point=(0, 0, 0))]
    edges, through = model.cloth_edges[0], []
    for _ in range(frames):
        solver.step(model, state, params, 1 / 24, colliders=colliders)
        through.append(edges_through(state.positions, edges, vertices, triangles))
    return model, state, through


@pytest.mark.parametrize(("kind", "landing"), [("quad", 0), ("triangulated", 0), ("irregular", 2), ("holed", 1)])
def test_a_coarse_cloth_on_a_still_torus_never_has_an_edge_through_it(kind, landing):
    """landing: edges through at a frame of the landing (at 2.3 m/s; the windowed pass, not the rule), none after."""
    vertices, triangles = torus()
    _, state, through = _drop(vertices, triangles, *_cloth(kind, 16, 1.0), 36)
    # Without the rounded rule on still meshes (edge_contacts.ROUNDED_AROUND False): 97-112 edges through the
    # torus at worst (its 13-19 cm edges dip 9-18 mm round its 25 cm tube, kept 5 mm off it), from frame 8 on.
    assert max(through) <= landing and max(through[20:]) == 0, through
    assert state.positions[:, 2].max() > 0.45  # resting on the torus (its top at 0.5)


def test_a_jittered_cloth_on_a_rising_bump_of_an_open_ground_never_has_an_edge_through_it():
    """bench/edges_through_deforming.py's bump, irregular cloth: a Gaussian bump (sigma 0.2 m) rises 0.35 m in 8
    frames under a 1.6 m 40² cloth jittered in its plane. Its top bends round 11-13 cm; the cloth's longest edges
    (6.7-8.8 cm) dip 7-8 mm there, more than the 5 mm gap, and the ground is open (no outside): the rounded rule for
    open meshes (edge_contacts.OPEN_ROUNDED) makes those bends sharp (docs/design.md, round 15 (bump18))."""
    ground, quads = meshes.grid(48, 48, size=2.4, height=0.0)
    triangles = meshes.triangulated(quads)
    bump = np.exp(-(ground[:, 0] ** 2 + ground[:, 1] ** 2) / (2 * 0.2**2))

    def shape(frame: int) -> np.ndarray:
        out = ground.copy()
        out[:, 2] += 0.35 * np.clip((frame - 4) / 8, 0.0, 1.0) * bump
        return out

    cloth, faces = meshes.grid(40, 40, size=1.6, height=0.01)
    jitter = np.random.default_rng(5).uniform(-0.3, 0.3, cloth.shape) * (1.6 / 39)
    jitter[:, 2] = 0.0
    cloth, faces = cloth + jitter, meshes.triangulated(faces)
    model = solver.build_model(cloth, faces)
    edge = float(np.median(np.linalg.norm(cloth[faces[:, 0]] - cloth[faces[:, 1]], axis=1)))
    params = solver.Params(substeps=solver.params.auto_substeps(1 / 24, edge), substeps_follow_motion=True)
    state, edges, through = model.initial_state(), model.cloth_edges[0], []
    for frame in range(2, 25):
        start, end = shape(frame - 1), shape(frame)
        collider = solver.MeshCollider(end, triangles, mesh_start=start)
        solver.step(model, state, params, 1 / 24, colliders=[collider, solver.Plane(point=(0, 0, 0))])
        through.append(edges_through(state.positions, edges, end, triangles))
    # With OPEN_ROUNDED False: 26 edges through over the run, 2-3 at a frame from frame 14 on.
    assert max(through) == 0, through
    middle = np.argmin(np.linalg.norm(state.positions[:, :2], axis=1))
    assert state.positions[middle, 2] > 0.34  # lifted with the bump (0.35 m at its peak)


@pytest.mark.parametrize("kind", ["quad", "triangulated"])
def test_a_coarse_cloth_on_a_smooth_open_dome_stays_on_it_with_few_edges_through(kind):
    """A 1.2 m 12² cloth dropped 10 cm off centre onto an open 12 x 4 dome of r 0.5 (its faces meet at 22.5-30°):
    its 11-15 cm edges dip 3-6 mm round the dome, kept 5 mm off it. The open rounded rule makes the whole dome
    sharp, and its contacts brake the cloth's own slide (edge_contacts.BRAKED_EDGES) as the faces would."""
    vertices, triangles = meshes.open_dome()
    cloth, faces = meshes.grid(12, 12, size=1.2, height=0.55)
    cloth[:, 0] += 0.1
    if kind == "triangulated":
        faces = meshes.triangulated(faces)
    _, state, through = _drop(vertices, triangles, cloth, faces, 29)
    # With OPEN_ROUNDED False: 740-906 edges through over the run (50-57 at a frame); with BRAKED_EDGES False
    # the cloth slid off the dome (its middle 0.34-0.93 m from where it landed).
    assert sum(through) < 200, through
    middle = np.argmin(np.linalg.norm(cloth[:, :2] - (0.1, 0.0), axis=1))
    assert np.linalg.norm(state.positions[middle, :2] - cloth[middle, :2]) < 0.1
    assert state.positions[middle, 2] > 0.45  # on the dome's top (0.5)


@pytest.mark.parametrize("kind", ["quad", "triangulated", "irregular", "holed", "fan"])
def test_a_cloth_on_an_open_domes_ridges_and_pole_never_has_an_edge_through_it(kind):
    """A 2 m 24² cloth (a 36-spoke fan disc) dropped centred onto the open 12 x 4 dome of r 0.5. Its 8.7-12.3 cm
    edges dip only 2-4 mm round the dome's r 0.5 (under the gap: no rounded bend), but across a 22.5-29° ridge
    between two wide faces, both ends 5 mm off their faces, a cloth edge dips (L / 2) tan(θ / 2) = 9-16 mm under
    it (edge_contacts.SHALLOW_RIDGES), and the pole's 12 faces turn 11° from it, 6° between neighbours: the cloth's
    middle cell lay across it and it came through (SHALLOW_APEXES; docs/design.md, round 16 (dome19))."""
    vertices, triangles = meshes.open_dome()
    cloth, faces = _cloth(kind, 24, 0.55)
    _, state, through = _drop(vertices, triangles, cloth, faces, 29)
    # With SHALLOW_RIDGES and SHALLOW_APEXES False: 91-9,611 edges through over the run (6-449 at a frame, from the
    # landing to the end); with SHALLOW_APEXES False: quad, triangulated, holed 1 at a frame (the pole), irregular 3-4.
    assert max(through) == 0, through
    middle = np.argmin(np.linalg.norm(cloth[:, :2], axis=1))
    assert np.linalg.norm(state.positions[middle, :2] - cloth[middle, :2]) < 0.1
    assert state.positions[middle, 2] > 0.48  # on the dome's top (0.5)


@pytest.mark.parametrize("kind", ["quad", "triangulated", "irregular", "holed", "fan"])
def test_a_cloth_on_a_low_poly_ball_rests_on_it_with_no_edge_through_it(kind):
    """A 1.4 m 20² cloth (a 36-spoke fan disc) dropped 1-2 cm off centre onto a closed icosphere of 80 triangles
    (r 0.4): its faces meet at 20-28°, under SHARP_ANGLE, and the ball is too wide for the rounded rule, but a
    7 cm cloth edge across such a ridge, its ends the gap off their faces, dips 7 mm under it: the closed mesh's
    convex ridges are sharp by the shallow ridges' rule (edge_contacts.SHALLOW_RIDGES, CLOSED_RIDGES) and braked."""
    through = _on_a_low_poly_ball(kind, 1)
    # With CLOSED_RIDGES False: 31-278 edges through at every frame from the landing on (up to 11 mm deep,
    # bench/lowpoly_spheres.py); with its ridges unbraked (SharpEdges.braked empty) the irregular, holed and fan
    # cloths slid off the top (their middles 0.3-0.35 m away).
    assert max(through) <= 2 and max(through[24:]) == 0, through


@pytest.mark.parametrize("kind", ["quad", "triangulated", "irregular", "holed", "fan"])
def test_a_cloth_on_a_320_triangle_ball_has_no_edge_through_its_vertices(kind):
    """The same cloth on the icosphere of 320 triangles: its faces meet at ~12° and its vertices turn ~10°, so
    only its apexes matter, and a 10.4 cm cloth edge (the grid's diagonal) across one, its ends the gap (5 mm) off
    the faces, dips 9.0-9.7 mm under it: sharp by edge_contacts.CLOSED_APEX_GAP (1.5 gaps), not by the closed
    apexes' own max(gap, L / 6) (17 mm for such a cloth). The fan disc's longest edges (7.1 cm) dip 6.3 mm: sharp by
    CLOSED_APEX_NEAR (1 gap) for its cloth edges over 6.4-6.8 cm alone (2-31 of its edges through from frame 3
    without)."""
    through = _on_a_low_poly_ball(kind, 2)
    # With CLOSED_APEX_GAP 0: 3-46 edges through at every frame from frame 4 (8-25 from frame 12), the four grids.
    assert max(through) <= 2 and max(through[12:]) == 0, through


def _on_a_low_poly_ball(kind: str, subdivisions: int) -> list[int]:
    """A 1.4 m 20² cloth of `kind` dropped 1-2 cm off centre onto an icosphere (r 0.4, `subdivisions`) for 36
    frames: the cloth edges through it at each frame, once the cloth's middle is checked to rest on its top."""
    vertices, triangles = meshes.icosphere(subdivisions, 0.4, (0.0, 0.0, 0.4))
    cloth, faces = _cloth(kind, 20, 0.9, size=1.4)
    cloth = cloth + (0.013, 0.021, 0.0)
    _, state, through = _drop(vertices, triangles, cloth, faces, 36)
    middle = np.argmin(np.linalg.norm(cloth[:, :2] - (0.013, 0.021), axis=1))
    assert np.linalg.norm(state.positions[middle, :2] - cloth[middle, :2]) < 0.1
    assert state.positions[middle, 2] > 0.78  # on the ball's top (0.8)
    return through
