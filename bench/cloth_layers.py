"""Cloth on cloth, solver only: how many of the upper layer's drawn triangles pass through the lower's.

As the add-on runs two layers whose lower one is a Mesh collider (docs/design.md, probe10's
`p10_layers`): the lower layer falls alone onto a collider and floor; then the upper layer falls onto
the same, with the lower layer as a *deforming* mesh collider each frame (its shape at the frame's
start and end, offset by its own thickness as services/mesh_colliders.own_thickness adds). Counted
at every frame: pairs of drawn triangles (`intersections.drawn_triangles`, as Blender draws quads) of
the upper and lower layer that pass through each other (exact, `intersections.intersecting_pairs`).
Also the upper layer's step time (CPU, median over the frames).

Colliders: `ball` (a UV sphere mesh, 32 × 16, r 0.4 m on the floor, as Blender's), `box` (0.8 m mesh
cube on the floor), `sphere` (an analytic Sphere, r 0.4 m). Cloth kinds: `quad`, `triangulated`,
`jittered` (both layers the same kind; 1.4 m, n × n, 1.1 and 0.9 m up).

    .venv/bin/python bench/cloth_layers.py [--n 24] [--frames 36] [--against <checkout>] [scene:kind ...]
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from pathlib import Path

import numpy as np

FPS = 24
SCENES = ("ball", "box", "sphere")
KINDS = ("quad", "triangulated", "jittered")


def _load(root: Path):
    """The `solver` package of the checkout at root (a fresh import, so two can be compared)."""
    for name in [m for m in sys.modules if m == "solver" or m.startswith("solver.")]:
        del sys.modules[name]
    sys.path.insert(0, str(root))
    try:
        return importlib.import_module("solver")
    finally:
        sys.path.remove(str(root))


def uv_sphere(radius: float = 0.4, centre=(0.0, 0.0, 0.4), segments: int = 32, rings: int = 16):
    """(vertices, triangles) of a closed UV sphere, as Blender's primitive (poles as fans)."""
    u = np.arange(segments) * (2 * np.pi / segments)
    w = np.arange(1, rings) * (np.pi / rings)
    uu, ww = np.meshgrid(u, w)
    body = np.stack([np.cos(uu) * np.sin(ww), np.sin(uu) * np.sin(ww), np.cos(ww)], -1).reshape(-1, 3)
    vertices = np.concatenate([body, [[0, 0, 1], [0, 0, -1]]]) * radius + np.asarray(centre)
    top, bottom = len(body), len(body) + 1
    tris = []
    for i in range(rings - 2):
        for j in range(segments):
            a, b = i * segments + j, i * segments + (j + 1) % segments
            c, d = b + segments, a + segments
            tris += [(a, d, c), (a, c, b)]
    last = (rings - 2) * segments
    for j in range(segments):
        tris.append((top, j, (j + 1) % segments))
        tris.append((bottom, last + (j + 1) % segments, last + j))
    return vertices, np.array(tris)


def colliders(solver, scene: str) -> list:
    floor = solver.Plane(point=(0, 0, 0))
    if scene == "sphere":
        return [solver.Sphere(center=(0.0, 0.0, 0.4), radius=0.4), floor]
    if scene == "ball":
        vertices, triangles = uv_sphere()
    else:
        from solver import meshes

        vertices, quads = meshes.box(1, 0.8, (0.0, 0.0, 0.4))
        triangles = meshes.triangulated(quads)
    return [solver.MeshCollider(solver.TriangleMesh(vertices, triangles)), floor]


def layer(solver, kind: str, n: int, height: float):
    from solver import meshes

    if kind == "jittered":
        vertices, faces = meshes.jittered_grid(n, size=1.4, height=height, seed=int(height * 10))
    else:
        vertices, faces = meshes.grid(n, n, size=1.4, height=height)
        if kind == "triangulated":
            faces = meshes.triangulated(faces)
    return solver.build_model(vertices, faces)


def crossings(solver, low_model, low_x, top_model, top_x) -> int:
    from solver.intersections import drawn_triangles, intersecting_pairs

    lower = drawn_triangles(low_model, low_x)
    upper = drawn_triangles(top_model, top_x) + len(low_x)
    pairs = intersecting_pairs(np.concatenate([low_x, top_x]), np.concatenate([lower, upper]))
    first_low = pairs < len(lower)
    return int((first_low[:, 0] != first_low[:, 1]).sum())


def run(solver, scene: str, kind: str, n: int, frames: int):
    """(crossing pairs per frame, the upper layer's median CPU ms per frame)."""
    low, top = layer(solver, kind, n, 0.9), layer(solver, kind, n, 1.1)
    params = solver.Params(substeps=solver.params.auto_substeps(1 / FPS, 1.4 / (n - 1)))
    under = colliders(solver, scene)
    low_state, top_state = low.initial_state(), top.initial_state()
    low_triangles = low.triangles[0]
    counts, times = [], []
    for _ in range(frames):
        start = low_state.positions.copy()
        solver.step(low, low_state, params, 1 / FPS, under)
        began = time.process_time()
        lower = solver.MeshCollider(
            low_state.positions.copy(), low_triangles, mesh_start=start, offset=params.thickness, friction=0.3
        )
        solver.step(top, top_state, params, 1 / FPS, [lower, *under])
        times.append(time.process_time() - began)
        counts.append(crossings(solver, low, low_state.positions, top, top_state.positions))
    return counts, 1000 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="*", help="scene:kind (default: every pair)")
    parser.add_argument("--n", type=int, default=24)
    parser.add_argument("--frames", type=int, default=36)
    parser.add_argument("--against", type=Path, help="another checkout, run in turn")
    args = parser.parse_args()
    cases = [c.split(":") for c in args.cases] or [(s, k) for s in SCENES for k in KINDS]
    roots = [("this", Path(__file__).resolve().parent.parent)]
    if args.against:
        roots.insert(0, ("against", args.against.resolve()))
    columns = ["scene", "cloth", "code", "crossing pairs, frames 5/10/.../35", "frames with any", "sum", "worst"]
    columns.append("upper ms/frame")
    print("| " + " | ".join(columns) + " |")
    print("|" + " --- |" * len(columns))
    for scene, kind in cases:
        for name, root in roots:
            solver = _load(root)
            counts, ms = run(solver, scene, kind, args.n, args.frames)
            every5 = "/".join(str(counts[f - 1]) for f in range(5, len(counts) + 1, 5))
            frames_with = sum(c > 0 for c in counts)
            print(
                f"| {scene} | {kind} | {name} | {every5} | {frames_with} | {sum(counts)} | {max(counts)} | {ms:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
