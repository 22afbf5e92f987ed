# ruff: noqa
"""Acceptance-style probes in real Blender (round 18, probe21): issue 11 mesh colliders, issue 13 Faces self-collision.

Public names only (operators, Object.verlet_cloth / verlet_cloth_collider, tools/bake.py); checks from the evaluated
mesh with BVHTree: inside (2-of-3 ray parity), cloth edges through collider triangles and how deep, overlapping
loop-triangle pairs sharing no vertex (CLASSIFY=1: split into same polygon / polygons sharing a vertex / apart),
stretch from edge lengths. Usage (from a checkout):
  VC_ROOT=$PWD KIND=tri|jit|ngon|quad SELF=1|0 N=20 FRAMES=40 .venv/bin/python bench/acceptance_probes.py <case>
SIZES=1 with CLASSIFY=1 prints the corner counts of the polygons of each apart pair.
cases: self_crumple self_rod self_sphere self_fastfold self_torn two_cloths suzanne chair (BAKE=1: tools/bake.py vs
preview) arm_cylinder negscale (NEG=0|1, ONLY=ball|box) bool_bevel gn_collider blender_crumple blender_sphere.
"""

import os, sys, time
from pathlib import Path
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_blender import activate, link, mesh_obj, reset, start, world_mesh  # noqa: E402  (Blender, scene helpers)

ROOT, _scratch, VC = start("p21_")  # bl_ext.dev.verlet_cloth
import bpy  # noqa
import addon_utils  # noqa
from mathutils import Vector  # noqa
from mathutils.bvhtree import BVHTree  # noqa


def grid(name="Cloth", n=16, size=1.0, z=1.0, tri=False, jitter=0.0, seed=0):
    xs = np.linspace(-size / 2, size / 2, n)
    gx, gy = np.meshgrid(xs, xs)
    v = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, z)], 1)
    if jitter:
        rng = np.random.default_rng(seed)
        h = size / (n - 1)
        inner = (np.abs(v[:, 0]) < size / 2 - 1e-9) & (np.abs(v[:, 1]) < size / 2 - 1e-9)
        v[inner, :2] += rng.uniform(-jitter, jitter, (inner.sum(), 2)) * h
    idx = np.arange(n * n).reshape(n, n)
    a, b, c, d = idx[:-1, :-1].ravel(), idx[:-1, 1:].ravel(), idx[1:, 1:].ravel(), idx[1:, :-1].ravel()
    if tri:
        f = np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])
    else:
        f = np.stack([a, b, c, d], 1)
    return mesh_obj(name, v, f)


def box(name="Box", size=(1, 1, 1), loc=(0, 0, 0)):
    sx, sy, sz = np.asarray(size) / 2
    v = [
        (-sx, -sy, -sz),
        (sx, -sy, -sz),
        (sx, sy, -sz),
        (-sx, sy, -sz),
        (-sx, -sy, sz),
        (sx, -sy, sz),
        (sx, sy, sz),
        (-sx, sy, sz),
    ]
    f = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    o = mesh_obj(name, v, f)
    o.location = loc
    return o


def make_cloth(obj):
    activate(obj)
    r = bpy.ops.verlet_cloth.convert()
    return r


def make_collider(*objs):
    activate(*objs)
    return bpy.ops.verlet_cloth.make_collider()


def world_collider(obj):
    """Triangles of an evaluated object including instances (world space)."""
    dg = bpy.context.evaluated_depsgraph_get()
    V, T, off = [], [], 0
    for inst in dg.object_instances:
        o = inst.object
        src = inst.parent if inst.is_instance else o
        if (src.original if src else None) is not obj.original and o.original is not obj.original:
            continue
        if o.type != "MESH" and o.type not in {"CURVE", "FONT", "SURFACE", "META"}:
            continue
        me = o.to_mesh()
        try:
            co = np.empty(len(me.vertices) * 3)
            me.vertices.foreach_get("co", co)
            co = co.reshape(-1, 3)
            me.calc_loop_triangles()
            t = np.empty(len(me.loop_triangles) * 3, int)
            me.loop_triangles.foreach_get("vertices", t)
            m = np.array(inst.matrix_world)
            V.append(co @ m[:3, :3].T + m[:3, 3])
            T.append(t.reshape(-1, 3) + off)
            off += len(co)
        finally:
            o.to_mesh_clear()
    if not V:
        return np.zeros((0, 3)), np.zeros((0, 3), int)
    return np.concatenate(V), np.concatenate(T)


