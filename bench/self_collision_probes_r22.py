"""Round 22 self-collision probes in real Blender (issue 13; docs/self-collision.md, round 22, selfprobe26).

Each scene is built with the public names only (`bpy.ops.verlet_cloth.*`, `Object.verlet_cloth`), Self-Collision
on (Faces, the default), baked with `bpy.ops.verlet_cloth.bake`, and at every frame the evaluated cloth is checked:
intersecting face pairs (`BVHTree.overlap` of the loop triangles, pairs sharing a vertex skipped), vertices inside
a collider (deeper than 1 mm behind the nearest face of a mesh / sphere / plane collider), NaN, and stretch (the
longest edge over its rest length). Scenes (n: grid side, default 24; kind: quad, tri or irr (jittered)):

    rod       a 1 m cloth dropped across a thin (1 cm radius) mesh rod, folding over it onto itself
    curtain   a curtain pinned along its top, swept sideways by a moving box so it bunches
    sphere    a 1 m cloth dropped on a 0.25 m sphere (mesh collider) over a floor, folding
    table     a tablecloth, half off a table, frictionless: slides off and piles on the floor
    ribbon    a ribbon pinned at both ends, one end turned 1.5 times about the ribbon's axis (a hook)
    torn      a cloth pinned at two far corners, tear factor 1.15 (Limit Stretch off), on a sphere: tears, folds

    VC_ROOT=<checkout> .venv/bin/python bench/self_collision_probes_r22.py rod:quad,tri,irr sphere:quad ...
        [--n 24] [--frames 48] [--preview] [--cli] [--off] [--no-failsafe]
    --preview: also play the scene unbaked and compare with the bake; --cli: also save it unbaked, bake it with
    tools/bake.py in another process, and compare; --off: Self-Collision off (the scene's crossings without it);
    --no-failsafe: diagnosis only, `FaceCollision.undo_crossings` made a no-op (round 22: the curtain's stretch).
    own_sphere / own_curtain / own_table: Blender's Cloth (quality 5, self-collision on) on the same scene.

One line per run: pairs max/end, frames with pairs (first), inside max, NaN, stretch max, bake CPU seconds.
"""

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_blender import activate, mesh_obj, reset, start, world_mesh  # noqa: E402 - Blender's start, the scene helpers

ROOT, scratch, _ = start("sp22_", repo="sp", own_resources=True, raise_errors=False)  # bl_ext.sp.verlet_cloth
import bpy  # noqa

sys.path.insert(0, str(ROOT))
import solver  # noqa
from mathutils import Vector  # noqa
from mathutils.bvhtree import BVHTree  # noqa

N = 24
FRAMES = 48
OFF = False  # --off: the same scenes with Self-Collision off (do they fold onto themselves at all?)


def setup(frames):
    return reset((1, frames))


def make_object(name, vertices, faces):
    obj = mesh_obj(name, np.asarray(vertices), faces)
    activate(obj)
    return obj


def sheet(kind, n, size):
    """(vertices, faces) of an n×n sheet of side `size` in the XY plane (quad / tri / irr = jittered)."""
    if kind == "irr":
        return solver.meshes.jittered_grid(n, size=size)
    v, f = solver.grid(n, n, size=size)
    return v, (solver.meshes.triangulated(f) if kind == "tri" else f)


def collider(kind="MESH"):
    assert bpy.ops.verlet_cloth.make_collider(kind=kind) == {"FINISHED"}
    return bpy.context.active_object


def floor():
    bpy.ops.mesh.primitive_plane_add(size=8.0)
    return collider("PLANE")


def cloth(obj, **kw):
    activate(obj)
    assert bpy.ops.verlet_cloth.convert() == {"FINISHED"}
    s = obj.verlet_cloth
    s.self_collision = not OFF  # Faces is the default
    for k, val in kw.items():
        setattr(s, k, val)
    return obj


def pin(obj, idx, name="Pin"):
    obj.vertex_groups.new(name=name).add([int(i) for i in idx], 1.0, "REPLACE")


def hook(obj, group, empty):
    bpy.context.scene.frame_set(1)
    m = obj.modifiers.new("Hook", "HOOK")
    m.object, m.falloff_type, m.vertex_group = empty, "NONE", group
    m.matrix_inverse = empty.matrix_world.inverted()


