"""A cube settling on a ground box with a cloth falling on both: two mesh colliders' contacts in one corner.

Round 21 (cube25), probe24's rigid-body cube (bench/acceptance_probes_r21.py `rigid_drop`): at frame 13 a cloth vertex
ended 6 mm under the ground at the settling cube's foot. The ground is a still 4 x 4 x 0.2 m box (top at z = 0), the
cube a 0.3 m box standing on it, both `MeshCollider`s; the cube's motion (`--motion`):
  tip    tips back onto its face about its +x bottom edge (20 degrees to 0 at frames 6-12, a 2 degree rebound at 13-15);
  rock   rests on its face, rocks by +-3 degrees about its +x bottom edge every 4 frames, sliding 5 mm a frame along x;
  still  stands still;
  blender  probe24's rigid-body cube as Blender moved it (RIGID_DROP_*: its ground is this one), the cloth 24 x 24
         at 1.0 m (frames 2-48).
A 1 m cloth (`--kind`) falls from 0.25 m above the cube's top. Prints per run the frames with a vertex under the
ground top (inside the ground box), cloth edges through the ground or the cube, vertices inside the cube:
(frame, under, deepest mm, ground edges, cube edges, inside cube), and the strain at the end.

  .venv/bin/python bench/cube_on_ground.py [--kind K] [--motion M] [--frames F] [--set MODULE.NAME=VALUE]
      [--shift DX,DY ...] [--ab MODULE.NAME] [--repeat R]

--shift moves the cloth by (DX, DY) mm (repeatable: one run per shift; write a negative one --shift=-6,3). --ab runs
each case with the boolean switch MODULE.NAME off, then on (interleaved, each run's CPU seconds printed); --repeat R
runs each R times (a best of R). Round 22 (cube26)'s tables (docs/design.md) A/B'd step.RECHECK_MOVED_STARTS and
step.RECHECK_REVERTS, folded in (always on) in round 24 (flags24): check out 7598006 to reproduce them with
  .venv/bin/python bench/cube_on_ground.py --frames 30 --ab step.RECHECK_MOVED_STARTS [--set step.RECHECK_REVERTS=True]
  .venv/bin/python bench/cube_on_ground.py --frames 24 --motion tip --ab step.RECHECK_MOVED_STARTS \
      --shift 4,0 --shift 0,7 --shift=-6,3          (and --motion still)
"""

import argparse
import importlib
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from test_mesh_collider_moving_rigid import crossing_edges  # noqa: E402

import solver  # noqa: E402
from solver import meshes  # noqa: E402

HALF = 0.15
# probe24's rigid-body cube (Blender's rigid body world, `rigid_drop`): its world vertices at frame 1 and its motion
# (rotation | translation, 3 x 4, row-major, 1e-6) from them at the end of frames 2-48, as the add-on read it.
# (one row a line: the poses and triangles are data)
# fmt: off
RIGID_DROP_VERTICES = [
    [-0.137533, -0.078953, 0.349868],
    [0.143355, -0.022014, 0.261212],
    [0.132707, 0.244457, 0.398616],
    [-0.148181, 0.187518, 0.487272],
    [-0.032707, -0.204457, 0.601384],
    [0.248181, -0.147518, 0.512728],
    [0.237533, 0.118953, 0.650132],
    [-0.043355, 0.062014, 0.738788],
]
RIGID_DROP_MOTION = [
    [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -0.009362],
    [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -0.035727],
    [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -0.079065],
    [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -0.139348],
    [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -0.216546],
    [0.997778, -0.001224, -0.06662, 0.031569,
     0.002782, 0.999725, 0.023285, -0.010513,
     0.066573, -0.023419, 0.997507, -0.292151],
    [0.952095, 0.017713, -0.305288, 0.142851,
     0.02245, 0.991578, 0.127546, -0.05901,
     0.304976, -0.12829, 0.94368, -0.304043],
    [0.935706, 0.069, -0.345969, 0.147991,
     0.057231, 0.938005, 0.341864, -0.159797,
     0.348109, -0.339684, 0.873748, -0.28808],
    [0.941083, 0.119609, -0.316318, 0.119042,
     0.040292, 0.889043, 0.456047, -0.203701,
     0.335768, -0.441923, 0.831843, -0.271175],
    [0.935723, 0.194257, -0.294427, 0.096118,
     -0.035595, 0.882435, 0.469086, -0.193388,
     0.350936, -0.428455, 0.832629, -0.274301],
    [0.931207, 0.248275, -0.266859, 0.071956,
     -0.095904, 0.873237, 0.477765, -0.185536,
     0.351648, -0.419305, 0.836975, -0.277736],
    [0.92626, 0.28619, -0.245231, 0.053819,
     -0.137004, 0.861846, 0.488314, -0.182559,
     0.351102, -0.418708, 0.837503, -0.278032],
    [0.922464, 0.310137, -0.229947, 0.041865,
     -0.163842, 0.85376, 0.494217, -0.180481,
     0.349595, -0.418222, 0.838376, -0.278327],
    [0.920375, 0.320795, -0.223606, 0.03723,
     -0.175383, 0.849736, 0.497182, -0.179774,
     0.3495, -0.418377, 0.838338, -0.278272],
    [0.920339, 0.32107, -0.223362, 0.037074,
     -0.175742, 0.849651, 0.4972, -0.179722,
     0.349416, -0.418339, 0.838392, -0.278293],
    [0.920337, 0.321072, -0.223365, 0.037075,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037075,
     -0.175739, 0.849647, 0.497208, -0.179725,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037074,
     -0.175739, 0.849647, 0.497208, -0.179725,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037074,
     -0.175739, 0.849647, 0.497208, -0.179725,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037073,
     -0.175739, 0.849647, 0.497208, -0.179725,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037073,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037073,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037073,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037072,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037072,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037072,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037071,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037071,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037071,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.03707,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.03707,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.03707,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037069,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037069,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037069,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037068,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037068,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037068,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037067,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321072, -0.223365, 0.037067,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321073, -0.223365, 0.037067,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321073, -0.223365, 0.037066,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321073, -0.223365, 0.037066,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321073, -0.223365, 0.037066,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321073, -0.223365, 0.037065,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321073, -0.223365, 0.037065,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
    [0.920337, 0.321073, -0.223365, 0.037065,
     -0.175739, 0.849647, 0.497208, -0.179724,
     0.349421, -0.418345, 0.838387, -0.27829],
]
RIGID_DROP_TRIANGLES = [
    [0, 5, 4],
    [3, 0, 4],
    [0, 1, 5],
    [1, 6, 5],
    [0, 2, 1],
    [0, 3, 2],
    [1, 2, 6],
    [3, 4, 7],
    [4, 6, 7],
    [4, 5, 6],
    [2, 3, 7],
    [2, 7, 6],
]
# fmt: on

QUADS = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]


