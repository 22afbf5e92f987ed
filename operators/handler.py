"""The live preview: a persistent frame_change_post handler that steps every enabled, unbaked cloth.

Policy (see README, "Using it in Blender"): at or before the start frame the cloth shows its rest
shape; one frame forward steps it; any other jump holds the last simulated state until playback
comes back to the next frame or to the start. It never simulates while a render runs or a bake
drives the frames; baked cloths play back their shape keys only.
"""

from __future__ import annotations

import bpy
from bpy.app.handlers import persistent

from . import simulation

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
        if simulation.cloth_problem(obj, quick=True) is not None:
            continue  # e.g. topology changed since Make Cloth: left alone until Make Cloth again
        try:
            simulation.preview(scene, obj)
        except (ValueError, FloatingPointError) as error:  # never break playback
            print(f"Verlet Cloth: {obj.name}: {error}")
            simulation.forget(obj)


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
    simulation.forget()
    try:
        simulation.resume(bpy.data.scenes)
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
    simulation.forget()
