"""Every user-facing setting, declared once: the cloth's (`Object.verlet_cloth`) and a collider's
(`Object.verlet_cloth_collider`).

Blender's PropertyGroups (ui/properties.py) are generated from these tables, and `params_from`
maps a cloth's values to `Params`. A setting that feeds a `Params` field names it (`param`) and
takes its default from `Params`, so a default is written in one place. The hard ranges keep the
solver finite; the soft ranges are what the UI's sliders offer. Pure Python: no bpy here.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .params import MAX_SUBSTEPS, MIN_AUTO_SELF_COLLISION_GAP, Params, auto_substeps

# Blender's frame limits (MINAFRAME, MAXFRAME): a key outside them can never be shown.
MIN_FRAME, MAX_FRAME = -1048574, 1048574


@dataclass(frozen=True)
class Setting:
    """One setting: its property name, UI text, unit, ranges and where it goes in the solver.

    unit: the SI unit ("m", "kg", "m/s", "N/m", "1/s", "kg/m²", "Pa"; "" = unitless), also said in the
    description. subtype: Blender's display subtype where the unit does not imply it ("FACTOR",
    "DIRECTION"). items: an enum's (identifier, label, description) triples. update: what a change
    must do on the Blender side ("enabled", "model": rebuild masses and pins, "tearing", "rebuild":
    a new model from the mesh, as after Make Cloth; "substeps": Auto Substeps off).
    """

    name: str
    label: str
    description: str
    default: Any = None  # None: the default of `Params.<param>`
    unit: str = ""
    min: float | None = None
    max: float | None = None
    soft_min: float | None = None
    soft_max: float | None = None
    precision: int | None = None
    subtype: str = ""
    items: tuple[tuple[str, str, str], ...] = ()
    param: str | None = None
    update: str = ""

    def clamp(self, value: Any) -> Any:
        """`value` within the hard range (NaN → the default); values of other kinds unchanged.

        Blender clamps what the UI and Python assign, but not what an older file or an ID
        property written by hand holds.
        """
        low = -math.inf if self.min is None else self.min
        high = math.inf if self.max is None else self.max
        if isinstance(self.default, tuple):  # a vector: each component, NaN → the default's
            return tuple(
                d if math.isnan(float(c)) else min(max(float(c), low), high) for c, d in zip(value, self.default)
            )
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return value
        if isinstance(value, float) and math.isnan(value):
            return self.default
        return type(self.default)(min(max(value, low), high))


def _resolved(*settings: Setting) -> tuple[Setting, ...]:
    defaults = {f.name: f.default for f in dataclasses.fields(Params)}
    return tuple(
        dataclasses.replace(s, default=defaults[s.param]) if s.default is None and s.param is not None else s
        for s in settings
    )


CLOTH: tuple[Setting, ...] = _resolved(
    Setting(
        "enabled",
        "Cloth",
        "Simulate this mesh as Verlet cloth in the live preview and bakes",
        default=False,
        update="enabled",
    ),
    Setting(
        "pin_group",
        "Pin Group",
        "Vertex group of pinned vertices: weight 1 is fixed, between 0 and 1 is pulled partway",
        default="",
        update="model",
    ),
    # Substeps × iterations is the cost of a frame: the ceilings keep one preview frame within
    # seconds even on a large cloth (100 × 20 is 200× the default work).
    Setting(
        "auto_substeps",
        "Auto Substeps",
        "Choose the substeps from the frame rate and the cloth's edge length, so fine and small cloth "
        "stretches no more than coarse cloth, and the motion is the same at any frame rate; frames in "
        "which pins or colliders near the cloth move fast, or pins accelerate hard, get more (at most 100)",
        default=True,
        param="substeps_follow_motion",
    ),
    Setting(
        "substeps",
        "Substeps",
        "Verlet steps per frame; more removes stretch and makes collisions more reliable. Setting it "
        "turns Auto Substeps off",
        min=1,
        max=MAX_SUBSTEPS,
        soft_max=64,
        param="substeps",
        update="substeps",
    ),
    Setting(
        "iterations",
        "Iterations",
        "Constraint sweeps after each substep (more = stiffer, slower)",
        min=1,
        max=20,
        soft_max=10,
        param="iterations",
    ),
    Setting(
        "damping",
        "Damping",
        "Fraction of velocity lost per second (1/s): 0 = none, 1 = all",
        min=0.0,
        max=1.0,
        subtype="FACTOR",
        param="damping",
    ),
    Setting(
        "stretch_stiffness",
        "Stretch",
        "Stiffness of mesh edges in N/m (XPBD); the cloth's resistance to stretching",
        unit="N/m",
        min=0.0,
        max=1e9,
        soft_max=1e6,
        precision=1,
        param="stretch_stiffness",
    ),
    Setting(
        "shear_stiffness",
        "Shear",
        "Stiffness of quad diagonals in N/m (XPBD)",
        unit="N/m",
        min=0.0,
        max=1e9,
        soft_max=1e6,
        precision=1,
        param="shear_stiffness",
    ),
    Setting(
        "bend_stiffness",
        "Bend",
        "Bending stiffness in N/m (XPBD): resists curving away from the rest shape; low values fold easily",
        unit="N/m",
        min=0.0,
        max=1e9,
        soft_max=1e4,
        precision=2,
        param="bend_stiffness",
    ),
    Setting(
        "stretch_only",
        "Stretch Only",
        "Mesh edges resist stretching only, so the cloth may compress and wrinkle freely",
        param="stretch_only",
    ),
    Setting(
        "limit_stretch",
        "Limit Stretch",
        "Keep the cloth from stretching beyond Max Stretch through long-range limits (tethers to pins, "
        "long spans on grids). Turn off for stretchy materials, whose stretch should come from Stretch alone",
        default=True,
    ),
    Setting(
        "stretch_limit",
        "Max Stretch",
        "Largest stretch the long-range limits allow, as a fraction of the rest length (0.05 = 5%)",
        min=0.0,
        max=10.0,
        soft_max=0.5,
        subtype="FACTOR",
        param="stretch_limit",
    ),
    Setting(
        "mass_mode",
        "Mass",
        "How the cloth's mass is given",
        default="DENSITY",
        items=(
            ("DENSITY", "Density", "Mass per square metre of face area (kg/m²)"),
            ("TOTAL", "Total", "Total mass of the whole cloth (kg)"),
        ),
        update="model",
    ),
    Setting(
        "density",
        "Density",
        "Mass per square metre of cloth in kg/m² (0.15 is a light cotton)",
        default=0.15,
        unit="kg/m²",
        min=1e-6,
        max=1e3,
        soft_max=5.0,
        precision=3,
        update="model",
    ),
    Setting(
        "mass",
        "Total Mass",
        "Mass of the whole cloth in kg",
        default=1.0,
        unit="kg",
        min=1e-6,
        max=1e6,
        soft_max=100.0,
        precision=3,
        update="model",
    ),
    Setting(
        "thickness",
        "Thickness",
        "Distance in metres kept between the cloth and collider surfaces",
        unit="m",
        min=0.0,
        max=1.0,
        soft_max=0.1,
        precision=4,
        param="thickness",
    ),
    Setting(
        "friction",
        "Friction",
        "Coulomb friction coefficient against colliders (0 = ice; unitless)",
        min=0.0,
        max=10.0,
        soft_max=2.0,
        param="friction",
    ),
    Setting(
        "wind_direction",
        "Wind Direction",
        "World-space direction the wind blows towards (unitless, normalised)",
        default=(1.0, 0.0, 0.0),
        subtype="DIRECTION",  # no range: any finite vector is normalised; clamping components would turn it
    ),
    Setting(
        "wind_strength",
        "Wind Speed",
        "Wind speed in m/s (0 = no wind)",
        default=0.0,
        unit="m/s",
        min=0.0,
        max=100.0,
        soft_max=30.0,
    ),
    Setting(
        "use_force_fields",
        "Wind Force Fields",
        "Also blow with the scene's Wind force fields: each blows along its object's +Z at "
        "Strength m/s (uniform, falloff ignored), added to this cloth's own wind",
        default=True,
    ),
    Setting(
        "turbulence",
        "Turbulence",
        "Gusts, as a fraction of the wind speed (0..1, unitless; 0 = steady wind)",
        min=0.0,
        max=1.0,
        subtype="FACTOR",
        param="turbulence",
    ),
    Setting(
        "turbulence_scale",
        "Gust Size",
        "Size (wavelength) in metres of the largest gusts",
        unit="m",
        min=1e-3,
        max=1e3,
        soft_max=20.0,
        precision=3,
        param="turbulence_scale",
    ),
    Setting(
        "wind_seed",
        "Seed",
        "Turbulence pattern (unitless); the same seed gives the same gusts every time",
        min=0,
        max=2**31 - 1,
        param="seed",
    ),
    Setting(
        "air_drag",
        "Air Drag",
        "Rate in 1/s at which each vertex's velocity relative to the air decays, faces or not "
        "(0 = none; 1 = about 63% lost per second); above 0 the faces also feel still air as "
        "they feel wind",
        unit="1/s",
        min=0.0,
        max=100.0,
        soft_max=10.0,
        param="air_drag",
    ),
    Setting(
        "tear_factor",
        "Tear Factor",
        "Stretch ratio at which the cloth tears (unitless): 1.5 = an edge breaks at 150% of its "
        "rest length; 0 (or anything up to 1) = never tears. Torn faces are hidden by the "
        "'Verlet Cloth Tears' Geometry Nodes modifier from the frame they tore",
        min=0.0,
        max=100.0,
        soft_max=5.0,
        precision=2,
        param="tear_factor",
        update="tearing",
    ),
    Setting(
        "self_collision",
        "Self-Collision",
        "Keep the cloth from passing through itself: its non-neighbouring vertices apart, or with Faces its "
        "vertices off its faces and its edges off each other",
        param="self_collision",
    ),
    Setting(
        "self_collision_distance",
        "Distance",
        "Distance in metres kept between non-neighbouring parts; 0 = Auto: 2 × Thickness with Faces, "
        "else the larger of 2 × Thickness and 0.7 × the mean rest edge length; at least 1 mm",
        unit="m",
        min=0.0,
        max=1.0,
        soft_max=0.2,
        precision=4,
        param="self_collision_distance",
    ),
    Setting(
        "self_collision_faces",
        "Faces",
        "Collide vertices with faces and edges with edges, not just vertices with vertices: folded and "
        "crumpled cloth never passes through itself, but it costs 10-200 times a plain step on fine cloth",
        param="self_collision_faces",
    ),
    # Garments (solver/seams.py, solver/pressure.py). Sewing decides which edges are cloth edges, so
    # changing it rebuilds the model ("rebuild"); the others are per-step settings.
    Setting(
        "use_sewing",
        "Sewing",
        "The mesh's loose edges (edges with no face) become seams that pull their two ends together, "
        "down to zero length, and then hold them: sew flat panels into garments. Off: loose edges are "
        "ordinary cloth edges (ropes)",
        default=False,
        update="rebuild",
    ),
    Setting(
        "sewing_stiffness",
        "Seam Stiffness",
        "How firmly a seam pulls its ends together and holds them, in N/m (XPBD: a spring of this "
        "stiffness between the two ends; 1e4 N/m holds like the cloth's own edges)",
        unit="N/m",
        min=0.0,
        max=1e9,
        soft_max=1e6,
        precision=1,
        param="sewing_stiffness",
    ),
    Setting(
        "sewing_speed",
        "Seam Speed",
        "Fastest a seam closes, in m/s: the gap between its ends shrinks at most this fast (easing "
        "out near the end), so seams close smoothly instead of snapping",
        unit="m/s",
        min=1e-3,
        max=100.0,
        soft_max=10.0,
        precision=2,
        param="sewing_speed",
    ),
    Setting(
        "shrink",
        "Shrink",
        "Fraction the cloth's rest lengths shrink by (unitless): 0.1 = every edge 10% shorter, so the "
        "cloth tightens, e.g. around a body; negative values grow it",
        min=-1.0,
        max=0.9,
        soft_min=-0.5,
        soft_max=0.5,
        precision=3,
        param="shrink",
    ),
    Setting(
        "use_pressure",
        "Pressure",
        "Air pressure inside a closed mesh (every edge in two faces; sewn seams count as closing it) "
        "pushes the cloth out (or pulls it in): pillows, balloons, cushions",
        default=False,
    ),
    Setting(
        "pressure",
        "Pressure",
        "Air pressure inside the closed cloth in Pa, above the outside air: positive inflates, negative "
        "deflates. A few Pa hold a light cloth's shape against gravity (0.15 kg/m² weighs 1.5 Pa); "
        "tens of Pa make it taut",
        default=10.0,
        unit="Pa",
        min=-1e6,
        max=1e6,
        soft_min=-1000.0,
        soft_max=1000.0,
        precision=2,
        param="pressure",
    ),
    Setting(
        "use_scene_frame_range",
        "Scene Frame Range",
        "Simulate and bake the scene's frame range instead of the cloth's own",
        default=True,
    ),
    Setting(
        "frame_start",
        "Start",
        "First frame (the rest state) when not using the scene's frame range",
        default=1,
        min=MIN_FRAME,
        max=MAX_FRAME,
    ),
    Setting(
        "frame_end",
        "End",
        "Last simulated frame when not using the scene's frame range",
        default=250,
        min=MIN_FRAME,
        max=MAX_FRAME,
    ),
)

COLLIDER: tuple[Setting, ...] = (
    Setting(
        "kind",
        "Collider",
        "Shape this object has for Verlet cloth",
        default="NONE",
        items=(
            ("NONE", "None", "Cloth passes through this object"),
            ("SPHERE", "Sphere", "Sphere around the object's origin, reaching its farthest vertex"),
            ("PLANE", "Plane", "Plane through the object's origin facing its local +Z"),
            ("MESH", "Mesh", "The object's evaluated mesh, every frame (modifiers, armatures, shape keys)"),
        ),
    ),
    Setting(
        "friction",
        "Friction",
        "Coulomb coefficient of this surface (unitless); combined with the cloth's as a geometric mean",
        default=0.3,
        min=0.0,
        max=10.0,
        soft_max=2.0,
    ),
    Setting(
        "offset",
        "Offset",
        "Extra distance in metres kept from this surface, added to the cloth's thickness",
        default=0.0,
        unit="m",
        min=0.0,
        max=1.0,
        soft_max=0.2,
        precision=4,
    ),
    Setting(
        "bounded",
        "Bounded",
        "Limit a plane to the object's extent in its local XY instead of making it infinite",
        default=False,
    ),
)

# Params fields no cloth setting feeds: the scene's gravity, the wind (direction × speed plus the
# scene's force fields) and constants of the air and of the velocity clamp.
SOLVER_ONLY = frozenset({"gravity", "wind", "air_density", "wind_coefficient", "max_speed"})

_CLOTH = {s.name: s for s in CLOTH}
_COLLIDER = {s.name: s for s in COLLIDER}


def values_of(table: tuple[Setting, ...], source: Any) -> dict[str, Any]:
    """{name: value} of every setting in `table`, read from `source` (attributes, e.g. a
    PropertyGroup, or a mapping; a missing one is its default) and clamped to its hard range."""
    values = {}
    for s in table:
        raw = source.get(s.name, s.default) if isinstance(source, Mapping) else getattr(source, s.name, s.default)
        values[s.name] = s.clamp(raw)
    return values


def cloth_values(source: Any) -> dict[str, Any]:
    """The cloth settings of `source`, clamped (see `values_of`)."""
    return values_of(CLOTH, source)


def collider_values(source: Any) -> dict[str, Any]:
    """A collider's settings of `source`, clamped (see `values_of`)."""
    return values_of(COLLIDER, source)


