"""The live preview: a persistent frame_change_post handler that steps every enabled, unbaked cloth.

Policy (see README, "Using it in Blender"): at or before the start frame the cloth shows its rest
shape; one frame forward steps it; any other jump holds the last simulated state until playback
comes back to the next frame or to the start. It never simulates while a render runs or a bake
drives the frames; baked cloths play back their shape keys only.

What the preview shows goes through `display` (an attribute and a modifier the add-on owns), so
the user's vertices and shape keys are never written. Runs are keyed by the cloth's identity
(`identity`), so renames keep simulating. Pin-weight edits are noticed from the depsgraph's updates
(no per-frame read of the weights); after an undo the preview continues from the restored shape.
"""

from __future__ import annotations

import bpy
import numpy as np
from bpy.app.handlers import persistent

from .. import solver
from . import checks, display, geometry, holding, mesh_colliders, pin_group, runs, tears
from .checks import cloth_problem
from .display import write_shape
from .identity import session_key
from .runs import Run, advance, cached, forget, in_scene, mark_dirty, remember, reset, show_tears, start
from .scene_reading import Enabled, world_matrix
from .solver_params import frame_range, frame_time

_suspended = 0  # > 0 while a bake drives the frames
_rendering = False


class suspended:  # noqa: N801 - used as a context manager, like contextlib helpers
    """`with preview.suspended():` keeps the live preview out of the way."""

    def __enter__(self) -> None:
        global _suspended  # noqa: PLW0603
        _suspended += 1

    def __exit__(self, *exc) -> None:
        global _suspended  # noqa: PLW0603
        _suspended -= 1


def is_rendering() -> bool:
    if _rendering:
        return True
    job_running = getattr(bpy.app, "is_job_running", None)
    return bool(job_running and job_running("RENDER"))


def drag_step(scene, obj) -> Run:
    """One live step at the current frame with the held vertex (the drag operator's timer)."""
    run = in_scene(scene, obj)
    if run is None or len(run.rest_local) != len(obj.data.vertices):
        run = reset(scene, obj)
    grip = holding.held(obj)
    advance(run, scene, obj, grab=None if grip is None else grip.grab())
    write_shape(obj, run.local_positions(obj))
    show_tears(run, obj)
    return run


def _live_cloths(scene):
    """The scene's enabled, unbaked cloth meshes outside Edit Mode (not linked from a library: read-only)."""
    for obj in scene.objects:
        if obj.type != "MESH" or obj.mode == "EDIT" or obj.data.library is not None:
            continue
        if obj.verlet_cloth.enabled and not obj.verlet_cloth.baked:
            yield obj


def _evaluate_transforms() -> None:
    """Evaluate the depsgraph: after a file loads or an undo, objects read from the file (or brought back)
    have an identity matrix_world until it is, and a cloth started or picked up then went on from
    minus its object's location (1 m off in one frame)."""
    try:
        bpy.context.evaluated_depsgraph_get()
    except (RuntimeError, AttributeError):  # no depsgraph in this context: the transforms are read as they are
        pass


def resume(scenes) -> None:
    """After a file loads: cloths whose scene is at (or before) its start frame restart from rest there."""
    if any(True for scene in scenes for _ in _live_cloths(scene)):
        _evaluate_transforms()
    for scene in scenes:
        for obj in _live_cloths(scene):
            if cloth_problem(obj) is None and scene.frame_current <= frame_range(scene, obj.verlet_cloth)[0]:
                reset(scene, obj)
            else:
                display.clear(obj)  # no simulated state to show: the user's own mesh, whole
                tears.clear(obj)


def preview(scene, obj) -> str:
    """The live preview at the scene's current frame; returns what it did (geometry.RESET/STEP/HOLD)."""
    settings = obj.verlet_cloth
    first, last = frame_range(scene, settings)
    run = in_scene(scene, obj)
    frame = int(scene.frame_current)
    action = geometry.frame_action(None if run is None else run.frame, frame, first, last)
    if run is not None and len(run.rest_local) != len(obj.data.vertices):
        action = geometry.RESET if action == geometry.RESET else geometry.HOLD
        forget(obj)
        run = None
    if action == geometry.RESET:
        run = start(scene, obj)
        if settings.topology and run.topology != settings.topology:
            forget(obj)  # rewired with the same counts: left alone until Make Cloth again
            display.clear(obj)
            return geometry.HOLD
        write_shape(obj, run.rest_local)
        tears.clear(obj)
        remember(run)
    elif action == geometry.STEP and run is not None:
        grip = holding.held(obj)
        advance(run, scene, obj, grab=None if grip is None else grip.grab())
        write_shape(obj, run.local_positions(obj))
        show_tears(run, obj)
    return action


