"""`make demo`: drape a cloth over a sphere on a floor in headless Blender; save a .blend and a PNG."""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bpy  # noqa: E402
import numpy as np  # noqa: E402
import scenes  # noqa: E402

import solver  # noqa: E402


def main(out_dir: Path = ROOT / "out", n: int = 64, frames: int = 48) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    cloth, ball, ground = scenes.drape_scene(n, frames)
    mesh = cloth.data
    vertices = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", vertices)
    faces = np.empty(len(mesh.polygons) * 4, dtype=np.int64)
    mesh.polygons.foreach_get("vertices", faces)
    model = solver.build_model(vertices.reshape(-1, 3), faces.reshape(-1, 4))
    state = model.initial_state()
    colliders = [solver.Sphere(center=tuple(ball.location), radius=0.5), solver.Plane(point=(0, 0, 0))]
    started = time.perf_counter()
    for frame in range(frames):
        solver.step(model, state, solver.Params(), 1 / 24, colliders=colliders)
        print(f"frame {frame + 1}/{frames}", end="\r", flush=True)
    elapsed = time.perf_counter() - started
    mesh.vertices.foreach_set("co", state.positions.astype(np.float32).ravel())
    mesh.update()
    mean, worst = solver.stretch_summary(model, state.positions)
    print(f"simulated {frames} frames of a {n}x{n} cloth in {elapsed:.2f} s ({1000 * elapsed / frames:.1f} ms/frame)")
    print(f"edge stretch: mean {100 * mean:.3f}%, max {100 * worst:.2f}%")

    png = out_dir / "demo.png"
    scenes.stage_for_render(cloth, ball, ground, str(png))
    blend = out_dir / "demo.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    bpy.ops.render.render(write_still=True)
    print(f"saved {blend}")
    print(f"rendered {png}")


if __name__ == "__main__":
    main()