def box(half):
    hx, hy, hz = half
    v = np.array([[x, y, z] for z in (-hz, hz) for y in (-hy, hy) for x in (-hx, hx)], float)
    return v, np.array([t for a, b, c, d in QUADS for t in ((a, b, c), (a, c, d))])


def angle_of(motion: str, frame: int) -> tuple[float, float]:
    """(tilt about the +x bottom edge, degrees; slide along x, m) at the end of `frame`."""
    if motion == "tip":
        tilt = 20.0 * min(max((12 - frame) / 6.0, 0.0), 1.0)
        if 13 <= frame <= 15:
            tilt = 2.0 * math.sin(math.pi * (frame - 12) / 4)
        return tilt, 0.0
    if motion == "rock":
        return 3.0 * abs(math.sin(math.pi * frame / 4)), 0.005 * frame
    return 0.0, 0.0


def cube_pose(motion: str, frame: int, at=(0.03, 0.02)) -> np.ndarray:
    if motion == "blender":  # (frame 1: where RIGID_DROP_VERTICES are)
        m = np.eye(4)
        if frame >= 2:
            m[:3, :] = np.reshape(RIGID_DROP_MOTION[frame - 2], (3, 4))
            u, _, vt = np.linalg.svd(m[:3, :3])  # (orthonormal again after the rounding)
            m[:3, :3] = u @ vt
        return m
    tilt, slide = angle_of(motion, frame)
    a = math.radians(tilt)  # about the y axis through the +x bottom edge: the -x side lifts
    rot = np.array([[math.cos(a), 0, -math.sin(a)], [0, 1, 0], [math.sin(a), 0, math.cos(a)]])
    hinge = np.array([at[0] + HALF + slide, at[1], 0.0])
    centre = hinge + rot @ np.array([-HALF, 0.0, HALF])
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = rot, centre
    return m


def cloth(kind: str, n: int = 24, blender: bool = False, shift=(0.0, 0.0)):
    h = 1.0 if blender else 2 * HALF + 0.25
    if kind == "jittered":
        v, f = meshes.jittered_grid(n, size=1.0, height=h)
    elif kind == "fan":
        v, f = meshes.fan_disc(spokes=24, rings=6, radius=0.5, height=h)
    elif kind == "holed":
        v, f = meshes.holed_grid(n, size=1.0, height=h, centre=(0.25, 0.1), radius=0.12)
    else:
        v, f = meshes.grid(n, n, size=1.0, height=h)
        f = meshes.triangulated(f) if kind == "triangulated" else f
    offset = np.array([0.0, 0.0, 0.0] if blender else [0.011, -0.017, 0.0]) + (shift[0] / 1000, shift[1] / 1000, 0.0)
    return np.asarray(v, float) + offset, f


