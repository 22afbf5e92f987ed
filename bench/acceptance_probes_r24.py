# ruff: noqa
"""Acceptance-style probes in real Blender, round 24 (probe24): scenes not probed before, beside Blender's Cloth.

On top of bench/acceptance_probes.py (evaluated-mesh checks with BVHTree) and bench/acceptance_probes_r20.py (BL=1:
Blender's Cloth with Collision modifiers on the same scene; `cloth`, `collider`, `floor`, `blender_grid`). Public names
only (bpy.ops.verlet_cloth.*, Object.verlet_cloth / verlet_cloth_collider, tools/bake.py). Checked at every EVERY-th
frame: **in** = cloth vertices inside a collider's evaluated triangles (2-of-3 ray parity) by more than 1 mm, **thr** =
cloth edges through them (deepest mm behind the nearest face), stretch max (%), NaN, the floor (z < -1 mm), and with
self-collision on, intersecting loop-triangle pairs sharing no vertex. Usage (from a checkout):
  VC_ROOT=$PWD BL=0|1 KIND=tri|quad N=24 FRAMES=48 EVERY=1|2 .venv/bin/python bench/acceptance_probes_r24.py <case>
cases:
  seams      a sofa whose seat is two cushions (separate loose parts, rounded by Subdivision) with a 1 cm seam gap
             between them and against the arms / back; a 1.4 m soft cloth (bend 0.02) dropped into it (SELF=1: Faces)
  pillow_key a closed pillow (subdivided box, Subdivision 1) with a shape key "Sit" (its top pressed 8 cm down, its
             sides bulging) keyed 0 -> 1 -> 0 over frames 12-24-36; a 0.8 m cloth resting on it
  walker     a capsule "body" (r 0.18, 1.2 m) skinned to a two-bone armature that walks: root moves +X 1.2 m over the
             run with a 3 cm bob, the chest bone leans +-15 degrees every 12 frames; a 0.9 m shawl dropped on its top
  cape       the walker with a 0.6 x 0.8 m cape hanging behind it, its top row pinned, the cloth object parented to
             the Chest bone (Ctrl+P > Bone): the pins ride with the chest
  stairs     a 5-step staircase (one closed mesh, 0.18 m risers, 0.25 m treads, 1 m wide); a 1.2 m cloth dropped
             onto its top steps so it slides down them
  chair_self round 20's chair_ops chair with a 1.4 m soft cloth (bend 0.02) and self-collision Faces on
             (CHAIR_SELF=0: off, pairs still counted)
  table_slide a table (top + 4 legs, one mesh) with a 1 m cloth resting on it; from frame 16 the table is keyed
             +X 0.9 m in 6 frames (3.6 m/s) and stops; the cloth slides off / is dragged
  two_self   two cloths with self-collision Faces on: the lower dropped over a 0.3 m ball (it folds), baked and made
             a Mesh collider; the upper dropped on it and baked; pairs counted in both, upper against lower and ball
  parts      one collider of interpenetrating loose parts: two crossed boxes (an X), a ball sunk half into a slab,
             and a lone thin post; a 1.4 m cloth dropped on them
  flipped    a box with every normal flipped, plus a fin (a single quad) standing on its top along the middle and a
             second quad sharing that fin's top edge (a non-manifold edge with 3 faces); a 1 m cloth dropped on it
  subd_rock  a low-poly rock (icosphere level 1, its vertices pushed +-20 %) with Subdivision 2 (viewport and render):
             the collider is the evaluated smooth shape; a 1 m cloth dropped on it
  tear_cone  a cloth (Tear Factor TEAR=1.15) dropped from 1 m onto a sharp cone (r 0.15, 0.5 m, 16 segments)
  three_ways the `seams` scene (ours): the live preview vs Bake vs tools/bake.py of the saved unbaked file
"""

import math, os, subprocess, sys, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import acceptance_probes_r20 as R  # noqa: E402  (starts Blender, enables the add-on)
import acceptance_probes as A  # noqa: E402
import bpy  # noqa: E402
import bmesh  # noqa: E402
import numpy as np  # noqa: E402
from mathutils import Vector  # noqa: E402
from mathutils.bvhtree import BVHTree  # noqa: E402

