"""Properties, panels and presets."""

from . import panels, preset_menu, properties
from .properties import register_properties, unregister_properties

CLASSES: tuple = (*properties.CLASSES, *panels.CLASSES, *preset_menu.CLASSES)

__all__ = ["CLASSES", "register_properties", "unregister_properties"]
