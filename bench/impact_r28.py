"""`PatchPairs._near` at the 128² impact (round 28, impact_r28): its switches A/B from one saved state.

Usage: .venv/bin/python bench/impact_r28.py SCENE N FROM FRAMES [--variants=base,mid,chunk,both] [--rounds=R]
  SCENE, N: as bench/selfafter_r27.py (drape-quad, drape-tri, flag, crumple).
  e.g. bench/impact_r28.py drape-quad 128 11 2 --variants=base,both --rounds=2
The scene runs FROM frames with the default rules, its state (the engine and its patches) is copied, and each
variant runs FRAMES frames from that copy, interleaved by round. Variants set patch_pairs' switches:
  base   NEAR_MIDDLES = False, NEAR_CHUNK = 0 (main's `_near`);  mid   NEAR_MIDDLES only (the default);
  chunk  NEAR_CHUNK = 8 only;  both  the two.
At round 28's merge NEAR_MIDDLES was folded (on) and NEAR_CHUNK deleted: on main only `mid` runs; check out
68a0e7e for the A/B of all four.
--rebuild: each variant builds the patches again at the copy (the first frame pays the build): NEAR_CHUNK orders each
segment's static rows nearest at rest first at the build, so without it the copy's rows (built with the default) are
not ordered. bench/selfcost_r26.py with --set runs whole scenes from rest, the build included.
Prints per frame CPU ms (time.process_time), `_near`'s ms and its due rows, then each variant's best ms/frame and
the md5 of the positions (equal: the same candidates, the same positions).
"""

from __future__ import annotations

import hashlib
import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(1, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from selfafter_r27 import scene  # noqa: E402

import solver  # noqa: E402
from solver import patch_pairs  # noqa: E402

ARGS = sys.argv[1:]
FRAME = 1 / 24
SWITCHES = {"base": (False, 0), "mid": (True, 0), "chunk": (False, 8), "both": (True, 8)}
SPENT = {"near": 0.0}


def _opt(name, default=None):
    return next((a.split("=", 1)[1] for a in ARGS if a.startswith(f"--{name}=")), default)


def _timed_near():
    original = patch_pairs.PatchPairs._near

    def timed(patches, *args, **kwargs):
        start = time.process_time()
        try:
            return original(patches, *args, **kwargs)
        finally:
            SPENT["near"] += time.process_time() - start

    patch_pairs.PatchPairs._near = timed


def run(saved: bytes, variant: str, frames: int, params) -> tuple[float, str]:
    if not hasattr(patch_pairs, "NEAR_MIDDLES"):
        if variant != "mid":
            raise SystemExit(f"variant {variant}: the switches are gone from this tree; check out 68a0e7e")
    else:
        patch_pairs.NEAR_MIDDLES, patch_pairs.NEAR_CHUNK = SWITCHES[variant]
    model, colliders, state = pickle.loads(saved)
    if "--rebuild" in ARGS:
        state.scratch["self_collision"].patches = None
    total = 0.0
    for _ in range(frames):
        patches = state.scratch["self_collision"].patches
        measured = patches.measured if patches is not None else 0
        SPENT["near"] = 0.0
        start = time.process_time()
        solver.step(model, state, params, FRAME, colliders)
        spent = time.process_time() - start
        total += spent
        patches = state.scratch["self_collision"].patches
        due = patches.measured - measured if patches is not None else 0
        print(
            f"  {variant:6s} frame {state.frame:3d} {1e3 * spent:8.0f} ms, _near {1e3 * SPENT['near']:7.0f} ms, "
            f"{due} rows due",
            flush=True,
        )
    return 1e3 * total / frames, hashlib.md5(state.positions.tobytes()).hexdigest()[:10]


def main() -> None:
    plain = [a for a in ARGS if not a.startswith("--")]
    name, n, start, frames = plain[0], int(plain[1]), int(plain[2]), int(plain[3])
    variants = _opt("variants", "base,both").split(",")
    rounds = int(_opt("rounds", "1"))
    model, colliders, state, params = scene(name, n)
    for _ in range(start):
        solver.step(model, state, params, FRAME, colliders)
    kept = state.copy()
    kept.scratch = {"self_collision": state.scratch["self_collision"]}
    saved = pickle.dumps((model, colliders, kept))
    _timed_near()
    best: dict[str, float] = {}
    for r in range(rounds):
        for variant in variants:
            ms, md5 = run(saved, variant, frames, params)
            best[variant] = min(best.get(variant, np.inf), ms)
            print(f"round {r} {variant}: {ms:.0f} ms/frame, md5 {md5}", flush=True)
    print(
        f"{name} {n}², frames {start + 1}-{start + frames}, best of {rounds}: "
        + "  ".join(f"{v} {best[v]:.0f}" for v in variants)
    )


if __name__ == "__main__":
    main()
