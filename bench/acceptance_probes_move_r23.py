# ruff: noqa
"""Analytic colliders that move, in real Blender (round 23, probemove23): Sphere and Plane colliders (Empties and
meshes) keyframed fast, rotating, flipping, parented, teleporting, beside Blender's Cloth where fair (BL=1: the same
scene with mesh colliders carrying Collision modifiers; Empties have no Blender equivalent).

Public names only (Object.verlet_cloth_collider.kind / bounded / offset / friction, bpy.ops.verlet_cloth.*); the
scene built with bench/acceptance_probes_r20.py's helpers. Checks every frame, against the analytic shape as the
README defines it (a sphere: centre = origin, radius = farthest evaluated vertex in world space, or an Empty's
display size x largest scale; a plane: the object's XY plane through its origin facing local +Z, Bounded: the mesh's
local XY extent or +-display size):
  sphere: vertices inside the radius (how deep), cloth edges through the ball (both ends outside, the edge passing
          closer than the radius), NaN, stretch (mean / max positive edge strain, worst frame and end);
  plane:  vertices that crossed it since the last frame (in front, now behind, over the rectangle when Bounded), how
          many are behind over it now, cloth edges through the rectangle (an unbounded plane: through the plane).
Usage (from a checkout):
  VC_ROOT=$PWD BL=0|1 MESH=quad|tri|jit|fan|hole N=24 FRAMES=48 .venv/bin/python bench/acceptance_probes_move_r23.py <case>
cases:
  sphere_through  SPEED=2|6|12 OBJ=empty|mesh: a sphere r 0.2 keyed linearly along +Y (y -0.5 -> 1.0, z 1.0)
                  from frame 10 through a 1 m cloth hanging in the XZ plane, pinned along its top (z 1.5)
                  PARENT=1: the sphere an Empty child of a moving Empty (the parent keyed instead)
                  BX=5: the path 5 m aside (the cloth's own hang: its stretch without the sphere)
                  TELEPORT=1: constant keys: the sphere jumps between two frames from y -0.5 to y 0.1 (inside the
                  cloth's sheet), TELEPORT=2: to y 1.0 (across the cloth in one frame)
  plane_rise      OBJ=empty|mesh BOUNDED=0|1 SPEED=6: a 2 x 2 m plane at z 0 under a 1 m cloth dropped at frame 1
                  (resting by frame 15) rises from frame 16 at SPEED m/s for 2 m, then stops
  seesaw          OBJ BOUNDED=1: a 2 x 1 m plane rocking +-25 degrees about Y every 12 frames, a 0.6 m cloth on it
  (plane cases: OBJ=mesh PKIND=MESH makes the rectangle a Mesh collider instead, for comparison)
  flip            OBJ=mesh|empty: a 0.7 x 0.6 m bounded paddle hinged at (0, -0.5, 0.8) turning -90 -> +90 degrees
                  about X over frames 10-16 (tip ~9 m/s), its +Z face leading, up through the hanging cloth
  squashed        OBJ=empty|mesh: a sphere scaled (0.1, 0.3, 0.2) (Empty, display size 1) or a UV sphere r 1 scaled
                  (0.1, 0.3, 0.2), made Sphere colliders, a 1 m cloth dropped on it: README: radius = largest
  rot_passes      round 23's cloth_xform ROT=1 (tri): which solver pass leaves one cloth edge 4 mm in the box
"""

import math, os, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import acceptance_probes_r20 as R  # noqa: E402  (starts Blender, enables the add-on)
import acceptance_probes as A  # noqa: E402
import bpy  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(A.ROOT))
from solver import meshes as SM  # noqa: E402  (pure NumPy)

BL, N, FRAMES = R.BL, R.N, R.FRAMES
MESH = os.environ.get("MESH", "tri")
OBJ = os.environ.get("OBJ", "empty")
SPEED = float(os.environ.get("SPEED", "6"))
WHO = "BLENDER" if BL else "ours"
bpy.context.preferences.edit.keyframe_new_interpolation_type = "LINEAR"


def cloth_obj(size=1.0, n=N, kind=MESH):
    """A flat cloth (XY, centred at 0) of the five kinds, built from solver.meshes (the same as the pure tests)."""
    if kind == "quad":
        v, f = SM.grid(n, n, size=size)
    elif kind == "tri":
        v, q = SM.grid(n, n, size=size)
        f = SM.triangulated(q)
    elif kind == "jit":
        v, f = SM.jittered_grid(n, size=size)
    elif kind == "fan":
        v, f = SM.fan_disc(32, 10, radius=size / 2)
    elif kind == "hole":
        v, f = SM.holed_grid(n, size=size, centre=(0.15, 0.1), radius=0.15 * size)
    v = np.asarray(v, float)
    v[:, :2] -= (v[:, :2].max(0) + v[:, :2].min(0)) / 2
    v[:, 2] = 0.0
    return A.mesh_obj("Cloth", v, np.asarray(f).tolist())


