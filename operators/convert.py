"""`verlet_cloth.convert`: the active mesh becomes a cloth, at rest in its current shape."""

from __future__ import annotations

import bpy

from ..services import checks, rest, runs

BAKED = "This cloth is baked: press Free Bake first, then Make Cloth again."


class VERLET_CLOTH_OT_convert(bpy.types.Operator):
    """Make the active mesh a Verlet cloth, resting in its current shape"""

    bl_idname = "verlet_cloth.convert"
    bl_label = "Make Cloth"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        obj, problem = checks.active_unbaked(context, checks.object_problem, BAKED)
        if problem is None and not checks.finite_rest(obj):
            problem = checks.NOT_NUMBERS
        if problem:
            return checks.cancel(self, problem)
        rest.capture_rest(obj)
        runs.forget(obj)
        obj.verlet_cloth.enabled = True  # its update starts the preview here (runs.reset), once
        if runs.cached(obj) is None:
            runs.reset(context.scene, obj)
        for note in (checks.geometry_modifiers_note(obj), *checks.cloth_notes(obj)):
            if note:
                self.report({"WARNING"}, note)
        return {"FINISHED"}