DIRS = [
    Vector((0.3, 0.5, 1.0)).normalized(),
    Vector((-0.7, 0.2, -0.4)).normalized(),
    Vector((0.1, -0.9, 0.35)).normalized(),
]


def parity_votes(tree, p) -> int:
    """How many of the DIRS rays from p cross the tree's triangles an odd number of times (inside: 2 of 3)."""
    votes = 0
    for d in DIRS:
        o, c = Vector(p), 0
        for _ in range(200):
            hit = tree.ray_cast(o, d)
            if hit[0] is None:
                break
            c += 1
            o = hit[0] + d * 1e-6
        votes += c & 1
    return votes


def inside_count(points, V, T):
    """2-of-3 ray parity vote."""
    if len(T) == 0:
        return 0, 0.0
    tree = BVHTree.FromPolygons([tuple(v) for v in V], [tuple(t) for t in T], all_triangles=True)
    n_in, depth = 0, 0.0
    for p in points:
        if parity_votes(tree, p) >= 2:
            n_in += 1
            nn = tree.find_nearest(Vector(p))
            if nn[0] is not None:
                depth = max(depth, nn[3])
    return n_in, depth


def self_pairs(P, T):
    tree = BVHTree.FromPolygons([tuple(v) for v in P], [tuple(t) for t in T], all_triangles=True)
    n = 0
    for i, j in tree.overlap(tree):
        if i >= j:
            continue
        if set(T[i]) & set(T[j]):
            continue
        n += 1
    return n


def strain(P, E, R):
    l = np.linalg.norm(P[E[:, 0]] - P[E[:, 1]], axis=1)
    r = np.linalg.norm(R[E[:, 0]] - R[E[:, 1]], axis=1)
    s = l / np.maximum(r, 1e-12) - 1
    return float(np.mean(np.maximum(s, 0))), float(s.max())


def play(scene, f0, f1, each=None):
    t = []
    for f in range(f0, f1 + 1):
        c = time.process_time()
        scene.frame_set(f)
        t.append(time.process_time() - c)
        if each:
            each(f)
    return 1000 * float(np.median(t[1:] if len(t) > 1 else t))


def against_colliders(P, E, colliders):
    """(vertices inside, deepest inside (m), cloth edges through, deepest of those behind a face (m)) over colliders."""
    ins = cr = 0
    dep = dip = 0.0
    for col in colliders:
        V, TT = world_collider(col)
        i, d = inside_count(P, V, TT)
        ins += i
        dep = max(dep, d)
        cc, dd = crossing_dip(P, E, V, TT)
        cr += cc
        dip = max(dip, dd)
    return ins, dep, cr, dip


def report(tag, cloth, colliders=(), rest=None, selfc=False):
    P, T, E = world_mesh(cloth)
    out = {"finite": bool(np.isfinite(P).all())}
    ins, dep, cr, dip = against_colliders(P, E, colliders)
    if colliders:
        out["dip"] = round(dip, 5)
    out.update(inside=ins, depth=round(dep, 5), crossing=cr)
    if rest is not None:
        m, x = strain(P, E, rest)
        out.update(mean_strain=round(m * 100, 3), max_strain=round(x * 100, 2))
    if selfc:
        out["pairs"] = self_pairs(P, T)
    out["zmin"] = round(float(P[:, 2].min()), 4)
    out["zmean"] = round(float(P[:, 2].mean()), 4)
    print(tag, out, flush=True)
    return out


def crossing_dip(P, E, V, T, samples=15):
    """Crossing edges and the deepest point of any of them behind the nearest face (m)."""
    if len(T) == 0:
        return 0, 0.0
    tree = BVHTree.FromPolygons([tuple(v) for v in V], [tuple(t) for t in T], all_triangles=True)
    c, deepest = 0, 0.0
    for a, b in E:
        pa, pb = Vector(P[a]), Vector(P[b])
        d = pb - pa
        L = d.length
        if L < 1e-12:
            continue
        hit = tree.ray_cast(pa, d / L, L)
        if hit[0] is not None and L * 1e-6 < (hit[0] - pa).length < L * (1 - 1e-6):
            c += 1
            for k in range(1, samples):
                q = pa + d * (k / samples)
                co, nrm, _, dist = tree.find_nearest(q)
                if co is not None and (q - co).dot(nrm) < 0:
                    deepest = max(deepest, dist)
    return c, deepest


