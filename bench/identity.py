"""Fingerprints of the solver's physics: md5 of the final positions over many scenes (pure NumPy, no Blender).

Run it on two checkouts and diff the outputs: equal lines mean the same positions to the last bit, so a change
meant to be bit-identical (a cost cut) can be proved so, and one that is not shows which scenes it moves.

    .venv/bin/python bench/identity.py [--n 24] [--frames 24] [scene ...] > a.txt
    diff <(cut -d' ' -f1-2 a.txt) <(cut -d' ' -f1-2 b.txt)

Scenes: each of five mesh kinds (quad, tri, jitter, fan, holed) dropped onto a torus, an ico ball, a table of
boxes, a tilted zero-thickness sheet and a box moving up through it (rigid, 3 m/s), all over a floor; plus a
crumple with face self-collision and one with vertex-vertex. Each line: scene, md5 (10 hex digits), CPU seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import measure  # noqa: E402
import mesh_collider_cost as cost  # noqa: E402
from measure import KINDS  # noqa: E402
from mesh_kinds_solver import torus  # noqa: E402

import solver  # noqa: E402
from solver import meshes  # noqa: E402

COLLIDERS = ("torus", "ball", "table", "sheet", "rising")
FRAME = 1 / 24


def cloth(kind: str, n: int, size: float = 1.6, height: float = 1.1):
    return measure.cloth_kind(kind, n, size, height, fan=(max(8, n), max(2, n // 6)))


def _box(half=(0.3, 0.3, 0.15)):
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * half
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    triangles = np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))])
    return corners, triangles


def _pose(z: float) -> np.ndarray:
    pose = np.eye(4)
    pose[2, 3] = z
    return pose


def colliders_at(name: str, frame: int, shapes: dict) -> list:
    floor = solver.Plane(point=(0, 0, 0))
    if name == "sheet":
        sheet = solver.TriangleMesh(
            np.array([[-1.5, -1.5, 0.2], [1.5, -1.5, 0.8], [1.5, 1.5, 0.8], [-1.5, 1.5, 0.2]]), [(0, 1, 2), (0, 2, 3)]
        )
        return [solver.MeshCollider(sheet), floor]
    if name == "rising":  # a box rising at 3 m/s from under the floor through the cloth, then still
        z = lambda f: min(-0.2 + 3.0 * f * FRAME, 0.9)  # noqa: E731
        return [solver.MeshCollider(shapes["box"], pose=_pose(z(frame + 1)), pose_start=_pose(z(frame))), floor]
    return [solver.MeshCollider(shapes[name]), floor]


def run(scene: str, n: int, frames: int) -> tuple[str, float]:
    start = time.process_time()
    if scene.startswith("self-"):
        vertices, faces = meshes.grid(n, n, size=1.0, height=0.0)
        vertices = vertices[:, [0, 2, 1]] + [0.0, 0.0, 0.6]  # dropped edge-first: it crumples on the floor
        model = solver.build_model(vertices, faces)
        params = solver.Params(
            self_collision=True, self_collision_faces=scene == "self-faces", bend_stiffness=0.2, substeps=8
        )
        state = model.initial_state()
        for _ in range(frames):
            solver.step(model, state, params, FRAME, [solver.Plane(point=(0, 0, 0))])
    else:
        kind, name = scene.split("-")
        shapes = {
            "torus": lambda: solver.TriangleMesh(*torus(segments=96, rings=24)),
            "ball": lambda: solver.TriangleMesh(*cost.ico_ball(3)),
            "table": lambda: solver.TriangleMesh(*cost.table()),
        }
        shapes = {key: make() for key, make in shapes.items() if key == name}
        shapes["box"] = solver.TriangleMesh(*_box())
        model = solver.build_model(*cloth(kind, n))
        params = solver.Params()
        state = model.initial_state()
        for frame in range(frames):
            solver.step(model, state, params, FRAME, colliders_at(name, frame, shapes))
    digest = hashlib.md5(np.ascontiguousarray(state.positions, dtype=np.float64).tobytes()).hexdigest()[:10]
    return digest, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenes", nargs="*")
    parser.add_argument("--n", type=int, default=24)
    parser.add_argument("--frames", type=int, default=24)
    args = parser.parse_args()
    scenes = args.scenes or [f"{k}-{c}" for c in COLLIDERS for k in KINDS] + ["self-faces", "self-vertices"]
    for scene in scenes:
        digest, seconds = run(scene, args.n, args.frames)
        print(f"{scene} {digest} {seconds:.2f}", flush=True)


if __name__ == "__main__":
    main()
