"""What a DEFORMING mesh collider costs, and whether the cloth stays out of it, solver-only (no Blender).

Scenes (the collider given each frame by its shape at the frame's start and end, as the add-on
gives an armature-, shape-key- or modifier-deformed mesh):
- bend: a capped cylinder (r 0.15 m, 1.2 m, 32 sides, 24 rings, fan caps) whose upper half bends
  70° about a horizontal axis over frames 10-40 (a skinned joint: a band blends the two halves);
  a 0.8 m 32² cloth falls onto its top.
- wobble: an ico ball (r 0.5 m, 20,480 triangles) whose surface ripples (3 cm radial waves
  travelling round it, none at the poles); the 2 m 64² cloth falls onto it.
- bump: a 2 m 64² ground grid with a 0.35 m Gaussian bump rising under the 64² cloth resting on it.

Each frame the collider is made from the two shapes and stepped with the floor (both timed, as the
add-on does both every frame), then (interleaved) the same cloth with the
floor alone; CPU time (process time), median over the frames, best of the rounds. "inside" is the
deepest any cloth vertex lies on the wrong side of the collider's end-of-frame triangles, at any
frame (closed shapes: inside the volume; the open ground: below it).

    .venv/bin/python bench/deforming_collider_cost.py [--rounds 2] [--frames 48] [scene ...]
    .venv/bin/python bench/deforming_collider_cost.py --profile bend
    .venv/bin/python bench/deforming_collider_cost.py --against /path/to/other/checkout   # A/B, same process
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

from mesh_collider_cost import ico_ball  # noqa: E402

import solver  # noqa: E402
from solver import meshes  # noqa: E402
from solver.triangle_grid import TriangleGrid  # noqa: E402
from solver.triangles import closest_points, cross, dot  # noqa: E402

FPS = 24


def cylinder(sides: int = 32, rings: int = 24, radius: float = 0.15, length: float = 1.2):
    """(vertices, triangles) of a closed cylinder standing on the floor, caps as triangle fans."""
    angle = np.arange(sides) * (2 * np.pi / sides)
    z = np.linspace(0.0, length, rings + 1)
    ring = np.stack([radius * np.cos(angle), radius * np.sin(angle)], 1)
    side = np.concatenate([np.column_stack([ring, np.full(sides, h)]) for h in z])
    vertices = np.concatenate([side, [[0, 0, 0], [0, 0, length]]])
    i, j = np.meshgrid(np.arange(rings), np.arange(sides), indexing="ij")
    a, b = i * sides + j, i * sides + (j + 1) % sides
    c, d = b + sides, a + sides
    tris = [np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)]
    bottom, top = len(side), len(side) + 1
    k = np.arange(sides)
    tris.append(np.stack([np.full(sides, bottom), (k + 1) % sides, k], 1))
    tris.append(np.stack([np.full(sides, top), rings * sides + k, rings * sides + (k + 1) % sides], 1))
    return vertices, np.concatenate(tris)


def bent(rest: np.ndarray, frame: float, length: float = 1.2) -> np.ndarray:
    """The cylinder's upper half bent about the x axis at mid-height, blended over a 0.2 m band."""
    angle = np.radians(70.0) * np.clip((frame - 10.0) / 30.0, 0.0, 1.0)
    middle = 0.5 * length
    weight = np.clip((rest[:, 2] - (middle - 0.1)) / 0.2, 0.0, 1.0)[:, None]
    cos, sin = np.cos(angle), np.sin(angle)
    offset = rest - (0.0, 0.0, middle)
    y, z = offset[:, 1], offset[:, 2]
    turned = np.column_stack([offset[:, 0], cos * y - sin * z, sin * y + cos * z])
    return rest + weight * (turned + (0.0, 0.0, middle) - rest)


def rippled(rest: np.ndarray, frame: float, centre=(0.0, 0.0, 0.5)) -> np.ndarray:
    offset = rest - np.asarray(centre)
    azimuth = np.arctan2(offset[:, 1], offset[:, 0])
    polar = np.clip(offset[:, 2] / np.linalg.norm(offset, axis=1), -1.0, 1.0)
    # Waves round the equator, fading to nothing at the poles (where six of them would crumple the surface).
    scale = 1.0 + 0.06 * np.sin(6 * azimuth + frame * (2 * np.pi / 24)) * (1.0 - polar * polar)
    return np.asarray(centre) + offset * scale[:, None]


def ground(n: int = 64):
    vertices, quads = meshes.grid(n, n, size=2.4, height=0.0)
    return vertices, meshes.triangulated(quads)


def bumped(rest: np.ndarray, frame: float) -> np.ndarray:
    out = rest.copy()
    r2 = rest[:, 0] ** 2 + rest[:, 1] ** 2
    out[:, 2] += 0.35 * np.clip((frame - 12.0) / 24.0, 0.0, 1.0) * np.exp(-r2 / (2 * 0.25**2))
    return out


# scene: (collider shape, its pose at a frame, cloth (n, size, height), closed)
SCENES = {
    "bend": (cylinder, bent, (32, 0.8, 1.35), True),
    "wobble": (ico_ball, rippled, (64, 2.0, 1.2), True),
    "bump": (ground, bumped, (64, 2.0, 0.01), False),
}


