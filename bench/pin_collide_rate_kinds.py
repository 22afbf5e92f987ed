# ruff: noqa
r"""A pinned cloth on a moving collider, the five mesh kinds: `step.PIN_SUBSTEPS_COLLIDE_RATE` off against on
(docs/design.md, issue 11, round 28 (edgeonce_r28)), solver only. The switch was deleted in round 28: run this at
20ea7af (`git archive 20ea7af | tar -x -C /tmp/r28`), where it still exists.

bench/cape_pin_acceleration.py's cape (a 0.6 x 0.8 m cloth, 24² tri / quad / jitter / holed, or its 32 x 12 fan disc,
top row pinned, hanging at x -0.22) with its pins on the leaning, walking chest (motion=lean: the pin-acceleration
rule raises Auto Substeps to its ceiling, 3 x the rest's count), and the chest itself as a rigid mesh collider moving
with the same pose: a box 0.22 x 0.40 x 0.56 m whose back face is 2 cm in front of the cloth (a 10-degree turn
about Z sweeps it ±3.5 cm into the cape), or (--body capsule) a 24 x 12 UV capsule of radius 0.12 (faceted: its
ridges are sharp for the 24² cloth). Each kind runs off then on (the switch set on the module), in one process,
--rounds times; prints per kind: CPU ms a frame (best of the rounds), mean substeps, the worst and last frame's largest
stretch of the polygons' edges (%), the most cloth vertices inside the collider (|winding| > 0.5) and cloth edges
through its triangles at any frame's end (checked every --every frames and at the last), and vertex passes a frame.

    .venv/bin/python bench/pin_collide_rate_kinds.py [--kinds tri quad jitter holed fan] [--frames 48] [--rounds 1]
        [--body box capsule] [--every 2]
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import cape_pin_acceleration as cape  # noqa: E402
from cape_cost_trace import _through, _winding  # noqa: E402

import solver  # noqa: E402
from solver import meshes  # noqa: E402
from solver import settings as table  # noqa: E402

S = importlib.import_module("solver.step")
MC = importlib.import_module("solver.mesh_collider")


def body(kind: str):
    if kind == "box":
        return meshes.boxes((((-0.09, 0.0, 0.62), (0.22, 0.40, 0.56)),))
    # a capsule along Z: a UV sphere of radius r stretched by a cylinder, 24 segments round, 12 rings
    r, seg, rings, half = 0.12, 24, 12, 0.18
    verts = [(0.0, 0.0, -r - half)]
    for i in range(1, rings):
        phi = np.pi * i / rings
        z = -r * np.cos(phi) + (half if i >= rings // 2 else -half)
        for j in range(seg):
            th = 2 * np.pi * j / seg
            verts.append((r * np.sin(phi) * np.cos(th), r * np.sin(phi) * np.sin(th), z))
    verts.append((0.0, 0.0, r + half))
    V = np.array(verts) + (-0.09, 0.0, 0.62)
    tri = []
    top = len(V) - 1
    for j in range(seg):
        tri.append((0, 1 + (j + 1) % seg, 1 + j))
    for i in range(rings - 2):
        a, b = 1 + i * seg, 1 + (i + 1) * seg
        for j in range(seg):
            k = (j + 1) % seg
            tri += [(a + j, a + k, b + k), (a + j, b + k, b + j)]
    last = 1 + (rings - 2) * seg
    for j in range(seg):
        tri.append((last + j, last + (j + 1) % seg, top))
    return V, np.array(tri, dtype=np.int64)


def pose_matrix(f: int) -> np.ndarray:
    """The chest's rigid pose at frame f (bench/cape_pin_acceleration.py's `pose`, motion=lean), as a 4x4."""
    pts = np.vstack([np.zeros(3), np.eye(3)])
    moved = cape.pose(pts, f, "lean")
    m = np.eye(4)
    m[:3, :3] = (moved[1:] - moved[0]).T
    m[:3, 3] = moved[0]
    return m


def run(kind: str, on: bool, frames: int, every: int, body_kind: str):
    if not hasattr(S, "PIN_SUBSTEPS_COLLIDE_RATE"):
        raise SystemExit("step.PIN_SUBSTEPS_COLLIDE_RATE was deleted in round 28: run this at 20ea7af")
    S.PIN_SUBSTEPS_COLLIDE_RATE = on
    v, f = cape.cloth(kind, 24)
    top = v[:, 2] > v[:, 2].max() - (0.03 if kind == "fan" else 1e-6)
    model = solver.build_model(v, f, pin_weight=top.astype(float))
    vals = table.cloth_values({})
    vals["bend_stiffness"] = 0.05
    p = table.params_from(vals, (0, 0, -9.81), None, model.mean_edge_length, 1 / 24, len(v))
    p = dataclasses.replace(p, substeps_follow_motion=True)
    BV, BT = body(body_kind)
    st = model.initial_state()
    e = np.unique(np.sort(model.faces.edges(), axis=1), axis=0)
    L0 = np.linalg.norm(v[e[:, 0]] - v[e[:, 1]], axis=1)
    cloth_e = model.cloth_edges[0]
    calls = [0]
    real = MC.MeshCollider.collide_rows

    def counted(self, *a, **k):
        calls[0] += 1
        return real(self, *a, **k)

    MC.MeshCollider.collide_rows = counted
    cpu, subs, worst, inside, through = 0.0, [], 0.0, 0, 0
    try:
        for fr in range(2, frames + 1):
            end, start = pose_matrix(fr), pose_matrix(fr - 1)
            chest = solver.MeshCollider(BV, BT, pose=end, pose_start=start)
            c0 = time.process_time()
            solver.step(
                model, st, p, 1 / 24, colliders=[chest],
                pin_targets=cape.pose(v, fr, "lean"), pin_targets_start=cape.pose(v, fr - 1, "lean"),
            )  # fmt: skip
            cpu += time.process_time() - c0
            subs.append(st.last_substeps)
            x = st.positions
            s = float((np.linalg.norm(x[e[:, 0]] - x[e[:, 1]], axis=1) / L0 - 1).max()) * 100
            worst = max(worst, s)
            if fr % every == 0 or fr == frames:
                W = BV @ end[:3, :3].T + end[:3, 3]
                inside = max(inside, int((np.abs(_winding(x, W, BT)) > 0.5).sum()))
                through = max(through, _through(x, cloth_e, W, BT))
    finally:
        MC.MeshCollider.collide_rows = real
    n = frames - 1
    return dict(ms=1000 * cpu / n, sub=float(np.mean(subs)), worst=worst, last=s, inside=inside, through=through,
                passes=calls[0] / n)  # fmt: skip


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--kinds", nargs="+", default=["tri", "quad", "jitter", "holed", "fan"])
    ap.add_argument("--frames", type=int, default=48)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--every", type=int, default=2)
    ap.add_argument("--body", nargs="+", default=["box"])
    a = ap.parse_args()
    print("| body | kind | off: ms (substeps, passes) | stretch worst / last % | in / thr | on: ms (substeps, passes) "
          "| stretch worst / last % | in / thr |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for b in a.body:
        for kind in a.kinds:
            best = {}
            for r in range(a.rounds):
                for on in (False, True) if r % 2 == 0 else (True, False):
                    got = run(kind, on, a.frames, a.every, b)
                    if on not in best or got["ms"] < best[on]["ms"]:
                        best[on] = dict(got)
                    else:
                        best[on]["ms"] = min(best[on]["ms"], got["ms"])
            cells = []
            for on in (False, True):
                g = best[on]
                cells += [f"{g['ms']:.1f} ({g['sub']:.1f}, {g['passes']:.1f})", f"{g['worst']:.1f} / {g['last']:.1f}",
                          f"{g['inside']} / {g['through']}"]  # fmt: skip
            print(f"| {b} | {kind} | " + " | ".join(cells) + " |", flush=True)
