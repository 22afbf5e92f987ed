"""A cloth dropped on a ball's pole or apex: the deepest cloth vertex inside the closed ball, every frame (issue 11).

Pure solver at its defaults, 24 fps: an N² 1.4 m cloth of each of the five mesh kinds (quad, triangulated,
jittered, fan disc of 36 spokes × N / 2 rings, quad grid with a hole off centre) dropped from 0.9 m onto a 0.4 m
ball resting on a floor, centred on the ball's top point and off it by a few mm / cm. The balls: UV spheres 12×8,
16×8, 24×12, 32×16 (a pole on top: `segments` thin triangles meet there), the 80- and 320-triangle icospheres as
`solver.meshes.icosphere` makes them (a 6-valent vertex on top) and the same rotated so one of the icosahedron's
12 five-valent corners is on top (`ico80v`, `ico320v`).

The measure, against the real triangles at every frame: how deep the deepest cloth vertex lies inside the ball
(mm; the ball is convex, so minus the largest signed distance to its faces' planes is exact), how many vertices
are inside by more than 0.1 mm, and how deep the deepest point along any cloth edge is (13 inner samples an edge).
Prints one line a run: the worst vertex depth over all frames, the frames it was inside, the depth at the last
frame; the worst edge depth, the frames with an edge inside, and the worst from frame 16 on (landed).

    .venv/bin/python bench/pole_apex.py [--balls uv12x8,ico80v] [--kinds quad,tri,jit,fan,holed]
        [--offsets 0:0,3:2,13:21,40:30] [--n 20] [--frames 36] [--every] [--apex on|off|default]

`--apex` sets corner_contacts.APEX_CORNERS (default: as committed). (Round 23's `--outside-only`, which set
APEX_OUTSIDE_ONLY, went with that switch in round 27: aab9675 has both.)

`--offsets` are (x:y) mm from the top point. `--every` prints each frame's edge depth (mm). See docs/design.md,
"Round 22 (uvpole26 ...)" and "Round 23 (apex23 ...)".
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import solver  # noqa: E402
from solver import meshes  # noqa: E402

CENTRE = np.array([0.0, 0.0, 0.4])
RADIUS = 0.4


def _on_corner(subdivisions: int):
    """An icosphere rotated so the icosahedron's corner 5 ((0, 1, φ), five-valent) is on top."""
    v, t = meshes.icosphere(subdivisions, 1.0)
    axis = v[5] / np.linalg.norm(v[5])
    z = np.array([0.0, 0.0, 1.0])
    k = np.cross(axis, z)
    s, c = np.linalg.norm(k), float(axis @ z)
    k /= s
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    rotation = np.eye(3) + s * kx + (1 - c) * kx @ kx
    return (v @ rotation.T) * RADIUS + CENTRE, t


BALLS = {
    "uv12x8": lambda: meshes.uv_sphere(12, 8, RADIUS, CENTRE),
    "uv16x8": lambda: meshes.uv_sphere(16, 8, RADIUS, CENTRE),
    "uv24x12": lambda: meshes.uv_sphere(24, 12, RADIUS, CENTRE),
    "uv32x16": lambda: meshes.uv_sphere(32, 16, RADIUS, CENTRE),
    "ico80": lambda: meshes.icosphere(1, RADIUS, CENTRE),
    "ico320": lambda: meshes.icosphere(2, RADIUS, CENTRE),
    "ico80v": lambda: _on_corner(1),
    "ico320v": lambda: _on_corner(2),
}