# ---- scenes: each returns (cloth object, [collider objects]) ----


def rod(kind, n, frames):
    setup(frames)
    colls = [floor()]
    bpy.ops.mesh.primitive_cylinder_add(radius=0.01, depth=1.6, location=(0, 0, 0.6), rotation=(np.pi / 2, 0, 0))
    colls.append(collider())
    v, f = sheet(kind, n, 1.0)
    return cloth(make_object("Cloth", v + [0.15, 0, 0.75], f), bend_stiffness=0.05), colls


def curtain(kind, n, frames):
    setup(frames)
    colls = [floor()]
    v, f = sheet(kind, n, 1.0)
    v = v[:, [0, 2, 1]] + [0, 0, 1.1]  # the XZ plane, 0.6-1.6 m up
    obj = make_object("Curtain", v, f)
    pin(obj, np.flatnonzero(np.isclose(v[:, 2], v[:, 2].max())))
    bpy.ops.mesh.primitive_cube_add(size=0.3, location=(-0.8, 0, 0.75))
    box = bpy.context.active_object
    box.keyframe_insert("location", frame=1)
    box.location = (0.35, 0, 0.75)
    box.keyframe_insert("location", frame=int(frames * 0.7))
    colls.append(collider())
    cloth(obj, bend_stiffness=0.05, pin_group="Pin")
    return obj, colls


def sphere(kind, n, frames):
    setup(frames)
    colls = [floor()]
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.25, location=(0, 0, 0.25))
    colls.append(collider())
    v, f = sheet(kind, n, 1.0)
    return cloth(make_object("Cloth", v + [0.05, 0.03, 0.7], f), bend_stiffness=0.05), colls


def table(kind, n, frames):
    setup(frames)
    colls = [floor()]
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0, 0, 0.3), scale=(0.5, 0.5, 0.3))
    colls.append(collider())
    v, f = sheet(kind, n, 1.0)
    obj = make_object("Cloth", v + [0.45, 0, 0.65], f)
    return cloth(obj, bend_stiffness=0.05, friction=0.0), colls


def ribbon(kind, n, frames):
    setup(frames)
    cols, rows = n * 2, max(4, n // 4)
    v, f = solver.grid(cols, rows, size=(1.2, 0.15))
    if kind == "tri":
        f = solver.meshes.triangulated(f)
    elif kind == "irr":
        rng = np.random.default_rng(0)
        inner = np.flatnonzero((np.abs(v[:, 0]) < 0.599) & (np.abs(v[:, 1]) < 0.0749))
        v[inner, :2] += rng.uniform(-0.3, 0.3, (len(inner), 2)) * [1.2 / (cols - 1), 0.15 / (rows - 1)]
        f = solver.meshes.triangulated(f)
    v = v + [0, 0, 1.0]
    obj = make_object("Ribbon", v, f)
    pin(obj, np.flatnonzero(np.isclose(np.abs(v[:, 0]), 0.6)))
    pin(obj, np.flatnonzero(np.isclose(v[:, 0], 0.6)), "Right")
    bpy.ops.object.empty_add(location=(0.6, 0, 1.0))
    held = bpy.context.active_object
    held.keyframe_insert("rotation_euler", frame=1)
    held.rotation_euler = (3 * np.pi, 0, 0)
    held.keyframe_insert("rotation_euler", frame=int(frames * 0.8))
    held.keyframe_insert("location", frame=1)
    held.location = (0.35, 0, 1.0)  # the ends come closer: the twist must coil
    held.keyframe_insert("location", frame=int(frames * 0.8))
    hook(obj, "Right", held)
    return cloth(obj, bend_stiffness=0.05, pin_group="Pin"), []


def torn(kind, n, frames):
    setup(frames)
    colls = [floor()]
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.2, location=(0, 0, 0.35))
    colls.append(collider())
    v, f = sheet(kind, n, 1.0)
    v = v + [0, 0, 0.7]
    obj = make_object("Cloth", v, f)
    corners = np.flatnonzero(np.isclose(np.abs(v[:, 0]), 0.5) & np.isclose(np.abs(v[:, 1]), 0.5))
    pin(obj, corners[[0, 3]])
    return cloth(obj, bend_stiffness=0.05, pin_group="Pin", tear_factor=1.15, limit_stretch=False), colls


# ---- Blender's own Cloth on the same scenes ----


