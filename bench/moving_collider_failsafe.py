"""Face self-collision's failsafe against a moving collider, in the pure solver (issue 13, round 23 (failsafe23)).

The curtain of bench/self_collision_probes_r22.py: a 1 m curtain (n², default 16) in the XZ plane, 0.6-1.6 m up, its
top pinned (a fan disc: the vertices within 8 cm of its top; a holed grid: its top row), Faces self-collision on,
the add-on's settings (bend 0.05, Auto substeps, Auto distance); a collider swept sideways through its lower half
along x from -0.8 by 1.15 m, eased in and out (smoothstep, as Blender's Bezier keys) from frame 1 to `key`:
    box     a 0.3 m cube mesh collider centred at z 0.75, key 16 (24 frames: the r22 probe's `--frames 24`)
    fast    the same, key 6 (1.15 m in 5 frames: up to 8 m/s)
    sphere  an analytic sphere of radius 0.15 on the box's path, key 16
    turning the cube, also turning a quarter turn about y on the way, key 16
Each frame: cloth vertices more than 1 mm inside the collider (the cube's faces / the sphere), the stretch (the
longest cloth edge over its rest length), intersecting face pairs (solver.intersections), CPU seconds of `step`.

    PYTHONPATH=. .venv/bin/python bench/moving_collider_failsafe.py [kinds] [colliders] [variants] [--n 16]
    kinds: quad tri irr fan hole; colliders: box fast sphere turning;
    variants: main (the failsafe as on main), noslide (face_collision.IN_PLANE_SLIDES_CROSS False: round 23
    (failsafe23b)), push (face_collision.SLIDES_PUSHED_OFF: round 24 (curtain24)), nofailsafe (undo_crossings a
    no-op: diagnosis only); main-zone, noslide-zone, push-zone: the same with step.REWIND_WITH_COLLIDERS (round 26
    (rewind_r26): a crossed zone whose start the moving collider covers moves as one piece, not into it).
    Round 23's carry / recheck / kept (step.REWOUND_*) were deleted in round 24. Round 27 (fanbox_r27) made push-zone
    the default and folded the three switches: on it and later only push-zone and nofailsafe run (the rest at aab9675).
Prints one line per run: kind collider variant, frames with vertices inside (frame:count), max stretch, last-frame
stretch, max pairs, CPU s, triangles turned over (their normal against the rest one's: the curtain folded onto
itself in its plane, which the exact test does not see, coplanar contacts not counting), most and at the end;
round 28 (fastquad_r28): the zone pushes (face_collision.ZONES_PUSHED_OUT: vertices put out of the collider) and
fallbacks (calls), and the most intersecting face pairs right after a failsafe call that did either.
Variant r27 (or r27push-zone): round 27's zones, both off.
Round 29 (zonepush_r29): --dz METRES raises the collider's path (default 0: the box's bottom face at z 0.6, flush
with the curtain's hem, the case where the quad's hem goes under the fast box); "through" counts cloth edges through
the collider at frame ends (a point at 1/4, 1/2 or 3/4 of the edge more than 1 mm inside): frame:count; "stretch over
1.5": frame:stretch for the frames over 1.5.
"""

import importlib
import sys
import time

import numpy as np
from measure import set_rule

import solver
from solver import face_collision, meshes, settings
from solver.face_collision import FaceCollision
from solver.intersections import count_self_intersections

step_module = importlib.import_module("solver.step")  # (solver.step is the function)

HALF = 0.15
FRAMES = 24
DZ = 0.0  # (--dz) how far the collider's path is raised


def box_mesh(h=HALF):
    v = np.array([[x, y, z] for x in (-h, h) for y in (-h, h) for z in (-h, h)], float)
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    return solver.TriangleMesh(v, np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))]))


