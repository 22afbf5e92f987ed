"""`verlet_cloth.reset`: the live preview's state back to the rest shape."""

from __future__ import annotations

import bpy

from ..services import checks, runs

BAKED = "This cloth is baked and plays its bake back: press Free Bake first to simulate it live again."


class VERLET_CLOTH_OT_reset(bpy.types.Operator):
    """Put the cloth back in its rest shape and restart the live preview from the current frame"""

    bl_idname = "verlet_cloth.reset"
    bl_label = "Reset"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        # baked: resetting would hide the bake behind the rest shape and drop its tears
        obj, problem = checks.active_unbaked(context, checks.cloth_problem, BAKED)
        if problem:
            return checks.cancel(self, problem)
        runs.reset(context.scene, obj)
        return {"FINISHED"}
