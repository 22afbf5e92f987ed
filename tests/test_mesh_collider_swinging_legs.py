"""A skirt on fast-swinging legs (issue 11, round 12 (skirt15)): the legs are 16-sided cylinders, their faces
meeting at 22.5° (not sharp), and at each swing's end the hem, pressed round a leg, spanned several of them:
its 5 cm edges cut 1-3 mm into the leg between vertices kept at the gap."""

import numpy as np
import pytest
from solver_scenes import legs, skirt, swung

import solver
from solver.triangles import segment_crossings


def edges_through(x, edges, vertices, triangles) -> int:
    """Cloth edges whose segment passes through one of the triangles."""
    p, q = x[edges[:, 0]], x[edges[:, 1]]
    corners = vertices[triangles]
    low, high = np.minimum(p, q), np.maximum(p, q)
    near = (low[:, None] <= corners.max(axis=1)[None]) & (high[:, None] >= corners.min(axis=1)[None])
    e, t = near.all(axis=2).nonzero()
    a, b, c = (corners[t, k].T for k in range(3))
    crossed = segment_crossings(p[e].T, q[e].T, a, b, c)[0]
    return len(np.unique(e[crossed]))


@pytest.mark.parametrize("triangulated", [False, True])
def test_a_skirts_hem_never_cuts_into_fast_swinging_legs(triangulated):
    rest, triangles, leg = legs()
    cloth, faces, pins = skirt(triangulated)
    model = solver.build_model(cloth, faces, pin_weight=pins)
    state, params = model.initial_state(), solver.Params(substeps=16, substeps_follow_motion=True)
    edges, floor = model.cloth_edges[0], solver.Plane(point=(0, 0, 0))
    through, hem_moved = [], 0.0
    for frame in range(1, 19):
        shape = swung(rest, leg, frame)
        collider = solver.MeshCollider(shape, triangles, mesh_start=swung(rest, leg, frame - 1))
        solver.step(model, state, params, 1 / 24, colliders=[collider, floor], pin_targets=cloth)
        through.append(edges_through(state.positions, edges, shape, triangles))
        hem_moved = max(hem_moved, float(np.abs(state.positions[-32:, 1] - cloth[-32:, 1]).max()))
    # Without rounded edges (edge_contacts.ROUNDED_EDGES): up to 10 (quad) / 7 (triangulated) edges through the
    # legs at most swings' ends, 39 / 33 in all.
    assert max(through) == 0, through
    assert hem_moved > 0.05  # the legs did push the hem about
