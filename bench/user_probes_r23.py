"""Round 23 (probeuser23): the user's actions on cloths in real Blender, as a checker would try them.

Every operator of the add-on (`bpy.ops.verlet_cloth.*`) on odd context and odd meshes, bake / undo / redo /
save / reload / re-bake, a bake over user shape keys named like the bake's, frame changes during a bake,
`tools/bake.py` on bad paths and interrupted, and extreme settings. Each probe prints one line:

    <case> <probe>: <result> [<checks>]

where result is FINISHED, CANCELLED ("the ERROR sentence"), or TRACEBACK (a Python error reached the user: a bug),
and the checks say whether the user's data (vertices, shape keys, vertex groups, settings) stayed exactly as they
were and whether any evaluated position is not finite (NaN). Lines with "BUG" are what to look at.

Run (headless Blender 5.0.1 as a module, from the repository root):

    .venv/bin/python bench/user_probes_r23.py [case ...]

cases: context meshes bakeflow userkeys framechange extreme duringbake linked big cli (default: all but big and cli;
`ONLY=a,b` picks duringbake's actions).
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_blender import link, mesh_obj, start  # noqa: E402 - Blender's start, the scene helpers
from probe_blender import reset as _reset  # noqa: E402

ROOT, SCRATCH, VC = start("vc_probe23_")  # bl_ext.dev.verlet_cloth

import bpy  # noqa: E402

OPS = ("convert", "bake", "free_bake", "reset", "assign_pins", "make_collider", "drag")
BUGS: list[str] = []


# ---------------------------------------------------------------- set-up helpers
def reset(frames=(1, 12)):
    return _reset(frames, fps=None)


def grid(name="Cloth", n=8, size=1.0, z=1.0):
    xs = np.linspace(-size / 2, size / 2, n)
    verts = [(x, y, z) for y in xs for x in xs]
    faces = [
        (j * n + i, j * n + i + 1, (j + 1) * n + i + 1, (j + 1) * n + i) for j in range(n - 1) for i in range(n - 1)
    ]
    return mesh_obj(name, verts, faces)


def select(*objs, active=None):
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    for o in objs:
        o.select_set(True)
    bpy.context.view_layer.objects.active = active


def op(name, **kw):
    """(result, message) of `bpy.ops.verlet_cloth.<name>`: FINISHED / CANCELLED (its ERROR) / TRACEBACK."""
    try:
        res = getattr(bpy.ops.verlet_cloth, name)(**kw)
        return (sorted(res)[0] if res else "?"), ""
    except RuntimeError as e:
        text = str(e)
        if "Traceback" in text or "Python:" in text:
            return "TRACEBACK", text.strip().splitlines()[-1]
        return "CANCELLED", text.replace("Error: ", "").strip()
    except Exception as e:  # noqa: BLE001 - a probe: anything that reaches here is reported
        return "TRACEBACK", f"{type(e).__name__}: {e}"


def snapshot(obj):
    """The user's data on `obj`: vertices, shape keys, vertex group weights, cloth settings (bake state aside)."""
    if obj is None or obj.type != "MESH":
        return None
    me = obj.data
    co = np.empty(len(me.vertices) * 3)
    me.vertices.foreach_get("co", co)
    keys = {}
    if me.shape_keys:
        for b in me.shape_keys.key_blocks:
            if b.name in {k.name for k in obj.verlet_cloth.bake_keys}:
                continue  # the bake's own keys
            if obj.verlet_cloth.bake_created_basis and b == me.shape_keys.reference_key:
                continue  # the Basis the bake added (Free Bake removes it)
            d = np.empty(len(b.data) * 3)
            b.data.foreach_get("co", d)
            keys[b.name] = (d.tobytes(), round(b.value, 9), b.mute, b.relative_key.name, b.vertex_group)
    groups = {
        g.name: tuple(round(g.weight(v.index), 9) if _in(g, v) else None for v in me.vertices)
        for g in obj.vertex_groups
    }
    settings = {
        p.identifier: _plain(getattr(obj.verlet_cloth, p.identifier))
        for p in obj.verlet_cloth.bl_rna.properties
        if p.identifier
        not in {
            "rna_type",
            "baked",
            "bake_start",
            "bake_end",
            "bake_keys",
            "bake_created_basis",
            "bake_created_action",
            "bake_created_animation_data",
            "cloth_id",
            "topology",
            "tear_modifier",
            "enabled",
        }
        and not p.identifier.startswith("pin_group_")
    }
    return co.tobytes(), keys, groups, settings


def _in(g, v):
    return any(e.group == g.index for e in v.groups)


def _plain(value):
    try:
        return tuple(value)
    except TypeError:
        return value


def evaluated(obj):
    dg = bpy.context.evaluated_depsgraph_get()
    me = obj.evaluated_get(dg).to_mesh()
    co = np.empty(len(me.vertices) * 3)
    me.vertices.foreach_get("co", co)
    obj.evaluated_get(dg).to_mesh_clear()
    return co.reshape(-1, 3)


def finite(obj):
    return bool(np.isfinite(evaluated(obj)).all())


def line(case, probe, result, message="", checks=""):
    text = f"{case} {probe}: {result}" + (f' ("{message}")' if message else "") + (f" [{checks}]" if checks else "")
    bug = result == "TRACEBACK" or "BUG" in checks
    if bug:
        BUGS.append(text)
    print(("!! " if bug else "   ") + text, flush=True)


