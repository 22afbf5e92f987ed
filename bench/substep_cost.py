# ruff: noqa
r"""A small cloth's cost a substep, this checkout against another, interleaved frame by frame in one process
(docs/design.md, issue 11, round 27 (substep_r27)).

Scenes (pure solver, Params() unless a recording's): `hang` (a 1.2 m cloth of one of the five mesh kinds, its top
row pinned, falling from flat), `drape` (the same cloth, unpinned, onto a 0.35 m sphere over a floor) at --n, and
`--cape REC` (a recording of bench/cape_cost_trace.py, replayed in both solvers: the model and every frame's inputs
as Blender gave them). Each frame runs in the other checkout's solver, then in this one's (alternating which goes
first); reported: CPU ms a frame of `step` and of its constraint sweeps (`step.project`), the median frame, best of
--rounds, and whether both end with the same positions (bit for bit).

    mkdir -p /tmp/base && git archive <base> | tar -x -C /tmp/base
    .venv/bin/python bench/substep_cost.py --against /tmp/base [--n 24 64] [--kinds tri quad] [--what hang drape]
    VC_ROOT=$PWD .venv/bin/python bench/substep_cost.py --against /tmp/base --cape /tmp/cape_tri24.pkl
"""

from __future__ import annotations

import argparse
import importlib
import io
import pickle
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import measure  # noqa: E402

import solver  # noqa: E402

KINDS = measure.KINDS


def _against(checkout: Path):
    """Another checkout's solver, imported as its own package (copied: its imports are relative)."""
    scratch = Path(tempfile.mkdtemp(prefix="vc_substep_"))
    shutil.copytree(checkout / "solver", scratch / "solver_against", ignore=shutil.ignore_patterns("__pycache__"))
    sys.path.insert(0, str(scratch))
    return importlib.import_module("solver_against")


class _Timed:
    """CPU seconds inside `<package>.step.project` (the constraint sweeps), wrapped in place."""

    def __init__(self, package):
        self.module = importlib.import_module(package.__name__ + ".step")
        self.real = self.module.project
        self.spent = 0.0

        def timed(*a):
            t = time.process_time()
            self.real(*a)
            self.spent += time.process_time() - t

        self.module.project = timed


def _scene(package, kind: str, n: int, what: str):
    v, f = measure.cloth_kind(kind, n, 1.2, 1.5, fan=(max(8, n), max(2, n // 6)))
    v = np.array(v, float)
    if what == "hang":
        top = v[:, 1] >= v[:, 1].max() - (0.05 if kind == "fan" else 1e-9)
        return package.build_model(v, f, pin_weight=top.astype(float)), lambda: []
    sphere, floor = package.Sphere(center=(0, 0, 0.6), radius=0.35), package.Plane(point=(0, 0, 0))
    return package.build_model(v, f), lambda: [sphere, floor]


def _scene_runs(packages, kind, n, what, frames):
    runs = []
    for p in packages:
        model, colliders = _scene(p, kind, n, what)
        state = model.initial_state()
        params = p.Params()
        runs.append(
            [
                (lambda p=p, m=model, s=state, c=colliders, pr=params: p.step(m, s, pr, 1 / 24, c()))
                for _ in range(frames)
            ]
        )
        runs[-1].append(state)
    return runs


def _cape_runs(packages, path, frames):
    with open(path, "rb") as fh:
        rec = pickle.load(fh)
    runs = []
    for p in packages:
        name = p.__name__

        class _Unpickler(pickle.Unpickler):
            def find_class(self, module, attr, name=name):
                if module.startswith("bl_ext.dev.verlet_cloth."):
                    module = module[len("bl_ext.dev.verlet_cloth.") :]
                if module == "solver" or module.startswith("solver."):
                    module = name + module[len("solver") :]
                return super().find_class(module, attr)

        loads = lambda b, u=_Unpickler: u(io.BytesIO(b)).load()  # noqa: E731
        model, state = loads(rec["model"]), loads(rec["state"])
        mc = importlib.import_module(name + ".mesh_collider")
        steps = []
        for f in rec["frames"][:frames] if frames else rec["frames"]:
            params = loads(f["params"])

            def frame(f=f, params=params, p=p, mc=mc, model=model, state=state, loads=loads):
                cols = []
                for c in f["colliders"]:
                    if not c["mesh"]:
                        cols.append(loads(c["obj"]))
                        continue
                    shape = mc.TriangleMesh(c["vertices"], c.get("given", c["triangles"]))
                    if c["deforming"]:
                        cols.append(
                            mc.MeshCollider(shape, mesh_start=c["start"], friction=c["friction"], offset=c["offset"])
                        )
                    elif c["pose"] is None:
                        cols.append(mc.MeshCollider(shape, friction=c["friction"], offset=c["offset"]))
                    else:
                        p0, p1 = c["pose"]
                        cols.append(
                            mc.MeshCollider(shape, pose=p1, pose_start=p0, friction=c["friction"], offset=c["offset"])
                        )
                p.step(
                    model,
                    state,
                    params,
                    f["frame_time"],
                    colliders=cols,
                    pin_targets=f["pins"],
                    pin_targets_start=f["pins_start"],
                )

            steps.append(frame)
        steps.append(state)
        runs.append(steps)
    return runs


def measure_row(packages, make, rounds):
    """Per package: (median step ms a frame, median project ms a frame) best over rounds; the final positions."""
    timers = [_Timed(p) for p in packages]
    best = [[np.inf, np.inf] for _ in packages]
    finals = None
    try:
        for r in range(rounds):
            runs = make()
            frames = len(runs[0]) - 1
            step_ms = [[] for _ in packages]
            proj_ms = [[] for _ in packages]
            for k in range(frames):
                order = range(len(packages)) if (k + r) % 2 == 0 else reversed(range(len(packages)))
                for i in order:
                    timers[i].spent = 0.0
                    t = time.process_time()
                    runs[i][k]()
                    step_ms[i].append(1000 * (time.process_time() - t))
                    proj_ms[i].append(1000 * timers[i].spent)
            for i in range(len(packages)):
                best[i][0] = min(best[i][0], statistics.median(step_ms[i]))
                best[i][1] = min(best[i][1], statistics.median(proj_ms[i]))
            finals = [run[-1].positions.copy() for run in runs]
    finally:
        for t in timers:
            t.module.project = t.real
    return best, finals


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--against", type=Path, required=True)
    ap.add_argument("--n", type=int, nargs="*", default=[24])
    ap.add_argument("--kinds", nargs="*", default=list(KINDS))
    ap.add_argument("--what", nargs="*", default=["hang", "drape"])
    ap.add_argument("--frames", type=int, default=24)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cape", nargs="*", default=[])
    args = ap.parse_args()
    packages = (_against(args.against), solver)
    print(
        f"| scene | {args.against}: step / constraints ms | this checkout | ratio step / constraints | same positions |"
    )
    print("| --- | --- | --- | --- | --- |")
    rows = [
        (f"{w} {k} {n}²", lambda w=w, k=k, n=n: _scene_runs(packages, k, n, w, args.frames))
        for n in args.n
        for w in args.what
        for k in args.kinds
    ]
    rows += [(Path(c).stem, lambda c=c: _cape_runs(packages, c, 0)) for c in args.cape]
    for name, make in rows:
        (a, b), finals = measure_row(packages, make, args.rounds)
        same = bool(np.array_equal(finals[0], finals[1]))
        print(
            f"| {name} | {a[0]:.2f} / {a[1]:.2f} | {b[0]:.2f} / {b[1]:.2f} | {b[0] / a[0]:.3f} / {b[1] / a[1]:.3f} | {same} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
