# ruff: noqa
"""Acceptance-style probes in real Blender, round 20 (probe23): scenes not probed before, each beside Blender's Cloth.

Builds on bench/acceptance_probes.py (its helpers and checks: inside by 2-of-3 ray parity against the collider's
evaluated triangles, cloth edges through them and how deep, loop-triangle pairs overlapping and sharing no vertex).
BL=1 runs Blender's own Cloth on the same scene (Collision modifiers on the colliders; self-collision on when SELF=1)
instead of ours. Usage (from a checkout):
  VC_ROOT=$PWD BL=0|1 KIND=tri|quad|... SELF=0|1 N=20 FRAMES=40 .venv/bin/python bench/acceptance_probes_r20.py <case>
SUBSTEPS=k sets ours to k substeps a frame (Auto off); QUALITY=k sets Blender's Cloth's Quality Steps (BL=1).
cases (issue 11): chair_ops modstack empty_parent pillow uvsphere torus fast_thin stacked stacked_cli arm_bl subdiv_pop array_count
cases (issue 13, KIND=poke|beauty|trimod|uvsub|circle|circlegrid): self_crumple self_fastfold self_sphere self_torn self_grab
"""

import math, os, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import acceptance_probes as A  # noqa: E402  (starts Blender and enables the add-on)
import bpy  # noqa: E402
import numpy as np  # noqa: E402

BL = os.environ.get("BL", "0") == "1"
KIND = os.environ.get("KIND", "tri")
N = int(os.environ.get("N", "20"))
SELF = os.environ.get("SELF", "0") == "1"
FRAMES = int(os.environ.get("FRAMES", "48"))
EVERY = int(os.environ.get("EVERY", "2"))
SUBSTEPS = int(os.environ.get("SUBSTEPS", "0"))  # ours: substeps set by hand (Auto off); 0: Auto Substeps
QUALITY = int(os.environ.get("QUALITY", "0"))  # Blender's Cloth: Quality Steps; 0: its default (5)
WHO = "BLENDER" if BL else "ours"


def collider(*objs):
    for o in objs:
        if BL:
            o.modifiers.new("Collision", "COLLISION")
        else:
            A.make_collider(o)
            o.verlet_cloth_collider.kind = "MESH"


def floor(size=6.0):
    bpy.ops.mesh.primitive_plane_add(size=size, location=(0, 0, 0))
    f = bpy.context.active_object
    f.name = "Floor"
    if BL:
        f.modifiers.new("Collision", "COLLISION")
    else:
        A.make_collider(f)
        f.verlet_cloth_collider.kind = "PLANE"
    return f


def cloth(o, bend=0.05, selfc=None, pin=None, pressure=None, frames=None, **kw):
    selfc = SELF if selfc is None else selfc
    A.CLASS["obj"] = o
    if BL:
        m = o.modifiers.new("Cloth", "CLOTH")
        m.settings.bending_stiffness = bend
        m.collision_settings.use_self_collision = selfc
        if pin:
            m.settings.vertex_group_mass = pin
        if pressure is not None:
            m.settings.use_pressure = True
            m.settings.uniform_pressure_force = pressure
        m.point_cache.frame_end = frames or FRAMES
        if QUALITY:
            m.settings.quality = QUALITY
        return m
    r = A.make_cloth(o)
    s = o.verlet_cloth
    s.bend_stiffness = bend
    s.self_collision = selfc
    s.self_collision_faces = True
    if pin:
        s.pin_group = pin
    if pressure is not None:
        s.use_pressure = True
        s.pressure = pressure
    for k, v in kw.items():
        setattr(s, k, v)
    if SUBSTEPS:
        s.substeps = SUBSTEPS  # (switches Auto Substeps off)
    return r


def scene(frames=None):
    s = A.reset()
    s.frame_end = frames or FRAMES
    return s


