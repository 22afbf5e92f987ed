"""What a synchronous bake reads once instead of every frame.

Between two frames of a bake that runs in one call (`baking.bake_object`: the operator's execute,
the command-line farm bake) nobody edits the scene; only animation (F-curves, drivers, NLA) and
other scripts' frame and depsgraph handlers change it. So when nothing animates them and no other
handler runs, the cloth's settings with the scene's gravity and frame rate (the solver's Params) and
the vertices of a collider mesh shown as made (no modifiers or shape keys) are read at the first
frame only: ~0.3-0.4 ms a frame of the jittered 48² drape's bake. Everything else (world matrices,
collider kinds and settings, wind fields) is still read every frame.
"""

from __future__ import annotations

import bpy

from .. import solver
from ..solver import settings as table
from .solver_params import params_of

# Handlers that run inside scene.frame_set and may change what the bake reads.
_HANDLER_LISTS = ("frame_change_pre", "frame_change_post", "depsgraph_update_pre", "depsgraph_update_post")
# Scene data paths the solver's Params come from: gravity and the frame rate (render.fps, fps_base).
_SCENE_PATHS = ("gravity", "use_gravity", "render")


def animated_paths(id_block) -> set[str] | None:
    """The data paths animation may change on `id_block` (its action's F-curves in any slot, its
    drivers); None when NLA strips may change anything."""
    anim = getattr(id_block, "animation_data", None)
    if anim is None:
        return set()
    if len(anim.nla_tracks):
        return None
    paths = {driver.data_path for driver in anim.drivers}
    action = anim.action
    if action is not None:
        curves = list(getattr(action, "fcurves", None) or ())  # legacy actions (before 4.4)
        for layer in getattr(action, "layers", ()):
            for strip in layer.strips:
                for bag in getattr(strip, "channelbags", ()):
                    curves += list(bag.fcurves)
        paths |= {curve.data_path for curve in curves}
    return paths


def animates(id_block, prefixes: tuple[str, ...]) -> bool:
    """Whether animation may change a data path of `id_block` that starts with one of `prefixes`."""
    paths = animated_paths(id_block)
    return paths is None or any(path.startswith(prefixes) for path in paths)


def foreign_handlers(ours) -> bool:
    """Whether a frame or depsgraph handler that is not one of `ours` (a predicate) is registered."""
    return any(not ours(h) for name in _HANDLER_LISTS for h in getattr(bpy.app.handlers, name))


def _blows(scene) -> bool:
    """Whether the scene has a Wind force field (`scene_reading.force_field_wind` reads them per frame)."""
    return any(getattr(getattr(obj, "field", None), "type", None) == "WIND" for obj in scene.objects)


class SteadyReads:
    """A synchronous bake's reads of what cannot change between its frames (see the module's doc)."""

    def __init__(self, scene, obj, mean_edge: float, ours, vertex_count: int = 0) -> None:
        quiet = not foreign_handlers(ours)
        self.params: solver.Params | None = None
        settings = obj.verlet_cloth
        if (
            quiet
            and not animates(obj, ("verlet_cloth",))
            and not animates(scene, _SCENE_PATHS)
            and not (table.cloth_values(settings)["use_force_fields"] and _blows(scene))
        ):
            self.params = params_of(scene, settings, mean_edge, vertex_count)
        # Collider meshes' local vertices (and spheres' radii) by object (scene_reading.collider_poses), None:
        # read every frame.
        self.meshes: dict | None = {} if quiet else None