import bmesh  # noqa
import math
import subprocess

VER = bpy.app.version_string
KIND = os.environ.get("KIND", "tri")
N = int(os.environ.get("N", "20"))
SELF = os.environ.get("SELF", "1") == "1"
FRAMES = int(os.environ.get("FRAMES", "40"))


def bl_grid(name="Cloth", n=N, size=1.0, kind=KIND, seed=1):
    """A grid as an artist makes it: Add > Grid, then Triangulate / jitter / dissolve edges to n-gons."""
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=n - 1, y_subdivisions=n - 1, size=size, location=(0, 0, 0))
    o = bpy.context.active_object
    o.name = name
    bm = bmesh.new()
    bm.from_mesh(o.data)
    rng = np.random.default_rng(seed)
    h = size / (n - 1)
    if kind in ("jit", "tri", "ngon"):
        for v in bm.verts:
            if abs(abs(v.co.x) - size / 2) > 1e-6 and abs(abs(v.co.y) - size / 2) > 1e-6:
                if kind != "tri":
                    v.co.x += float(rng.uniform(-0.3, 0.3)) * h
                    v.co.y += float(rng.uniform(-0.3, 0.3)) * h
    if kind in ("tri", "jit"):
        bmesh.ops.triangulate(bm, faces=bm.faces[:], quad_method="BEAUTY", ngon_method="BEAUTY")
    if kind == "ngon":
        inner = [e for e in bm.edges if not e.is_boundary]
        pick = [e for e in inner if rng.random() < 0.25]
        bmesh.ops.dissolve_edges(bm, edges=pick, use_verts=False)
    bm.to_mesh(o.data)
    bm.free()
    o.data.update()
    return o


def floor(size=6.0, kind="PLANE"):
    bpy.ops.mesh.primitive_plane_add(size=size, location=(0, 0, 0))
    f = bpy.context.active_object
    f.name = "Floor"
    make_collider(f)
    f.verlet_cloth_collider.kind = kind
    return f


def cloth_setup(o, bend=0.2, selfc=SELF, **kw):
    r = make_cloth(o)
    CLASS["obj"] = o
    s = o.verlet_cloth
    s.bend_stiffness = bend
    s.self_collision = selfc
    s.self_collision_faces = True
    for k, v in kw.items():
        setattr(s, k, v)
    return r


def rest_world(o):
    P, T, E = world_mesh(o)
    return P.copy()


CLASS = {}


def tri_pairs(P, T):
    if len(T) == 0:
        return 0
    if os.environ.get("CLASSIFY") != "1":
        return self_pairs(P, T)
    ob = CLASS["obj"]
    ev = ob.evaluated_get(bpy.context.evaluated_depsgraph_get())
    me = ev.data
    me.calc_loop_triangles()
    pol = np.empty(len(me.loop_triangles), int)
    me.loop_triangles.foreach_get("polygon_index", pol)
    polys = [set(p.vertices) for p in me.polygons]
    tree = BVHTree.FromPolygons([tuple(v) for v in P], [tuple(t) for t in T], all_triangles=True)
    same = adj = apart = 0
    for i, j in tree.overlap(tree):
        if i >= j or set(T[i]) & set(T[j]):
            continue
        if pol[i] == pol[j]:
            same += 1
        elif polys[pol[i]] & polys[pol[j]]:
            adj += 1
        else:
            apart += 1
            if os.environ.get("SIZES") == "1":
                print(
                    "APART",
                    bpy.context.scene.frame_current,
                    len(polys[pol[i]]),
                    len(polys[pol[j]]),
                    int(pol[i]),
                    int(pol[j]),
                    flush=True,
                )
    CLASS.setdefault("log", []).append((same, adj, apart))
    print("CLS", bpy.context.scene.frame_current, same, adj, apart, flush=True)
    return apart