def curtain(kind, n):
    """(model) of the pinned curtain of `kind`."""
    if kind == "irr":
        v, f = meshes.jittered_grid(n, size=1.0)
    elif kind == "fan":
        v, f = meshes.fan_disc(spokes=2 * n, rings=n // 2, radius=0.5)
    elif kind == "hole":
        v, f = meshes.holed_grid(n, size=1.0, centre=(0.1, -0.2), radius=0.15)
    else:
        v, f = solver.grid(n, n, size=1.0)
        f = meshes.triangulated(f) if kind == "tri" else f
    v = np.asarray(v, float)[:, [0, 2, 1]] + [0, 0, 1.1]
    top = v[:, 2].max()
    pin = (v[:, 2] >= top - (0.08 if kind == "fan" else 1e-9)).astype(float)
    return solver.build_model(v, f, pin_weight=pin)


def ease(u):
    u = min(max(u, 0.0), 1.0)
    return u * u * (3 - 2 * u)


def collider_at(which, fr, mesh):
    """The collider for the step from Blender frame fr to fr + 1, and its (centre, rotation) at fr + 1."""
    key = 6 if which == "fast" else 16

    def place(f):
        c = np.array([-0.8 + 1.15 * ease((f - 1) / (key - 1)), 0.0, 0.75 + DZ])
        a = 0.5 * np.pi * ease((f - 1) / (key - 1)) if which == "turning" else 0.0
        r = np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]])
        return c, r

    (c0, r0), (c1, r1) = place(fr), place(fr + 1)
    if which == "sphere":
        return solver.Sphere(center=c1, radius=HALF, center_start=c0), (c1, r1)

    def pose(c, r):
        m = np.eye(4)
        m[:3, :3], m[:3, 3] = r, c
        return m

    return solver.MeshCollider(mesh, pose=pose(c1, r1), pose_start=pose(c0, r0)), (c1, r1)


def inside(which, x, c, r):
    local = (x - c) @ r  # into the cube's frame
    if which == "sphere":
        return int((np.linalg.norm(x - c, axis=1) < HALF - 1e-3).sum())
    return int((np.abs(local) < HALF - 1e-3).all(axis=1).sum())


def through_edges(x, r, c, edges):
    """(k, 2) the cloth edges with a point at 1/4, 1/2 or 3/4 more than 1 mm inside the box at (r, c)."""
    hit = np.zeros(len(edges), dtype=bool)
    for f in (0.25, 0.5, 0.75):
        hit |= (np.abs((x[edges[:, 0]] * (1 - f) + x[edges[:, 1]] * f - c) @ r) < HALF - 1e-3).all(axis=1)
    return edges[hit]


def through(which, x, c, r, edges):
    """Cloth edges with a point at 1/4, 1/2 or 3/4 more than 1 mm inside the collider (both ends may be outside)."""
    hit = np.zeros(len(edges), dtype=bool)
    for f in (0.25, 0.5, 0.75):
        p = x[edges[:, 0]] * (1 - f) + x[edges[:, 1]] * f
        if which == "sphere":
            hit |= np.linalg.norm(p - c, axis=1) < HALF - 1e-3
        else:
            hit |= (np.abs((p - c) @ r) < HALF - 1e-3).all(axis=1)
    return int(hit.sum())


def run(kind, which, n=16, frames=FRAMES):
    model = curtain(kind, n)
    values = settings.cloth_values({"self_collision": True, "bend_stiffness": 0.05})
    params = settings.params_from(
        values, frame_time=1 / 24, mean_edge=model.mean_edge_length, vertex_count=model.vertex_count
    )
    state = model.initial_state()
    edges = model.cloth_edges[0]
    rest = np.linalg.norm(state.positions[edges[:, 0]] - state.positions[edges[:, 1]], axis=1)
    mesh = box_mesh()
    tri = model.triangles[0]
    rest_normal = np.cross(
        state.positions[tri[:, 1]] - state.positions[tri[:, 0]], state.positions[tri[:, 2]] - state.positions[tri[:, 0]]
    )
    rows = []
    MID["pushes"] = MID["fallbacks"] = MID["pushed pairs"] = 0
    for fr in range(1, frames):
        collider, (c, r) = collider_at(which, fr, mesh)
        MID["after"] = []
        t = time.process_time()
        solver.step(model, state, params, 1 / 24, colliders=[collider])
        t = time.process_time() - t
        mid = inside_mid(which, collider, MID["after"])
        x = state.positions
        stretch = float((np.linalg.norm(x[edges[:, 0]] - x[edges[:, 1]], axis=1) / rest).max())
        normal = np.cross(x[tri[:, 1]] - x[tri[:, 0]], x[tri[:, 2]] - x[tri[:, 0]])
        against = np.einsum("ij,ij->i", normal, rest_normal) < 0
        turned = int(against.sum())
        flat = int((against & (np.abs(x[tri, 1]) < 1e-4).all(axis=1)).sum())  # turned in the plane y = 0
        pairs = count_self_intersections(model, x)
        rows.append(
            (fr + 1, inside(which, x, c, r), stretch, pairs, t, turned, flat, float(np.abs(x[:, 1]).max()), mid,
             through(which, x, c, r, edges))
        )  # fmt: skip
    return rows


