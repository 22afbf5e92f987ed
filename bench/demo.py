"""`make demo`: drape a cloth over a sphere on a floor in headless Blender, through the add-on's operators.

It loads this checkout as the extension `verlet_cloth`, makes the sphere and the floor colliders,
makes the grid cloth, bakes it to shape keys, renders the last frame with Workbench to
out/demo.png, six frames of the drape side by side to out/demo_strip.png, and saves
out/demo.blend (open it in Blender with the extension installed).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
SCRATCH = tempfile.TemporaryDirectory(prefix="vc_demo_")  # removed when the script ends
os.environ.setdefault("BLENDER_USER_RESOURCES", os.path.join(SCRATCH.name, "user"))

import bpy  # noqa: E402
import numpy as np  # noqa: E402
import scenes  # noqa: E402

import solver  # noqa: E402


def _select(*objects) -> None:
    for obj in bpy.context.scene.objects:
        obj.select_set(obj in objects)
    bpy.context.view_layer.objects.active = objects[0]


def _world_positions(obj) -> np.ndarray:
    evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    co = np.empty(len(evaluated.data.vertices) * 3, dtype=np.float32)
    evaluated.data.vertices.foreach_get("co", co)
    matrix = np.array(evaluated.matrix_world)
    return co.reshape(-1, 3) @ matrix[:3, :3].T + matrix[:3, 3]


def main(out_dir: Path = ROOT / "out", n: int = 64, frames: int = 48) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    scenes.enable_checkout("vc_demo")
    cloth, ball, ground = scenes.drape_scene(n, frames)
    scene = bpy.context.scene
    scene.frame_set(scene.frame_start)
    _select(ball)
    bpy.ops.verlet_cloth.make_collider(kind="SPHERE")
    _select(ground)
    bpy.ops.verlet_cloth.make_collider(kind="PLANE")
    _select(cloth)
    bpy.ops.verlet_cloth.convert()
    rest = _world_positions(cloth)

    started = time.perf_counter()
    bpy.ops.verlet_cloth.bake()
    elapsed = time.perf_counter() - started
    keys = len(cloth.data.shape_keys.key_blocks) - 1
    print(f"baked {keys} frames of a {n}x{n} cloth in {elapsed:.2f} s ({1000 * elapsed / keys:.1f} ms/frame)")

    scene.frame_set(scene.frame_end)
    mesh = cloth.data
    faces = np.empty(len(mesh.loops), dtype=np.int64)
    mesh.loops.foreach_get("vertex_index", faces)
    model = solver.build_model(rest, faces.reshape(-1, 4))
    mean, worst = solver.stretch_summary(model, _world_positions(cloth))
    print(f"edge stretch at frame {scene.frame_end}: mean {100 * mean:.3f}%, max {100 * worst:.2f}%")

    png = out_dir / "demo.png"
    scenes.stage_for_docs(cloth, ball, ground, str(png))
    blend = out_dir / "demo.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    bpy.ops.render.render(write_still=True)
    print(f"saved {blend}")
    print(f"rendered {png}")
    strip = out_dir / "demo_strip.png"
    render_strip(strip, frames)
    print(f"rendered {strip}")


def render_strip(out: Path, frames: int) -> None:
    """Render six frames of the baked drape small and tile them left to right into `out`."""
    scene = bpy.context.scene
    render = scene.render
    size = render.resolution_x, render.resolution_y, render.filepath
    render.resolution_x, render.resolution_y = 320, 240
    lens = scene.camera.data.lens
    scene.camera.data.lens = 45.0  # the flat sheet at frame 1 is wider than the drape
    work = Path(tempfile.mkdtemp(prefix="vc_demo_strip_", dir=SCRATCH.name))
    paths = []
    # Most of the motion is between the first contact (~frame 10) and frame 25: sample it more densely.
    steps = np.array([0.0, 0.2, 0.3, 0.42, 0.6, 1.0])
    for i, frame in enumerate((scene.frame_start + steps * (frames - scene.frame_start)).round().astype(int)):
        scene.frame_set(int(frame))
        paths.append(str(work / f"{i}.png"))
        scenes.render_to(paths[-1])
    scenes.tile_images(paths, str(out))
    render.resolution_x, render.resolution_y, render.filepath = size
    scene.camera.data.lens = lens
    scene.frame_set(frames)


if __name__ == "__main__":
    main()
