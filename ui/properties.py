"""Per-object settings: `Object.verlet_cloth` (a cloth) and `Object.verlet_cloth_collider`.

Defaults equal `solver.Params` defaults. Bake bookkeeping (which keys, action and Basis the bake
created) is stored here too, so it survives save and reload and Free Bake removes only that.
"""

from __future__ import annotations

import bpy
from bpy.props import (
    BoolProperty,
    CollectionProperty,
    EnumProperty,
    FloatProperty,
    FloatVectorProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)


def _enabled_changed(self, context) -> None:
    from ..services import checks, rest, runs, tears

    obj = self.id_data
    runs.forget(obj)

    if obj.type == "MESH":
        tears.sync_modifier(obj)
    if self.enabled:
        rest.ensure_rest(obj)
        scene = getattr(context, "scene", None)
        if scene is not None and not self.baked and checks.cloth_problem(obj) is None:
            runs.reset(scene, obj)  # the preview starts from here, as after Make Cloth
    elif obj.type == "MESH" and not self.baked:
        runs.restore_rest(obj)  # a cloth switched off shows exactly what the user made (and whole)


def _tearing_changed(self, context) -> None:
    from ..services import tears

    tears.sync_modifier(self.id_data)


def _settings_changed(self, context) -> None:
    # Mass and pin changes rebuild the cached model (cheap: Model.with_pins) at the next frame.
    from ..services import runs

    runs.mark_dirty(self.id_data)


class VerletClothBakeKey(bpy.types.PropertyGroup):
    """The name of one shape key a bake created."""

    name: StringProperty(name="Name")  # type: ignore[valid-type]


