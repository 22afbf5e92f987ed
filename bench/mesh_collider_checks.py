"""Physics checks of the mesh colliders for an A/B of two checkouts (solver-only, no Blender).

For each solver (this checkout, and another with --against):
- rest: the 64² cloth (quad or triangulated) draped on the torus, the ball, the table and the
  round-legged table of bench/mesh_collider_cost.py for `--frames` frames: the mean and the largest per-frame motion of
  its vertices over the last 12 frames (jitter on resting cloth), the positive strain of its edges
  over those frames (mean, and the 99th percentile's mean), and how deep any vertex lies inside the
  collider at any frame end (torus and ball: against the analytic shape the mesh is inscribed
  in, less the mesh's largest sag, so > 0 means inside the triangles; tables: inside a box or leg).
- tabletop: a 0.6 m 32² cloth dropped flat onto the table's top (it comes to rest there).
- slope: a 16² cloth on a 20° tilted closed slab (tan 20° = 0.36) with friction 0.2 (slides) and
  0.6 (sticks): how far its centre moves along the slope in 1 s.

    .venv/bin/python bench/mesh_collider_checks.py [--against /path/to/other/checkout] [--frames 96]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from mesh_collider_cost import FPS, N, _against, ico_ball, round_legged_table, table  # noqa: E402
from mesh_kinds_solver import torus  # noqa: E402

import solver  # noqa: E402
from solver import meshes  # noqa: E402


def _strain(model, x) -> np.ndarray:
    """Each structural edge's positive strain."""
    c = model.constraints
    structural = c.kind == 0
    (i, j), rest = c.pairs[structural].T, c.rest_length[structural]
    length = np.linalg.norm(x[i] - x[j], axis=1)
    return np.maximum(length / rest - 1.0, 0.0)


def _inside_torus(x, major=0.6, minor=0.25, height=0.25, segments=192, rings=48) -> float:
    # The mesh lies inside the analytic torus by at most its sag across a face.
    sag = minor * (1 - np.cos(np.pi / rings)) + (major + minor) * (1 - np.cos(np.pi / segments))
    ring = np.hypot(x[:, 0], x[:, 1]) - major
    depth = minor - np.hypot(ring, x[:, 2] - height)
    return float(depth.max() - sag)


def _inside_ball(x, radius=0.5, centre=(0, 0, 0.5)) -> float:
    sag = radius * (1 - np.cos(0.5 * 1.1071 / 32))  # (subdivision 5: an edge spans ~1.107/32 rad)
    return float((radius - np.linalg.norm(x - np.asarray(centre), axis=1)).max() - sag)


def _inside_table(x) -> float:
    return meshes.deepest_in_boxes(x)


def _inside_roundtable(x, radius=0.035, segments=16) -> float:
    d = np.asarray((0.5, 0.35, 0.02)) - np.abs(x - np.asarray((0, 0, 0.75)))
    worst = float(d.min(axis=1).max())
    sag = radius * (1 - np.cos(np.pi / segments))  # (the 16-gon lies inside the round leg by this)
    for bx in (-0.42, 0.42):
        for by in (-0.27, 0.27):
            across = radius - np.hypot(x[:, 0] - bx, x[:, 1] - by) - sag
            worst = max(worst, float(np.minimum(across, np.minimum(x[:, 2], 0.73 - x[:, 2])).max()))
    return worst


SHAPES = {"torus": (torus, _inside_torus), "ball": (ico_ball, _inside_ball), "table": (table, _inside_table)}
SHAPES["roundtable"] = (round_legged_table, _inside_roundtable)
SHAPES["tabletop"] = SHAPES["table"]  # a 0.6 m 32² cloth lying flat on the table's top: it comes to rest


def rest(package, scene: str, kind: str, frames: int) -> dict:
    build, inside = SHAPES[scene]
    shape = package.TriangleMesh(*build())
    if scene == "tabletop":
        vertices, faces = meshes.grid(32, 32, size=0.6, height=0.8)
    else:
        vertices, faces = meshes.grid(N, N, size=2.0, height=1.0)
    if kind == "triangulated":
        faces = meshes.triangulated(faces)
    model = package.build_model(vertices, faces)
    state, params, floor = model.initial_state(), package.Params(), package.Plane(point=(0, 0, 0))
    motion, strain, deepest, last = [], [], -np.inf, state.positions.copy()
    for f in range(frames):
        package.step(model, state, params, 1 / FPS, [package.MeshCollider(shape), floor])
        x = state.positions
        deepest = max(deepest, inside(x))
        if f >= frames - 12:
            motion.append(np.linalg.norm(x - last, axis=1))
            strain.append(_strain(model, x))
        last = x.copy()
    motion = np.array(motion)
    p99 = float(np.mean([np.percentile(e, 99) for e in strain]))
    return {"mean": motion.mean(), "max": motion.max(), "strain": float(np.mean(strain)), "p99": p99, "inside": deepest}


def slope(package, friction: float, seconds: float = 1.0) -> float:
    angle = np.radians(20.0)
    rotation = np.array([[np.cos(angle), 0, -np.sin(angle)], [0, 1, 0], [np.sin(angle), 0, np.cos(angle)]])
    sx, sy, sz = 4.0, 1.5, 0.1
    box = np.array([[x, y, z] for x in (-sx, sx) for y in (-sy, sy) for z in (-sz, sz)]) * 0.5
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    tris = np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))])
    slab = package.MeshCollider(box @ rotation.T, tris)  # the cloth's friction alone
    vertices, faces = meshes.grid(16, 16, size=0.5, height=0.0)
    vertices = (vertices + (0, 0, sz / 2 + 0.006)) @ rotation.T
    model = package.build_model(vertices, faces)
    state, params = model.initial_state(), package.Params(friction=friction)
    down = rotation @ np.array([1.0, 0, 0])  # along the slope, downhill (its x axis tilted down)
    if down[2] > 0:
        down = -down
    start = state.positions.mean(axis=0) @ down
    for _ in range(int(seconds * FPS)):
        package.step(model, state, params, 1 / FPS, [slab])
    return float(state.positions.mean(axis=0) @ down - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", type=Path)
    parser.add_argument("--frames", type=int, default=96)
    parser.add_argument("rows", nargs="*", help="scene/kind rows, or slope (default: all)")
    args = parser.parse_args()
    packages = [("this", solver)] if args.against is None else [("against", _against(args.against)), ("this", solver)]
    print("| scene | cloth | checkout | mean motion/frame (last 12) | largest | strain: mean / 99th pct | deepest in |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    rows = args.rows or [f"{scene}/{kind}" for scene in SHAPES for kind in ("quad", "triangulated")] + ["slope"]
    for row in rows:
        if row == "slope":
            continue
        scene, kind = row.split("/")
        if True:
            for name, package in packages:
                r = rest(package, scene, kind, args.frames)
                print(
                    f"| {scene} | {kind} | {name} | {r['mean'] * 1e6:.2f} µm | {r['max'] * 1e3:.3f} mm "
                    f"| {100 * r['strain']:.3f}% / {100 * r['p99']:.2f}% | {r['inside'] * 1e3:.2f} mm |",
                    flush=True,
                )
    for friction in (0.2, 0.6) if "slope" in rows else ():
        for name, package in packages:
            moved = 100 * slope(package, friction)
            print(f"slope 20°, friction {friction}, {name}: moved {moved:.2f} cm in 1 s", flush=True)


if __name__ == "__main__":
    main()
