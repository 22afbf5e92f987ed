"""A 2 m 33² cloth (quad or triangulated) dropped over a 2 m wall (a zero-thickness quad or a 2 cm board,
centred or shifted 1.25 / 3 cm), 48 frames: the highest cloth point (the wall's top is at 1.0 m) and
how many cloth edges pass through the wall's triangles at the end and at worst over the frames.

    .venv/bin/python bench/thin_walls.py
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_mesh_collider_edges import _edges_through, _wall  # noqa: E402

import solver  # noqa: E402

print("| wall (m) | shift (m) | cloth | highest (m) | edges through at the end | at worst |")
print("| --- | --- | --- | --- | --- | --- |")
for thick in (0.0, 0.02):
    for shift in (0.0, 0.0125, 0.03):
        for kind in ("quad", "tri"):
            shape = _wall(thick)
            vertices, faces = solver.grid(33, 33, size=2.0, height=1.3)
            if kind == "tri":
                faces = solver.meshes.triangulated(faces)
            model = solver.build_model(vertices + (shift, 0, 0), faces)
            state = model.initial_state()
            col = [solver.MeshCollider(*shape), solver.Plane(point=(0, 0, 0))]
            worst = 0
            for _ in range(48):
                solver.step(model, state, solver.Params(), 1 / 24, colliders=col)
                worst = max(worst, _edges_through(model, state.positions, shape))
            top, end = state.positions[:, 2].max(), _edges_through(model, state.positions, shape)
            print(f"| {thick:.2f} | {shift:.4f} | {kind} | {top:.3f} | {end} | {worst} |")