def blender_grid(name="Cloth", n=N, size=1.0, kind=KIND):
    """Cloth meshes as an artist makes them with Blender's operators."""
    if kind == "circle":
        bpy.ops.mesh.primitive_circle_add(vertices=32, radius=size / 2, fill_type="NGON")
        o = bpy.context.active_object
    elif kind == "circlegrid":  # a circle filled with an N-gon, then Grid Fill-like: inset + poke
        bpy.ops.mesh.primitive_circle_add(vertices=48, radius=size / 2, fill_type="NGON")
        o = bpy.context.active_object
        bpy.ops.object.mode_set(mode="EDIT")
        bpy.ops.mesh.select_all(action="SELECT")
        for t in (0.06, 0.06, 0.06, 0.06, 0.06, 0.06):
            bpy.ops.mesh.inset(thickness=t)
        bpy.ops.mesh.poke()
        bpy.ops.object.mode_set(mode="OBJECT")
    elif kind == "uvsub":  # Add > Plane (UV-unwrapped), Subdivide n-1 cuts
        bpy.ops.mesh.primitive_plane_add(size=size, calc_uvs=True)
        o = bpy.context.active_object
        bpy.ops.object.mode_set(mode="EDIT")
        bpy.ops.mesh.select_all(action="SELECT")
        bpy.ops.mesh.subdivide(number_cuts=n - 2)
        bpy.ops.object.mode_set(mode="OBJECT")
    else:
        bpy.ops.mesh.primitive_grid_add(x_subdivisions=n - 1, y_subdivisions=n - 1, size=size)
        o = bpy.context.active_object
        if kind in ("poke", "beauty"):
            bpy.ops.object.mode_set(mode="EDIT")
            bpy.ops.mesh.select_all(action="SELECT")
            if kind == "poke":
                bpy.ops.mesh.poke()
            else:
                bpy.ops.mesh.quads_convert_to_tris(quad_method="FIXED", ngon_method="BEAUTY")
                bpy.ops.mesh.beautify_fill()
            bpy.ops.object.mode_set(mode="OBJECT")
        elif kind == "trimod":  # a Triangulate modifier on the cloth (what the evaluated mesh shows)
            o.modifiers.new("Triangulate", "TRIANGULATE")
        elif kind != "quad":
            bpy.ops.object.mode_set(mode="OBJECT")
            return A.bl_grid(name, n=n, size=size, kind=kind)
    o.name = name
    return o


def go(s, c, cols, tag, rest, every=EVERY, selfc=None, frames=None):
    """Play and check; the pairs are counted whenever self-collision is on or PAIRS=1 (the scene with it off)."""
    selfc = SELF if selfc is None else selfc
    count = selfc or os.environ.get("PAIRS") == "1"
    return A.run(s, c, cols, frames or FRAMES, rest, f"{WHO} {tag} {KIND} self={selfc}", every=every, selfc=count)


def drop(
    cols, tag, size=1.2, z=None, loc=(0.0, 0.0), rot=0.0, n=N, bend=0.05, kind=None, every=EVERY, frames=None, **kw
):
    s = bpy.context.scene
    s.frame_set(1)
    bpy.context.view_layer.update()
    top = max(float(A.world_collider(c)[0][:, 2].max()) for c in cols)
    c = blender_grid(n=n, size=size, kind=kind or KIND)
    c.location = (loc[0], loc[1], z if z is not None else top + 0.08)
    c.rotation_euler = (0, 0, rot)
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    cloth(c, bend=bend, frames=frames, **kw)
    return s, c, go(s, c, cols, tag, rest, every=every, frames=frames)


