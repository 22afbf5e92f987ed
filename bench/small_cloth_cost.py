"""Where a small cloth's frame goes on a mesh collider, solver-only (pure NumPy, no Blender): issue 11's product bar.

A 1.2 m triangulated N² cloth 1 m up falls for 48 frames onto bench/mesh_collider_cost.py's scenes (table: four
square-legged boxes, 60 triangles; ball: an ico ball, 1280 triangles; torus: 18,432 triangles) and the floor. Prints
CPU ms a frame (process time, best of the rounds), the substeps a frame, and the share of step()'s passes: the
constraint sweeps (`project`), the cloth-edge passes, the corner passes, the ridge pass and the vertex pass (`collide`).
Blender's Cloth on the same scenes in real Blender: bench/acceptance_probes_r20.py with BL=1 (docs/design.md, issue 11,
round 20 (smallcloth23)).

    .venv/bin/python bench/small_cloth_cost.py [--rounds 3] [--n 24 32] [--kind tri|quad] [table ball torus]
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import mesh_collider_cost as cost  # noqa: E402
from mesh_kinds_solver import torus  # noqa: E402

import solver  # noqa: E402
from solver import meshes  # noqa: E402

STEP = importlib.import_module("solver.step")
PASSES = ("project", "collide_cloth_edges", "collide_cloth_corners", "collide_cloth_ridges", "collide")
SCENES = {"table": cost.table, "ball": lambda: cost.ico_ball(3), "torus": torus}


def timed(spent: dict) -> None:
    """Wrap step()'s passes (as solver.step looks them up) to add their CPU time into `spent`."""
    for name in PASSES:
        inner = getattr(STEP, name)

        def wrapper(*args, _inner=inner, _name=name, **kwargs):
            start = time.process_time()
            try:
                return _inner(*args, **kwargs)
            finally:
                spent[_name] = spent.get(_name, 0.0) + time.process_time() - start

        setattr(STEP, name, wrapper)


def run(scene: str, n: int, kind: str, rounds: int, spent: dict, substeps: int = 0) -> tuple[float, dict, int, float]:
    vertices, triangles = SCENES[scene]()
    rest, faces = meshes.grid(n, n, size=1.2, height=1.0)
    if kind == "tri":
        faces = meshes.triangulated(faces)
    best: tuple[float, dict, int, float] | None = None
    for _ in range(rounds):
        spent.clear()
        model = solver.build_model(rest, faces)
        state = model.initial_state()
        params = solver.Params(substeps=substeps) if substeps else solver.Params()
        colliders = [solver.MeshCollider(solver.TriangleMesh(vertices, triangles)), solver.Plane(point=(0, 0, 0))]
        start = time.process_time()
        for _ in range(48):
            solver.step(model, state, params, 1 / 24, colliders)
        total = time.process_time() - start
        if best is None or total < best[0]:
            stretch = 100 * float(solver.metrics.stretch_summary(model, state.positions)[1])
            best = (total, dict(spent), state.last_substeps, stretch)
    assert best is not None
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenes", nargs="*", default=list(SCENES))
    parser.add_argument("--n", type=int, nargs="+", default=[24, 32])
    parser.add_argument("--kind", default="tri", choices=("tri", "quad"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--substeps", type=int, nargs="+", default=[0], help="0: the default (Params().substeps)")
    args = parser.parse_args()
    spent: dict = {}
    timed(spent)
    short = ("sweeps", "edges", "corners", "ridges", "vertices")
    print("| scene | N | ms/frame | substeps | " + " | ".join(short) + " | rest | max stretch % |")
    print("|---|---|---|---|" + "---|" * (len(short) + 2))
    for scene in args.scenes:
        for n in args.n:
            for asked in args.substeps:
                total, parts, substeps, stretch = run(scene, n, args.kind, args.rounds, spent, asked)
                shares = [f"{1000 * parts.get(p, 0.0) / 48:.1f}" for p in PASSES]
                rest = 1000 * (total - sum(parts.values())) / 48
                print(
                    f"| {scene} | {n} | {1000 * total / 48:.1f} | {substeps} | " + " | ".join(shares)
                    + f" | {rest:.1f} | {stretch:.1f} |", flush=True,
                )  # fmt: skip


if __name__ == "__main__":
    main()
