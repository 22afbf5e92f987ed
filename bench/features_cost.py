"""Cost of wind, tearing and self-collision on a 128×128 drape (pure NumPy, no Blender).

Usage: .venv/bin/python bench/features_cost.py [n] [frames]
The 2 m cloth falls from 1.5 m onto a 0.5 m sphere on a floor. Each variant runs the same
frames; CPU time per frame (process time, robust to other load on the machine; best of two rounds) is
reported relative to the plain step.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import solver  # noqa: E402
from solver import self_collision as sc  # noqa: E402


def run(n: int, frames: int, **extra) -> tuple[float, float, int]:
    vertices, faces = solver.grid(n, n, size=2.0, height=1.5)
    model = solver.build_model(vertices, faces)
    state = model.initial_state()
    params = solver.Params(**extra)
    colliders = [solver.Sphere(center=(0, 0, 0.5), radius=0.5), solver.Plane(point=(0, 0, 0))]
    solver.step(model, state, params, 1 / 24, colliders)  # warm-up: caches, first query
    rebuilds = 0
    original = sc.SelfCollision._query

    def counting(self, *args):
        nonlocal rebuilds
        rebuilds += 1
        original(self, *args)

    sc.SelfCollision._query = counting
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(frames):
            solver.step(model, state, params, 1 / 24, colliders)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        sc.SelfCollision._query = original
    return 1e3 * cpu / frames, 1e3 * wall / frames, rebuilds


def phases(n: int, frames: int, boundaries=(8, 36), **extra) -> list[float]:
    """Wall ms per frame of the drape in its phases: free fall, impact and folding, settling."""
    vertices, faces = solver.grid(n, n, size=2.0, height=1.5)
    model = solver.build_model(vertices, faces)
    state = model.initial_state()
    params = solver.Params(**extra)
    colliders = [solver.Sphere(center=(0, 0, 0.5), radius=0.5), solver.Plane(point=(0, 0, 0))]
    times = []
    for _ in range(frames):
        start = time.perf_counter()
        solver.step(model, state, params, 1 / 24, colliders)
        times.append(time.perf_counter() - start)
    edges = [0, *boundaries, frames]
    return [1e3 * sum(times[a:b]) / (b - a) for a, b in zip(edges[:-1], edges[1:], strict=True)]


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 128
    frames = int(sys.argv[2]) if len(sys.argv) > 2 else 48
    spacing = 2.0 / (n - 1)
    variants = {
        "plain step": {},
        "wind 5 m/s": {"wind": (2.0, 0.0, -4.6)},
        "wind + turbulence 0.5 + air drag": {"wind": (2.0, 0.0, -4.6), "turbulence": 0.5, "air_drag": 0.2},
        "tearing on (factor 3, checks only)": {"tear_factor": 3.0},
        "self-collision, gap 2×thickness (1 cm)": {"self_collision": True},
        f"self-collision, gap = edge ({spacing * 100:.2f} cm)": {
            "self_collision": True,
            "self_collision_distance": spacing,
        },
    }
    base = None
    print(f"{n}×{n} grid, {frames} frames, {solver.Params().substeps} substeps")
    run(n, 8)  # warm the process up (allocator, caches): the first variant timed is otherwise ~40% slower
    # Two rounds over all variants, best of each: the machine's speed drifts within a run.
    rounds = [{name: run(n, frames, **extra) for name, extra in variants.items()} for _ in range(2)]
    for name, extra in variants.items():
        cpu, wall, rebuilds = min(timing[name] for timing in rounds)
        base = cpu if base is None else base
        note = (
            f", {rebuilds} queries, full or partial ({rebuilds / frames:.1f}/frame)"
            if extra.get("self_collision")
            else ""
        )
        print(f"{name:44s} {cpu:7.1f} ms/frame CPU ({wall:6.1f} wall)  ×{cpu / base:.2f}  (+{cpu - base:.1f} ms){note}")
    print("\nby phase (ms/frame, wall): frames 0-7 free fall | 8-35 impact, folding | 36-95 settling")
    plain = phases(n, 96)
    for name, extra in [("plain step", {}), ("self-collision 1 cm", {"self_collision": True})]:
        cost = plain if not extra else phases(n, 96, **extra)
        cells = "  ".join(f"{c:7.1f} (×{c / p:.2f})" for c, p in zip(cost, plain, strict=True))
        print(f"{name:44s} {cells}")


if __name__ == "__main__":
    main()