def self_collision_gap(values: Mapping[str, Any], mean_edge: float = 0.0) -> float:
    """Self-collision distance (m): the setting, or Auto (0): the cloth's thickness on both layers
    (2 × thickness) with face contacts; with vertex–vertex, max(2 × thickness, 0.7 × mean edge);
    never below MIN_AUTO_SELF_COLLISION_GAP (a thickness of 0 must not switch it off).

    0.7 (just over half a diagonal, 1/√2) keeps a vertex from slipping through the middle of a
    square face of the other layer, which vertex–vertex collision alone would allow.
    """
    if values["self_collision_distance"] > 0:
        return float(values["self_collision_distance"])
    if values["self_collision_faces"]:
        return max(2.0 * float(values["thickness"]), MIN_AUTO_SELF_COLLISION_GAP)
    return max(2.0 * float(values["thickness"]), 0.7 * float(mean_edge), MIN_AUTO_SELF_COLLISION_GAP)


def own_wind(values: Mapping[str, Any]) -> tuple[float, float, float]:
    """(3,) m/s: the cloth's own wind, direction (normalised) × speed; 0 for a zero direction."""
    direction = [float(c) if math.isfinite(c) else 0.0 for c in values["wind_direction"]]
    length = math.sqrt(sum(c * c for c in direction))
    if not length > 0 or not math.isfinite(length):
        return (0.0, 0.0, 0.0)
    speed = float(values["wind_strength"]) / length
    return (direction[0] * speed, direction[1] * speed, direction[2] * speed)


