"""`sharp_edges.RIM_TURN_LEAST` (kinds_r26, off): a closed mesh's convex edge is a rim (a cloth edge through either
face goes out across it in the face's plane) only where its faces turn by more than this many degrees.

Pure solver, the Blender probe's scenes (bench/acceptance_probes_r26.py ball / torus, the kinds as built there): a
1 m cloth (24² grids, the fan disc 32 spokes x 6 rings) dropped 8 cm over a UV ball (32 x 16, r 0.3, on the floor),
and a 2.4 m cloth into Add > Torus (48 x 12, 1 / 0.25 m), 24 frames, Auto Substeps; per frame the largest edge
stretch (%), the cloth edges through the collider's triangles and (round 29) the cloth vertices inside the closed
collider (ray parity). Round 29 (ridgefold_r29) added `box` (a 0.6 m cube, 4 x 4 quads a side, the 1 m cloth 8 cm
over it) and `table` (meshes.boxes' table, a 1.6 m cloth 8 cm over its top). Prints, per scene, kind and setting:
the worst stretch, its frame, the last stretch, the most edges through and vertices inside at any frame, CPU seconds.

    .venv/bin/python bench/rim_turn_kinds.py [--frames 24] [--turn 0 15] [--scene ball torus] [--kind fan quad ...]
        [--set edge_rims.RIDGE_CONE=True ...]   (solver module switches, for every run; round 27 (ridge_r27))
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from solver_scenes import torus  # noqa: E402
from test_mesh_collider_swinging_legs import edges_through  # noqa: E402

import solver  # noqa: E402
from solver import meshes, sharp_edges  # noqa: E402
from solver.inside_recovery import inside_closed  # noqa: E402
from solver.params import auto_substeps  # noqa: E402


def cloth(kind: str, size: float):
    if kind == "fan":
        return meshes.fan_disc(32, 6, radius=size / 2)
    if kind == "jit":
        return meshes.jittered_grid(24, size=size, jitter=0.3, seed=0)
    if kind == "hole":
        return meshes.holed_grid(24, size=size, centre=(0.225 * size, 0.1 * size), radius=0.175 * size)
    vertices, quads = meshes.grid(24, 24, size=size)
    return (vertices, quads) if kind == "quad" else (vertices, meshes.triangulated(quads))


def scene(name: str, kind: str):
    if name == "ball":
        V, T = meshes.uv_sphere(32, 16, 0.3, (0.0, 0.0, 0.3))
        X, F = cloth(kind, 1.0)
        loc, rot, z = (0.02, 0.03), 0.1, 0.68
    elif name == "box":  # (round 29: a 0.6 m cube of 4 x 4 quads a side, its 90-degree rims)
        V, quads = meshes.box(4, 0.6, (0.0, 0.0, 0.3))
        T = meshes.triangulated(quads)
        X, F = cloth(kind, 1.0)
        loc, rot, z = (0.02, 0.03), 0.1, 0.68
    elif name == "table":  # (round 29: meshes.boxes' table, top at 0.73-0.77 m)
        V, T = meshes.boxes()
        X, F = cloth(kind, 1.6)
        loc, rot, z = (0.02, 0.03), 0.1, 0.85
    else:
        V, T = torus(major=1.0, segments=48, rings=12)  # (Add > Torus, 48 x 12)
        X, F = cloth(kind, 2.4)
        loc, rot, z = (0.45, -0.3), 0.2, 0.58
    c, s = math.cos(rot), math.sin(rot)
    X = X @ np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]).T + (loc[0], loc[1], z)
    return V, T, X, F


def run(name: str, kind: str, turn: float, frames: int):
    sharp_edges.RIM_TURN_LEAST = turn
    V, T, X, F = scene(name, kind)
    model = solver.build_model(X, F)
    E = model.cloth_edges[0]
    L0 = np.linalg.norm(X[E[:, 0]] - X[E[:, 1]], axis=1)
    n = auto_substeps(1 / 24, float(L0.mean()), (0.0, 0.0, -9.81), len(X))
    state, params = model.initial_state(), solver.Params(bend_stiffness=0.05, substeps=n)
    colliders = [solver.MeshCollider(V, T), solver.Plane(point=(0, 0, 0))]
    stretch, through, inside, cpu = [], [], [], 0.0
    mesh = colliders[0].mesh
    for _ in range(frames):
        t0 = time.process_time()
        solver.step(model, state, params, 1 / 24, colliders=colliders)
        cpu += time.process_time() - t0
        P = state.positions
        stretch.append(100 * float((np.linalg.norm(P[E[:, 0]] - P[E[:, 1]], axis=1) / L0 - 1).max()))
        through.append(edges_through(P, E, V, T))
        inside.append(int(inside_closed(np.ascontiguousarray(P.T), mesh.a, mesh.b, mesh.c)[0].sum()))
    worst = int(np.argmax(stretch))
    print(
        f"{name} {kind} turn={turn:g}: worst stretch {stretch[worst]:.1f} % at frame {worst + 2}, last"
        f" {stretch[-1]:.1f} %, most through {max(through)} (frames with any: {sum(t > 0 for t in through)}),"
        f" most vertices inside {max(inside)} (last {inside[-1]}),"
        f" {cpu:.1f} s",
        flush=True,
    )


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=24)
    ap.add_argument("--turn", type=float, nargs="+", default=[0.0, 15.0])
    ap.add_argument("--scene", nargs="+", default=["ball", "torus"], help="ball torus box table")
    ap.add_argument("--kind", nargs="+", default=["tri", "quad", "jit", "fan", "hole"])
    ap.add_argument("--set", nargs="*", default=[], help="module.NAME=value (a solver module's switch)")
    a = ap.parse_args()
    import importlib

    for item in a.set:
        name, value = item.split("=", 1)
        module, attribute = name.rsplit(".", 1)
        setattr(importlib.import_module(f"solver.{module}"), attribute, eval(value))
        print("set", name, "=", value)
    for name in a.scene:
        for kind in a.kind:
            for turn in a.turn:
                run(name, kind, turn, a.frames)
