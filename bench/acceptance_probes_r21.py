# ruff: noqa
"""Acceptance-style probes in real Blender, round 21 (probe24): artist scenes not probed before, beside Blender's Cloth.

On top of bench/acceptance_probes.py (checks: inside by 2-of-3 ray parity against the collider's evaluated triangles,
cloth edges through them and how deep, stretch) and bench/acceptance_probes_r20.py (BL=1: Blender's Cloth with
Collision modifiers on the same scene; the grids; `drop`, `go`). Usage (from a checkout):
  VC_ROOT=$PWD BL=0|1 KIND=tri|quad|jit N=20 FRAMES=48 EVERY=2 .venv/bin/python bench/acceptance_probes_r21.py <case>
cases (colliders): screw_shade spin_vase suzanne_head (MIRROR=0|1) rigid_drop rigid_cli follow_path (FOLLOW=0|1, FPS=24|60) wind_wall
cases (the user's data and actions, ours only): auto_smooth apply_after_bake join_separate delta_transforms
  append_baked driven_wind two_scenes link_baked
cases (beside Blender's Cloth): blender_cloth_under (ours: a napkin on a tablecloth of Blender's Cloth)
"""

import math, os, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import acceptance_probes_r20 as R  # noqa: E402  (starts Blender, enables the add-on)
import acceptance_probes as A  # noqa: E402
import bpy  # noqa: E402
import numpy as np  # noqa: E402

BL, N, FRAMES, EVERY = R.BL, R.N, R.FRAMES, R.EVERY


def _edit(o, fn):
    A.activate(o)
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    fn()
    bpy.ops.object.mode_set(mode="OBJECT")


def _profile(name, pts):
    """A polyline of edges in the XZ plane (what an artist draws before Screw / Spin)."""
    return A.mesh_obj(name, [(x, 0.0, z) for x, z in pts], [], [(i, i + 1) for i in range(len(pts) - 1)])


# ---------------------------------------------------------------- colliders
def screw_shade():
    """A lampshade: one slanted edge turned by a Screw modifier (32 steps, unapplied): an open cone frustum of zero
    thickness, 0.5 m high, rims r 0.35 (bottom) / 0.2 m (top), standing on the floor; a 1.2 m cloth dropped on it."""
    R.scene()
    R.floor()
    o = _profile("Shade", [(0.35, 0.02), (0.2, 0.52)])
    m = o.modifiers.new("Screw", "SCREW")
    m.steps = m.render_steps = 32
    m.angle = 2 * math.pi
    R.collider(o)
    R.drop([o], "screw_shade", size=1.2, loc=(0.05, 0.03), rot=0.2)


def spin_vase():
    """A vase: a profile from the axis to the axis (bottom centre, belly, neck, lip turned in, top centre) spun 360
    degrees in Edit Mode (Spin, 24 steps): a closed surface with 24 duplicate vertices at each pole (Spin does not
    merge vertices on the axis) and the seam; a 1.0 m cloth dropped on its mouth."""
    R.scene()
    R.floor()
    pts = [(0.0, 0.0), (0.18, 0.0), (0.25, 0.15), (0.2, 0.35), (0.1, 0.45), (0.14, 0.55), (0.0, 0.55)]
    o = _profile("Vase", pts)

    def spin():
        bpy.ops.mesh.spin(steps=24, angle=2 * math.pi, center=(0, 0, 0), axis=(0, 0, 1), dupli=False)

    _edit(o, spin)
    print("vase verts", len(o.data.vertices), "faces", len(o.data.polygons), flush=True)
    R.collider(o)
    R.drop([o], "spin_vase", size=1.0, loc=(0.04, -0.02), rot=0.3)


def suzanne_head():
    """Add > Monkey mirrored by scale (-1, 1, 1), upright (turned 90 degrees about X to face -Y), Subdivision 2 in
    the viewport, on a 0.3 m box plinth; a 0.9 m cloth dropped on its head. MIRROR=0: scale (1, 1, 1)."""
    R.scene()
    R.floor()
    bpy.ops.mesh.primitive_monkey_add(size=0.8, location=(0, 0, 0.62), rotation=(math.radians(90), 0, 0))
    m = bpy.context.active_object
    m.scale = (-1, 1, 1) if os.environ.get("MIRROR", "1") == "1" else (1, 1, 1)
    sub = m.modifiers.new("Sub", "SUBSURF")
    sub.levels = 2
    sub.render_levels = 2
    b = A.box("Plinth", (0.4, 0.4, 0.3), (0, 0, 0.15))
    R.collider(m, b)
    R.drop([m, b], "suzanne_head", size=0.9, loc=(0.03, 0.05), rot=0.4)