def hanging(top=1.5, size=1.0):
    """The cloth hung in the XZ plane (turned 90 degrees about X), its top row pinned (vertex group Pins)."""
    c = cloth_obj(size)
    c.rotation_euler = (math.radians(90), 0, 0)
    c.location = (0, 0, top - size / 2)
    bpy.context.view_layer.update()
    P = A.rest_world(c)
    pins = np.nonzero(P[:, 2] > P[:, 2].max() - 0.02 * size)[0].tolist()
    c.vertex_groups.new(name="Pins").add(pins, 1.0, "REPLACE")
    return c


def sphere_obj(name, r, loc):
    """OBJ=empty (ours only): an Empty, display size r; else (or BL) a UV sphere mesh r (32 x 16)."""
    if OBJ == "empty" and not BL:
        e = bpy.data.objects.new(name, None)
        A.link(e)
        e.empty_display_type = "SPHERE"
        e.empty_display_size = r
        e.location = loc
        return e
    bpy.ops.mesh.primitive_uv_sphere_add(radius=r, location=loc, segments=32, ring_count=16)
    o = bpy.context.active_object
    o.name = name
    return o


def plane_obj(name, half=(1.0, 1.0), loc=(0, 0, 0), offset=(0.0, 0.0)):
    """OBJ=empty (ours only): an Empty (Plain Axes, size 1) scaled half; else a mesh rectangle (4 vertices) of that
    half size whose centre is `offset` from the origin (the hinge)."""
    if OBJ == "empty" and not BL:
        assert offset == (0.0, 0.0)
        e = bpy.data.objects.new(name, None)
        A.link(e)
        e.scale = (half[0], half[1], 1.0)
        e.location = loc
        return e
    hx, hy = half
    ox, oy = offset
    v = [(ox - hx, oy - hy, 0), (ox + hx, oy - hy, 0), (ox + hx, oy + hy, 0), (ox - hx, oy + hy, 0)]
    o = A.mesh_obj(name, v, [(0, 1, 2, 3)])
    o.location = loc
    return o


def make_kind(o, kind, bounded=False):
    if BL:
        o.modifiers.new("Collision", "COLLISION")
        return
    A.make_collider(o)
    if kind == "PLANE" and o.type == "MESH" and os.environ.get("PKIND") == "MESH":
        kind = "MESH"  # PKIND=MESH: the same rectangle as a Mesh collider (the README's advice for boards)
    o.verlet_cloth_collider.kind = kind
    if kind == "PLANE":
        o.verlet_cloth_collider.bounded = bounded


def sphere_shape(o):
    M = np.array(o.matrix_world)
    c = M[:3, 3]
    if o.type == "EMPTY":
        return c, float(o.empty_display_size) * float(max(abs(s) for s in o.matrix_world.to_scale()))
    V, _ = A.world_collider(o)
    return c, float(np.linalg.norm(V - c, axis=1).max())


def plane_shape(o, bounded):
    """(point, normal, u, v) world; u, v half-size vectors (None when unbounded), as README defines it."""
    M = np.array(o.matrix_world)
    B = M[:3, :3]
    n = np.cross(B[:, 0], B[:, 1])
    n /= np.linalg.norm(n)
    if np.dot(n, B[:, 2]) < 0:
        n = -n
    if not bounded:
        return M[:3, 3], n, None, None
    if o.type == "EMPTY":
        h = float(o.empty_display_size)
        lo, hi = np.array([-h, -h]), np.array([h, h])
    else:
        co = np.array([v.co[:] for v in o.data.vertices])
        lo, hi = co[:, :2].min(0), co[:, :2].max(0)
    ce, ha = (lo + hi) / 2, (hi - lo) / 2
    p = B @ np.array([ce[0], ce[1], 0.0]) + M[:3, 3]
    return p, n, B @ np.array([ha[0], 0, 0]), B @ np.array([0, ha[1], 0])