class VerletClothSettings(bpy.types.PropertyGroup):
    """Cloth settings of one mesh object."""

    enabled: BoolProperty(  # type: ignore[valid-type]
        name="Cloth",
        description="Simulate this mesh as Verlet cloth in the live preview and bakes",
        default=False,
        update=_enabled_changed,
    )
    pin_group: StringProperty(  # type: ignore[valid-type]
        name="Pin Group",
        description="Vertex group of pinned vertices: weight 1 is fixed, between 0 and 1 is pulled partway",
        default="",
        update=_settings_changed,
    )
    iterations: IntProperty(  # type: ignore[valid-type]
        name="Iterations",
        description="Constraint sweeps after each substep (more = stiffer, slower)",
        default=1,
        min=1,
        soft_max=20,
        max=1000,
    )
    substeps: IntProperty(  # type: ignore[valid-type]
        name="Substeps",
        description="Verlet steps per frame; more removes stretch and makes collisions more reliable",
        default=10,
        min=1,
        soft_max=64,
        max=1000,
    )
    damping: FloatProperty(  # type: ignore[valid-type]
        name="Damping",
        description="Fraction of velocity lost per second (1/s): 0 = none, 1 = all",
        default=0.1,
        min=0.0,
        max=1.0,
        subtype="FACTOR",
    )
    stretch_stiffness: FloatProperty(  # type: ignore[valid-type]
        name="Stretch",
        description="Stiffness of mesh edges in N/m (XPBD); the cloth's resistance to stretching",
        default=1e4,
        min=0.0,
        soft_max=1e6,
        precision=1,
    )
    shear_stiffness: FloatProperty(  # type: ignore[valid-type]
        name="Shear",
        description="Stiffness of quad diagonals in N/m (XPBD)",
        default=1e3,
        min=0.0,
        soft_max=1e6,
        precision=1,
    )
    bend_stiffness: FloatProperty(  # type: ignore[valid-type]
        name="Bend",
        description="Stiffness of skip-one pairs in N/m (XPBD); low values fold easily",
        default=2.0,
        min=0.0,
        soft_max=1e4,
        precision=2,
    )
    stretch_only: BoolProperty(  # type: ignore[valid-type]
        name="Stretch Only",
        description="Mesh edges resist stretching only, so the cloth may compress and wrinkle freely",
        default=False,
    )
    limit_stretch: BoolProperty(  # type: ignore[valid-type]
        name="Limit Stretch",
        description=(
            "Keep the cloth from stretching beyond Max Stretch through long-range limits (tethers to pins, "
            "long spans on grids). Turn off for stretchy materials, whose stretch should come from Stretch alone"
        ),
        default=True,
    )
    stretch_limit: FloatProperty(  # type: ignore[valid-type]
        name="Max Stretch",
        description="Largest stretch the long-range limits allow, as a fraction of the rest length (0.05 = 5%)",
        default=0.0,
        min=0.0,
        soft_max=0.5,
        subtype="FACTOR",
    )
    mass_mode: EnumProperty(  # type: ignore[valid-type]
        name="Mass",
        description="How the cloth's mass is given",
        items=(
            ("DENSITY", "Density", "Mass per square metre of face area (kg/m²)"),
            ("TOTAL", "Total", "Total mass of the whole cloth (kg)"),
        ),
        default="DENSITY",
        update=_settings_changed,
    )
    density: FloatProperty(  # type: ignore[valid-type]
        name="Density",
        description="Mass per square metre of cloth in kg/m² (0.15 is a light cotton)",
        default=0.15,
        min=1e-6,
        soft_max=5.0,
        precision=3,
        update=_settings_changed,
    )
    mass: FloatProperty(  # type: ignore[valid-type]
        name="Total Mass",
        description="Mass of the whole cloth in kg",
        default=1.0,
        min=1e-6,
        soft_max=100.0,
        precision=3,
        subtype="NONE",
        unit="MASS",
        update=_settings_changed,
    )
    thickness: FloatProperty(  # type: ignore[valid-type]
        name="Thickness",
        description="Distance in metres kept between the cloth and collider surfaces",
        default=0.005,
        min=0.0,
        soft_max=0.1,
        precision=4,
        subtype="DISTANCE",
        unit="LENGTH",
    )
    friction: FloatProperty(  # type: ignore[valid-type]
        name="Friction",
        description="Coulomb friction coefficient against colliders (0 = ice; unitless)",
        default=0.3,
        min=0.0,
        soft_max=2.0,
    )
    wind_direction: FloatVectorProperty(  # type: ignore[valid-type]
        name="Wind Direction",
        description="World-space direction the wind blows towards (unitless, normalised)",
        size=3,
        default=(1.0, 0.0, 0.0),
        subtype="DIRECTION",
    )
    wind_strength: FloatProperty(  # type: ignore[valid-type]
        name="Wind Speed",
        description="Wind speed in m/s (0 = no wind)",
        default=0.0,
        min=0.0,
        soft_max=30.0,
        unit="VELOCITY",
    )
    use_force_fields: BoolProperty(  # type: ignore[valid-type]
        name="Wind Force Fields",
        description=(
            "Also blow with the scene's Wind force fields: each blows along its object's +Z at "
            "Strength m/s (uniform, falloff ignored), added to this cloth's own wind"
        ),
        default=True,
    )
    turbulence: FloatProperty(  # type: ignore[valid-type]
        name="Turbulence",
        description="Gusts, as a fraction of the wind speed (0..1, unitless; 0 = steady wind)",
        default=0.0,
        min=0.0,
        max=1.0,
        subtype="FACTOR",
    )
    turbulence_scale: FloatProperty(  # type: ignore[valid-type]
        name="Gust Size",
        description="Size (wavelength) in metres of the largest gusts",
        default=1.0,
        min=1e-3,
        soft_max=20.0,
        precision=3,
        subtype="DISTANCE",
        unit="LENGTH",
    )
    wind_seed: IntProperty(  # type: ignore[valid-type]
        name="Seed",
        description="Turbulence pattern (unitless); the same seed gives the same gusts every time",
        default=0,
        min=0,
    )
    air_drag: FloatProperty(  # type: ignore[valid-type]
        name="Air Drag",
        description=(
            "Rate in 1/s at which each vertex's velocity relative to the air decays "
            "(0 = none; 1 = about 63% lost per second), faces or not"
        ),
        default=0.0,
        min=0.0,
        soft_max=10.0,
    )
    tear_factor: FloatProperty(  # type: ignore[valid-type]
        name="Tear Factor",
        description=(
            "Stretch ratio at which the cloth tears (unitless): 1.5 = an edge breaks at 150% of its "
            "rest length; 0 (or anything up to 1) = never tears. Torn faces are hidden by the "
            "'Verlet Cloth Tears' Geometry Nodes modifier from the frame they tore"
        ),
        default=0.0,
        min=0.0,
        soft_max=5.0,
        precision=2,
        update=_tearing_changed,
    )
    self_collision: BoolProperty(  # type: ignore[valid-type]
        name="Self-Collision",
        description="Keep the cloth's own non-neighbouring vertices apart, so folds do not pass through each other",
        default=False,
    )
    self_collision_distance: FloatProperty(  # type: ignore[valid-type]
        name="Distance",
        description=(
            "Distance in metres kept between non-neighbouring vertices; 0 = Auto: the larger of "
            "2 × Thickness and 0.7 × the mean rest edge length"
        ),
        default=0.0,
        min=0.0,
        soft_max=0.2,
        precision=4,
        subtype="DISTANCE",
        unit="LENGTH",
    )
    use_scene_frame_range: BoolProperty(  # type: ignore[valid-type]
        name="Scene Frame Range",
        description="Simulate and bake the scene's frame range instead of the cloth's own",
        default=True,
    )
    frame_start: IntProperty(  # type: ignore[valid-type]
        name="Start",
        description="First frame (the rest state) when not using the scene's frame range",
        default=1,
    )
    frame_end: IntProperty(  # type: ignore[valid-type]
        name="End",
        description="Last simulated frame when not using the scene's frame range",
        default=250,
    )
    # Bookkeeping, not shown in the UI.
    cloth_id: StringProperty(  # type: ignore[valid-type]
        name="Cloth ID", description="Stable identity of this cloth (services.identity)", default="", options={"HIDDEN"}
    )
    topology: StringProperty(  # type: ignore[valid-type]
        name="Topology", description="Topology signature at Make Cloth", default="", options={"HIDDEN"}
    )
    tear_modifier: StringProperty(  # type: ignore[valid-type]
        name="Tear Modifier", description="Name of the tears modifier this add-on added", default="", options={"HIDDEN"}
    )
    baked: BoolProperty(name="Baked", default=False, options={"HIDDEN"})  # type: ignore[valid-type]
    bake_start: IntProperty(name="Bake Start", default=0, options={"HIDDEN"})  # type: ignore[valid-type]
    bake_end: IntProperty(name="Bake End", default=0, options={"HIDDEN"})  # type: ignore[valid-type]
    bake_keys: CollectionProperty(type=VerletClothBakeKey, options={"HIDDEN"})  # type: ignore[valid-type]
    bake_created_basis: BoolProperty(default=False, options={"HIDDEN"})  # type: ignore[valid-type]
    bake_created_action: StringProperty(default="", options={"HIDDEN"})  # type: ignore[valid-type]
    bake_created_animation_data: BoolProperty(default=False, options={"HIDDEN"})  # type: ignore[valid-type]


