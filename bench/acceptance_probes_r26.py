# ruff: noqa
"""Acceptance-style probes in real Blender, round 26 (kinds_r26): the five mesh kinds on several colliders, ours
beside Blender's Cloth, after round 25 (Auto Substeps follow pins' acceleration, on by default).

On top of bench/acceptance_probes_r24.py (its checks, `go`, `place_cloth`, `table_slide`; BL=1: Blender's Cloth with
Collision modifiers on the same scene). Public names only (bpy.ops.verlet_cloth.*, Object.verlet_cloth /
verlet_cloth_collider). KIND takes, besides r20's tri (Add > Grid, Triangulate Beauty) and quad (Add > Grid):
  jit   the solver's `meshes.jittered_grid` (interior vertices moved +-30 % of the spacing, shorter diagonals)
  fan   the solver's `meshes.fan_disc` (32 spokes, N//4 rings; a disc of diameter `size`, its hub with 32 edges)
  hole  the solver's `meshes.holed_grid` (a quad grid with a round hole of radius 0.175 `size` off-centre)
all built in Blender with bmesh from the generators' vertex / face arrays (the generators' own parameters, scaled
to a `size` x `size` cloth, N x N vertices for the grids). Checked at every EVERY-th frame (r24's `check`): **in**
= cloth vertices inside a collider's evaluated triangles (ray parity + winding) by more than 1 mm, **thr** = cloth
edges through them, stretch max (%), NaN, below the floor. Usage (from a checkout):
  VC_ROOT=$PWD BL=0|1 KIND=tri|quad|jit|fan|hole N=24 FRAMES=48 EVERY=2 .venv/bin/python bench/acceptance_probes_r26.py <case>...
cases:
  box         a 0.6 x 0.6 x 0.4 m box (one closed mesh) on the floor; a 1 m cloth dropped 8 cm over its top
  table       a table (top 1 x 0.7 x 0.04 m at 0.72 m, four 5 cm legs: 5 boxes in one mesh); a 1 m cloth from 0.78 m
  ball        a UV sphere (32 x 16, r 0.3 m) on the floor, a MESH collider; a 1 m cloth dropped 8 cm over it
  torus       Add > Torus at its defaults (48 x 12, 1 / 0.25 m) on the floor; a 2.4 m cloth dropped into its hole
  tilted      a single plane mesh (1.6 m, zero thickness) tilted 25 degrees about Y, its centre 0.6 m up; a 0.8 m
              cloth dropped from 0.95 m (15 cm over the slope's highest point under it; at 0.75 m it started across it): it slides down and off onto the floor
  cape        r24's walker with a 0.6 x 0.8 m cape parented to its Chest bone, the top pinned (the vertices within
              PIN_BAND m of the top: 0.1 mm, or 4 cm for the fan disc, whose top is one vertex)
  table_slide r24's: the table keyed +X 0.9 m over frames 16-22 (3.6 m/s) under a resting 1 m cloth
RULES=name=value,... sets add-on module switches before the run (e.g. RULES=solver.corner_support.REACH=1), for
bisecting.
"""

import math, os, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import acceptance_probes_r20 as R  # noqa: E402  (starts Blender, enables the add-on)
import acceptance_probes as A  # noqa: E402
import acceptance_probes_r24 as P24  # noqa: E402
import bpy  # noqa: E402
import bmesh  # noqa: E402
import numpy as np  # noqa: E402

BL, N, FRAMES, EVERY, KIND = R.BL, R.N, R.FRAMES, R.EVERY, R.KIND
ADDON = "bl_ext.dev.verlet_cloth"
meshes = sys.modules.get(ADDON + ".solver.meshes")
if meshes is None:
    import importlib

    meshes = importlib.import_module(ADDON + ".solver.meshes")

for item in filter(None, os.environ.get("RULES", "").split(",")):
    name, value = item.split("=")
    mod, attr = name.rsplit(".", 1)
    m = sys.modules[ADDON + "." + mod]
    old = getattr(m, attr)
    setattr(m, attr, type(old)(eval(value)) if not isinstance(old, bool) else value in ("1", "True", "true"))
    print("RULE", name, old, "->", getattr(m, attr), flush=True)


def _bm_from(name, V, F):
    bm = bmesh.new()
    vs = [bm.verts.new(tuple(map(float, v))) for v in V]
    for f in F:
        bm.faces.new([vs[int(i)] for i in f])
    bm.normal_update()
    me = bpy.data.meshes.new(name)
    bm.to_mesh(me)
    bm.free()
    o = bpy.data.objects.new(name, me)
    A.link(o)
    A.activate(o)
    return o


_blender_grid = R.blender_grid