# ---------------------------------------------------------------- issue 11
def chair_ops():
    """A chair made with edit-mode operators in one mesh: a seat, four legs and a back as overlapping boxes."""
    scene()
    floor()
    bpy.ops.mesh.primitive_cube_add(size=1, location=(0, 0, 0.45))
    ch = bpy.context.active_object
    ch.name = "Chair"
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    bpy.ops.transform.resize(value=(0.5, 0.5, 0.05))
    for x, y in ((-0.22, -0.22), (0.22, -0.22), (-0.22, 0.22), (0.22, 0.22)):
        bpy.ops.mesh.primitive_cube_add(size=1, location=(x, y, 0.22))  # added into the edited mesh
        bpy.ops.transform.resize(value=(0.04, 0.04, 0.44))
    bpy.ops.mesh.primitive_cube_add(size=1, location=(0, 0.23, 0.72))
    bpy.ops.transform.resize(value=(0.5, 0.04, 0.55))
    bpy.ops.mesh.select_all(action="SELECT")
    bpy.ops.mesh.bevel(offset=0.01, segments=2)
    bpy.ops.object.mode_set(mode="OBJECT")
    ch.rotation_euler = (0, 0, math.radians(15))
    print("chair verts", len(ch.data.vertices), "faces", len(ch.data.polygons), "dims", tuple(ch.dimensions))
    collider(ch)
    drop([ch], "chair_ops", size=1.1, loc=(0.05, -0.08), n=N)


def modstack():
    """Half a table top (plane) with Mirror X, Solidify 4 cm and Bevel 1 cm, on a 0.5 m stand, cloth over its edge."""
    scene()
    floor()
    bpy.ops.mesh.primitive_plane_add(size=1, location=(0, 0, 0.5))
    t = bpy.context.active_object
    t.name = "Top"
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    bpy.ops.transform.translate(value=(0.5, 0, 0))  # x in 0..1: Mirror makes -1..1
    bpy.ops.transform.resize(value=(1.0, 0.8, 1.0))
    bpy.ops.object.mode_set(mode="OBJECT")
    mi = t.modifiers.new("Mirror", "MIRROR")
    mi.use_clip = True
    so = t.modifiers.new("Solidify", "SOLIDIFY")
    so.thickness = 0.04
    bv = t.modifiers.new("Bevel", "BEVEL")
    bv.width = 0.01
    bv.segments = 2
    collider(t)
    drop([t], "modstack", size=1.2, loc=(0.55, 0.1), n=N)


def empty_parent():
    """A 0.4 m box parented to an Empty that rises 0.25 m and turns 40 deg over frames 10-30 under a resting cloth."""
    s = scene()
    floor()
    e = bpy.data.objects.new("Mover", None)
    A.link(e)
    e.location = (0, 0, 0.2)
    e.keyframe_insert("location", frame=10)
    e.keyframe_insert("rotation_euler", frame=10)
    e.location = (0, 0, 0.45)
    e.rotation_euler = (0, 0, math.radians(40))
    e.keyframe_insert("location", frame=30)
    e.keyframe_insert("rotation_euler", frame=30)
    s.frame_set(1)
    b = A.box("Box", (0.4, 0.4, 0.4), (0, 0, 0.2))
    b.parent = e
    b.location = (0, 0, 0)
    bpy.context.view_layer.update()
    collider(b)
    drop([b], "empty_parent", size=1.0, n=N, loc=(0.03, 0.02), z=0.45)


def uvsphere():
    """Add > UV Sphere at its defaults (32 x 16, r 1 m) 1 m up; a 2 m cloth dropped 0.35 m off-centre."""
    scene()
    floor(size=10)
    bpy.ops.mesh.primitive_uv_sphere_add(location=(0, 0, 1))
    b = bpy.context.active_object
    collider(b)
    drop([b], "uvsphere", size=2.0, loc=(0.35, 0.2), n=N, rot=0.3)


def torus():
    """Add > Torus at its defaults (48 x 12, 1 / 0.25 m) on the floor; a 2.4 m cloth dropped off-centre into its hole."""
    scene()
    floor(size=10)
    bpy.ops.mesh.primitive_torus_add(location=(0, 0, 0.25))
    t = bpy.context.active_object
    collider(t)
    drop([t], "torus", size=2.4, loc=(0.45, -0.3), n=N, rot=0.2)


def fast_thin():
    """A cloth reaching 6 m/s onto a zero-thickness plane mesh 1.84 m below it (a Mesh collider, no floor)."""
    scene()
    bpy.ops.mesh.primitive_plane_add(size=2, location=(0, 0, 0))
    p = bpy.context.active_object
    p.name = "Thin"
    p.rotation_euler = (math.radians(10), 0, 0)
    collider(p)
    drop([p], "fast_thin", size=1.0, z=1.84, loc=(0.1, 0.0), n=N, every=1)


