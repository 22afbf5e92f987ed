"""A/B of a mesh collider's passes, part by part: another checkout's solver and this one's, frame by frame in turn.

bench/mesh_collider_cost.py's 64² drapes (its scenes and cloths), each frame stepped by the other checkout's
solver and by this one's (alternately first), the CPU (process) time of each pass's functions summed over the
frames; per solver the least sum over the rounds. Asserts that both solvers leave the same positions to the last
bit every frame (an A/B of a cost cut that must not change results). The parts are nested (a pass's time holds its
list's), so they do not add up to the frame.

    .venv/bin/python bench/collider_parts_ab.py /path/to/base/checkout [--rounds 3] [--frames 30] table/quad ...

Rows: scene/kind as mesh_collider_cost.py's (scenes torus, ball, table, roundtable, ...; kinds quad, triangulated).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import importlib
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import mesh_collider_cost as cost  # noqa: E402

import solver  # noqa: E402
from solver import meshes  # noqa: E402

PARTS = (
    "edge_contacts.collide_edges",
    "edge_list._EdgeList.pairs",  # (edge_contacts._EdgeList before round 24)
    "edge_contacts.hold_edges",
    "edge_iterations.iterate_edge_contacts",
    "corner_contacts.collide_corners",
    "corner_contacts._CornerList.pairs",
    "corner_contacts._hold",
    "mesh_collider.MeshCollider.collide_rows",
    "mesh_collider._Candidates.pairs",
    "step.project",
    # (the hooks, whole: their dispatch and the holds' set-up between the parts above)
    "edge_contacts.collide_cloth_edges",
    "corner_contacts.collide_cloth_corners",
    "corner_support.support_hanging",
)


def instrument(package, spent: dict) -> None:
    """Wrap each of PARTS in `package` to add its CPU time to spent[part] (and where a sibling module imported
    the function by name, there too)."""
    for part in PARTS:
        module_name, qualified = part.split(".", 1)
        try:
            module = importlib.import_module(f"{package.__name__}.{module_name}")
        except ModuleNotFoundError:  # (a base from before round 24's split of edge_contacts)
            module = importlib.import_module(f"{package.__name__}.edge_contacts")
        owner, name = module, qualified
        if "." in qualified:
            class_name, name = qualified.split(".")
            owner = getattr(module, class_name)
        original = getattr(owner, name)

        def timed(original=original, part=part):
            @functools.wraps(original)
            def call(*args, **kwargs):
                started = time.process_time()
                try:
                    return original(*args, **kwargs)
                finally:
                    spent[part] = spent.get(part, 0.0) + time.process_time() - started

            return call

        wrapped = timed()
        setattr(owner, name, wrapped)
        for other in list(sys.modules.values()):
            if (
                getattr(other, "__name__", "").startswith(package.__name__ + ".")
                and getattr(other, name, None) is original
            ):
                setattr(other, name, wrapped)


def _against(checkout: Path):
    scratch = Path(tempfile.mkdtemp(prefix="vc_parts_"))
    shutil.copytree(checkout / "solver", scratch / "solver_base", ignore=shutil.ignore_patterns("__pycache__"))
    sys.path.insert(0, str(scratch))
    return importlib.import_module("solver_base")


def run(row: str, packages, spent, frames: int, rounds: int) -> None:
    scene, _, kind = row.partition("/")
    vertices, triangles = cost.SCENES[scene]()
    rest, faces = meshes.grid(cost.N, cost.N, size=2.0, height=1.0)
    if kind == "triangulated":
        faces = meshes.triangulated(faces)
    labels = [label for label, _ in packages]
    best = {label: {} for label in labels}
    best_frame = dict.fromkeys(labels, float("inf"))
    for r in range(rounds):
        runs = []
        for label, package in packages:
            shape, model = package.TriangleMesh(vertices, triangles), package.build_model(rest, faces)
            floor = package.Plane(point=(0, 0, 0))
            runs.append((label, package, shape, model, model.initial_state(), package.Params(), floor))
        sums = {label: {} for label in labels}
        total = dict.fromkeys(labels, 0.0)
        for f in range(frames):
            digests = {}
            for label, package, shape, model, state, params, floor in runs if (f + r) % 2 == 0 else runs[::-1]:
                spent[label].clear()
                started = time.process_time()
                package.step(model, state, params, 1 / cost.FPS, [package.MeshCollider(shape), floor])
                total[label] += time.process_time() - started
                for part, seconds in spent[label].items():
                    sums[label][part] = sums[label].get(part, 0.0) + seconds
                digests[label] = hashlib.md5(state.positions.tobytes()).hexdigest()
            assert len(set(digests.values())) == 1, (row, r, f, digests)
        for label in labels:
            best_frame[label] = min(best_frame[label], total[label])
            for part, seconds in sums[label].items():
                best[label][part] = min(best[label].get(part, float("inf")), seconds)
    base, branch = labels
    print(
        f"{row}: {frames} frames, best of {rounds}; CPU ms a frame, base -> this checkout (positions equal every frame)"
    )
    print(f"  {'frame':42s} {1000 * best_frame[base] / frames:8.2f} -> {1000 * best_frame[branch] / frames:8.2f}")
    for part in PARTS:
        if part in best[base]:
            a, b = best[base][part], best[branch].get(part, float("nan"))
            print(f"  {part:42s} {1000 * a / frames:8.2f} -> {1000 * b / frames:8.2f}  ({100 * (b - a) / a:+.1f} %)")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base", type=Path, help="the other checkout (its solver/ is copied and imported)")
    parser.add_argument("rows", nargs="+", help="scene/kind")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--frames", type=int, default=30)
    args = parser.parse_args()
    packages = [("base", _against(args.base)), ("branch", solver)]
    spent: dict = {label: {} for label, _ in packages}
    for label, package in packages:
        instrument(package, spent[label])
    for row in args.rows:
        run(row, packages, spent, args.frames, args.rounds)


if __name__ == "__main__":
    main()
