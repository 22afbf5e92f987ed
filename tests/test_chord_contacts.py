"""Long cloth edges chording a smooth closed mesh at rest (issue 11, round 23 (chord23)): a cloth edge of length L
whose ends rest the gap g over a surface of radius R dips L² / (8R) between them; past g it cuts into the collider
with no vertex inside. solver/chord_contacts.py (CHORD_PASS, off by default) keeps such edges' middles the gap off
(on meshes with bends under CHORD_BEND_MOST)."""

import numpy as np
import pytest
from solver_scenes import edges_through

import solver
from solver import chord_contacts, meshes


def _torus(major=0.6, minor=0.25, segments=192, rings=48, height=0.25):
    """bench/mesh_kinds_solver.py's torus (faces meeting at 1.9-7.5°: no sharp or rounded edge for a coarse cloth)."""
    u, v = np.meshgrid(
        np.arange(segments) * (2 * np.pi / segments), np.arange(rings) * (2 * np.pi / rings), indexing="ij"
    )
    radius = major + minor * np.cos(v)
    vertices = np.stack([radius * np.cos(u), radius * np.sin(u), minor * np.sin(v) + height], -1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(segments), np.arange(rings), indexing="ij")
    i1, j1 = (i + 1) % segments, (j + 1) % rings
    a, b, c, d = i * rings + j, i1 * rings + j, i1 * rings + j1, i * rings + j1
    return vertices, np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)])


@pytest.mark.parametrize("kind", ["triangulated", "quad"])
def test_a_coarse_cloth_resting_on_a_smooth_torus_has_no_edge_through_it_with_the_chord_pass(kind, monkeypatch):
    """A 1.8 m 24² cloth dropped from 22 cm onto the smooth torus (tube r 0.25): its 11 cm diagonals dip ~1 mm past
    the 5 mm gap round the tube (L² / 8R = 6.1 mm)."""
    monkeypatch.setattr(chord_contacts, "CHORD_PASS", True)
    vertices, triangles = _torus()
    cloth, faces = meshes.grid(24, 24, size=1.8, height=0.72)
    if kind == "triangulated":
        faces = meshes.triangulated(faces)
    cloth = cloth + (0.011, 0.023, 0.0)
    model = solver.build_model(cloth, faces)
    state, params = model.initial_state(), solver.Params()
    colliders = [solver.MeshCollider(vertices, triangles), solver.Plane(point=(0, 0, 0))]
    edges, through = model.cloth_edges[0], []
    for _ in range(48):
        solver.step(model, state, params, 1 / 24, colliders=colliders)
        through.append(edges_through(state.positions, edges, vertices, triangles))
    # With CHORD_PASS False: triangulated 35, quad 38 edges through at frame 48-72 (bench/chord_dips.py). (The fan
    # disc keeps 1-3 through from frame 34 on: its centre vertex shares 32 spokes, the pushes averaged over them.)
    assert max(through[24:]) == 0, through
    rest = model.rest_positions
    strain = np.linalg.norm(np.diff(state.positions[edges], axis=1)[:, 0], axis=1) / np.linalg.norm(
        np.diff(rest[edges], axis=1)[:, 0], axis=1
    )
    assert strain.max() < 1.15
    assert state.positions[:, 2].max() > 0.5  # resting on the torus (its top at 0.5)


def test_the_chord_pass_leaves_a_low_poly_balls_ridges_to_the_ridge_and_apex_rules(monkeypatch):
    """tests/test_mesh_collider_apexes.py's jittered 20² cloth on the 80-triangle icosphere's top vertex (faces
    meeting at ~20°), with the chord pass on: no edge through after the landing. With CHORD_BEND_MOST 30 (round 23's
    smooth band, up to SHARP_ANGLE) the pass took those ridges for a smooth ball of radius ~0.1 m and fought the
    ridge and apex rules: 6 edges through at frame 14 (round 24 (chord24))."""
    from test_mesh_collider_apexes import (
        test_an_irregular_cloth_on_an_80_triangle_balls_top_vertex_has_no_edge_under_it,
    )

    monkeypatch.setattr(chord_contacts, "CHORD_PASS", True)
    test_an_irregular_cloth_on_an_80_triangle_balls_top_vertex_has_no_edge_under_it((0.013, 0.021), monkeypatch)


def _moved_by_the_pass(cloth, faces, lies_on, monkeypatch):
    """One chord pass (no step) over `cloth` against a 0.2 m ball (a spherified 24-cube: 3.75° bends) at the origin:
    how many cloth vertices it moved."""
    monkeypatch.setattr(chord_contacts, "CHORD_PASS", True)
    monkeypatch.setattr(chord_contacts, "CHORD_LIES_ON", lies_on)
    quads_v, quads = meshes.box(24)
    ball = quads_v / np.linalg.norm(quads_v, axis=1, keepdims=True) * 0.2
    model = solver.build_model(cloth, faces)
    x = model.rest_positions.copy()
    before = x.copy()
    inv_mass = np.ones(len(x))
    collider = solver.MeshCollider(ball, meshes.triangulated(quads))
    chord_contacts.collide_chords(x, x.copy(), inv_mass, model, [collider], 0.0, 1.0, solver.Params().thickness)
    return int((np.abs(x - before).max(axis=1) > 0.0).sum())


def test_the_chord_pass_leaves_a_cloth_crossing_the_mesh_steeply_and_pushes_one_lying_on_it(monkeypatch):
    """CHORD_LIES_ON (round 26 (chordlies_r26)): a middle is pushed only where the cloth's normal at its edge is within
    acos(CHORD_LIES_ON) of the surface's. A vertical curtain cut through the ball (as one a ball appears round: its
    middles near the ball's surface were pushed along the curtain's own plane and flung it, 0.35-0.40 m, round 25) is
    left alone; a cap lying on the ball at the gap (its 7 cm edges dipping ~3 mm into the gap) is pushed. With
    CHORD_LIES_ON 0 the curtain's vertices are pushed too (asserted: the scene reaches the pass)."""
    v, quads = meshes.grid(9, 9, size=0.56)
    curtain = np.stack([v[:, 0], np.full(len(v), 0.05), v[:, 1]], axis=1)  # (5 cm off the centre)
    faces = meshes.triangulated(quads)
    assert _moved_by_the_pass(curtain, faces, 0.0, monkeypatch) > 0
    assert _moved_by_the_pass(curtain, faces, 0.9, monkeypatch) == 0
    u, quads = meshes.grid(5, 5, size=0.28)
    direction = np.stack([u[:, 0], u[:, 1], np.full(len(u), 0.2)], axis=1)
    cap = direction / np.linalg.norm(direction, axis=1, keepdims=True) * 0.205
    assert _moved_by_the_pass(cap, meshes.triangulated(quads), 0.9, monkeypatch) > 0