def own(builder):
    def make(kind, n, frames):
        obj, colls = builder(kind, n, frames)
        pins = obj.verlet_cloth.pin_group
        obj.verlet_cloth.enabled = False
        for c in colls:
            c.modifiers.new("Collision", "COLLISION")
        mod = obj.modifiers.new("Cloth", "CLOTH")
        mod.settings.quality = 5
        mod.settings.bending_stiffness = 0.05
        if pins:
            mod.settings.vertex_group_mass = pins
        mod.collision_settings.use_self_collision = True
        mod.collision_settings.self_distance_min = 0.005
        mod.collision_settings.distance_min = 0.005
        mod.point_cache.frame_end = bpy.context.scene.frame_end
        return obj, colls

    return make


own_sphere, own_curtain, own_table, own_rod = own(sphere), own(curtain), own(table), own(rod)


# ---- measuring ----


def evaluated(obj):
    return world_mesh(obj)


def overlap_pairs(co, tris):
    if not np.isfinite(co).all():
        return -1
    tree = BVHTree.FromPolygons(co.tolist(), tris.tolist(), all_triangles=True)
    pairs = np.array([(a, b) for a, b in tree.overlap(tree) if a < b], dtype=np.int64).reshape(-1, 2)
    if len(pairs):
        share = (tris[pairs[:, 0]][:, :, None] == tris[pairs[:, 1]][:, None, :]).any(axis=(1, 2))
        pairs = pairs[~share]
    return len(pairs)


def inside_count(co, colls, depth=1e-3):
    """Cloth vertices deeper than `depth` inside any collider (plane: below; mesh, sphere: behind the nearest face)."""
    bad = np.zeros(len(co), bool)
    for c in colls:
        kind = c.verlet_cloth_collider.kind
        m = np.array(c.matrix_world)
        if kind == "PLANE":
            nrm = m[:3, 2] / np.linalg.norm(m[:3, 2])
            bad |= (co - m[:3, 3]) @ nrm < -depth
            continue
        ev = c.evaluated_get(bpy.context.evaluated_depsgraph_get())
        me = ev.to_mesh()
        vc = np.empty(len(me.vertices) * 3)
        me.vertices.foreach_get("co", vc)
        vc = vc.reshape(-1, 3) @ m[:3, :3].T + m[:3, 3]
        me.calc_loop_triangles()
        tr = np.empty(len(me.loop_triangles) * 3, dtype=np.int64)
        me.loop_triangles.foreach_get("vertices", tr)
        ev.to_mesh_clear()
        tree = BVHTree.FromPolygons(vc.tolist(), tr.reshape(-1, 3).tolist(), all_triangles=True)
        lo, hi = vc.min(0) - depth, vc.max(0) + depth
        for i in np.flatnonzero(((co > lo) & (co < hi)).all(1)):
            p = Vector(co[i])
            hit, nrm, _, dist = tree.find_nearest(p)
            if hit is not None and dist > depth and (p - hit).dot(nrm) < 0:
                bad[i] = True
    return int(bad.sum())


def measure(obj, colls, frames, rest_len=None):
    scene = bpy.context.scene
    rows, shapes = [], []
    for fr in range(1, frames + 1):
        scene.frame_set(fr)
        co, tris, edges = evaluated(obj)
        shapes.append(co.copy())
        nan = int((~np.isfinite(co)).any(1).sum())
        pairs = overlap_pairs(co, tris)
        inside = inside_count(co, colls) if nan == 0 else -1
        length = np.linalg.norm(co[edges[:, 0]] - co[edges[:, 1]], axis=1)
        if rest_len is None:
            rest_len = length.copy()
        stretch = float(np.nanmax(length / rest_len)) if len(length) == len(rest_len) else float("nan")
        rows.append((fr, pairs, inside, nan, stretch))
    return np.array(rows), shapes


def rest_lengths(obj):
    me = obj.data
    co = np.empty(len(me.vertices) * 3)
    me.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    e = np.empty(len(me.edges) * 2, dtype=np.int64)
    me.edges.foreach_get("vertices", e)
    e = e.reshape(-1, 2)
    return np.linalg.norm(co[e[:, 0]] - co[e[:, 1]], axis=1)


