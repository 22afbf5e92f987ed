"""`make bench`: this add-on vs Blender's Cloth modifier vs the seeds' plain-Python Jakobsen loop.

One process, the same scenes for every solver:
- Drape: an N×N grid, 2 m square, 1.5 m up, falls onto a 0.5 m sphere resting on a floor
  (48 simulated frames at 24 fps; N = 32, 64, 128, 256).
- Hang: an N×N 1 m cloth hanging from its two top corners (48 frames).

Per scene and solver: ms per simulated frame, constraint projections per second, mean and max edge
stretch (positive part of L/L0 − 1 over mesh edges) at the last frame, deepest sphere and floor
penetration. Writes bench/results.md, bench/results.png and bench/profile.txt; prints the table.

This is a benchmark, not a test: nothing here fails on timing. `--quick` runs a small subset.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
SCRATCH = tempfile.TemporaryDirectory(prefix="vc_bench_")  # removed when the script ends
os.environ.setdefault("BLENDER_USER_RESOURCES", os.path.join(SCRATCH.name, "user"))

import blender_side  # noqa: E402
import bpy  # noqa: E402
import numpy as np  # noqa: E402
import scenes  # noqa: E402

import solver  # noqa: E402
from solver import meshes, metrics  # noqa: E402
from solver.params import auto_substeps  # noqa: E402

FPS = 24
FRAMES = 48
SPHERE = ((0.0, 0.0, 0.5), 0.5)


# ------------------------------------------------------------------------------------------ scenes


def _scene() -> bpy.types.Scene:
    scene = bpy.context.scene
    assert scene is not None
    return scene


def _view_layer() -> bpy.types.ViewLayer:
    layer = bpy.context.view_layer
    assert layer is not None
    return layer


def _ops():
    """bpy.ops.verlet_cloth (registered by the add-on at run time, so unknown to the stubs)."""
    return bpy.ops.verlet_cloth  # type: ignore[attr-defined]


@dataclass(frozen=True)
class SceneSpec:
    kind: str  # "drape" or "hang"
    n: int  # grid size (fan: subdivisions)
    frames: int = FRAMES  # simulated frames (the scene runs frames 1 .. frames + 1; frame 1 is rest)
    mesh: str = "quad"  # scenes.MESH_KINDS

    @property
    def name(self) -> str:
        if self.mesh == "fan":
            return f"{self.kind.capitalize()} fan disc ({self.vertices:,})"
        label = {"quad": "", "holed": " with a hole"}.get(self.mesh, f" {self.mesh}")
        return f"{self.kind.capitalize()} {self.n}²{label}"

    @property
    def vertices(self) -> int:
        if self.mesh == "fan":
            return 1 + 64 * self.n * (self.n + 1) // 2
        if self.mesh == "holed":
            return len(meshes.holed_grid(self.n)[0])
        return self.n * self.n


def build_scene(spec: SceneSpec, frames: int | None = None):
    """A fresh Blender scene for `spec`; returns (cloth, sphere or None, floor)."""
    frames = spec.frames if frames is None else frames
    if spec.kind == "drape":
        cloth, ball, ground = scenes.drape_scene(spec.n, frames + 1, FPS, spec.mesh)
    else:
        cloth, ground = scenes.hang_scene(spec.n, frames + 1, FPS)
        ball = None
    _view_layer().update()
    return cloth, ball, ground


def mesh_arrays(obj):
    """World-space rest positions, faces (`solver.Faces`) and mesh edges of `obj`."""
    mesh = obj.data
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float64)
    mesh.vertices.foreach_get("co", co)
    corners = np.empty(len(mesh.loops), dtype=np.int64)
    mesh.loops.foreach_get("vertex_index", corners)
    starts = np.empty(len(mesh.polygons), dtype=np.int64)
    mesh.polygons.foreach_get("loop_start", starts)
    sizes = np.empty(len(mesh.polygons), dtype=np.int64)
    mesh.polygons.foreach_get("loop_total", sizes)
    edges = np.empty(len(mesh.edges) * 2, dtype=np.int64)
    mesh.edges.foreach_get("vertices", edges)
    matrix = np.array(obj.matrix_world)
    world = co.reshape(-1, 3) @ matrix[:3, :3].T + matrix[:3, 3]
    return world, solver.Faces(corners, starts, sizes), edges.reshape(-1, 2)


def pin_weights(obj) -> np.ndarray:
    weights = np.zeros(len(obj.data.vertices))
    group = obj.vertex_groups.get("Pins")
    if group is not None:
        for v in obj.data.vertices:  # set-up only, a handful of vertices
            for g in v.groups:
                if g.group == group.index:
                    weights[v.index] = g.weight
    return weights


def evaluated_positions(obj) -> np.ndarray:
    """World positions of `obj`'s evaluated mesh at the current frame."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float64)
    mesh.vertices.foreach_get("co", co)
    evaluated.to_mesh_clear()
    matrix = np.array(obj.matrix_world)
    return co.reshape(-1, 3) @ matrix[:3, :3].T + matrix[:3, 3]


