"""Which objects show a surface cloth can collide with, and what they show that has none.

A Mesh collider is what the artist sees: besides meshes, a Curve with a Bevel, Extrude or Fill, a Text
object, a NURBS surface and a metaball evaluate to a mesh (`Object.to_mesh` on the evaluated object, Blender
4.2 and 5.0 alike), and so does a curve whose Geometry Nodes make a mesh (Curve to Mesh). Point clouds and
bare curves (no profile: wires in the viewport) have no surface; they are skipped, and the Collider panel
says so (`skipped`).
"""

from __future__ import annotations

SURFACE_TYPES = frozenset({"MESH", "CURVE", "FONT", "SURFACE", "META"})  # evaluated as a mesh
NO_SURFACE_TYPES = frozenset({"POINTCLOUD", "CURVES"})  # a point cloud object, hair curves
OWN_COMPONENT = 2**31 - 1  # persistent_id[1] of an object's own geometry (a curve's bevel mesh) in the instance list

NO_CURVE_SURFACE = (
    "This curve has no surface (a wire), so it does not collide. Give it a Bevel Depth, an Extrude or a Fill, "
    "or make a mesh of it in Geometry Nodes (Curve to Mesh)."
)
NO_SURFACE_OBJECT = (
    "Point clouds and hair curves have no surface, so cloth passes through them. Collide with a mesh "
    "instead: instance one on the points, or a Sphere on an Empty."
)


def shown_faces(obj, depsgraph) -> int:
    """How many faces the object shows in `depsgraph` as it was last evaluated (not evaluated again)."""
    evaluated = obj.evaluated_get(depsgraph)
    if obj.type == "MESH":
        return len(getattr(evaluated.data, "polygons", ()))
    geometry_of = getattr(evaluated, "evaluated_geometry", None)  # 5.0: the mesh as evaluated, not copied
    if geometry_of is not None:
        geometry = geometry_of()  # kept while its mesh is read (the mesh goes with it)
        shown = geometry.mesh
        return len(shown.polygons) if shown is not None else 0
    mesh = evaluated.to_mesh()  # a curve's bevel, extrusion or fill; a text's letters
    try:
        return len(mesh.polygons) if mesh is not None else 0
    finally:
        evaluated.to_mesh_clear()


def skipped(obj, depsgraph) -> str | None:
    """What `obj` shows that has no surface and so does not collide, as a sentence for the panel (None: nothing):
    point clouds and bare curves its Geometry Nodes make or instance (one pass over the depsgraph's instance
    list, as in `collider_instances.walk`). A Curve object it instances brings its own mesh, as its own
    instance, and is not counted."""
    points = curves = 0
    for instance in depsgraph.object_instances:
        if not instance.is_instance or instance.parent is None or instance.parent.original != obj:
            continue
        kind = instance.object.type
        if kind == "POINTCLOUD":
            points += 1
        elif kind == "CURVES" or (kind == "CURVE" and instance.object.original == obj):  # made by its nodes
            curves += 1
    found = [f"{points} point cloud(s)" if points else "", f"{curves} curve(s)" if curves else ""]
    what = " and ".join(part for part in found if part)
    return f"Its {what} have no surface and do not collide (the rest does)." if what else None
