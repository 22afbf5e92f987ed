"""`verlet_cloth.assign_pins`: in Edit Mode, pin the selected vertices (weight 1)."""

from __future__ import annotations

import bpy
import numpy as np

from . import simulation

DEFAULT_GROUP = "Pins"
NOT_EDIT_MODE = "Enter Edit Mode (Tab) on the cloth and select the vertices to pin, then try again."
NOTHING_SELECTED = "No vertices are selected: select the vertices to pin in Edit Mode, then try again."


class VERLET_CLOTH_OT_assign_pins(bpy.types.Operator):
    """Add the selected vertices to the cloth's pin group with weight 1 (creates "Pins" if needed)"""

    bl_idname = "verlet_cloth.assign_pins"
    bl_label = "Assign Pins"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        obj = getattr(context, "active_object", None)
        if obj is None:
            problem: str | None = simulation.NO_OBJECT
        elif obj.type != "MESH":
            problem = simulation.NOT_MESH
        elif obj.mode != "EDIT":
            problem = NOT_EDIT_MODE
        elif len(obj.data.edges) == 0:
            problem = simulation.NO_EDGES
        else:
            problem = None
        if problem:
            self.report({"ERROR"}, problem)
            return {"CANCELLED"}
        obj.update_from_editmode()
        mesh = obj.data
        selected = np.zeros(len(mesh.vertices), dtype=bool)
        mesh.vertices.foreach_get("select", selected)
        indices = np.flatnonzero(selected).tolist()
        if not indices:
            self.report({"ERROR"}, NOTHING_SELECTED)
            return {"CANCELLED"}
        settings = obj.verlet_cloth
        name = settings.pin_group
        if not name or obj.vertex_groups.get(name) is None:
            name = DEFAULT_GROUP
        group = obj.vertex_groups.get(name) or obj.vertex_groups.new(name=name)
        bpy.ops.object.mode_set(mode="OBJECT")
        try:
            group.add(indices, 1.0, "REPLACE")
        finally:
            bpy.ops.object.mode_set(mode="EDIT")
        settings.pin_group = group.name
        self.report({"INFO"}, f"Pinned {len(indices)} vertices in the group '{group.name}'.")
        return {"FINISHED"}
