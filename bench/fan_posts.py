"""A cloth dropped on a thin flat-topped post, five mesh kinds x posts of 4, 6, 8, 16 segments x placements (issue 11,
round 22: fanpost26). Solver-only (pure NumPy, no Blender).

Usage: .venv/bin/python bench/fan_posts.py [--frames 30] [--kinds fan,quad,...] [--posts s4,s6,s8,s16]
                                           [--shifts 0,1e-5,-1e-5] [--flag module.NAME=value ...]
  kinds: quad, tri, jitter, holed (2 m 32² grids), fan (tests' fan disc: 32 spokes x 24 rings, r 1 m; its hub has
  32 edges), fan64 (64 spokes x 11 rings, r 1 m: bench/mesh_kinds_solver.py's, hub valence 64).
  posts: s4 (r 2 cm, 4 segments), s6 / s8 / s16 (r 1 cm), 50 cm tall, flat fan cap (tests/test_mesh_collider_posts.py's
  `post`), on a floor plane.
  --flag: set a module switch before running, e.g. --flag corner_contacts.APEX_CORNERS=True (value evaluated;
  contact_support.HANGING_ONLY, round 15's, folded in round 24: 7598006 to reproduce).
The cloth falls from 1 m with its centre (1.1, 2.3) cm + shift (x and y) off the post's axis (the tests' placement).
Round 23 (fanpost23) added, per scene: the crossings (tests' `through_count`: cloth edges through the post's triangles
plus post edges through the cloth's) at most from frame 12 / at the end, and the deepest cloth vertex inside the post
at any frame (mm; cpu s includes these counts; --no-count skips them).
One line a scene: the highest cloth point over the cap, at most from frame 12 and at the end (cm; the fan test bounds
8 cm), the hub's (the cloth's nearest-to-centre vertex's) distance off the axis at the end (cm) and its height less
the cap (cm), and process-CPU seconds. A cloth that hangs from the cap sits 1-3 cm over it; "flung" is > 8 cm.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_mesh_collider_corners import needle  # noqa: E402 - tests/: the needles and posts

import solver  # noqa: E402
from solver import meshes  # noqa: E402

POSTS = {"s4": (0.02, 4), "s6": (0.01, 6), "s8": (0.01, 8), "s16": (0.01, 16)}


def post(radius: float, segments: int, height: float = 0.5):
    """A closed rod standing on the floor with a flat fan cap (the tests' `needle(..., tip=0)`)."""
    return needle(radius, segments, height, tip=0.0)


def cloth(kind: str):
    if kind == "fan":
        return meshes.fan_disc(32, 24, radius=1.0, height=1.0)
    if kind == "fan64":
        return meshes.fan_disc(64, 11, radius=1.0, height=1.0)
    if kind == "jitter":
        return meshes.jittered_grid(32, size=2.0, height=1.0)
    if kind == "holed":
        return meshes.holed_grid(32, size=2.0, height=1.0)
    vertices, faces = meshes.grid(32, 32, size=2.0, height=1.0)
    if kind == "tri":
        faces = meshes.triangulated(faces)
    return vertices, faces


def run(kind: str, post_name: str, shift: float, frames: int = 30, count: bool = True):
    v, tris = post(*POSTS[post_name])
    vertices, faces = cloth(kind)
    centre = vertices[:, :2].mean(0)
    hub = int(np.argmin(np.linalg.norm(vertices[:, :2] - centre, axis=1)))
    model = solver.build_model(vertices - (*centre, 0) + (0.011 + shift, 0.023 + shift, 0), faces)
    state = model.initial_state()
    collider = solver.MeshCollider(solver.TriangleMesh(v, tris))
    top = v[:, 2].max()
    above, hubs, through, inside = [], [], [], []
    from test_mesh_collider_corners import through_count  # (tests/: cloth edges through the post + post edges through)

    segments = POSTS[post_name][1]
    angle = (np.arange(segments) + 0.5) * 2 * np.pi / segments  # (the sides' outward normals)
    normals = np.stack([np.cos(angle), np.sin(angle)], -1)
    apothem = POSTS[post_name][0] * np.cos(np.pi / segments)
    t0 = time.process_time()
    for _ in range(frames):
        solver.step(model, state, solver.Params(), 1 / 24, colliders=[collider, solver.Plane(point=(0, 0, 0))])
        above.append(state.positions[:, 2].max() - top)
        hubs.append(float(np.linalg.norm(state.positions[hub, :2])))
        if count:
            x = state.positions
            through.append(through_count(model, x, v, tris))
            depth = np.minimum(np.min(apothem - x[:, :2] @ normals.T, axis=1), np.minimum(x[:, 2], top - x[:, 2]))
            inside.append(float(depth.max()))
    cpu = time.process_time() - t0
    x = state.positions
    return {
        "max12": max(above[12:]) * 100 if frames > 12 else float("nan"),
        "end": above[-1] * 100,
        "hub_off": float(np.linalg.norm(x[hub, :2])) * 100,
        "hub_z": (x[hub, 2] - top) * 100,
        "cpu": cpu,
        "above": above,
        "hubs": hubs,
        "through12": max(through[12:], default=-1),
        "through_end": through[-1] if through else -1,
        "inside": max(inside, default=float("nan")) * 1000,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--kinds", default="quad,tri,jitter,fan,holed")
    ap.add_argument("--posts", default="s4,s6,s8,s16")
    ap.add_argument("--shifts", default="0,1e-5,-1e-5")
    ap.add_argument("--flag", action="append", default=[])
    ap.add_argument("--no-count", action="store_true", help="skip the crossings / inside counts (each frame)")
    ap.add_argument(
        "--curve",
        action="store_true",
        help="print the over-the-cap height and the hub's distance off the axis of every frame too",
    )
    args = ap.parse_args()
    for flag in args.flag:
        name, value = flag.split("=", 1)
        module, attr = name.rsplit(".", 1)
        setattr(importlib.import_module(f"solver.{module}"), attr, eval(value))
    print(
        "kind post shift | over cap from f12 max / end (cm) | hub off axis / over cap (cm) | cpu s"
        " | crossings from f12 max / end | deepest vertex inside the post (mm, any frame; <= 0: none)",
        flush=True,
    )
    for p in args.posts.split(","):
        for kind in args.kinds.split(","):
            for s in args.shifts.split(","):
                r = run(kind, p, float(s), args.frames, not args.no_count)
                flung = " FLUNG" if r["max12"] > 8 else ""
                print(
                    f"{kind} {p} {s} | {r['max12']:.1f} / {r['end']:.1f} | {r['hub_off']:.1f} / {r['hub_z']:.1f} |"
                    f" {r['cpu']:.1f}{flung} | {r['through12']} / {r['through_end']} | {r['inside']:.2f}",
                    flush=True,
                )
                if args.curve:
                    print("   over cap", " ".join(f"{a * 100:.1f}" for a in r["above"]), flush=True)
                    print("   hub off ", " ".join(f"{a * 100:.1f}" for a in r["hubs"]), flush=True)


if __name__ == "__main__":
    main()
