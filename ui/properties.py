"""Per-object settings: `Object.verlet_cloth` (a cloth) and `Object.verlet_cloth_collider`.

The settings themselves are declared once, in solver/settings.py; their properties are generated
from that table here. Bake bookkeeping (which keys, action and Basis the bake created) is stored
here too, so it survives save and reload and Free Bake removes only that.
"""

from __future__ import annotations

from typing import Any

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

from ..solver import settings as table


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


def _substeps_changed(self, context) -> None:
    # Substeps set by hand (the UI, a preset, a script) mean just that: Auto Substeps goes off.
    if self.auto_substeps:
        self.auto_substeps = False


def _rebuild_changed(self, context) -> None:
    # A setting that changes which edges are cloth edges (sewing): a new model, as after Make Cloth.
    if self.enabled:
        _enabled_changed(self, context)


class VerletClothBakeKey(bpy.types.PropertyGroup):
    """The name of one shape key a bake created."""

    name: StringProperty(name="Name")  # type: ignore[valid-type]


# What a change of a setting must do on the Blender side (Setting.update).
_UPDATES = {
    "enabled": _enabled_changed,
    "model": _settings_changed,
    "tearing": _tearing_changed,
    "rebuild": _rebuild_changed,
    "substeps": _substeps_changed,
}
# Blender's (subtype, unit) for a setting's SI unit.
_UNITS = {"m": ("DISTANCE", "LENGTH"), "kg": ("NONE", "MASS"), "m/s": ("NONE", "VELOCITY")}


def _property(setting: table.Setting):
    """The bpy.props declaration of one setting of the table."""
    options: dict[str, Any] = {"name": setting.label, "description": setting.description, "default": setting.default}
    if setting.update:
        options["update"] = _UPDATES[setting.update]
    if setting.items:
        return EnumProperty(items=setting.items, **options)
    if isinstance(setting.default, bool):
        return BoolProperty(**options)
    if isinstance(setting.default, str):
        return StringProperty(**options)
    for key in ("min", "max", "soft_min", "soft_max"):
        if getattr(setting, key) is not None:
            options[key] = getattr(setting, key)
    if isinstance(setting.default, tuple):
        options["subtype"] = setting.subtype or "NONE"
        return FloatVectorProperty(size=len(setting.default), **options)
    if isinstance(setting.default, int):
        return IntProperty(**options)
    subtype, options["unit"] = _UNITS.get(setting.unit, ("NONE", "NONE"))
    options["subtype"] = setting.subtype or subtype
    if setting.precision is not None:
        options["precision"] = setting.precision
    return FloatProperty(**options)


def _with_settings(name: str):
    """Class decorator: a property per setting of the table `table.<name>`, before the class's own.

    The annotations are strings, which Blender evaluates when it registers the class (as in any
    module with postponed annotations). Built at import instead, properties with update callbacks
    make bpy 4.2 (the module) crash with a segmentation fault when the process exits (measured).
    """

    def add(cls):
        settings = getattr(table, name)
        generated = {s.name: f"_property(table.{name}[{i}])" for i, s in enumerate(settings)}
        cls.__annotations__ = {**generated, **cls.__dict__.get("__annotations__", {})}
        return cls

    return add


@_with_settings("CLOTH")
class VerletClothSettings(bpy.types.PropertyGroup):
    """Cloth settings of one mesh object."""

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
    # The pin group as last read (services.pin_group follows a renamed group).
    pin_group_index: IntProperty(default=-1, options={"HIDDEN"})  # type: ignore[valid-type]
    pin_group_names: StringProperty(default="", options={"HIDDEN"})  # type: ignore[valid-type]
    pin_group_members: StringProperty(default="", options={"HIDDEN"})  # type: ignore[valid-type]
    baked: BoolProperty(name="Baked", default=False, options={"HIDDEN"})  # type: ignore[valid-type]
    bake_start: IntProperty(name="Bake Start", default=0, options={"HIDDEN"})  # type: ignore[valid-type]
    bake_end: IntProperty(name="Bake End", default=0, options={"HIDDEN"})  # type: ignore[valid-type]
    bake_keys: CollectionProperty(type=VerletClothBakeKey, options={"HIDDEN"})  # type: ignore[valid-type]
    bake_created_basis: BoolProperty(default=False, options={"HIDDEN"})  # type: ignore[valid-type]
    bake_created_action: StringProperty(default="", options={"HIDDEN"})  # type: ignore[valid-type]
    bake_created_animation_data: BoolProperty(default=False, options={"HIDDEN"})  # type: ignore[valid-type]


@_with_settings("COLLIDER")
class VerletClothColliderSettings(bpy.types.PropertyGroup):
    """How an object collides with Verlet cloth."""


CLASSES = (VerletClothBakeKey, VerletClothSettings, VerletClothColliderSettings)


def register_properties() -> None:
    setattr(bpy.types.Object, "verlet_cloth", PointerProperty(type=VerletClothSettings))  # noqa: B010
    setattr(bpy.types.Object, "verlet_cloth_collider", PointerProperty(type=VerletClothColliderSettings))  # noqa: B010


def unregister_properties() -> None:
    for name in ("verlet_cloth_collider", "verlet_cloth"):
        if hasattr(bpy.types.Object, name):
            delattr(bpy.types.Object, name)
