"""`verlet_cloth.free_bake`: remove exactly what the bake added."""

from __future__ import annotations

import bpy

from . import baking, simulation

NOT_BAKED = "This object has no Verlet Cloth bake to free: bake it first."


class VERLET_CLOTH_OT_free_bake(bpy.types.Operator):
    """Remove the baked shape keys and their animation; the user's own shape keys stay"""

    bl_idname = "verlet_cloth.free_bake"
    bl_label = "Free Bake"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        obj = getattr(context, "active_object", None)
        if obj is None:
            problem: str | None = simulation.NO_OBJECT
        elif obj.type != "MESH":
            problem = simulation.NOT_MESH
        elif obj.mode == "EDIT":
            problem = simulation.EDIT_MODE
        elif not obj.verlet_cloth.baked:
            problem = NOT_BAKED
        else:
            problem = None
        if problem:
            self.report({"ERROR"}, problem)
            return {"CANCELLED"}
        baking.free_bake(obj)
        return {"FINISHED"}
