"""`PatchPairs._near`'s due rows (round 29, nearrows_r29): main's `_near` against this branch's, in one process.

Usage: .venv/bin/python bench/nearrows_r29.py impact SCENE N FROM FRAMES ROUNDS VARIANT...
       .venv/bin/python bench/nearrows_r29.py whole SCENE N FRAMES ROUNDS VARIANT...
  SCENE, N: as bench/selfafter_r27.py (drape-quad, drape-tri, flag, crumple).
  e.g. bench/nearrows_r29.py impact drape-quad 128 11 2 2 base new new10   # frames 12, 13 of the 128² impact
       bench/nearrows_r29.py whole crumple 32 36 2 base new new10            # 36 frames from rest
impact: the scene runs FROM frames (the default rules), its state is pickled, and each variant runs FRAMES frames
from it; whole: each variant runs the scene from rest. Variants (the candidates, hence the positions, are the same
in all; only the work to find them differs):
  base   main's (f05e6a6) `_near` and `_middle_apart` (read with `git show`), a new origin once a quarter is due;
  new    this branch's defaults: its `_near` (NEAR_WHOLE_SHARE 0.5), a new origin once a quarter is due
         (NEAR_RESET_SHARE 0.25, as main);
  new10  the same with NEAR_RESET_SHARE 0.1 (a new origin once a tenth is due).
Prints CPU ms (time.process_time) per frame (impact) or per frame over the run (whole), `_near`'s ms, the rows due
(`measured`), the new origins, and the md5 of the final positions.
"""

from __future__ import annotations

import hashlib
import importlib.util
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(Path(__file__).resolve().parent))

from selfafter_r27 import scene  # noqa: E402

import solver  # noqa: E402
from solver import patch_pairs  # noqa: E402
from solver.patch_pairs import PatchPairs  # noqa: E402

FRAME = 1 / 24
BASE_COMMIT = "f05e6a6"
SPENT = {"near": 0.0}


def _main_functions():
    """main's `_near` and `_middle_apart`, from its patch_pairs.py loaded as solver.patch_pairs_main."""
    text = subprocess.run(
        ["git", "show", f"{BASE_COMMIT}:solver/patch_pairs.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    path = Path(tempfile.mkdtemp()) / "patch_pairs_main.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("solver.patch_pairs_main", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.PatchPairs._near, module.PatchPairs._middle_apart


BRANCH = (PatchPairs._near, PatchPairs._middle_apart)
CURRENT = {"near": BRANCH[0]}


def _timed(patches, *args, **kwargs):
    start = time.process_time()
    try:
        return CURRENT["near"](patches, *args, **kwargs)
    finally:
        SPENT["near"] += time.process_time() - start


def _use(variant: str, functions: dict) -> None:
    (near, middle), whole, reset = functions[variant]
    CURRENT["near"] = near
    PatchPairs._middle_apart = middle
    patch_pairs.NEAR_WHOLE_SHARE, patch_pairs.NEAR_RESET_SHARE = whole, reset


def _patches(state):
    engine = state.scratch.get("self_collision")
    return getattr(engine, "patches", None)


def _frame(model, colliders, state, params) -> tuple[float, float, int]:
    patches = _patches(state)
    measured = patches.measured if patches is not None else 0
    SPENT["near"] = 0.0
    start = time.process_time()
    solver.step(model, state, params, FRAME, colliders)
    spent = time.process_time() - start
    patches = _patches(state)
    return spent, SPENT["near"], (patches.measured - measured) if patches is not None else 0


def main() -> None:
    mode, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "impact":
        start, frames, rounds, variants = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7:]
    else:
        start, frames, rounds, variants = 0, int(sys.argv[4]), int(sys.argv[5]), sys.argv[6:]
    functions = {"base": (_main_functions(), 0.0, 0.25), "new": (BRANCH, 0.5, 0.25), "new10": (BRANCH, 0.5, 0.1)}
    PatchPairs._near = _timed
    saved, params = None, None
    if mode == "impact":
        _use("new", functions)
        model, colliders, state, params = scene(name, n)
        for _ in range(start):
            solver.step(model, state, params, FRAME, colliders)
        kept = state.copy()
        kept.scratch = {"self_collision": state.scratch["self_collision"]}
        saved = pickle.dumps((model, colliders, kept))
    best: dict[str, list[float]] = {v: [] for v in variants}
    for r in range(rounds):
        for variant in variants:
            _use(variant, functions)
            if saved is not None:
                model, colliders, state = pickle.loads(saved)
            else:
                model, colliders, state, params = scene(name, n)
            total = near = 0.0
            due = 0
            for _ in range(frames):
                spent, in_near, rows = _frame(model, colliders, state, params)
                total, near, due = total + spent, near + in_near, due + rows
                if saved is not None:
                    ms, near_ms = 1e3 * spent, 1e3 * in_near
                    print(f"  {variant:6s} frame {state.frame:3d} {ms:8.0f} ms, _near {near_ms:7.0f} ms, {rows} due")
            patches = _patches(state)
            md5 = hashlib.md5(state.positions.tobytes()).hexdigest()[:10]
            best[variant].append(1e3 * total / frames)
            origins = patches.resets if patches is not None else 0
            ms, near_ms = 1e3 * total / frames, 1e3 * near / frames
            print(f"round {r} {variant}: {ms:.1f} ms/frame, _near {near_ms:.1f} ms/frame, {due} rows due, ", end="")
            print(f"{origins} origins, md5 {md5}", flush=True)
    summary = "  ".join(f"{v} {min(best[v]):.1f}" for v in variants)
    print(f"{name} {n}² {mode}: {summary} (best ms/frame)", flush=True)


if __name__ == "__main__":
    main()
