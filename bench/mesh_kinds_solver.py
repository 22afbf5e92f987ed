"""Solver-only cost and stretch of the 64² drape per mesh kind (pure NumPy, no Blender).

Usage: .venv/bin/python bench/mesh_kinds_solver.py [--auto] [kind ...]
  kinds: quad triangulated irregular fan (the default set), quad128, quad256, torus
  --auto: Auto Substeps as the add-on sets them (16 at 64², 22 at 128²), not Params()' 16
The 2 m cloth falls from 1.5 m onto a 0.5 m sphere on a floor for 48 frames at 24 fps, default
settings; prints solver CPU time per frame (process time) and the mean positive edge strain at the
end. Meshes from `solver.meshes`: quad 64², the same grid split along one diagonal, 48² jittered
±30% (split along the shorter diagonal), a 64-spoke fan disc subdivided ×11 (4,225 vertices), the quad
64² with a 0.35 m hole off centre;
quad128 / quad256 are finer grids of the same cloth; torus is issue 11's mesh-collider scene solver-only
(bench/mesh_colliders.py: the 64² quad cloth 1 m up onto a 192 × 48 torus, R 0.6, r 0.25, on the floor).
To compare two versions, run this on each checkout in turn, a few rounds, and take the best.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import solver  # noqa: E402
from solver import meshes  # noqa: E402
from solver.topology import STRUCTURAL  # noqa: E402

KINDS = ("quad", "triangulated", "irregular", "fan", "holed")
MORE = ("quad128", "quad256", "torus")


def mesh(kind: str):
    if kind == "quad":
        return meshes.grid(64, 64, size=2.0, height=1.5)
    if kind == "triangulated":
        vertices, quads = meshes.grid(64, 64, size=2.0, height=1.5)
        return vertices, meshes.triangulated(quads)
    if kind == "irregular":
        return meshes.jittered_grid(48, size=2.0, height=1.5)
    if kind == "fan":
        return meshes.fan_disc(64, 11, radius=1.0, height=1.5)
    if kind == "holed":
        return meshes.holed_grid(64, size=2.0, height=1.5)
    if kind in ("quad128", "quad256"):
        n = int(kind[4:])
        return meshes.grid(n, n, size=2.0, height=1.5)
    if kind == "torus":
        return meshes.grid(64, 64, size=2.0, height=1.0)
    raise ValueError(f"unknown mesh kind {kind!r}; one of {KINDS + MORE}")


def torus(major=0.6, minor=0.25, segments=192, rings=48, height=0.25):
    """(vertices, triangles) of Blender's primitive torus lying on the floor (bench/mesh_colliders.py's)."""
    u = np.arange(segments) * (2 * np.pi / segments)
    v = np.arange(rings) * (2 * np.pi / rings)
    uu, vv = np.meshgrid(u, v, indexing="ij")
    radius = major + minor * np.cos(vv)
    vertices = np.stack([radius * np.cos(uu), radius * np.sin(uu), minor * np.sin(vv) + height], -1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(segments), np.arange(rings), indexing="ij")
    i1, j1 = (i + 1) % segments, (j + 1) % rings
    a, b, c, d = i * rings + j, i1 * rings + j, i1 * rings + j1, i * rings + j1
    triangles = np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)])
    return vertices, triangles


def run(kind: str, frames: int = 48, auto: bool = False) -> tuple[float, float]:
    """(solver CPU ms per frame, mean positive edge strain) of the drape of one mesh kind."""
    vertices, faces = mesh(kind)
    model = solver.build_model(vertices, faces)
    params = solver.Params()
    if auto:
        edges = model.constraints.kind == STRUCTURAL
        mean_edge = float(model.constraints.rest_length[edges].mean())
        params = solver.Params(substeps=solver.params.auto_substeps(1 / 24, mean_edge))
    colliders = [solver.Sphere(center=(0, 0, 0.5), radius=0.5), solver.Plane(point=(0, 0, 0))]
    if kind == "torus":
        colliders = [solver.MeshCollider(*torus()), solver.Plane(point=(0, 0, 0))]
    state = model.initial_state()
    spent = 0.0
    for _ in range(frames):
        start = time.process_time()
        solver.step(model, state, params, 1 / 24, colliders)
        spent += time.process_time() - start
    edges = model.constraints.kind == STRUCTURAL
    pairs, rest = model.constraints.pairs[edges], model.constraints.rest_length[edges]
    x = state.positions
    length = np.linalg.norm(x[pairs[:, 0]] - x[pairs[:, 1]], axis=1)
    return spent / frames * 1000.0, float(np.mean(np.maximum(length / rest - 1.0, 0.0)))


if __name__ == "__main__":
    auto = "--auto" in sys.argv[1:]
    for kind in [k for k in sys.argv[1:] if k != "--auto"] or KINDS:
        ms, stretch = run(kind, auto=auto)
        print(f"{kind:13s} {ms:6.2f} ms/frame  stretch {stretch * 100:.4f}%", flush=True)