def _rigid_scene():
    """A 0.3 m cube with an active Rigid Body (Blender's rigid body world, its own cache) dropped from 0.5 m, turned,
    onto a passive ground box, where it tumbles onto a face; a 1 m cloth 0.5 m above it falls at the same time and lands
    on it while it tumbles (one-way: the cloth does not push the cube). Checks every frame."""
    s = R.scene()
    bpy.ops.rigidbody.world_add()
    s.rigidbody_world.point_cache.frame_end = FRAMES
    fl = A.box("Ground", (4, 4, 0.2), (0, 0, -0.1))
    A.activate(fl)
    bpy.ops.rigidbody.object_add(type="PASSIVE")
    cube = A.box("Cube", (0.3, 0.3, 0.3), (0.05, 0.02, 0.5))
    cube.rotation_euler = (0.5, 0.3, 0.2)
    A.activate(cube)
    bpy.ops.rigidbody.object_add(type="ACTIVE")
    R.collider(cube, fl)
    c = R.blender_grid(n=N, size=1.0)
    c.location = (0, 0, 1.0)
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    R.cloth(c, bend=0.05)
    return s, c, cube, fl, rest


def rigid_drop():
    s, c, cube, fl, rest = _rigid_scene()
    R.go(s, c, [cube, fl], "rigid_drop", rest, every=1)
    print("cube at the end", [round(x, 3) for x in cube.matrix_world.translation], flush=True)