def stacked():
    """Two cloths on a 0.3 m box: the lower baked, made a Mesh collider, then the upper dropped on it and baked."""
    s = scene()
    floor()
    b = A.box("Box", (0.5, 0.5, 0.3), (0, 0, 0.15))
    collider(b)
    low = blender_grid("Lower", n=N, size=1.0, kind="quad")
    low.location = (0, 0, 0.36)
    cloth(low, bend=0.05)
    if BL:
        for f in range(1, FRAMES + 1):
            s.frame_set(f)  # fill the point cache
        low.modifiers.new("Collision", "COLLISION")
    else:
        A.activate(low)
        print("bake lower", bpy.ops.verlet_cloth.bake(), flush=True)
        A.make_collider(low)
        low.verlet_cloth_collider.kind = "MESH"
    s.frame_set(1)
    up = blender_grid("Upper", n=N, size=0.9)
    up.location = (0.04, 0.02, 0.46)
    up.rotation_euler = (0, 0, math.radians(30))
    bpy.context.view_layer.update()
    rest = A.rest_world(up)
    cloth(up, bend=0.05)
    if not BL:
        A.activate(up)
        print("bake upper", bpy.ops.verlet_cloth.bake(), flush=True)
    go(s, up, [low, b], "stacked", rest)


def stacked_cli():
    """The stacked scene unbaked, both cloths (the lower a Mesh collider) saved and baked by tools/bake.py with
    --objects Upper,Lower (the upper named first: the bake orders the layers); the saved file's upper cloth checked
    against the lower's and the box's evaluated triangles at every frame."""
    import subprocess, time as _t

    s = scene()
    floor()
    b = A.box("Box", (0.5, 0.5, 0.3), (0, 0, 0.15))
    collider(b)
    low = blender_grid("Lower", n=N, size=1.0, kind="quad")
    low.location = (0, 0, 0.36)
    cloth(low, bend=0.05)
    A.make_collider(low)
    low.verlet_cloth_collider.kind = "MESH"
    up = blender_grid("Upper", n=N, size=0.9)
    up.location = (0.04, 0.02, 0.46)
    up.rotation_euler = (0, 0, math.radians(30))
    bpy.context.view_layer.update()
    rest = A.rest_world(up)
    cloth(up, bend=0.05)
    path = os.path.join(A._scratch, "stacked.blend")
    out = os.path.join(A._scratch, "stacked_out.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    cmd = [sys.executable, str(A.ROOT / "tools" / "bake.py"), "bake", path, "--objects", "Upper,Lower", "--output", out]
    t = _t.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    print("bake.py rc", r.returncode, round(_t.time() - t, 1), "s", r.stdout[-300:], r.stderr[-300:], flush=True)
    bpy.ops.wm.open_mainfile(filepath=out)
    s = bpy.context.scene
    up, low, b = (bpy.data.objects[n] for n in ("Upper", "Lower", "Box"))
    print("baked", up.verlet_cloth.baked, low.verlet_cloth.baked, flush=True)
    go(s, up, [low, b], "stacked_cli", rest)


def pillow():
    """A pillow (a subdivided cube flattened, a cloth with pressure) on the floor, baked, then a Mesh collider; a
    second cloth dropped on it."""
    s = scene()
    floor()
    bpy.ops.mesh.primitive_cube_add(size=1, location=(0, 0, 0.15))
    pl = bpy.context.active_object
    pl.name = "Pillow"
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    bpy.ops.transform.resize(value=(0.6, 0.4, 0.2))
    bpy.ops.mesh.subdivide(number_cuts=7)
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.object.transform_apply(scale=True)
    cloth(pl, bend=0.3, pressure=300.0 if not BL else 5.0, selfc=False)
    if BL:
        for f in range(1, FRAMES + 1):
            s.frame_set(f)
        pl.modifiers.new("Collision", "COLLISION")
    else:
        A.activate(pl)
        print("bake pillow", bpy.ops.verlet_cloth.bake(), flush=True)
        A.make_collider(pl)
        pl.verlet_cloth_collider.kind = "MESH"
    s.frame_set(FRAMES)
    P, _, _ = A.world_mesh(pl)
    print("pillow at end: z", round(float(P[:, 2].min()), 3), round(float(P[:, 2].max()), 3), flush=True)
    s.frame_set(1)
    drop([pl], "pillow", size=1.0, n=N, z=0.5, loc=(0.05, 0.03), selfc=SELF)


def arm_bl():
    """Round 18's armature-bent cylinder (acceptance_probes.bent_cylinder) beside Blender's Cloth."""
    scene()
    floor()
    cy = A.bent_cylinder()
    collider(cy)
    drop([cy], "arm_bl", size=1.0, n=N, every=3)


def subdiv_pop():
    """The Subdivision pop (tests/test_blender_topology_changing_colliders.py): a 0.6 m cube's Subdivision levels
    keyed 2 -> 0 at frame 15 under a cloth lying on it; inside / through from frame 15, the highest point at the end."""
    s = scene(24)
    floor()
    b = A.box("Cube", (0.6, 0.6, 0.6), (0, 0, 0.4))
    sub = b.modifiers.new("Subdivision", "SUBSURF")
    sub.levels = 2
    sub.keyframe_insert("levels", frame=14)
    sub.levels = 0
    sub.keyframe_insert("levels", frame=15)
    collider(b)
    drop([b], "subdiv_pop", size=1.4, z=1.1, n=N, every=1, frames=24)


def array_count():
    """A 0.2 m slat whose Array count is keyed 1 -> 4 (relative offset 1.5) over frames 15-21 under a cloth lying on
    the floor over it."""
    s = scene(30)
    floor()
    b = A.box("Slats", (0.2, 0.9, 0.3), (-0.45, 0.0, 0.15))
    ar = b.modifiers.new("Array", "ARRAY")
    ar.relative_offset_displace = (1.5, 0.0, 0.0)
    ar.count = 1
    ar.keyframe_insert("count", frame=15)
    ar.count = 4
    ar.keyframe_insert("count", frame=21)
    collider(b)
    drop([b], "array_count", size=1.4, z=0.4, loc=(0.1, 0.0), n=N, every=1, frames=30)


# ---------------------------------------------------------------- issue 13
def self_crumple():
    s = scene()
    floor()
    c = blender_grid()
    c.rotation_euler = (math.radians(80), 0, 0)
    c.location = (0, 0, 0.6)
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    cloth(c, bend=0.2, **({} if BL else {}))
    go(s, c, [], "crumple", rest, every=1)


def self_sphere():
    s = scene()
    floor()
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.15, location=(0, 0, 0.3))
    ball = bpy.context.active_object
    collider(ball)
    c = blender_grid(size=1.2)
    c.location = (0.03, 0.02, 0.6)
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    cloth(c, bend=0.02)
    go(s, c, [ball], "sphere", rest)


