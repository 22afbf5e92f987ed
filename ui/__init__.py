"""Properties, panels and presets."""

from . import panels, properties
from .properties import register_properties, unregister_properties

CLASSES: tuple = (*properties.CLASSES, *panels.CLASSES)

__all__ = ["CLASSES", "register_properties", "unregister_properties"]
