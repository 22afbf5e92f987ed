"""Blender operators, one per module, registered through `CLASSES`; the work they do lives in `services`."""

from .assign_pins import VERLET_CLOTH_OT_assign_pins
from .bake import VERLET_CLOTH_OT_bake
from .convert import VERLET_CLOTH_OT_convert
from .drag import VERLET_CLOTH_OT_drag
from .free_bake import VERLET_CLOTH_OT_free_bake
from .make_collider import VERLET_CLOTH_OT_make_collider
from .reset import VERLET_CLOTH_OT_reset

CLASSES: tuple = (
    VERLET_CLOTH_OT_convert,
    VERLET_CLOTH_OT_reset,
    VERLET_CLOTH_OT_bake,
    VERLET_CLOTH_OT_free_bake,
    VERLET_CLOTH_OT_assign_pins,
    VERLET_CLOTH_OT_make_collider,
    VERLET_CLOTH_OT_drag,
)
