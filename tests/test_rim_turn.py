"""A fan disc dropped on a UV ball (issue 11, round 26 (kinds_r26)): the ball's 11.25° latitude ridges are convex
edges of a closed mesh, so rims (a cloth edge through either face goes out across the edge in the face's plane).
There that push is sideways along the surface: the disc's rim, swinging in at ~3.6 m/s, was pushed ~5-7 mm an
iteration, alternate rim vertices one way, and one frame showed a 118 % stretch (Blender's Cloth: 36 %).
`sharp_edges.RIM_TURN_LEAST` (off by default) keeps as rims only edges whose faces turn by more than it."""

import math

import numpy as np
import pytest
from test_mesh_collider_swinging_legs import edges_through

import solver
from solver import meshes, sharp_edges


@pytest.mark.parametrize("turn", [15.0])
def test_a_fan_disc_wrapping_a_uv_ball_has_no_stretch_spike(monkeypatch, turn):
    """bench/acceptance_probes_r26.py `ball` KIND=fan in the solver alone (bench/rim_turn_kinds.py): a 1 m fan disc
    (32 spokes x 6 rings) 8 cm over a 32 x 16 UV ball (r 0.3) on the floor, 16 substeps, frames 2-10."""
    monkeypatch.setattr(sharp_edges, "RIM_TURN_LEAST", turn)
    V, T = meshes.uv_sphere(32, 16, 0.3, (0.0, 0.0, 0.3))
    X, F = meshes.fan_disc(32, 6, radius=0.5)
    c, s = math.cos(0.1), math.sin(0.1)
    X = X @ np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]).T + (0.02, 0.03, 0.68)
    model = solver.build_model(X, F)
    edges = model.cloth_edges[0]
    rest = np.linalg.norm(X[edges[:, 0]] - X[edges[:, 1]], axis=1)
    state, params = model.initial_state(), solver.Params(bend_stiffness=0.05, substeps=16)
    colliders = [solver.MeshCollider(V, T), solver.Plane(point=(0, 0, 0))]
    stretch, through = [], []
    for _ in range(9):
        solver.step(model, state, params, 1 / 24, colliders=colliders)
        P = state.positions
        stretch.append(float((np.linalg.norm(P[edges[:, 0]] - P[edges[:, 1]], axis=1) / rest - 1).max()))
        through.append(edges_through(P, edges, V, T))
    # With RIM_TURN_LEAST 0 (main's): 3.2, 32.4, 20.8, 117.6 % at frames 5-8 (the rim's zigzag), 0 through.
    assert max(stretch) < 0.5, stretch
    assert max(through) == 0, through
    assert np.linalg.norm(state.positions[0] - (0.02, 0.03, 0.6)) < 0.03  # the hub rests on the ball's top
