"""The bake's CPU time per frame of this checkout against another one, in one Blender process.

Usage: .venv/bin/python bench/bake_against.py OTHER_CHECKOUT [--rounds 4] [--runs 2] kind:n ...
  kind: quad, triangulated, irregular, fan, holed (bench/scenes.py's meshes; n as in `make bench`)
Each round loads one checkout as an extension (a repository of its own), bakes each scene --runs times
(bpy.ops.verlet_cloth.bake() after Make Cloth, as bench.py times it), and unloads it; the checkouts
alternate, the first one alternating too, so both see the same machine. Prints per scene and
checkout the best bake (CPU ms a frame: time.process_time), its solver.step share, and the median
and least of the rest (scene reads, settings, key writes). For a shared machine: compare best and median.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import tempfile
import time
from pathlib import Path

import bpy
import scenes

import addon_utils

import bench

_SCRATCH = tempfile.TemporaryDirectory(prefix="vc_against_")


def _enable(label: str, root: Path) -> str:
    repo = f"against_{label}"
    repos = bpy.context.preferences.extensions.repos
    if repo not in {r.module for r in repos}:
        folder = Path(_SCRATCH.name) / repo
        folder.mkdir()
        (folder / "verlet_cloth").symlink_to(root, target_is_directory=True)
        repos.new(name=repo, module=repo, custom_directory=str(folder), source="USER")
    module = f"bl_ext.{repo}.verlet_cloth"
    addon_utils.enable(module, default_set=True, handle_error=scenes._raise)
    return module


def _bake_times(module: str, spec) -> tuple[float, float]:
    """(bake, solver.step) CPU ms per frame of one bake of `spec` with the add-on `module`."""
    solver = importlib.import_module(module + ".services.runs").solver
    step, spent = solver.step, [0.0]

    def timed(*args, **kwargs):
        started = time.process_time()
        try:
            return step(*args, **kwargs)
        finally:
            spent[0] += time.process_time() - started

    solver.step = timed
    try:
        cloth, ball, ground = bench.build_scene(spec)
        bench._make_cloth(spec, cloth, ball, ground)
        bench._select_only(cloth)
        scene = bench._scene()
        with contextlib.redirect_stdout(io.StringIO()):  # the bake's progress lines
            started = time.process_time()
            bench._ops().bake()
            total = time.process_time() - started
    finally:
        solver.step = step
    frames = scene.frame_end - scene.frame_start
    return 1000 * total / frames, 1000 * spent[0] / frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("other", type=Path)
    parser.add_argument("scenes", nargs="+", help="kind:n, e.g. irregular:48")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    checkouts = {"other": args.other.resolve(), "this": scenes.ROOT}
    rows: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for index in range(args.rounds):
        order = list(checkouts.items()) if index % 2 == 0 else list(checkouts.items())[::-1]
        for label, root in order:
            module = _enable(label, root)
            for item in args.scenes:
                kind, n = item.split(":")
                spec = bench.SceneSpec("drape", int(n), mesh=kind)
                rows.setdefault((item, label), []).extend(_bake_times(module, spec) for _ in range(args.runs))
            addon_utils.disable(module, default_set=True)
    for item in args.scenes:
        parts = []
        for label in checkouts:
            found = rows[(item, label)]
            best = min(found)
            rest = sorted(total - solver for total, solver in found)
            parts.append(
                f"{label}: best {best[0]:.2f} (solver.step {best[1]:.2f}), rest median {rest[len(rest) // 2]:.3f} "
                f"least {rest[0]:.3f}"
            )
        print(f"{item}: " + " | ".join(parts), flush=True)


if __name__ == "__main__":
    main()
