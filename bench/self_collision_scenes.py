"""Self-collision scenes: intersecting face pairs at the end, and the time they took.

Usage: .venv/bin/python bench/self_collision_scenes.py [sizes] [frames]
  e.g. bench/self_collision_scenes.py 16,24 48 [--query] [--drape]

Crumple: a soft (bend 0.2) 1 m n×n sheet dropped edge-first from 2 cm above the floor, tipped so
it folds over itself as it piles up; gap 1 cm (2 × the default thickness). Each engine runs the
same frames: "off" (no self-collision), "vertex" (vertex–vertex: Params.self_collision_faces off)
and "face" (vertex–triangle + edge–edge, solver/face_collision.py: the default). Intersections: pairs of
polygons that pass through each other and share no vertex (solver/intersections.py).
Also the 128² drape (bench.py's scene) timed over frames 10-13, around the impact (--drape), and
one full face-based candidate query on it at frame 12, just after impact (--query); and the n²
drape from rest over the given frames, with its intersecting pairs at the end (--from-rest=64,128;
--from-rest-meshes=quad,jittered,triangulated for other meshes than the quad grid).
Flag (--flag=24): an n×n 1 m sheet hanging in the XZ plane, pinned along one side, in a gentle steady
wind (2 m/s) and a gusty one (6 m/s, turbulence 0.5): a cloth with nothing near itself, where face
contacts should cost little more than the plain step.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import solver  # noqa: E402
from solver.face_collision import FaceCollision  # noqa: E402
from solver.intersections import count_self_intersections  # noqa: E402
from solver.meshes import fan_disc, holed_grid, jittered_grid, triangulated  # noqa: E402

FRAME = 1 / 24
FLOOR = solver.Plane(point=(0, 0, 0))


def _params(engine: str, **settings) -> solver.Params:
    """Settings for an engine: "off", "vertex" (vertex–vertex) or "face" (the default with self-collision)."""
    return solver.Params(self_collision=engine != "off", self_collision_faces=engine == "face", **settings)


def _timed(model, params, state, frames: int, colliders) -> float:
    """CPU ms per frame of `frames` steps of `state`."""
    start = time.process_time()
    for _ in range(frames):
        solver.step(model, state, params, FRAME, colliders)
    return 1e3 * (time.process_time() - start) / frames


def crumple(engine: str, n: int, frames: int):
    vertices, faces = solver.grid(n, n, size=1.0)
    model = solver.build_model(vertices[:, [0, 2, 1]] + [0.0, 0.0, 0.52], faces)
    params = _params(engine, bend_stiffness=0.2, friction=0.5)
    state = model.initial_state()
    state.previous[:, 1] -= 0.3 * (state.positions[:, 2] - 0.02) * (FRAME / params.substeps)  # the tip
    ms = _timed(model, params, state, frames, [FLOOR])
    return count_self_intersections(model, state.positions), ms


FLAG_WINDS = {"gentle": ((2.0, 0.0, 0.0), 0.0), "gusty": ((6.0, 0.0, 0.0), 0.5)}


def flag(engine: str, n: int, frames: int, wind: str = "gentle", mesh: str = "quad"):
    """An n×n 1 m flag (mesh: quad, triangulated or jittered) pinned along its x = 0 side, in the
    FLAG_WINDS `wind`: (intersecting face pairs at the end, CPU ms/frame)."""
    if mesh == "jittered":
        vertices, faces = jittered_grid(n, size=1.0)
    else:
        vertices, faces = solver.grid(n, n, size=1.0)
        faces = triangulated(faces) if mesh == "triangulated" else faces
    vertices = vertices[:, [0, 2, 1]] + [0.5, 0.0, 1.5]  # upright, the pole at x = 0
    pinned = np.isclose(vertices[:, 0], vertices[:, 0].min()).astype(np.float64)
    model = solver.build_model(vertices, faces, pin_weight=pinned)
    velocity, gusts = FLAG_WINDS[wind]
    params = _params(engine, wind=velocity, turbulence=gusts, turbulence_scale=0.5)
    state = model.initial_state()
    ms = _timed(model, params, state, frames, [])
    return count_self_intersections(model, state.positions), ms


def _drape(n: int, frames: int):
    """The n² drape over sphere and floor after `frames` frames without self-collision: (model, colliders, state)."""
    vertices, faces = solver.grid(n, n, size=2.0, height=1.5)
    model = solver.build_model(vertices, faces)
    colliders = [solver.Sphere(center=(0, 0, 0.5), radius=0.5), FLOOR]
    state = model.initial_state()
    for _ in range(frames):
        solver.step(model, state, solver.Params(), FRAME, colliders)
    return model, colliders, state


def drape_cost(n: int = 128, warm: int = 10, frames: int = 4) -> dict[str, float]:
    """CPU ms/frame of the n² drape over `frames` frames after `warm` frames without self-collision."""
    model, colliders, base = _drape(n, warm)
    out = {}
    for engine in ("off", "vertex", "face"):
        out[engine] = _timed(model, _params(engine), base.copy(), frames, colliders)
    return out


def drape_scene(n: int, mesh: str = "quad"):
    """The bench's drape at rest: (model, colliders, state) of an n² 2 m cloth (quad, triangulated,
    jittered, holed: a 0.36 m hole off-centre, or fan: a 2 m disc of 4n/3 spokes and n/4 rings) 1.5 m over
    a 0.5 m sphere on the floor."""
    if mesh == "jittered":
        vertices, faces = jittered_grid(n, size=2.0, height=1.5)
    elif mesh == "holed":
        vertices, faces = holed_grid(n, size=2.0, height=1.5, centre=(0.4, 0.2), radius=0.36)
    elif mesh == "fan":
        vertices, faces = fan_disc(spokes=4 * n // 3, rings=max(2, n // 4), radius=1.0, height=1.5)
    else:
        vertices, faces = solver.grid(n, n, size=2.0, height=1.5)
        faces = triangulated(faces) if mesh == "triangulated" else faces
    model = solver.build_model(vertices, faces)
    return model, [solver.Sphere(center=(0, 0, 0.5), radius=0.5), FLOOR], model.initial_state()


def drape_run(n: int, frames: int = 48, mesh: str = "quad") -> str:
    """The n² drape from rest over `frames` frames (the bench's scene, bench.py's self-collision
    line; mesh: quad, triangulated or jittered): CPU ms/frame and intersecting face pairs at the
    end, for each engine."""
    cells = []
    for engine in ("off", "vertex", "face"):
        model, colliders, state = drape_scene(n, mesh)
        ms = _timed(model, _params(engine), state, frames, colliders)
        cells.append(f"{engine} {count_self_intersections(model, state.positions)} ({ms:.0f} ms)")
    return f"{n}² {mesh} drape from rest, {frames} frames: " + "   ".join(cells)


def query_cost(n: int = 128, frames: int = 12) -> str:
    """One full FaceCollision candidate query on the n² drape after `frames` frames (CPU s, counts)."""
    model, _, state = _drape(n, frames)
    collision = FaceCollision(model, 0.01)
    start = time.process_time()
    collision.refresh(state.positions, state.previous)  # the last substep's motion
    seconds = time.process_time() - start
    counts = f"{len(collision.p)} vertex–triangle, {len(collision.e)} edge–edge"
    return f"{n}² drape, one full face-based query at frame {frames}: {seconds:.2f} s CPU ({counts})"


def main() -> None:
    sizes = [int(s) for s in (sys.argv[1] if len(sys.argv) > 1 else "16,24").split(",")]
    frames = int(sys.argv[2]) if len(sys.argv) > 2 else 48
    print(f"crumple, {frames} frames: intersecting face pairs at the end (CPU ms/frame)")
    for n in sizes:
        cells = []
        for engine in ("off", "vertex", "face"):
            count, ms = crumple(engine, n, frames)
            cells.append(f"{engine} {count:5d} ({ms:7.1f} ms)")
        print(f"{n:3d}²  " + "   ".join(cells), flush=True)
    for arg in sys.argv:
        if arg.startswith("--flag="):  # e.g. --flag=24
            for n in arg.split("=")[1].split(","):
                for wind in FLAG_WINDS:
                    cells = []
                    for engine in ("off", "vertex", "face"):
                        count, ms = flag(engine, int(n), frames, wind)
                        cells.append(f"{engine} {count:5d} ({ms:7.1f} ms)")
                    print(f"{int(n):3d}² flag, {wind} wind  " + "   ".join(cells), flush=True)
    if "--query" in sys.argv:
        print(query_cost(), flush=True)
    meshes = ["quad"]
    for arg in sys.argv:
        if arg.startswith("--from-rest-meshes="):  # e.g. --from-rest-meshes=quad,jittered
            meshes = arg.split("=")[1].split(",")
    for arg in sys.argv:
        if arg.startswith("--from-rest="):  # e.g. --from-rest=64,128
            for n in arg.split("=")[1].split(","):
                for mesh in meshes:
                    print(drape_run(int(n), frames, mesh), flush=True)
    if "--drape" in sys.argv:
        cost = drape_cost()
        print("128² drape, frames 10-13 (CPU ms/frame): " + ", ".join(f"{k} {v:.0f}" for k, v in cost.items()))


if __name__ == "__main__":
    main()
