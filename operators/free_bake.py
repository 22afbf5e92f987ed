"""`verlet_cloth.free_bake`: remove exactly what the bake added, from the active cloth and every other
selected baked cloth (as Bake bakes every selected cloth)."""

from __future__ import annotations

import bpy

from ..services import baking, checks

NOT_BAKED = "This object has no Verlet Cloth bake to free: bake it first."


def _baked(obj) -> bool:
    return obj.type == "MESH" and obj.verlet_cloth.baked


def _problem(obj) -> str | None:
    problem = checks.mesh_problem(obj)
    if problem is None and checks.linked(obj):
        problem = checks.LINKED  # the keys live in the library's mesh: freed here, back on reopening
    if problem is None and not obj.verlet_cloth.baked:
        problem = NOT_BAKED
    if problem is None and checks.shares_mesh(obj):
        problem = checks.SHARED_MESH  # the keys live on the shared mesh: the other object would lose its bake
    return problem


class VERLET_CLOTH_OT_free_bake(bpy.types.Operator):
    """Remove the baked shape keys and their animation of the selected cloths; the user's own shape keys stay"""

    bl_idname = "verlet_cloth.free_bake"
    bl_label = "Free Bake"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        active = getattr(context, "active_object", None)
        others = [o for o in getattr(context, "selected_objects", None) or () if o is not active and _baked(o)]
        cloths = ([active] if active is not None and (_baked(active) or not others) else []) + others
        if not cloths:
            return checks.cancel(self, checks.NO_OBJECT)
        problems = [(obj, problem) for obj in cloths if (problem := _problem(obj))]
        if problems:
            if len(cloths) == 1:
                return checks.cancel(self, problems[0][1])
            return checks.cancel(self, "Nothing was freed. " + " ".join(f"'{o.name}': {p}" for o, p in problems))
        for obj in cloths:
            baking.free_bake(obj)
        return {"FINISHED"}