def report(label, arr, seconds):
    pairs = arr[:, 1]
    bad = np.flatnonzero(pairs != 0)
    first = int(arr[bad[0], 0]) if len(bad) else None
    print(
        f"{label}: pairs max/end {int(pairs.max())}/{int(pairs[-1])} (frames {len(bad)}, first {first});"
        f" inside max {int(arr[:, 2].max())}; NaN {int(arr[:, 3].max())}; stretch max {np.nanmax(arr[:, 4]):.2f};"
        f" {seconds:.1f} s cpu ({seconds / len(arr) * 1000:.0f} ms/frame)",
        flush=True,
    )


def run(name, kind, n, frames, preview=False, cli=False):
    obj, colls = globals()[name](kind, n, frames)
    if cli:  # the same scene saved unbaked and baked by tools/bake.py in another process
        import subprocess

        blend = os.path.join(scratch, f"{name}_{kind}.blend")
        names = obj.name, [c.name for c in colls]
        bpy.context.scene.frame_set(1)
        bpy.ops.wm.save_as_mainfile(filepath=blend)
        t0 = time.time()
        out = subprocess.run(
            [sys.executable, str(ROOT / "tools" / "bake.py"), "bake", blend, "--output", blend + ".out.blend"],
            capture_output=True,
            text=True,
            check=False,
        )
        print(f"tools/bake.py: rc {out.returncode}, {time.time() - t0:.0f} s wall; {out.stderr.strip()[-300:]}")
        bpy.ops.wm.open_mainfile(filepath=blend + ".out.blend")
        obj, colls = bpy.data.objects[names[0]], [bpy.data.objects[c] for c in names[1]]
        arr_c, shapes_c = measure(obj, colls, frames, rest_lengths(obj))
        report(f"{name} {kind} {n}² {frames}f tools/bake.py", arr_c, 0.0)
        bpy.ops.wm.open_mainfile(filepath=blend)
        obj, colls = bpy.data.objects[names[0]], [bpy.data.objects[c] for c in names[1]]
    rest = rest_lengths(obj)
    label = f"{name} {kind} {n}² {frames}f" + (" self-collision OFF" if OFF else "")
    if preview:  # the unbaked preview, played frame by frame from frame 1
        bpy.context.scene.frame_set(1)
        t0 = time.process_time()
        arr_p, shapes_p = measure(obj, colls, frames, rest)
        report(label + " preview", arr_p, time.process_time() - t0)
        bpy.context.scene.frame_set(1)
    t0 = time.process_time()
    if not name.startswith("own"):
        activate(obj)
        assert bpy.ops.verlet_cloth.bake() == {"FINISHED"}
    else:
        bpy.context.scene.frame_set(1)
        for fr in range(1, frames + 1):
            bpy.context.scene.frame_set(fr)
    bake_s = time.process_time() - t0
    arr, shapes = measure(obj, colls, frames, rest)
    report(label + (" (Blender Cloth, played)" if name.startswith("own") else " bake"), arr, bake_s)
    if cli:
        diff = max(float(np.abs(a - b).max()) for a, b in zip(shapes, shapes_c, strict=True))
        print(f"{label}: bake vs tools/bake.py, largest difference {diff:.3g} m", flush=True)
    if preview:
        diff = max(float(np.abs(a - b).max()) for a, b in zip(shapes, shapes_p, strict=True))
        print(f"{label}: bake vs preview, largest difference {diff:.3g} m", flush=True)
    return obj


if __name__ == "__main__":
    args = sys.argv[1:]
    preview = "--preview" in args
    OFF = "--off" in args
    if "--no-failsafe" in args:  # diagnosis only: the face contacts' failsafe (rewind to the substep's start) off
        sys.modules["bl_ext.sp.verlet_cloth.solver.face_collision"].FaceCollision.undo_crossings = lambda *a, **k: None
    if "--n" in args:
        N = int(args[args.index("--n") + 1])
    if "--frames" in args:
        FRAMES = int(args[args.index("--frames") + 1])
    if "--save" in args:
        save = args[args.index("--save") + 1]
    else:
        save = None
    jobs = [a for a in args if ":" in a]
    for job in jobs:
        name, _, kinds = job.partition(":")
        for kind in kinds.split(","):
            run(name, kind, N, FRAMES, preview, cli="--cli" in args)
            if save:
                bpy.ops.wm.save_as_mainfile(filepath=save)