BL, N, FRAMES, EVERY, KIND, SELF = R.BL, R.N, R.FRAMES, R.EVERY, R.KIND, R.SELF
WHO = R.WHO


def winding(p, V, T):
    """Generalised winding number of point p about the triangles (about +-1 inside a closed mesh, 0 outside)."""
    a, b, c = V[T[:, 0]] - p, V[T[:, 1]] - p, V[T[:, 2]] - p
    la, lb, lc = (np.linalg.norm(x, axis=1) for x in (a, b, c))
    num = np.einsum("ij,ij->i", a, np.cross(b, c))
    dot = lambda x, y: np.einsum("ij,ij->i", x, y)
    den = la * lb * lc + dot(a, b) * lc + dot(b, c) * la + dot(c, a) * lb
    return float(np.arctan2(num, den).sum() / (2 * np.pi))


def inside_deep(P, V, T, tol=1e-3):
    """Vertices inside (2-of-3 parity, confirmed by a winding number of magnitude > 0.5) by more than tol; the
    deepest (m). The parity vote alone counts false "inside" where a ray grazes a shared edge (seen on a moving
    table: counts [3, 0, 3], 70 mm from every face, winding 0), and on open parts (fins, flaps)."""
    if len(T) == 0:
        return 0, 0.0
    tree = BVHTree.FromPolygons([tuple(v) for v in V], [tuple(t) for t in T], all_triangles=True)
    n, deep = 0, 0.0
    for p in P:
        if A.parity_votes(tree, p) >= 2:
            nn = tree.find_nearest(Vector(p))
            if nn[0] is not None and nn[3] > tol and abs(winding(np.asarray(p), V, T)) > 0.5:
                n += 1
                deep = max(deep, nn[3])
    return n, deep


def check(P, T, E, cols, rest, selfc):
    ins = thr = 0
    dep = dip = 0.0
    for col in cols:
        V, TT = A.world_collider(col)
        i, d = inside_deep(P, V, TT)
        c, dd = A.crossing_dip(P, E, V, TT)
        ins, thr, dep, dip = ins + i, thr + c, max(dep, d), max(dip, dd)
    _, smax = A.strain(P, E, rest)
    return dict(
        nan=int((~np.isfinite(P)).any(axis=1).sum()),
        inside=ins,
        in_mm=round(dep * 1000, 1),
        thr=thr,
        thr_mm=round(dip * 1000, 1),
        stretch=round(smax * 100, 1),
        below=int((P[:, 2] < -1e-3).sum()),
        pairs=A.self_pairs(P, T) if selfc and len(T) else -1,
    )


def go(s, c, cols, tag, rest, every=EVERY, selfc=None, frames=None, record=None):
    """Play frames 1..frames, checking every `every`-th; the worst of each count and its frame; the end state."""
    selfc = SELF if selfc is None else selfc
    frames = frames or FRAMES
    worst, at, t = {}, {}, []
    last = None
    for f in range(1, frames + 1):
        c0 = time.process_time()
        s.frame_set(f)
        t.append(time.process_time() - c0)
        if record is not None:
            record[f] = A.world_mesh(c, tris=False)[0].copy()
        if f % every and f != frames:
            continue
        P, T, E = A.world_mesh(c)
        r = check(P, T, E, cols, rest, selfc)
        for k, v in r.items():
            if v > worst.get(k, 0):
                worst[k], at[k] = v, f
        last = r
    P, T, E = A.world_mesh(c)
    m, x = A.strain(P, E, rest)
    out = dict(
        tag=f"{WHO} {tag} {KIND} self={selfc}",
        worst=worst,
        at=at,
        last=last,
        stretch_end=(round(m * 100, 2), round(x * 100, 1)),
        zmin=round(float(P[:, 2].min()), 3),
        ms=round(1000 * float(np.median(t[1:])), 1),
    )
    print("RESULT", out, flush=True)
    return P


def place_cloth(name, size, loc, z, rot=0.0, n=None, kind=None):
    c = R.blender_grid(name=name, n=n or N, size=size, kind=kind or KIND)
    c.location = (loc[0], loc[1], z)
    c.rotation_euler = (0, 0, rot)
    bpy.context.view_layer.update()
    return c, A.rest_world(c)


