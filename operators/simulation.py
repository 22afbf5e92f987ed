"""The one simulation path shared by the live preview and the bake.

The solver works in world space: rest positions are the object's world matrix applied to the
rest shape (stored on the mesh as the point attribute `verlet_cloth_rest` by Make Cloth), and
results go back through the inverse matrix. Colliders and pin targets are read from the scene at
every frame, with the previous frame's pose as the `*_start` values, so moving things push.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import solver
from ..solver.model import vertex_masses
from . import geometry, tears

REST_ATTRIBUTE = "verlet_cloth_rest"

# Messages for bad input, shared by every operator.
NO_OBJECT = "Select a mesh object first: make it the active object, then try again."
NOT_MESH = "The active object is not a mesh: select a mesh object to use as cloth."
NO_EDGES = "The mesh has no edges: cloth needs a mesh with edges or faces, such as a subdivided plane."
NOT_CLOTH = "This object is not a cloth yet: press Make Cloth first."
TOPOLOGY_CHANGED = (
    "The mesh's vertices, edges or faces changed since Make Cloth: press Make Cloth again to use the new mesh."
)
EDIT_MODE = "Leave Edit Mode first (Tab), then try again."
ABSOLUTE_KEYS = "The mesh's shape keys are absolute: enable Relative in the Shape Keys panel, then bake again."


def missing_pin_group(name: str) -> str:
    return f"The pin group '{name}' does not exist: pick an existing vertex group or clear the Pin Group field."


# ---------------------------------------------------------------- reading and writing meshes


def read_vectors(collection, attribute: str = "co") -> np.ndarray:
    """(N, 3) float64 from a Blender collection of vectors, in one foreach_get."""
    flat = np.empty(len(collection) * 3, dtype=np.float32)
    collection.foreach_get(attribute, flat)
    return flat.reshape(-1, 3).astype(np.float64)


def _deform_target(mesh):
    """Where the evaluated mesh reads positions: the reference shape key if any, else the vertices."""
    key = mesh.shape_keys
    if key is not None and len(key.key_blocks):
        return key.reference_key.data
    return mesh.vertices


def read_shape(obj) -> np.ndarray:
    """(N, 3) local positions the evaluated mesh starts from (before modifiers)."""
    return read_vectors(_deform_target(obj.data))


def write_shape(obj, local) -> None:
    """Write (N, 3) local positions where the evaluated mesh reads them, in one foreach_set.

    Without shape keys this goes through the `position` attribute (about 30× faster than
    vertices.foreach_set); re-assigning one vertex's co afterwards refreshes the cached bounds,
    which an attribute write alone leaves stale.
    """
    mesh = obj.data
    flat = np.ascontiguousarray(local, dtype=np.float32).reshape(-1)
    key = mesh.shape_keys
    position = mesh.attributes.get("position") if key is None or not len(key.key_blocks) else None
    if position is not None and len(flat):
        position.data.foreach_set("vector", flat)
        first = mesh.vertices[0]
        first.co = first.co
    else:
        _deform_target(mesh).foreach_set("co", flat)
    mesh.update()


def topology_of(mesh) -> tuple[str, solver.Faces, np.ndarray]:
    """(signature, faces, edges) of a mesh, read in bulk."""
    n_edges = len(mesh.edges)
    edges = np.empty(n_edges * 2, dtype=np.int32)
    mesh.edges.foreach_get("vertices", edges)
    corners = np.empty(len(mesh.loops), dtype=np.int32)
    mesh.loops.foreach_get("vertex_index", corners)
    n_faces = len(mesh.polygons)
    starts = np.empty(n_faces, dtype=np.int32)
    sizes = np.empty(n_faces, dtype=np.int32)
    mesh.polygons.foreach_get("loop_start", starts)
    mesh.polygons.foreach_get("loop_total", sizes)
    signature = geometry.topology_signature(len(mesh.vertices), edges, corners)
    faces = solver.Faces(corners.astype(np.int64), starts.astype(np.int64), sizes.astype(np.int64))
    return signature, faces, edges.reshape(-1, 2).astype(np.int64)


def rest_shape(obj) -> np.ndarray:
    """(N, 3) local rest positions stored by Make Cloth (the current shape if there are none)."""
    mesh = obj.data
    attribute = mesh.attributes.get(REST_ATTRIBUTE)
    if attribute is None or attribute.domain != "POINT" or len(attribute.data) != len(mesh.vertices):
        return read_shape(obj)
    return read_vectors(attribute.data, "vector")


def capture_rest(obj) -> None:
    """Store the current shape as the rest shape and remember the topology (Make Cloth)."""
    mesh = obj.data
    attribute = mesh.attributes.get(REST_ATTRIBUTE)
    if attribute is not None:
        mesh.attributes.remove(attribute)
    attribute = mesh.attributes.new(REST_ATTRIBUTE, "FLOAT_VECTOR", "POINT")
    attribute.data.foreach_set("vector", read_shape(obj).astype(np.float32).reshape(-1))
    obj.verlet_cloth.topology = topology_of(mesh)[0]


def ensure_rest(obj) -> None:
    """Capture the rest shape if this cloth has none yet (cloth enabled without Make Cloth)."""
    if obj.type == "MESH" and (REST_ATTRIBUTE not in obj.data.attributes or not obj.verlet_cloth.topology):
        capture_rest(obj)


def pin_weights(obj, group_name: str) -> np.ndarray:
    """(N,) weights of the pin group (0 where unassigned). Runs once per model build, not per frame."""
    n = len(obj.data.vertices)
    weights = np.zeros(n)
    group = obj.vertex_groups.get(group_name) if group_name else None
    if group is None:
        return weights
    index = group.index
    for vertex in obj.data.vertices:
        for element in vertex.groups:
            if element.group == index:
                weights[vertex.index] = element.weight
    return weights


# ---------------------------------------------------------------- checks shared by the operators


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


def object_problem(obj) -> str | None:
    """Why `obj` cannot be (or become) a cloth, or None."""
    problem = mesh_problem(obj)
    if problem:
        return problem
    if len(obj.data.edges) == 0:
        return NO_EDGES
    group = obj.verlet_cloth.pin_group
    if group and obj.vertex_groups.get(group) is None:
        return missing_pin_group(group)
    return None


def cloth_problem(obj, quick: bool = False) -> str | None:
    """Why `obj` cannot be simulated or baked as it is, or None.

    quick compares only the element counts of the topology (the live preview's per-frame check;
    the full signature is compared whenever a run starts).
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
    return None