# ---------------------------------------------------------------------------------------- results


@dataclass
class Result:
    scene: str
    vertices: int
    solver: str
    ms_per_frame: float
    frames_timed: int
    projections_per_s: float | None
    stretch_mean: float
    stretch_max: float
    sphere_depth: float | None
    floor_depth: float
    note: str = ""
    samples: list[float] = field(default_factory=list)
    cap_angle: float | None = None  # degrees, mean angle between neighbouring faces resting on the sphere


def edge_stretch(rest: np.ndarray, positions: np.ndarray, edges: np.ndarray) -> tuple[float, float]:
    """(mean, max) positive part of L/L0 − 1 over mesh edges."""
    l0 = np.linalg.norm(rest[edges[:, 0]] - rest[edges[:, 1]], axis=1)
    length = np.linalg.norm(positions[edges[:, 0]] - positions[edges[:, 1]], axis=1)
    strain = np.maximum(length / l0 - 1.0, 0.0)
    return float(strain.mean()), float(strain.max())


def cap_angle(positions: np.ndarray, faces: solver.Faces) -> float | None:
    """Mean angle (degrees) between neighbouring faces resting on the sphere's upper half (roughness)."""
    return metrics.cap_angle(positions, faces, *SPHERE)


def measure(spec: SceneSpec, solver_name: str, mesh, positions, *, ms, frames_timed, projections, note=""):
    rest, edges, faces = mesh
    mean, worst = edge_stretch(rest, positions, edges)
    sphere_depth = None
    angle = None
    if spec.kind == "drape":
        sphere_depth = solver.sphere_penetration(positions, *SPHERE)
        angle = cap_angle(positions, faces)
    floor_depth = solver.plane_penetration(positions, (0, 0, 0), (0, 0, 1))
    pps = projections / (ms * frames_timed / 1000) if projections else None
    return Result(
        spec.name,
        spec.vertices,
        solver_name,
        ms,
        frames_timed,
        pps,
        mean,
        worst,
        sphere_depth,
        floor_depth,
        note,
        cap_angle=angle,
    )


# ------------------------------------------------------------------------------------ this add-on


def _select_only(obj) -> None:
    for other in _scene().objects:
        other.select_set(False)
    obj.select_set(True)
    _view_layer().objects.active = obj


def _solver_setup(spec: SceneSpec, cloth, ball, ground):
    rest, faces, _ = mesh_arrays(cloth)
    model = solver.build_model(rest, faces, pin_weight=pin_weights(cloth))
    colliders: list[solver.Sphere | solver.Plane] = [solver.Plane(point=tuple(ground.location), normal=(0, 0, 1))]
    if ball is not None:
        colliders.insert(0, solver.Sphere(center=tuple(ball.location), radius=SPHERE[1]))
    return model, colliders


