"""Blender operators, the frame handler, scene readers and shape-key writers."""

CLASSES: tuple = ()