def params_from(
    values: Mapping[str, Any],
    gravity: tuple[float, float, float] = (0.0, 0.0, -9.81),
    wind: tuple[float, float, float] | None = None,
    mean_edge: float = 0.0,
    frame_time: float | None = None,
    vertex_count: int = 0,
) -> Params:
    """Solver settings for a cloth's values (see `cloth_values`).

    gravity: the scene's (m/s²). wind: the whole wind (m/s) when the caller adds the scene's
    force fields to `own_wind(values)`; by default the cloth's own. mean_edge (m) sizes the
    automatic self-collision distance and, with frame_time (s) and vertex_count, the automatic substeps.
    """
    fields = {s.param: values[s.name] for s in CLOTH if s.param is not None}
    if values["auto_substeps"] and frame_time is not None:
        fields["substeps"] = auto_substeps(frame_time, mean_edge, gravity, vertex_count)
    fields["stretch_limit"] = values["stretch_limit"] if values["limit_stretch"] else math.inf
    fields["tear_factor"] = values["tear_factor"] if values["tear_factor"] > 1.0 else 0.0  # ≤ 1 tears at rest
    fields["self_collision_distance"] = self_collision_gap(values, mean_edge)
    fields["pressure"] = values["pressure"] if values["use_pressure"] else 0.0
    return Params(gravity=gravity, wind=own_wind(values) if wind is None else wind, **fields)