def _make_cloth(spec: SceneSpec, cloth, ball, ground) -> None:
    """What an artist does: Make Cloth, sphere and floor colliders, the pin group for the hang."""
    _select_only(cloth)
    _ops().convert()
    if ball is not None:
        ball.verlet_cloth_collider.kind = "SPHERE"
    ground.verlet_cloth_collider.kind = "PLANE"
    if spec.kind == "hang":
        cloth.verlet_cloth.pin_group = "Pins"
    _scene().frame_set(_scene().frame_start)


def time_addon(spec: SceneSpec, self_collision: bool = False) -> tuple[float, np.ndarray, int, str]:
    """Bake `spec` through bpy.ops.verlet_cloth.bake(), shape-key writes included.

    Returns (seconds, final positions, constraint projections per frame, how it was timed).
    """
    cloth, ball, ground = build_scene(spec)
    model, _ = _solver_setup(spec, cloth, ball, ground)  # for the projection count only
    structural = model.constraints.kind == solver.STRUCTURAL
    substeps = auto_substeps(1 / FPS, float(model.constraints.rest_length[structural].mean()))  # the bake's
    per_frame = len(model.constraints.pairs) * substeps * solver.Params().iterations
    _make_cloth(spec, cloth, ball, ground)
    cloth.verlet_cloth.self_collision = self_collision
    _select_only(cloth)
    started = time.perf_counter()
    _ops().bake()
    elapsed = time.perf_counter() - started
    _scene().frame_set(_scene().frame_end)
    return elapsed, evaluated_positions(cloth), per_frame, "bpy.ops.verlet_cloth.bake()"


def time_preview(spec: SceneSpec) -> tuple[list[float], str]:
    """Per-frame seconds of live preview playback (frame by frame from the start), mesh write included."""
    cloth, ball, ground = build_scene(spec)
    _make_cloth(spec, cloth, ball, ground)
    scene = _scene()
    samples = []
    for frame in range(scene.frame_start + 1, scene.frame_end + 1):
        started = time.perf_counter()
        scene.frame_set(frame)
        samples.append(time.perf_counter() - started)
    return samples, "frame_set with the preview handler"


# ------------------------------------------------------------------------------ Blender's modifier


def time_blender(spec: SceneSpec, frames: int, self_collision: bool = False) -> tuple[list[float], np.ndarray]:
    """Blender's Cloth modifier (default settings), Collision on sphere and floor: per-frame seconds."""
    cloth, ball, ground = build_scene(spec, frames)
    scene = _scene()
    modifier = cloth.modifiers.new("Cloth", "CLOTH")
    modifier.collision_settings.use_self_collision = self_collision
    if spec.kind == "hang":
        modifier.settings.vertex_group_mass = "Pins"
    modifier.point_cache.frame_start = scene.frame_start
    modifier.point_cache.frame_end = scene.frame_end
    for obstacle in (ball, ground):
        if obstacle is not None:
            obstacle.modifiers.new("Collision", "COLLISION")
    scene.frame_set(scene.frame_start)
    samples = []
    for frame in range(scene.frame_start + 1, scene.frame_start + 1 + frames):
        started = time.perf_counter()
        scene.frame_set(frame)
        samples.append(time.perf_counter() - started)
    return samples, evaluated_positions(cloth)


# ------------------------------------------------------------------------------- the seeds' loop