def run_all_ops(case, objs_active, *, expect_changes=("convert", "make_collider", "bake", "free_bake", "reset")):
    """Every operator on the current selection; the user's data checked after those that refused."""
    for name in OPS:
        objs, active = objs_active()
        before = {o.name: snapshot(o) for o in objs}
        res, msg = op(name)
        changed = [
            n
            for n, s in before.items()
            if s is not None and n in bpy.data.objects and snapshot(bpy.data.objects[n]) != s
        ]
        checks = []
        if res == "CANCELLED" and changed:
            checks.append(f"BUG refused but changed {changed}")
        if res == "FINISHED" and changed and name not in ("assign_pins",):
            checks.append(f"changed {changed}")
        for o in objs:
            if o.name in bpy.data.objects and o.type == "MESH" and len(o.data.vertices) and not finite(o):
                checks.append(f"BUG NaN in {o.name}")
        line(case, name, res, msg, "; ".join(checks))


# ---------------------------------------------------------------- cases
def case_context():
    """Every operator with odd context: nothing active, non-mesh objects, Edit Mode, several selected."""
    scenes = {}

    def nothing():
        reset()
        grid("Cloth")
        select()
        return [], None

    scenes["no active, nothing selected"] = nothing

    def selected_not_active():
        reset()
        c = grid("Cloth")
        select(c, active=None)
        return [c], None

    scenes["a mesh selected, none active"] = selected_not_active

    def cloth_selected_not_active():
        reset()
        c = grid("Cloth")
        select(c, active=c)
        bpy.ops.verlet_cloth.convert()
        select(c, active=None)
        return [c], None

    scenes["a cloth selected, none active"] = cloth_selected_not_active

    for kind in ("CURVE", "EMPTY", "FONT", "CAMERA", "LIGHT", "META", "LATTICE", "GPENCIL"):

        def other(kind=kind):
            reset()
            if kind == "CURVE":
                bpy.ops.curve.primitive_bezier_circle_add()
            elif kind == "EMPTY":
                bpy.ops.object.empty_add()
            elif kind == "FONT":
                bpy.ops.object.text_add()
            elif kind == "CAMERA":
                bpy.ops.object.camera_add()
            elif kind == "LIGHT":
                bpy.ops.object.light_add()
            elif kind == "META":
                bpy.ops.object.metaball_add()
            elif kind == "LATTICE":
                bpy.ops.object.add(type="LATTICE")
            else:
                bpy.ops.object.grease_pencil_add(type="STROKE") if hasattr(
                    bpy.ops.object, "grease_pencil_add"
                ) else bpy.ops.object.empty_add()
            o = bpy.context.active_object
            return [o], o

        scenes[f"active {kind}"] = other

    def edit_mode():
        reset()
        c = grid("Cloth")
        select(c, active=c)
        bpy.ops.verlet_cloth.convert()
        bpy.ops.object.mode_set(mode="EDIT")
        return [c], c

    scenes["cloth in Edit Mode"] = edit_mode

    def edit_mode_baked():
        reset()
        c = grid("Cloth")
        select(c, active=c)
        bpy.ops.verlet_cloth.convert()
        bpy.ops.verlet_cloth.bake()
        bpy.ops.object.mode_set(mode="EDIT")
        return [c], c

    scenes["baked cloth in Edit Mode"] = edit_mode_baked

    for mode in ("SCULPT", "WEIGHT_PAINT", "VERTEX_PAINT", "TEXTURE_PAINT"):

        def paint(mode=mode):
            reset()
            c = grid("Cloth")
            select(c, active=c)
            bpy.ops.verlet_cloth.convert()
            c.shape_key_add(name="Basis")
            k = c.shape_key_add(name="Lift")
            k.value = 0.5
            k.data[0].co.z += 0.3
            bpy.ops.object.mode_set(mode=mode)
            return [c], c

        scenes[f"cloth with a user key in {mode}"] = paint

    def several():
        reset()
        a, b, m = grid("A"), grid("B", z=2.0), grid("Plain", z=3.0)
        for o in (a, b):
            select(o, active=o)
            bpy.ops.verlet_cloth.convert()
        select(a, b, m, active=m)
        return [a, b, m], m

    scenes["two cloths and a plain mesh active"] = several

    def several_one_bad():
        reset()
        a, b = grid("A"), grid("B", z=2.0)
        for o in (a, b):
            select(o, active=o)
            bpy.ops.verlet_cloth.convert()
        b.verlet_cloth.pin_group = "Nope"
        select(a, b, active=a)
        return [a, b], a

    scenes["two cloths, one with a missing pin group"] = several_one_bad

    def hidden():
        reset()
        c = grid("Cloth")
        select(c, active=c)
        bpy.ops.verlet_cloth.convert()
        c.hide_set(True)
        return [c], c

    scenes["active cloth hidden (H)"] = hidden

    def disabled():
        reset()
        c = grid("Cloth")
        select(c, active=c)
        bpy.ops.verlet_cloth.convert()
        c.hide_viewport = True
        return [c], c

    scenes["active cloth disabled in viewports"] = disabled

    def excluded():
        reset()
        col = bpy.data.collections.new("Hidden")
        bpy.context.scene.collection.children.link(col)
        c = grid("Cloth")
        bpy.context.scene.collection.objects.unlink(c)
        col.objects.link(c)
        select(c, active=c)
        bpy.ops.verlet_cloth.convert()
        bpy.context.view_layer.layer_collection.children["Hidden"].exclude = True
        return [c], bpy.context.view_layer.objects.active

    scenes["cloth's collection excluded from the view layer"] = excluded

    for label, setup in scenes.items():
        state = {}

        def objs_active(setup=setup, state=state):
            return setup()

        try:
            run_all_ops(label, objs_active)
        except Exception as e:  # noqa: BLE001
            line(label, "setup", "TRACEBACK", f"{type(e).__name__}: {e}")