def check_sphere(P, E, c, r):
    d = np.linalg.norm(P - c, axis=1)
    ins = d < r - 1e-4
    a, b = P[E[:, 0]], P[E[:, 1]]
    ab = b - a
    t = np.clip(((c - a) * ab).sum(1) / np.maximum((ab * ab).sum(1), 1e-18), 0, 1)
    q = np.linalg.norm(a + ab * t[:, None] - c, axis=1)
    thr = (~ins[E[:, 0]]) & (~ins[E[:, 1]]) & (q < r - 1e-4)
    return int(ins.sum()), float(max(0.0, r - d.min())), int(thr.sum()), float(max(0.0, (r - q[thr]).max(initial=0)))


def plane_state(P, shape):
    p, n, u, v = shape
    dist = (P - p) @ n
    if u is None:
        over = np.ones(len(P), bool)
    else:
        L = P - p
        over = (np.abs(L @ u) <= u @ u) & (np.abs(L @ v) <= v @ v)
    return dist, over


def edges_through_plane(P, E, shape):
    p, n, u, v = shape
    d = (P - p) @ n
    a, b = d[E[:, 0]], d[E[:, 1]]
    cross = (a > 1e-4) & (b < -1e-4) | (a < -1e-4) & (b > 1e-4)
    if u is None:
        return int(cross.sum())
    t = a / np.where(cross, a - b, 1.0)
    X = P[E[:, 0]] + (P[E[:, 1]] - P[E[:, 0]]) * t[:, None] - p
    inside = (np.abs(X @ u) <= u @ u) & (np.abs(X @ v) <= v @ v)
    return int((cross & inside).sum())


def play(s, c, rest, measure, tag):
    """Every frame: measure(P, E, f) -> dict of counts; worst (and its frame), end, NaN, stretch."""
    import time

    worst, at, ts, smax = {}, {}, [], (0.0, 0)
    E = None
    for f in range(1, FRAMES + 1):
        t0 = time.process_time()
        s.frame_set(f)
        ts.append(time.process_time() - t0)
        P, T, E = A.world_mesh(c, tris=False)
        if not np.isfinite(P).all():
            print("frame", f, "NaN", flush=True)
            worst["nan"] = worst.get("nan", 0) + 1
            continue
        m = measure(P, E, f)
        for k, val in m.items():
            if val > worst.get(k, 0):
                worst[k], at[k] = val, f
        sm, sx = A.strain(P, E, rest)
        if sx > smax[0]:
            smax = (sx, f)
    P, _, E = A.world_mesh(c, tris=False)
    m, x = A.strain(P, E, rest)
    end = measure(P, E, FRAMES)
    if os.environ.get("DUMP") == "1":  # the five most stretched edges at the end: where they are
        L = np.linalg.norm(P[E[:, 0]] - P[E[:, 1]], axis=1) / np.linalg.norm(rest[E[:, 0]] - rest[E[:, 1]], axis=1)
        for k in np.argsort(-L)[:5]:
            print("  stretched", round(float(L[k]), 2), np.round(P[E[k, 0]], 3), np.round(P[E[k, 1]], 3), flush=True)
        print(
            "  y range",
            np.round(np.percentile(P[:, 1], [0, 10, 50, 90, 100]), 3),
            "z range",
            np.round(np.percentile(P[:, 2], [0, 10, 50, 90, 100]), 3),
            flush=True,
        )
    print(
        "RESULT",
        f"{WHO} {tag} {MESH}",
        {k: (round(v, 4) if isinstance(v, float) else v) for k, v in worst.items()},
        "at",
        at,
        "end",
        {k: (round(v, 4) if isinstance(v, float) else v) for k, v in end.items()},
        "stretch end",
        round(m * 100, 2),
        round(x * 100, 1),
        "max",
        round(smax[0] * 100, 1),
        "at",
        smax[1],
        "finite",
        bool(np.isfinite(P).all()),
        "ms",
        round(1000 * float(np.median(ts[1:])), 1),
        flush=True,
    )


