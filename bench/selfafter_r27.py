"""Faces after the impact (round 27, selfafter_r27): the every-substep query against a classic Verlet list.

Usage: .venv/bin/python bench/selfafter_r27.py SCENE N FROM FRAMES [--variants=base,skin0.5,...] [--rounds=R]
                                               [--crossings] [--strays]
  SCENE: drape-quad, drape-tri (bench.py's drape: the n² 2 m sheet over the 0.5 m sphere and floor), flag (the
         n² 1 m flag pinned along one side in self_collision_scenes' gentle wind), crumple (its soft 1 m sheet
         dropped edge-first onto the floor).
  e.g. bench/selfafter_r27.py flag 64 6 2 --variants=base,skin0.25,skin0.5,skin1 --crossings --strays
       bench/selfafter_r27.py drape-quad 128 20 2 --variants=base,skin0.25 --strays
The scene runs FROM frames with Faces as it is (the default rules), then its state (the engine's lists with
it) is copied, and each variant runs FRAMES frames from that copy, interleaved by round (best of R). Variants:
  base        the default rules (after an impact: the every-substep query, `PatchPairs.find`, each substep);
  skinM       a classic Verlet list: the engine's skin mode held at skin = M x gap (`every_substep` and
              `adaptive` off): pairs within gap + skin + both pads at the anchors, a vertex more than
              skin / 2 + its pad from its anchor (relative to the cloth's mean) queried again (partially; a
              full query when a quarter of the cloth strayed).
  nearC       the default rules with `FaceCollision.patch_near` = C cells: patches within C cells at rest are
              neighbours (static rows bounded by the patches' rigid motions) rather than far pairs expanded
              every substep; the patches are built again at the copy (the first frame pays that).
  cellC       the default rules with `FaceCollision.patch_edges` = C (the patches' cell in median rest edges;
              default 1), the patches built again at the copy (cell1: the default's control, built again too).
Prints per frame: CPU ms (time.process_time), the candidate queries' ms, full queries, vertices re-queried,
the listed pairs, and with --strays how many vertices a substep an ideal per-vertex Verlet list (no pads,
positions at the substep's end relative to the mean, each vertex re-anchored when it strays) would re-query
at M = 0.25, 0.5, 1, 2 gaps, and with --split the CPU ms of `PatchPairs`' parts (inclusive: `_far` holds
`_far_blocks`, `_expand`, `_test`); then each variant's best ms/frame, md5 of the positions, and (--crossings)
intersecting face pairs at the end.
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
from self_collision_scenes import drape_scene  # noqa: E402

import solver  # noqa: E402
from solver.face_collision import FaceCollision  # noqa: E402
from solver.intersections import count_self_intersections  # noqa: E402
from solver.patch_pairs import PatchPairs  # noqa: E402

ARGS = sys.argv[1:]
FRAME = 1 / 24
MARGINS = (0.25, 0.5, 1.0, 2.0)


def _opt(name, default=None):
    return next((a.split("=", 1)[1] for a in ARGS if a.startswith(f"--{name}=")), default)


def scene(name: str, n: int):
    """(model, colliders, state, params) with Faces on."""
    if name.startswith("drape"):
        model, colliders, state = drape_scene(n, "triangulated" if name.endswith("tri") else "quad")
        return model, colliders, state, solver.Params(self_collision=True, self_collision_faces=True)
    if name == "crumple":  # self_collision_scenes.crumple: a soft 1 m sheet dropped edge-first onto the floor
        vertices, faces = solver.grid(n, n, size=1.0)
        model = solver.build_model(vertices[:, [0, 2, 1]] + [0.0, 0.0, 0.52], faces)
        params = solver.Params(self_collision=True, self_collision_faces=True, bend_stiffness=0.2, friction=0.5)
        state = model.initial_state()
        state.previous[:, 1] -= 0.3 * (state.positions[:, 2] - 0.02) * (FRAME / params.substeps)
        return model, [solver.Plane(point=(0, 0, 0))], state, params
    if name == "flag":
        vertices, faces = solver.grid(n, n, size=1.0)
        vertices = vertices[:, [0, 2, 1]] + [0.5, 0.0, 1.5]
        pinned = np.isclose(vertices[:, 0], vertices[:, 0].min()).astype(np.float64)
        model = solver.build_model(vertices, faces, pin_weight=pinned)
        params = solver.Params(
            self_collision=True, self_collision_faces=True, wind=(2.0, 0.0, 0.0), turbulence=0.0, turbulence_scale=0.5
        )
        return model, [], model.initial_state(), params
    raise SystemExit(f"unknown scene {name}")


class Meter:
    """Per frame: the queries' CPU time, full queries, vertices re-queried, the refreshes' modes, and the
    ideal per-vertex list's re-queries at each margin (class-wide wraps of FaceCollision)."""

    def __init__(self, strays: bool):
        self.strays = strays
        self.reset()
        self.anchors: dict[float, np.ndarray] = {}
        query, refresh, meter = FaceCollision._query, FaceCollision.refresh, self

        def timed_query(engine, x, previous, mean, mean0, moved=None):
            start = time.process_time()
            query(engine, x, previous, mean, mean0, moved)
            meter.query += time.process_time() - start
            if moved is None:
                meter.full += 1
            else:
                meter.partial += int(np.count_nonzero(moved))

        def counted_refresh(engine, x, previous=None):
            if meter.strays:
                meter._stray(x, engine.gap)
            refresh(engine, x, previous)
            meter.modes.append("g" if engine.window else "v" if engine.skin == 0.0 else "s")

        FaceCollision._query = timed_query
        FaceCollision.refresh = counted_refresh
        self.parts: dict[str, float] = {}
        if "--split" in ARGS:
            for name in ("_bound", "_near", "_far", "_far_blocks", "_expand", "_test", "_touching"):
                self._wrap(name)

    def _wrap(self, name: str) -> None:
        original, parts = getattr(PatchPairs, name), self.parts

        def timed(patches, *args, **kwargs):
            start = time.process_time()
            try:
                return original(patches, *args, **kwargs)
            finally:
                parts[name] = parts.get(name, 0.0) + time.process_time() - start

        setattr(PatchPairs, name, timed)

    def reset(self) -> None:
        self.query, self.full, self.partial, self.modes = 0.0, 0, 0, []
        self.strayed = dict.fromkeys(MARGINS, 0)
        if hasattr(self, "parts"):
            self.parts.clear()

    def restart(self) -> None:
        self.reset()
        self.anchors = {}

    def _stray(self, x: np.ndarray, gap: float) -> None:
        relative = x - x.mean(axis=0)
        for margin in MARGINS:
            anchor = self.anchors.get(margin)
            if anchor is None:
                self.anchors[margin] = relative.copy()
                continue
            moved = ((relative - anchor) ** 2).sum(axis=1) > (0.5 * margin * gap) ** 2
            anchor[moved] = relative[moved]
            self.strayed[margin] += int(np.count_nonzero(moved))


