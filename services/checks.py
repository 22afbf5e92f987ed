"""What operators check first: the active object, whether it can be (or is) a cloth, and the sentence to report."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import bpy
import numpy as np

from . import pin_group, runs
from .scene_reading import read_shape, topology_of

# Messages for bad input, shared by every operator.
NO_OBJECT = "Select a mesh object first: make it the active object, then try again."
NOT_MESH = "The active object is not a mesh: select a mesh object to use as cloth."
NO_EDGES = "The mesh has no edges: cloth needs a mesh with edges or faces, such as a subdivided plane."
NOT_CLOTH = "This object is not a cloth yet: press Make Cloth first."
TOPOLOGY_CHANGED = (
    "The mesh's vertices, edges or faces changed since Make Cloth: press Make Cloth again to use the new mesh."
)
EDIT_MODE = "Leave Edit Mode first (Tab), then try again."
SHARED_MESH = (
    "This object shares its mesh with another object (a linked duplicate, Alt+D), so both would show one "
    "simulation: use Object ▸ Relations ▸ Make Single User ▸ Object & Data, then try again."
)
LINKED = (
    "This object or its mesh is linked from another .blend file (a library), so nothing the cloth writes into it "
    "would be saved: use Object ▸ Relations ▸ Make Local ▸ Selected Objects and Data, then try again."
)
ZERO_SCALE = (
    "The object's scale is zero on an axis (as after S Z 0), so the cloth has no size there: apply the "
    "scale (Object ▸ Apply ▸ Scale) or give that axis a size, then try again."
)
NOT_NUMBERS = (
    "Some of the mesh's vertex positions are not numbers (NaN or infinite): fix them in Edit Mode "
    "(move or delete those vertices), then try again."
)
ABSOLUTE_KEYS = "The mesh's shape keys are absolute: enable Relative in the Shape Keys panel, then bake again."


# Modifiers that make new geometry: the cloth simulates the mesh as modelled and they apply after it.
GEOMETRY_MODIFIERS = frozenset(
    {
        "SUBSURF",
        "MULTIRES",
        "TRIANGULATE",
        "REMESH",
        "DECIMATE",
        "ARRAY",
        "MIRROR",
        "SOLIDIFY",
        "SCREW",
        "SKIN",
        "WELD",
        "BEVEL",
        "WIREFRAME",
        "BOOLEAN",
        "EDGE_SPLIT",
    }
)


def geometry_modifiers_note(obj) -> str | None:
    """What to tell the user when `obj`'s own modifiers make new geometry, or None."""
    names = [m.name for m in obj.modifiers if m.type in GEOMETRY_MODIFIERS]
    if not names:
        return None
    return (
        f"The cloth simulates the mesh as you modelled it ({len(obj.data.vertices)} vertices); "
        f"{', '.join(names)} apply after the cloth, to its simulated shape. To simulate their result "
        "instead, apply them first (Object ▸ Apply) and press Make Cloth again."
    )


# Modifiers that round the simulated cloth between its vertices (Catmull-Clark sinks inward where it bends).
SMOOTHING_MODIFIERS = {"SUBSURF": ("levels", "render_levels"), "MULTIRES": ("levels", "render_levels")}
# The Thickness suggested under them, in cloth edges: a 10² and a 16² cloth (15.6 / 9.3 cm edges) draped on a
# table and a ball with a Subdivision (2 levels) after the cloth sank 5-21 mm into them at 5 mm, 0-10 mm at a
# tenth of an edge, 0 at a fifth (Blender's Cloth, 15 mm away by default: 0; docs/design.md, round 17 probe20).
SMOOTHING_THICKNESS = 0.2
# A Solidify's shell reaches thickness × (1 ∓ offset) / 2 to either side; the Thickness suggested is that reach
# and SHELL_EDGES edges (its edges dip between their ends as the cloth's do): a 16² cloth with the default 1 cm
# Solidify (offset -1) on a table and balls kept 38-97 vertices inside at 5-10 mm, 3-8 edges through at 15, 0 and
# 0 at 19.3 (Blender's Cloth: 0).
SHELL_EDGES = 0.1