def kind_grid(name="Cloth", n=N, size=1.0, kind=KIND):
    """r20's tri / quad as Blender's operators make them; jit / fan / hole from the solver's generators."""
    if kind == "jit":
        V, F = meshes.jittered_grid(n, size=size, jitter=0.3, seed=0)
    elif kind == "fan":
        V, F = meshes.fan_disc(spokes=32, rings=max(2, n // 4), radius=size / 2)
    elif kind == "hole":
        V, F = meshes.holed_grid(n, size=size, centre=(0.225 * size, 0.1 * size), radius=0.175 * size)
    else:
        return _blender_grid(name=name, n=n, size=size, kind=kind)
    return _bm_from(name, V, F)


R.blender_grid = kind_grid  # r20's drop / r24's place_cloth / table_slide pick it up


def where(c, rest, cols, k=4):
    """WHERE=1: the k most stretched edges at the current frame: strain, midpoint, distance to the nearest collider."""
    from mathutils import Vector
    from mathutils.bvhtree import BVHTree

    P, _, E = A.world_mesh(c)
    L = np.linalg.norm(P[E[:, 0]] - P[E[:, 1]], axis=1) / np.linalg.norm(rest[E[:, 0]] - rest[E[:, 1]], axis=1) - 1
    trees = []
    for col in cols:
        V, T = A.world_collider(col)
        trees.append(BVHTree.FromPolygons([tuple(v) for v in V], [tuple(t) for t in T], all_triangles=True))
    for e in np.argsort(L)[-k:]:
        m = 0.5 * (P[E[e, 0]] + P[E[e, 1]])
        d = min(t.find_nearest(Vector(m))[3] for t in trees)
        print(
            f"WHERE f{bpy.context.scene.frame_current} {L[e] * 100:.1f} % edge {E[e].tolist()} at {m.round(3)}"
            f" {d * 1000:.0f} mm from the collider",
            flush=True,
        )


def _floor_drop(col, tag, size, loc=(0.02, 0.03), rot=0.1, z=None):
    s = bpy.context.scene
    s.frame_set(1)
    bpy.context.view_layer.update()
    top = float(A.world_collider(col)[0][:, 2].max())
    c, rest = P24.place_cloth("Cloth", size, loc, top + 0.08 if z is None else z, rot=rot)
    kw = (
        {}
        if BL
        else {k: eval(v) for k, v in (i.split("=") for i in filter(None, os.environ.get("CLOTHKW", "").split(",")))}
    )
    R.cloth(c, bend=0.05, **kw)  # CLOTHKW=friction=0,...: ours' cloth settings (bisecting)
    P24.go(s, c, [col], tag, rest)


_go = P24.go


def go_where(s, c, cols, tag, rest, **kw):
    """WHERE=f1,f2,...: instead of the checks, the most stretched edges at those frames (any scene)."""
    if not os.environ.get("WHERE"):
        return _go(s, c, cols, tag, rest, **kw)
    frames = [int(f) for f in os.environ["WHERE"].split(",")]
    for f in range(1, max(frames) + 1):
        s.frame_set(f)
        if f in frames:
            where(c, rest, cols)
    return None


P24.go = go_where  # (r24's scenes call it through the module)


def box():
    R.scene()
    R.floor()
    bm = bmesh.new()
    P24._cube_into(bm, (0.6, 0.6, 0.4), (0, 0, 0.2))
    b = P24._bm_obj("Box", bm)
    R.collider(b)
    _floor_drop(b, "box", 1.0)


def _table():
    bm = bmesh.new()
    P24._cube_into(bm, (1.0, 0.7, 0.04), (0, 0, 0.72))
    for x, y in ((-0.45, -0.3), (0.45, -0.3), (-0.45, 0.3), (0.45, 0.3)):
        P24._cube_into(bm, (0.05, 0.05, 0.7), (x, y, 0.35))
    return P24._bm_obj("Table", bm)


def table():
    R.scene()
    R.floor()
    t = _table()
    R.collider(t)
    _floor_drop(t, "table", 1.0, loc=(0.0, 0.0), rot=0.0, z=0.78)


def ball():
    R.scene()
    R.floor()
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.3, segments=32, ring_count=16, location=(0, 0, 0.3))
    b = bpy.context.active_object
    b.name = "Ball"
    R.collider(b)
    _floor_drop(b, "ball", 1.0)


def torus():
    R.scene()
    R.floor(size=10)
    bpy.ops.mesh.primitive_torus_add(location=(0, 0, 0.25))
    t = bpy.context.active_object
    R.collider(t)
    _floor_drop(t, "torus", 2.4, loc=(0.45, -0.3), rot=0.2)


def tilted():
    R.scene()
    R.floor()
    bpy.ops.mesh.primitive_plane_add(size=1.6, location=(0, 0, 0.6), rotation=(0, math.radians(25), 0))
    p = bpy.context.active_object
    p.name = "Slope"
    R.collider(p)
    _floor_drop(p, "tilted", 0.8, loc=(0.0, 0.0), rot=0.1, z=0.95)  # the slope reaches 0.80 m under the cloth


def cape():
    """r24's walker(cape=True) with the pinned band PIN_BAND (the fan disc's top is a single vertex). CAPE_WEIGHTS=auto:
    the body's bone-heat weights as before round 29 (they differ from run to run: so did the cape's numbers); the
    default "height" sets them by height, the same every run."""
    P24.walker(
        cape=True,
        band=float(os.environ.get("PIN_BAND", "0.04" if KIND == "fan" else "0.0001")),
        weights=os.environ.get("CAPE_WEIGHTS", "height"),
    )


CASES = dict(box=box, table=table, ball=ball, torus=torus, tilted=tilted, cape=cape, table_slide=P24.table_slide)

if __name__ == "__main__":
    for name in sys.argv[1:]:
        CASES[name]()