def run(saved: bytes, variant: str, frames: int, params, meter: Meter, crossings: bool):
    model, colliders, state = pickle.loads(saved)
    engine = state.scratch["self_collision"]
    if variant.startswith("skin"):
        engine.every_substep = engine.adaptive = False
        engine.skin = float(variant[4:]) * engine.gap
    elif variant.startswith("near"):
        engine.patch_near, engine.patches = float(variant[4:]), None
    elif variant.startswith("cell"):
        engine.patch_edges, engine.patches = float(variant[4:]), None
    meter.restart()
    total = 0.0
    for _ in range(frames):
        meter.reset()
        start = time.process_time()
        solver.step(model, state, params, FRAME, colliders)
        spent = time.process_time() - start
        total += spent
        substeps = max(len(meter.modes), 1)
        strays = " ".join(f"{m:g}:{meter.strayed[m] / substeps:.0f}" for m in MARGINS) if meter.strays else ""
        split = " ".join(f"{name} {1e3 * spent:.0f}" for name, spent in meter.parts.items())
        print(
            f"  {variant:9s} frame {state.frame:3d} {1e3 * spent:8.0f} ms, queries {1e3 * meter.query:7.0f} ms "
            f"(full {meter.full}, re-queried {meter.partial}) {''.join(meter.modes)} listed {len(engine.p)} vt "
            f"{len(engine.e)} ee {'strays/substep ' + strays if strays else ''} {split}",
            flush=True,
        )
    md5 = hashlib.md5(state.positions.tobytes()).hexdigest()[:10]
    count = count_self_intersections(model, state.positions) if crossings else None
    return 1e3 * total / frames, md5, count


def main() -> None:
    plain = [a for a in ARGS if not a.startswith("--")]
    name, n, start, frames = plain[0], int(plain[1]), int(plain[2]), int(plain[3])
    variants = _opt("variants", "base,skin0.25").split(",")
    rounds = int(_opt("rounds", "1"))
    model, colliders, state, params = scene(name, n)
    for _ in range(start):
        solver.step(model, state, params, FRAME, colliders)
    kept = state.copy()
    kept.scratch = {"self_collision": state.scratch["self_collision"]}  # (the rest of the scratch is rebuilt)
    saved = pickle.dumps((model, colliders, kept))
    meter = Meter("--strays" in ARGS)
    best: dict[str, float] = {}
    ends: dict[str, tuple] = {}
    for r in range(rounds):
        for variant in variants:
            ms, md5, count = run(saved, variant, frames, params, meter, "--crossings" in ARGS and r == 0)
            best[variant] = min(best.get(variant, np.inf), ms)
            ends.setdefault(variant, (md5, count))
            print(f"round {r} {variant}: {ms:.0f} ms/frame, md5 {md5}", flush=True)
    print(f"{name} {n}², frames {start}-{start + frames - 1}, best of {rounds} (CPU ms/frame):")
    for variant in variants:
        md5, count = ends[variant]
        ratio = best[variant] / best[variants[0]]
        print(f"  {variant:9s} {best[variant]:8.0f}  x{ratio:.2f}  md5 {md5}  crossings {count}")


if __name__ == "__main__":
    main()
