"""How often vertices stray from their anchors under different reference motions, on the real paths of
bench.py's drape with face self-collision (the skin mode's stray test: a vertex is queried again when it
strays more than an allowance from where it was anchored; the pairs' validity argument needs a common
reference for any two vertices that may meet). Emulated on recorded paths: no queries are run.

References:
- fixed: the anchor stays put relative to the cloth's mean (today's rule);
- velocity: the anchor moves on with the vertex's own motion at its last anchoring (linear prediction);
- regions B: the mean of a B x B block of the rest grid (quad grids only); a pair in two blocks also needs
  the blocks' relative motion since its measurement within a budget (half the skin, or their boxes' distance
  less the listing limit): a block pair over budget re-anchors both blocks.

Usage: .venv/bin/python bench/stray_references.py [n] [frames]   (e.g. 64 48; records the paths first, ~1 s a frame)
Prints the share of vertices re-anchored per substep, by frame range.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from self_collision_scenes import drape_scene  # noqa: E402

import solver  # noqa: E402
from solver.face_collision import FaceCollision  # noqa: E402


def record(n: int, frames: int):
    """(starts, ends) of every substep's paths as the face engine's refresh sees them, the rest positions, triangles."""
    model, colliders, state = drape_scene(n, "quad")
    paths = []
    original = FaceCollision.refresh

    def refresh(self, x, previous=None):
        paths.append((previous.copy(), x.copy()))
        return original(self, x, previous)

    FaceCollision.refresh = refresh
    try:
        for _ in range(frames):
            solver.step(model, state, solver.Params(self_collision=True), 1 / 24, colliders)
    finally:
        FaceCollision.refresh = original
    engine = state.scratch["self_collision"]
    return np.array([p[0] for p in paths]), np.array([p[1] for p in paths]), model.rest_positions, engine.triangles


def relative(x: np.ndarray) -> np.ndarray:
    return x - x.mean(axis=0)


def single(starts, ends, first: int, allowance: float, predict: bool) -> np.ndarray:
    """Share re-anchored per substep with one reference (the mean), fixed or moving on with each vertex's motion."""
    base = relative(ends[first])
    velocity = base - relative(starts[first]) if predict else np.zeros_like(base)
    since = np.full(len(base), first)
    shares = []
    for k in range(first + 1, len(ends)):
        start, end = relative(starts[k]), relative(ends[k])
        expected_start = base + velocity * (k - 1 - since)[:, None]
        expected_end = base + velocity * (k - since)[:, None]
        strayed = (np.linalg.norm(start - expected_start, axis=1) > allowance) | (
            np.linalg.norm(end - expected_end, axis=1) > allowance
        )
        shares.append(strayed.mean())
        base[strayed], since[strayed] = end[strayed], k
        if predict:
            velocity[strayed] = (end - start)[strayed]
    return np.array(shares)


def regional(starts, ends, rest, triangles, first: int, skin: float, gap: float, block: int, n: int) -> np.ndarray:
    """Share re-anchored per substep with block means as references (half the skin each: the vertex, the block pair)."""
    cell = np.floor((rest[:, :2] - rest[:, :2].min(axis=0)) / (block * 2.0 / n) + 1e-9).astype(np.int64)
    _, region = np.unique(cell[:, 0] * 100000 + cell[:, 1], return_inverse=True)
    count = region.max() + 1
    sizes = np.bincount(region, minlength=count)

    def means(x):
        return np.stack([np.bincount(region, x[:, k], minlength=count) for k in range(3)], axis=1) / sizes[:, None]

    owner = region[triangles]  # a block's box holds every triangle with a corner in it
    hull = np.stack([np.repeat(owner, 3, axis=1).ravel(), np.tile(triangles, (1, 3)).ravel()], axis=1)
    hull = np.unique(hull, axis=0)  # (block, vertex) rows
    middle = 0.5 * (starts[first] + ends[first])
    origin = means(middle)
    anchor = middle.copy()
    pad = 0.5 * np.linalg.norm(
        (ends[first] - means(ends[first])[region]) - (starts[first] - means(starts[first])[region]), axis=1
    )
    measured = np.zeros((count, count, 3))  # the block pair's relative offset when last measured
    peak = np.zeros((count, count))
    shares = []
    for k in range(first + 1, len(ends)):
        offset_end, offset_start = means(ends[k]) - origin, means(starts[k]) - origin
        reference = anchor + offset_end[region]
        low, high = np.full((count, 3), np.inf), np.full((count, 3), -np.inf)
        np.minimum.at(low, hull[:, 0], reference[hull[:, 1]])
        np.maximum.at(high, hull[:, 0], reference[hull[:, 1]])
        largest = np.zeros(count)
        np.maximum.at(largest, hull[:, 0], pad[hull[:, 1]])
        apart = np.maximum(0.0, np.maximum(low[:, None] - high[None], low[None] - high[:, None]))
        distance = np.sqrt((apart**2).sum(axis=-1))
        budget = np.maximum(0.5 * skin, distance - gap - skin - largest[:, None] - largest[None])
        for offset in (offset_start, offset_end):
            peak = np.maximum(peak, np.linalg.norm(offset[:, None] - offset[None] - measured, axis=-1))
        over = np.zeros(count, dtype=bool)
        a, b = np.nonzero(2.0 * peak > budget)  # measured at any time since: twice the peak
        over[a] = over[b] = True
        stray = np.maximum(
            np.linalg.norm(ends[k] - offset_end[region] - anchor, axis=1),
            np.linalg.norm(starts[k] - offset_start[region] - anchor, axis=1),
        )
        again = (stray > 0.25 * skin + pad) | over[region]
        shares.append(again.mean())
        if again.any():
            offset_middle = 0.5 * (offset_start + offset_end)
            anchor[again] = (0.5 * (starts[k] + ends[k]) - offset_middle[region])[again]
            motion = (ends[k] - offset_end[region]) - (starts[k] - offset_start[region])
            pad[again] = 0.5 * np.linalg.norm(motion, axis=1)[again]
            if over.any():
                both = over[:, None] | over[None]
                measured[both] = (offset_middle[:, None] - offset_middle[None])[both]
                peak[both] = 0.0
    return np.array(shares)


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 64
    frames = int(args[1]) if len(args) > 1 else 48
    substeps = 16
    starts, ends, rest, triangles = record(n, frames)
    gap = solver.Params(self_collision=True).self_collision_gap
    first = 9 * substeps  # from the first frame on the sphere
    ranges = [(9, 20), (20, 30), (30, frames)]

    def show(label: str, shares: np.ndarray) -> None:
        frame = (np.arange(len(shares)) + first + 1) // substeps
        cells = [f"{a}-{b - 1}: {shares[(frame >= a) & (frame < b)].mean():.3f}" for a, b in ranges]
        print(f"{label:<40} " + "  ".join(cells), flush=True)

    print(f"{n}² drape, share of vertices re-anchored per substep (frames on the sphere; gap {gap * 1e3:.0f} mm)")
    for allowance in (2e-3, 3e-3, 5e-3):
        show(f"fixed anchor, allowance {allowance * 1e3:.0f} mm", single(starts, ends, first, allowance, False))
        show(f"own velocity, allowance {allowance * 1e3:.0f} mm", single(starts, ends, first, allowance, True))
    for skin in (gap, 2 * gap):
        for block in (4, 8):
            show(
                f"blocks {block}x{block}, skin {skin / gap:.0f} gap",
                regional(starts, ends, rest, triangles, first, skin, gap, block, n),
            )


if __name__ == "__main__":
    main()