def _inside(x: np.ndarray, vertices: np.ndarray, triangles: np.ndarray, closed: bool) -> float:
    """How deep the deepest point of x lies on the wrong side of the triangles (0: none)."""
    grid = TriangleGrid().build(vertices, triangles, 0.0)
    q, t = grid.query_points(x, 0.05)
    if len(q) == 0:
        return 0.0
    p = x[q].T
    a, b, c = (vertices[triangles[t, k]].T for k in range(3))
    closest, *_ = closest_points(p, a, b, c)
    away = p - closest
    distance = np.sqrt(dot(away, away))
    n = cross(b - a, c - a)
    n /= np.maximum(np.sqrt(dot(n, n)), 1e-30)
    # Closed shapes: the side their winding calls inside; the ground: below it (its normals point up).
    # Mostly along the inward normal: at a convex edge an outside point lies level with one of the
    # two faces sharing it, and that face's side says nothing.
    side = dot(n, away) * (solver.TriangleMesh(vertices, triangles, drop_degenerate=False).outward if closed else 1)
    nearest = np.full(len(x), np.inf)
    np.minimum.at(nearest, q, distance)  # bench only
    is_nearest = distance <= nearest[q] + 1e-12
    wrong = is_nearest & (side < -0.5 * distance) & (distance > 1e-6)
    return float(distance[wrong].max()) if wrong.any() else 0.0


def run(scene: str, frames: int, rounds: int, profiler=None, packages=(solver,)):
    """(plain ms, with-collider ms, deepest inside (m)), the last two per package in `packages` (solver
    packages stepped in turn, frame by frame, each with its own cloth)."""
    shape, pose, (n, size, height), closed = SCENES[scene]
    rest_collider, triangles = shape()
    cloth_rest, faces = meshes.grid(n, n, size=size, height=height)
    best_plain = float("inf")
    best_with = [float("inf")] * len(packages)
    deepest = [0.0] * len(packages)
    for _ in range(rounds):
        runs = []
        for package in packages:
            model = package.build_model(cloth_rest, faces)
            params = package.Params(substeps=solver.params.auto_substeps(1 / FPS, size / (n - 1)))
            runs.append((package, model, params, package.Plane(point=(0, 0, 0)), model.initial_state()))
        alone = runs[0][1].initial_state()
        t_with: list[list[float]] = [[] for _ in packages]
        t_alone = []
        for frame in range(frames):
            start, end = pose(rest_collider, frame), pose(rest_collider, frame + 1)
            for k, (package, model, params, floor, state) in enumerate(runs):
                began = time.process_time()
                collider = package.MeshCollider(end, triangles, mesh_start=start)  # as the add-on makes it each frame
                if profiler is None:
                    package.step(model, state, params, 1 / FPS, [collider, floor])
                else:
                    profiler.runcall(package.step, model, state, params, 1 / FPS, [collider, floor])
                t_with[k].append(time.process_time() - began)
                if not np.isfinite(state.positions).all():
                    raise RuntimeError(f"{scene}: non-finite positions at frame {frame}")
                deepest[k] = max(deepest[k], _inside(state.positions, end, triangles, closed))
            package, model, params, floor, _ = runs[0]
            began = time.process_time()
            package.step(model, alone, params, 1 / FPS, [floor])
            t_alone.append(time.process_time() - began)
        best_plain = min(best_plain, 1000 * statistics.median(t_alone))
        best_with = [min(b, 1000 * statistics.median(t)) for b, t in zip(best_with, t_with, strict=True)]
    return best_plain, best_with, deepest


def _against(checkout: Path):
    """Another checkout's solver, imported as its own package (copied: its imports are relative)."""
    scratch = Path(tempfile.mkdtemp(prefix="vc_against_"))
    shutil.copytree(checkout / "solver", scratch / "solver_against", ignore=shutil.ignore_patterns("__pycache__"))
    sys.path.insert(0, str(scratch))
    return importlib.import_module("solver_against")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenes", nargs="*", help=f"of {', '.join(SCENES)} (default: all)")
    parser.add_argument("--frames", type=int, default=48)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--profile", action="store_true", help="cProfile the first scene's collider steps")
    parser.add_argument("--against", type=Path, help="another checkout: its solver runs in turn with this one's")
    args = parser.parse_args()
    scenes = args.scenes or list(SCENES)
    if args.profile:
        profiler = cProfile.Profile(time.process_time)
        run(scenes[0], args.frames, 1, profiler)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
        return
    packages = (solver,) if args.against is None else (_against(args.against), solver)
    print("# Deforming mesh colliders: what they add to the solver step, solver only\n")
    print("CPU ms per frame, median over the frames, best of the rounds, interleaved with the plain step;")
    print("scenes in the docstring of `bench/deforming_collider_cost.py` (the command).\n")
    columns = ["deforming collider", "triangles", "cloth", "plain step"]
    if args.against is None:
        columns += ["with the collider", "added / plain", "deepest inside"]
    else:
        columns += [f"{args.against}: with / added ÷ plain / deepest", "this checkout"]
    print("| " + " | ".join(columns) + " |")
    print("|" + " --- |" * len(columns))
    for scene in scenes:
        shape, _, (n, *_), _ = SCENES[scene]
        plain, with_collider, deepest = run(scene, args.frames, args.rounds, packages=packages)
        cells = [
            f"{w:.1f} ms | {(w - plain) / plain:.2f}× | {d * 1000:.2f} mm" if args.against is None
            else f"{w:.1f} / {(w - plain) / plain:.2f}× / {d * 1000:.2f} mm"
            for w, d in zip(with_collider, deepest, strict=True)
        ]  # fmt: skip
        print(f"| {scene} | {len(shape()[1])} | {n}² | {plain:.1f} ms | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