def run(scene, cloth, colliders, frames, rest, tag, every=1, selfc=True):
    worst = {"inside": 0, "crossing": 0, "pairs": 0, "depth": 0.0, "dip": 0.0}
    worst_f = {}
    t = []
    last = None
    for f in range(1, frames + 1):
        c = time.process_time()
        scene.frame_set(f)
        t.append(time.process_time() - c)
        if f % every and f != frames:
            continue
        P, T, E = world_mesh(cloth)
        ins, dep, cr, dip = against_colliders(P, E, colliders)
        pr = tri_pairs(P, T) if selfc else -1
        for k, v in (("inside", ins), ("crossing", cr), ("pairs", pr), ("depth", dep), ("dip", dip)):
            if v > worst[k]:
                worst[k] = v
                worst_f[k] = f
        last = dict(inside=ins, crossing=cr, pairs=pr)
    P, T, E = world_mesh(cloth)
    m, x = strain(P, E, rest)
    out = dict(
        ver=VER,
        tag=tag,
        worst=worst,
        at=worst_f,
        last=last,
        finite=bool(np.isfinite(P).all()),
        stretch_mean=round(m * 100, 3),
        stretch_max=round(x * 100, 2),
        zmin=round(float(P[:, 2].min()), 4),
        ms=round(1000 * float(np.median(t[1:])), 1),
    )
    print("RESULT", out, flush=True)
    return P


# ---------------------------------------------------------------- self-collision scenes
def self_crumple():
    s = reset()
    s.frame_end = FRAMES
    fl = floor()
    c = bl_grid()
    c.rotation_euler = (math.radians(80), 0, 0)
    c.location = (0, 0, 0.6)
    bpy.context.view_layer.update()
    rest = rest_world(c)
    cloth_setup(c, bend=0.2)
    CLASS["obj"] = c
    run(s, c, [], FRAMES, rest, f"crumple {KIND} self={SELF}", every=1)


def self_rod():
    s = reset()
    s.frame_end = FRAMES
    floor()
    bpy.ops.mesh.primitive_cylinder_add(
        radius=0.03, depth=2.0, vertices=16, location=(0, 0, 0.6), rotation=(0, math.pi / 2, 0)
    )
    rod = bpy.context.active_object
    make_collider(rod)
    c = bl_grid(size=1.2)
    c.location = (0.0, 0.07, 0.75)
    bpy.context.view_layer.update()
    rest = rest_world(c)
    cloth_setup(c, bend=0.02, friction=0.8)
    run(s, c, [rod], FRAMES, rest, f"rod {KIND} self={SELF}", every=2)


def self_sphere():
    s = reset()
    s.frame_end = FRAMES
    floor()
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.15, segments=24, ring_count=12, location=(0, 0, 0.3))
    ball = bpy.context.active_object
    make_collider(ball)
    c = bl_grid(size=1.2)
    c.location = (0.03, 0.02, 0.6)
    bpy.context.view_layer.update()
    rest = rest_world(c)
    cloth_setup(c, bend=0.02)
    run(s, c, [ball], FRAMES, rest, f"sphere {KIND} self={SELF}", every=2)


def self_fastfold(tear=0.0):
    """Cloth flat on the floor, a strip at x<-0.42 hooked to an Empty at the middle line that swings 175 deg in 3 frames."""
    s = reset()
    s.frame_end = FRAMES
    floor()
    c = bl_grid()
    c.location = (0, 0, 0.01)
    g = c.vertex_groups.new(name="Pins")
    idx = [v.index for v in c.data.vertices if v.co.x < -0.42]
    g.add(idx, 1.0, "REPLACE")
    e = bpy.data.objects.new("Hinge", None)
    link(e)
    e.location = (0, 0, 0.01)
    e.keyframe_insert("rotation_euler", frame=4)
    e.rotation_euler = (0, math.radians(175), 0)
    e.keyframe_insert("rotation_euler", frame=7)
    hm = c.modifiers.new("Hook", "HOOK")
    hm.object = e
    hm.vertex_indices_set(idx) if False else None
    hm.vertex_group = "Pins"
    hm.falloff_type = "NONE"
    # hook's inverse so that at frame 1 it does not move the vertices
    s.frame_set(1)
    bpy.context.view_layer.update()
    hm.matrix_inverse = e.matrix_world.inverted() @ c.matrix_world
    bpy.context.view_layer.update()
    rest = rest_world(c)
    kw = {"pin_group": "Pins", "tear_factor": tear} if tear else {"pin_group": "Pins"}
    cloth_setup(c, bend=0.05, **kw)
    run(s, c, [], FRAMES, rest, f"fastfold{' torn' if tear else ''} {KIND} self={SELF}", every=1)


def self_torn():
    self_fastfold(tear=1.15)