def run(kind: str, motion: str, frames: int = 30, shift=(0.0, 0.0)):
    blender = motion == "blender"
    cube_v, cube_t = box((HALF, HALF, HALF))
    if blender:
        cube_v, cube_t = np.array(RIGID_DROP_VERTICES), np.array(RIGID_DROP_TRIANGLES)
    ground_v, ground_t = box((2.0, 2.0, 0.1))
    ground_v = ground_v + (0.0, 0.0, -0.1)
    cube_shape = solver.TriangleMesh(cube_v, cube_t)
    ground = solver.MeshCollider(ground_v, ground_t)
    v, f = cloth(kind, blender=blender, shift=shift)
    model = solver.build_model(v, f, density=0.15)
    state = model.initial_state()
    # the add-on's defaults in that scene (bend 0.05: the probe's)
    params = solver.Params(substeps_follow_motion=True, damping=0.1, bend_stiffness=0.05, thickness=0.005, friction=0.3)
    edges = model.cloth_edges[0]
    rest = np.linalg.norm(v[edges[:, 0]] - v[edges[:, 1]], axis=1)
    bad = []
    for frame in range(2 if blender else 1, frames + 1):
        pose = cube_pose(motion, frame)
        cube = solver.MeshCollider(cube_shape, pose=pose, pose_start=cube_pose(motion, frame - 1))
        solver.step(model, state, params, 1 / 24, colliders=[ground, cube])
        x = state.positions
        under = x[:, 2] < 0.0
        g_thr = crossing_edges(x[edges[:, 0]], x[edges[:, 1]], ground_v, ground_t)
        local = (x - pose[:3, 3]) @ pose[:3, :3]
        if blender:  # (the cube's own frame: centred, axis-aligned, from its frame-1 placement)
            centre = cube_v.mean(axis=0)
            axes = (cube_v[[1, 3, 4]] - cube_v[0]) / (2 * HALF)  # (its edges from corner 0)
            inside = int((np.abs((local - centre) @ axes.T) < HALF - 1e-9).all(axis=1).sum())
        else:
            inside = int((np.abs(local) < HALF).all(axis=1).sum())
        c_thr = crossing_edges(local[edges[:, 0]], local[edges[:, 1]], cube_v, cube_t)
        if under.any() or g_thr or c_thr or inside:
            deep = round(-float(x[:, 2].min()) * 1000, 1)
            bad.append((frame, int(under.sum()), deep, g_thr, c_thr, inside))
    x = state.positions
    strain = np.linalg.norm(x[edges[:, 0]] - x[edges[:, 1]], axis=1) / rest - 1.0
    return bad, round(float(np.maximum(strain, 0).mean()), 4), round(float(strain.max()), 3)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", choices=["quad", "triangulated", "jittered", "fan", "holed"], default=None)
    ap.add_argument("--motion", choices=["tip", "rock", "still", "blender"], default=None)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--set", action="append", default=[], help="e.g. step.MESH_COLLIDE_INTERVAL=2")
    ap.add_argument("--shift", action="append", default=[], help="DX,DY in mm (repeatable)")
    ap.add_argument("--ab", default=None, help="a boolean switch, e.g. step.REWIND_WITH_COLLIDERS: off, then on")
    ap.add_argument("--repeat", type=int, default=1, help="each case (and --ab's off, on) this many times, interleaved")
    a = ap.parse_args()
    for item in a.set:
        name, value = item.split("=")
        module, attr = name.rsplit(".", 1)
        setattr(importlib.import_module("solver." + module), attr, eval(value))  # noqa: S307 (a bench switch)
    shifts = [tuple(float(c) for c in item.split(",")) for item in a.shift] or [(0.0, 0.0)]
    switch = None
    if a.ab:
        module, attr = a.ab.rsplit(".", 1)
        switch = (importlib.import_module("solver." + module), attr)
    for kind in [a.kind] if a.kind else ["quad", "triangulated", "jittered", "fan", "holed"]:
        for motion in [a.motion] if a.motion else ["blender", "tip", "rock", "still"]:
            for shift, _ in ((s, r) for s in shifts for r in range(a.repeat)):
                for value in [None] if switch is None else [False, True]:
                    if switch is not None:
                        setattr(*switch, value)
                    began = time.process_time()
                    bad, mean, most = run(kind, motion, a.frames, shift)
                    cpu = time.process_time() - began
                    label = "" if value is None else f"{a.ab}={value} "
                    print(
                        kind, motion, f"shift {shift[0]:g},{shift[1]:g}", label + "bad frames", bad,
                        "strain mean/max at the end", mean, most, f"cpu {cpu:.2f} s", flush=True,
                    )  # fmt: skip
