"""The per-cloth run shared by the live preview and the bake: its model cache, `start` and `advance`.

The solver works in world space: rest positions are the object's world matrix applied to the
rest shape (see `rest`), and results go back through the inverse matrix. Colliders and pin
targets are read from the scene at every frame, with the previous frame's pose as the `*_start`
values, so moving things push.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import solver
from ..solver.model import vertex_masses
from . import carrying, display, geometry, holding, identity, mesh_colliders, pin_group, tears
from .display import write_shape
from .rest import remove_legacy_rest, rest_shape
from .scene_reading import collider_poses, colliders_between, pin_weights, topology_of, world_matrix
from .solver_params import frame_time, mean_edge_length, params_of, time_stretch
from .steady import SteadyReads


@dataclass
class Run:
    """One cloth being simulated: its model, state and the scene as it was at `frame`."""

    key: str  # the cloth's identity (services.identity), not its name
    scene: int  # the scene it steps in (identity.session_key): a cloth linked into two scenes has a run in each
    topology: str
    model: solver.Model
    state: solver.State
    frame: int
    rest_local: np.ndarray
    pins_world: np.ndarray
    pins_matrix: np.ndarray  # the world matrix pins_world was made with
    colliders: dict[int, tuple] = field(default_factory=dict)  # by object (identity.session_key)
    # Mesh colliders (keys of `colliders`) whose shape the last frame kept from the one before (None: all, at a
    # run's start): a remeshed one of these pops once (`mesh_colliders.collider_between`'s `steady`).
    steady: set | None = None
    # Mesh colliders whose last frame was such a pop (`solver.MeshCollider.grown`): remeshed to fewer vertices
    # on the next frame too (Subdivision levels keyed down one a frame), they pop again.
    popped: set = field(default_factory=set)
    # This run's prepared mesh collider shapes (`mesh_colliders.mesh_pose`): made at its start frame, so
    # what it simulates does not depend on where else in the session a collider was read first.
    collider_shapes: dict = field(default_factory=dict)
    dirty: bool = False
    first_frame: int = 0  # scene frame of the rest state (where state.frame counts from)
    mean_edge: float = 0.0  # m, mean rest edge length (automatic self-collision distance)
    torn_shown: int = 0  # torn faces already written to the mesh's tear attribute
    time_stretch: float = 1.0  # the scene's Old / New when last stepped (tears are shown in the stretched time)
    # Frames whose fast pins or colliders asked Auto Substeps for more than it takes (solver/driven_motion.py).
    capped_frames: list[int] = field(default_factory=list)
    # Armature modifiers the cloth follows (services/carrying.py): their weights, and their maps at `frame`.
    skins: list = field(default_factory=list)
    carry: carrying.Carry | None = None

    def local_positions(self, obj) -> np.ndarray:
        """What to write so the evaluated mesh shows the state (back through a skinning that follows the cloth)."""
        local = geometry.to_local(world_matrix(obj), self.state.positions)
        return local if self.carry is None else self.carry.invert(local)

    def shown_rest(self, carry: carrying.Carry | None) -> np.ndarray:
        """The rest shape as the mesh shows it, skinned by `carry` (the start shape and the pins' targets)."""
        return self.rest_local if carry is None else carry.apply(self.rest_local)


_models: dict[str, tuple[tuple, bytes, solver.Model]] = {}  # cloth id -> (shape key, pin weights, model)


def _model_for(obj, rest_world: np.ndarray, faces, edges, topology: str) -> solver.Model:
    """The cloth's model, built once per topology, rest shape, mass settings and pin weights.

    Models are immutable, so an unchanged cloth (every return to the start frame) reuses its
    model as is; new pin weights alone keep the colouring (`Model.with_pins`).
    """
    settings = obj.verlet_cloth
    weights = pin_weights(obj, settings.pin_group)
    pin_group.remember(obj, weights)
    sewing = bool(settings.use_sewing)  # loose edges: seams or cloth edges
    mass = (settings.mass_mode, float(settings.density), float(settings.mass))
    shape = (topology, hash(rest_world.tobytes()), *mass, sewing)
    pins = weights.tobytes()
    cloth = identity.key(obj)
    known = _models.get(cloth)
    if known is not None and known[0] == shape:
        model = known[2] if known[1] == pins else known[2].with_pins(weights)
    elif settings.mass_mode == "TOTAL":
        model = solver.build_model(
            rest_world, faces, edges, mass=float(settings.mass), pin_weight=weights, sewing=sewing
        )
    else:
        model = solver.build_model(
            rest_world, faces, edges, density=float(settings.density), pin_weight=weights, sewing=sewing
        )
    _models[cloth] = (shape, pins, model)
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
    matrix = world_matrix(obj)
    skins = carrying.skins_of(obj)
    carry = carrying.carry(obj, skins, matrix)
    rest_world = geometry.to_world(matrix, rest_local if carry is None else carry.apply(rest_local))
    model = _model_for(obj, rest_world, faces, edges, topology)
    shapes: dict = {}
    return Run(
        key=identity.key(obj),
        scene=identity.session_key(scene),
        topology=topology,
        model=model,
        state=model.initial_state(),
        frame=int(scene.frame_current),
        rest_local=rest_local,
        pins_world=rest_world,
        pins_matrix=matrix,
        colliders=collider_poses(scene, skip=obj, shapes=shapes),
        collider_shapes=shapes,
        first_frame=int(scene.frame_current),
        mean_edge=mean_edge_length(model),
        skins=skins,
        carry=carry,
    )


class Unstable(ValueError):
    """The simulation produced positions that are not numbers; nothing of this frame may be written."""


def unstable_message(obj, frame: int) -> str:
    return (
        f"The simulation of '{obj.name}' became unstable at frame {frame} (positions that are not numbers), "
        "so nothing was written: check the scene's gravity, animated scales and colliders, lower Wind Speed "
        "or raise Substeps, then try again."
    )


def advance(run: Run, scene, obj, grab: solver.Grab | None = None, steady: SteadyReads | None = None) -> None:
    """Step `run` by one frame to the scene's current frame, with colliders and pins read now.

    grab: vertices held at world-space targets for this frame (dragging with the mouse).
    steady: a synchronous bake's reads of what cannot change between its frames (its Params, when
    nothing animates them, and still collider meshes).
    Raises Unstable (and the run must be forgotten) if the state stops being finite.
    """
    settings = obj.verlet_cloth
    rest_moved = False
    if run.dirty:
        weights, masses = pin_weights(obj, settings.pin_group), _masses(obj, run.model)
        pin_group.remember(obj, weights)
        if not (np.array_equal(weights, run.model.pin_weight) and np.array_equal(masses, run.model.mass)):
            run.model = run.model.with_pins(weights, masses)  # rebuilds the tethers: only on a real change
        rest_moved = follow_rest(run, obj)
        run.dirty = False
    still = None if steady is None else steady.meshes
    current = collider_poses(scene, skip=obj, still_meshes=still, shapes=run.collider_shapes)
    run.time_stretch = time_stretch(scene)
    matrix = world_matrix(obj)  # pins move with the object (the same targets while it stands still)
    carry = carrying.carry(obj, run.skins, matrix)  # and with the rig that skins it
    same = carry is None and not rest_moved and np.array_equal(matrix, run.pins_matrix)
    pins_now = run.pins_world if same else geometry.to_world(matrix, run.shown_rest(carry))
    params = None if steady is None else steady.params
    colliders = colliders_between(run.colliders, current, run.steady, run.popped)
    solver.step(
        run.model,
        run.state,
        params_of(scene, settings, run.mean_edge, run.model.vertex_count) if params is None else params,
        frame_time(scene),
        colliders=colliders,
        pin_targets=pins_now,
        pin_targets_start=run.pins_world,
        grab=grab,
    )
    if not np.isfinite(run.state.positions).all():
        raise Unstable(unstable_message(obj, int(scene.frame_current)))
    run.steady = {
        key for key, pose in current.items() if pose[0] == "MESH" and _kept_shape(run.colliders.get(key), pose)
    }
    run.popped = {key for key, c in zip(current, colliders, strict=True) if getattr(c, "grown", False)}
    run.colliders, run.pins_world, run.pins_matrix, run.carry = current, pins_now, matrix, carry
    run.frame = int(scene.frame_current)
    if run.state.wanted_substeps > run.state.last_substeps:
        run.capped_frames.append(run.frame)
    # Steps off the clock (the drag operator's timer) count as earlier frames, so tears they
    # make show at the current frame; playback and bakes step one frame at a time and keep it.
    run.first_frame = run.frame - int(run.state.frame)


def _kept_shape(start: tuple | None, pose: tuple) -> bool:
    """Whether a MESH collider's pose keeps the shape it had at `start` (the same prepared shape)."""
    return start is not None and start[0] == "MESH" and start[1] is pose[1]


def follow_rest(run: Run, obj) -> bool:
    """Take the mesh's rest shape again after an edit of its vertices; True when it changed.

    The pins go where the rest shape now is. Object ▸ Apply ▸ Scale (or Rotation, Location) mid-preview
    moves the vertices and the world matrix the opposite ways: with the rest shape read at the start, the
    pins of a curtain scaled 2 jumped 1.0 m from where they hung, for the rest of the run (probe16).
    """
    rest = rest_shape(obj)
    if rest.shape != run.rest_local.shape or np.array_equal(rest, run.rest_local):
        return False
    run.rest_local = rest
    return True


def torn_frames(run: Run) -> np.ndarray:
    """(F,) scene frame each face tore at (tears.INTACT while whole)."""
    torn = run.state.face_torn_frame
    if torn is None:
        torn = np.full(len(run.model.faces), -1, dtype=np.int64)
    return tears.scene_frames(torn, run.first_frame, run.time_stretch)


def show_tears(run: Run, obj) -> None:
    """Write the run's torn faces to the mesh's tear attribute when there are new ones."""
    torn = run.state.face_torn_frame
    count = 0 if torn is None else int(np.count_nonzero(torn >= 0))
    if count != run.torn_shown:
        if tears.own_modifier(obj) is None:
            tears.sync_modifier(obj)
        tears.write(obj, torn_frames(run))
        run.torn_shown = count


_runs: dict[str, Run] = {}
# The runs of cloths linked into more than one scene, in the scenes not stepped last, by (cloth id, scene):
# each scene's frames go on from its own state, not from another scene's.
_parked: dict[tuple[str, int], Run] = {}
_stopped: dict[str, str] = {}  # cloth id -> why its live preview stopped, shown until a fresh run starts


def cached(obj) -> Run | None:
    return _runs.get(identity.key(obj))


def in_scene(scene, obj) -> Run | None:
    """`obj`'s run in `scene`: when it last stepped in another scene (the object linked into both), that run is
    set aside and this scene's own comes back (None if it has none)."""
    cloth = identity.key(obj)
    run = _runs.get(cloth)
    here = identity.session_key(scene)
    if run is None or run.scene == here:
        return run
    _parked[(cloth, run.scene)] = run
    run = _parked.pop((cloth, here), None)
    if run is None:
        _runs.pop(cloth, None)
    else:
        _runs[cloth] = run
    return run


def remember(run: Run) -> None:
    _runs[run.key] = run
    _stopped.pop(run.key, None)


def forget(obj=None) -> None:
    """Drop the cached live state of `obj` (or of every object)."""
    if obj is None:
        _runs.clear()
        _parked.clear()
        _stopped.clear()
        _models.clear()
        holding.release()
        identity.forget()
        mesh_colliders.forget_all()  # a loaded file's colliders are new objects
    else:
        cloth = identity.key(obj)
        _runs.pop(cloth, None)
        for parked in [each for each in _parked if each[0] == cloth]:
            del _parked[parked]


def stop(obj, why: str) -> None:
    """Drop the live state of `obj` after an error; the panel says `why` until the next fresh run."""
    forget(obj)
    _stopped[identity.key(obj)] = why


def stopped_because(obj) -> str | None:
    """Why the live preview of `obj` stopped (an unstable simulation, say), or None."""
    return _stopped.get(identity.key(obj))


def mark_dirty(obj) -> None:
    """Read the pin weights and masses again at the next step (the pin group or its weights changed)."""
    run = _runs.get(identity.key(obj))
    if run is not None:
        run.dirty = True


def restore_rest(obj) -> None:
    """Show exactly what the user made again: the preview's attribute and modifier go, and the tears."""
    display.remove(obj)
    tears.clear(obj)
    remove_legacy_rest(obj)


def reset(scene, obj) -> Run:
    """Show the rest shape and cache a fresh run at the current frame."""
    run = start(scene, obj)
    write_shape(obj, run.rest_local)
    tears.clear(obj)
    remember(run)
    return run