def reference_run(rest, edges, pinned, *, frames: int, with_sphere: bool, iterations: int = 10):
    """The seed article's loop in plain Python: Verlet, then 10 sweeps over the mesh's sticks, each
    followed by per-particle sphere and floor collision. Returns (seconds per frame, positions)."""
    pos = [list(map(float, p)) for p in rest]
    old = [p[:] for p in pos]
    sticks = [(int(a), int(b), math.dist(rest[a], rest[b])) for a, b in edges]
    free = [i for i in range(len(pos)) if not pinned[i]]
    pins = [(i, pos[i][:]) for i in range(len(pos)) if pinned[i]]
    (cx, cy, cz), radius = SPHERE
    dt2 = (1.0 / FPS) ** 2
    gz = -9.81 * dt2
    drag = 0.99
    started = time.perf_counter()
    for _ in range(frames):
        for i in free:
            p, o = pos[i], old[i]
            x, y, z = p
            p[0] = x + (x - o[0]) * drag
            p[1] = y + (y - o[1]) * drag
            p[2] = z + (z - o[2]) * drag + gz
            o[0], o[1], o[2] = x, y, z
        for _ in range(iterations):
            for a, b, length in sticks:
                pa, pb = pos[a], pos[b]
                dx, dy, dz = pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]
                d = math.sqrt(dx * dx + dy * dy + dz * dz) or 1e-12
                k = 0.5 * (d - length) / d
                pa[0] += dx * k
                pa[1] += dy * k
                pa[2] += dz * k
                pb[0] -= dx * k
                pb[1] -= dy * k
                pb[2] -= dz * k
            for i, target in pins:
                pos[i][:] = target
            for i in free:
                p = pos[i]
                if with_sphere:
                    dx, dy, dz = p[0] - cx, p[1] - cy, p[2] - cz
                    d = math.sqrt(dx * dx + dy * dy + dz * dz)
                    if 1e-12 < d < radius:
                        s = radius / d
                        p[0], p[1], p[2] = cx + dx * s, cy + dy * s, cz + dz * s
                p[2] = max(p[2], 0.0)
    elapsed = (time.perf_counter() - started) / frames
    return elapsed, np.array(pos)


# ------------------------------------------------------------------------------------- profiling


def profile_addon(n: int, frames: int = 24) -> str:
    """Where a 64² drape's time goes: pyinstrument, plus a phase split of step()."""
    from pyinstrument import Profiler  # noqa: PLC0415 - development tool

    vertices, faces = solver.grid(n, n, size=2.0, height=1.5)
    model = solver.build_model(vertices, faces)
    colliders = [solver.Sphere(center=SPHERE[0], radius=SPHERE[1]), solver.Plane(point=(0, 0, 0))]
    state = model.initial_state()
    params = solver.Params()
    profiler = Profiler(interval=0.0005)
    profiler.start()
    for _ in range(frames):
        solver.step(model, state, params, 1 / FPS, colliders=colliders)
    profiler.stop()
    text = profiler.output_text(unicode=True, color=False, show_all=False)

    # Phase split with plain timers (less overhead than the sampler).
    import importlib  # noqa: PLC0415

    step_module = importlib.import_module("solver.step")
    spent: dict[str, float] = {}
    originals = {name: getattr(step_module, name) for name in ("project", "collide")}

    def timed(name, fn):
        def wrapper(*args, **kwargs):
            t = time.perf_counter()
            out = fn(*args, **kwargs)
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - t
            return out

        return wrapper

    best: tuple[float, dict[str, float]] | None = None
    try:
        for name, fn in originals.items():
            setattr(step_module, name, timed(name, fn))
        for _ in range(3):
            spent.clear()
            state = model.initial_state()
            t = time.perf_counter()
            for _ in range(frames):
                solver.step(model, state, params, 1 / FPS, colliders=colliders)
            total = time.perf_counter() - t
            if best is None or total < best[0]:
                best = (total, dict(spent))
    finally:
        for name, fn in originals.items():
            setattr(step_module, name, fn)
    assert best is not None
    total, spent = best
    lines = [
        f"Phase split of solver.step, {n}² drape, {frames} frames, best of 3 ({1000 * total / frames:.1f} ms/frame):"
    ]
    for name in ("project", "collide"):
        share = spent.get(name, 0.0)
        lines.append(f"  {name:14s} {1000 * share / frames:6.2f} ms/frame  {100 * share / total:5.1f}%")
    rest = total - sum(spent.values())
    lines.append(f"  {'integrate etc.':14s} {1000 * rest / frames:6.2f} ms/frame  {100 * rest / total:5.1f}%")
    return "\n".join(lines) + "\n\n" + text


# ---------------------------------------------------------------------------------------- report


