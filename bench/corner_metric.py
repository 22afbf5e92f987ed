"""tests/test_tablecloth_corners.py's measure, printed instead of asserted (issue 11, round 25 (rest25)).

    .venv/bin/python bench/corner_metric.py quad|tri|jitter|fan|holed [n] [--set=module.FLAG=value ...]

A 1.8 m n² cloth (default 48, the test's) dropped 22 cm onto meshes.boxes()' table: the mean over frames 37-48 of
the worst structural strain within 15 cm (across) of the top's corners (the test's bound: 0.25), its largest frame,
and the deepest a vertex lay inside the boxes at a frame's end (mm, < 0 outside).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(1, str(Path(__file__).resolve().parent))
import measure  # noqa: E402

import solver  # noqa: E402
from solver import meshes  # noqa: E402

flags = [a[len("--set=") :] for a in sys.argv[1:] if a.startswith("--set=")]
args = [a for a in sys.argv[1:] if not a.startswith("--set")]
measure.set_flags(flags)
kind, n = args[0], int(args[1]) if len(args) > 1 else 48
if kind in ("quad", "tri"):
    vertices, faces = meshes.grid(n, n, size=1.8, height=0.99)
    if kind == "tri":
        faces = meshes.triangulated(faces)
else:  # (round 26: jitter, fan, holed, as measure.cloth_kind makes them)
    vertices, faces = measure.cloth_kind(kind, n, 1.8, 0.99)
model = solver.build_model(vertices + (0.011, 0.023, 0.0), faces)
state = model.initial_state()
mesh = solver.TriangleMesh(*meshes.boxes())
c = model.constraints
structural = c.kind == 0
(i, j), rest = c.pairs[structural].T, c.rest_length[structural]
corners = np.array([[sx * 0.5, sy * 0.35] for sx in (-1, 1) for sy in (-1, 1)])
worst, deepest = [], -np.inf
for frame in range(48):
    colliders = [solver.MeshCollider(mesh), solver.Plane(point=(0, 0, 0))]
    solver.step(model, state, solver.Params(), 1 / 24, colliders)
    x = state.positions
    deepest = max(deepest, meshes.deepest_in_boxes(x))
    if frame >= 36:
        strain = np.linalg.norm(x[i] - x[j], axis=1) / rest - 1.0
        near = np.zeros(len(rest), dtype=bool)
        for corner in corners:
            near |= np.linalg.norm(x[i, :2] - corner, axis=1) < 0.15
            near |= np.linalg.norm(x[j, :2] - corner, axis=1) < 0.15
        worst.append(float(strain[near].max()))
print(f"{kind} {n}² {flags}: corner strain {np.mean(worst):.3f} (worst frame {max(worst):.3f}), "
      f"deepest {1000 * deepest:.2f} mm")  # fmt: skip