def two_cloths():
    """Lower cloth baked over a ball, made a Mesh collider; upper cloth (KIND) dropped crossed on it."""
    s = reset()
    s.frame_end = FRAMES
    floor()
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.2, segments=24, ring_count=12, location=(0, 0, 0.2))
    ball = bpy.context.active_object
    make_collider(ball)
    low = bl_grid("Lower", size=1.0, kind="quad")
    low.location = (0, 0, 0.5)
    cloth_setup(low, bend=0.02, selfc=True)
    activate(low)
    r = bpy.ops.verlet_cloth.bake()
    print("bake lower", r, low.verlet_cloth.baked)
    make_collider(low)
    low.verlet_cloth_collider.kind = "MESH"
    up = bl_grid("Upper", size=1.0)
    up.location = (0.05, 0.0, 0.7)
    up.rotation_euler = (0, 0, math.radians(45))
    bpy.context.view_layer.update()
    rest = rest_world(up)
    cloth_setup(up, bend=0.02)
    s.frame_set(1)
    run(s, up, [low, ball], FRAMES, rest, f"two_cloths {KIND} self={SELF}", every=2)


# ---------------------------------------------------------------- mesh colliders
def _drop(cols, tag, size=1.4, z=None, n=24, loc=(0, 0), frames=48, every=4, kind="quad", selfc=False, bake_cmp=False):
    s = bpy.context.scene
    s.frame_end = frames
    s.frame_set(1)
    fl = floor()
    bpy.context.view_layer.update()
    top = max(float(np.max(world_collider(c)[0][:, 2])) if len(world_collider(c)[1]) else 0 for c in cols)
    c = bl_grid(n=n, size=size, kind=kind)
    c.location = (loc[0], loc[1], z if z is not None else top + 0.08)
    bpy.context.view_layer.update()
    rest = rest_world(c)
    cloth_setup(c, bend=0.05, selfc=selfc)
    P = run(s, c, cols, frames, rest, tag, every=every, selfc=selfc)
    return s, c, P


def suzanne():
    reset()
    bpy.ops.mesh.primitive_monkey_add(size=0.8, location=(0, 0, 0.45), rotation=(math.radians(-60), 0, 0))
    m = bpy.context.active_object
    sub = m.modifiers.new("Sub", "SUBSURF")
    sub.levels = 1
    make_collider(m)
    print("kind", m.verlet_cloth_collider.kind)
    _drop([m], "suzanne", kind=KIND)


def _cube(name, size, loc):
    bpy.ops.mesh.primitive_cube_add(size=1, location=loc)
    o = bpy.context.active_object
    o.name = name
    o.scale = size
    return o


def chair(bake_cmp=os.environ.get("BAKE") == "1"):
    reset()
    parts = [_cube("Seat", (0.5, 0.5, 0.04), (0, 0, 0.45))]
    for i, (x, y) in enumerate([(-0.22, -0.22), (0.22, -0.22), (-0.22, 0.22), (0.22, 0.22)]):
        parts.append(_cube(f"Leg{i}", (0.04, 0.04, 0.43), (x, y, 0.215)))
    parts.append(_cube("Back", (0.5, 0.04, 0.5), (0, 0.23, 0.72)))
    activate(parts[0], *parts[1:])
    bpy.ops.object.join()
    ch = bpy.context.active_object
    ch.name = "Chair"
    # unapplied transforms: rotated and scaled object
    ch.rotation_euler = (0, 0, math.radians(20))
    ch.scale = (ch.scale.x * 1.2, ch.scale.y * 0.9, ch.scale.z)
    print("chair scale", tuple(ch.scale), "dims", tuple(ch.dimensions))
    make_collider(ch)
    print("kind", ch.verlet_cloth_collider.kind)
    s, c, P = _drop([ch], f"chair {KIND}", size=1.2, kind=KIND, loc=(0.05, -0.05))
    if bake_cmp:
        bake_compare(s, c)


