# ruff: noqa
"""Acceptance-style probes in real Blender, round 23 (probe23): scenes not probed before, beside Blender's Cloth.

On top of bench/acceptance_probes.py (checks: inside by 2-of-3 ray parity against the collider's evaluated triangles,
cloth edges through them and how deep, stretch), bench/acceptance_probes_r20.py (BL=1: Blender's Cloth with Collision
modifiers on the same scene; the grids; `drop`, `go`) and r21 / r22. Every case also checks that the user's mesh
(vertices, shape keys, modifier stack) is exactly as before ("user mesh" line). Usage (from a checkout):
  VC_ROOT=$PWD BL=0|1 KIND=tri|quad N=24 FRAMES=48 EVERY=2 .venv/bin/python bench/acceptance_probes_r23.py <case>
cases (colliders, beside Blender's Cloth with BL=1):
  sleeve       a cloth tube (open, pinned at its lower ring) round round 18's armature-bent cylinder; the elbow bends
               70 degrees under it (TWIST=1: and the upper bone twists 90 degrees about its axis)
  modstack4    a 0.3 m plane with Array (2, gaps), Mirror X, Solidify 5 cm, Subdivision 1: four slabs with gaps
  nonuniform   a cylinder scaled (0.4, -1.5, 0.8) lying turned, and a bevelled box scaled (1, 1, -1)
  ngon_star    a concave 16-gon star prism (n-gon caps, 10 cm deep) and a 64-gon disc prism; cloth dropped on both
  loose_only   (ours) a mesh of loose edges and points only: Make Collider's report; cloth falls past it, finite
  flag_wind    a 1.5 x 1 m flag pinned along its side to a pole (cylinder collider); a Wind field (WIND=8; BL: 300)
cases (ours only: Empties, cloth transforms, frame ranges):
  parent_turn  a box and an Empty made a Sphere collider (scaled 0.25) parented to an Empty that rises and tilts 60
               degrees under a resting cloth; the sphere checked by its radius (display size x largest scale)
  empty_plane  an Empty (scale 0.4, 0.25, 1, turned 20 degrees about X) made a Plane collider (Bounded on), a cloth
               dropped on it (BOUNDED=0, ESCALE=0: scale 1, TILT=deg); "below" counts the skirt swinging in under
               the board, not a fall-through: bench/bounded_plane_drape.py diagnoses it (docs/design.md, round 23)
  cloth_xform  the same cloth and box with the cloth's object scale SCALE=2|0.5|1 unapplied (mesh size / SCALE) or
               ROT=1 (the mesh turned -90 about X, the object +90: the same world rest shape)
  keys_stack   a cloth with a Mirror + Subdivision stack (STACK=mirror,subsurf | subsurf | "") and user shape keys
               (Basis, "Lift" 0.5); play, bake, free
  frames       a cloth dropped on a box with the scene starting at START (10) at FPS (24|60) for SECONDS (2)
"""

import math, os, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import acceptance_probes_r20 as R  # noqa: E402  (starts Blender, enables the add-on)
import acceptance_probes as A  # noqa: E402
import bpy  # noqa: E402
import bmesh  # noqa: E402
import numpy as np  # noqa: E402

BL, N, FRAMES, EVERY = R.BL, R.N, R.FRAMES, R.EVERY


def snapshot(o):
    """The user's mesh as stored (not evaluated): vertices, shape keys' data and values, the modifier stack."""
    me = o.data
    co = np.empty(len(me.vertices) * 3)
    me.vertices.foreach_get("co", co)
    keys = {}
    if me.shape_keys:
        for kb in me.shape_keys.key_blocks:
            if kb.name.startswith("VerletCloth"):
                continue
            d = np.empty(len(kb.data) * 3)
            kb.data.foreach_get("co", d)
            keys[kb.name] = (d, kb.value)
    mods = [(m.name, m.type) for m in o.modifiers if m.type != "NODES" or "Verlet" not in m.name]
    return co, keys, mods