# ---------------------------------------------------------------- settings to solver input


def frame_range(scene, settings) -> tuple[int, int]:
    if settings.use_scene_frame_range:
        return int(scene.frame_start), int(scene.frame_end)
    return int(settings.frame_start), int(settings.frame_end)


def frame_time(scene) -> float:
    fps = scene.render.fps / scene.render.fps_base
    return 1.0 / fps


def force_field_wind(scene) -> np.ndarray:
    """(3,) m/s: the sum of the scene's Wind force fields, each Strength m/s along its object's world +Z.

    Uniform in space: falloff, shape, noise and flow are ignored. Objects disabled in viewports
    (the monitor icon) do not blow.
    """
    total = np.zeros(3)
    for obj in scene.objects:
        field = getattr(obj, "field", None)
        if field is None or field.type != "WIND" or obj.hide_viewport or not field.strength:
            continue
        axis = _matrix(obj)[:3, 2]
        length = float(np.linalg.norm(axis))
        if length > 0 and np.isfinite(length):
            total += axis / length * float(field.strength)
    return total


def wind_of(scene, settings) -> tuple[float, float, float]:
    """(3,) m/s: the cloth's own wind (direction × speed) plus the scene's Wind force fields."""
    direction = np.array(settings.wind_direction, dtype=np.float64)
    length = float(np.linalg.norm(direction))
    wind = direction / length * float(settings.wind_strength) if length > 0 else np.zeros(3)
    if settings.use_force_fields:
        wind = wind + force_field_wind(scene)
    wind = np.nan_to_num(wind)
    return (float(wind[0]), float(wind[1]), float(wind[2]))


def mean_edge_length(model: solver.Model) -> float:
    """Mean rest length (m) of the model's structural (mesh-edge) constraints; 0 without any."""
    structural = model.constraints.kind == solver.STRUCTURAL
    return float(model.constraints.rest_length[structural].mean()) if structural.any() else 0.0


def self_collision_gap(settings, mean_edge: float = 0.0) -> float:
    """Self-collision distance (m): the setting, or Auto (0): max(2 × thickness, 0.7 × mean edge).

    0.7 (just over half a diagonal, 1/√2) keeps a vertex from slipping through the middle of a
    square face of the other layer, which vertex–vertex collision alone would allow.
    """
    if settings.self_collision_distance > 0:
        return float(settings.self_collision_distance)
    return max(2.0 * float(settings.thickness), 0.7 * float(mean_edge))