def self_fastfold(tear=0.0):
    """Round 18's fast fold (a strip hooked to an Empty turning 175 deg in 3 frames) on Blender-made meshes."""
    s = scene()
    floor()
    c = blender_grid()
    c.location = (0, 0, 0.01)
    g = c.vertex_groups.new(name="Pins")
    idx = [v.index for v in c.data.vertices if v.co.x < -0.42]
    g.add(idx, 1.0, "REPLACE")
    e = bpy.data.objects.new("Hinge", None)
    A.link(e)
    e.location = (0, 0, 0.01)
    e.keyframe_insert("rotation_euler", frame=4)
    e.rotation_euler = (0, math.radians(175), 0)
    e.keyframe_insert("rotation_euler", frame=7)
    hm = c.modifiers.new("Hook", "HOOK")
    hm.object = e
    hm.vertex_group = "Pins"
    hm.falloff_type = "NONE"
    s.frame_set(1)
    bpy.context.view_layer.update()
    hm.matrix_inverse = e.matrix_world.inverted() @ c.matrix_world
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    kw = {"tear_factor": tear} if tear and not BL else {}
    cloth(c, bend=0.05, pin="Pins", **kw)
    go(s, c, [], "fastfold" + (" torn" if tear else ""), rest, every=1)


def self_torn():
    """A crumple with Tear Factor 1.1 (ours only: Blender's Cloth does not tear)."""
    s = scene()
    floor()
    c = blender_grid()
    c.rotation_euler = (math.radians(80), 0, 0)
    c.location = (0, 0, 0.9)
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    g = c.vertex_groups.new(name="Top")
    g.add([v.index for v in c.data.vertices if v.co.y > 0.45], 1.0, "REPLACE")
    cloth(c, bend=0.2, pin="Top", **({} if BL else {"tear_factor": 1.1}))
    go(s, c, [], "torn_hang", rest, every=1)


