# ruff: noqa
"""Acceptance-style probes in real Blender, round 22 (probe26): scenes not probed before, beside Blender's Cloth.

On top of bench/acceptance_probes.py (checks: inside by 2-of-3 ray parity against the collider's evaluated triangles,
cloth edges through them and how deep, stretch), bench/acceptance_probes_r20.py (BL=1: Blender's Cloth with Collision
modifiers on the same scene; the grids; `drop`, `go`) and bench/acceptance_probes_r21.py (the pinned curtain).
Usage (from a checkout):
  VC_ROOT=$PWD BL=0|1 KIND=tri|quad|jit N=24 FRAMES=48 EVERY=2 .venv/bin/python bench/acceptance_probes_r22.py <case>
cases (colliders, beside Blender's Cloth with BL=1):
  wire_cage   a cube with a Wireframe modifier (struts 3 cm): an open cage; a cloth dropped on it
  ocean       a 2 m grid with an Ocean modifier (Displace mode, its Time keyed): moving waves; a cloth dropped on them
  terrain     a grid with Subdivision 2 + Displace (Clouds texture): rough ground; a cloth dropped on it (SIZE=1.6)
  tiny        a 10 cm handkerchief onto a 3 cm cube on the floor (a doll's-house scale)
  tear_blade  (ours only) a curtain pinned along both sides, a 4 mm blade rising through its middle, Tear Factor TEAR
  nla_2997    a box moved through a pinned curtain by an NLA strip (the action pushed down, strip scaled ×2), the
              scene at 29.97 fps (30 / 1.001); then Bake (= preview?) and tools/bake.py of the saved file (= preview?)
"""

import math, os, subprocess, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import acceptance_probes_r20 as R  # noqa: E402  (starts Blender, enables the add-on)
import acceptance_probes as A  # noqa: E402
import acceptance_probes_r21 as Q  # noqa: E402
import bpy  # noqa: E402
import numpy as np  # noqa: E402

BL, N, FRAMES, EVERY = R.BL, R.N, R.FRAMES, R.EVERY


def wire_cage():
    """Add > Cube (0.6 m) standing on the floor with a Wireframe modifier (thickness 3 cm, even, boundary off): twelve
    square struts round an open box; a 1 m cloth dropped 8 cm above it, off-centre and turned: it sags into the open
    top between the struts."""
    R.scene()
    R.floor()
    bpy.ops.mesh.primitive_cube_add(size=0.6, location=(0, 0, 0.3))
    cg = bpy.context.active_object
    cg.name = "Cage"
    w = cg.modifiers.new("Wire", "WIREFRAME")
    w.thickness = float(os.environ.get("WIRE", "0.03"))
    R.collider(cg)
    R.drop([cg], "wire_cage", size=float(os.environ.get("SIZE", "1.0")), loc=(0.04, -0.03), rot=0.25)


def ocean():
    """A 2 m grid (40 x 40 quads) with an Ocean modifier in Displace mode (spatial size 4 m, wave scale 0.6, choppiness
    1, resolution 7) whose Time is keyed 1 -> 3 over the frames (linear): a moving wavy surface; a 1 m cloth dropped 8 cm
    above its highest point. The collider deforms every frame (no topology change)."""
    s = R.scene()
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=40, y_subdivisions=40, size=2.0, location=(0, 0, 0))
    g = bpy.context.active_object
    g.name = "Sea"
    m = g.modifiers.new("Ocean", "OCEAN")
    m.geometry_mode = "DISPLACE"
    m.spatial_size = 4
    m.wave_scale = float(os.environ.get("WAVE", "0.6"))
    m.choppiness = 1.0
    m.resolution = 7
    m.time = 1.0
    m.keyframe_insert("time", frame=1)
    m.time = 3.0
    m.keyframe_insert("time", frame=FRAMES)
    ad = g.animation_data
    try:
        fcs = ad.action.fcurves
    except AttributeError:
        from bpy_extras.anim_utils import action_get_channelbag_for_slot

        fcs = action_get_channelbag_for_slot(ad.action, ad.action_slot).fcurves
    for fc in fcs:
        for k in fc.keyframe_points:
            k.interpolation = "LINEAR"
    s.frame_set(1)
    V, _ = A.world_collider(g)
    print("sea z range", round(float(V[:, 2].min()), 3), round(float(V[:, 2].max()), 3), flush=True)
    R.collider(g)
    R.drop([g], "ocean", size=1.0, loc=(0.1, 0.05), rot=0.3)


def terrain():
    """A 2 m grid (20 x 20 quads) with Subdivision 2 and a Displace by a Clouds texture (noise size 0.35, strength
    STRENGTH=0.3, mid level 0.5): bumpy ground, no floor; a SIZE=1.6 m cloth dropped 8 cm above its highest point."""
    R.scene()
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=20, y_subdivisions=20, size=2.0, location=(0, 0, 0))
    g = bpy.context.active_object
    g.name = "Ground"
    sub = g.modifiers.new("Sub", "SUBSURF")
    sub.levels = sub.render_levels = 2
    tex = bpy.data.textures.new("Clouds", "CLOUDS")
    tex.noise_scale = 0.35
    d = g.modifiers.new("Displace", "DISPLACE")
    d.texture = tex
    d.strength = float(os.environ.get("STRENGTH", "0.3"))
    bpy.context.view_layer.update()
    V, T = A.world_collider(g)
    print("ground z range", round(float(V[:, 2].min()), 3), round(float(V[:, 2].max()), 3), "tris", len(T), flush=True)
    R.collider(g)
    R.drop([g], "terrain", size=float(os.environ.get("SIZE", "1.6")), loc=(0.05, -0.04), rot=0.2)