def same(o, snap, tag):
    co, keys, mods = snapshot(o)
    d = float(np.abs(co - snap[0]).max()) if len(co) == len(snap[0]) else float("inf")
    kd = {
        k: (float(np.abs(v[0] - snap[1][k][0]).max()), v[1] == snap[1][k][1]) for k, v in keys.items() if k in snap[1]
    }
    print(
        f"user mesh {tag}: verts {d}, keys {kd} (before {sorted(snap[1])}, now {sorted(keys)}), mods {mods} "
        f"(before {snap[2]})",
        flush=True,
    )


def sleeve():
    """Round 18's bent arm (a 1.2 m cylinder r 0.15 skinned to two bones; the upper bends 70 degrees over frames
    10-30) in a sleeve: an open cylinder r 0.2, 0.7 m long (z 0.25-0.95, 24 x 14), pinned at its lower ring."""
    s = R.scene()
    cy = A.bent_cylinder()
    if os.environ.get("TWIST") == "1":  # the upper bone also twists 90 degrees about its own axis by frame 30
        pb = bpy.data.objects["Rig"].pose.bones["Upper"]
        pb.rotation_euler = (math.radians(70), math.radians(90), 0)
        pb.keyframe_insert("rotation_euler", frame=30)
    R.collider(cy)
    bpy.ops.mesh.primitive_cylinder_add(
        radius=0.2, depth=0.7, vertices=24, end_fill_type="NOTHING", location=(0, 0, 0.6)
    )
    sl = bpy.context.active_object
    sl.name = "Sleeve"
    bm = bmesh.new()
    bm.from_mesh(sl.data)
    side = [e for e in bm.edges if abs(e.verts[0].co.z - e.verts[1].co.z) > 0.1]
    bmesh.ops.subdivide_edges(bm, edges=side, cuts=13, use_grid_fill=True)
    if KIND == "tri":
        bmesh.ops.triangulate(bm, faces=bm.faces[:])
    bm.to_mesh(sl.data)
    bm.free()
    low = [v.index for v in sl.data.vertices if v.co.z < -0.34]
    sl.vertex_groups.new(name="Pins").add(low, 1.0, "REPLACE")
    bpy.context.view_layer.update()
    rest = A.rest_world(sl)
    snap = snapshot(sl)
    R.cloth(sl, bend=0.05, pin="Pins")
    R.go(s, sl, [cy], "sleeve", rest, every=EVERY)
    same(sl, snap, "sleeve")


KIND = R.KIND


def modstack4():
    """A 0.3 m plane at x 0.1-0.4, y +-0.15, z 0.5 with Array (count 2, relative offset 1.3: a gap of 9 cm), Mirror X,
    Solidify 5 cm and Subdivision 1: four slabs with gaps; a 1.4 m cloth dropped on them."""
    R.scene()
    bpy.ops.mesh.primitive_plane_add(size=0.3, location=(0, 0, 0.5))
    p = bpy.context.active_object
    p.name = "Slabs"
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    bpy.ops.transform.translate(value=(0.25, 0, 0))
    bpy.ops.object.mode_set(mode="OBJECT")
    ar = p.modifiers.new("Array", "ARRAY")
    ar.count = 2
    ar.relative_offset_displace = (1.3, 0, 0)
    mi = p.modifiers.new("Mirror", "MIRROR")
    so = p.modifiers.new("Solidify", "SOLIDIFY")
    so.thickness = 0.05
    sub = p.modifiers.new("Subdivision", "SUBSURF")
    sub.levels = 1
    bpy.context.view_layer.update()
    V, T = A.world_collider(p)
    print("slabs x", round(float(V[:, 0].min()), 3), round(float(V[:, 0].max()), 3), "tris", len(T), flush=True)
    R.collider(p)
    R.drop([p], "modstack4", size=1.4, loc=(0.03, 0.02), rot=0.15)