def surface_modifiers_note(obj) -> str | None:
    """What to tell the user when a Subdivision Surface or Multiresolution (rounding the simulated shape) or a
    Solidify (thickening it) on the cloth takes its surface into colliders because its Thickness is under the one
    suggested (SMOOTHING_THICKNESS, SHELL_EDGES), or None."""
    smoothing, shells, reach = [], [], 0.0
    for m in obj.modifiers:
        if m.type in SMOOTHING_MODIFIERS:
            viewport, render = SMOOTHING_MODIFIERS[m.type]
            if (m.show_viewport and getattr(m, viewport) > 0) or (m.show_render and getattr(m, render) > 0):
                smoothing.append(m.name)
        elif m.type == "SOLIDIFY" and (m.show_viewport or m.show_render) and m.thickness != 0.0:
            shells.append(m.name)
            offset = min(max(float(m.offset), -1.0), 1.0)
            reach += abs(float(m.thickness)) * (1.0 + abs(offset)) / 2.0
    if not smoothing and not shells:
        return None
    thickness = float(obj.verlet_cloth.thickness)
    suggested = reach + (SMOOTHING_THICKNESS if smoothing else SHELL_EDGES) * _mean_edge(obj)
    suggested = math.ceil(1000.0 * suggested) / 1000.0
    if suggested <= thickness + 1e-6:
        return None
    said = []
    for found, does in ((smoothing, "round"), (shells, "thicken")):
        if found:
            said.append(f"{', '.join(repr(name) for name in found)} {does}{'s' if len(found) == 1 else ''}")
    rule = " and ".join(
        ([f"a fifth of an edge for {'them' if len(smoothing) > 1 else 'it'}"] if smoothing else [])
        + (["the shell's depth"] if shells else [])
        + (["a tenth of an edge"] if shells and not smoothing else [])
    )
    return (
        f"{' and '.join(said)} the simulated cloth, so its surface can sink into colliders where it lies on them, "
        f"past the cloth's Thickness ({1000 * thickness:.0f} mm): raise Thickness to about {1000 * suggested:.0f} mm "
        f"(in Settings; {rule}), or simulate a finer mesh."
    )


# Thickness above this many mean cloth edges is said. A 10 cm 24² handkerchief (4.3 mm edges) on a 3 cm cube at the
# default 5 mm ended 71 % stretched on the mean with 144 edges through the cube (probe26) until the corner pass's gap
# was capped by the cloth's edges (thick26, corner_contacts.THICK_GAP_CAP): now 0.4 % mean, 19 % at most, nothing
# through; at 2.2 mm (half an edge) 4 % at most. The cloth still keeps the whole Thickness from faces and the floor,
# more than so fine a mesh shows (docs/design.md, round 22).
THICKNESS_EDGES = 1.0


def thickness_note(obj) -> str | None:
    """What to tell the user when the cloth's Thickness is more than THICKNESS_EDGES of its mean edge, or None."""
    thickness = float(obj.verlet_cloth.thickness)
    edge = _mean_edge(obj)
    if edge <= 0.0 or thickness <= THICKNESS_EDGES * edge:
        return None
    return (
        f"Thickness ({1000 * thickness:.1f} mm) is more than the cloth's edges ({1000 * edge:.1f} mm long): it "
        "floats that far above colliders and its edges stretch round their corners. For a close fit, lower "
        f"Thickness to about half an edge ({1000 * edge / 2:.1f} mm, in Settings)."
    )


def _mean_edge(obj) -> float:
    """The cloth's mean rest edge length (m, in the world): its live run's, or measured on the mesh (at most
    _EDGES_MEASURED edges, evenly spread) and kept until the mesh or its object's transform changes: the panel asks
    at every redraw, and a 448² mesh's 401k edges took 77 ms."""
    run = runs.cached(obj)
    if run is not None and run.mean_edge > 0.0:
        return float(run.mean_edge)
    mesh = obj.data
    count = len(mesh.edges)
    if not count:
        return 0.0
    corners = (mesh.vertices[0].co, mesh.vertices[-1].co)  # (a cheap sign of an edit that keeps the counts)
    key = (mesh.as_pointer(), len(mesh.vertices), count, *map(tuple, corners), *map(tuple, obj.matrix_world))
    if _measured.get("key") != key:
        _measured.update(key=key, edge=_measure_edges(obj, count))
    return _measured["edge"]


_measured: dict = {}  # the last cloth measured by _mean_edge: its key and mean edge


