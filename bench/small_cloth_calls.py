"""A small cloth's Python/NumPy calls a substep, by pass, and its CPU ms a frame against another checkout (issue 11).

A 1.2 m 24² cloth of each of the five mesh kinds (bench/identity.py's quad, tri, jitter, fan, holed) falls from
1.1 m for --frames frames onto a mesh collider over a floor plane: `table` (solver.meshes.boxes(): a 1 × 0.7 m top on
four 7 cm legs), `chair` (a 0.45 m seat on four 4 cm legs and a back, closed boxes), `uvsphere` (32 × 16, r 0.5 on
the floor) or `box` (a 0.5 m cube on the floor); Params() (16 substeps, 1 sweep).

`--count`: every call that sys.setprofile sees inside step() (a Python function's call, or a C function's or method's:
np.concatenate, ndarray.sum, a ufunc called by name; not an operator such as `a + b` or `a[i]`), per substep,
attributed to the function step() called (its pass: `collide_cloth_corners`, `project`, ...; `(step)` its own).

`--against CHECKOUT`: CPU ms a frame (process time of step(), median over the frames, best of --rounds), this tree's
solver and CHECKOUT's (e.g. a `git archive` of the base) in turn frame by frame in one process, and whether the two
end bit-identical (max |Δx| of the positions).

    .venv/bin/python bench/small_cloth_calls.py --count [--scenes table chair] [--kinds tri]
    .venv/bin/python bench/small_cloth_calls.py --against /tmp/base --rounds 3

docs/design.md, issue 11, round 23 (smallcloth23).
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from identity import cloth  # noqa: E402
from mesh_collider_cost import _against  # noqa: E402

import solver  # noqa: E402
from solver import meshes  # noqa: E402

FRAME = 1 / 24
KINDS = ("quad", "tri", "jitter", "fan", "holed")
CHAIR = (
    ((0.0, 0.0, 0.45), (0.45, 0.45, 0.04)),  # seat
    *(((x, y, 0.215), (0.04, 0.04, 0.43)) for x in (-0.2, 0.2) for y in (-0.2, 0.2)),  # legs
    ((0.0, 0.205, 0.695), (0.45, 0.04, 0.45)),  # back
)
SCENES = {
    "table": meshes.boxes,
    "chair": lambda: meshes.boxes(CHAIR),
    "uvsphere": lambda: meshes.uv_sphere(32, 16, 0.5, (0.0, 0.0, 0.5)),
    "box": lambda: meshes.boxes((((0.0, 0.0, 0.25), (0.5, 0.5, 0.5)),)),
}


def setup(package, scene: str, kind: str, n: int):
    vertices, faces = cloth(kind, n, size=1.2, height=1.1)
    model = package.build_model(vertices, faces)
    shape = package.TriangleMesh(*SCENES[scene]())
    return model, model.initial_state(), package.Params(), shape, package.Plane(point=(0, 0, 0))


def count(scene: str, kind: str, n: int, frames: int) -> tuple[int, collections.Counter]:
    """(substeps run, Counter pass -> calls) over `frames` frames."""
    model, state, params, shape, floor = setup(solver, scene, kind, n)
    step_code = solver.step.__code__
    calls: collections.Counter = collections.Counter()

    def pass_of(frame) -> str | None:
        if frame.f_code is step_code:
            return "(step)"
        while frame.f_back is not None:
            if frame.f_back.f_code is step_code:
                return frame.f_code.co_name
            frame = frame.f_back
        return None

    def hook(frame, event, arg):
        if event in {"call", "c_call"}:
            name = pass_of(frame)
            if name is not None and not (event == "call" and frame.f_code is step_code):
                calls[name] += 1

    substeps = 0
    for _ in range(frames):
        collider = solver.MeshCollider(shape)
        sys.setprofile(hook)
        try:
            solver.step(model, state, params, FRAME, [collider, floor])
        finally:
            sys.setprofile(None)
        substeps += state.last_substeps
    return substeps, calls


def timed(packages, scene: str, kind: str, n: int, frames: int, rounds: int):
    """Per package: CPU ms a frame (median over frames, best of rounds) and the final positions."""
    best = [float("inf")] * len(packages)
    ends = [None] * len(packages)
    for _ in range(rounds):
        runs = [setup(p, scene, kind, n) for p in packages]
        spent: list[list[float]] = [[] for _ in packages]
        for _ in range(frames):
            for i, (package, (model, state, params, shape, floor)) in enumerate(zip(packages, runs, strict=True)):
                collider = package.MeshCollider(shape)
                started = time.process_time()
                package.step(model, state, params, FRAME, [collider, floor])
                spent[i].append(time.process_time() - started)
        for i, run in enumerate(runs):
            best[i] = min(best[i], 1000 * statistics.median(spent[i]))
            ends[i] = run[1].positions.copy()
    return best, ends


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", action="store_true")
    parser.add_argument("--against", type=Path)
    parser.add_argument("--scenes", nargs="+", default=list(SCENES))
    parser.add_argument("--kinds", nargs="+", default=list(KINDS))
    parser.add_argument("--n", type=int, default=24)
    parser.add_argument("--frames", type=int, default=48)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--top", type=int, default=8, help="--count: the passes shown a row")
    args = parser.parse_args()
    if args.count:
        for scene in args.scenes:
            for kind in args.kinds:
                substeps, calls = count(scene, kind, args.n, args.frames)
                total = sum(calls.values()) / substeps
                parts = ", ".join(f"{name} {c / substeps:.0f}" for name, c in calls.most_common(args.top))
                print(f"{scene:9s} {kind:6s} calls/substep {total:6.0f}: {parts}", flush=True)
    if args.against is not None:
        packages = [solver, _against(args.against)]
        print("scene     kind   ms/frame this / against   ratio  max|dx| of the ends")
        for scene in args.scenes:
            for kind in args.kinds:
                (mine, theirs), (a, b) = timed(packages, scene, kind, args.n, args.frames, args.rounds)
                dx = float(np.max(np.abs(a - b)))
                print(f"{scene:9s} {kind:6s} {mine:7.2f} / {theirs:7.2f}   {mine / theirs:5.3f}   {dx:.3g}", flush=True)


if __name__ == "__main__":
    main()