def time_self_collision(n: int = 128, frames: int = FRAMES, runs: int = 3, faces: bool = False) -> tuple[float, float]:
    """CPU ms per frame of the N² drape, solver only, without and with self-collision (face contacts
    with `faces`, else vertex–vertex), best of `runs`, interleaved so that the machine's drift
    touches both alike."""

    def run(params: solver.Params) -> float:
        vertices, faces = solver.grid(n, n, size=2.0, height=1.5)
        model = solver.build_model(vertices, faces)
        state = model.initial_state()
        colliders = [solver.Sphere(center=SPHERE[0], radius=SPHERE[1]), solver.Plane(point=(0, 0, 0))]
        start = time.process_time()
        for _ in range(frames):
            solver.step(model, state, params, 1 / FPS, colliders)
        return 1000 * (time.process_time() - start) / frames

    on = solver.Params(self_collision=True, self_collision_faces=faces)
    pairs = [(run(solver.Params()), run(on)) for _ in range(runs)]
    return min(plain for plain, _ in pairs), min(with_self for _, with_self in pairs)


def _fmt(value, digits=1, scale=1.0, suffix=""):
    if value is None:
        return "–"
    return f"{value * scale:.{digits}f}{suffix}"


def table(results: list[Result]) -> str:
    head = (
        "| scene | vertices | solver | ms/frame | frames timed | projections/s | mean stretch | max stretch "
        "| cap angle | sphere depth | floor depth | note |\n"
    )
    head += "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n"
    rows = []
    for r in results:
        pps = "–" if r.projections_per_s is None else f"{r.projections_per_s / 1e6:.1f} M"
        rows.append(
            f"| {r.scene} | {r.vertices:,} | {r.solver} | {r.ms_per_frame:.1f} | {r.frames_timed} | {pps} "
            f"| {_fmt(r.stretch_mean, 2, 100, '%')} | {_fmt(r.stretch_max, 1, 100, '%')} "
            f"| {_fmt(r.cap_angle, 2, 1, '°')} "
            f"| {_fmt(r.sphere_depth, 1, 1000, ' mm')} | {_fmt(r.floor_depth, 1, 1000, ' mm')} | {r.note} |"
        )
    return head + "\n".join(rows) + "\n"


def _quad_drape(scene: str) -> bool:
    return scene.startswith("Drape") and scene.endswith("²")


def plot(results: list[Result], path: Path) -> None:
    """Left: ms per frame vs vertex count (quad-grid drapes as lines, other mesh kinds as labelled points).
    Right: mean stretch per drape mesh, this add-on beside Blender's Cloth."""
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, (ax, bars) = plt.subplots(1, 2, figsize=(12, 4.8), gridspec_kw={"width_ratios": [1.1, 1]})
    colours = {}
    for name, marker in (
        ("this add-on (bake)", "o"),
        ("Blender Cloth modifier", "s"),
        ("seed reference (Python)", "^"),
    ):
        points = sorted((r.vertices, r.ms_per_frame) for r in results if r.solver == name and _quad_drape(r.scene))
        if points:
            xs, ys = zip(*points, strict=True)
            (line,) = ax.plot(xs, ys, marker=marker, label=f"{name}, quad grid")
            colours[name] = line.get_color()
        for r in results:
            if r.solver == name and r.scene.startswith("Drape") and not _quad_drape(r.scene):
                ax.plot([r.vertices], [r.ms_per_frame], marker=marker, color=colours.get(name), fillstyle="none")
                ax.annotate(r.scene.removeprefix("Drape "), (r.vertices, r.ms_per_frame), fontsize=7, alpha=0.8)
    ax.axhline(1000 / FPS, color="grey", linestyle=":", linewidth=1, label="real time (24 fps)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("cloth vertices (drape; open markers: other mesh kinds)")
    ax.set_ylabel("ms per simulated frame")
    ax.set_title("Drape over a sphere: time per frame")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)

    scenes_shown = [r.scene for r in results if r.solver == "this add-on (bake)" and r.scene.startswith("Drape")]
    width = 0.4
    for offset, name in ((-width / 2, "this add-on (bake)"), (width / 2, "Blender Cloth modifier")):
        by = {r.scene: r for r in results if r.solver == name}
        values = [100 * by[s].stretch_mean if s in by else 0.0 for s in scenes_shown]
        bars.bar(np.arange(len(scenes_shown)) + offset, values, width, label=name, color=colours.get(name))
    bars.set_xticks(np.arange(len(scenes_shown)))
    bars.set_xticklabels([s.removeprefix("Drape ") for s in scenes_shown], rotation=30, ha="right", fontsize=8)
    bars.set_ylabel("mean edge stretch at the last frame (%)")
    bars.set_title("Stretch per mesh")
    bars.grid(True, axis="y", alpha=0.3)
    bars.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def machine() -> str:
    import platform  # noqa: PLC0415

    return (
        f"{os.cpu_count()} cores, Python {platform.python_version()}, NumPy {np.__version__}, "
        f"bpy {bpy.app.version_string}, {platform.system()} {platform.machine()}"
    )