class VerletClothColliderSettings(bpy.types.PropertyGroup):
    """How an object collides with Verlet cloth."""

    kind: EnumProperty(  # type: ignore[valid-type]
        name="Collider",
        description="Shape this object has for Verlet cloth",
        items=(
            ("NONE", "None", "Cloth passes through this object"),
            ("SPHERE", "Sphere", "Sphere around the object's origin, reaching its farthest vertex"),
            ("PLANE", "Plane", "Plane through the object's origin facing its local +Z"),
            ("MESH", "Mesh", "The object's evaluated mesh, every frame (modifiers, armatures, shape keys)"),
        ),
        default="NONE",
    )
    friction: FloatProperty(  # type: ignore[valid-type]
        name="Friction",
        description="Coulomb coefficient of this surface (unitless); combined with the cloth's as a geometric mean",
        default=0.3,
        min=0.0,
        soft_max=2.0,
    )
    offset: FloatProperty(  # type: ignore[valid-type]
        name="Offset",
        description="Extra distance in metres kept from this surface, added to the cloth's thickness",
        default=0.0,
        min=0.0,
        soft_max=0.2,
        precision=4,
        subtype="DISTANCE",
        unit="LENGTH",
    )
    bounded: BoolProperty(  # type: ignore[valid-type]
        name="Bounded",
        description="Limit a plane to the object's extent in its local XY instead of making it infinite",
        default=False,
    )


CLASSES = (VerletClothBakeKey, VerletClothSettings, VerletClothColliderSettings)


def register_properties() -> None:
    setattr(bpy.types.Object, "verlet_cloth", PointerProperty(type=VerletClothSettings))  # noqa: B010
    setattr(bpy.types.Object, "verlet_cloth_collider", PointerProperty(type=VerletClothColliderSettings))  # noqa: B010


def unregister_properties() -> None:
    for name in ("verlet_cloth_collider", "verlet_cloth"):
        if hasattr(bpy.types.Object, name):
            delattr(bpy.types.Object, name)
