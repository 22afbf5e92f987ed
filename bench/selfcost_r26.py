"""Face self-collision's cost at 128² against the plain step (round 26, selfcost_r26).

Usage: .venv/bin/python bench/selfcost_r26.py SCENE N FRAMES [--engines off,vertex,face] [--rounds R]
                                              [--root DIR] [--set MODULE.NAME=VALUE ...]
  SCENE: drape-quad, drape-tri (bench.py's drape from rest over the 0.5 m sphere and floor, quad or
         triangulated n² grid), crumple (self_collision_scenes.crumple: a soft 1 m sheet dropped edge-first).
  e.g. bench/selfcost_r26.py drape-quad 128 48 --rounds 2
Each round runs every engine once, interleaved; prints CPU ms/frame (time.process_time), the md5 of the
final positions, and the ratio of each engine's best to the plain step's best.  --root runs another
checkout's solver (e.g. a `git worktree` of the base) so that base and branch can be run side by side;
--set flips a module-level switch (e.g. --set solver.face_collision.SOME_RULE=True) before the runs.
--crossings also counts intersecting face pairs at the end (slow at 128²).
"""

from __future__ import annotations

import hashlib
import importlib
import sys
import time
from pathlib import Path

ARGS = sys.argv[1:]


def _opt(name, default=None):
    return next((a.split("=", 1)[1] for a in ARGS if a.startswith(f"--{name}=")), default)


ROOT = Path(_opt("root", str(Path(__file__).resolve().parent.parent)))
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import solver  # noqa: E402
from solver.intersections import count_self_intersections  # noqa: E402
from solver.meshes import triangulated  # noqa: E402

FRAME = 1 / 24
FLOOR = solver.Plane(point=(0, 0, 0))


def _params(engine: str, **settings) -> solver.Params:
    return solver.Params(self_collision=engine != "off", self_collision_faces=engine == "face", **settings)


def scene(name: str, n: int, engine: str):
    """(model, state, params, colliders)."""
    if name.startswith("drape"):
        vertices, faces = solver.grid(n, n, size=2.0, height=1.5)
        faces = triangulated(faces) if name.endswith("tri") else faces
        model = solver.build_model(vertices, faces)
        colliders = [solver.Sphere(center=(0, 0, 0.5), radius=0.5), FLOOR]
        return model, model.initial_state(), _params(engine), colliders
    if name == "crumple":
        vertices, faces = solver.grid(n, n, size=1.0)
        model = solver.build_model(vertices[:, [0, 2, 1]] + [0.0, 0.0, 0.52], faces)
        params = _params(engine, bend_stiffness=0.2, friction=0.5)
        state = model.initial_state()
        state.previous[:, 1] -= 0.3 * (state.positions[:, 2] - 0.02) * (FRAME / params.substeps)
        return model, state, params, [FLOOR]
    raise SystemExit(f"unknown scene {name}")


def run(name: str, n: int, frames: int, engine: str, crossings: bool):
    model, state, params, colliders = scene(name, n, engine)
    start = time.process_time()
    for _ in range(frames):
        solver.step(model, state, params, FRAME, colliders)
    ms = 1e3 * (time.process_time() - start) / frames
    md5 = hashlib.md5(state.positions.tobytes()).hexdigest()[:10]
    count = count_self_intersections(model, state.positions) if crossings else None
    return ms, md5, count


def main() -> None:
    plain = [a for a in ARGS if not a.startswith("--")]
    name, n, frames = plain[0], int(plain[1]), int(plain[2])
    engines = _opt("engines", "off,vertex,face").split(",")
    rounds = int(_opt("rounds", "1"))
    for a in ARGS:
        if a.startswith("--set="):
            target, value = a.split("=", 2)[1:]
            module, attr = target.rsplit(".", 1)
            setattr(importlib.import_module(module), attr, eval(value))  # noqa: S307
    crossings = "--crossings" in ARGS
    best: dict[str, float] = {}
    print(f"{name} {n}² {frames} frames, root {ROOT}", flush=True)
    for r in range(rounds):
        for engine in engines:
            ms, md5, count = run(name, n, frames, engine, crossings)
            best[engine] = min(best.get(engine, np.inf), ms)
            extra = "" if count is None else f" crossings {count}"
            print(f"round {r} {engine:6s} {ms:9.1f} ms/frame md5 {md5}{extra}", flush=True)
    if "off" in best:
        print("best: " + "  ".join(f"{e} {best[e]:.1f} (x{best[e] / best['off']:.2f})" for e in engines))


if __name__ == "__main__":
    main()
