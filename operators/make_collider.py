"""`verlet_cloth.make_collider`: the selected objects become mesh, sphere or plane colliders."""

from __future__ import annotations

import bpy
from bpy.props import EnumProperty

from ..services import checks, mesh_colliders, surfaces
from ..services.collider_instances import shows_collection, shows_instances

NOTHING_SELECTED = "Select one or more mesh, curve, text or empty objects (not the cloth) to make colliders."
CLOTH_AS_MESH_ONLY = "A cloth collides with other cloths only as a Mesh: choose Mesh."


def linked(names: list[str]) -> str:
    """Why objects linked from a library (or library overrides of them) were not made colliders: the setting would
    be lost on saving (an override's too: reopened, it read None; measured in bpy 5.0.1, round 21 (probe24))."""
    quoted = ", ".join(f"'{name}'" for name in names)
    one = len(names) == 1
    return (
        f"{quoted} {'is' if one else 'are'} linked from another .blend file (a library, or a library override), so a "
        f"collider setting made here would not be saved: make {'it a collider' if one else 'them colliders'} in the "
        "library's file, or use Object ▸ Relations ▸ Make Local ▸ Selected Objects, then try again."
    )


def _from_library(obj) -> bool:
    return obj.library is not None or obj.override_library is not None


def no_vertices(names: list[str]) -> str:
    """Why meshes that show no vertices (an empty mesh; modifiers that make none) were not made colliders."""
    quoted = ", ".join(f"'{name}'" for name in names)
    return (
        f"{quoted} {'has' if len(names) == 1 else 'have'} no vertices, so there is nothing to collide with: "
        "add geometry to the mesh (or a Geometry Nodes modifier that makes it), then try again."
    )


def _shows_vertices(context, obj) -> bool:
    """Whether the object as shown has vertices: a mesh's own, or ones its modifiers make (a Geometry Nodes
    modifier that builds the whole shape on an empty mesh, or instances it; what shows is what collides);
    a curve's or a text's faces (a wire curve has none)."""
    if obj.type != "MESH":
        depsgraph = context.evaluated_depsgraph_get()
        return bool(surfaces.shown_faces(obj, depsgraph)) or shows_instances(obj, depsgraph)
    if len(obj.data.vertices) or not len(obj.modifiers):
        return bool(len(obj.data.vertices))
    depsgraph = context.evaluated_depsgraph_get()
    shown = getattr(obj.evaluated_get(depsgraph), "data", None)
    if shown is not None and len(getattr(shown, "vertices", ())):
        return True
    return shows_instances(obj, depsgraph)


def _shows_collection_faces(context, obj) -> bool:
    """Whether `obj` is an Empty instancing a collection that shows faces (a Mesh collider: what it shows)."""
    return shows_collection(obj) and shows_instances(obj, context.evaluated_depsgraph_get())


class VERLET_CLOTH_OT_make_collider(bpy.types.Operator):
    """Make the selected objects (and the active one) collide with Verlet cloth"""

    bl_idname = "verlet_cloth.make_collider"
    bl_label = "Make Collider"
    bl_options = {"REGISTER", "UNDO"}

    kind: EnumProperty(  # type: ignore[valid-type]
        name="Shape",
        items=(
            (
                "MESH",
                "Mesh",
                "The object's evaluated mesh (an Empty instancing a collection: what it shows; other Empties become "
                "spheres)",
            ),
            ("SPHERE", "Sphere", "Sphere around the object's origin, reaching its farthest vertex"),
            ("PLANE", "Plane", "Plane through the object's origin facing its local +Z"),
        ),
        default="MESH",
    )

    def execute(self, context):
        selected = list(getattr(context, "selected_objects", None) or ())
        active = getattr(context, "active_object", None)
        if active is not None and active not in selected:
            selected.append(active)  # the active object counts even when it is not selected
        targets = [
            o
            for o in selected
            if o.type == "EMPTY"
            or (o.type in surfaces.SURFACE_TYPES and not o.verlet_cloth.enabled and _shows_vertices(context, o))
        ]
        if not targets and any(o.type in surfaces.NO_SURFACE_TYPES for o in selected):
            return checks.cancel(self, surfaces.NO_SURFACE_OBJECT)
        if not targets and any(o.type in surfaces.SURFACE_TYPES - {"MESH"} for o in selected):
            return checks.cancel(self, surfaces.NO_CURVE_SURFACE)
        if not targets:
            # Cloths selected on their own: the lower layers other cloths rest on (a cloth collides
            # with other cloths only as a Mesh). With other objects they are the cloth being draped.
            targets = [o for o in selected if o.type == "MESH" and o.verlet_cloth.enabled]
            if not targets:
                empty = [o.name for o in selected if o.type == "MESH"]
                return checks.cancel(self, no_vertices(empty) if empty else NOTHING_SELECTED)
            if self.kind != "MESH":
                return checks.cancel(self, CLOTH_AS_MESH_ONLY)
        from_library = [o.name for o in targets if _from_library(o)]
        if from_library:
            targets = [o for o in targets if not _from_library(o)]
            if not targets:
                return checks.cancel(self, linked(from_library))
            self.report({"WARNING"}, linked(from_library))
        for obj in targets:
            as_sphere = self.kind == "MESH" and obj.type == "EMPTY" and not _shows_collection_faces(context, obj)
            obj.verlet_cloth_collider.kind = "SPHERE" if as_sphere else self.kind
        self.report({"INFO"}, f"{len(targets)} collider(s): {', '.join(o.name for o in targets)}")
        for obj in targets:
            if note := checks.collider_render_note(obj):
                self.report({"WARNING"}, f"{obj.name}: {note}")
        if self.kind == "MESH":
            context.evaluated_depsgraph_get()  # (what the panel's check reads: evaluated now)
            for obj in targets:
                # A mesh of loose edges or points (a wire rail, a curve converted to a mesh) is made a collider
                # but collides with nothing: say so now, not only in the panel.
                if obj.type == "MESH" and (note := mesh_colliders.problem(obj)):
                    self.report({"WARNING"}, f"{obj.name}: {note}")
        return {"FINISHED"}