def nonuniform():
    """A cylinder (24 segments) scaled (0.4, -1.5, 0.8), lying (turned 90 degrees about Y) and 20 degrees about Z,
    and a box with Bevel (1 cm, 2 segments) scaled (1, 1, -1) beside it; a 1.6 m cloth dropped over both."""
    R.scene()
    R.floor()
    bpy.ops.mesh.primitive_cylinder_add(radius=0.5, depth=0.4, vertices=24, location=(-0.25, 0, 0.4 * 1.0 + 0.02))
    cy = bpy.context.active_object
    cy.name = "Log"
    cy.scale = (0.4, -1.5, 0.8)
    cy.rotation_euler = (0, math.radians(90), math.radians(20))
    bpy.ops.mesh.primitive_cube_add(size=0.4, location=(0.35, 0.1, 0.2))
    bx = bpy.context.active_object
    bx.name = "Box"
    bx.scale = (1, 1, -1)
    bv = bx.modifiers.new("Bevel", "BEVEL")
    bv.width = 0.01
    bv.segments = 2
    bpy.context.view_layer.update()
    for o in (cy, bx):
        V, T = A.world_collider(o)
        print(o.name, "z", round(float(V[:, 2].min()), 3), round(float(V[:, 2].max()), 3), flush=True)
    R.collider(cy, bx)
    R.drop([cy, bx], "nonuniform", size=1.6, loc=(0.02, 0.03), rot=0.1)


def _prism(name, pts, h, loc):
    n = len(pts)
    verts = [(x, y, 0.0) for x, y in pts] + [(x, y, h) for x, y in pts]
    faces = [list(range(n))[::-1], list(range(n, 2 * n))] + [[i, (i + 1) % n, n + (i + 1) % n, n + i] for i in range(n)]
    o = A.mesh_obj(name, verts, faces)
    o.location = loc
    return o


def ngon_star():
    """A concave 16-pointed star prism (32-gon caps, radii 0.35 / 0.15, 0.3 m high) and a 64-gon disc prism (r 0.25,
    0.2 m high) on the floor; a 1.6 m cloth dropped over both."""
    R.scene()
    R.floor()
    st = [
        (
            ((0.35 if i % 2 == 0 else 0.15) * math.cos(math.pi * i / 16)),
            ((0.35 if i % 2 == 0 else 0.15) * math.sin(math.pi * i / 16)),
        )
        for i in range(32)
    ]
    a = _prism("Star", st, 0.3, (-0.3, 0.0, 0.0))
    di = [(0.25 * math.cos(2 * math.pi * i / 64), 0.25 * math.sin(2 * math.pi * i / 64)) for i in range(64)]
    b = _prism("Disc", di, 0.2, (0.4, 0.1, 0.0))
    R.collider(a, b)
    R.drop([a, b], "ngon_star", size=1.6, loc=(0.02, -0.03), rot=0.2)


def loose_only():
    """A mesh of loose edges (a 1 m rail of 10 edges at z 0.3) and 5 loose points, made a collider; a 0.6 m cloth
    dropped on it: Make Collider's report, then the cloth falls past (finite)."""
    R.scene()
    R.floor()
    v = [(-0.5 + 0.1 * i, 0, 0.3) for i in range(11)] + [(0.1 * i, 0.2, 0.3) for i in range(5)]
    o = A.mesh_obj("Rail", v, [], [(i, i + 1) for i in range(10)])
    A.activate(o)
    print("make collider", bpy.ops.verlet_cloth.make_collider(), "kind", o.verlet_cloth_collider.kind, flush=True)
    R.drop([o], "loose_only", size=0.6, z=0.45, every=8)


def flag_wind():
    """A 1.5 x 1 m flag (the grid scaled 1.5 x 1) stood upright, its -X column pinned (a vertex group) beside a pole
    (a cylinder r 2 cm, 2 m, a Mesh collider) 3 cm off; a Wind field (WIND=8) blowing +X along it, turbulence
    from the field's noise 0.5; every 2nd frame."""
    s = R.scene()
    bpy.ops.mesh.primitive_cylinder_add(radius=0.02, depth=2.0, vertices=16, location=(-0.78, 0, 1.0))
    pole = bpy.context.active_object
    pole.name = "Pole"
    R.collider(pole)
    bpy.ops.object.effector_add(type="WIND", location=(-2, 0, 1.5), rotation=(0, math.radians(90), 0))
    w = bpy.context.active_object
    w.field.strength = float(os.environ.get("WIND", "300" if BL else "8"))
    w.field.noise = 0.5
    c = R.blender_grid(n=N, size=1.0)
    c.scale = (1.5, 1.0, 1.0)
    c.rotation_euler = (math.radians(90), 0, 0)
    c.location = (0, 0, 1.5)
    pins = [v.index for v in c.data.vertices if v.co.x < -0.49]
    c.vertex_groups.new(name="Pins").add(pins, 1.0, "REPLACE")
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    snap = snapshot(c)
    R.cloth(c, bend=0.05, pin="Pins")
    P = R.go(s, c, [pole], "flag_wind", rest)
    pinned = np.array([i for i in range(len(rest)) if rest[i, 0] < -0.74])
    print(
        "flag: pins moved",
        float(np.abs(P[pinned] - rest[pinned]).max()),
        "x max",
        round(float(P[:, 0].max()), 3),
        "y range",
        round(float(P[:, 1].min()), 3),
        round(float(P[:, 1].max()), 3),
        flush=True,
    )
    same(c, snap, "flag")