def bake_compare(s, c):
    """Save, run tools/bake.py on the file, compare its shape keys' evaluated mesh with this preview's."""
    prev = {}
    name = c.name
    s.frame_set(1)
    for f in range(1, s.frame_end + 1):
        s.frame_set(f)
        if f % 8 == 0 or f == s.frame_end:
            prev[f] = world_mesh(c)[0]
    s.frame_set(1)
    path = os.path.join(_scratch, "bk_") + VER.replace(".", "_") + ".blend"
    out = path.replace(".blend", "_out.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    py = sys.executable
    cmd = [py, str(ROOT / "tools" / "bake.py"), "bake", path, "--objects", name, "--output", out]
    t = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    print("bake.py rc", r.returncode, round(time.time() - t, 1), "s", r.stdout[-400:], r.stderr[-600:])
    bpy.ops.wm.open_mainfile(filepath=out)
    s = bpy.context.scene
    c = bpy.data.objects[name]
    print("baked", c.verlet_cloth.baked, "keys", len(c.data.shape_keys.key_blocks) if c.data.shape_keys else 0)
    d = 0.0
    for f, P in prev.items():
        s.frame_set(f)
        Q = world_mesh(c)[0]
        d = max(d, float(np.abs(Q - P).max()))
    print("RESULT bake_vs_preview max diff m", d)


def bent_cylinder():
    """A cylinder (1.2 m tall, 0.15 r, its sides cut 11 times) skinned to 2 bones; the top bone bends 70 deg over
    frames 10-30. Returns the cylinder (arm_cylinder, and acceptance_probes_r20.arm_bl beside Blender's Cloth)."""
    bpy.ops.mesh.primitive_cylinder_add(radius=0.15, depth=1.2, vertices=24, location=(0, 0, 0.6))
    cy = bpy.context.active_object
    bm = bmesh.new()
    bm.from_mesh(cy.data)
    side = [e for e in bm.edges if abs(e.verts[0].co.z - e.verts[1].co.z) > 0.1]
    bmesh.ops.subdivide_edges(bm, edges=side, cuts=11, use_grid_fill=True)
    bm.to_mesh(cy.data)
    bm.free()
    arm = bpy.data.armatures.new("Rig")
    ao = bpy.data.objects.new("Rig", arm)
    link(ao)
    activate(ao)
    bpy.ops.object.mode_set(mode="EDIT")
    b1 = arm.edit_bones.new("Lower")
    b1.head, b1.tail = (0, 0, 0), (0, 0, 0.6)
    b2 = arm.edit_bones.new("Upper")
    b2.head, b2.tail = (0, 0, 0.6), (0, 0, 1.2)
    b2.parent = b1
    b2.use_connect = True
    bpy.ops.object.mode_set(mode="OBJECT")
    activate(ao, cy)  # (both selected, the rig active: parent_set's armature)
    bpy.ops.object.parent_set(type="ARMATURE_AUTO")
    pb = ao.pose.bones["Upper"]
    pb.rotation_mode = "XYZ"
    pb.keyframe_insert("rotation_euler", frame=10)
    pb.rotation_euler = (math.radians(70), 0, 0)
    pb.keyframe_insert("rotation_euler", frame=30)
    return cy


def arm_cylinder():
    """The armature-bent cylinder (`bent_cylinder`) under a draped cloth."""
    reset()
    cy = bent_cylinder()
    make_collider(cy)
    print("kind", cy.verlet_cloth_collider.kind, "mods", [m.type for m in cy.modifiers])
    _drop([cy], "arm_cylinder", size=1.0, kind=KIND, frames=48, every=3)


def negscale():
    reset()
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.3, segments=24, ring_count=12, location=(0, 0, 0.3))
    b = bpy.context.active_object
    sg = -1 if os.environ.get("NEG", "1") == "1" else 1
    b.scale = (sg * 1.3, 0.7, 0.6)
    b.rotation_euler = (0.2, 0.3, 0.4)
    b.location = (0, 0, 0.2)
    bx = _cube("Box", (sg * 0.5, 0.4, sg * 0.3), (0.45, 0.1, 0.15))
    only = os.environ.get("ONLY", "")
    if only == "ball":
        bx.location.x = 5
    if only == "box":
        b.location.x = -5
    bx.rotation_euler = (0, 0, 0.5)
    make_collider(b, bx)
    print("kinds", b.verlet_cloth_collider.kind, bx.verlet_cloth_collider.kind)
    _drop([b, bx], f"negscale {KIND}", size=1.6, kind=KIND)


def bool_bevel():
    reset()
    bx = _cube("Table", (0.8, 0.6, 0.5), (0, 0, 0.25))
    bpy.ops.mesh.primitive_cylinder_add(radius=0.18, depth=2, location=(0, 0, 0.3))
    cut = bpy.context.active_object
    cut.hide_render = True
    cut.display_type = "WIRE"
    bo = bx.modifiers.new("Bool", "BOOLEAN")
    bo.object = cut
    bo.operation = "DIFFERENCE"
    bv = bx.modifiers.new("Bevel", "BEVEL")
    bv.width = 0.04
    bv.segments = 3
    cut.hide_viewport = True
    make_collider(bx)
    print("kind", bx.verlet_cloth_collider.kind)
    _drop([bx], f"bool_bevel {KIND}", size=1.2, kind=KIND, loc=(0.02, 0.03))