def rigid_cli():
    """The rigid_drop scene saved unbaked and baked by `tools/bake.py bake <file> --output <out>` (a fresh process:
    the rigid body world simulated from its start there); the baked cloth against the live preview's every 8th frame,
    and the baked cube's place."""
    import subprocess, time as _t

    s, c, cube, fl, rest = _rigid_scene()
    path = os.path.join(A._scratch, "rigid.blend")
    out = os.path.join(A._scratch, "rigid_out.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    live, cubes = {}, {}
    for f in range(1, FRAMES + 1):
        s.frame_set(f)
        if f % 8 == 0:
            live[f] = A.world_mesh(c)[0].copy()
            cubes[f] = np.array(cube.matrix_world)
    cmd = [sys.executable, str(A.ROOT / "tools" / "bake.py"), "bake", path, "--output", out]
    t = _t.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    print("bake.py rc", r.returncode, round(_t.time() - t, 1), "s", r.stdout[-300:], r.stderr[-300:], flush=True)
    bpy.ops.wm.open_mainfile(filepath=out)
    s = bpy.context.scene
    c, cube = bpy.data.objects["Cloth"], bpy.data.objects["Cube"]
    d = dc = 0.0
    for f in range(1, FRAMES + 1):  # in order: the reopened file's rigid body cache fills as it plays
        s.frame_set(f)
        if f in live:
            d = max(d, float(np.abs(A.world_mesh(c)[0] - live[f]).max()))
            dc = max(dc, float(np.abs(np.array(cube.matrix_world) - cubes[f]).max()))
    print("RESULT rigid_cli baked", c.verlet_cloth.baked, "cli - preview", d, "cube", dc, flush=True)


def _pinned_curtain(size, scale, height):
    """A cloth grid of `size` (object scale `scale`) stood upright at `height`, pinned along its top row by a vertex
    group "Pins", made cloth; returns it and its rest shape in world space."""
    c = R.blender_grid(n=N, size=size)
    c.scale = scale
    c.rotation_euler = (math.radians(90), 0, 0)
    c.location = (0, 0, height)
    top = [v.index for v in c.data.vertices if v.co.y > 0.49 * size]
    c.vertex_groups.new(name="Pins").add(top, 1.0, "REPLACE")
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    R.cloth(c, bend=0.05, pin="Pins")
    return c, rest


def follow_path():
    """A 0.3 m box on a Follow Path constraint (Follow Curve: it turns with the path; FOLLOW=0: it does not) along a
    Bezier circle (r 1 m, a 24-frame path: 6.3 m/s, turning 15 degrees a frame) whose lowest point grazes a 1.4 m
    curtain pinned along its top (a vertex group): the box runs along the curtain for a few frames, half of it in
    front; every frame. FPS=60 runs the scene at 60 fps (the path 60 frames)."""
    s = R.scene()
    bpy.ops.curve.primitive_bezier_circle_add(radius=1.0, location=(0, -1.0, 0.6))
    path = bpy.context.active_object
    fps = int(os.environ.get("FPS", "24"))
    s.render.fps = fps
    path.data.path_duration = fps
    b = A.box("Sweeper", (0.3, 0.3, 0.3), (0, 0, 0))
    con = b.constraints.new("FOLLOW_PATH")
    con.target = path
    con.use_curve_follow = os.environ.get("FOLLOW", "1") == "1"
    A.activate(path)
    ov = {"object": b, "active_object": b, "constraint": con}
    with bpy.context.temp_override(**ov):
        bpy.ops.constraint.followpath_path_animate(constraint=con.name, owner="OBJECT")
    R.collider(b)
    c, rest = _pinned_curtain(1.4, (1, 1, 1), 0.75)
    R.go(s, c, [b], "follow_path", rest, every=1)


def wind_wall():
    """A 1.2 x 1.6 m curtain pinned along its top by a vertex group, a Wind force field (Add > Force Field > Wind)
    turned to blow along +Y (strength WIND=8: ours 8 m/s; Blender's Cloth reads it as a force: 300 to press it on the wall), a wall (a 3 x 0.1 x 2 m
    box) 0.2 m behind; every 2nd frame."""
    s = R.scene()
    R.floor()
    bpy.ops.object.effector_add(type="WIND", location=(0, -1, 0.9), rotation=(math.radians(-90), 0, 0))
    w = bpy.context.active_object
    w.field.strength = float(os.environ.get("WIND", "8"))
    wall = A.box("Wall", (3, 0.1, 2), (0, 0.25, 1.0))
    R.collider(wall)
    c, rest = _pinned_curtain(1.0, (1.2, 1.6, 1), 1.0)
    R.go(s, c, [wall], "wind_wall", rest)
    P = A.world_mesh(c)[0]
    print("curtain y max", round(float(P[:, 1].max()), 4), "wall face at y 0.2", flush=True)


def _largest_change(s, c, frames):
    """The largest coordinate change of `c`'s evaluated mesh (world space) against `frames` ({frame: positions})."""
    d = 0.0
    for f, P in frames.items():
        s.frame_set(f)
        d = max(d, float(np.abs(A.world_mesh(c)[0] - P).max()))
    return d


def _into_new_file(path, link, frame_end):
    """A new file whose scene (`frame_end` frames) gets the saved file's Cloth, Box and Floor, linked or appended;
    returns the scene and the cloth."""
    A.reset()
    s = bpy.context.scene
    s.frame_end = frame_end
    with bpy.data.libraries.load(path, link=link) as (src, dst):
        dst.objects = [n for n in src.objects if n in ("Cloth", "Box", "Floor")]
    for o in dst.objects:
        s.collection.objects.link(o)
    return s, bpy.data.objects["Cloth"]


# ---------------------------------------------------------------- the user's data and actions (ours only)
def _snapshot(o):
    me = o.data
    co = np.array([v.co[:] for v in me.vertices])
    keys = {k.name: np.array([p.co[:] for p in k.data]) for k in me.shape_keys.key_blocks} if me.shape_keys else {}
    groups = {
        g.name: [(v.index, g.weight(v.index)) for v in me.vertices if g.index in [x.group for x in v.groups]]
        for g in o.vertex_groups
    }
    return co, keys, groups


def auto_smooth():
    """Object > Shade Auto Smooth (Blender 4.1+: a "Smooth by Angle" Geometry Nodes modifier) on the cloth before Make
    Cloth, and on a box collider; a 1.2 m cloth dropped on the box. Make Cloth's messages, the stack's order, the
    smoothing kept, bake = preview."""
    s = R.scene()
    R.floor()
    b = A.box("Box", (0.6, 0.6, 0.5), (0, 0, 0.25))
    A.activate(b)
    print("box auto smooth", bpy.ops.object.shade_auto_smooth(), [m.name for m in b.modifiers], flush=True)
    R.collider(b)
    c = R.blender_grid(n=N, size=1.2)
    c.location = (0.03, 0.02, 0.6)
    A.activate(c)
    print("cloth auto smooth", bpy.ops.object.shade_auto_smooth(), flush=True)
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    print("make cloth", R.cloth(c, bend=0.05), [(m.name, m.type) for m in c.modifiers], flush=True)
    live = {}

    def each(f):
        if f % 8 == 0:
            live[f] = A.world_mesh(c)[0].copy()

    A.play(s, 1, 32, each)
    P, T, E = A.world_mesh(c)
    ins, dep, cr, dip = A.against_colliders(P, E, [b])
    ev = c.evaluated_get(bpy.context.evaluated_depsgraph_get())
    sharp = ev.data.attributes.get("sharp_edge")
    print(
        "live f32 in/thr",
        ins,
        cr,
        "stack",
        [m.name for m in c.modifiers],
        "sharp_edge attr",
        sharp is not None,
        flush=True,
    )
    s.frame_set(1)
    A.activate(c)
    print("bake", bpy.ops.verlet_cloth.bake(), flush=True)
    d = _largest_change(s, c, live)
    print("RESULT auto_smooth bake-preview max", d, "stack", [m.name for m in c.modifiers], flush=True)


def _grid_over_box(height):
    """A floor, a 0.5 x 0.5 x 0.4 m box collider on it, and a 1 m cloth grid (not yet a cloth) `height` over the floor,
    in the current scene: returns the box and the grid."""
    R.floor()
    b = A.box("Box", (0.5, 0.5, 0.4), (0, 0, 0.2))
    R.collider(b)
    c = R.blender_grid(n=N, size=1.0)
    c.location = (0, 0, height)
    return b, c


def _turned_scaled_cloth_over_box():
    """A new 32-frame scene: a floor, a box collider, and over it a cloth grid turned, moved and scaled (1.5, 0.8, 1.2)."""
    s = R.scene()
    s.frame_end = 32
    R.floor()
    box = A.box("Box", (0.5, 0.5, 0.4), (0.2, 0.1, 0.2))
    R.collider(box)
    c = R.blender_grid(n=N, size=1.0)
    c.location = (0.2, 0.1, 0.55)
    c.rotation_euler = (0.1, -0.05, 0.6)
    c.scale = (1.5, 0.8, 1.2)
    return s, box, c


def apply_after_bake():
    """A cloth object scaled (1.5, 0.8, 1.2), turned, moved, with a user shape key; baked (32 frames). Then Object >
    Apply > Rotation & Scale, then Set Origin > Origin to Geometry: the baked motion in world space unchanged?
    The same two actions mid-preview on an unbaked copy (README: the cloth stays where it is)."""
    s, _, c = _turned_scaled_cloth_over_box()
    c.shape_key_add(name="Basis")
    k = c.shape_key_add(name="Lift")
    for p in k.data:
        p.co.z += 0.02
    k.value = 0.5
    bpy.context.view_layer.update()
    R.cloth(c, bend=0.05)
    A.activate(c)
    print("bake", bpy.ops.verlet_cloth.bake(), flush=True)
    ref = {}
    for f in (1, 8, 16, 24, 32):
        s.frame_set(f)
        ref[f] = A.world_mesh(c)[0].copy()
    for op in ("apply", "origin"):
        s.frame_set(1)
        A.activate(c)
        if op == "apply":
            r = bpy.ops.object.transform_apply(location=False, rotation=True, scale=True)
        else:
            r = bpy.ops.object.origin_set(type="ORIGIN_GEOMETRY")
        d = 0.0
        for f in ref:
            s.frame_set(f)
            d = max(d, float(np.abs(A.world_mesh(c)[0] - ref[f]).max()))
        print("RESULT baked", op, r, "max world change", d, "scale", tuple(round(x, 3) for x in c.scale), flush=True)
    # mid-preview on a fresh copy of the scene
    s2, b, c = _turned_scaled_cloth_over_box()
    bpy.context.view_layer.update()
    R.cloth(c, bend=0.05)
    for f in range(1, 13):
        s2.frame_set(f)
    before = A.world_mesh(c)[0].copy()
    A.activate(c)
    print("mid apply", bpy.ops.object.transform_apply(location=False, rotation=True, scale=True), flush=True)
    bpy.context.view_layer.update()
    after = A.world_mesh(c)[0]
    print("RESULT mid-preview apply: jump at the same frame", float(np.abs(after - before).max()), flush=True)
    s2.frame_set(13)
    P13 = A.world_mesh(c)[0]
    print("step to 13 max move", float(np.linalg.norm(P13 - before, axis=1).max()), flush=True)
    print("mid origin", bpy.ops.object.origin_set(type="ORIGIN_GEOMETRY"), flush=True)
    bpy.context.view_layer.update()
    print("RESULT mid-preview origin: jump", float(np.abs(A.world_mesh(c)[0] - P13).max()), flush=True)
    rest = A.rest_world(c)
    P = R.go(s2, c, [b], "after_apply", A.world_mesh(c)[0].copy(), every=4, frames=32)


def join_separate():
    """Ctrl+J a small plain grid into a cloth mid-preview, then play; Separate by Loose Parts of a cloth made of two
    islands, then play both; Ctrl+J of two baked cloths, then Bake. Every report and whether positions stay finite."""
    s = R.scene()
    b, c = _grid_over_box(0.5)
    R.cloth(c, bend=0.05)
    for f in range(1, 9):
        s.frame_set(f)
    g = A.grid("Patch", n=6, size=0.3, z=0.0)
    g.location = (0.8, 0, 0.6)
    A.activate(c, g)
    print("join mid-preview", bpy.ops.object.join(), len(c.data.vertices), flush=True)
    for f in range(9, 25):
        s.frame_set(f)
    P, T, E = A.world_mesh(c)
    ins, dep, cr, dip = A.against_colliders(P, E, [b])
    print(
        "RESULT joined: finite",
        bool(np.isfinite(P).all()),
        "zmin",
        round(float(P[:, 2].min()), 3),
        "patch z",
        round(float(P[-36:, 2].mean()), 3),
        "in/thr",
        ins,
        cr,
        flush=True,
    )
    # separate
    s.frame_set(1)
    A.activate(c)
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    r = bpy.ops.mesh.separate(type="LOOSE")
    bpy.ops.object.mode_set(mode="OBJECT")
    parts = [o for o in s.objects if o.type == "MESH" and o.name.startswith("Cloth")]
    print(
        "separate",
        r,
        [
            (
                o.name,
                len(o.data.vertices),
                o.verlet_cloth.enabled if hasattr(o.verlet_cloth, "enabled") else None,
                [m.name for m in o.modifiers],
            )
            for o in parts
        ],
        flush=True,
    )
    for f in range(1, 25):
        s.frame_set(f)
    for o in parts:
        P = A.world_mesh(o)[0]
        print(
            "RESULT separated",
            o.name,
            "finite",
            bool(np.isfinite(P).all()),
            "zmean",
            round(float(P[:, 2].mean()), 3),
            flush=True,
        )
    # bake both, join
    s.frame_set(1)
    for o in parts:
        A.activate(o)
        try:
            print("bake", o.name, bpy.ops.verlet_cloth.bake(), flush=True)
        except RuntimeError as e:  # the separated piece: its mesh is not the one Make Cloth saw
            print("bake", o.name, "refused:", str(e).strip()[:200], flush=True)
            print("make cloth", o.name, bpy.ops.verlet_cloth.convert(), flush=True)
            print("bake", o.name, bpy.ops.verlet_cloth.bake(), flush=True)
    A.activate(parts[0], *parts[1:])
    try:
        print("join baked", bpy.ops.object.join(), flush=True)
    except RuntimeError as e:
        print("join baked refused", e, flush=True)
    o = parts[0]
    print(
        "after join: keys",
        len(o.data.shape_keys.key_blocks) if o.data.shape_keys else 0,
        "baked",
        o.verlet_cloth.baked,
        flush=True,
    )
    for op in ("bake", "free_bake", "reset"):
        A.activate(o)
        try:
            print(op, getattr(bpy.ops.verlet_cloth, op)(), flush=True)
        except (RuntimeError, AttributeError) as e:
            print(op, "->", str(e).strip()[:300], flush=True)
    for f in range(1, 17):
        s.frame_set(f)
    P = A.world_mesh(o)[0]
    print(
        "RESULT joined baked then re-baked: finite",
        bool(np.isfinite(P).all()),
        "zmean",
        round(float(P[:, 2].mean()), 3),
        flush=True,
    )


def delta_transforms():
    """A curtain whose object has Delta Transforms (delta location, a delta rotation of 90 degrees about X, delta
    scale (-1, 1, 1.3)) and a keyed delta location moving it 0.5 m over 24 frames, top row pinned; a box collider with a
    keyed delta location swinging through it. Pins on their moving targets, nothing through the box, bake = preview."""
    s = R.scene()
    s.frame_end = 40
    c = R.blender_grid(n=N, size=1.0)
    c.delta_rotation_euler = (math.radians(90), 0, 0)
    c.delta_scale = (-1, 1, 1.3)
    c.delta_location = (0, 0, 1.0)
    c.keyframe_insert("delta_location", frame=1)
    c.delta_location = (0.5, 0, 1.0)
    c.keyframe_insert("delta_location", frame=24)
    g = c.vertex_groups.new(name="Pins")
    g.add([v.index for v in c.data.vertices if v.co.y > 0.49], 1.0, "REPLACE")
    b = A.box("Box", (0.25, 0.25, 0.25), (0, 0, 0))
    b.delta_location = (-0.6, -0.5, 0.8)
    b.keyframe_insert("delta_location", frame=10)
    b.delta_location = (0.6, 0.5, 0.8)
    b.keyframe_insert("delta_location", frame=22)
    s.frame_set(1)
    R.collider(b)
    pins = [v.index for v in c.data.vertices if v.co.y > 0.49]
    P0 = np.array([v.co[:] for v in c.data.vertices])
    R.cloth(c, bend=0.05, pin="Pins")
    live, pin_err, worst = {}, 0.0, [0, 0]
    for f in range(1, 41):
        s.frame_set(f)
        P, T, E = A.world_mesh(c)
        m = np.array(c.matrix_world)
        target = P0[pins] @ m[:3, :3].T + m[:3, 3]
        pin_err = max(pin_err, float(np.abs(P[pins] - target).max()))
        ins, dep, cr, dip = A.against_colliders(P, E, [b])
        worst = [max(worst[0], ins), max(worst[1], cr)]
        if f % 8 == 0:
            live[f] = P.copy()
    s.frame_set(1)
    A.activate(c)
    print("bake", bpy.ops.verlet_cloth.bake(), flush=True)
    d = _largest_change(s, c, live)
    print("RESULT delta pins", pin_err, "in/thr", worst, "bake-preview", d, flush=True)


def blender_cloth_under():
    """A tablecloth simulated by Blender's own Cloth (its defaults, a Collision modifier after it) over a 0.5 m box,
    made a Mesh collider for our 0.6 m napkin dropped on it 10 frames later from 0.25 m higher; every 2nd frame."""
    s = R.scene()
    R.floor()
    b = A.box("Box", (0.5, 0.5, 0.5), (0, 0, 0.25))
    R.collider(b)
    if not BL:
        b.modifiers.new("Collision", "COLLISION")  # for Blender's tablecloth (ours reads b as above)
    low = R.blender_grid("Table", n=N, size=1.2, kind="quad")
    low.location = (0, 0, 0.58)
    m = low.modifiers.new("Cloth", "CLOTH")
    m.point_cache.frame_end = FRAMES
    low.modifiers.new("Collision", "COLLISION")
    if not BL:
        A.make_collider(low)
        print("make collider on Blender's cloth", low.verlet_cloth_collider.kind, flush=True)
        low.verlet_cloth_collider.kind = "MESH"
    up = R.blender_grid("Napkin", n=N, size=0.6)
    up.location = (0.05, 0.03, 0.85)
    up.rotation_euler = (0, 0, 0.5)
    bpy.context.view_layer.update()
    rest = A.rest_world(up)
    R.cloth(up, bend=0.05)
    R.go(s, up, [low, b], "blender_cloth_under", rest)


def append_baked():
    """A baked cloth (a user key, a pin group) saved; a new file; File > Append of the cloth object: plays the bake
    as in its file; Free Bake gives back the user's mesh and key; Bake again = the first bake. Then Scene > New > Full
    Copy of a baked scene: Free Bake in the copy leaves the original's bake."""
    s = R.scene()
    s.frame_end = 24
    b, c = _grid_over_box(0.55)
    c.shape_key_add(name="Basis")
    k = c.shape_key_add(name="Lift")
    for p in k.data:
        p.co.z += 0.03
    k.value = 0.4
    g = c.vertex_groups.new(name="Pins")
    g.add([0], 1.0, "REPLACE")
    bpy.context.view_layer.update()
    user = np.array([v.co[:] for v in c.data.vertices])
    R.cloth(c, bend=0.05, pin="Pins")
    A.activate(c)
    print("bake", bpy.ops.verlet_cloth.bake(), flush=True)
    ref = {}
    for f in (1, 8, 16, 24):
        s.frame_set(f)
        ref[f] = A.world_mesh(c)[0].copy()
    path = os.path.join(A._scratch, "baked.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    # Full Copy of the scene
    s.frame_set(1)
    bpy.ops.scene.new(type="FULL_COPY")
    s2 = bpy.context.scene
    c2 = next(o for o in s2.objects if o.name.startswith("Cloth"))
    print(
        "full copy:",
        s2.name,
        c2.name,
        "shares mesh",
        c2.data == c.data,
        "shares action",
        bool(
            c2.data.shape_keys
            and c.data.shape_keys
            and c2.data.shape_keys.animation_data
            and c.data.shape_keys.animation_data
            and c2.data.shape_keys.animation_data.action == c.data.shape_keys.animation_data.action
        ),
        flush=True,
    )
    A.activate(c2)
    try:
        print("free bake in the copy", bpy.ops.verlet_cloth.free_bake(), flush=True)
    except RuntimeError as e:
        print("free bake in the copy refused:", str(e).strip()[:300], flush=True)
    bpy.context.window.scene = s
    d = _largest_change(s, c, ref)
    print(
        "RESULT full copy: the original's bake after Free Bake in the copy, max change",
        d,
        "baked",
        c.verlet_cloth.baked,
        flush=True,
    )
    # append into a new file
    s, c = _into_new_file(path, False, 24)
    print("appended: baked", c.verlet_cloth.baked, "keys", len(c.data.shape_keys.key_blocks), flush=True)
    d = _largest_change(s, c, ref)
    print("RESULT appended plays the bake, max diff", d, flush=True)
    s.frame_set(1)
    A.activate(c)
    print("free bake", bpy.ops.verlet_cloth.free_bake(), flush=True)
    keys = [kb.name for kb in c.data.shape_keys.key_blocks] if c.data.shape_keys else []
    got = np.array([v.co[:] for v in c.data.vertices])
    print("RESULT appended Free Bake: keys", keys, "user mesh max diff", float(np.abs(got - user).max()), flush=True)
    print("bake again", bpy.ops.verlet_cloth.bake(), flush=True)
    d = _largest_change(s, c, ref)
    print("RESULT appended re-bake = first bake, max diff", d, flush=True)


def driven_wind():
    """A curtain pinned along its top whose Wind Speed (`verlet_cloth.wind_strength`) is driven (a driver: an Empty's
    Z location x 10, a simple expression) and whose wind direction +Y; the Empty keyed from z 0 to 1 over frames 10-14
    (0 -> 10 m/s); a box collider whose X location is driven by the same Empty (x = z - 0.5). The preview, the Bake
    operator and `tools/bake.py` of the saved file at every 4th frame; scene.frame_step 2 (the playback step) too."""
    import subprocess, time as _t

    s = R.scene()
    s.frame_end = 32
    s.frame_step = 2
    e = bpy.data.objects.new("Knob", None)
    A.link(e)
    e.location = (0, 0, 0)
    e.keyframe_insert("location", frame=10)
    e.location = (0, 0, 1)
    e.keyframe_insert("location", frame=14)
    b = A.box("Box", (0.2, 0.2, 0.2), (0, 0.3, 0.5))
    fc = b.driver_add("location", 0)
    v = fc.driver.variables.new()
    v.name, v.type = "z", "TRANSFORMS"
    v.targets[0].id = e
    v.targets[0].transform_type = "LOC_Z"
    fc.driver.expression = "z - 0.5"
    R.collider(b)
    c = R.blender_grid(n=N, size=1.0)
    c.rotation_euler = (math.radians(90), 0, 0)
    c.location = (0, 0, 1.0)
    g = c.vertex_groups.new(name="Pins")
    g.add([v.index for v in c.data.vertices if v.co.y > 0.49], 1.0, "REPLACE")
    bpy.context.view_layer.update()
    R.cloth(c, bend=0.05, pin="Pins")
    c.verlet_cloth.wind_direction = (0, 1, 0)
    fc = c.driver_add("verlet_cloth.wind_strength")
    v = fc.driver.variables.new()
    v.name, v.type = "z", "TRANSFORMS"
    v.targets[0].id = e
    v.targets[0].transform_type = "LOC_Z"
    fc.driver.expression = "z * 10"
    path = os.path.join(A._scratch, "driven.blend")
    out = os.path.join(A._scratch, "driven_out.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    live, ymax, worst = {}, {}, [0, 0, 0.0]
    for f in range(1, 33):
        s.frame_set(f)
        P, T, E = A.world_mesh(c)
        ymax[f] = round(float(P[:, 1].max()), 3)
        ins, dep, cr, dip = A.against_colliders(P, E, [b])
        worst = [max(worst[0], ins), max(worst[1], cr), max(worst[2], dip)]
        if f % 4 == 0:
            live[f] = P.copy()
    print("wind", c.verlet_cloth.wind_strength, "curtain y max by frame", ymax, flush=True)
    print("RESULT driven: in / thr / deepest", worst, "box x at 32", round(b.matrix_world.translation.x, 3), flush=True)
    s.frame_set(1)
    A.activate(c)
    print("bake", bpy.ops.verlet_cloth.bake(), flush=True)
    d = _largest_change(s, c, live)
    print("RESULT driven: bake - preview", d, flush=True)
    cmd = [sys.executable, str(A.ROOT / "tools" / "bake.py"), "bake", path, "--output", out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    print("bake.py rc", r.returncode, r.stdout[-200:], r.stderr[-300:], flush=True)
    bpy.ops.wm.open_mainfile(filepath=out)
    s = bpy.context.scene
    c = bpy.data.objects["Cloth"]
    d = _largest_change(s, c, live)
    print("RESULT driven: tools/bake.py - preview", d, "baked", c.verlet_cloth.baked, flush=True)


def two_scenes():
    """Object > Link/Transfer Data > Link Objects to Scene: a cloth and its box in scene A (24 fps, a floor) and scene
    B (60 fps, no floor, the box only). Play A 1-12, switch the window to B and play B 1-12, back to A 13-24; then Bake
    in A. Each step's report, the cloth finite, where it is."""
    sa = R.scene()
    sa.frame_end = 24
    b, c = _grid_over_box(0.55)
    R.cloth(c, bend=0.05)
    sb = bpy.data.scenes.new("B")
    sb.render.fps = 60
    sb.frame_start, sb.frame_end = 1, 24
    sb.collection.objects.link(c)
    sb.collection.objects.link(b)
    win = bpy.context.window

    def show(tag, scene):
        P = A.world_mesh(c)[0]
        ins, dep, cr, dip = A.against_colliders(P, A.world_mesh(c)[2], [b])
        print(
            tag,
            scene.name,
            scene.frame_current,
            "finite",
            bool(np.isfinite(P).all()),
            "zmin",
            round(float(P[:, 2].min()), 3),
            "zmean",
            round(float(P[:, 2].mean()), 3),
            "in/thr",
            ins,
            cr,
            flush=True,
        )

    for f in range(1, 13):
        sa.frame_set(f)
    show("A", sa)
    PA12 = A.world_mesh(c)[0].copy()
    win.scene = sb
    for f in range(1, 13):
        sb.frame_set(f)
    show("B", sb)
    win.scene = sa
    P12 = A.world_mesh(c)[0].copy()
    sa.frame_set(13)
    print("shown on return to A 12 vs A's own 12", round(float(np.abs(P12 - PA12).max()), 4), flush=True)
    print(
        "A 12 (after B) -> 13: largest move",
        round(float(np.linalg.norm(A.world_mesh(c)[0] - P12, axis=1).max()), 4),
        flush=True,
    )
    for f in range(14, 25):
        sa.frame_set(f)
    show("A again", sa)
    sa.frame_set(1)
    A.activate(c)
    try:
        print("bake in A", bpy.ops.verlet_cloth.bake(), flush=True)
    except RuntimeError as e:
        print("bake in A refused:", str(e).strip()[:300], flush=True)
    sa.frame_set(24)
    show("A baked", sa)
    win.scene = sb
    sb.frame_set(24)
    show("B with the bake", sb)


def link_baked():
    """File > Link (not Append) of a baked cloth (and its box and floor) from a saved file into a new one: it plays
    the bake; each operator on it answers with a sentence (no traceback)."""
    s = R.scene()
    s.frame_end = 16
    b, c = _grid_over_box(0.55)
    R.cloth(c, bend=0.05)
    A.activate(c)
    print("bake", bpy.ops.verlet_cloth.bake(), flush=True)
    ref = {}
    for f in (1, 8, 16):
        s.frame_set(f)
        ref[f] = A.world_mesh(c)[0].copy()
    path = os.path.join(A._scratch, "tolink.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    s, c = _into_new_file(path, True, 16)
    d = _largest_change(s, c, ref)
    print("RESULT linked plays the bake, max diff", d, "library", c.library is not None, flush=True)
    for op in ("bake", "free_bake", "reset", "convert", "assign_pins", "make_collider"):
        A.activate(c)
        try:
            print(op, getattr(bpy.ops.verlet_cloth, op)(), flush=True)
        except RuntimeError as e:
            print(op, "->", str(e).strip()[:250], flush=True)
    for f in range(1, 17):
        s.frame_set(f)
    print(
        "RESULT linked after the operators: diff at 16", float(np.abs(A.world_mesh(c)[0] - ref[16]).max()), flush=True
    )


if __name__ == "__main__":
    globals()[sys.argv[1]]()
