"""The rigid mesh collider alone, A/B against another checkout: quieter than the whole step on a busy machine.

Each version runs the 64² drape of bench/mesh_collider_cost.py to frame 30 with its own solver and
records every `MeshCollider.collide_rows` call of the next frames (positions, starts, mask); then the
calls are replayed for each version in turn, the candidate list restored to its frame-30 state each
time and a 4 MB buffer touched between calls (the rest of a step evicts the caches). CPU time (process
time) of the replayed calls per frame, best of the rounds; a digest of the replayed positions says
whether the two versions move the cloth identically.

    .venv/bin/python bench/mesh_collider_replay.py --against /path/to/other/checkout [scene/kind ...]

Scenes: torus, ball, table; kinds: quad, triangulated (default: torus/quad ball/quad table/quad).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import importlib
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from mesh_collider_cost import SCENES  # noqa: E402

from solver import meshes  # noqa: E402

FPS = 24


def _package(checkout: Path, name: str):
    """A checkout's solver imported as its own package (copied: its imports are relative)."""
    scratch = Path(tempfile.mkdtemp(prefix="vc_replay_"))
    shutil.copytree(checkout / "solver", scratch / name, ignore=shutil.ignore_patterns("__pycache__"))
    sys.path.insert(0, str(scratch))
    return importlib.import_module(name)


def _recorded(package, scene: str, kind: str, start: int, frames: int):
    """(mesh, its candidate lists at frame `start`, the collide_rows calls of the next frames)."""
    vertices, triangles = SCENES[scene]()
    shape = package.TriangleMesh(vertices, triangles)
    rest, faces = meshes.grid(64, 64, size=2.0, height=1.0)
    if kind == "triangulated":
        faces = meshes.triangulated(faces)
    model, params = package.build_model(rest, faces), package.Params()
    floor = package.Plane(point=(0, 0, 0))
    state = model.initial_state()
    for _ in range(start):
        package.step(model, state, params, 1 / FPS, [package.MeshCollider(shape), floor])
    saved = copy.deepcopy(shape.candidates)
    calls = []
    collider = package.mesh_collider.MeshCollider
    original = collider.collide_rows

    def recording(self, x, x_start, active, *rest_args):
        calls.append((x.copy(), x_start.copy(), active.copy(), rest_args))
        return original(self, x, x_start, active, *rest_args)

    collider.collide_rows = recording
    try:
        for _ in range(frames):
            package.step(model, state, params, 1 / FPS, [package.MeshCollider(shape), floor])
    finally:
        collider.collide_rows = original
    return shape, saved, calls


def _replay(package, shape, saved, calls, flush: np.ndarray) -> tuple[float, str]:
    shape.candidates = copy.deepcopy(saved)
    collider = package.MeshCollider(shape)
    inputs = [(x.copy(), x_start.copy(), active, rest) for x, x_start, active, rest in calls]
    total, digest = 0.0, hashlib.sha1()
    for x, x_start, active, rest in inputs:
        flush += 1.0
        started = time.process_time()
        collider.collide_rows(x, x_start, active, *rest)
        total += time.process_time() - started
        digest.update(x.tobytes())
        digest.update(x_start.tobytes())
    return total, digest.hexdigest()[:8]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", nargs="*", default=["torus/quad", "ball/quad", "table/quad"])
    parser.add_argument("--against", type=Path, required=True, help="another checkout (A); this one is B")
    parser.add_argument("--start", type=int, default=30, help="frames run before recording")
    parser.add_argument("--frames", type=int, default=3, help="frames recorded")
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args()
    here = Path(__file__).resolve().parent.parent
    packages = [_package(args.against, "solver_replay_a"), _package(here, "solver_replay_b")]
    flush = np.zeros(4_000_000 // 8)
    print(f"| collider | cloth | {args.against}: collider ms/frame | this checkout | change | same motion |")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in args.rows:
        scene, _, kind = row.partition("/")
        recorded = [_recorded(p, scene, kind or "quad", args.start, args.frames) for p in packages]
        best, digests = [float("inf")] * 2, [""] * 2
        for _ in range(args.rounds):
            for j, (package, (shape, saved, calls)) in enumerate(zip(packages, recorded, strict=True)):
                seconds, digests[j] = _replay(package, shape, saved, calls, flush)
                best[j] = min(best[j], seconds)
        a, b = (1000 * s / args.frames for s in best)
        same = "yes" if digests[0] == digests[1] else "no"
        print(f"| {scene} | {kind or 'quad'} | {a:.2f} | {b:.2f} | {b / a - 1:+.1%} | {same} |", flush=True)


if __name__ == "__main__":
    main()