def _bm_obj(name, bm):
    me = bpy.data.meshes.new(name)
    bm.to_mesh(me)
    bm.free()
    o = bpy.data.objects.new(name, me)
    A.link(o)
    return o


def _cube_into(bm, size, loc, rot_z=0.0):
    r = bmesh.ops.create_cube(bm, size=1.0)
    vs = r["verts"]
    bmesh.ops.scale(bm, vec=size, verts=vs)
    if rot_z:
        from mathutils import Matrix

        bmesh.ops.rotate(bm, verts=vs, cent=(0, 0, 0), matrix=Matrix.Rotation(rot_z, 3, "Z"))
    bmesh.ops.translate(bm, vec=loc, verts=vs)
    return vs


# ---------------------------------------------------------------- scenes
def _sofa():
    """Base 1.6 x 0.8 x 0.3, back 1.6 x 0.2 x 0.45 on it, arms 0.18 x 0.8 x 0.25, two seat cushions 0.61 x 0.58 x
    0.14 with 1 cm gaps between them and to the arms / back: separate closed boxes in one mesh, Subdivision 2."""
    bm = bmesh.new()
    _cube_into(bm, (1.6, 0.8, 0.3), (0, 0, 0.15))
    _cube_into(bm, (1.6, 0.2, 0.45), (0, 0.3, 0.525))
    for sx in (-1, 1):
        _cube_into(bm, (0.18, 0.8, 0.25), (sx * 0.71, 0, 0.425))
        _cube_into(bm, (0.605, 0.58, 0.14), (sx * 0.3075, -0.1, 0.37))
    so = _bm_obj("Sofa", bm)
    sub = so.modifiers.new("Subdivision", "SUBSURF")
    sub.levels = sub.render_levels = 2
    return so


def seams():
    s = R.scene()
    fl = R.floor()
    so = _sofa()
    R.collider(so)
    c, rest = place_cloth("Cloth", 1.4, (0.02, -0.08), 0.75, rot=0.1)
    R.cloth(c, bend=0.02)
    return s, c, so, rest


def seams_case():
    s, c, so, rest = seams()
    go(s, c, [so], "seams", rest)


