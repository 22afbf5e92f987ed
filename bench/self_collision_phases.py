"""Where face-based self-collision spends its time, per frame: the violent phase's every-substep
queries, the calm phase's (skin mode) full and partial queries, the live filter, the narrow phase,
the failsafe, and the rest of the step (plain). CPU time (time.process_time), exclusive of nested
parts, on bench.py's drape from rest (the n² 2 m sheet over the sphere and floor).

Usage: .venv/bin/python bench/self_collision_phases.py [n] [frames] [--mesh=quad|jittered|triangulated|holed|fan]
  e.g. bench/self_collision_phases.py 64 48
Prints one line per frame (ms per part) and the totals over frame ranges.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from self_collision_scenes import drape_scene  # noqa: E402

import solver  # noqa: E402
from solver.face_collision import FaceCollision  # noqa: E402
from solver.intersections import count_self_intersections  # noqa: E402

FRAME = 1 / 24
PARTS = ("violent", "calm full", "calm partial", "failsafe query", "live", "refresh", "narrow", "failsafe")


class Clock:
    """Exclusive CPU time per label, for nested wrapped calls."""

    def __init__(self):
        self.spent = dict.fromkeys(PARTS, 0.0)
        self.counts = dict.fromkeys(PARTS, 0)
        self.stack: list[list] = []  # [label, start, time in children]

    def enter(self, label: str) -> None:
        self.stack.append([label, time.process_time(), 0.0])

    def leave(self) -> None:
        label, start, children = self.stack.pop()
        total = time.process_time() - start
        self.spent[label] += total - children
        self.counts[label] += 1
        if self.stack:
            self.stack[-1][2] += total

    def take(self) -> tuple[dict, dict]:
        spent, counts = self.spent, self.counts
        self.spent, self.counts = dict.fromkeys(PARTS, 0.0), dict.fromkeys(PARTS, 0)
        return spent, counts


def instrument(clock: Clock) -> None:
    """Wrap FaceCollision's phases with the clock (class-wide)."""

    def wrap(name, label_of):
        original = getattr(FaceCollision, name)

        def wrapped(self, *args, **kwargs):
            clock.enter(label_of(self, args, kwargs))
            try:
                return original(self, *args, **kwargs)
            finally:
                clock.leave()

        setattr(FaceCollision, name, wrapped)

    def query_label(self, args, kwargs):
        moved = args[4] if len(args) > 4 else kwargs.get("moved")
        inside_failsafe = any(entry[0] == "failsafe" for entry in clock.stack)
        if inside_failsafe:
            return "failsafe query"
        if self.skin == 0.0 or self.anchor is None and self.skin == 0.0:
            return "violent"
        return "calm full" if moved is None else "calm partial"

    wrap("_query", query_label)
    wrap("_live", lambda self, a, k: "live")
    wrap("refresh", lambda self, a, k: "refresh")
    wrap("resolve", lambda self, a, k: "narrow")
    wrap("undo_crossings", lambda self, a, k: "failsafe")


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 64
    frames = int(args[1]) if len(args) > 1 else 48
    mesh = next((a.split("=")[1] for a in sys.argv if a.startswith("--mesh=")), "quad")
    clock = Clock()
    instrument(clock)
    model, colliders, state = drape_scene(n, mesh)
    params = solver.Params(self_collision=True)
    print(f"{n}² {mesh} drape from rest, face engine, CPU ms per frame (exclusive parts; counts in brackets)")
    print("frame  total  plain  " + "  ".join(PARTS))
    rows = []
    for frame in range(frames):
        start = time.process_time()
        solver.step(model, state, params, FRAME, colliders)
        total = 1e3 * (time.process_time() - start)
        spent, counts = clock.take()
        parts = {k: 1e3 * v for k, v in spent.items()}
        plain = total - sum(parts.values())
        rows.append((total, plain, parts))
        cells = "  ".join(f"{parts[k]:7.1f} ({counts[k]})" for k in PARTS)
        print(f"{frame:5d} {total:7.1f} {plain:6.1f}  {cells}", flush=True)
    engine = state.scratch["self_collision"]
    print(f"intersecting face pairs at the end: {count_self_intersections(model, state.positions)}")
    print(f"listed at the end: {len(engine.p)} vt, {len(engine.e)} ee; skin {engine.skin:.4f}")
    chunks = [(0, 10), (10, 20), (20, 30), (30, frames)] if frames > 30 else [(0, frames)]
    chunks.append((0, frames))
    print("frames  total  plain  " + "  ".join(PARTS) + "   (ms/frame)")
    for a, b in chunks:
        part = rows[a:b]
        if not part:
            continue
        mean = np.mean([r[0] for r in part]), np.mean([r[1] for r in part])
        cells = "  ".join(f"{np.mean([r[2][k] for r in part]):7.1f}" for k in PARTS)
        print(f"{a:2d}-{b - 1:2d} {mean[0]:7.1f} {mean[1]:6.1f}  {cells}")


if __name__ == "__main__":
    main()
