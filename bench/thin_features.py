"""Thin and pointed colliders (issue 11, round 8), solver-only.

Rods: a 2 m 33² cloth (6.25 cm edges) dropped across a capped rod (radius 0.5 / 1 / 2 / 3 / 4 cm, 8 / 16 / 32
segments, centred or shifted 1.1 cm) 1 m above the floor, 48 frames: the highest cloth point (the rod's
top is at 1.005-1.02 m; a cloth on the floor: < 0.3) and how many cloth edges pass through the rod's
triangles at the end and at worst (every 6th frame).

Corners: the same cloth dropped from 1 m onto a cube standing on a corner, a square pyramid, and two
cones (r 10 cm / 16 segments, r 5 cm / 32 segments, 40 cm tall), or lying on the floor while the
collider rises 0.5 m into it over 36 frames (40 frames): how far the apex lies above the cloth right
above it (> 0: through; -inf: no cloth over it, slid off) at the end and at worst (every 4th frame), and
how many of the collider's edges from its apex pass through cloth triangles at the end / at worst.

    .venv/bin/python bench/thin_features.py [rods] [corners]
"""

import sys
import time
from pathlib import Path

import numpy as np

# Appended: bench/needles_through.py imports `cone` with another checkout's solver and tests first on the path.
sys.path.append(str(Path(__file__).resolve().parent.parent))
sys.path.append(str(Path(__file__).resolve().parent.parent / "tests"))
from test_mesh_collider_corners import apex_above_cloth, apex_edges_through_cloth, cube_on_corner, pyramid, run  # noqa: E402
from test_mesh_collider_rods import edges_through, rod  # noqa: E402

import solver  # noqa: E402


def cone(radius: float, segments: int, height: float = 0.4, base: float = 0.1):
    """(vertices, triangles) of a cone standing on its base `base` above the floor (bench/needles_through.py's too)."""
    angle = np.arange(segments) * 2 * np.pi / segments
    ring = np.stack([radius * np.cos(angle), radius * np.sin(angle), np.full(segments, base)], -1)
    v = np.vstack([ring, [[0, 0, base + height]], [[0, 0, base]]])
    k = np.arange(segments)
    k1 = (k + 1) % segments
    tip, centre = np.full(segments, segments), np.full(segments, segments + 1)
    return v, np.concatenate([np.stack([k, k1, tip], -1), np.stack([k1, k, centre], -1)])


def rods() -> None:
    print("| radius (m) | segments | shift (m) | highest (m) | edges through at the end | at worst | CPU s |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for radius in (0.005, 0.01, 0.02, 0.03, 0.04):
        for segments in (8, 16, 32):
            for shift in (0.0, 0.011):
                shape = rod(radius, segments, length=2.4)
                vertices, faces = solver.grid(33, 33, size=2.0, height=1.3)
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


def corners() -> None:
    shapes = {
        "cube on its corner": cube_on_corner(),
        "pyramid": pyramid(),
        "cone r 10 cm, 16": cone(0.1, 16),
        "cone r 5 cm, 32": cone(0.05, 32),
    }
    print(
        "| collider | cloth | motion | apex above cloth, end / worst (mm) | apex edges through, end / worst | CPU s |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for name, shape in shapes.items():
        for rising in (False, True):
            for triangulated in (False, True):
                worst_above, worst_through, cpu = -np.inf, 0, time.process_time()
                for x, v, triangles in run(shape, rising, triangulated):
                    apex = v[np.argmax(v[:, 2])]
                    above = apex_above_cloth(x, triangles, apex)
                    through = apex_edges_through_cloth(x, triangles, v, shape[1])
                    worst_above, worst_through = max(worst_above, above), max(worst_through, through)
                cpu = time.process_time() - cpu
                kind = "triangulated" if triangulated else "quad"
                motion = "rising into it" if rising else "dropped on it"
                print(
                    f"| {name} | {kind} | {motion} | {above * 1000:.1f} / {worst_above * 1000:.1f} "
                    f"| {through} / {worst_through} | {cpu:.1f} |",
                    flush=True,
                )


def main() -> None:
    which = sys.argv[1:] or ["rods", "corners"]
    if "rods" in which:
        rods()
    if "corners" in which:
        corners()


if __name__ == "__main__":
    main()