def odd_meshes():
    """(label, maker) of meshes a checker would try."""
    hexagon = [(np.cos(a), np.sin(a), 1.0) for a in np.linspace(0, 2 * np.pi, 7)[:-1]]
    n = 6
    return {
        "0 vertices": lambda: mesh_obj("M", []),
        "1 vertex": lambda: mesh_obj("M", [(0, 0, 1)]),
        "2 vertices, no edge": lambda: mesh_obj("M", [(0, 0, 1), (1, 0, 1)]),
        "2 vertices, 1 edge": lambda: mesh_obj("M", [(0, 0, 1), (1, 0, 1)], edges=[(0, 1)]),
        "1 triangle": lambda: mesh_obj("M", [(0, 0, 1), (1, 0, 1), (0, 1, 1)], faces=[(0, 1, 2)]),
        "one n-gon (hexagon)": lambda: mesh_obj("M", hexagon, faces=[tuple(range(6))]),
        "n-gons only (two hexagons on an edge)": lambda: _two_hexagons(hexagon),
        "a 32-gon disc": lambda: mesh_obj(
            "M", [(np.cos(a), np.sin(a), 1.0) for a in np.linspace(0, 2 * np.pi, 33)[:-1]], faces=[tuple(range(32))]
        ),
        "grid + 5 loose vertices": _with_loose,
        "non-manifold fin (3 faces on one edge)": lambda: mesh_obj(
            "M",
            [(0, 0, 1), (0, 1, 1), (1, 0, 1), (-1, 0, 1), (0, 0, 2), (1, 1, 1), (-1, 1, 1), (0, 1, 2)],
            faces=[(0, 2, 5, 1), (0, 1, 6, 3), (0, 4, 7, 1)],
        ),
        "bowtie (2 triangles on 1 vertex)": lambda: mesh_obj(
            "M", [(0, 0, 1), (1, 0, 1), (1, 1, 1), (-1, 0, 1), (-1, -1, 1)], faces=[(0, 1, 2), (0, 3, 4)]
        ),
        "duplicate vertices (two unmerged grids on each other)": _doubled,
        "zero-area faces (collinear)": lambda: mesh_obj(
            "M", [(0, 0, 1), (1, 0, 1), (2, 0, 1), (3, 0, 1)], faces=[(0, 1, 2), (1, 2, 3)]
        ),
        "flipped normals mixed": lambda: mesh_obj(
            "M", [(0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1), (2, 0, 1), (2, 1, 1)], faces=[(0, 1, 2, 3), (1, 2, 5, 4)]
        ),
        f"{n}² grid far away (1e6 m)": lambda: _far(n),
    }


def _two_hexagons(hexagon):
    second = [(x + 1.5, y + np.sqrt(3) / 2, z) for x, y, z in hexagon]  # its 4th, 5th = the first's 2nd, 1st
    verts = hexagon + [second[i] for i in (0, 1, 2, 5)]
    return mesh_obj("M", verts, faces=[tuple(range(6)), (6, 7, 8, 1, 0, 9)])


def _with_loose():
    o = grid("M", n=6)
    me = o.data
    me.vertices.add(5)
    for i in range(5):
        me.vertices[-1 - i].co = (i * 0.1, 2.0, 1.0)
    me.update()
    return o


def _doubled():
    a = grid("M", n=6)
    n = len(a.data.vertices)
    co = [tuple(v.co) for v in a.data.vertices]
    faces = [tuple(p.vertices) for p in a.data.polygons]
    me = bpy.data.meshes.new("M2")
    me.from_pydata(co + co, [], faces + [tuple(i + n for i in f) for f in faces])
    a.data = me
    return a


def _far(n):
    o = grid("M", n=n)
    o.location = (1e6, 1e6, 1e6)
    return o


def case_meshes():
    """Make Cloth, play 6 frames, Bake, Free Bake, Make Collider on odd meshes; the user's data kept, finite."""
    for label, make in odd_meshes().items():
        reset((1, 6))
        try:
            obj = make()
            floor = mesh_obj("Floor", [(-3, -3, 0), (3, -3, 0), (3, 3, 0), (-3, 3, 0)], faces=[(0, 1, 2, 3)])
            floor.location = obj.location
            select(floor, active=floor)
            bpy.ops.verlet_cloth.make_collider()
            select(obj, active=obj)
            before = snapshot(obj)
            res, msg = op("convert")
            checks = []
            if res == "FINISHED":
                for f in range(1, 7):
                    bpy.context.scene.frame_set(f)
                if len(obj.data.vertices) and not finite(obj):
                    checks.append("BUG NaN in the preview")
                z = evaluated(obj)[:, 2] - obj.location.z if len(obj.data.vertices) else np.zeros(1)
                checks.append(f"z {z.min():.3f}..{z.max():.3f} at frame 6")
            line(label, "convert+play", res, msg, "; ".join(checks))
            bpy.context.scene.frame_set(1)
            res, msg = op("bake")
            checks = []
            if res == "FINISHED":
                for f in (1, 3, 6):
                    bpy.context.scene.frame_set(f)
                    if not finite(obj):
                        checks.append(f"BUG NaN at frame {f}")
            line(label, "bake", res, msg, "; ".join(checks))
            res, msg = op("free_bake")
            after = snapshot(obj)
            line(label, "free_bake", res, msg, "" if after == before else "BUG user data changed after bake + free")
            select(obj, active=obj)
            res, msg = op("make_collider")
            line(label, "make_collider", res, msg)
        except Exception as e:  # noqa: BLE001
            line(label, "setup", "TRACEBACK", f"{type(e).__name__}: {e}")