def self_grab():
    """A cloth lying on the floor; its corner vertex grabbed (ours: services.holding.hold, what Drag Cloth does per
    frame; Blender's: a Hook to an Empty on that vertex, pinned) and carried over the cloth to the opposite corner in
    12 frames (frames 3-15, ~3 m/s), held there, let go at frame 30 (ours) -- a diagonal fold onto itself."""
    s = scene()
    floor()
    c = blender_grid()
    c.location = (0, 0, 0.01)
    bpy.context.view_layer.update()
    P0 = A.rest_world(c)
    k = int(np.argmin(P0[:, 0] + P0[:, 1]))  # the (-x, -y) corner
    a = P0[k].copy()
    b = -a.copy()
    b[2] = 0.06
    path = {
        f: a
        + (b - a) * min(max((f - 3) / 12.0, 0.0), 1.0)
        + np.array([0, 0, 0.25 * math.sin(math.pi * min(max((f - 3) / 12.0, 0), 1))])
        for f in range(1, FRAMES + 1)
    }
    if BL:
        g = c.vertex_groups.new(name="Grab")
        g.add([k], 1.0, "REPLACE")
        e = bpy.data.objects.new("Grip", None)
        A.link(e)
        for f in range(1, FRAMES + 1):
            e.location = tuple(path[f] - a)
            e.keyframe_insert("location", frame=f)
        hm = c.modifiers.new("Hook", "HOOK")
        hm.object = e
        hm.vertex_group = "Grab"
        hm.falloff_type = "NONE"
        s.frame_set(1)
        bpy.context.view_layer.update()
        hm.matrix_inverse = e.matrix_world.inverted() @ c.matrix_world
        cloth(c, bend=0.05, pin="Grab")
        go(s, c, [], "grab", P0, every=1)
        return
    cloth(c, bend=0.05)
    holding = sys.modules[A.VC.__name__ + ".services.holding"]

    def each(f):
        pass

    # A.run with the hold moved before each frame
    orig = s.frame_set

    class Stepper:
        def __init__(self):
            self.f = 0

    worst = 0
    t = []
    import time as _t

    for f in range(1, FRAMES + 1):
        if 2 <= f <= 30:
            holding.hold(c, k, path[f])
        elif f == 31:
            holding.release(c)
        c0 = _t.process_time()
        s.frame_set(f)
        t.append(_t.process_time() - c0)
        P, T, E = A.world_mesh(c)
        pr = A.tri_pairs(P, T)
        worst = max(worst, pr)
        if f in (3, 9, 15, 20, 30, 31, 40, FRAMES):
            print("f", f, "pairs", pr, "grabbed at", np.round(P[k], 3), "target", np.round(path[f], 3), flush=True)
    m, x = A.strain(P, E, P0)
    print(
        "RESULT",
        dict(
            tag=f"{WHO} grab {KIND} self={SELF}",
            worst_pairs=worst,
            last_pairs=pr,
            finite=bool(np.isfinite(P).all()),
            stretch_mean=round(m * 100, 3),
            stretch_max=round(x * 100, 2),
            ms=round(1000 * float(np.median(t[1:])), 1),
        ),
        flush=True,
    )


if __name__ == "__main__":
    globals()[sys.argv[1]]()
