"""`verlet_cloth.free_bake`: remove exactly what the bake added."""

from __future__ import annotations

import bpy

from ..services import baking, checks

NOT_BAKED = "This object has no Verlet Cloth bake to free: bake it first."


class VERLET_CLOTH_OT_free_bake(bpy.types.Operator):
    """Remove the baked shape keys and their animation; the user's own shape keys stay"""

    bl_idname = "verlet_cloth.free_bake"
    bl_label = "Free Bake"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        obj, problem = checks.active(context, checks.mesh_problem)
        if problem is None and not obj.verlet_cloth.baked:
            problem = NOT_BAKED
        if problem is None and checks.shares_mesh(obj):
            problem = checks.SHARED_MESH  # the keys live on the shared mesh: the other object would lose its bake
        if problem:
            return checks.cancel(self, problem)
        baking.free_bake(obj)
        return {"FINISHED"}