def cloth(kind: str, n: int):
    if kind == "jit":
        return meshes.jittered_grid(n, size=1.4, height=0.9)
    if kind == "fan":
        return meshes.fan_disc(36, n // 2, radius=0.7, height=0.9)
    if kind == "holed":
        return meshes.holed_grid(n, size=1.4, height=0.9, centre=(0.35, 0.2), radius=0.2)
    vertices, faces = meshes.grid(n, n, size=1.4, height=0.9)
    return vertices, meshes.triangulated(faces) if kind == "tri" else faces


class Ball:
    """A convex closed mesh's face planes: depth of points inside it."""

    def __init__(self, vertices, triangles):
        a = vertices[triangles[:, 0]]
        n = np.cross(vertices[triangles[:, 1]] - a, vertices[triangles[:, 2]] - a)
        self.normals = n / np.linalg.norm(n, axis=1)[:, None]
        self.offsets = np.einsum("kj,kj->k", a, self.normals)

    def depth(self, points: np.ndarray) -> np.ndarray:
        """How far (m) inside each point is (0 outside)."""
        return np.maximum(-(points @ self.normals.T - self.offsets).max(axis=1), 0.0)


def run(ball_name: str, kind: str, offset, n: int, frames: int, settled: int = 15):
    vertices, triangles = BALLS[ball_name]()
    ball = Ball(vertices, triangles)
    cloth_vertices, faces = cloth(kind, n)
    model = solver.build_model(cloth_vertices + (offset[0], offset[1], 0.0), faces)
    state = model.initial_state()
    c = model.constraints
    edges = c.pairs[c.kind == solver.STRUCTURAL]
    s = np.linspace(0.0, 1.0, 15)[1:-1, None]
    colliders = [solver.MeshCollider(solver.TriangleMesh(vertices, triangles)), solver.Plane(point=(0, 0, 0))]
    worst, worst_edge, inside_frames, per_frame, count_max = 0.0, 0.0, [], [], 0
    edge_frames, edge_per_frame = [], []
    cpu = 0.0
    for frame in range(1, frames + 1):
        start = time.process_time()
        solver.step(model, state, solver.Params(), 1 / 24, colliders)
        cpu += time.process_time() - start
        x = state.positions
        d = ball.depth(x)
        samples = (x[edges[:, 0]][:, None] * (1 - s) + x[edges[:, 1]][:, None] * s).reshape(-1, 3)
        deepest, deepest_edge = float(d.max()), float(ball.depth(samples).max())
        per_frame.append(deepest)
        edge_per_frame.append(deepest_edge)
        if deepest_edge > 1e-4:
            edge_frames.append(frame)
        worst, worst_edge = max(worst, deepest), max(worst_edge, deepest_edge)
        count_max = max(count_max, int((d > 1e-4).sum()))
        if deepest > 1e-4:
            inside_frames.append(frame)
    return {
        "worst": worst,
        "worst_edge": worst_edge,
        "frames": inside_frames,
        "last": per_frame[-1],
        "count": count_max,
        "per_frame": per_frame,
        "edge_frames": edge_frames,
        "edge_per_frame": edge_per_frame,
        "edge_settled": max(edge_per_frame[settled:], default=0.0),
        "ms": 1000 * cpu / frames,
        "height": float(state.positions[:, 2].max()),
    }


def _frames(f: list[int]) -> str:
    if not f:
        return "-"
    return f"{len(f)} ({f[0]}-{f[-1]})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--balls", default=",".join(BALLS))
    parser.add_argument("--kinds", default="quad,tri,jit,fan,holed")
    parser.add_argument("--offsets", default="0:0,3:2,13:21,40:30")
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--frames", type=int, default=36)
    parser.add_argument("--every", action="store_true")
    parser.add_argument("--apex", default="default", choices=("on", "off", "default"))
    args = parser.parse_args()
    from solver import corner_contacts

    if args.apex != "default":
        corner_contacts.APEX_CORNERS = args.apex == "on"
    offsets = [tuple(float(v) / 1000 for v in o.split(":")) for o in args.offsets.split(",")]
    total = 0.0
    for name in args.balls.split(","):
        for kind in args.kinds.split(","):
            for offset in offsets:
                r = run(name, kind, offset, args.n, args.frames)
                total = max(total, r["worst"])
                line = (
                    f"{name:8s} {kind:5s} off {1000 * offset[0]:4.0f}:{1000 * offset[1]:<4.0f} "
                    f"vertex worst {1000 * r['worst']:6.2f} mm (max {r['count']:2d} inside) "
                    f"frames {_frames(r['frames']):12s} "
                    f"last {1000 * r['last']:5.2f}; edge worst {1000 * r['worst_edge']:6.2f} mm frames "
                    f"{_frames(r['edge_frames']):12s} from 16 {1000 * r['edge_settled']:5.2f}; {r['ms']:4.0f} ms/frame"
                )
                if args.every:
                    line += " | edge " + " ".join(f"{1000 * d:.1f}" for d in r["edge_per_frame"])
                print(line, flush=True)
    print(f"worst vertex depth over all runs: {1000 * total:.2f} mm")


if __name__ == "__main__":
    main()
