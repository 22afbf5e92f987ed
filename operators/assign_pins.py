"""`verlet_cloth.assign_pins`: in Edit Mode, pin the selected vertices (weight 1)."""

from __future__ import annotations

import bpy
import numpy as np

from ..services import checks

DEFAULT_GROUP = "Pins"
NOT_EDIT_MODE = "Enter Edit Mode (Tab) on the cloth and select the vertices to pin, then try again."
NOTHING_SELECTED = "No vertices are selected: select the vertices to pin in Edit Mode, then try again."


class VERLET_CLOTH_OT_assign_pins(bpy.types.Operator):
    """Add the selected vertices to the cloth's pin group with weight 1 (creates "Pins" if needed)"""

    bl_idname = "verlet_cloth.assign_pins"
    bl_label = "Assign Pins"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        obj, problem = checks.active(context, lambda obj: checks.mesh_problem(obj, edit_mode_needed=NOT_EDIT_MODE))
        if problem is None and len(obj.data.edges) == 0:
            problem = checks.NO_EDGES
        if problem:
            return checks.cancel(self, problem)
        obj.update_from_editmode()
        mesh = obj.data
        selected = np.zeros(len(mesh.vertices), dtype=bool)
        mesh.vertices.foreach_get("select", selected)
        indices = np.flatnonzero(selected).tolist()
        if not indices:
            return checks.cancel(self, NOTHING_SELECTED)
        settings = obj.verlet_cloth
        name = settings.pin_group or DEFAULT_GROUP  # a group named there but missing is made with that name
        group = obj.vertex_groups.get(name) or obj.vertex_groups.new(name=name)
        bpy.ops.object.mode_set(mode="OBJECT")
        try:
            group.add(indices, 1.0, "REPLACE")
        finally:
            bpy.ops.object.mode_set(mode="EDIT")
        settings.pin_group = group.name
        self.report({"INFO"}, f"Pinned {len(indices)} vertices in the group '{group.name}'.")
        return {"FINISHED"}
