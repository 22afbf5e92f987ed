"""Settings to solver input: the frame range and time step, wind, and `solver.Params`."""

from __future__ import annotations

import numpy as np

from .. import solver
from ..solver import settings as table
from .scene_reading import force_field_wind


def frame_range(scene, settings) -> tuple[int, int]:
    if settings.use_scene_frame_range:
        return int(scene.frame_start), int(scene.frame_end)
    return int(settings.frame_start), int(settings.frame_end)


def frame_time(scene) -> float:
    fps = scene.render.fps / scene.render.fps_base
    return 1.0 / fps


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
    structural = model.constraints.kind == solver.STRUCTURAL
    return float(model.constraints.rest_length[structural].mean()) if structural.any() else 0.0


def self_collision_gap(settings, mean_edge: float = 0.0) -> float:
    """Self-collision distance (m): the setting, or Auto (see `solver.settings.self_collision_gap`)."""
    return table.self_collision_gap(table.cloth_values(settings), mean_edge)


def params_of(scene, settings, mean_edge: float = 0.0) -> solver.Params:
    """Solver settings for this frame, from the settings table (solver/settings.py), each value
    clamped to its hard range; mean_edge (m) sizes the automatic self-collision distance."""
    gravity = tuple(float(g) for g in scene.gravity) if scene.use_gravity else (0.0, 0.0, 0.0)
    values = table.cloth_values(settings)  # ~25 property reads: once a frame
    return table.params_from(values, gravity, wind_of(scene, settings, values), mean_edge)  # type: ignore[arg-type]
