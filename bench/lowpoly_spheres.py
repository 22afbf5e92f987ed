"""A cloth dropped on low-poly spheres: cloth edges through the collider's triangles (issue 11, round 16 probe19).

Pure solver at its defaults, 24 fps, 30 frames: an N² 1.4 m cloth (quad, triangulated, jittered or a fan disc of
36 spokes × N / 2 rings) dropped from
0.9 m, 1-2 cm off centre, onto a 0.4 m ball on a floor, the ball an icosphere (1 or 2 subdivisions: 80 / 320
triangles) or a UV sphere (8×6, 12×8, 32×16 segments × rings). Prints, at every 5th frame, how many cloth edges
pass through a triangle of the ball and how deep the deepest point of any cloth edge lies inside it (mm; the ball
is convex, so that is exact). In Blender a Decimate modifier (ratio 0.1 / 0.3) on a 32×16 UV sphere gives such
balls: Blender's Cloth keeps 0 edges through them, this solver 6-30 (dips 2-6 mm).

    .venv/bin/python bench/lowpoly_spheres.py [--balls ico1,uv12x8] [--kinds quad,tri,jit,fan] [--n 20]
        [--sharp-angle 30]

`--sharp-angle` sets `solver.sharp_rules.SHARP_ANGLE` (faces meeting at more than this are sharp edges, which
collide with cloth edges). The balls' bends are 20-28°, under the default 30°, and too wide for the rounded rule
(its radius is at most 1.5 cloth edges: 11 cm for the 7.4 cm edges of a 20² cloth), so a cloth edge lying across
a ridge dips about (edge / 4) × the bend: 8 mm at 25°. At 15° the 80- and 168-triangle balls keep 0-1 edges
through. See docs/design.md, "Probed scenes (sixteenth round)".
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import solver  # noqa: E402
from solver import edge_schedule, meshes, sharp_rules  # noqa: E402
from solver.intersections import _pierces  # noqa: E402

CENTRE = np.array([0.0, 0.0, 0.4])
RADIUS = 0.4


def uv_sphere(segments: int, rings: int) -> tuple[np.ndarray, np.ndarray]:
    """A UV sphere of `segments` × `rings`, triangles wound outwards."""
    points = [(0.0, 0.0, 1.0)]
    for i in range(1, rings):
        theta = math.pi * i / rings
        for j in range(segments):
            phi = 2 * math.pi * j / segments
            points.append((math.sin(theta) * math.cos(phi), math.sin(theta) * math.sin(phi), math.cos(theta)))
    points.append((0.0, 0.0, -1.0))
    faces = [(0, 1 + j, 1 + (j + 1) % segments) for j in range(segments)]
    for i in range(rings - 2):
        for j in range(segments):
            a, b = 1 + i * segments + j, 1 + i * segments + (j + 1) % segments
            faces += [(a, a + segments, b), (b, a + segments, b + segments)]
    last, base = len(points) - 1, 1 + (rings - 2) * segments
    faces += [(base + j, last, base + (j + 1) % segments) for j in range(segments)]
    return np.array(points) * RADIUS + CENTRE, np.array(faces)


BALLS = {
    "ico1": lambda: meshes.icosphere(1, RADIUS, CENTRE),
    "ico2": lambda: meshes.icosphere(2, RADIUS, CENTRE),
    "uv8x6": lambda: uv_sphere(8, 6),
    "uv12x8": lambda: uv_sphere(12, 8),
    "uv32x16": lambda: uv_sphere(32, 16),
}


def crossings(x, edges, vertices, triangles) -> int:
    """How many cloth edges pass through a triangle (every pair: a few hundred thousand)."""
    p, q = x[edges[:, 0]], x[edges[:, 1]]
    i = np.repeat(np.arange(len(edges)), len(triangles))
    k = np.tile(np.arange(len(triangles)), len(edges))
    a, b, c = (vertices[triangles[k, m]] for m in range(3))
    return int(np.unique(i[_pierces(p[i], q[i], a, b, c)]).size)


def dip(x, edges, vertices, triangles, samples: int = 15) -> float:
    """How deep (m) the deepest point along any cloth edge lies inside the convex ball (0: none inside)."""
    a = vertices[triangles[:, 0]]
    normals = np.cross(vertices[triangles[:, 1]] - a, vertices[triangles[:, 2]] - a)
    normals /= np.linalg.norm(normals, axis=1)[:, None]
    s = np.linspace(0.0, 1.0, samples)[1:-1, None]
    points = (x[edges[:, 0]][:, None] * (1 - s) + x[edges[:, 1]][:, None] * s).reshape(-1, 3)
    outside = np.einsum("pkj,kj->pk", points[:, None, :] - a[None], normals).max(axis=1)
    return float(max(-outside.min(), 0.0))


def cloth(kind: str, n: int):
    if kind == "jit":
        return meshes.jittered_grid(n, size=1.4, height=0.9)
    if kind == "fan":  # (the tests' fan disc: 36 spokes, n / 2 rings, its longest edge 7.1 cm at 20²)
        return meshes.fan_disc(36, n // 2, radius=0.7, height=0.9)
    vertices, faces = meshes.grid(n, n, size=1.4, height=0.9)
    return vertices, meshes.triangulated(faces) if kind == "tri" else faces


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--balls", default="ico1,ico2,uv8x6,uv12x8")
    parser.add_argument("--kinds", default="quad,tri,jit,fan")
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--sharp-angle", type=float, default=sharp_rules.SHARP_ANGLE)
    args = parser.parse_args()
    sharp_rules.SHARP_ANGLE = args.sharp_angle
    # (both modules that read it: the sharp-edge rules and the pointed rods' sides)
    sharp_rules.COS_SHARP = edge_schedule.COS_SHARP = math.cos(math.radians(args.sharp_angle))
    for name in args.balls.split(","):
        vertices, triangles = BALLS[name]()
        for kind in args.kinds.split(","):
            cloth_vertices, faces = cloth(kind, args.n)
            model = solver.build_model(cloth_vertices + (0.013, 0.021, 0.0), faces)
            state = model.initial_state()
            c = model.constraints
            edges = c.pairs[c.kind == solver.STRUCTURAL]
            colliders = [solver.MeshCollider(solver.TriangleMesh(vertices, triangles)), solver.Plane(point=(0, 0, 0))]
            found, start = [], time.process_time()
            for frame in range(1, args.frames + 1):
                solver.step(model, state, solver.Params(), 1 / 24, colliders)
                if frame % 5 == 0:
                    x = state.positions
                    through, deepest = crossings(x, edges, vertices, triangles), dip(x, edges, vertices, triangles)
                    found.append(f"{through}/{1000 * deepest:.1f}")
            cost = 1000 * (time.process_time() - start) / args.frames
            print(
                f"{name} ({len(triangles)} triangles) {kind} {args.n}², sharp angle {args.sharp_angle:g}: "
                f"edges through / deepest mm at every 5th frame {' '.join(found)}; {cost:.0f} ms a frame (CPU)",
                flush=True,
            )


if __name__ == "__main__":
    main()
