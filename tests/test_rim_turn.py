"""A fan disc dropped on a UV ball (issue 11, round 26 (kinds_r26)): the ball's 11.25° latitude ridges are convex
edges of a closed mesh, so rims (a cloth edge through either face goes out across the edge in the face's plane).
There that push is sideways along the surface: the disc's rim, swinging in at ~3.6 m/s, was pushed ~5-7 mm an
iteration, alternate rim vertices one way, and one frame showed a 118 % stretch (Blender's Cloth: 36 %).
`sharp_edges.RIM_TURN_LEAST` (off by default) keeps as rims only edges whose faces turn by more than it;
round 27 (ridge_r27)'s in-cone rules (one switch since round 29, `edge_rims.RIDGE_CONE`, with round 28's gates) keep
them rims but push cloth only out of the mesh, within each convex edge's outward cone (between its faces' normals): a
cloth edge through a face of one turning under 90° goes out along the other face's normal, and one that slid across
the ridge's line over the surface is pushed along the nearer face's normal, not back sideways."""

import math

import numpy as np
import pytest
from test_mesh_collider_swinging_legs import edges_through

import solver
from solver import edge_rims, meshes, sharp_edges

IN_CONE = ((edge_rims, "RIDGE_CONE", True),)


@pytest.mark.parametrize("rules", [((sharp_edges, "RIM_TURN_LEAST", 15.0),), IN_CONE], ids=["turn15", "in_cone"])
def test_a_fan_disc_wrapping_a_uv_ball_has_no_stretch_spike(monkeypatch, rules):
    """bench/acceptance_probes_r26.py `ball` KIND=fan in the solver alone (bench/rim_turn_kinds.py): a 1 m fan disc
    (32 spokes x 6 rings) 8 cm over a 32 x 16 UV ball (r 0.3) on the floor, 16 substeps, frames 2-10."""
    for module, name, value in rules:
        monkeypatch.setattr(module, name, value)
    V, T = meshes.uv_sphere(32, 16, 0.3, (0.0, 0.0, 0.3))
    X, F = meshes.fan_disc(32, 6, radius=0.5)
    state, stretch, through = _drop(X, F, V, T, turn=0.1, shift=(0.02, 0.03, 0.68), frames=9)
    # With both rules off (main's): 3.2, 32.4, 20.8, 117.6 % at frames 5-8 (the rim's zigzag), 0 through.
    assert max(stretch) < 0.5, stretch
    assert max(through) == 0, through
    assert np.linalg.norm(state.positions[0] - (0.02, 0.03, 0.6)) < 0.03  # the hub rests on the ball's top


def test_a_triangulated_cloth_into_a_torus_keeps_out_of_its_ridges(monkeypatch):
    """bench/rim_turn_kinds.py `torus tri` (Add > Torus 48 x 12, its ring ridges turning 30°, its segment ridges 7.5°;
    a 2.4 m triangulated 24² cloth dropped into its hole), frames 2-9, with the two in-cone rules on. Off (main's),
    a 17 % stretch at frame 8 (and 2 cloth edges through at a later frame): cloth edges through a ridge's face were
    pushed out along the face's plane, sideways along the tube."""
    from solver_scenes import torus

    for module, name, value in IN_CONE:
        monkeypatch.setattr(module, name, value)
    V, T = torus(major=1.0, segments=48, rings=12)
    X, quads = meshes.grid(24, 24, size=2.4)
    state, stretch, through = _drop(X, meshes.triangulated(quads), V, T, turn=0.2, shift=(0.45, -0.3, 0.58), frames=8)
    assert max(through) == 0, through
    assert max(stretch) < 0.12, stretch


def _drop(X, F, V, T, turn: float, shift, frames: int):
    """The cloth (X, F) turned `turn` radians about z and moved by `shift`, dropped on the mesh (V, T) over the floor
    (bend 0.05, 16 substeps): (its state, each frame's largest stretch, each frame's cloth edges through the mesh)."""
    c, s = math.cos(turn), math.sin(turn)
    X = X @ np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]).T + shift
    model = solver.build_model(X, F)
    edges = model.cloth_edges[0]
    rest = np.linalg.norm(X[edges[:, 0]] - X[edges[:, 1]], axis=1)
    state, params = model.initial_state(), solver.Params(bend_stiffness=0.05, substeps=16)
    colliders = [solver.MeshCollider(V, T), solver.Plane(point=(0, 0, 0))]
    stretch, through = [], []
    for _ in range(frames):
        solver.step(model, state, params, 1 / 24, colliders=colliders)
        P = state.positions
        stretch.append(float((np.linalg.norm(P[edges[:, 0]] - P[edges[:, 1]], axis=1) / rest - 1).max()))
        through.append(edges_through(P, edges, V, T))
    return state, stretch, through