def variant(name):
    if name.startswith("r27"):  # round 27's zones: no push out (670cd22 also drops the fallback)
        name = name[3:] or "push-zone"
        set_rule(face_collision, "ZONES_PUSHED_OUT", False)
    else:
        set_rule(face_collision, "ZONES_PUSHED_OUT", True)
    set_rule(face_collision, "IN_PLANE_SLIDES_CROSS", name not in ("noslide", "noslide-zone"))
    set_rule(face_collision, "SLIDES_PUSHED_OFF", name in ("push", "push-zone", "nofailsafe"))
    set_rule(step_module, "REWIND_WITH_COLLIDERS", name.endswith("-zone") or name == "nofailsafe")
    if name == "nofailsafe":
        FaceCollision.undo_crossings = lambda self, *a, **k: 0
    else:
        FaceCollision.undo_crossings = _counting_undo


# positions after each substep's failsafe this frame; zone pushes, fallbacks, the most pairs after a call with either
MID = {"after": [], "pushes": 0, "fallbacks": 0, "pushed pairs": 0}


def _counting_undo(self, x, *args, **kwargs):
    before = MID["pushes"], MID["fallbacks"]
    count = ORIGINAL_UNDO(self, x, *args, **kwargs)
    MID["pushes"], MID["fallbacks"] = getattr(self, "zone_pushes", 0), getattr(self, "zone_fallbacks", 0)
    if (MID["pushes"], MID["fallbacks"]) != before:  # (a call that pushed a zone out or fell back: its pairs)
        MID["pushed pairs"] = max(MID["pushed pairs"], count_self_intersections(self.model, x))
    MID["after"].append(x.copy())
    return count


def inside_mid(which, collider, after):
    """The most vertices inside the collider after any substep's failsafe this frame (at its pose then)."""
    most, n = 0, len(after)
    for s, x in enumerate(after):
        t = (s + 1) / n
        if which == "sphere":
            c = collider.at(t)[0]
            most = max(most, int((np.linalg.norm(x - c, axis=1) < HALF - 1e-3).sum()))
        else:
            r, c = collider._pose_at(t)
            most = max(most, int((np.abs((x - c) @ r) < HALF - 1e-3).all(axis=1).sum()))
    return most


ORIGINAL_UNDO = FaceCollision.undo_crossings

if __name__ == "__main__":
    args = sys.argv[1:]
    n = 16
    if "--dz" in args:
        DZ = float(args[args.index("--dz") + 1])
        del args[args.index("--dz") : args.index("--dz") + 2]
    if "--n" in args:
        n = int(args[args.index("--n") + 1])
        del args[args.index("--n") : args.index("--n") + 2]
    kinds = [a for a in args if a in ("quad", "tri", "irr", "fan", "hole")] or ["quad", "tri", "irr", "fan", "hole"]
    colliders = [a for a in args if a in ("box", "fast", "sphere", "turning")] or ["box", "fast", "sphere", "turning"]
    names = ("main", "noslide", "push", "nofailsafe", "main-zone", "noslide-zone", "push-zone", "r27")
    variants = [a for a in args if a in names] or ["main", "noslide"]
    for kind in kinds:
        for which in colliders:
            for name in variants:
                variant(name)
                rows = run(kind, which, n)
                hits = " ".join(f"{f}:{k}" for f, k, *_ in rows if k) or "-"
                mids = " ".join(f"{r[0]}:{r[8]}" for r in rows if r[8]) or "-"
                edges_through = " ".join(f"{r[0]}:{r[9]}" for r in rows if r[9]) or "-"
                long = " ".join(f"{r[0]}:{r[2]:.2f}" for r in rows if r[2] > 1.5) or "-"
                print(
                    f"{kind:5} {which:7} {name:10} inside {hits:28} mid {mids:28} "
                    f"stretch max {max(r[2] for r in rows):5.2f} "
                    f"last {rows[-1][2]:5.2f} pairs max {max(r[3] for r in rows)} cpu {sum(r[4] for r in rows):5.1f} "
                    f"turned max {max(r[5] for r in rows)} last {rows[-1][5]} in-plane max {max(r[6] for r in rows)} "
                    f"last {rows[-1][6]} |y| max {max(r[7] for r in rows):.3f} "
                    f"zone pushes {MID['pushes']} fallbacks {MID['fallbacks']} "
                    f"(pairs after those {MID['pushed pairs']}) through {edges_through} stretch over 1.5 {long}",
                    flush=True,
                )
