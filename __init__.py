"""Verlet Cloth: fast Verlet cloth for Blender that drapes, previews live and bakes to shape keys."""

import importlib.util

# pytest imports this file too: as a bare module named "__init__" (no package), or, when the
# checkout's folder name is an identifier, as a package without bpy in the pure NumPy 2 suite. Only
# the add-on, loaded by Blender as a package, imports the Blender side.
if __package__ and importlib.util.find_spec("bpy") is not None:
    import bpy

    from . import operators, ui
    from .services import cli, preview
    from .ui import preset_menu

    # Every Blender class, registered in this order and unregistered in reverse.
    CLASSES = (*ui.CLASSES, *operators.CLASSES)

    def register() -> None:
        for cls in CLASSES:
            bpy.utils.register_class(cls)
        ui.register_properties()
        preview.register_handlers()
        preset_menu.register()
        cli.register_command()

    def unregister() -> None:
        cli.unregister_command()
        preset_menu.unregister()
        preview.unregister_handlers()
        preview.remove_displays()
        ui.unregister_properties()
        for cls in reversed(CLASSES):
            bpy.utils.unregister_class(cls)
