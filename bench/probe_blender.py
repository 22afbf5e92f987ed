"""Headless Blender for the probe scripts (acceptance_probes*.py, user_probes_r23.py, self_collision_probes*.py):
load a checkout as the extension, and the few scene helpers every probe repeated (round 24, benchshare24).

`start` must run before anything imports bpy (it sets BLENDER_USER_RESOURCES first); the helpers import bpy
when called. Unlike bench/scenes.py (make bench / make demo), the checkout is `VC_ROOT` when set, so a probe can
run against another checkout, and the scratch folder stays after the run (the probes write files there).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import numpy as np


def _raise(e):
    raise e


def start(prefix: str, repo: str = "dev", own_resources: bool = False, raise_errors: bool = True):
    """Start Blender with the checkout (VC_ROOT, default this one) enabled as `bl_ext.<repo>.verlet_cloth`.

    prefix: the scratch folder's (a new temporary folder; Blender's user resources go in its `user`, unless
    BLENDER_USER_RESOURCES is set and own_resources is False). raise_errors: an add-on that fails to enable raises.
    Returns (checkout root, scratch folder, the add-on's module).
    """
    root = Path(os.environ.get("VC_ROOT", str(Path(__file__).resolve().parents[1]))).resolve()
    scratch = tempfile.mkdtemp(prefix=prefix)
    if own_resources:
        os.environ["BLENDER_USER_RESOURCES"] = os.path.join(scratch, "user")
    else:
        os.environ.setdefault("BLENDER_USER_RESOURCES", os.path.join(scratch, "user"))
    import bpy  # noqa: PLC0415 - after BLENDER_USER_RESOURCES

    import addon_utils  # noqa: PLC0415 - must follow bpy

    folder = Path(scratch) / "repo"
    folder.mkdir()
    (folder / "verlet_cloth").symlink_to(root, target_is_directory=True)
    bpy.context.preferences.extensions.repos.new(name=repo, module=repo, custom_directory=str(folder), source="USER")
    module = f"bl_ext.{repo}.verlet_cloth"
    if raise_errors:
        addon_utils.enable(module, default_set=True, handle_error=_raise)
    else:
        addon_utils.enable(module, default_set=True)
    return root, scratch, sys.modules.get(module)


def reset(frames=(1, 48), fps: int | None = 24):
    """An empty scene (the home file, add-ons kept) playing `frames`, at `fps` (None: the home file's), at its start."""
    import bpy  # noqa: PLC0415

    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = frames
    if fps is not None:
        scene.render.fps, scene.render.fps_base = fps, 1.0
    scene.frame_set(frames[0])
    return scene


def link(obj):
    """`obj` linked into the scene's collection."""
    import bpy  # noqa: PLC0415

    bpy.context.scene.collection.objects.link(obj)
    return obj


def mesh_obj(name, verts, faces=(), edges=()):
    """A new mesh object from vertex, face and edge lists, linked into the scene."""
    import bpy  # noqa: PLC0415

    me = bpy.data.meshes.new(name)
    me.from_pydata([list(map(float, v)) for v in verts], list(edges), [list(map(int, f)) for f in faces])
    me.update()
    return link(bpy.data.objects.new(name, me))


def activate(obj, *others):
    """Only `obj` and `others` selected, `obj` active."""
    import bpy  # noqa: PLC0415

    for o in bpy.context.scene.objects:
        o.select_set(False)
    for o in (obj, *others):
        o.select_set(True)
    bpy.context.view_layer.objects.active = obj


def world_mesh(obj, tris=True):
    """(world-space positions (N, 3), loop triangles (T, 3) (none unless tris), edges (E, 2)) of the evaluated
    `obj` at the current frame."""
    import bpy  # noqa: PLC0415

    ev = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    me = ev.to_mesh()
    try:
        co = np.empty(len(me.vertices) * 3)
        me.vertices.foreach_get("co", co)
        co = co.reshape(-1, 3)
        t = np.zeros((0, 3), int)
        e = np.empty(len(me.edges) * 2, int)
        me.edges.foreach_get("vertices", e)
        if tris:
            me.calc_loop_triangles()
            t = np.empty(len(me.loop_triangles) * 3, int)
            me.loop_triangles.foreach_get("vertices", t)
            t = t.reshape(-1, 3)
        m = np.array(ev.matrix_world)
        return co @ m[:3, :3].T + m[:3, 3], t, e.reshape(-1, 2)
    finally:
        ev.to_mesh_clear()