def three_ways():
    """The seams scene: live preview positions at every frame, then Bake, then tools/bake.py of the unbaked file."""
    assert not BL
    s, c, so, rest = seams()
    path = os.path.join(A._scratch, "seams.blend")
    out = os.path.join(A._scratch, "seams_out.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    live = {}
    go(s, c, [so], "three_ways live", rest, record=live)
    s.frame_set(1)
    A.activate(c)
    print("bake", bpy.ops.verlet_cloth.bake(), flush=True)
    d = 0.0
    for f in range(1, FRAMES + 1):
        s.frame_set(f)
        d = max(d, float(np.abs(A.world_mesh(c, tris=False)[0] - live[f]).max()))
    print("RESULT bake vs live max m", d, flush=True)
    cmd = [sys.executable, str(A.ROOT / "tools" / "bake.py"), "bake", path, "--output", out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    print("bake.py rc", r.returncode, r.stdout[-300:], r.stderr[-300:], flush=True)
    bpy.ops.wm.open_mainfile(filepath=out)
    s = bpy.context.scene
    c = bpy.data.objects["Cloth"]
    d = 0.0
    for f in range(1, FRAMES + 1):
        s.frame_set(f)
        d = max(d, float(np.abs(A.world_mesh(c, tris=False)[0] - live[f]).max()))
    print("RESULT tools/bake.py vs live max m", d, "keys", len(c.data.shape_keys.key_blocks), flush=True)


def pillow_key():
    s = R.scene()
    R.floor()
    bm = bmesh.new()
    vs = _cube_into(bm, (0.6, 0.4, 0.16), (0, 0, 0.08))
    bmesh.ops.subdivide_edges(bm, edges=bm.edges[:], cuts=5, use_grid_fill=True)
    p = _bm_obj("Pillow", bm)
    sub = p.modifiers.new("Subdivision", "SUBSURF")
    sub.levels = sub.render_levels = 1
    p.shape_key_add(name="Basis")
    k = p.shape_key_add(name="Sit", from_mix=False)
    for i, v in enumerate(p.data.vertices):
        x, y, z = v.co
        w = max(0.0, 1 - (x / 0.3) ** 2) * max(0.0, 1 - (y / 0.2) ** 2)  # 1 mid-top, 0 at the rims
        h = z / 0.16
        k.data[i].co = (x * (1 + 0.15 * w * (1 - h)), y * (1 + 0.15 * w * (1 - h)), z - 0.08 * w * h)
    for f, v in ((12, 0.0), (24, 1.0), (36, 0.0)):
        k.value = v
        k.keyframe_insert("value", frame=f)
    R.collider(p)
    c, rest = place_cloth("Cloth", 0.8, (0.02, 0.01), 0.2, rot=0.2)
    R.cloth(c, bend=0.05)
    go(s, c, [p], "pillow_key", rest)


def walker(cape=False, band=1e-4, weights="auto"):
    """The walking body (and a shawl, or a cape whose vertices within `band` of its top are pinned). weights: "auto"
    (Ctrl+P > With Automatic Weights; its bone-heat weights differ from run to run, so does the body's motion and
    every cloth on it: round 29, probes_r29) or "height" (Chest's weight ramps 0 -> 1 over z 0.45-0.75 m, Hips' the
    rest: the same every run)."""
    s = R.scene()
    R.floor()
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.18, segments=24, ring_count=16, location=(0, 0, 0))
    body = bpy.context.active_object
    body.name = "Body"
    bm = bmesh.new()
    bm.from_mesh(body.data)
    for v in bm.verts:  # a capsule: the upper hemisphere raised 0.84 m, the lower on the floor
        v.co.z += 0.18 + (0.84 if v.co.z > 1e-6 else 0.0)
    eq = [e for e in bm.edges if abs(e.verts[0].co.z - e.verts[1].co.z) > 0.5]
    bmesh.ops.subdivide_edges(bm, edges=eq, cuts=8, use_grid_fill=True)
    bm.to_mesh(body.data)
    bm.free()
    arm = bpy.data.armatures.new("Rig")
    ao = bpy.data.objects.new("Rig", arm)
    A.link(ao)
    A.activate(ao)
    bpy.ops.object.mode_set(mode="EDIT")
    b1 = arm.edit_bones.new("Hips")
    b1.head, b1.tail = (0, 0, 0), (0, 0, 0.6)
    b2 = arm.edit_bones.new("Chest")
    b2.head, b2.tail = (0, 0, 0.6), (0, 0, 1.2)
    b2.parent = b1
    b2.use_connect = True
    bpy.ops.object.mode_set(mode="OBJECT")
    A.activate(ao, body)
    bpy.ops.object.parent_set(type="ARMATURE_AUTO" if weights == "auto" else "ARMATURE_NAME")
    if weights == "height":
        for v in body.data.vertices:
            up = min(1.0, max(0.0, (v.co.z - 0.45) / 0.3))
            body.vertex_groups["Chest"].add([v.index], up, "REPLACE")
            body.vertex_groups["Hips"].add([v.index], 1.0 - up, "REPLACE")
    hips, chest = ao.pose.bones["Hips"], ao.pose.bones["Chest"]
    chest.rotation_mode = "XYZ"
    for f in range(1, FRAMES + 1, 3):
        ph = 2 * math.pi * (f - 1) / 12
        hips.location = (0.0, 0.03 * abs(math.sin(ph)), 0.0)  # bone-local Y is world Z for an upright bone
        hips.keyframe_insert("location", frame=f)
        chest.rotation_euler = (math.radians(15) * math.sin(ph), 0, math.radians(10) * math.sin(ph))
        chest.keyframe_insert("rotation_euler", frame=f)
    ao.location = (0, 0, 0)
    ao.keyframe_insert("location", frame=1)
    ao.location = (1.2 * (FRAMES - 1) / 47, 0, 0)
    ao.keyframe_insert("location", frame=FRAMES)
    for fc in R_fcurves(ao):
        for kp in fc.keyframe_points:
            kp.interpolation = "LINEAR"
    if not (cape and os.environ.get("CAPE_NOCOL") == "1"):  # CAPE_NOCOL=1: the body not a collider (the pins' share)
        R.collider(body)
    if not cape:
        c, rest = place_cloth("Shawl", 0.9, (0.0, 0.0), 1.28, rot=0.3)
        R.cloth(c, bend=0.05)
        go(s, c, [body], "walker", rest)
        return
    # a cape: a 0.6 x 0.8 m grid hanging in the YZ plane 4 cm behind the body (x -0.22), top row pinned, the cloth
    # object parented to the Chest bone (Ctrl+P > Bone), so the pins ride with the leaning, walking chest
    c = R.blender_grid(name="Cape", n=N, size=1.0, kind=KIND)
    c.scale = (0.6, 0.8, 1.0)
    bpy.context.view_layer.update()
    bpy.ops.object.select_all(action="DESELECT")
    A.activate(c)
    bpy.ops.object.transform_apply(scale=True)
    c.rotation_euler = (0, math.radians(90), 0)  # the grid's local X becomes world -Z: it hangs
    c.location = (-0.22, 0.0, 0.95)
    bpy.context.view_layer.update()
    P0 = A.rest_world(c)
    top = [i for i in range(len(P0)) if P0[i, 2] > P0[:, 2].max() - band]
    print("pins", len(top), "of", len(P0), flush=True)
    c.vertex_groups.new(name="Pins").add(top, 1.0, "REPLACE")
    s.frame_set(1)
    mw = c.matrix_world.copy()
    c.parent = ao
    c.parent_type = "BONE"
    c.parent_bone = "Chest"
    bpy.context.view_layer.update()
    c.matrix_world = mw
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    R.cloth(c, bend=0.05, pin="Pins")
    go(s, c, [body], "cape", rest)
    P, _, E = A.world_mesh(c)
    L = np.linalg.norm(P[E[:, 0]] - P[E[:, 1]], axis=1) / np.linalg.norm(rest[E[:, 0]] - rest[E[:, 1]], axis=1) - 1
    for k in np.argsort(L)[-4:]:  # the most stretched edges at the end: how far below the pinned row, and the body
        m = 0.5 * (P[E[k, 0]] + P[E[k, 1]])
        print(
            f"strain {L[k] * 100:.1f} % rows below pins {int(round((P[top][:, 2].max() - m[2]) / (0.6 / (N - 1))))}"
            f" at {m.round(3)}",
            flush=True,
        )
    print("pinned rows z", round(float(P[top][:, 2].min()), 3), round(float(P[top][:, 2].max()), 3), flush=True)


def R_fcurves(o):
    from bpy_extras import anim_utils

    ad = o.animation_data
    try:
        return list(anim_utils.action_get_channelbag_for_slot(ad.action, ad.action_slot).fcurves)
    except Exception:
        return list(ad.action.fcurves)


def stairs():
    s = R.scene()
    R.floor()
    n, rise, run, w = 5, 0.18, 0.25, 1.0
    prof = [(0.0, 0.0)]
    for i in range(n):
        prof += [(i * run, (i + 1) * rise), ((i + 1) * run, (i + 1) * rise)]
    prof += [(n * run, 0.0)]
    m = len(prof)
    verts = [(x, -w / 2, z) for x, z in prof] + [(x, w / 2, z) for x, z in prof]
    faces = [list(range(m)), list(range(2 * m - 1, m - 1, -1))]
    faces += [[i, (i + 1) % m, m + (i + 1) % m, m + i][::-1] for i in range(m)]
    st = A.mesh_obj("Stairs", verts, faces)
    bm = bmesh.new()
    bm.from_mesh(st.data)
    bmesh.ops.recalc_face_normals(bm, faces=bm.faces[:])
    bmesh.ops.triangulate(bm, faces=[f for f in bm.faces if len(f.verts) > 4])
    bm.to_mesh(st.data)
    bm.free()
    st.rotation_euler = (0, 0, math.radians(180))  # top step at -x
    st.location = (0.6, 0, 0)
    R.collider(st)
    c, rest = place_cloth("Cloth", 1.2, (-0.2, 0.02), n * rise + 0.1, rot=0.05)
    R.cloth(c, bend=0.05)
    go(s, c, [st], "stairs", rest)


def chair_self():
    s = R.scene()
    R.floor()
    bpy.ops.mesh.primitive_cube_add(size=1, location=(0, 0, 0.45))
    ch = bpy.context.active_object
    ch.name = "Chair"
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    bpy.ops.transform.resize(value=(0.5, 0.5, 0.05))
    for x, y in ((-0.22, -0.22), (0.22, -0.22), (-0.22, 0.22), (0.22, 0.22)):
        bpy.ops.mesh.primitive_cube_add(size=1, location=(x, y, 0.22))
        bpy.ops.transform.resize(value=(0.04, 0.04, 0.44))
    bpy.ops.mesh.primitive_cube_add(size=1, location=(0, 0.23, 0.72))
    bpy.ops.transform.resize(value=(0.5, 0.04, 0.55))
    bpy.ops.mesh.select_all(action="SELECT")
    bpy.ops.mesh.bevel(offset=0.01, segments=2)
    bpy.ops.object.mode_set(mode="OBJECT")
    ch.rotation_euler = (0, 0, math.radians(15))
    R.collider(ch)
    c, rest = place_cloth("Cloth", 1.4, (0.05, -0.05), 1.1, rot=0.2)
    on = os.environ.get("CHAIR_SELF", "1") == "1"  # CHAIR_SELF=0: the same without self-collision (cost, pairs)
    R.cloth(c, bend=0.02, selfc=on)
    go(s, c, [ch], "chair_self", rest, selfc=True)


def table_slide():
    s = R.scene()
    R.floor()
    bm = bmesh.new()
    _cube_into(bm, (1.0, 0.7, 0.04), (0, 0, 0.72))
    for x, y in ((-0.45, -0.3), (0.45, -0.3), (-0.45, 0.3), (0.45, 0.3)):
        _cube_into(bm, (0.05, 0.05, 0.7), (x, y, 0.35))
    t = _bm_obj("Table", bm)
    t.keyframe_insert("location", frame=16)
    t.location.x = float(os.environ.get("SLIDE", "0.9"))
    t.keyframe_insert("location", frame=22)
    for fc in R_fcurves(t):
        for kp in fc.keyframe_points:
            kp.interpolation = "LINEAR"
    R.collider(t)
    c, rest = place_cloth("Cloth", 1.0, (0.0, 0.0), 0.78, rot=0.0)
    R.cloth(c, bend=0.05)
    go(s, c, [t], "table_slide", rest)


def two_self():
    s = R.scene()
    R.floor()
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.3, segments=32, ring_count=16, location=(0, 0, 0.3))
    ball = bpy.context.active_object
    ball.name = "Ball"
    R.collider(ball)
    low, lrest = place_cloth("Lower", 1.3, (0.03, 0.02), 0.7, rot=0.1)
    R.cloth(low, bend=0.02, selfc=True)
    if BL:
        for f in range(1, FRAMES + 1):
            s.frame_set(f)
        low.modifiers.new("Collision", "COLLISION")
    else:
        A.activate(low)
        print("bake lower", bpy.ops.verlet_cloth.bake(), flush=True)
        A.make_collider(low)
        low.verlet_cloth_collider.kind = "MESH"
    s.frame_set(FRAMES)
    P, T, E = A.world_mesh(low)
    print("lower at end", check(P, T, E, [ball], lrest, True), flush=True)
    s.frame_set(1)
    up, rest = place_cloth("Upper", 1.0, (-0.04, 0.05), 0.85, rot=0.6)
    R.cloth(up, bend=0.02, selfc=True)
    if not BL:
        A.activate(up)
        print("bake upper", bpy.ops.verlet_cloth.bake(), flush=True)
    go(s, up, [low, ball], "two_self", rest, selfc=True)