def tiny():
    """A doll's-house scale: a 10 cm handkerchief (N x N) dropped 8 mm above a 3 cm cube standing on the floor (a
    Plane collider), everything at the add-on's and Blender's defaults otherwise (THICK=m: ours with that Thickness)."""
    R.scene()
    R.floor()
    b = A.box("Cube", (0.03, 0.03, 0.03), (0, 0, 0.015))
    R.collider(b)
    s = bpy.context.scene
    s.frame_set(1)
    c = R.blender_grid(n=N, size=0.1)
    c.location = (0.003, -0.002, 0.038)
    c.rotation_euler = (0, 0, 0.3)
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    kw = {"thickness": float(os.environ["THICK"])} if "THICK" in os.environ and not BL else {}
    R.cloth(c, bend=0.05, **kw)
    R.go(s, c, [b], "tiny", rest)


def tear_blade():
    """A 1.2 m square curtain lying flat at z 0.6, pinned along its two side columns (a vertex group), Tear Factor
    TEAR=1.3; a BLADE=4 mm thin blade (0.004 x 1.6 x 0.4 m box, parallel to the pinned sides) rises from under it through
    its middle (z 0.2 -> RISE=1.3 over frames 5-25): the cloth is lifted into a tent and stretched over the blade's edge,
    where it tears. ACROSS=1: the blade turned 90 degrees (along X), so it rises under the pinned columns too. Every
    frame."""
    s = R.scene()
    th = float(os.environ.get("BLADE", "0.004"))
    across = os.environ.get("ACROSS", "0") == "1"  # the blade along X: it crosses the pinned columns
    blade = A.box("Blade", (1.6, th, 0.4) if across else (th, 1.6, 0.4), (0, 0.02, 0.2) if across else (0.02, 0, 0.2))
    blade.keyframe_insert("location", frame=5)
    blade.location.z = float(os.environ.get("RISE", "1.3"))
    blade.keyframe_insert("location", frame=25)
    R.collider(blade)
    c = R.blender_grid(n=N, size=1.2)
    c.location = (0, 0, 0.6)
    side = [v.index for v in c.data.vertices if abs(v.co.x) > 0.59]
    c.vertex_groups.new(name="Pins").add(side, 1.0, "REPLACE")
    bpy.context.view_layer.update()
    rest = A.rest_world(c)
    n_faces = len(c.data.polygons)
    kw = {} if BL else {"tear_factor": float(os.environ.get("TEAR", "1.3"))}
    R.cloth(c, bend=0.05, pin="Pins", **kw)
    P = R.go(s, c, [blade], "tear_blade", rest, every=1)
    ev = c.evaluated_get(bpy.context.evaluated_depsgraph_get())
    print("faces", n_faces, "->", len(ev.data.polygons), "verts", len(c.data.vertices), "->", len(ev.data.vertices))
    return P


def _nla_box_through_curtain(s):
    """A 0.3 m box keyed y -0.8 -> +0.8 over frames 1-12, the action pushed down to an NLA strip scaled x2 (so it
    crosses over frames 1-23); returns the box."""
    b = A.box("Box", (0.3, 0.3, 0.3), (0.1, -0.8, 0.5))
    b.keyframe_insert("location", frame=1)
    b.location.y = 0.8
    b.keyframe_insert("location", frame=12)
    ad = b.animation_data
    act = ad.action
    tr = ad.nla_tracks.new()
    st = tr.strips.new("Move", 1, act)
    st.scale = 2.0
    ad.action = None
    return b


def nla_2997():
    """The scene at 29.97 fps (fps 30, fps_base 1.001); a 1.2 m curtain pinned along its top by a vertex group; a box
    moved by an NLA strip (not the active action) through it. Checked every frame; then Bake = preview; then the file
    saved unbaked and baked by tools/bake.py (a fresh process) = preview."""
    s = R.scene()
    s.render.fps, s.render.fps_base = 30, 1.001
    b = _nla_box_through_curtain(s)
    R.collider(b)
    c, rest = Q._pinned_curtain(1.2, (1, 1, 1), 0.8)
    path = os.path.join(A._scratch, "nla.blend")
    out = os.path.join(A._scratch, "nla_out.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    s.frame_set(1)
    ys = []
    for f in (1, 6, 12, 18, 24, 30):
        s.frame_set(f)
        ys.append(round(b.matrix_world.translation.y, 3))
    print("box y at 1/6/12/18/24/30", ys, flush=True)
    s.frame_set(1)
    R.go(s, c, [b], "nla_2997", rest, every=1)
    live = {}
    s.frame_set(1)
    for f in range(1, FRAMES + 1):
        s.frame_set(f)
        if f % 6 == 0:
            live[f] = A.world_mesh(c)[0].copy()
    if BL:
        return
    A.activate(c)
    print("bake", bpy.ops.verlet_cloth.bake(), flush=True)
    print("RESULT nla_2997 bake - preview", Q._largest_change(s, c, live), flush=True)
    cmd = [sys.executable, str(A.ROOT / "tools" / "bake.py"), "bake", path, "--output", out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    print("bake.py rc", r.returncode, r.stdout[-300:], r.stderr[-300:], flush=True)
    bpy.ops.wm.open_mainfile(filepath=out)
    s = bpy.context.scene
    c = bpy.data.objects["Cloth"]
    print("reopened fps", s.render.fps, s.render.fps_base, "baked", c.verlet_cloth.baked, flush=True)
    print("RESULT nla_2997 cli - preview", Q._largest_change(s, c, live), flush=True)


if __name__ == "__main__":
    globals()[sys.argv[1]]()
