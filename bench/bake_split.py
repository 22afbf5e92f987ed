"""Where the Blender side's time goes: CPU ms per frame of `make bench`'s drape, in solver.step and outside it.

Usage: .venv/bin/python bench/bake_split.py [--preview] [--runs 3] kind:n ...
  kind: quad, triangulated, irregular, fan (bench/scenes.py's meshes; n as in `make bench`: 64, 64, 48, 11)
Bake: bpy.ops.verlet_cloth.bake() as bench.py times it (Make Cloth first, shape-key writes included).
--preview: playback frame by frame with the live preview handler instead (bench.py's "Live preview").
Prints, best of --runs (by total CPU): the whole, solver.step, and the rest (scene reads, settings,
key writes, the preview's display write and depsgraph evaluation). CPU time (time.process_time) of
this process, so other work on a shared machine shows less than in wall time.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import time

import scenes

import bench


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenes", nargs="+", help="kind:n, e.g. irregular:48")
    parser.add_argument("--preview", action="store_true")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    module = scenes.enable_checkout("vc_split")
    solver = importlib.import_module(module + ".services.runs").solver  # the package the add-on steps with
    step = solver.step
    spent = [0.0]

    def timed_step(*a, **k):
        started = time.process_time()
        try:
            return step(*a, **k)
        finally:
            spent[0] += time.process_time() - started

    solver.step = timed_step
    for item in args.scenes:
        kind, n = item.split(":")
        spec = bench.SceneSpec("drape", int(n), mesh=kind)
        rows = []
        for _ in range(args.runs):
            cloth, ball, ground = bench.build_scene(spec)
            bench._make_cloth(spec, cloth, ball, ground)
            bench._select_only(cloth)
            scene = bench._scene()
            spent[0] = 0.0
            with contextlib.redirect_stdout(io.StringIO()):  # the bake's progress lines
                started = time.process_time()
                if args.preview:
                    for frame in range(scene.frame_start + 1, scene.frame_end + 1):
                        scene.frame_set(frame)
                else:
                    bench._ops().bake()
                total = time.process_time() - started
            frames = scene.frame_end - scene.frame_start
            rows.append((1000 * total / frames, 1000 * spent[0] / frames))
        total, in_solver = min(rows)
        what = "preview" if args.preview else "bake"
        print(
            f"{what} {spec.name}: {total:.2f} ms/frame CPU, solver.step {in_solver:.2f}, rest {total - in_solver:.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
