"""A tablecloth's edges at the table's top corners stay near their rest length (issue 11, round 14 (corner17))."""

import numpy as np
import pytest

import solver
from solver import meshes


@pytest.mark.parametrize("kind", ["quad", "triangulated"])
def test_a_tablecloths_corners_hang_near_their_rest_length(kind):
    """A 1.8 m 48² cloth dropped 22 cm onto the table: over the last 12 of 48 frames the worst structural edge
    within 15 cm (across) of the top's corners stays under 25 % strain on average (before round 14: 43-44 %, the
    sweep and the corner pass undoing each other every substep; docs/design.md), and no vertex ends a frame
    inside the table."""
    vertices, faces = meshes.grid(48, 48, size=1.8, height=0.99)
    if kind == "triangulated":
        faces = meshes.triangulated(faces)
    model = solver.build_model(vertices + (0.011, 0.023, 0.0), faces)
    state = model.initial_state()
    mesh = solver.TriangleMesh(*meshes.boxes())
    c = model.constraints
    structural = c.kind == 0
    (i, j), rest = c.pairs[structural].T, c.rest_length[structural]
    corners = np.array([[sx * 0.5, sy * 0.35] for sx in (-1, 1) for sy in (-1, 1)])
    worst = []
    for frame in range(48):
        colliders = [solver.MeshCollider(mesh), solver.Plane(point=(0, 0, 0))]
        solver.step(model, state, solver.Params(), 1 / 24, colliders)
        x = state.positions
        assert meshes.deepest_in_boxes(x) < 0.0
        if frame >= 36:
            strain = np.linalg.norm(x[i] - x[j], axis=1) / rest - 1.0
            near = np.zeros(len(rest), dtype=bool)
            for corner in corners:
                near |= np.linalg.norm(x[i, :2] - corner, axis=1) < 0.15
                near |= np.linalg.norm(x[j, :2] - corner, axis=1) < 0.15
            worst.append(float(strain[near].max()))
    assert np.mean(worst) < 0.25, worst