def _sphere_check(P, centre, r):
    d = np.linalg.norm(P - centre, axis=1)
    return int((d < r - 1e-4).sum()), float(max(0.0, r - d.min()))


def parent_turn():
    """A Mover Empty keyed from z 0.15 to 0.4 and tilting 60 degrees about Y over frames 10-30; children: a 0.3 m box
    (Mesh collider) at x -0.25 and an Empty (display Sphere, size 1, scale 0.25) at x +0.3 made a collider (Sphere);
    a 1.2 m cloth resting on them at the start. The sphere is checked against its radius, the box by its triangles."""
    s = R.scene()
    R.floor()
    e = bpy.data.objects.new("Mover", None)
    A.link(e)
    e.location = (0, 0, 0.15)
    e.keyframe_insert("location", frame=10)
    e.keyframe_insert("rotation_euler", frame=10)
    e.location = (0, 0, 0.4)
    e.rotation_euler = (0, math.radians(60), 0)
    e.keyframe_insert("location", frame=30)
    e.keyframe_insert("rotation_euler", frame=30)
    s.frame_set(1)
    b = A.box("Box", (0.3, 0.3, 0.3), (0, 0, 0))
    b.parent = e
    b.location = (-0.25, 0, 0)
    ball = bpy.data.objects.new("Ball", None)
    A.link(ball)
    ball.empty_display_type = "SPHERE"
    ball.parent = e
    ball.location = (0.3, 0, 0)
    bs = [float(x) for x in os.environ.get("BSCALE", "0.25,0.25,0.25").split(",")]
    ball.scale = bs  # BSCALE: a non-uniform scale; the radius is the largest
    bpy.context.view_layer.update()
    A.make_collider(b, ball)
    b.verlet_cloth_collider.kind = "MESH"
    print("kinds", b.verlet_cloth_collider.kind, ball.verlet_cloth_collider.kind, flush=True)
    c = R.blender_grid(n=N, size=1.2)
    c.location = (0.02, 0.01, 0.42)
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    R.cloth(c, bend=0.05)
    worst = (0, 0.0, 0)
    for f in range(1, FRAMES + 1):
        s.frame_set(f)
        if f % EVERY:
            continue
        P, T, E = A.world_mesh(c)
        n_in, dep = _sphere_check(P, np.array(ball.matrix_world.translation), max(bs))
        _, _, cr, _ = A.against_colliders(P, E, [b])
        if n_in > worst[0] or cr > worst[2]:
            worst = (max(n_in, worst[0]), max(dep, worst[1]), max(cr, worst[2]))
            print("frame", f, "sphere in", n_in, round(dep, 4), "box thr", cr, flush=True)
    R.go(s, c, [b], "parent_turn (box, replayed)", rest, every=EVERY)
    P = A.world_mesh(c)[0]
    print(
        "RESULT parent_turn sphere worst in / depth / box thr",
        worst,
        "end sphere",
        _sphere_check(P, np.array(ball.matrix_world.translation), max(bs)),
        flush=True,
    )