def _measure_edges(obj, count: int) -> float:
    mesh = obj.data
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    ends = np.empty(count * 2, dtype=np.int32)
    mesh.edges.foreach_get("vertices", ends)
    ends = ends.reshape(-1, 2)[:: max(1, count // _EDGES_MEASURED)]
    points = co.reshape(-1, 3)
    matrix = np.array(obj.matrix_world, dtype=np.float64)[:3, :3]
    delta = (points[ends[:, 0]] - points[ends[:, 1]]).astype(np.float64) @ matrix.T
    return float(np.sqrt((delta * delta).sum(axis=1)).mean())


_EDGES_MEASURED = 4096


# Blender's own simulations of a mesh: after the cloth in the stack, they simulate its result again.
SIMULATION_MODIFIERS = {"CLOTH": "Cloth", "SOFT_BODY": "Soft Body"}


def simulation_modifiers_note(obj) -> str | None:
    """What to tell the user when Blender's own Cloth or Soft Body also simulates `obj`, or None."""
    found = [
        f"'{m.name}' ({SIMULATION_MODIFIERS[m.type]})"
        for m in obj.modifiers
        if m.type in SIMULATION_MODIFIERS and (m.show_viewport or m.show_render)
    ]
    if not found:
        return None
    return (
        f"Blender's own simulation {', '.join(found)} runs after Verlet Cloth and simulates its result again, "
        "so you see (and render) that instead: remove it, or turn it off in the modifier stack."
    )


def parent_deform_note(obj) -> str | None:
    """What to tell the user when `obj`'s parent deforms its mesh without a modifier (parent type Armature or
    Lattice), or None. Blender applies that deformation before every modifier, so the live preview's
    positions replace it, while a bake's shape keys come before it and are deformed by it."""
    parent = obj.parent
    if parent is None or obj.parent_type not in {"ARMATURE", "LATTICE"}:
        return None
    return (
        f"Its parent '{parent.name}' deforms it without a modifier (parent type {obj.parent_type.title()}): "
        "the live preview does not show that deformation and a bake does. Deform it with an Armature modifier "
        "instead (Object ▸ Parent ▸ Armature Deform makes one), or parent it as Object or Bone."
    )


# Modifiers that carry the mesh by another object (a rig, a lattice, a curve, a hook, a cage): after the cloth
# in the stack they move the simulated shape again. The cloth follows Armature modifiers it can (carrying.py).
CARRYING_MODIFIERS = frozenset({"ARMATURE", "LATTICE", "CURVE", "HOOK", "MESH_DEFORM", "SURFACE_DEFORM"})


def carrying_modifiers_note(obj) -> str | None:
    """What to tell the user when `obj`'s own modifiers carry the simulated cloth in a way it does not follow, or
    None. Such a modifier moves the simulated shape with its object afterwards: the cloth does not swing with that
    motion and collides where it would be without it (a curtain carried 0.6 m by a Lattice or an unfollowed
    Armature into a box shows vertices inside the box; a corner hooked to an Empty is pulled out alone, 9x its
    edge)."""
    from .carrying import followed_modifiers  # noqa: PLC0415 - carrying reads the add-on's own modifiers

    followed = {m.name for m in followed_modifiers(obj)}
    carrying = [
        m
        for m in obj.modifiers
        if m.type in CARRYING_MODIFIERS and (m.show_viewport or m.show_render) and m.name not in followed
    ]
    if not carrying:
        return None
    names = [f"'{m.name}'" for m in carrying]
    note = (
        f"{', '.join(names)} move{'s' if len(names) == 1 else ''} the simulated cloth again after the simulation: "
        "the cloth does not swing with that motion and collides where it would be without it. The cloth follows, "
        "first in the stack, Armature modifiers that deform by vertex groups (no Bone Envelopes, Preserve Volume, "
        "Multi Modifier or bendy bones) and Hooks by a vertex group without falloff; otherwise parent the cloth to "
        "the bone or object (Object ▸ Parent) and pin it."
    )
    if any(m.type == "HOOK" and len(m.vertex_indices) for m in carrying):
        note += (
            " A Hook's vertices assigned in Edit Mode (by index) are not moved in the live preview at all, only in a "
            "bake: give the Hook a Vertex Group instead."
        )
    return note


# Modifier settings with a viewport and a render value: (viewport attribute, render attribute).
RENDER_SETTINGS = {"SUBSURF": ("levels", "render_levels"), "MULTIRES": ("levels", "render_levels")}
# Modifiers that do not move or make geometry: shown in one and not the other, the shape is the same.
SHAPELESS_MODIFIERS = frozenset({"COLLISION", "WEIGHTED_NORMAL", "NORMAL_EDIT", "UV_PROJECT", "UV_WARP"})


# The most objects of an instanced collection (nested ones included) the render-shape check looks at: the panel
# asks at every redraw.
INSTANCED_LOOKED_AT = 256


def render_shape_differences(obj) -> list[str]:
    """How `obj`'s rendered shape differs from the viewport's: its modifiers on in only one of them, or at other
    levels there, and a curve's or text's render resolution; for an Empty instancing a collection (a linked asset
    made a collider), the same for the objects it instances, each named."""
    if obj.type == "EMPTY":
        return _instanced_differences(obj)
    found = []
    for modifier in obj.modifiers:
        if modifier.type in SHAPELESS_MODIFIERS:
            continue
        if modifier.show_viewport != modifier.show_render:
            found.append(
                f"'{modifier.name}' is on only {'in the viewport' if modifier.show_viewport else 'in renders'}"
            )
        elif modifier.show_viewport and modifier.type in RENDER_SETTINGS:
            viewport, render = (getattr(modifier, name) for name in RENDER_SETTINGS[modifier.type])
            if viewport != render:
                found.append(f"'{modifier.name}' has Levels Viewport {viewport} and Render {render}")
    data = getattr(obj, "data", None)
    render_resolution = getattr(data, "render_resolution_u", 0)
    if obj.type in {"CURVE", "FONT"} and render_resolution and render_resolution != data.resolution_u:
        found.append(f"its Resolution Preview U is {data.resolution_u} and Render U {render_resolution}")
    return found


def _instanced_differences(empty) -> list[str]:
    """`render_shape_differences` of the objects an Empty's collection instances (nested instances too), prefixed
    with each object's name; at most INSTANCED_LOOKED_AT objects, each collection once."""
    found: list[str] = []
    seen: set = set()
    todo = [empty.instance_collection] if empty.instance_type == "COLLECTION" else []
    looked = 0
    while todo and looked < INSTANCED_LOOKED_AT:
        collection = todo.pop()
        if collection is None or collection.as_pointer() in seen:
            continue
        seen.add(collection.as_pointer())
        for member in collection.all_objects:
            looked += 1
            if looked > INSTANCED_LOOKED_AT:
                break
            if member.type == "EMPTY":
                if member.instance_type == "COLLECTION":
                    todo.append(member.instance_collection)
                continue
            found += [f"in '{member.name}', {said}" for said in render_shape_differences(member)]
    return found


def collider_render_note(obj) -> str | None:
    """What to tell the user when a collider renders another shape than the viewport shows, or None. The cloth
    collides with the viewport's shape in the live preview, the bake and `tools/bake.py` alike (as Blender's Cloth
    does with its Collision modifier), so a render of the bake shows the cloth above the rendered shape or inside
    it: a cube cage with Subdivision at 0 viewport levels and 3 render levels holds the cloth 8.5 cm above the
    rendered ball; at 3 and 0, up to 25 cm inside the rendered cube."""
    if obj.verlet_cloth_collider.kind == "NONE" or obj.verlet_cloth.enabled:
        return None
    if obj.type == "EMPTY" and obj.verlet_cloth_collider.kind != "MESH":
        return None  # (a sphere or a plane: not the shape it instances)
    found = render_shape_differences(obj)
    if not found:
        return None
    said = "; ".join(found)
    return (
        f"{said[0].upper()}{said[1:]}: cloth collides with the shape the viewport shows, so renders can show it "
        "above that shape or inside it. Give the viewport and renders the same settings."
    )


def cloth_notes(obj) -> list[str]:
    """Warnings about a cloth's set-up that Make Cloth reports and the panel shows."""
    notes = (
        simulation_modifiers_note(obj),
        parent_deform_note(obj),
        carrying_modifiers_note(obj),
        surface_modifiers_note(obj),
        thickness_note(obj),
    )
    return [note for note in notes if note]


def missing_pin_group(name: str) -> str:
    return f"The pin group '{name}' does not exist: pick an existing vertex group or clear the Pin Group field."


def mesh_problem(obj, edit_mode_needed: str | None = None) -> str | None:
    """Why `obj` is not a mesh in the mode the operator needs, or None.

    By default the mesh must be in Object Mode; with `edit_mode_needed` it must be in Edit Mode,
    and that sentence is the problem when it is not.
    """
    if obj is None:
        return NO_OBJECT
    if obj.type != "MESH":
        return NOT_MESH
    if edit_mode_needed is not None:
        return edit_mode_needed if obj.mode != "EDIT" else None
    return EDIT_MODE if obj.mode == "EDIT" else None


def shares_mesh(obj) -> bool:
    """Whether another object uses `obj`'s mesh (Alt+D): the preview and a bake live on the mesh."""
    mesh = obj.data
    if mesh.users <= 1 + int(mesh.use_fake_user):
        return False
    return sum(1 for other in bpy.data.objects if other.data == mesh) > 1


def zero_scale(obj) -> bool:
    """Whether the object's world transform flattens an axis (its scale, or a parent's, is zero there)."""
    # Nine Python floats (every bake frame asks: ~2 against ~9 us with np.linalg's norm and det).
    (a, b, c), (d, e, f), (g, h, i) = np.array(obj.matrix_world, dtype=np.float64)[:3, :3].tolist()
    if not all(math.isfinite(v) for v in (a, b, c, d, e, f, g, h, i)):
        return True
    lengths = (math.sqrt(a * a + d * d + g * g), math.sqrt(b * b + e * e + h * h), math.sqrt(c * c + f * f + i * i))
    largest = max(lengths)
    if not largest > 0:
        return True
    # An axis under a millionth of the largest, or axes (sheared) into a plane.
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return min(lengths) <= 1e-6 * largest or abs(det) <= 1e-9 * (lengths[0] * lengths[1] * lengths[2])


def linked(obj) -> bool:
    """Whether the object or its mesh comes from a library file (File ▸ Link): what is written into it is not saved."""
    return obj.library is not None or obj.data.library is not None


def object_problem(obj) -> str | None:
    """Why `obj` cannot be (or become) a cloth, or None."""
    problem = mesh_problem(obj)
    if problem:
        return problem
    if linked(obj):
        return LINKED  # read-only in Blender's interface; a script's writes are lost on saving
    if len(obj.data.edges) == 0:
        return NO_EDGES
    if shares_mesh(obj):
        return SHARED_MESH
    if zero_scale(obj):
        return ZERO_SCALE
    group = obj.verlet_cloth.pin_group
    if group and obj.vertex_groups.get(group) is None:
        return missing_pin_group(group)
    return None


def cloth_problem(obj, quick: bool = False) -> str | None:
    """Why `obj` cannot be simulated or baked as it is, or None.

    quick compares only the element counts of the topology and skips reading the rest shape (the
    live preview's per-frame check; the full checks run whenever a run starts).
    """
    problem = object_problem(obj)
    if problem:
        return problem
    settings = obj.verlet_cloth
    if not settings.enabled:
        return NOT_CLOTH
    if settings.topology:
        mesh = obj.data
        if quick:
            counts = f"{len(mesh.vertices)}:{len(mesh.edges)}:{len(mesh.loops)}:"
            if not settings.topology.startswith(counts):
                return TOPOLOGY_CHANGED
        elif settings.topology != topology_of(mesh)[0]:
            return TOPOLOGY_CHANGED
    if not quick and not finite_rest(obj):
        return NOT_NUMBERS
    return None


def finite_rest(obj) -> bool:
    """Whether the shape the cloth starts from (the vertices, or the Basis key) is all numbers."""
    return bool(np.isfinite(read_shape(obj)).all())


def active(context, problem_of: Callable[[Any], str | None]) -> tuple[Any, str | None]:
    """(the context's active object or None, `problem_of` it: the sentence to report, or None).

    A pin group renamed since it was last read is followed first (`pin_group`)."""
    obj = getattr(context, "active_object", None)
    if obj is not None and obj.type == "MESH":
        pin_group.follow(obj)
    return obj, problem_of(obj)


def active_unbaked(context, problem_of: Callable[[Any], str | None], baked: str) -> tuple[Any, str | None]:
    """`active`, with `baked` as the problem of a cloth that plays its bake back (when it has no other problem)."""
    obj, problem = active(context, problem_of)
    if problem is None and obj.verlet_cloth.baked:
        problem = baked
    return obj, problem


def cancel(operator, problem: str) -> set[str]:
    """Report `problem` as the operator's error and cancel it."""
    operator.report({"ERROR"}, problem)
    return {"CANCELLED"}