def _edited_meshes(depsgraph) -> set:
    """Meshes whose data changed since the last evaluation (weight paint, Edit Mode, scripts)."""
    if depsgraph is None:
        return set()
    return {u.id.original for u in depsgraph.updates if u.is_updated_geometry and isinstance(u.id, bpy.types.Mesh)}


@persistent
def on_depsgraph_update(scene, depsgraph=None) -> None:
    """Edits between frames: new pin weights are read at the next step; a changed or shared mesh
    stops showing the simulation at once (not only at the next frame)."""
    mesh_colliders.note_evaluations(depsgraph)  # (in a bake too: its colliders are read after)
    if _suspended or is_rendering():
        return
    edited = _edited_meshes(depsgraph)
    ours = {mesh for mesh in edited if session_key(mesh) in display.written}
    display.written.clear()
    edited -= ours
    if not edited:
        return
    for obj in _live_cloths(scene):
        if obj.data not in edited:
            continue
        pin_group.follow(obj)  # renaming a vertex group tags the mesh: the panel shows the new name at once
        if cloth_problem(obj, quick=True) in {checks.TOPOLOGY_CHANGED, checks.SHARED_MESH}:
            forget(obj)
            display.clear(obj)
        else:
            mark_dirty(obj)
            run = cached(obj)
            if run is not None and obj.mode == "OBJECT" and obj.data.attributes.get(display.ATTRIBUTE) is not None:
                if not np.array_equal(world_matrix(obj), run.pins_matrix):
                    # Apply ▸ Scale (or Rotation, Location): the object's space moved with the vertices; the
                    # cloth stays where it was shown. (Not on an undo's restored mesh: that is what shows.)
                    write_shape(obj, run.local_positions(obj))


@persistent
def on_frame_change(scene, depsgraph=None) -> None:
    mesh_colliders.note_evaluations(depsgraph)  # (in a bake too: its colliders are read after)
    if _suspended or is_rendering():
        return
    edited = _edited_meshes(depsgraph)
    # Cloths disabled in viewports or in an excluded collection are not simulated (as Blender evaluates
    # none of them): alternatives kept in an excluded collection cost nothing while playing.
    enabled = Enabled(scene)
    cloths = [obj for obj in _live_cloths(scene) if obj in enabled]
    # Cloths that other cloths collide with (mesh colliders) step first, so those read this frame's shape.
    for obj in sorted(cloths, key=lambda o: o.verlet_cloth_collider.kind != "MESH"):
        pin_group.follow(obj)
        problem = cloth_problem(obj, quick=True)
        if problem is not None:
            # The panel says why; a changed or shared mesh shows the user's own shape, not a wrong one.
            if problem in {checks.TOPOLOGY_CHANGED, checks.SHARED_MESH}:
                forget(obj)
                display.clear(obj)
            continue
        if obj.data in edited and session_key(obj.data) not in display.written:
            mark_dirty(obj)  # e.g. pin weights painted: read again before this step
        try:
            preview(scene, obj)
        except (ValueError, FloatingPointError) as error:  # never break playback; the panel says why
            print(f"Verlet Cloth: {obj.name}: {error}")
            runs.stop(obj, str(error))
    display.written.clear()  # evaluated again right after this handler: not an edit


def pick_up(scene, obj) -> None:
    """Continue the preview from what the evaluated mesh shows now (after an undo), at rest there.

    Undo restores the scene's frame and the mesh, with our attribute as it was; the velocities
    are not stored, so the cloth continues from that shape at rest. Without a shown shape the
    cloth restarts from its rest shape at this frame, as after Make Cloth.
    """
    shape = display.shown(obj)
    run = in_scene(scene, obj)
    if shape is None or run is None or len(shape) != len(run.rest_local) or cloth_problem(obj) is not None:
        forget(obj)
        if cloth_problem(obj) is None:
            reset(scene, obj)
        return
    frame = int(scene.frame_current)
    run.dirty = True  # pins and masses as the undo left them
    if frame == run.frame and np.array_equal(shape.astype(np.float32), run.local_positions(obj).astype(np.float32)):
        return  # this cloth is as it was (the undo was about something else): keep its velocities
    world = geometry.to_world(world_matrix(obj), shape if run.carry is None else run.carry.apply(shape))
    old = run.state
    steps = frame - run.first_frame
    run.state = solver.State(world, world.copy(), steps, steps * frame_time(scene), old.broken, old.face_torn_frame)
    run.frame = frame


