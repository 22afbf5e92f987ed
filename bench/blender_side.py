"""Blender-side costs for `make bench`: a big cloth's Make Cloth and return to the start frame, and
what showing simulated positions costs per frame (the preview design in docs/preview.md).

    python bench/blender_side.py [--n 448]   # standalone; `make bench` calls `run()`

Big cloth: an n×n grid (448² = 200,704 vertices), pinned along one edge. Times Make Cloth, a return
to the start frame (the preview's reset; best of 3), one preview step, and reports the process's
resident memory. Preview output: per-frame cost of writing N positions and evaluating the mesh,
for the options considered (vertex positions, an owned shape key, an owned attribute read by a
Geometry Nodes modifier: the one chosen), at 64² and 500² (250,000 vertices), best of 7.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="vc_bench_user_"))

import bpy  # noqa: E402
import numpy as np  # noqa: E402
import scenes  # noqa: E402


def _rss_mb() -> float:
    """Resident memory of this process now, MB."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _grid(n: int, name: str, size: float = 2.0, height: float = 1.5):
    """An n×n quad grid, built in bulk (foreach_set), linked to the scene."""
    xs = np.linspace(-size / 2, size / 2, n)
    gx, gy = np.meshgrid(xs, xs)
    co = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, height)], 1)
    index = np.arange(n * n).reshape(n, n)
    quads = np.stack([index[:-1, :-1], index[:-1, 1:], index[1:, 1:], index[1:, :-1]], -1).reshape(-1)
    mesh = bpy.data.meshes.new(name)
    mesh.vertices.add(n * n)
    mesh.vertices.foreach_set("co", co.astype(np.float32).ravel())
    mesh.loops.add(len(quads))
    mesh.loops.foreach_set("vertex_index", quads.astype(np.int32))
    mesh.polygons.add(len(quads) // 4)
    mesh.polygons.foreach_set("loop_start", np.arange(0, len(quads), 4, dtype=np.int32))
    mesh.polygons.foreach_set("loop_total", np.full(len(quads) // 4, 4, dtype=np.int32))
    mesh.update(calc_edges=True)
    obj = bpy.data.objects.new(name, mesh)
    scene = bpy.context.scene
    assert scene is not None
    scene.collection.objects.link(obj)
    return obj


def _activate(obj) -> None:
    layer = bpy.context.view_layer
    assert layer is not None
    for other in layer.objects:
        other.select_set(False)
    obj.select_set(True)
    layer.objects.active = obj


def big_cloth(n: int = 448) -> dict[str, float]:
    """Seconds for Make Cloth, a return to the start frame and one step on an n×n cloth pinned along an edge."""
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    assert scene is not None
    scene.frame_start, scene.frame_end = 1, 10
    scene.frame_set(1)
    cloth = _grid(n, "BigCloth")
    group = cloth.vertex_groups.new(name="Pins")
    group.add(list(range(n)), 1.0, "REPLACE")  # the first row
    cloth.verlet_cloth.pin_group = "Pins"
    _activate(cloth)
    before = _rss_mb()
    began = time.perf_counter()
    result = bpy.ops.verlet_cloth.convert()  # type: ignore[attr-defined]
    make_cloth = time.perf_counter() - began
    assert result == {"FINISHED"}, result
    after_make = _rss_mb()
    steps = []
    for frame in (2, 3):
        began = time.perf_counter()
        scene.frame_set(frame)
        steps.append(time.perf_counter() - began)
    returns = []
    for _ in range(3):
        began = time.perf_counter()
        scene.frame_set(1)
        returns.append(time.perf_counter() - began)
        scene.frame_set(2)
    return {
        "vertices": float(n * n),
        "make_cloth_s": make_cloth,
        "return_to_start_s": min(returns),
        "step_s": min(steps),
        "rss_before_mb": before,
        "rss_after_make_mb": after_make,
        "rss_end_mb": _rss_mb(),
        "peak_mb": _peak_mb(),
    }


# ---------------------------------------------------------------- preview output options


def _preview_group():
    group = bpy.data.node_groups.new("Bench Preview", "GeometryNodeTree")
    group.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    group.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    nodes = group.nodes
    given, out = nodes.new("NodeGroupInput"), nodes.new("NodeGroupOutput")
    named = nodes.new("GeometryNodeInputNamedAttribute")
    named.data_type = "FLOAT_VECTOR"
    named.inputs["Name"].default_value = "bench_position"
    move = nodes.new("GeometryNodeSetPosition")
    group.links.new(given.outputs[0], move.inputs["Geometry"])
    group.links.new(named.outputs["Exists"], move.inputs["Selection"])
    group.links.new(named.outputs["Attribute"], move.inputs["Position"])
    group.links.new(move.outputs[0], out.inputs[0])
    return group


OPTIONS = {
    "vertices.foreach_set (the old preview, no keys)": "verts",
    "Basis shape key (the old preview, with keys)": "basis",
    "owned shape key at value 1": "key",
    "owned attribute + Geometry Nodes (chosen)": "gn",
}


def _prepare(kind: str, n: int, group):
    obj = _grid(n, kind)
    mesh = obj.data
    if kind in {"basis", "key"}:
        obj.shape_key_add(name="Basis")
    if kind == "key":
        obj.shape_key_add(name="Owned").value = 1.0
    if kind == "gn":
        obj.modifiers.new("Preview", "NODES").node_group = group
        mesh.attributes.new("bench_position", "FLOAT_VECTOR", "POINT")
    obj.hide_viewport = True
    return obj


def _write(kind: str, obj, flat) -> None:
    mesh = obj.data
    if kind == "verts":
        mesh.vertices.foreach_set("co", flat)
    elif kind == "basis":
        mesh.shape_keys.reference_key.data.foreach_set("co", flat)
    elif kind == "key":
        mesh.shape_keys.key_blocks["Owned"].data.foreach_set("co", flat)
    else:
        mesh.attributes["bench_position"].data.foreach_set("vector", flat)
    mesh.update_tag()


def preview_output(sizes=(64, 500), repeats: int = 7) -> dict[tuple[str, int], tuple[float, float]]:
    """{(option, vertices): (best ms to write, best ms to write and evaluate)}, interleaved, best of `repeats`."""
    bpy.ops.wm.read_homefile(use_empty=True)
    group = _preview_group()
    layer = bpy.context.view_layer
    assert layer is not None
    out = {}
    for n in sizes:
        objects = {label: _prepare(kind, n, group) for label, kind in OPTIONS.items()}
        samples: dict[str, list[tuple[float, float]]] = {label: [] for label in OPTIONS}
        base = np.zeros((n * n, 3), dtype=np.float32)
        for repeat in range(repeats):
            for label, kind in OPTIONS.items():
                obj = objects[label]
                obj.hide_viewport = False
                layer.update()
                base[:, 2] = 0.01 * (repeat + 1)
                flat = base.ravel()
                began = time.perf_counter()
                _write(kind, obj, flat)
                written = time.perf_counter()
                layer.update()
                samples[label].append((written - began, time.perf_counter() - began))
                obj.hide_viewport = True
        for label in OPTIONS:
            write = min(s[0] for s in samples[label])
            total = min(s[1] for s in samples[label])
            out[(label, n * n)] = (1000 * write, 1000 * total)
        for obj in objects.values():
            bpy.data.objects.remove(obj)
    return out


def run(n: int = 448) -> list[str]:
    """Markdown lines for bench/results.md (the add-on must be enabled)."""
    big = big_cloth(n)
    lines = [
        f"- Big cloth, {int(big['vertices']):,} vertices pinned along one edge: "
        f"Make Cloth {big['make_cloth_s']:.1f} s, "
        f"return to the start frame {big['return_to_start_s']:.2f} s (best of 3), one preview step "
        f"{big['step_s']:.2f} s; resident memory {big['rss_before_mb']:.0f} MB before, "
        f"{big['rss_after_make_mb']:.0f} MB after Make Cloth, {big['rss_end_mb']:.0f} MB after playing "
        f"(peak {big['peak_mb']:.0f} MB)."
    ]
    costs = preview_output()
    lines.append("- Showing simulated positions, per frame (write + evaluate, ms; best of 7, interleaved):")
    for (label, vertices), (write, total) in costs.items():
        lines.append(f"  - {label}, {vertices:,} vertices: write {write:.2f} ms, write + evaluate {total:.2f} ms")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=448, help="big cloth side (vertices per row)")
    args = parser.parse_args()
    scenes.enable_checkout("vc_bench")
    for line in run(args.n):
        print(line, flush=True)


if __name__ == "__main__":
    main()
