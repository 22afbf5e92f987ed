"""What a rigid mesh collider adds to the 64² solver step, solver-only (pure NumPy, no Blender).

The scenes of bench/mesh_colliders.py's cost table, built without Blender: a 192 × 48 torus
(18,432 triangles) and a 20,480-triangle ico ball (r 0.5) on the floor, a table (a 1 × 0.7 m top
on four square legs) and `roundtable` (the same top on 16-segment cylinder legs, as
bench/mesh_colliders.py's); the 2 m 64² cloth (quad or triangulated) 1 m up falls onto them for 48
frames. Each frame is stepped with the collider and the floor, then (interleaved) the same cloth
with the floor alone; CPU time (process time), median over the frames, best of the rounds.

    .venv/bin/python bench/mesh_collider_cost.py [--rounds 2] [--frames 48] [scene[/kind] ...]
    .venv/bin/python bench/mesh_collider_cost.py --profile torus/quad   # cProfile of the collider run
    .venv/bin/python bench/mesh_collider_cost.py --against /path/to/other/checkout   # A/B, same process
    .venv/bin/python bench/mesh_collider_cost.py --against /path/to/base --set step.MESH_COLLIDE_INTERVAL=2 table

Scenes: torus, ball, table, roundtable; kinds: quad, triangulated (default: all eight rows). Coarse shapes on
request: ico80 (the 80-triangle icosphere, r 0.5), uv12x8 (r 0.4), dome (`meshes.open_dome()`, open).
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from mesh_kinds_solver import torus  # noqa: E402

import solver  # noqa: E402
from solver import meshes  # noqa: E402

N = 64
FPS = 24


def ico_ball(subdivisions: int = 5, radius: float = 0.5, centre=(0.0, 0.0, 0.5)):
    """(vertices, triangles) of an icosphere: 20 · 4^subdivisions triangles (5: Blender's 'subdivisions=6')."""
    return meshes.icosphere(subdivisions, radius, centre)


def table():
    """(vertices, triangles): a 1 × 0.7 × 0.04 m top at 0.75 m on four 7 cm square legs (closed boxes)."""
    return meshes.boxes()


def cylinder(radius: float, depth: float, segments: int, centre):
    """(vertices, triangles): a closed cylinder along z, its caps fanned from one ring vertex (as Blender
    triangulates an n-gon cap: no vertex in the middle)."""
    angle = np.pi / 2 - np.arange(segments) * 2 * np.pi / segments
    ring = np.stack([radius * np.cos(angle), radius * np.sin(angle)], -1)
    ends = [np.c_[ring, np.full(segments, z)] for z in (-0.5 * depth, 0.5 * depth)]
    vertices = np.concatenate(ends)
    k = np.arange(segments)
    k1 = (k + 1) % segments
    sides = np.concatenate([np.stack([k, k1 + segments, k1], -1), np.stack([k, k + segments, k1 + segments], -1)])
    fan = np.arange(1, segments - 1)
    bottom = np.stack([np.zeros_like(fan), fan, fan + 1], -1)  # (the ring runs clockwise seen from above)
    top = np.stack([np.full_like(fan, segments), fan + 1 + segments, fan + segments], -1)
    return vertices + np.asarray(centre), np.concatenate([sides, bottom, top])


def round_legged_table():
    """(vertices, triangles): bench/mesh_colliders.py's table: the same top on four 16-segment cylinder
    legs, radius 3.5 cm (thinner than the 64² cloth's 4.4 cm diagonals)."""
    vertices, triangles = table()
    top_vertices = 8  # (the top is table()'s first box)
    parts = [(vertices[:top_vertices], triangles[: len(meshes.triangulated(meshes.box(1)[1]))])]
    offset = top_vertices
    for x in (-0.42, 0.42):
        for y in (-0.27, 0.27):
            leg = cylinder(0.035, 0.73, 16, (x, y, 0.365))
            parts.append((leg[0], leg[1] + offset))
            offset += len(leg[0])
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def ico80():
    """(vertices, triangles): the 80-triangle icosphere, r 0.5 on the floor (coarse: its ridges are sharp for the
    cloth's edges, bench/lowpoly_spheres.py)."""
    return meshes.icosphere(1, 0.5, (0.0, 0.0, 0.5))


def uv12x8():
    """(vertices, triangles): a 12 × 8 UV sphere, r 0.4 on the floor (bench/lowpoly_spheres.py's)."""
    from lowpoly_spheres import uv_sphere

    return uv_sphere(12, 8)


SCENES = {
    "torus": torus,
    "ball": ico_ball,
    "table": table,
    "roundtable": round_legged_table,
    # coarse shapes (not in the default rows): their sharp ridges and rims take the edge pass
    "ico80": ico80,
    "uv12x8": uv12x8,
    "dome": meshes.open_dome,
}
DEFAULT_ROWS = ("torus", "ball", "table", "roundtable")
KINDS = ("quad", "triangulated")


def cloth(kind: str):
    rest, faces = meshes.grid(N, N, size=2.0, height=1.0)
    if kind == "triangulated":
        faces = meshes.triangulated(faces)
    return solver.build_model(rest, faces)


def _cpu(fn, *args) -> float:
    started = time.process_time()
    fn(*args)
    return time.process_time() - started


def cost(scene: str, kind: str, frames: int, rounds: int, solvers=(solver,)) -> tuple[int, float, list[float]]:
    """(triangles, plain ms, with-collider ms per solver package): CPU ms per frame, median over the
    frames, best of rounds; every solver's frame and the plain one in turn, frame by frame."""
    vertices, triangles = SCENES[scene]()
    rest, faces = meshes.grid(N, N, size=2.0, height=1.0)
    if kind == "triangulated":
        faces = meshes.triangulated(faces)
    runs = []
    for package in solvers:
        shape = package.TriangleMesh(vertices, triangles)
        model = package.build_model(rest, faces)
        runs.append((package, shape, model, package.Params(), package.Plane(point=(0, 0, 0))))
    best_plain, best_with = float("inf"), [float("inf")] * len(runs)
    for _ in range(rounds):
        states = []
        for _, shape, model, *_ in runs:
            shape.candidates = []  # each round starts cold, as a fresh bake does
            states.append(model.initial_state())
        _, _, plain_model, plain_params, plain_floor = runs[0]
        alone = plain_model.initial_state()
        t_with, t_alone = [[] for _ in runs], []
        for _ in range(frames):
            for times, state, (package, shape, model, params, floor) in zip(t_with, states, runs, strict=True):
                collider = package.MeshCollider(shape)  # as the add-on makes it each frame
                times.append(_cpu(package.step, model, state, params, 1 / FPS, [collider, floor]))
            t_alone.append(_cpu(runs[0][0].step, plain_model, alone, plain_params, 1 / FPS, [plain_floor]))
        best_plain = min(best_plain, 1000 * statistics.median(t_alone))
        best_with = [min(b, 1000 * statistics.median(t)) for b, t in zip(best_with, t_with, strict=True)]
    return len(triangles), best_plain, best_with


def _against(checkout: Path):
    """Another checkout's solver, imported as its own package (copied: its imports are relative)."""
    scratch = Path(tempfile.mkdtemp(prefix="vc_against_"))
    shutil.copytree(checkout / "solver", scratch / "solver_against", ignore=shutil.ignore_patterns("__pycache__"))
    sys.path.insert(0, str(scratch))
    return importlib.import_module("solver_against")


def profile(scene: str, kind: str, frames: int) -> None:
    shape = solver.TriangleMesh(*SCENES[scene]())
    model, params, floor = cloth(kind), solver.Params(), solver.Plane(point=(0, 0, 0))
    state = model.initial_state()
    profiler = cProfile.Profile(time.process_time)
    for _ in range(frames):
        collider = solver.MeshCollider(shape)
        profiler.runcall(solver.step, model, state, params, 1 / FPS, [collider, floor])
    pstats.Stats(profiler).sort_stats("tottime").print_stats(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", nargs="*", help="scene or scene/kind (default: all)")
    parser.add_argument("--frames", type=int, default=48)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--profile", action="store_true", help="cProfile the first row's collider run instead")
    parser.add_argument("--against", type=Path, help="another checkout: its solver runs in turn with this one's")
    parser.add_argument(
        "--set", action="append", default=[], metavar="MODULE.NAME=VALUE",
        help="set a switch of this checkout's solver (e.g. step.MESH_COLLIDE_INTERVAL=2), repeatable",
    )  # fmt: skip
    args = parser.parse_args()
    for flag in args.set:
        name, _, value = flag.partition("=")
        module, _, attr = name.rpartition(".")
        setattr(importlib.import_module("solver." + module), attr, eval(value))
    rows = []
    for name in args.rows or DEFAULT_ROWS:
        scene, _, kind = name.partition("/")
        rows += [(scene, k) for k in ((kind,) if kind else KINDS)]
    if args.profile:
        profile(*rows[0], args.frames)
        return
    solvers = (solver,) if args.against is None else (_against(args.against), solver)
    if args.against is None:
        print("| collider | triangles | cloth | plain step | with the collider | added / plain |")
        print("| --- | --- | --- | --- | --- | --- |")
    else:
        print(f"| collider | triangles | cloth | plain step | {args.against}: with / added ÷ plain | this checkout |")
        print("| --- | --- | --- | --- | --- | --- |")
    for scene, kind in rows:
        count, plain, with_mesh = cost(scene, kind, args.frames, args.rounds, solvers)
        added = " | ".join(f"{w:.1f} / {(w - plain) / plain:.2f}×" for w in with_mesh)
        print(f"| {scene} | {count} | {kind} | {plain:.1f} | {added} |", flush=True)


if __name__ == "__main__":
    main()