@persistent
def on_undo(*_args) -> None:
    """After undo or redo: every live cloth continues from its restored state (not only at the start frame)."""
    if _suspended:
        return
    cloths = [(each, obj) for each in bpy.data.scenes for obj in _live_cloths(each)]
    if cloths:
        _evaluate_transforms()  # a deleted cloth brought back by the undo
    for each, obj in cloths:
        try:
            pick_up(each, obj)
        except (ValueError, FloatingPointError) as error:
            print(f"Verlet Cloth: {obj.name}: {error}")
            forget(obj)


@persistent
def on_save_pre(*_args) -> None:
    """A saved file never stores a simulated state: our attribute and a live cloth's tears leave while it is saved."""
    for obj in bpy.data.objects:
        if obj.type == "MESH" and obj.library is None and obj.data.library is None:
            display.clear(obj)
            if obj.verlet_cloth.enabled and not obj.verlet_cloth.baked:
                tears.clear(obj)  # a bake's tears are part of the bake and stay


@persistent
def on_save_post(*_args) -> None:
    """Show the live cloths again after saving."""
    for scene in bpy.data.scenes:
        for obj in _live_cloths(scene):
            run = cached(obj)
            if run is not None and len(run.rest_local) == len(obj.data.vertices):
                write_shape(obj, run.local_positions(obj))
                run.torn_shown = -1  # written again if any
                show_tears(run, obj)


@persistent
def on_render_start(*_args) -> None:
    global _rendering  # noqa: PLW0603
    _rendering = True


@persistent
def on_render_end(*_args) -> None:
    global _rendering  # noqa: PLW0603
    _rendering = False


@persistent
def on_load(*_args) -> None:
    global _suspended, _rendering  # noqa: PLW0603
    _suspended, _rendering = 0, False  # a bake interrupted by loading a file must not block the preview
    forget()
    try:
        resume(bpy.data.scenes)
    except (ValueError, FloatingPointError) as error:
        print(f"Verlet Cloth: could not resume the live preview: {error}")


_HANDLERS = (
    ("frame_change_post", on_frame_change),
    ("depsgraph_update_post", on_depsgraph_update),
    ("render_init", on_render_start),
    ("render_complete", on_render_end),
    ("render_cancel", on_render_end),
    ("load_post", on_load),
    ("save_pre", on_save_pre),
    ("save_post", on_save_post),
    ("undo_post", on_undo),
    ("redo_post", on_undo),
)


def register_handlers() -> None:
    unregister_handlers()
    for name, function in _HANDLERS:
        getattr(bpy.app.handlers, name).append(function)


def _same_handler(existing, function) -> bool:
    """Whether `existing` is `function`, or a copy of it from an earlier load of this module (by name)."""
    return existing is function or (
        getattr(existing, "__name__", "") == function.__name__
        and getattr(existing, "__module__", "") == function.__module__
    )


def is_ours(handler) -> bool:
    """Whether `handler` is one of this add-on's handlers."""
    return any(_same_handler(handler, function) for _, function in _HANDLERS)


def unregister_handlers() -> None:
    """Remove ours, including copies left by an earlier load of this module (matched by name)."""
    for name, function in _HANDLERS:
        handlers = getattr(bpy.app.handlers, name)
        for existing in list(handlers):
            if _same_handler(existing, function):
                handlers.remove(existing)
    forget()


def remove_displays() -> None:
    """Disabling the add-on: every cloth shows exactly what the user made (ours removed everywhere)."""
    try:
        display.remove_everywhere()
        for obj in bpy.data.objects:
            if obj.type == "MESH" and obj.library is None and obj.verlet_cloth.enabled and not obj.verlet_cloth.baked:
                tears.clear(obj)  # a live cloth whole again, and without our tears modifier
                tears.remove_modifier(obj)
    except (AttributeError, RuntimeError) as error:  # data not writable in this context
        print(f"Verlet Cloth: could not remove the live preview's data: {error}")
