"""Material presets (cotton, silk, denim, leather, rubber) through Blender's preset system.

The bundled presets are Python scripts in `ui/presets/verlet_cloth/`, registered as a preset
search path, so they are found without writing into the extension folder. Presets that users add
go to Blender's user preset folder (`scripts/presets/verlet_cloth/`), which `AddPresetBase`
handles; bundled presets are read-only there (Blender refuses to remove presets inside an
extension).

The menu, with add and remove buttons, is a "Presets" sub-panel of the cloth Settings panel
(issue 3's `VIEW3D_PT_verlet_cloth_settings`), registered only when that panel is; any other panel
can show it with `draw_presets(layout)`.
"""

from __future__ import annotations

import os

import bpy
from bpy.types import Menu, Operator

from bl_operators.presets import AddPresetBase

# Preset files live in <this folder>/presets/<PRESET_SUBDIR>/.
PRESET_SUBDIR = "verlet_cloth"
PRESET_ROOT = os.path.dirname(os.path.abspath(__file__))
BUNDLED_DIR = os.path.join(PRESET_ROOT, "presets", PRESET_SUBDIR)

# Settings on `Object.verlet_cloth` that a material preset stores.
PRESET_PROPERTIES = (
    "mass_mode",
    "density",
    "stretch_stiffness",
    "shear_stiffness",
    "bend_stiffness",
    "damping",
    "friction",
    "thickness",
)


def _has_cloth_settings(context: bpy.types.Context) -> bool:
    obj = context.object
    return obj is not None and obj.type == "MESH" and getattr(obj, "verlet_cloth", None) is not None


class VERLET_CLOTH_MT_presets(Menu):
    """Material presets for Verlet Cloth"""

    bl_label = "Cloth Presets"
    preset_subdir = PRESET_SUBDIR
    preset_operator = "script.execute_preset"
    preset_add_operator = "verlet_cloth.preset_add"

    def draw(self, _context: bpy.types.Context | None) -> None:
        # Menu.draw_preset, plus the bundled folder on a Blender without register_preset_path.
        paths = bpy.utils.preset_paths(PRESET_SUBDIR)
        if BUNDLED_DIR not in paths:
            paths = [*paths, BUNDLED_DIR]
        self.path_menu(
            paths,
            self.preset_operator,
            filter_ext=lambda ext: ext.lower() == ".py",
            add_operator=self.preset_add_operator,
            display_name=lambda name: bpy.path.display_name(name, title_case=False),
        )


class VERLET_CLOTH_OT_preset_add(AddPresetBase, Operator):
    """Add a Verlet Cloth material preset from the active object's settings, or remove one"""

    bl_idname = "verlet_cloth.preset_add"
    bl_label = "Add Cloth Preset"
    preset_menu = "VERLET_CLOTH_MT_presets"
    preset_subdir = PRESET_SUBDIR
    preset_defines = ["cloth = bpy.context.object.verlet_cloth"]
    preset_values = [f"cloth.{name}" for name in PRESET_PROPERTIES]

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return _has_cloth_settings(context)


def draw_presets(layout: bpy.types.UILayout) -> None:
    """The preset menu with add and remove buttons, for the cloth panel."""
    row = layout.row(align=True)
    row.menu(VERLET_CLOTH_MT_presets.__name__, text=VERLET_CLOTH_MT_presets.bl_label)
    row.operator(VERLET_CLOTH_OT_preset_add.bl_idname, text="", icon="ADD")
    remove = row.operator(VERLET_CLOTH_OT_preset_add.bl_idname, text="", icon="REMOVE")
    remove.remove_active = True


# The panel the presets sub-panel belongs to, when the add-on has it.
SETTINGS_PANEL = "VIEW3D_PT_verlet_cloth_settings"


class VIEW3D_PT_verlet_cloth_presets(bpy.types.Panel):
    """Material presets for the active cloth"""

    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Cloth"
    bl_label = "Presets"
    bl_parent_id = SETTINGS_PANEL

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return _has_cloth_settings(context)

    def draw(self, _context: bpy.types.Context) -> None:
        if self.layout is not None:
            draw_presets(self.layout)


def bundled_presets() -> list[str]:
    """Paths of the presets shipped with the add-on, sorted by name."""
    return sorted(os.path.join(BUNDLED_DIR, name) for name in os.listdir(BUNDLED_DIR) if name.endswith(".py"))


def register() -> None:
    register_path = getattr(bpy.utils, "register_preset_path", None)
    if register_path is not None and BUNDLED_DIR not in bpy.utils.preset_paths(PRESET_SUBDIR):
        register_path(PRESET_ROOT)
    if hasattr(bpy.types, SETTINGS_PANEL) and not VIEW3D_PT_verlet_cloth_presets.is_registered:
        bpy.utils.register_class(VIEW3D_PT_verlet_cloth_presets)


def unregister() -> None:
    if VIEW3D_PT_verlet_cloth_presets.is_registered:
        bpy.utils.unregister_class(VIEW3D_PT_verlet_cloth_presets)
    unregister_path = getattr(bpy.utils, "unregister_preset_path", None)
    if unregister_path is not None and BUNDLED_DIR in bpy.utils.preset_paths(PRESET_SUBDIR):
        unregister_path(PRESET_ROOT)


CLASSES = (VERLET_CLOTH_MT_presets, VERLET_CLOTH_OT_preset_add)