def sphere_through():
    s = R.scene()
    tel = os.environ.get("TELEPORT", "0")
    parent = os.environ.get("PARENT") == "1"
    c = hanging()
    bx = float(os.environ.get("BX", "0"))  # BX=5: the same path 5 m aside (the cloth's own hang, for comparison)
    ball = sphere_obj("Ball", 0.2, (bx, -0.5, 1.0))
    key = ball
    if parent:
        e = bpy.data.objects.new("Mover", None)
        A.link(e)
        ball.parent = e
        ball.location = (0.0, 0.0, 0.0)
        e.location = (bx, -0.5, 1.0)
        key = e
    f0 = 10
    if tel != "0":
        key.keyframe_insert("location", frame=f0)
        key.location = (key.location[0], 0.1 if tel == "1" else 1.0, key.location[2])
        key.keyframe_insert("location", frame=f0 + 1)
        for fc in R_fcurves(key):
            for k in fc.keyframe_points:
                k.interpolation = "CONSTANT"
        tag = f"sphere_teleport{tel}"
    else:
        key.keyframe_insert("location", frame=f0)
        frames = 1.5 / SPEED * 24
        key.location = (key.location[0], key.location[1] + 1.5, key.location[2])
        key.keyframe_insert("location", frame=f0 + frames)
        tag = f"sphere_through {SPEED} m/s"
    s.frame_set(1)
    bpy.context.view_layer.update()
    make_kind(ball, "SPHERE")
    rest = A.rest_world(c)
    R.cloth(c, bend=0.05, pin="Pins")

    def measure(P, E, f):
        ctr, r = sphere_shape(ball)
        i, d, t, td = check_sphere(P, E, ctr, r)
        # carried: how far +Y the cloth was pushed (a sphere passing through the sheet leaves it near y 0)
        return {"in": i, "in_mm": d * 1000, "thr": t, "thr_mm": td * 1000, "carried_mm": float(P[:, 1].max()) * 1000}

    play(s, c, rest, measure, f"{tag} obj={OBJ} parent={parent}")


def R_fcurves(obj):
    from bpy_extras import anim_utils

    ad = obj.animation_data
    return anim_utils.action_get_channelbag_for_slot(ad.action, ad.action_slot).fcurves


def _plane_measure(pl, bounded, prev):
    def measure(P, E, f):
        sh = plane_shape(pl, bounded)
        dist, over = plane_state(P, sh)
        crossed = 0
        if prev.get("d") is not None and f != FRAMES + 99:
            crossed = int(((prev["d"] >= -1e-4) & (dist < -1e-4) & over).sum())
        prev["d"] = dist
        behind = over & (dist < -1e-4)
        return {
            "crossed": crossed,
            "behind": int(behind.sum()),
            "behind_mm": float(-dist[behind].min(initial=0)) * 1000,
            "thr": edges_through_plane(P, E, sh),
        }

    return measure


def plane_rise():
    s = R.scene()
    bounded = os.environ.get("BOUNDED", "0") == "1"
    pl = plane_obj("Lift", (1.0, 1.0))
    pl.keyframe_insert("location", frame=16)
    pl.location = (0, 0, 2.0)
    pl.keyframe_insert("location", frame=16 + 2.0 / SPEED * 24)
    s.frame_set(1)
    make_kind(pl, "PLANE", bounded)
    c = cloth_obj(1.0)
    c.location = (0.03, 0.02, 0.1)
    c.rotation_euler = (0, 0, 0.2)
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    R.cloth(c, bend=0.05)
    play(s, c, rest, _plane_measure(pl, bounded, {}), f"plane_rise {SPEED} m/s obj={OBJ} bounded={bounded}")


def seesaw():
    s = R.scene()
    bounded = os.environ.get("BOUNDED", "1") == "1"
    pl = plane_obj("Seesaw", (1.0, 0.5), (0, 0, 0.5))  # (wider than the cloth: no skirt over the long rims)
    for k, f in enumerate(range(1, FRAMES + 13, 12)):
        pl.rotation_euler = (0, math.radians(25 if k % 2 else -25) if k else 0.0, 0)
        pl.keyframe_insert("rotation_euler", frame=f if k == 0 else f - 6)
    s.frame_set(1)
    make_kind(pl, "PLANE", bounded)
    c = cloth_obj(0.6)
    c.location = (0.02, 0.01, 0.53)
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    R.cloth(c, bend=0.05)
    play(s, c, rest, _plane_measure(pl, bounded, {}), f"seesaw obj={OBJ} bounded={bounded}")


def flip():
    s = R.scene()
    c = hanging()
    # 0.7 m long: the pinned row (0.86 m from the hinge) is out of its reach (at 0.9 m it swept through the pins)
    empty = OBJ == "empty" and not BL
    pl = plane_obj("Paddle", (0.3, 0.35), (0, -0.5, 0.8), offset=(0.0, 0.0 if empty else 0.35))
    if empty:  # an Empty cannot be off-centre: parent it to a hinge Empty
        pl.location = (0, 0.35, 0)
        h = bpy.data.objects.new("Hinge", None)
        A.link(h)
        h.location = (0, -0.5, 0.8)
        pl.parent = h
        key = h
    else:
        key = pl
    key.rotation_euler = (math.radians(-90), 0, 0)
    key.keyframe_insert("rotation_euler", frame=10)
    key.rotation_euler = (math.radians(90), 0, 0)
    key.keyframe_insert("rotation_euler", frame=16)
    s.frame_set(1)
    bpy.context.view_layer.update()
    make_kind(pl, "PLANE", True)
    rest = A.rest_world(c)
    R.cloth(c, bend=0.05, pin="Pins")
    play(s, c, rest, _plane_measure(pl, True, {}), f"flip obj={OBJ}")


