"""Solver CPU time per frame of this checkout against another one, both in one process, frame by frame.

Usage: .venv/bin/python bench/solver_against.py OTHER_CHECKOUT [--starts 3] [--frames 48] kind ...
  kinds: as bench/mesh_kinds_solver.py (quad triangulated irregular fan holed quad128 ...), Auto Substeps
The other checkout's solver/ and this one's are loaded as two packages; each start builds both models
and steps them alternately frame by frame (the first one alternating too), so both see the same machine
state, which on a shared machine matters more than anything else. Prints per kind each one's best
start (CPU ms a frame, time.process_time) and every start, the change, and whether the final
positions are bit-identical.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import mesh_kinds_solver
import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def _load(root: Path, name: str):
    spec = importlib.util.spec_from_file_location(
        name, root / "solver" / "__init__.py", submodule_search_locations=[str(root / "solver")]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _start(solver, vertices, faces):
    model = solver.build_model(vertices, faces)
    edges = model.constraints.kind == solver.STRUCTURAL
    mean_edge = float(model.constraints.rest_length[edges].mean())
    params = solver.Params(substeps=solver.params.auto_substeps(1 / 24, mean_edge))
    colliders = [solver.Sphere(center=(0, 0, 0.5), radius=0.5), solver.Plane(point=(0, 0, 0))]
    return model, model.initial_state(), params, colliders


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("other", type=Path)
    parser.add_argument("kinds", nargs="+")
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--frames", type=int, default=48)
    args = parser.parse_args()
    solvers = {"other": _load(args.other.resolve(), "solver_other"), "this": _load(ROOT, "solver_this")}
    for kind in args.kinds:
        vertices, faces = mesh_kinds_solver.mesh(kind)
        spent: dict[str, list[float]] = {label: [] for label in solvers}
        same = True
        for _ in range(args.starts):
            runs = {label: _start(solver, vertices, faces) for label, solver in solvers.items()}
            seconds = dict.fromkeys(solvers, 0.0)
            for frame in range(args.frames):
                for label in list(solvers)[:: 1 if frame % 2 == 0 else -1]:
                    model, state, params, colliders = runs[label]
                    started = time.process_time()
                    solvers[label].step(model, state, params, 1 / 24, colliders)
                    seconds[label] += time.process_time() - started
            for label in solvers:
                spent[label].append(1000 * seconds[label] / args.frames)
            same = same and np.array_equal(runs["other"][1].positions, runs["this"][1].positions)
        other, this = min(spent["other"]), min(spent["this"])
        print(
            f"{kind:13s} other {other:6.2f} ({', '.join(f'{v:.2f}' for v in spent['other'])})  "
            f"this {this:6.2f} ({', '.join(f'{v:.2f}' for v in spent['this'])})  {100 * (this / other - 1):+.1f}%  "
            f"bit-identical: {same}",
            flush=True,
        )


if __name__ == "__main__":
    main()
