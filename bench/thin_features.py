"""A 2 m 33² cloth (6.25 cm edges) dropped across a capped rod (radius 0.5 / 1 / 2 cm, 8 / 16 / 32
segments, centred or shifted 1.1 cm) 1 m above the floor, 48 frames: the highest cloth point (the rod's
top is at 1.005-1.02 m; a cloth on the floor: < 0.3) and how many cloth edges pass through the rod's
triangles at the end and at worst (every 6th frame).

    .venv/bin/python bench/thin_features.py [cloth columns, default 33]
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_mesh_collider_rods import edges_through, rod  # noqa: E402

import solver  # noqa: E402

n = int(sys.argv[1]) if len(sys.argv) > 1 else 33
print("| radius (m) | segments | shift (m) | highest (m) | edges through at the end | at worst | CPU s |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for radius in (0.005, 0.01, 0.02):
    for segments in (8, 16, 32):
        for shift in (0.0, 0.011):
            shape = rod(radius, segments, length=2.4)
            vertices, faces = solver.grid(n, n, size=2.0, height=1.3)
            model = solver.build_model(vertices + (shift, 0, 0), faces)
            state = model.initial_state()
            colliders = [solver.MeshCollider(*shape), solver.Plane(point=(0, 0, 0))]
            worst, cpu = 0, time.process_time()
            for frame in range(48):
                solver.step(model, state, solver.Params(), 1 / 24, colliders=colliders)
                if frame % 6 == 5:
                    worst = max(worst, edges_through(model, state.positions, shape))
            cpu = time.process_time() - cpu
            top, end = state.positions[:, 2].max(), edges_through(model, state.positions, shape)
            print(f"| {radius} | {segments} | {shift} | {top:.3f} | {end} | {worst} | {cpu:.1f} |", flush=True)