def params_of(scene, settings, mean_edge: float = 0.0) -> solver.Params:
    """Solver settings for this frame; mean_edge (m) sizes the automatic self-collision distance."""
    gravity = tuple(float(g) for g in scene.gravity) if scene.use_gravity else (0.0, 0.0, 0.0)
    tear = float(settings.tear_factor)
    return solver.Params(
        gravity=gravity,  # type: ignore[arg-type]
        substeps=int(settings.substeps),
        iterations=int(settings.iterations),
        damping=float(settings.damping),
        stretch_stiffness=float(settings.stretch_stiffness),
        shear_stiffness=float(settings.shear_stiffness),
        bend_stiffness=float(settings.bend_stiffness),
        stretch_only=bool(settings.stretch_only),
        stretch_limit=float(settings.stretch_limit) if settings.limit_stretch else float("inf"),
        thickness=float(settings.thickness),
        friction=float(settings.friction),
        wind=wind_of(scene, settings),
        turbulence=float(settings.turbulence),
        turbulence_scale=float(settings.turbulence_scale),
        seed=int(settings.wind_seed),
        air_drag=float(settings.air_drag),
        tear_factor=tear if tear > 1.0 else 0.0,  # up to 1 would tear at rest: off
        self_collision=bool(settings.self_collision),
        self_collision_distance=self_collision_gap(settings, mean_edge),
    )


def _matrix(obj) -> np.ndarray:
    return np.array(obj.matrix_world, dtype=np.float64)


def collider_poses(scene, skip=None) -> dict[str, tuple]:
    """Every collider's shape at the scene's current frame, keyed by object name."""
    poses: dict[str, tuple] = {}
    for obj in scene.objects:
        kind = obj.verlet_cloth_collider.kind
        if kind == "NONE" or obj == skip or obj.type not in {"MESH", "EMPTY"}:
            continue
        if obj.type == "MESH" and obj.verlet_cloth.enabled:
            continue
        settings = obj.verlet_cloth_collider
        matrix = _matrix(obj)
        local = read_vectors(obj.data.vertices) if obj.type == "MESH" else None
        if kind == "SPHERE":
            centre = matrix[:3, 3].copy()
            if local is not None:
                radius = geometry.sphere_radius(geometry.to_world(matrix, local), centre)
            else:
                radius = float(obj.empty_display_size) * float(max(abs(s) for s in obj.matrix_world.to_scale()))
            poses[obj.name] = ("SPHERE", centre, radius, settings.friction, settings.offset)
        else:
            half = None
            if local is None:
                half = float(obj.empty_display_size)
            point, normal, extent = geometry.plane_frame(matrix, local, half, settings.bounded)
            poses[obj.name] = ("PLANE", point, normal, extent, settings.friction, settings.offset)
    return poses


def _same_pose(a: tuple, b: tuple) -> bool:
    """Whether two poses of one collider kind have the same shape and place (friction aside)."""
    shape_a, shape_b = a[1:-2], b[1:-2]
    for x, y in zip(shape_a, shape_b, strict=True):
        if (x is None) != (y is None) or (x is not None and not np.array_equal(x, y)):
            return False
    return True


def colliders_between(previous: dict[str, tuple], current: dict[str, tuple]) -> list:
    """Solver colliders at `current`, starting the frame at `previous` (same object and kind)."""
    out: list = []
    for name, pose in current.items():
        start = previous.get(name)
        if start is not None and (start[0] != pose[0] or _same_pose(start, pose)):
            start = None  # a collider that did not move takes the solver's cheaper still path
        if pose[0] == "SPHERE":
            _, centre, radius, friction, offset = pose
            out.append(
                solver.Sphere(
                    center=centre,
                    radius=radius,
                    center_start=None if start is None else start[1],
                    radius_start=None if start is None else start[2],
                    friction=friction,
                    offset=offset,
                )
            )
        else:
            _, point, normal, extent, friction, offset = pose
            start_extent = None if start is None else start[3]
            if (extent is None) != (start_extent is None):
                start_extent = None
            out.append(
                solver.Plane(
                    point=point,
                    normal=normal,
                    point_start=None if start is None else start[1],
                    normal_start=None if start is None else start[2],
                    extent=extent,
                    extent_start=start_extent,
                    friction=friction,
                    offset=offset,
                )
            )
    return out


# ---------------------------------------------------------------- a running simulation