def parts():
    s = R.scene()
    R.floor()
    bm = bmesh.new()
    _cube_into(bm, (0.7, 0.12, 0.3), (-0.35, 0.0, 0.15), rot_z=math.radians(45))
    _cube_into(bm, (0.7, 0.12, 0.3), (-0.35, 0.0, 0.15), rot_z=math.radians(-45))
    _cube_into(bm, (0.5, 0.5, 0.12), (0.3, 0.1, 0.06))
    r = bmesh.ops.create_uvsphere(bm, u_segments=24, v_segments=12, radius=0.18)
    bmesh.ops.translate(bm, vec=(0.3, 0.1, 0.12), verts=r["verts"])
    _cube_into(bm, (0.03, 0.03, 0.45), (0.0, -0.35, 0.225))
    o = _bm_obj("Parts", bm)
    R.collider(o)
    c, rest = place_cloth("Cloth", 1.4, (0.0, 0.0), 0.55, rot=0.15)
    R.cloth(c, bend=0.05)
    go(s, c, [o], "parts", rest)


def flipped():
    s = R.scene()
    R.floor()
    bm = bmesh.new()
    _cube_into(bm, (0.6, 0.6, 0.3), (0, 0, 0.15))
    bmesh.ops.reverse_faces(bm, faces=bm.faces[:])
    a = bm.verts.new((-0.3, 0.0, 0.3))
    b = bm.verts.new((0.3, 0.0, 0.3))
    c1 = bm.verts.new((0.3, 0.0, 0.45))
    d = bm.verts.new((-0.3, 0.0, 0.45))
    bm.faces.new((a, b, c1, d))  # the fin
    e = bm.verts.new((0.3, 0.12, 0.55))
    g = bm.verts.new((-0.3, 0.12, 0.55))
    bm.faces.new((d, c1, e, g))  # a flap on the fin's top edge
    e2 = bm.verts.new((0.3, -0.12, 0.55))
    g2 = bm.verts.new((-0.3, -0.12, 0.55))
    bm.faces.new((c1, d, g2, e2))  # and another: the fin's top edge has 3 faces
    o = _bm_obj("Flipped", bm)
    R.collider(o)
    c, rest = place_cloth("Cloth", 1.0, (0.03, 0.02), 0.65, rot=0.2)
    R.cloth(c, bend=0.05)
    go(s, c, [o], "flipped", rest)


