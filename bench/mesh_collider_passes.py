"""Where a rigid mesh collider's time goes in the solver step, pass by pass (solver-only, no Blender).

The 64² cloth of bench/mesh_collider_cost.py (quad, triangulated or irregular: `meshes.jittered_grid`)
falls onto one of its scenes; over frames FIRST..LAST the step's collision calls and the candidate
lists' methods are wrapped in CPU-time timers (process time; calls nest, so the indented rows are
parts of the row above). The last line is the positions' sum, to tell identical drapes.

    .venv/bin/python bench/mesh_collider_passes.py roundtable/quad [--frames 12:36] [--checkout <path>]
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

import numpy as np

ROWS = (  # (module, object, method, label)
    ("step", None, "project", "constraint sweeps"),
    ("step", None, "collide_cloth_edges", "edge pass (passes and holds)"),
    ("edge_list", "_EdgeList", "pairs", "  edge list (live test and queries)"),
    ("edge_list", "_EdgeList", "_query", "    edge list queries"),
    ("edge_contacts", None, "iterate_edge_contacts", "  edge iterations"),
    ("edge_contacts", None, "hold_edges", "  edge hold"),
    ("step", None, "collide_cloth_corners", "corner pass (passes and holds)"),
    ("corner_contacts", "_CornerList", "pairs", "  corner list"),
    ("corner_contacts", "_CornerList", "_query", "    corner list queries"),
    ("corner_contacts", None, "_hold", "  corner hold"),
    ("step", None, "collide", "vertex pass and floor"),
    ("mesh_collider", "_Candidates", "pairs", "  vertex list"),
    ("mesh_collider", "_Candidates", "_query", "    vertex list queries"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("row", help="scene/kind: torus, ball, table, roundtable / quad, triangulated, irregular")
    parser.add_argument("--frames", default="12:36", help="FIRST:LAST frames timed (default 12:36)")
    parser.add_argument("--checkout", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args()
    sys.path.insert(0, str(args.checkout.resolve()))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    # The checkout's solver first: mesh_collider_cost puts this one's directory on the path too.
    solver = importlib.import_module("solver")
    meshes = importlib.import_module("solver.meshes")
    from mesh_collider_cost import SCENES

    first, last = (int(f) for f in args.frames.split(":"))
    timing = [False]
    totals: dict[str, list] = {}

    def timed(function, label):
        def wrapper(*a, **k):
            if not timing[0]:
                return function(*a, **k)
            started = time.process_time()
            try:
                return function(*a, **k)
            finally:
                total = totals.setdefault(label, [0.0, 0])
                total[0] += time.process_time() - started
                total[1] += 1

        return wrapper

    for module_name, owner_name, name, label in ROWS:
        module = importlib.import_module(f"solver.{module_name}")
        owner = module if owner_name is None else getattr(module, owner_name)
        setattr(owner, name, timed(getattr(owner, name), label))

    scene, _, kind = args.row.partition("/")
    if kind == "irregular":
        rest, faces = meshes.jittered_grid(64, size=2.0, height=1.0)
    else:
        rest, faces = meshes.grid(64, 64, size=2.0, height=1.0)
        faces = meshes.triangulated(faces) if kind == "triangulated" else faces
    model, shape = solver.build_model(rest, faces), solver.TriangleMesh(*SCENES[scene]())
    params, floor = solver.Params(), solver.Plane(point=(0, 0, 0))
    state = model.initial_state()
    step_time = 0.0
    for frame in range(last):
        timing[0] = frame >= first
        started = time.process_time()
        solver.step(model, state, params, 1 / 24, [solver.MeshCollider(shape), floor])
        step_time += time.process_time() - started if timing[0] else 0.0
    print(f"| {args.row}, frames {first}-{last} | CPU s | calls |")
    print("| --- | --- | --- |")
    print(f"| step | {step_time:.3f} | {last - first} |")
    for *_, label in ROWS:
        seconds, calls = totals.get(label, (0.0, 0))
        print(f"| {label} | {seconds:.3f} | {calls} |")
    print(f"positions' sum {float(np.sum(state.positions)):.6f}")


if __name__ == "__main__":
    main()