def squashed():
    s = R.scene()
    ball = sphere_obj("Squashed", 1.0, (0, 0, 0.4))
    ball.scale = (0.1, 0.3, 0.2)
    bpy.context.view_layer.update()
    make_kind(ball, "SPHERE")
    ctr, r = sphere_shape(ball)
    print("squashed radius (README: farthest vertex / display size x largest scale)", round(r, 4), flush=True)
    c = cloth_obj(1.0)
    c.location = (0.03, 0.02, 0.4 + r + 0.05)
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    R.cloth(c, bend=0.05)

    def measure(P, E, f):
        ctr, r = sphere_shape(ball)
        i, d, t, td = check_sphere(P, E, ctr, r)
        out = {"in": i, "in_mm": d * 1000, "thr": t, "thr_mm": td * 1000}
        if ball.type == "MESH" and not BL:  # also: against the ellipsoid mesh itself (the shown surface)
            ins, dep, cr, dip = A.against_colliders(P, E, [ball])
            out.update(mesh_in=ins, mesh_thr=cr)
        return out

    play(s, c, rest, measure, f"squashed obj={OBJ}")


def rot_passes():
    """Round 23's cloth_xform ROT=1 (tri, 24^2): which pass leaves cloth edge EDGE (550, 527: found by the crossing
    check at frame 10) inside the 0.4 m box. Wraps the solver's passes (edge, corner, ridge contacts and the vertex
    pass `collide`) in the add-on's loaded solver.step and prints, from the 8th step on, the edge's deepest point inside
    the box (sampled, mm) before and after each pass that leaves or finds it inside; FLOORKIND=MESH: the floor a Mesh."""
    VC = A.VC
    ST = sys.modules[f"{VC.__name__}.solver.step"]
    edge = [int(v) for v in os.environ.get("EDGE", "550,527").split(",")]
    calls = [0]

    def depth(x):
        a, b = x[edge[0]], x[edge[1]]
        p = a + (b - a) * np.linspace(0, 1, 41)[:, None]
        return float(np.minimum.reduce([0.2 - np.abs(p[:, 0]), 0.2 - np.abs(p[:, 1]), p[:, 2], 0.4 - p[:, 2]]).max())

    def wrap(name):
        f = getattr(ST, name)

        def g(x, *a, **k):
            d0, b0 = depth(x), x[edge].copy()
            r = f(x, *a, **k)
            d1 = depth(x)
            if calls[0] >= 8 and (d0 > 0 or d1 > 0):
                t0 = a[3] if name == "collide" else a[4]
                print(f"  step {calls[0]} t0 {t0:.4f} {name} {d0 * 1000:.2f} -> {d1 * 1000:.2f} mm", flush=True)
                if d1 > d0 + 1e-3:
                    print("     moved", [(b0[i].round(4).tolist(), x[v].round(4).tolist()) for i, v in enumerate(edge)])
            return r

        setattr(ST, name, g)

    for n in ("collide_cloth_edges", "collide_cloth_corners", "collide_cloth_ridges", "collide"):
        wrap(n)
    step = ST.step

    def counted(*a, **k):
        calls[0] += 1
        return step(*a, **k)

    sys.modules[f"{VC.__name__}.solver"].step = counted
    s = R.scene()
    fl = R.floor()
    if os.environ.get("FLOORKIND"):
        fl.verlet_cloth_collider.kind = os.environ["FLOORKIND"]
    b = A.box("Box", (0.4, 0.4, 0.4), (0, 0, 0.2))
    R.collider(b)
    c = R.blender_grid(n=24, size=1.0, kind="tri")
    A.activate(c)
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    bpy.ops.transform.rotate(value=math.radians(90), orient_axis="X")
    bpy.ops.object.mode_set(mode="OBJECT")
    c.rotation_euler = (math.radians(90), 0, 0.3)
    c.location = (0.03, 0.02, 0.48)
    bpy.context.view_layer.update()
    R.cloth(c, bend=0.05)
    V, T = A.world_collider(b)
    for f in range(1, 15):
        s.frame_set(f)
        P, TT, E = A.world_mesh(c)
        cc, dd = A.crossing_dip(P, E, V, T)
        print("frame", f, "edges through the box", cc, "deepest", round(dd * 1000, 2), "mm", flush=True)


if __name__ == "__main__":
    globals()[sys.argv[1]]()
