"""Cloth edges through fast DEFORMING colliders, and what the collider costs, solver-only (issue 11, round 12).

Scenes (the collider given each frame by its shape at the frame's start and end, as the add-on gives an
armature- or shape-key-deformed mesh; 24 fps, Auto Substeps' motion rule on):
- skirt: probe14's `skirt_diag.py 0.3 0.26`: two 16-sided legs (r 8.5 cm) and a hip swinging ±0.3 rad every
  16 frames under a 32 × 16 skirt pinned at the waist, hem r 0.26 m (tests/solver_scenes.py), 47 frames.
- stride: the same, ±0.4 rad, hem r 0.32 m (probe14's `mild_skirt`).
- bump: a 1.6 m 40² cloth resting on a 2.4 m 48² ground whose Gaussian bump (sigma 0.2 m) rises 0.35 m in
  8 frames, 23 frames.
- cape: a 16-sided arm (r 8 cm) swung 90° up through a 24² curtain in 3 frames and back, 25 frames.
Cloth kinds: quad, triangulated, irregular (jittered in its surface by up to 0.3 of an edge, triangulated).

"through" counts the cloth edges whose segment passes through one of the collider's triangles at the end of
each frame, summed over the frames (and the worst frame); "ms" is the collider's step's CPU time (process
time) per frame, the collider made each frame included, best of the rounds, checkouts interleaved.

    .venv/bin/python bench/edges_through_deforming.py [--rounds 2] [--against <checkout>] [scene ...] [--kinds quad,...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the legs and skirt, shared with the test

from deforming_collider_cost import _against  # noqa: E402 (bench/ is the script's folder)
from solver_scenes import curtain, edges_through, legs, skirt, swung  # noqa: E402

import solver  # noqa: E402
from solver import meshes  # noqa: E402

FPS = 24


def _jittered(vertices, faces, kind: str, edge: float, normal_axis=None):
    """The cloth as `kind`: quads as given, triangulated, or irregular (interior jittered, triangulated)."""
    if kind == "quad":
        return vertices, faces
    if kind == "irregular":
        jitter = np.random.default_rng(5).uniform(-0.3, 0.3, vertices.shape) * edge
        if normal_axis is not None:
            jitter[:, normal_axis] = 0.0
        vertices = vertices + jitter
    return vertices, meshes.triangulated(faces)


def _skirt(kind: str, swing: float, hem: float):
    body, triangles, leg = legs()
    cloth, faces, pins = skirt(False, hem)
    if kind == "irregular":  # along the skirt's surface: round it and down it, the waist kept
        rng = np.random.default_rng(5)
        turn = rng.uniform(-0.3, 0.3, len(cloth)) * (2 * np.pi / 32)
        turn[pins > 0] = 0.0
        cos, sin = np.cos(turn), np.sin(turn)
        x, y = cloth[:, 0] * cos - cloth[:, 1] * sin, cloth[:, 0] * sin + cloth[:, 1] * cos
        cloth = np.column_stack([x, y, cloth[:, 2] + rng.uniform(-0.3, 0.3, len(cloth)) * 0.045 * (pins == 0)])
    if kind != "quad":
        faces = meshes.triangulated(faces)

    def shape(frame: int) -> np.ndarray:
        return swung(body, leg, frame - 1, swing, 16)

    return cloth, faces, pins, shape, triangles, 48, True


def _bump(kind: str):
    ground, quads = meshes.grid(48, 48, size=2.4, height=0.0)
    triangles = meshes.triangulated(quads)
    r2 = ground[:, 0] ** 2 + ground[:, 1] ** 2

    def shape(frame: int) -> np.ndarray:
        out = ground.copy()
        out[:, 2] += 0.35 * np.clip((frame - 4) / 8, 0.0, 1.0) * np.exp(-r2 / (2 * 0.2**2))
        return out

    cloth, faces = meshes.grid(40, 40, size=1.6, height=0.01)
    cloth, faces = _jittered(cloth, faces, kind, 1.6 / 39, normal_axis=2)
    return cloth, faces, np.zeros(len(cloth)), shape, triangles, 24, False


def _cape(kind: str):
    from test_mesh_collider_fast_deforming import arm, turned_about_x

    rest, triangles = arm()

    def shape(frame: int) -> np.ndarray:
        s = np.clip((frame - 6) / 3, 0.0, 1.0) - np.clip((frame - 16) / 3, 0.0, 1.0)
        return turned_about_x(rest, -0.5 * np.pi * s) + (0.05, 0.25, 0.9)

    cloth, faces, pins = curtain(24)
    jittered, faces = _jittered(cloth, faces, kind, 1 / 23, normal_axis=1)
    jittered[pins > 0] = cloth[pins > 0]
    return jittered, faces, pins, shape, triangles, 26, False


SCENES = {
    "skirt": lambda kind: _skirt(kind, 0.3, 0.26),
    "stride": lambda kind: _skirt(kind, 0.4, 0.32),
    "bump": _bump,
    "cape": _cape,
}


def run(scene: str, kind: str, rounds: int, packages) -> list[tuple[int, int, float]]:
    """Per package: (edges through summed over the frames, at the worst frame, best CPU ms per frame)."""
    cloth, faces, pins, shape, triangles, frames, floor = SCENES[scene](kind)
    best = [float("inf")] * len(packages)
    counts = [(0, 0)] * len(packages)
    for _ in range(rounds):
        runs = []
        for package in packages:
            model = package.build_model(cloth, faces, pin_weight=pins)
            edge = float(np.median(np.linalg.norm(cloth[faces[:, 0]] - cloth[faces[:, 1]], axis=1)))
            substeps = package.params.auto_substeps(1 / FPS, edge)
            params = package.Params(substeps=substeps, substeps_follow_motion=True)
            runs.append((package, model, model.initial_state(), params, [0, 0, 0.0]))
        for frame in range(2, frames + 1):
            start, end = shape(frame - 1), shape(frame)
            for package, model, state, params, tally in runs:
                planes = [package.Plane(point=(0, 0, 0))] if floor else []
                began = time.process_time()
                collider = package.MeshCollider(end, triangles, mesh_start=start)
                package.step(model, state, params, 1 / FPS, colliders=[collider, *planes], pin_targets=cloth)
                tally[2] += time.process_time() - began
                through = edges_through(state.positions, model.cloth_edges[0], end, triangles)
                tally[0] += through
                tally[1] = max(tally[1], through)
        for k, (*_, tally) in enumerate(runs):
            best[k] = min(best[k], 1000 * tally[2] / (frames - 1))
            counts[k] = (tally[0], tally[1])
    return [(total, worst, ms) for (total, worst), ms in zip(counts, best, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenes", nargs="*", help=f"of {', '.join(SCENES)} (default: all)")
    parser.add_argument("--kinds", default="quad,triangulated,irregular")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--against", type=Path, help="another checkout: its solver runs in turn with this one's")
    args = parser.parse_args()
    packages = (solver,) if args.against is None else (_against(args.against), solver)
    names = ["this checkout"] if args.against is None else [str(args.against), "this checkout"]
    print("| scene | cloth | " + " | ".join(f"{n}: through (worst) / ms" for n in names) + " |")
    print("| --- | --- |" + " --- |" * len(names))
    for scene in args.scenes or list(SCENES):
        for kind in args.kinds.split(","):
            cells = [f"{t} ({w}) / {ms:.1f}" for t, w, ms in run(scene, kind, args.rounds, packages)]
            print(f"| {scene} | {kind} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
