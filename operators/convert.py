"""`verlet_cloth.convert`: the active mesh becomes a cloth, at rest in its current shape."""

from __future__ import annotations

import bpy
import numpy as np

from ..services import checks, rest, runs, scene_reading

BAKED = "This cloth is baked: press Free Bake first, then Make Cloth again."
NOT_NUMBERS = (
    "Some of the mesh's vertex positions are not numbers (NaN or infinite): fix them in Edit Mode "
    "(move or delete those vertices), then try again."
)


class VERLET_CLOTH_OT_convert(bpy.types.Operator):
    """Make the active mesh a Verlet cloth, resting in its current shape"""

    bl_idname = "verlet_cloth.convert"
    bl_label = "Make Cloth"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        obj, problem = checks.active(context, checks.object_problem)
        if problem is None and obj.verlet_cloth.baked:
            problem = BAKED
        if problem is None and not np.isfinite(scene_reading.read_vectors(obj.data.vertices)).all():
            problem = NOT_NUMBERS
        if problem:
            return checks.cancel(self, problem)
        rest.capture_rest(obj)
        runs.forget(obj)
        obj.verlet_cloth.enabled = True  # its update starts the preview here (runs.reset), once
        if runs.cached(obj) is None:
            runs.reset(context.scene, obj)
        if note := checks.geometry_modifiers_note(obj):
            self.report({"WARNING"}, note)
        return {"FINISHED"}
