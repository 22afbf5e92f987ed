"""A cloth whose Thickness is more than its edges, on mesh colliders, solver-only (issue 11, round 22, thick26).

probe26 (docs/design.md, "Probed scenes (twenty-second round)") found a 10 cm 24² handkerchief (4.3 mm edges) at the
default 5 mm Thickness torn apart on a 3 cm cube (71 % mean stretch, 144 edges through). Here solver-only: a 1 m N²
cloth (N=24: 43 mm edges) of each mesh kind dropped a little above a collider, Thickness = RATIO × the cloth's mean
edge, 48 frames at 24 fps, default Params; prints the mean / max positive edge strain at the end and the cloth edges
through the collider's triangles (at the end, and the most at any frame). OFF=pass,pass: those passes of step() made
no-ops (collide_cloth_edges, collide_cloth_corners, collide_cloth_ridges, collide) to find which one stretches it;
--cap: solver.corner_contacts.THICK_GAP_CAP for the run (none: as before round 22's fix).

    .venv/bin/python bench/thick_cloth.py [--n 24] [--kinds quad tri jit fan holed] [--colliders cube ball table floor]
        [--ratios 0.5 1 1.5 2 4] [--frames 48] [--off collide_cloth_edges ...] [--cap none|0.25]
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from edges_through_deforming import edges_through  # noqa: E402

import solver  # noqa: E402
from solver import meshes  # noqa: E402
from solver.metrics import stretch_summary  # noqa: E402
from solver.topology import STRUCTURAL  # noqa: E402

STEP = importlib.import_module("solver.step")


def cloth(kind: str, n: int, height: float):
    if kind == "quad":
        return meshes.grid(n, n, size=1.0, height=height)
    if kind == "tri":
        v, q = meshes.grid(n, n, size=1.0, height=height)
        return v, meshes.triangulated(q)
    if kind == "jit":
        return meshes.jittered_grid(n, size=1.0, height=height)
    if kind == "fan":
        return meshes.fan_disc(max(8, 2 * n), max(3, n // 2), radius=0.5, height=height)
    if kind == "holed":
        return meshes.holed_grid(n, size=1.0, height=height, centre=(0.22, 0.1), radius=0.17)
    raise ValueError(kind)


def collider(name: str):
    """(triangles or None, top z): a 0.3 m cube, a 0.25 m ico ball, the table, or only the floor."""
    if name == "cube":
        v, q = meshes.box(1, size=0.3, center=(0.0, 0.0, 0.15))
        return (v, meshes.triangulated(q)), 0.3
    if name == "ball":
        return meshes.icosphere(3, 0.25, (0.0, 0.0, 0.25)), 0.5
    if name == "table":
        return meshes.boxes(), 0.77
    if name == "floor":
        return None, 0.0
    raise ValueError(name)


def structural(model):
    return model.constraints.pairs[model.constraints.kind == STRUCTURAL]


def mean_edge(model, x) -> float:
    e = structural(model)
    return float(np.linalg.norm(x[e[:, 0]] - x[e[:, 1]], axis=1).mean())


def run(kind, coll, ratio, n, frames, off=()):
    mesh, top = collider(coll)
    rest, faces = cloth(kind, n, top + 0.03)
    model = solver.build_model(rest, faces)
    edge = mean_edge(model, rest)
    state = model.initial_state()
    params = solver.Params(thickness=ratio * edge)
    colliders = [solver.Plane(point=(0, 0, 0))]
    if mesh is not None:
        colliders.insert(0, solver.MeshCollider(solver.TriangleMesh(*mesh)))
    saved = {name: getattr(STEP, name) for name in off}
    for name in off:
        setattr(STEP, name, lambda *a, **k: None)
    worst = 0
    start = time.process_time()
    try:
        for _ in range(frames):
            solver.step(model, state, params, 1 / 24, colliders)
            if mesh is not None:
                worst = max(worst, edges_through(state.positions, structural(model), *mesh))
    finally:
        for name, f in saved.items():
            setattr(STEP, name, f)
    cpu = time.process_time() - start
    mean, most = stretch_summary(model, state.positions)
    end = edges_through(state.positions, structural(model), *mesh) if mesh is not None else 0
    return edge, mean, most, end, worst, cpu


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=24)
    p.add_argument("--frames", type=int, default=48)
    p.add_argument("--kinds", nargs="+", default=["quad", "tri", "jit", "fan", "holed"])
    p.add_argument("--colliders", nargs="+", default=["cube", "ball", "table", "floor"])
    p.add_argument("--ratios", nargs="+", type=float, default=[0.5, 1, 1.5, 2, 4])
    p.add_argument("--off", nargs="*", default=[])
    p.add_argument("--cap", default="", help="corner_contacts.THICK_GAP_CAP: a number, or none (the gap uncapped)")
    a = p.parse_args()
    if a.cap:
        from solver import corner_contacts

        corner_contacts.THICK_GAP_CAP = None if a.cap == "none" else float(a.cap)
    print("kind collider thick/edge edge_mm thick_mm mean% max% thr_end thr_worst cpu_s", flush=True)
    for coll in a.colliders:
        for kind in a.kinds:
            for ratio in a.ratios:
                edge, mean, most, end, worst, cpu = run(kind, coll, ratio, a.n, a.frames, tuple(a.off))
                print(
                    f"{kind} {coll} {ratio:g} {edge * 1e3:.1f} {ratio * edge * 1e3:.1f} {100 * mean:.2f} "
                    f"{100 * most:.1f} {end} {worst} {cpu:.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