def mesh_kind_lines(by: dict) -> list[str]:
    """Issue 10's targets per mesh kind: stretch against max(1.5 × Blender's, 0.5%), speed-up, fan cost per vertex."""
    lines = []
    for scene in ("Drape 64²", "Drape 64² triangulated", "Drape 48² irregular", "Drape 128²", "Drape 256²"):
        ours, theirs = by.get((scene, "this add-on (bake)")), by.get((scene, "Blender Cloth modifier"))
        if ours and theirs:
            bound = (
                1.5 * theirs.stretch_mean
                if scene in ("Drape 128²", "Drape 256²")
                else max(1.5 * theirs.stretch_mean, 0.005)
            )
            lines.append(
                f"- {scene}: stretch {100 * ours.stretch_mean:.2f}% vs Blender {100 * theirs.stretch_mean:.2f}% "
                f"(target ≤ {100 * bound:.2f}%), {theirs.ms_per_frame / ours.ms_per_frame:.1f}× faster."
            )
    fan = next(
        (r for (name, solver_name), r in by.items() if "fan" in name and solver_name == "this add-on (bake)"), None
    )
    grid = by.get(("Drape 64²", "this add-on (bake)"))
    if fan and grid:
        theirs = by.get((fan.scene, "Blender Cloth modifier"))
        per_vertex = (fan.ms_per_frame / fan.vertices) / (grid.ms_per_frame / grid.vertices)
        lines.append(
            f"- {fan.scene}: stretch {100 * fan.stretch_mean:.2f}%"
            + (
                f" vs Blender {100 * theirs.stretch_mean:.2f}%, {theirs.ms_per_frame / fan.ms_per_frame:.1f}× faster"
                if theirs
                else ""
            )
            + f"; cost per vertex {per_vertex:.2f}× the 64² grid's (target ≤ 1.5×)."
        )
    return lines


