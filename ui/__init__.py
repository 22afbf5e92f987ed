"""Properties, panels and presets."""

CLASSES: tuple = ()
