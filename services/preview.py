"""The live preview: a persistent frame_change_post handler that steps every enabled, unbaked cloth.

Policy (see README, "Using it in Blender"): at or before the start frame the cloth shows its rest
shape; one frame forward steps it; any other jump holds the last simulated state until playback
comes back to the next frame or to the start. It never simulates while a render runs or a bake
drives the frames; baked cloths play back their shape keys only.
"""

from __future__ import annotations

import bpy
from bpy.app.handlers import persistent

from . import geometry, holding, tears
from .checks import cloth_problem
from .display import write_shape
from .runs import Run, advance, cached, forget, remember, reset, show_tears, start
from .solver_params import frame_range

_suspended = 0  # > 0 while a bake drives the frames
_rendering = False


class suspended:  # noqa: N801 - used as a context manager, like contextlib helpers
    """`with handler.suspended():` keeps the live preview out of the way."""

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
    run = cached(obj)
    if run is None or len(run.rest_local) != len(obj.data.vertices):
        run = reset(scene, obj)
    grip = holding.held(obj)
    advance(run, scene, obj, grab=None if grip is None else grip.grab())
    write_shape(obj, run.local_positions(obj))
    show_tears(run, obj)
    return run


def resume(scenes) -> None:
    """After a file loads: cloths whose scene is at (or before) its start frame restart from rest there."""
    for scene in scenes:
        for obj in scene.objects:
            if obj.type != "MESH" or not obj.verlet_cloth.enabled or obj.verlet_cloth.baked:
                continue
            if cloth_problem(obj) is None and scene.frame_current <= frame_range(scene, obj.verlet_cloth)[0]:
                reset(scene, obj)


def preview(scene, obj) -> str:
    """The live preview at the scene's current frame; returns what it did (geometry.RESET/STEP/HOLD)."""
    settings = obj.verlet_cloth
    first, last = frame_range(scene, settings)
    run = cached(obj)
    frame = int(scene.frame_current)
    action = geometry.frame_action(None if run is None else run.frame, frame, first, last)
    if run is not None and (len(run.rest_local) != len(obj.data.vertices) or run.name != obj.name):
        action = geometry.RESET if action == geometry.RESET else geometry.HOLD
        forget(obj)
        run = None
    if action == geometry.RESET:
        run = start(scene, obj)
        if settings.topology and run.topology != settings.topology:
            forget(obj)  # rewired with the same counts: left alone until Make Cloth again
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


@persistent
def on_frame_change(scene, depsgraph=None) -> None:
    if _suspended or is_rendering():
        return
    for obj in scene.objects:
        if obj.type != "MESH":
            continue
        settings = obj.verlet_cloth
        if not settings.enabled or settings.baked or obj.mode == "EDIT":
            continue
        if cloth_problem(obj, quick=True) is not None:
            continue  # e.g. topology changed since Make Cloth: left alone until Make Cloth again
        try:
            preview(scene, obj)
        except (ValueError, FloatingPointError) as error:  # never break playback
            print(f"Verlet Cloth: {obj.name}: {error}")
            forget(obj)


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
    ("render_init", on_render_start),
    ("render_complete", on_render_end),
    ("render_cancel", on_render_end),
    ("load_post", on_load),
)


def register_handlers() -> None:
    unregister_handlers()
    for name, function in _HANDLERS:
        getattr(bpy.app.handlers, name).append(function)


def unregister_handlers() -> None:
    """Remove ours, including copies left by an earlier load of this module (matched by name)."""
    for name, function in _HANDLERS:
        handlers = getattr(bpy.app.handlers, name)
        for existing in list(handlers):
            if existing is function or (
                getattr(existing, "__name__", "") == function.__name__
                and getattr(existing, "__module__", "") == function.__module__
            ):
                handlers.remove(existing)
    forget()
