"""One drape of `make bench`, this add-on and Blender's Cloth side by side at the same frame.

    .venv/bin/python bench/drape_compare.py 256 --frames 48 [--mesh quad] [--self-collision]

Prints, for each solver: wall ms per frame, mean edge stretch and the cap angle (mean angle between
neighbouring faces resting on the sphere) after `--frames` frames. `make bench` reports the same
measures for 48 frames; this runs any frame count, e.g. to see whether a difference in roughness
lasts (frame 96) or to compare both solvers at the same moment.
"""

from __future__ import annotations

import argparse

import scenes

import bench


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("n", type=int, help="grid size (fan: subdivisions)")
    parser.add_argument("--frames", type=int, default=bench.FRAMES)
    parser.add_argument("--mesh", default="quad", help="quad, triangulated, irregular, fan or holed")
    parser.add_argument("--self-collision", action="store_true", help="self-collision on in both (Faces here)")
    args = parser.parse_args()
    scenes.enable_checkout("vc_drape_compare")
    spec = bench.SceneSpec("drape", args.n, frames=args.frames, mesh=args.mesh)
    for who in ("this add-on", "Blender's Cloth"):
        cloth, _, _ = bench.build_scene(spec)
        mesh = bench.mesh_arrays(cloth)
        if who == "this add-on":
            elapsed, positions, _, _ = bench.time_addon(spec, self_collision=args.self_collision)
            ms = 1000 * elapsed / spec.frames
        else:
            samples, positions = bench.time_blender(spec, spec.frames, self_collision=args.self_collision)
            ms = 1000 * sum(samples) / len(samples)
        rest, faces, edges = mesh
        result = bench.measure(
            spec, who, (rest, edges, faces), positions, ms=ms, frames_timed=spec.frames, projections=None
        )
        print(
            f"{spec.name}, frame {spec.frames}, {who}: {ms:.0f} ms/frame, stretch {100 * result.stretch_mean:.2f}%, "
            f"cap {result.cap_angle:.2f}°"
        )


if __name__ == "__main__":
    main()