# ------------------------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="32² and 64² only, fewer reference frames")
    parser.add_argument("--out", type=Path, default=ROOT / "bench")
    args = parser.parse_args()
    sizes = (32, 64) if args.quick else (32, 64, 128, 256)
    # Frames timed for the seed's Python loop. Blender runs all 48 at every size: its 256² cost per
    # frame grows ~5x once the cloth lands, and a shorter run's stretch and cap angle are those of a
    # cloth that has only just reached the sphere.
    reference_frames = {32: 12, 64: 6, 128: 3, 256: 1}
    repeats = {32: 3, 64: 3, 128: 2, 256: 1}  # add-on bakes per scene; the best is reported

    started = time.perf_counter()
    scenes.enable_checkout("vc_bench")
    print(f"machine: {machine()}")
    specs = [SceneSpec("drape", n) for n in sizes]
    # The same drape on other mesh kinds (issue 10): one row each, Blender's Cloth on the same mesh.
    specs += [SceneSpec("drape", 64, mesh="triangulated"), SceneSpec("drape", 48, mesh="irregular")]
    specs += [SceneSpec("drape", 11, mesh="fan"), SceneSpec("drape", 64, mesh="holed")]
    specs += [SceneSpec("hang", 32), SceneSpec("hang", 64)]
    results: list[Result] = []
    preview_notes = []
    for spec in specs:
        print(f"{spec.name} ...", flush=True)
        cloth, ball, ground = build_scene(spec)
        rest, faces, edges = mesh_arrays(cloth)
        pinned = pin_weights(cloth) >= 1.0

        # The machine is shared: repeat the cheaper runs, interleaving the two solvers, and keep the best
        # of each (the physics is deterministic).
        repeat = repeats.get(spec.n, 1) if spec.mesh == "quad" else 3
        frames = spec.frames
        runs, blender_runs = [], []
        for i in range(repeat):
            runs.append(time_addon(spec))
            if i < (2 if spec.vertices <= 64 * 64 else 1):
                blender_runs.append(time_blender(spec, frames))
        elapsed = min(run[0] for run in runs)
        _, positions, per_frame, how = runs[-1]
        ms = 1000 * elapsed / spec.frames
        how += f"; best of {len(runs)}" if len(runs) > 1 else ""
        results.append(
            measure(
                spec,
                "this add-on (bake)",
                (rest, edges, faces),
                positions,
                ms=ms,
                frames_timed=spec.frames,
                projections=per_frame * spec.frames,
                note=how,
            )
        )

        samples, positions = min(blender_runs, key=lambda run: sum(run[0]))
        note = "default settings"
        note += f"; best of {len(blender_runs)}, interleaved" if len(blender_runs) > 1 else ""
        ms = 1000 * sum(samples) / len(samples)
        results.append(
            measure(
                spec,
                "Blender Cloth modifier",
                (rest, edges, faces),
                positions,
                ms=ms,
                frames_timed=frames,
                projections=None,
                note=note,
            )
        )
        if spec.mesh == "quad" and spec.kind == "drape" and spec.n in (64, 128):
            previews = [time_preview(spec) for _ in range(3)]
            medians = sorted(1000 * statistics.median(samples) for samples, _ in previews)
            means = sorted(1000 * statistics.mean(samples) for samples, _ in previews)
            preview_notes.append(
                f"Live preview, {spec.n}² drape ({previews[0][1]}), 3 runs of {len(previews[0][0])} frames: "
                f"median per frame {medians[0]:.1f} ms in the best run ({', '.join(f'{m:.1f}' for m in medians)} ms); "
                f"mean {means[0]:.1f} ms in the best run."
            )
        if spec.mesh != "quad":  # the seeds' loop adds nothing here
            print(table(results[-2:]), flush=True)
            continue

        frames = reference_frames.get(spec.n, 4)
        seconds, positions = reference_run(rest, edges, pinned, frames=frames, with_sphere=spec.kind == "drape")
        note = f"10 iterations; state after {frames} frames"
        results.append(
            measure(
                spec,
                "seed reference (Python)",
                (rest, edges, faces),
                positions,
                ms=1000 * seconds,
                frames_timed=frames,
                projections=len(edges) * 10 * frames,
                note=note,
            )
        )
        print(table(results[-3:]), flush=True)

    self_collision_note = ""
    if not args.quick:
        print("self-collision at 128² and 64² ...", flush=True)
        plain, with_self = time_self_collision(128)
        self_collision_note = (
            f"Self-collision, vertex–vertex (Faces off), at 128² drape: {with_self:.1f} ms/frame vs {plain:.1f} "
            f"ms/frame without (×{with_self / plain:.2f}; solver only, CPU time, {FRAMES} frames, best of 3, "
            "interleaved)."
        )
        plain, with_self = time_self_collision(64, frames=24, runs=1, faces=True)
        self_collision_note += (
            f"\n- Self-collision with Faces (the default) at 64² drape: {with_self:.1f} ms/frame vs {plain:.1f} "
            f"ms/frame without (×{with_self / plain:.2f}; solver only, CPU time, 24 frames, one run)."
        )
        spec = SceneSpec("drape", 64)
        ours, blenders = time_addon(spec, self_collision=True)[0], time_blender(spec, FRAMES, self_collision=True)[0]
        ours_ms, blenders_ms = 1000 * ours / FRAMES, 1000 * sum(blenders) / len(blenders)
        self_collision_note += (
            f"\n- Self-collision on (Faces), 64² drape, {FRAMES} frames, the bake against Blender's Cloth with its"
            f" self-collision on (wall time, one run each; Blender's Cloth runs on every core): {ours_ms:.0f} against"
            f" {blenders_ms:.0f} ms/frame ("
            + (
                f"{blenders_ms / ours_ms:.1f}× faster)."
                if ours_ms <= blenders_ms
                else f"{ours_ms / blenders_ms:.1f}× slower)."
            )
        )
        print(self_collision_note, flush=True)

    print("Blender side: big cloth and preview output ...", flush=True)
    blender_side_lines = blender_side.run(448 if not args.quick else 128)
    print("\n".join(blender_side_lines), flush=True)

    profile = profile_addon(64)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "profile.txt").write_text(profile)
    plot(results, args.out / "results.png")

    by = {(r.scene, r.solver): r for r in results}
    lines = []
    ours, theirs = by.get(("Drape 64²", "this add-on (bake)")), by.get(("Drape 64²", "Blender Cloth modifier"))
    if ours and theirs:
        lines.append(
            f"- 64² drape: add-on {ours.ms_per_frame:.1f} ms/frame vs Blender {theirs.ms_per_frame:.1f} ms/frame "
            f"= {theirs.ms_per_frame / ours.ms_per_frame:.1f}× faster; mean stretch {100 * ours.stretch_mean:.2f}%."
        )
    big = by.get(("Drape 256²", "this add-on (bake)"))
    if ours and big:
        lines.append(
            f"- 64² → 256² (16× the vertices): {big.ms_per_frame / ours.ms_per_frame:.1f}× the time per frame."
        )
    lines += mesh_kind_lines(by)
    lines += [f"- {note}" for note in preview_notes]
    if self_collision_note:
        lines.append(f"- {self_collision_note}")
    lines.extend(blender_side_lines)
    summary = "\n".join(lines)
    phase = profile.split("\n\n")[0]
    markdown = (
        "# Benchmark results\n\n"
        f"Machine: {machine()}. Run: `make bench` ({(time.perf_counter() - started) / 60:.1f} min). "
        "Timings on a shared 2-core machine are noisy (other builds ran at the same time): the add-on's bake "
        "is the best of 3 runs (2 at 128², 1 at 256²), Blender's the best of 2 at 32² and 64², else one run.\n\n"
        f"{table(results)}\n"
        "ms/frame: wall time per simulated frame (add-on: the whole bake incl. model build and shape-key writes, "
        "divided by 48; Blender: mean of `scene.frame_set` per frame; reference: mean over the frames run). "
        "Stretch: positive part of L/L0 − 1 over mesh edges at the last frame run. Depths: how far the deepest "
        "vertex is inside the sphere / below the floor. Projections/s: distance-constraint projections "
        "(the model's constraints × substeps × iterations) per second, not counting the grid path's extra "
        "structural pass, its long-range spans or the tethers; Blender's implicit solver has no such count.\n\n"
        f"{summary}\n\n"
        "## Where the add-on's time goes\n\n"
        f"```\n{phase}\n```\n\nFull pyinstrument profile: `bench/profile.txt`.\n\n"
        "![time per frame vs vertex count](results.png)\n"
    )
    (args.out / "results.md").write_text(markdown)
    print(table(results))
    print(summary)
    print(phase)
    print(f"wrote {args.out / 'results.md'}, {args.out / 'results.png'}, {args.out / 'profile.txt'}")
    print(f"bench took {(time.perf_counter() - started) / 60:.1f} min")


if __name__ == "__main__":
    main()