def case_big():
    """A 317² grid (100,489 vertices): Make Cloth, 2 frames, Bake 2 frames, Free Bake; times."""
    reset((1, 2))
    t = time.perf_counter()
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=316, y_subdivisions=316, size=2, location=(0, 0, 1))
    obj = bpy.context.active_object
    before = snapshot(obj)
    t0 = time.perf_counter()
    res, msg = op("convert")
    t1 = time.perf_counter()
    line("100k grid", "convert", res, msg, f"{len(obj.data.vertices)} vertices; {t1 - t0:.1f} s")
    bpy.context.scene.frame_set(2)
    t2 = time.perf_counter()
    line("100k grid", "frame 2", "FINISHED" if finite(obj) else "NaN", "", f"{t2 - t1:.1f} s")
    bpy.context.scene.frame_set(1)
    res, msg = op("bake")
    t3 = time.perf_counter()
    line("100k grid", "bake 2 frames", res, msg, f"{t3 - t2:.1f} s")
    res, msg = op("free_bake")
    line("100k grid", "free_bake", res, msg, "" if snapshot(obj) == before else "BUG user data changed")
    print(f"   total {time.perf_counter() - t:.1f} s")


def cloth_on_box(n=8, frames=(1, 12)):
    s = reset(frames)
    box = mesh_obj(
        "Box",
        [(x, y, z) for z in (0, 0.4) for y in (-0.2, 0.2) for x in (-0.2, 0.2)],
        faces=[(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)],
    )
    select(box, active=box)
    bpy.ops.verlet_cloth.make_collider()
    c = grid("Cloth", n=n, z=0.5)
    select(c, active=c)
    bpy.ops.verlet_cloth.convert()
    return s, c, box


def played(obj, frames):
    out = {}
    for f in frames:
        bpy.context.scene.frame_set(f)
        out[f] = evaluated(obj)
    return out


def gap(a, b):
    if any(a[f].shape != b[f].shape for f in a):
        return float("inf")  # (the mesh changed)
    return max(float(np.abs(a[f] - b[f]).max()) for f in a)


