"""Settings to solver input: the frame range and time step, wind, and `solver.Params`."""

from __future__ import annotations

import numpy as np

from .. import solver
from .scene_reading import force_field_wind


def frame_range(scene, settings) -> tuple[int, int]:
    if settings.use_scene_frame_range:
        return int(scene.frame_start), int(scene.frame_end)
    return int(settings.frame_start), int(settings.frame_end)


def frame_time(scene) -> float:
    fps = scene.render.fps / scene.render.fps_base
    return 1.0 / fps


def wind_of(scene, settings) -> tuple[float, float, float]:
    """(3,) m/s: the cloth's own wind (direction × speed) plus the scene's Wind force fields."""
    direction = np.array(settings.wind_direction, dtype=np.float64)
    length = float(np.linalg.norm(direction))
    wind = direction / length * float(settings.wind_strength) if length > 0 else np.zeros(3)
    if settings.use_force_fields:
        wind = wind + force_field_wind(scene)
    wind = np.nan_to_num(wind)
    return (float(wind[0]), float(wind[1]), float(wind[2]))


def mean_edge_length(model: solver.Model) -> float:
    """Mean rest length (m) of the model's structural (mesh-edge) constraints; 0 without any."""
    structural = model.constraints.kind == solver.STRUCTURAL
    return float(model.constraints.rest_length[structural].mean()) if structural.any() else 0.0


def self_collision_gap(settings, mean_edge: float = 0.0) -> float:
    """Self-collision distance (m): the setting, or Auto (0): max(2 × thickness, 0.7 × mean edge).

    0.7 (just over half a diagonal, 1/√2) keeps a vertex from slipping through the middle of a
    square face of the other layer, which vertex–vertex collision alone would allow.
    """
    if settings.self_collision_distance > 0:
        return float(settings.self_collision_distance)
    return max(2.0 * float(settings.thickness), 0.7 * float(mean_edge))


def params_of(scene, settings, mean_edge: float = 0.0) -> solver.Params:
    """Solver settings for this frame; mean_edge (m) sizes the automatic self-collision distance."""
    gravity = tuple(float(g) for g in scene.gravity) if scene.use_gravity else (0.0, 0.0, 0.0)
    tear = float(settings.tear_factor)
    return solver.Params(
        gravity=gravity,  # type: ignore[arg-type]
        substeps=int(settings.substeps),
        iterations=int(settings.iterations),
        damping=float(settings.damping),
        stretch_stiffness=float(settings.stretch_stiffness),
        shear_stiffness=float(settings.shear_stiffness),
        bend_stiffness=float(settings.bend_stiffness),
        stretch_only=bool(settings.stretch_only),
        stretch_limit=float(settings.stretch_limit) if settings.limit_stretch else float("inf"),
        thickness=float(settings.thickness),
        friction=float(settings.friction),
        wind=wind_of(scene, settings),
        turbulence=float(settings.turbulence),
        turbulence_scale=float(settings.turbulence_scale),
        seed=int(settings.wind_seed),
        air_drag=float(settings.air_drag),
        tear_factor=tear if tear > 1.0 else 0.0,  # up to 1 would tear at rest: off
        self_collision=bool(settings.self_collision),
        self_collision_distance=self_collision_gap(settings, mean_edge),
    )
