"""Settings to solver input: the frame range and time step, wind, and `solver.Params`."""

from __future__ import annotations

import numpy as np

from .. import solver
from ..solver import settings as table
from ..solver.driven_motion import MAX_MOTION_SUBSTEPS
from ..solver.params import auto_substeps
from .scene_reading import force_field_wind


def frame_range(scene, settings) -> tuple[int, int]:
    if settings.use_scene_frame_range:
        return int(scene.frame_start), int(scene.frame_end)
    return int(settings.frame_start), int(settings.frame_end)


def time_stretch(scene) -> float:
    """Scene time per scene frame (Output ▸ Frame Range ▸ Time Stretching, Old / New; 1 without it): Blender
    evaluates frame f at time f × Old / New, so animation, colliders and the Scene Time node move that much."""
    return scene.render.frame_map_old / scene.render.frame_map_new


def frame_time(scene) -> float:
    """Seconds the cloth is stepped per scene frame: a frame's time, stretched as the rest of the scene."""
    fps = scene.render.fps / scene.render.fps_base
    return time_stretch(scene) / fps


def wind_of(scene, settings, values=None) -> tuple[float, float, float]:
    """(3,) m/s: the cloth's own wind (direction × speed) plus the scene's Wind force fields.

    values: `table.cloth_values(settings)` when the caller has them (read once per frame)."""
    values = table.cloth_values(settings) if values is None else values
    wind = np.array(table.own_wind(values))
    if values["use_force_fields"]:
        wind = wind + force_field_wind(scene)
    wind = np.nan_to_num(wind)
    return (float(wind[0]), float(wind[1]), float(wind[2]))


def mean_edge_length(model: solver.Model) -> float:
    """Mean rest length (m) of the model's structural (mesh-edge) constraints; 0 without any."""
    return model.mean_edge_length


def self_collision_gap(settings, mean_edge: float = 0.0) -> float:
    """Self-collision distance (m): the setting, or Auto (see `solver.settings.self_collision_gap`)."""
    return table.self_collision_gap(table.cloth_values(settings), mean_edge)


def gravity_of(scene) -> tuple[float, float, float]:
    return tuple(float(g) for g in scene.gravity) if scene.use_gravity else (0.0, 0.0, 0.0)  # type: ignore[return-value]


def auto_substeps_of(scene, mean_edge: float, vertex_count: int = 0) -> int:
    """The substeps Auto Substeps gives a cloth of `vertex_count` vertices whose mean edge is `mean_edge` (m)
    in this scene."""
    return auto_substeps(frame_time(scene), mean_edge, gravity_of(scene), vertex_count)


def params_of(scene, settings, mean_edge: float = 0.0, vertex_count: int = 0) -> solver.Params:
    """Solver settings for this frame, from the settings table (solver/settings.py), each value
    clamped to its hard range; mean_edge (m) sizes the automatic self-collision distance and, with
    vertex_count, the automatic substeps."""
    gravity = gravity_of(scene)
    values = table.cloth_values(settings)  # ~25 property reads: once a frame
    if settings.get("auto_substeps") is None and settings.get("substeps") is not None:
        values["auto_substeps"] = False  # a file from before Auto Substeps keeps the substeps it was set to
    wind = wind_of(scene, settings, values)
    return table.params_from(values, gravity, wind, mean_edge, frame_time(scene), vertex_count)  # type: ignore[arg-type]


def auto_substeps_lines(base: int, last: int, wanted: int) -> list[tuple[str, bool]]:
    """The panel's lines (text, a warning?) about Auto Substeps: `base` a frame, and the last frame's
    count (`last`) and what its pins and colliders asked for (`wanted`) when they moved fast."""
    lines = [(f"Auto: {base} substeps a frame", False)]
    if wanted > last:
        lines.append((f"Last frame: {last}, the most (fast pins or colliders asked for {wanted})", True))
    elif last > base:
        lines.append((f"Last frame: {last} (fast pins or colliders)", False))
    return lines


def capped_note(frames) -> str:
    """What to tell the user about frames whose motion asked for more substeps than Auto gives."""
    if not frames:
        return ""
    shown = ", ".join(str(f) for f in frames[:5]) + (", ..." if len(frames) > 5 else "")
    return (
        f" At frame(s) {shown} pins or colliders moved too fast for {MAX_MOTION_SUBSTEPS} substeps to follow "
        "(the cloth may stretch or pass through itself there): slow them down or raise the frame rate."
    )