def empty_plane():
    """An Empty (display Plain Axes, size 1) at z 0.5 scaled (0.4, 0.25, 1) and turned 20 degrees about X made a
    collider, its kind set to Plane, Bounded on (the extent: +-display size x scale: 0.8 x 0.5 m); a 1.2 m cloth
    dropped over it: the part over the plane rests on it, the rest hangs past its edges."""
    s = R.scene()
    R.floor()
    e = bpy.data.objects.new("Board", None)
    A.link(e)
    e.location = (0, 0, 0.5)
    e.scale = (0.4, 0.25, 1.0) if os.environ.get("ESCALE", "1") == "1" else (1, 1, 1)
    e.rotation_euler = (math.radians(float(os.environ.get("TILT", "20"))), 0, 0)
    bpy.context.view_layer.update()
    A.make_collider(e)
    e.verlet_cloth_collider.kind = "PLANE"
    cc = e.verlet_cloth_collider
    cc.bounded = os.environ.get("BOUNDED", "1") == "1"
    c = R.blender_grid(n=N, size=1.2)
    c.location = (0.05, 0.0, 0.75)
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    R.cloth(c, bend=0.05)
    M = np.array(e.matrix_world)
    Minv = np.linalg.inv(M)
    worst = (0, 0.0)
    for f in range(1, FRAMES + 1):
        s.frame_set(f)
        if f % EVERY:
            continue
        P = A.world_mesh(c)[0]
        L = P @ Minv[:3, :3].T + Minv[:3, 3]
        over = (np.abs(L[:, 0]) < 1) & (np.abs(L[:, 1]) < 1)
        # below the plane (world distance along its normal) while over it
        nrm = M[:3, 2] / np.linalg.norm(M[:3, 2])
        dist = (P - M[:3, 3]) @ nrm
        bad = over & (dist < -1e-4) & (dist > -0.3)
        if bad.sum() > worst[0]:
            worst = (int(bad.sum()), float(-dist[bad].min()))
            print("frame", f, "below the bounded plane", worst, flush=True)
    P, T, E = A.world_mesh(c)
    m, x = A.strain(P, E, rest)
    print(
        "RESULT empty_plane below worst",
        worst,
        "resting over it",
        int(((np.abs((P @ Minv[:3, :3].T + Minv[:3, 3])[:, :2]) < 1).all(1)).sum()),
        "z range",
        round(float(P[:, 2].min()), 3),
        round(float(P[:, 2].max()), 3),
        "stretch",
        round(m * 100, 2),
        round(x * 100, 2),
        flush=True,
    )


def cloth_xform():
    """A 1 m cloth (N x N) dropped from 0.42 m onto a 0.4 m box on the floor (turned 0.3 rad). SCALE=s: the grid made
    1/s m and the object scaled s (unapplied): the same world cloth; ROT=1: the grid's mesh turned -90 degrees about X
    and the object +90 about X (the same world rest shape, the object's axes turned)."""
    s = R.scene()
    R.floor()
    b = A.box("Box", (0.4, 0.4, 0.4), (0, 0, 0.2))
    R.collider(b)
    sc = float(os.environ.get("SCALE", "1"))
    c = R.blender_grid(n=N, size=1.0 / sc)
    if os.environ.get("ROT") == "1":
        A.activate(c)
        bpy.ops.object.mode_set(mode="EDIT")
        bpy.ops.mesh.select_all(action="SELECT")
        bpy.ops.transform.rotate(value=math.radians(90), orient_axis="X")
        bpy.ops.object.mode_set(mode="OBJECT")
        c.rotation_euler = (math.radians(90), 0, 0.3)
    else:
        c.rotation_euler = (0, 0, 0.3)
    c.scale = (sc, sc, sc)
    c.location = (0.03, 0.02, 0.48)
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    print("rest extent", np.round(rest.max(0) - rest.min(0), 3), flush=True)
    snap = snapshot(c)
    R.cloth(c, bend=0.05)
    P = R.go(s, c, [b], f"cloth_xform scale {sc} rot {os.environ.get('ROT', '0')}", rest)
    print("end centre", np.round(P.mean(0), 4), flush=True)
    same(c, snap, "cloth_xform")