def case_bakeflow():
    """Bake, undo, redo; bake, save, reload, play, re-bake; Alt+D / Shift+D of baked cloths."""
    frames = (1, 6, 12)
    s, c, _ = cloth_on_box()
    bpy.ops.ed.undo_push(message="made")
    user = snapshot(c)
    res, msg = op("bake")
    baked = played(c, frames)
    line("bakeflow", "bake", res, msg)
    bpy.ops.ed.undo_push(message="after bake")
    bpy.ops.ed.undo()
    c = bpy.data.objects["Cloth"]
    line(
        "bakeflow",
        "undo",
        "FINISHED",
        "",
        f"baked={c.verlet_cloth.baked}; keys={len(c.data.shape_keys.key_blocks) if c.data.shape_keys else 0}"
        + ("" if snapshot(c) == user else "; BUG user data differ after undo"),
    )
    bpy.ops.ed.redo()
    c = bpy.data.objects["Cloth"]
    again = played(c, frames)
    line(
        "bakeflow",
        "redo",
        "FINISHED",
        "",
        f"baked={c.verlet_cloth.baked}; redo vs bake {gap(baked, again):.2e} m"
        + ("" if gap(baked, again) < 1e-6 else " BUG"),
    )
    path = os.path.join(SCRATCH, "baked.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.open_mainfile(filepath=path)
    c = bpy.data.objects["Cloth"]
    reopened = played(c, frames)
    line(
        "bakeflow",
        "save+reload, play",
        "FINISHED",
        "",
        f"vs bake {gap(baked, reopened):.2e} m" + ("" if gap(baked, reopened) < 1e-6 else " BUG"),
    )
    select(c, active=c)
    bpy.context.scene.frame_set(1)
    res, msg = op("bake")
    rebaked = played(c, frames)
    line(
        "bakeflow",
        "re-bake after reload",
        res,
        msg,
        f"vs first bake {gap(baked, rebaked):.2e} m" + ("" if gap(baked, rebaked) < 1e-5 else " (differs)"),
    )
    res, msg = op("free_bake")
    line("bakeflow", "free after reload", res, msg, "user data " + ("kept" if snapshot(c) == user else "BUG changed"))
    # Undo of Free Bake, then re-bake
    bpy.ops.ed.undo_push(message="freed")
    bpy.context.scene.frame_set(1)
    res, msg = op("bake")
    bpy.ops.ed.undo_push(message="baked")
    res2, msg2 = op("free_bake")
    bpy.ops.ed.undo_push(message="freed2")
    bpy.ops.ed.undo()
    c = bpy.data.objects["Cloth"]
    line(
        "bakeflow",
        "bake, free, undo",
        res2,
        msg2,
        f"baked={c.verlet_cloth.baked}; vs bake {gap(baked, played(c, frames)):.2e} m",
    )
    # Shift+D of a baked cloth, both selected, Bake both
    select(c, active=c)
    bpy.ops.object.duplicate()
    d = bpy.context.active_object
    d.location.x += 2
    select(c, d, active=d)
    bpy.context.scene.frame_set(1)
    res, msg = op("bake")
    line("bakeflow", "Shift+D of baked, bake both", res, msg, f"finite {finite(c) and finite(d)}")
    res, msg = op("free_bake")
    line("bakeflow", "free both", res, msg, f"orig baked={c.verlet_cloth.baked} copy baked={d.verlet_cloth.baked}")
    # Alt+D of a baked cloth, both selected
    bpy.context.scene.frame_set(1)
    select(c, active=c)
    op("bake")
    bpy.ops.object.duplicate(linked=True)
    e = bpy.context.active_object
    select(c, e, active=c)
    before = snapshot(c)
    for name in ("bake", "free_bake", "reset", "convert"):
        res, msg = op(name)
        line(
            "bakeflow",
            f"Alt+D of baked, both selected: {name}",
            res,
            msg,
            "" if snapshot(c) == before else "BUG changed",
        )
    # delete the Alt+D copy: the original works again
    bpy.data.objects.remove(e)
    select(c, active=c)
    res, msg = op("free_bake")
    line(
        "bakeflow",
        "Alt+D copy deleted, free",
        res,
        msg,
        "user data " + ("kept" if snapshot(c) == user else "BUG changed"),
    )


def case_userkeys():
    """A bake over user shape keys named like the bake's ("VerletCloth 0003", ...)."""
    for names in (
        ["VerletCloth 0003"],
        ["VerletCloth 0001", "VerletCloth 0002", "VerletCloth 0012"],
        ["VerletCloth 0003.new", "VerletCloth 0003.001"],
    ):
        s, c, _ = cloth_on_box()
        c.shape_key_add(name="Basis")
        for i, name in enumerate(names):
            k = c.shape_key_add(name=name)
            k.data[i].co.z += 0.05
            k.value = 0.0
        label = "keys " + ",".join(names)
        user = snapshot(c)
        frames = (1, 3, 12)
        res, msg = op("bake")
        first = played(c, frames)
        got = sorted(b.name for b in c.data.shape_keys.key_blocks)
        ours = sorted(k.name for k in c.verlet_cloth.bake_keys)
        line(
            label,
            "bake",
            res,
            msg,
            f"{len(got)} keys; user kept: {snapshot(c) == user}" + ("" if snapshot(c) == user else " BUG"),
        )
        bpy.context.scene.frame_set(1)
        res, msg = op("bake")
        second = played(c, frames)
        line(
            label,
            "re-bake",
            res,
            msg,
            f"vs first {gap(first, second):.2e} m; user kept: {snapshot(c) == user}"
            + ("" if snapshot(c) == user and gap(first, second) < 1e-6 else " BUG"),
        )
        res, msg = op("free_bake")
        left = sorted(b.name for b in c.data.shape_keys.key_blocks) if c.data.shape_keys else []
        line(
            label,
            "free",
            res,
            msg,
            f"left {left}; user kept: {snapshot(c) == user}"
            + ("" if snapshot(c) == user and set(left) == {"Basis", *names} else " BUG"),
        )
        del got, ours


def case_framechange():
    """Frame changes while the bake runs (the modal bake steps a frame a tick; the user may scrub between ticks)."""
    baking = sys.modules["bl_ext.dev.verlet_cloth.services.baking"]
    s, c, _ = cloth_on_box()
    res, msg = op("bake")
    ref = played(c, (1, 6, 12))
    op("free_bake")
    s.frame_set(1)
    b = baking.Baker(s, c, 1, 12)
    k = 0
    while b.step():
        k += 1
        s.frame_set(1 + (7 * k) % 12)  # the user scrubs between ticks
        c.location.x += 0.0  # touch nothing
    while b.write(0.001):
        s.frame_set(1 + (5 * k) % 12)
        k += 1
    got = played(c, (1, 6, 12))
    line(
        "framechange",
        "scrub between ticks",
        "FINISHED",
        "",
        f"vs one-call bake {gap(ref, got):.2e} m" + ("" if gap(ref, got) < 1e-6 else " BUG"),
    )
    op("free_bake")
    # A frame_change_post handler of the user's that moves the box during the bake
    s.frame_set(1)
    res, msg = op("bake")
    line("framechange", "re-bake", res, msg, f"vs one-call bake {gap(ref, played(c, (1, 6, 12))):.2e} m")


def case_extreme():
    """Extreme settings: no NaN, no exception, in the preview and a bake."""
    base = {}
    trials = [
        ("stretch 0", {"stretch_stiffness": 0.0}),
        ("stretch/shear/bend 0", {"stretch_stiffness": 0.0, "shear_stiffness": 0.0, "bend_stiffness": 0.0}),
        ("stretch max 1e9", {"stretch_stiffness": 1e9, "shear_stiffness": 1e9, "bend_stiffness": 1e9}),
        ("substeps 1 (auto off)", {"auto_substeps": False, "substeps": 1}),
        ("substeps 100", {"auto_substeps": False, "substeps": 100}),
        ("iterations 20", {"iterations": 20}),
        ("mass tiny (density 1e-6)", {"density": 1e-6}),
        ("total mass 1e-6", {"mass_mode": "TOTAL", "mass": 1e-6}),
        ("total mass 1e6", {"mass_mode": "TOTAL", "mass": 1e6}),
        ("damping 1", {"damping": 1.0}),
        ("damping 0", {"damping": 0.0}),
        ("wind 100 m/s", {"wind_strength": 100.0}),
        ("wind 100, direction 0", {"wind_strength": 100.0, "wind_direction": (0.0, 0.0, 0.0)}),
        ("wind 100, turbulence 1, scale 0.001", {"wind_strength": 100.0, "turbulence": 1.0, "turbulence_scale": 0.001}),
        ("air drag 100", {"air_drag": 100.0}),
        ("thickness 0", {"thickness": 0.0}),
        ("thickness 1 m", {"thickness": 1.0}),
        ("friction 10", {"friction": 10.0}),
        ("stretch limit 10", {"stretch_limit": 10.0}),
        ("shrink -1", {"shrink": -1.0}),
        ("shrink 0.9", {"shrink": 0.9}),
        ("pressure 1e6", {"use_pressure": True, "pressure": 1e6}),
        ("pressure -1e6", {"use_pressure": True, "pressure": -1e6}),
        ("tear factor 1e-6?", {"tear_factor": 0.0001}),
        ("self-collision, distance 1", {"self_collision": True, "self_collision_distance": 1.0}),
        ("self-collision, faces off, distance 0", {"self_collision": True, "self_collision_faces": False}),
        ("sewing on, speed 100", {"use_sewing": True, "sewing_speed": 100.0}),
        ("gravity 0 (scene)", {"_gravity": (0.0, 0.0, 0.0)}),
        ("gravity 1000 (scene)", {"_gravity": (0.0, 0.0, -1000.0)}),
        ("scene fps 1", {"_fps": 1}),
        ("scene fps 240 base 0.001", {"_fps": 240, "_fps_base": 0.001}),
        (
            "all at once: stiff 1e9, substeps 1, mass 1e-6, wind 100, thickness 0",
            {
                "stretch_stiffness": 1e9,
                "auto_substeps": False,
                "substeps": 1,
                "density": 1e-6,
                "wind_strength": 100.0,
                "thickness": 0.0,
                "damping": 0.0,
            },
        ),
    ]
    del base
    for label, values in trials:
        s, c, box = cloth_on_box(n=10, frames=(1, 12))
        try:
            for k, v in values.items():
                if k == "_gravity":
                    s.use_gravity = True
                    s.gravity = v
                elif k == "_fps":
                    s.render.fps = v
                elif k == "_fps_base":
                    s.render.fps_base = v
                else:
                    setattr(c.verlet_cloth, k, v)
            user = snapshot(c)
            t = time.process_time()
            bad = [f for f in range(1, 13) if (s.frame_set(f) or True) and not finite(c)]
            dt = time.process_time() - t
            pos = evaluated(c)
            span = float(np.ptp(pos, axis=0).max()) if np.isfinite(pos).all() else float("nan")
            line(
                "extreme " + label,
                "play 12",
                "FINISHED",
                "",
                f"{'BUG NaN at frames ' + str(bad) if bad else 'finite'}; span {span:.3g} m; {dt:.1f} s CPU",
            )
            s.frame_set(1)
            res, msg = op("bake")
            checks = "user kept" if snapshot(c) == user else "BUG user data changed"
            if res == "FINISHED":
                nan = [f for f in (1, 6, 12) if (s.frame_set(f) or True) and not finite(c)]
                checks += f"; {'BUG NaN ' + str(nan) if nan else 'finite'}"
            line("extreme " + label, "bake", res, msg, checks)
        except Exception as e:  # noqa: BLE001
            line("extreme " + label, "setup", "TRACEBACK", f"{type(e).__name__}: {e}")


def case_cli():
    """tools/bake.py with bad paths, a read-only output, interrupted runs: the file on disk intact."""
    s, c, _ = cloth_on_box(n=24, frames=(1, 60))
    shot = os.path.join(SCRATCH, "shot.blend")
    bpy.ops.wm.save_as_mainfile(filepath=shot)
    data = Path(shot).read_bytes()
    py = sys.executable
    tool = str(ROOT / "tools" / "bake.py")

    def run(args, timeout=600):
        p = subprocess.run([py, tool, *args], capture_output=True, text=True, timeout=timeout, check=False)
        text = (p.stdout + p.stderr).strip().splitlines()
        tb = any("Traceback" in t for t in text)
        last = [t for t in text if t.strip() and "%" not in t][-1:] or [""]
        return p.returncode, tb, last[0]

    ro = os.path.join(SCRATCH, "ro")
    os.mkdir(ro)
    os.chmod(ro, stat.S_IRUSR | stat.S_IXUSR)
    rofile = os.path.join(SCRATCH, "ro_file.blend")
    Path(rofile).write_bytes(data)
    os.chmod(rofile, stat.S_IRUSR)
    txt = os.path.join(SCRATCH, "not_a_blend.blend")
    Path(txt).write_text("hello")
    trunc = os.path.join(SCRATCH, "truncated.blend")
    Path(trunc).write_bytes(data[: len(data) // 2])
    cases = [
        ("missing input", ["bake", os.path.join(SCRATCH, "nope.blend")]),
        ("a folder as input", ["bake", SCRATCH]),
        ("a text file as input", ["bake", txt]),
        ("a truncated .blend as input", ["bake", trunc]),
        ("output in a missing folder", ["bake", shot, "--output", os.path.join(SCRATCH, "no", "out.blend")]),
        ("output in a read-only folder", ["bake", shot, "--output", os.path.join(ro, "out.blend")]),
        ("output over a read-only file", ["bake", shot, "--output", rofile, "--frames", "1:3"]),
        ("output is a folder", ["bake", shot, "--output", SCRATCH]),
        ("output = input, frames 1:3", ["bake", shot, "--frames", "1:3", "--output", shot]),
        ("frames 5:2", ["bake", shot, "--frames", "5:2"]),
        ("frames a:b", ["bake", shot, "--frames", "a:b"]),
        ("unknown object", ["bake", shot, "--objects", "Nope", "--frames", "1:3"]),
        ("object not a cloth", ["bake", shot, "--objects", "Box", "--frames", "1:3"]),
        ("no command", []),
    ]
    for label, args in cases:
        if label == "output = input, frames 1:3":
            Path(shot).write_bytes(data)
        rc, tb, last = run(args)
        intact = Path(rofile).read_bytes() == data
        line(
            "cli " + label,
            "tools/bake.py",
            f"rc={rc}",
            last[:200],
            ("BUG traceback" if tb else "") + ("" if intact else " BUG read-only file changed"),
        )
        if label == "output = input, frames 1:3":
            Path(shot).write_bytes(data)
    # interrupted: SIGTERM / SIGINT / SIGKILL while baking in place
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGKILL):
        Path(shot).write_bytes(data)
        before = set(os.listdir(SCRATCH))
        p = subprocess.Popen([py, tool, "bake", shot], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(12)
        p.send_signal(sig)
        out, _ = p.communicate(timeout=120)
        tb = "Traceback" in out
        after = set(os.listdir(SCRATCH)) - before
        same = Path(shot).read_bytes() == data
        tail = [t for t in out.strip().splitlines() if t.strip()][-1:] or [""]
        line(
            f"cli interrupted by {sig.name} after 12 s",
            "tools/bake.py bake in place",
            f"rc={p.returncode}",
            tail[0][:200],
            f"file {'intact' if same else 'CHANGED'}; leftovers {sorted(after)}"
            + (" BUG traceback" if tb and sig != signal.SIGKILL else "")
            + (" BUG leftovers" if after and sig != signal.SIGKILL else ""),
        )
    os.chmod(ro, stat.S_IRWXU)
    os.chmod(rofile, stat.S_IRUSR | stat.S_IWUSR)


def _modal_stand_in(baker):
    """The operator instance Blender would make, to drive the modal bake's ticks by hand (as its tests do)."""
    import types

    op_cls = sys.modules["bl_ext.dev.verlet_cloth.operators.bake"].VERLET_CLOTH_OT_bake
    calls: list = []
    me = types.SimpleNamespace(
        _baker=baker, _queue=(), _done=(), _capped=(), _current=baker.obj, _timer=object(), _last_percent=-1, reports=[]
    )
    me.report = lambda kind, text: me.reports.append((sorted(kind)[0], text))
    me._stop = lambda context: calls.append("stop")
    me._next_baker = lambda context: op_cls._next_baker(me, context)
    return me, calls, op_cls


def _user_action(action, s, c, box):
    """What the user does between two ticks of the modal bake (its events pass through)."""
    if action == "delete the cloth":
        bpy.data.objects.remove(c)
    elif action == "delete the collider":
        bpy.data.objects.remove(box)
    elif action == "Edit Mode on the cloth":
        select(c, active=c)
        bpy.ops.object.mode_set(mode="EDIT")
    elif action == "Sculpt Mode on the cloth":
        select(c, active=c)
        bpy.ops.object.mode_set(mode="SCULPT")
    elif action == "add a vertex (topology)":
        c.data.vertices.add(1)
        c.data.update()
    elif action == "thickness 0.05, substeps 4":
        c.verlet_cloth.thickness = 0.05
        c.verlet_cloth.auto_substeps = False
        c.verlet_cloth.substeps = 4
    elif action == "rename the cloth":
        c.name = "Renamed"
        c.data.name = "RenamedMesh"
    elif action == "Free Bake":
        select(c, active=c)
        return op("free_bake")
    elif action == "Make Cloth":
        select(c, active=c)
        return op("convert")
    elif action == "Reset":
        select(c, active=c)
        return op("reset")
    elif action == "Bake (another, from a script)":
        select(c, active=c)
        return op("bake")
    elif action == "Ctrl+Z":
        bpy.ops.ed.undo()
    elif action == "Alt+D the cloth":
        select(c, active=c)
        bpy.ops.object.duplicate(linked=True)
    elif action == "add a user shape key":
        if c.data.shape_keys is None:
            c.shape_key_add(name="Basis")
        k = c.shape_key_add(name="Mine", from_mix=False)
        k.value = 1.0
    elif action == "remove a key the bake wrote":
        names = (
            [b.name for b in c.data.shape_keys.key_blocks if b.name.startswith("VerletCloth")]
            if c.data.shape_keys
            else []
        )
        if names:
            c.shape_key_remove(c.data.shape_keys.key_blocks[names[-1]])
    elif action == "save the file":
        bpy.ops.wm.save_as_mainfile(filepath=os.path.join(SCRATCH, "mid_bake.blend"))
    elif action == "frame 7":
        s.frame_set(7)
    return None


DURING = (
    "frame 7",
    "rename the cloth",
    "delete the collider",
    "thickness 0.05, substeps 4",
    "add a user shape key",
    "Edit Mode on the cloth",
    "Sculpt Mode on the cloth",
    "add a vertex (topology)",
    "Free Bake",
    "Make Cloth",
    "Reset",
    "Bake (another, from a script)",
    "Alt+D the cloth",
    "remove a key the bake wrote",
    "save the file",
    "Ctrl+Z",
    "delete the cloth",
)


def case_duringbake():
    """The user acts while the modal bake runs (its non-timer events pass through): each action once, after the
    3rd simulated frame (stage "step") or during the key writing (stage "write", over an earlier bake)."""
    import types

    baking = sys.modules["bl_ext.dev.verlet_cloth.services.baking"]
    preview = sys.modules["bl_ext.dev.verlet_cloth.services.preview"]
    actions = [a for a in DURING if not os.environ.get("ONLY") or a in os.environ["ONLY"].split(",")]
    for stage in ("step", "write"):
        reference = None
        for action in [None, *actions]:
            label = f"during bake ({stage}): {action}"
            try:
                s, c, box = cloth_on_box(n=8, frames=(1, 10))
                bpy.ops.ed.undo_push(message="made")
                c.shape_key_add(name="Basis")
                k = c.shape_key_add(name="User")
                k.value = 0.3
                k.data[0].co.z += 0.1
                if stage == "write":
                    op("bake")
                    s.frame_set(4)
                bpy.ops.ed.undo_push(message="before bake")
                user = snapshot(c)
                earlier = played(c, (1, 5, 10)) if stage == "write" else None
                s.frame_set(4)
                if stage == "write":
                    baking.WRITE_SECONDS = 1e-6  # a key or so a tick, so the action lands mid-writing
                baker = baking.Baker(s, c, 1, 10)
                me, calls, op_cls = _modal_stand_in(baker)
                tick = types.SimpleNamespace(type="TIMER")
                result, ticks, escaped, acted = {"RUNNING_MODAL"}, 0, "", None
                while result == {"RUNNING_MODAL"} and ticks < 200:
                    if (
                        action
                        and acted is None
                        and ((stage == "step" and ticks == 3) or (stage == "write" and baker.writing))
                    ):
                        acted = _user_action(action, s, c, box) or ("done", "")
                    if action == "Edit Mode on the cloth" and acted is not None and ticks == 40:
                        bpy.ops.object.mode_set(mode="OBJECT")  # the user leaves Edit Mode again
                    try:
                        result = op_cls.modal(me, bpy.context, tick)
                    except Exception as e:  # noqa: BLE001 - would reach the user as a traceback
                        escaped = f"{type(e).__name__}: {e}"
                        break
                    ticks += 1
                baking.WRITE_SECONDS = 0.1
                try:
                    if bpy.context.object and bpy.context.object.mode != "OBJECT":
                        bpy.ops.object.mode_set(mode="OBJECT")
                except Exception:  # noqa: BLE001
                    pass
                obj = bpy.data.objects.get("Cloth") or bpy.data.objects.get("Renamed")
                alive = obj is not None
                if action is None:
                    reference = played(obj, (1, 5, 10))
                    line(label, "reference", sorted(result)[0], "", f"{len(me.reports)} report(s)")
                    continue
                checks = [
                    f"{sorted(result)[0] if not escaped else 'ESCAPED ' + escaped}",
                    f"action: {acted[0] if acted else '-'}" + (f' "{acted[1][:90]}"' if acted and acted[1] else ""),
                ]
                if me.reports:
                    checks.append(f'report {me.reports[-1][0]} "{me.reports[-1][1][:160]}"')
                if preview._suspended:
                    checks.append("BUG preview left suspended")
                if escaped:
                    checks.append("BUG exception out of modal")
                if alive and obj is not None and obj.type == "MESH":
                    if len(obj.data.vertices) and not finite(obj):
                        checks.append("BUG NaN")
                    same_user = snapshot(obj) == user
                    keys = [b.name for b in obj.data.shape_keys.key_blocks] if obj.data.shape_keys else []
                    temp = [n for n in keys if n.endswith(baking.NEW_SUFFIX)]
                    checks.append(
                        f"baked={obj.verlet_cloth.baked} keys={len(keys)} "
                        f"user data {'kept' if same_user else 'CHANGED'}"
                    )
                    if temp:
                        checks.append(f"BUG temporary keys left {temp[:3]}")
                    if result == {"CANCELLED"} and stage == "write" and earlier and obj.verlet_cloth.baked:
                        g = gap(earlier, played(obj, (1, 5, 10)))
                        if g != float("inf"):  # (not when the user's edit changed the vertex count)
                            checks.append(f"earlier bake {'kept' if g < 1e-6 else f'BUG off by {g:.3g} m'}")
                    if result == {"FINISHED"} and obj.verlet_cloth.baked and reference is not None:
                        g = gap(reference, played(obj, (1, 5, 10)))
                        checks.append(f"vs an undisturbed bake {g:.2g} m")
                    if result == {"CANCELLED"} and stage == "step" and obj.verlet_cloth.baked:
                        checks.append("BUG cancelled but baked")
                    if not same_user and action not in (
                        "thickness 0.05, substeps 4",
                        "add a user shape key",
                        "add a vertex (topology)",
                        "Ctrl+Z",
                        "Free Bake",
                    ):
                        checks.append("BUG user data changed")
                else:
                    checks.append("cloth gone")
                line(label, "", "done", "", "; ".join(checks))
            except Exception as e:  # noqa: BLE001
                import traceback

                line(
                    label,
                    "probe",
                    "TRACEBACK",
                    f"{type(e).__name__}: {e}",
                    traceback.format_exc().splitlines()[-3][:200],
                )


def case_linked():
    """Every operator on a baked cloth linked from a library (File ▸ Link) and on a library override of it."""
    s, c, _ = cloth_on_box()
    bpy.ops.verlet_cloth.bake()
    lib = os.path.join(SCRATCH, "library.blend")
    bpy.ops.wm.save_as_mainfile(filepath=lib)
    for kind in ("linked", "override"):

        def setup(kind=kind):
            reset()
            with bpy.data.libraries.load(lib, link=True) as (data_from, data_to):
                data_to.objects = ["Cloth"]
            obj = link(data_to.objects[0])
            if kind == "override":
                obj = obj.override_create(remap_local_usages=True)
                if obj.name not in bpy.context.scene.collection.objects:
                    link(obj)
            select(obj, active=obj)
            return [obj], obj

        run_all_ops(f"{kind} baked cloth", setup)
        objs, obj = setup()
        shown = played(obj, (1, 6, 12))
        line(
            f"{kind} baked cloth",
            "plays",
            "FINISHED",
            "",
            f"finite {all(np.isfinite(v).all() for v in shown.values())}",
        )


CASES = {
    "context": case_context,
    "meshes": case_meshes,
    "bakeflow": case_bakeflow,
    "userkeys": case_userkeys,
    "framechange": case_framechange,
    "extreme": case_extreme,
    "big": case_big,
    "cli": case_cli,
    "duringbake": case_duringbake,
    "linked": case_linked,
}

if __name__ == "__main__":
    chosen = sys.argv[1:] or [k for k in CASES if k not in ("big", "cli")]
    for name in chosen:
        print(f"== {name}", flush=True)
        CASES[name]()
    print(f"== {len(BUGS)} line(s) to look at", flush=True)
    for b in BUGS:
        print("!! " + b)
