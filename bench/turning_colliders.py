"""Rigid mesh colliders that turn, solver-only (issue 11, rounds 12-13: tumble15, turn16): cost and hooks.

Scenes (Auto Substeps, friction 0.3):
- turntable: a 2.2 m 64² cloth draped over the tests' 1.6 m platform (20 still frames), then 60 frames of the
  platform turning at 90°/s about its centre (the cost: ms/frame over the turning frames);
- tumble: the tests' 0.4 m box keyed from x -1 to 1 m over frames 4-12 (6 m/s) while turning (0.4, 0.3, 1.2)
  rad, through a pinned 1.2 m 20² curtain (the cost: ms/frame over the 9 moving frames);
- spin: the box spinning in place (its centre 3 cm behind the curtain's plane, its corners sweeping into it) by
  (0.2, 0.3, 1.5) rad over frames 4-12; spinfast: (0.4, 0.6, 4.0) rad.
Per run: the most cloth edges through the collider's triangles at a frame's end (checked every 5th frame on
the turntable), the largest stretch at the end, and CPU time (process_time) of the steps.

    .venv/bin/python bench/turning_colliders.py [--against OTHER_CHECKOUT] [--rounds 2] [--scenes turntable,tumble]
        [--kinds quad,triangulated]

With --against, each run is made in its own process for this checkout and OTHER, interleaved, best CPU time
of the rounds.
"""

import argparse
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent.parent
FRAME = 1 / 24


def _euler(angles) -> np.ndarray:
    x, y, z = angles
    rx = np.array([[1, 0, 0], [0, math.cos(x), -math.sin(x)], [0, math.sin(x), math.cos(x)]])
    ry = np.array([[math.cos(y), 0, math.sin(y)], [0, 1, 0], [-math.sin(y), 0, math.cos(y)]])
    rz = np.array([[math.cos(z), -math.sin(z), 0], [math.sin(z), math.cos(z), 0], [0, 0, 1]])
    return rz @ ry @ rx


def _crossing(x, edges, vertices, triangles) -> int:
    from solver.triangles import segment_crossings

    a, b, c = (vertices[triangles[:, k]] for k in range(3))
    e, t = len(edges), len(triangles)
    ends = [np.repeat(x[edges[:, k]], t, axis=0).T for k in (0, 1)]
    corners = [np.tile(m, (e, 1)).T for m in (a, b, c)]
    return int(segment_crossings(*ends, *corners)[0].reshape(e, t).any(axis=1).sum())


def run(scene: str, kind: str) -> tuple[int, float, float]:
    """(most crossing edges, end stretch, CPU ms a frame) of one scene, in this process's checkout."""
    import test_mesh_collider_moving_rigid as rigid

    import solver
    from solver import meshes

    worst, spent = 0, 0.0
    if scene == "turntable":
        v, faces = meshes.grid(64, 64, size=2.2, height=rigid.DEPTH + 0.01)
        faces = meshes.triangulated(faces) if kind == "triangulated" else faces
        rest = np.asarray(v, float)
        model = solver.build_model(rest, faces)
        state, params = model.initial_state(), solver.Params(friction=0.3, substeps_follow_motion=True)
        mesh = rigid.platform()
        edges = np.asarray(model.cloth_edges[0])
        frames = 60
        for frame in range(20 + frames):
            start, end = (0.5 * math.pi * max(frame + k - 20, 0) * FRAME for k in (0, 1))
            pose = rigid.pose(0.0, end)
            collider = solver.MeshCollider(mesh, pose=pose, pose_start=rigid.pose(0.0, start))
            t0 = time.process_time()
            solver.step(model, state, params, FRAME, colliders=[collider])
            if frame >= 20:
                spent += time.process_time() - t0
                if frame % 5 == 0:
                    placed = mesh.vertices @ pose[:3, :3].T + pose[:3, 3]
                    worst = max(worst, _crossing(state.positions, edges, placed, mesh.triangles))
    else:
        travel = 2.0 if scene == "tumble" else 0.0
        turn = {"tumble": (0.4, 0.3, 1.2), "spin": (0.2, 0.3, 1.5), "spinfast": (0.4, 0.6, 4.0)}[scene]
        centre = -1.0 if scene == "tumble" else -0.23

        def pose(frame: int) -> np.ndarray:
            s = min(max((frame - 4) / 8, 0.0), 1.0)
            m = np.eye(4)
            m[:3, :3] = _euler([a * s for a in turn])
            m[:3, 3] = (centre + travel * s, 0.0, 0.8)
            return m

        h = 0.2
        box = np.array([[x, y, z] for z in (-h, h) for y in (-h, h) for x in (-h, h)], float)
        quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
        triangles = np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))])
        shape = solver.TriangleMesh(box, triangles)
        v, faces = meshes.grid(20, 20, size=1.2)
        v = np.asarray(v, float)
        rest = np.column_stack([np.zeros(len(v)), v[:, 0], v[:, 1] + 0.8])
        faces = meshes.triangulated(faces) if kind == "triangulated" else faces
        model = solver.build_model(rest, faces, pin_weight=(rest[:, 2] > 1.39).astype(float))
        state, params = model.initial_state(), solver.Params(substeps_follow_motion=True, friction=0.3)
        edges = np.asarray(model.cloth_edges[0])
        frames = 9
        for frame in range(2, 31):
            collider = solver.MeshCollider(shape, pose=pose(frame), pose_start=pose(frame - 1))
            t0 = time.process_time()
            solver.step(model, state, params, FRAME, colliders=[collider], pin_targets=rest)
            if 4 <= frame <= 12:
                spent += time.process_time() - t0
            placed = box @ pose(frame)[:3, :3].T + pose(frame)[:3, 3]
            worst = max(worst, _crossing(state.positions, edges, placed, triangles))
    length = np.linalg.norm(state.positions[edges[:, 0]] - state.positions[edges[:, 1]], axis=1)
    at_rest = np.linalg.norm(rest[edges[:, 0]] - rest[edges[:, 1]], axis=1)
    return worst, float((length / at_rest - 1.0).max()), 1000.0 * spent / frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", help="another checkout, run interleaved with this one")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--scenes", default="turntable,tumble,spin,spinfast")
    parser.add_argument("--kinds", default="quad,triangulated")
    parser.add_argument("--one", nargs=3, metavar=("ROOT", "SCENE", "KIND"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        root, scene, kind = args.one
        sys.path[:0] = [root, str(Path(root) / "tests")]
        print(*run(scene, kind))
        return
    roots = [str(HERE)] + ([str(Path(args.against).resolve())] if args.against else [])
    print("| scene | cloth | checkout | crossing edges (most) | end stretch | ms/frame (best) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for scene in args.scenes.split(","):
        for kind in args.kinds.split(","):
            best: dict = {}
            for _ in range(args.rounds):
                for root in roots:
                    out = subprocess.run(
                        [sys.executable, __file__, "--one", root, scene, kind],
                        capture_output=True,
                        text=True,
                        check=True,
                    ).stdout.split()
                    crossing, stretch, ms = int(out[0]), float(out[1]), float(out[2])
                    seen = best.get(root)
                    best[root] = (crossing, stretch, ms if seen is None else min(ms, seen[2]))
            for root in roots:
                crossing, stretch, ms = best[root]
                name = "this" if root == roots[0] else Path(root).name
                print(f"| {scene} | {kind} | {name} | {crossing} | {100 * stretch:.0f}% | {ms:.1f} |", flush=True)


if __name__ == "__main__":
    main()
