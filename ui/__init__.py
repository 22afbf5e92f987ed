"""Properties, panels and presets."""

from . import preset_menu

CLASSES: tuple = (*preset_menu.CLASSES,)