def subd_rock():
    s = R.scene()
    R.floor()
    bm = bmesh.new()
    bmesh.ops.create_icosphere(bm, subdivisions=1, radius=0.3)
    rng = np.random.default_rng(3)
    for v in bm.verts:
        v.co *= float(rng.uniform(0.8, 1.2))
        v.co.z += 0.25
    o = _bm_obj("Rock", bm)
    sub = o.modifiers.new("Subdivision", "SUBSURF")
    sub.levels = sub.render_levels = 2
    R.collider(o)
    top = float(A.world_collider(o)[0][:, 2].max())
    c, rest = place_cloth("Cloth", 1.0, (0.02, 0.03), top + 0.08, rot=0.1)
    R.cloth(c, bend=0.05)
    go(s, c, [o], "subd_rock", rest)


def tear_cone():
    s = R.scene()
    R.floor()
    bpy.ops.mesh.primitive_cone_add(vertices=16, radius1=0.15, depth=0.5, location=(0, 0, 0.25))
    co = bpy.context.active_object
    co.name = "Cone"
    R.collider(co)
    c, rest = place_cloth("Cloth", 1.0, (0.02, 0.01), 1.0, rot=0.1)
    kw = {} if BL else {"tear_factor": float(os.environ.get("TEAR", "1.15"))}
    R.cloth(c, bend=0.05, **kw)
    P = go(s, c, [co], "tear_cone", rest)
    ev = c.evaluated_get(bpy.context.evaluated_depsgraph_get())
    print("faces", len(c.data.polygons), "->", len(ev.data.polygons), "extent", np.abs(P).max(0).round(2), flush=True)


CASES = dict(
    seams=seams_case,
    pillow_key=pillow_key,
    walker=walker,
    cape=lambda: walker(cape=True),
    stairs=stairs,
    chair_self=chair_self,
    table_slide=table_slide,
    two_self=two_self,
    parts=parts,
    flipped=flipped,
    subd_rock=subd_rock,
    tear_cone=tear_cone,
    three_ways=three_ways,
)

if __name__ == "__main__":
    for name in sys.argv[1:]:
        CASES[name]()