def keys_stack():
    """A 1 m cloth with user shape keys (Basis; "Lift": the +X half raised 5 cm, value 0.5) and a stack Mirror X
    (clipping) + Subdivision 1 (the user's), dropped on a 0.4 m box: Make Cloth, play, Bake, Free Bake; the user's
    vertices, keys (data and values) and stack checked after each."""
    s = R.scene()
    R.floor()
    b = A.box("Box", (0.4, 0.4, 0.4), (0, 0, 0.2))
    R.collider(b)
    c = R.blender_grid(n=N, size=1.0)
    c.location = (0.03, 0.02, 0.48)
    c.shape_key_add(name="Basis")
    k = c.shape_key_add(name="Lift")
    for i, v in enumerate(c.data.vertices):
        if v.co.x > 0:
            k.data[i].co.z += 0.05
    k.value = 0.5
    stack = os.environ.get("STACK", "mirror,subsurf").split(",")
    if "mirror" in stack:
        c.modifiers.new("Mirror", "MIRROR").use_clip = True
    if "subsurf" in stack:
        c.modifiers.new("Subdivision", "SUBSURF").levels = 1
    bpy.context.view_layer.update()
    snap = snapshot(c)
    rest = A.rest_world(c)
    r = R.cloth(c, bend=0.05)
    print("make cloth", r, "stack", [(m.name, m.type) for m in c.modifiers], flush=True)
    same(c, snap, "after Make Cloth")
    P = R.go(s, c, [b], "keys_stack", rest)
    same(c, snap, "after play")
    if BL:
        return
    live = {}
    s.frame_set(1)
    for f in range(1, FRAMES + 1):
        s.frame_set(f)
        if f % 8 == 0:
            live[f] = A.world_mesh(c)[0].copy()
    A.activate(c)
    print("bake", bpy.ops.verlet_cloth.bake(), flush=True)
    d = 0.0
    for f, Pl in live.items():
        s.frame_set(f)
        d = max(d, float(np.abs(A.world_mesh(c)[0] - Pl).max()))
    print("RESULT keys_stack bake - preview", d, flush=True)
    same(c, snap, "after Bake")
    print("free", bpy.ops.verlet_cloth.free_bake(), flush=True)
    same(c, snap, "after Free Bake")


def frames():
    """A 1 m cloth dropped from 0.48 m onto a 0.4 m box (turned 0.3 rad) with the scene's frames START .. START +
    SECONDS x FPS - 1 at FPS; played from its start; the cloth's centre and lowest point at 0.5 s steps."""
    st = int(os.environ.get("START", "10"))
    fps = int(os.environ.get("FPS", "24"))
    sec = float(os.environ.get("SECONDS", "2"))
    s = R.scene()
    s.render.fps = fps
    s.frame_start = st
    s.frame_end = st + int(sec * fps) - 1
    s.frame_set(st)
    R.floor()
    b = A.box("Box", (0.4, 0.4, 0.4), (0, 0, 0.2))
    R.collider(b)
    c = R.blender_grid(n=N, size=1.0)
    c.location = (0.03, 0.02, 0.48)
    c.rotation_euler = (0, 0, 0.3)
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    R.cloth(c, bend=0.05)
    if BL:
        c.modifiers["Cloth"].point_cache.frame_start = st
        c.modifiers["Cloth"].point_cache.frame_end = s.frame_end
    out = []
    worst = 0
    for f in range(st, s.frame_end + 1):
        s.frame_set(f)
        t = (f - st) / fps
        if abs(t * 2 - round(t * 2)) < 1e-9:
            P, T, E = A.world_mesh(c)
            ins, dep, cr, dip = A.against_colliders(P, E, [b])
            worst = max(worst, cr)
            out.append((t, round(float(P[:, 2].mean()), 4), round(float(P[:, 2].min()), 4), ins, cr))
    P, T, E = A.world_mesh(c)
    m, x = A.strain(P, E, rest)
    print(
        "RESULT frames start",
        st,
        "fps",
        fps,
        "(t, z mean, z min, in, thr):",
        out,
        "stretch",
        round(m * 100, 2),
        round(x * 100, 2),
        "finite",
        bool(np.isfinite(P).all()),
        flush=True,
    )


if __name__ == "__main__":
    globals()[sys.argv[1]]()