@dataclass
class Run:
    """One cloth being simulated: its model, state and the scene as it was at `frame`."""

    name: str
    topology: str
    model: solver.Model
    state: solver.State
    frame: int
    rest_local: np.ndarray
    pins_world: np.ndarray
    colliders: dict[str, tuple] = field(default_factory=dict)
    dirty: bool = False
    first_frame: int = 0  # scene frame of the rest state (where state.frame counts from)
    mean_edge: float = 0.0  # m, mean rest edge length (automatic self-collision distance)
    torn_shown: int = 0  # torn faces already written to the mesh's tear attribute

    def local_positions(self, obj) -> np.ndarray:
        return geometry.to_local(_matrix(obj), self.state.positions)


_models: dict[str, tuple[tuple, solver.Model]] = {}


def _model_for(obj, rest_world: np.ndarray, faces, edges, topology: str) -> solver.Model:
    """The cloth's model; the colouring is reused while topology, rest shape and mass settings stay."""
    settings = obj.verlet_cloth
    weights = pin_weights(obj, settings.pin_group)
    key = (topology, hash(rest_world.tobytes()), settings.mass_mode, float(settings.density), float(settings.mass))
    known = _models.get(obj.name)
    if known is not None and known[0] == key:
        return known[1].with_pins(weights)
    if settings.mass_mode == "TOTAL":
        model = solver.build_model(rest_world, faces, edges, mass=float(settings.mass), pin_weight=weights)
    else:
        model = solver.build_model(rest_world, faces, edges, density=float(settings.density), pin_weight=weights)
    _models[obj.name] = (key, model)
    return model


def _masses(obj, model: solver.Model) -> np.ndarray:
    """Per-vertex masses of `model`'s rest shape under the current mass settings."""
    settings = obj.verlet_cloth
    structural = model.constraints.pairs[model.constraints.kind == solver.STRUCTURAL]
    if settings.mass_mode == "TOTAL":
        return vertex_masses(model.rest_positions, model.faces, structural, mass=float(settings.mass))
    return vertex_masses(model.rest_positions, model.faces, structural, density=float(settings.density))


def start(scene, obj) -> Run:
    """A run at rest at the scene's current frame (the object's current world matrix)."""
    topology, faces, edges = topology_of(obj.data)
    rest_local = rest_shape(obj)
    rest_world = geometry.to_world(_matrix(obj), rest_local)
    model = _model_for(obj, rest_world, faces, edges, topology)
    return Run(
        name=obj.name,
        topology=topology,
        model=model,
        state=model.initial_state(),
        frame=int(scene.frame_current),
        rest_local=rest_local,
        pins_world=rest_world,
        colliders=collider_poses(scene, skip=obj),
        first_frame=int(scene.frame_current),
        mean_edge=mean_edge_length(model),
    )


def advance(run: Run, scene, obj, grab: solver.Grab | None = None) -> None:
    """Step `run` by one frame to the scene's current frame, with colliders and pins read now.

    grab: vertices held at world-space targets for this frame (dragging with the mouse).
    """
    settings = obj.verlet_cloth
    if run.dirty:
        run.model = run.model.with_pins(pin_weights(obj, settings.pin_group), _masses(obj, run.model))
        run.dirty = False
    current = collider_poses(scene, skip=obj)
    pins_now = geometry.to_world(_matrix(obj), run.rest_local)
    solver.step(
        run.model,
        run.state,
        params_of(scene, settings, run.mean_edge),
        frame_time(scene),
        colliders=colliders_between(run.colliders, current),
        pin_targets=pins_now,
        pin_targets_start=run.pins_world,
        grab=grab,
    )
    run.colliders, run.pins_world = current, pins_now
    run.frame = int(scene.frame_current)
    # Steps off the clock (the drag operator's timer) count as earlier frames, so tears they
    # make show at the current frame; playback and bakes step one frame at a time and keep it.
    run.first_frame = run.frame - int(run.state.frame)


def torn_frames(run: Run) -> np.ndarray:
    """(F,) scene frame each face tore at (tears.INTACT while whole)."""
    torn = run.state.face_torn_frame
    if torn is None:
        torn = np.full(len(run.model.faces), -1, dtype=np.int64)
    return tears.scene_frames(torn, run.first_frame)


def show_tears(run: Run, obj) -> None:
    """Write the run's torn faces to the mesh's tear attribute when there are new ones."""
    torn = run.state.face_torn_frame
    count = 0 if torn is None else int(np.count_nonzero(torn >= 0))
    if count != run.torn_shown:
        if tears.own_modifier(obj) is None:
            tears.sync_modifier(obj)
        tears.write(obj, torn_frames(run))
        run.torn_shown = count