def gn_collider():
    """A collider made by Geometry Nodes: Grid -> Set Position (a wave from position) on an empty-ish mesh."""
    reset()
    me = bpy.data.meshes.new("GN")
    o = bpy.data.objects.new("GN", me)
    link(o)
    ng = bpy.data.node_groups.new("Wave", "GeometryNodeTree")
    ng.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    ng.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    out = ng.nodes.new("NodeGroupOutput")
    grid = ng.nodes.new("GeometryNodeMeshGrid")
    grid.inputs["Size X"].default_value = 1.6
    grid.inputs["Size Y"].default_value = 1.6
    grid.inputs["Vertices X"].default_value = 30
    grid.inputs["Vertices Y"].default_value = 30
    pos = ng.nodes.new("GeometryNodeInputPosition")
    sep = ng.nodes.new("ShaderNodeSeparateXYZ")
    sin = ng.nodes.new("ShaderNodeMath")
    sin.operation = "SINE"
    mul = ng.nodes.new("ShaderNodeMath")
    mul.operation = "MULTIPLY"
    mul.inputs[1].default_value = 8.0
    amp = ng.nodes.new("ShaderNodeMath")
    amp.operation = "MULTIPLY"
    amp.inputs[1].default_value = 0.12
    comb = ng.nodes.new("ShaderNodeCombineXYZ")
    setp = ng.nodes.new("GeometryNodeSetPosition")
    L = ng.links
    L.new(pos.outputs[0], sep.inputs[0])
    L.new(sep.outputs[0], mul.inputs[0])
    L.new(mul.outputs[0], sin.inputs[0])
    L.new(sin.outputs[0], amp.inputs[0])
    L.new(amp.outputs[0], comb.inputs[2])
    L.new(grid.outputs[0], setp.inputs["Geometry"])
    L.new(comb.outputs[0], setp.inputs["Offset"])
    L.new(setp.outputs[0], out.inputs[0])
    md = o.modifiers.new("GN", "NODES")
    md.node_group = ng
    o.location = (0, 0, 0.3)
    r = make_collider(o)
    print("make_collider", r, "kind", o.verlet_cloth_collider.kind)
    _drop([o], f"gn_wave {KIND}", size=1.2, kind=KIND)


def blender_crumple():
    """Blender's Cloth on the same crumple scene (self-collision on/off)."""
    s = reset()
    s.frame_end = FRAMES
    bpy.ops.mesh.primitive_plane_add(size=6)
    fl = bpy.context.active_object
    fl.modifiers.new("Collision", "COLLISION")
    c = bl_grid()
    c.rotation_euler = (math.radians(80), 0, 0)
    c.location = (0, 0, 0.6)
    bpy.context.view_layer.update()
    rest = rest_world(c)
    m = c.modifiers.new("Cloth", "CLOTH")
    m.settings.bending_stiffness = 0.2
    m.collision_settings.use_self_collision = SELF
    m.point_cache.frame_end = FRAMES
    CLASS["obj"] = c
    run(s, c, [], FRAMES, rest, f"BLENDER crumple {KIND} self={SELF}", every=1)


def blender_sphere():
    s = reset()
    s.frame_end = FRAMES
    bpy.ops.mesh.primitive_plane_add(size=6)
    bpy.context.active_object.modifiers.new("Collision", "COLLISION")
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.15, segments=24, ring_count=12, location=(0, 0, 0.3))
    ball = bpy.context.active_object
    ball.modifiers.new("Collision", "COLLISION")
    c = bl_grid(size=1.2)
    c.location = (0.03, 0.02, 0.6)
    bpy.context.view_layer.update()
    rest = rest_world(c)
    m = c.modifiers.new("Cloth", "CLOTH")
    m.settings.bending_stiffness = 0.02
    m.collision_settings.use_self_collision = SELF
    m.point_cache.frame_end = FRAMES
    run(s, c, [ball], FRAMES, rest, f"BLENDER sphere {KIND} self={SELF}", every=2)


if __name__ == "__main__":
    globals()[sys.argv[1]]()