# ---------------------------------------------------------------- dragging with the mouse


@dataclass
class Held:
    """A vertex held under the mouse: where it should be now and where it was last frame."""

    index: int
    target: np.ndarray
    previous: np.ndarray | None = None

    def grab(self) -> solver.Grab:
        """This frame's grab (from last frame's target to this one); remembers the target."""
        start = None if self.previous is None else self.previous[None, :]
        out = solver.Grab([self.index], self.target[None, :].copy(), start)
        self.previous = self.target.copy()
        return out


_held: dict[str, Held] = {}


def hold(obj, index: int, target) -> None:
    """Hold vertex `index` of `obj` at the world-space `target` from the next step on."""
    target = np.asarray(target, dtype=np.float64).reshape(3)
    held = _held.get(obj.name)
    if held is None or held.index != int(index):
        _held[obj.name] = Held(int(index), target)
    else:
        held.target = target


def release(obj=None) -> None:
    """Let go of `obj`'s held vertex (or of every held vertex)."""
    if obj is None:
        _held.clear()
    else:
        _held.pop(obj.name, None)


def held(obj) -> Held | None:
    return _held.get(obj.name)


def drag_step(scene, obj) -> Run:
    """One live step at the current frame with the held vertex (the drag operator's timer)."""
    run = cached(obj)
    if run is None or len(run.rest_local) != len(obj.data.vertices):
        run = reset(scene, obj)
    grip = _held.get(obj.name)
    advance(run, scene, obj, grab=None if grip is None else grip.grab())
    write_shape(obj, run.local_positions(obj))
    show_tears(run, obj)
    return run


# ---------------------------------------------------------------- the live preview's cache

_runs: dict[str, Run] = {}


def cached(obj) -> Run | None:
    return _runs.get(obj.name)


def remember(run: Run) -> None:
    _runs[run.name] = run


def forget(obj=None) -> None:
    """Drop the cached live state of `obj` (or of every object)."""
    if obj is None:
        _runs.clear()
        _models.clear()
        _held.clear()
    else:
        _runs.pop(obj.name, None)


def mark_dirty(obj) -> None:
    run = _runs.get(obj.name)
    if run is not None:
        run.dirty = True


def restore_rest(obj) -> None:
    """Put the stored rest shape back where the evaluated mesh reads (if it still fits the mesh)."""
    attribute = obj.data.attributes.get(REST_ATTRIBUTE)
    if attribute is not None and len(attribute.data) == len(obj.data.vertices):
        write_shape(obj, rest_shape(obj))
    tears.clear(obj)


def reset(scene, obj) -> Run:
    """Show the rest shape and cache a fresh run at the current frame."""
    run = start(scene, obj)
    write_shape(obj, run.rest_local)
    tears.clear(obj)
    remember(run)
    return run


def resume(scenes) -> None:
    """After a file loads: cloths whose scene is at (or before) its start frame restart from rest there."""
    for scene in scenes:
        for obj in scene.objects:
            if obj.type != "MESH" or not obj.verlet_cloth.enabled or obj.verlet_cloth.baked:
                continue
            if cloth_problem(obj) is None and scene.frame_current <= frame_range(scene, obj.verlet_cloth)[0]:
                reset(scene, obj)


def preview(scene, obj) -> str:
    """The live preview at the scene's current frame; returns what it did (geometry.RESET/STEP/HOLD)."""
    settings = obj.verlet_cloth
    first, last = frame_range(scene, settings)
    run = cached(obj)
    frame = int(scene.frame_current)
    action = geometry.frame_action(None if run is None else run.frame, frame, first, last)
    if run is not None and (len(run.rest_local) != len(obj.data.vertices) or run.name != obj.name):
        action = geometry.RESET if action == geometry.RESET else geometry.HOLD
        forget(obj)
        run = None
    if action == geometry.RESET:
        run = start(scene, obj)
        if settings.topology and run.topology != settings.topology:
            forget(obj)  # rewired with the same counts: left alone until Make Cloth again
            return geometry.HOLD
        write_shape(obj, run.rest_local)
        tears.clear(obj)
        remember(run)
    elif action == geometry.STEP and run is not None:
        grip = _held.get(obj.name)
        advance(run, scene, obj, grab=None if grip is None else grip.grab())
        write_shape(obj, run.local_positions(obj))
        show_tears(run, obj)
    return action
