"""bench/identity.py's `self-faces` scene measured with and without face_collision.SLIDES_PUSHED_OFF (round 25).

The scene: a 1 m n² quad sheet in the XZ plane dropped edge-first from 0.6 m onto the floor, Faces self-collision,
bend 0.2, 8 substeps, `--frames` frames of 1/24 s (identity's defaults: n 24, 24 frames). Per variant: intersecting
face pairs (solver.intersections, most at any frame), triangles turned over (normal against the rest one's, most /
last; "in-plane": those with all three corners within 0.1 mm of y = 0, i.e. folded flat in the sheet's plane),
stretch (longest edge over rest, most at any frame), the sheet's top z at the end, CPU s, and the end positions'
md5 (the first 10 hex digits: identity.py's id, so `main` must print 42d4d0a7c9 at 24² / 24 frames).

    PYTHONPATH=. .venv/bin/python bench/edge_first_drop.py [main] [push] [--n 24] [--frames 24]
"""

import argparse
import hashlib
import time

import numpy as np
from measure import set_rule

import solver
from solver import face_collision, meshes
from solver.intersections import count_self_intersections

FRAME = 1 / 24


def run(variant: str, n: int, frames: int) -> str:
    set_rule(face_collision, "SLIDES_PUSHED_OFF", variant == "push")  # (push: the default since round 27)
    vertices, faces = meshes.grid(n, n, size=1.0, height=0.0)
    vertices = vertices[:, [0, 2, 1]] + [0.0, 0.0, 0.6]
    model = solver.build_model(vertices, faces)
    params = solver.Params(self_collision=True, self_collision_faces=True, bend_stiffness=0.2, substeps=8)
    state = model.initial_state()
    tri = np.asarray(model.triangles[0])
    edges = model.cloth_edges[0]
    rest_len = np.linalg.norm(vertices[edges[:, 0]] - vertices[edges[:, 1]], axis=1)

    def normals(x):
        return np.cross(x[tri[:, 1]] - x[tri[:, 0]], x[tri[:, 2]] - x[tri[:, 0]])

    rest_n = normals(vertices)
    pairs = turned_most = in_plane_most = 0
    stretch = 1.0
    cpu = 0.0
    for _ in range(frames):
        t = time.process_time()
        solver.step(model, state, params, FRAME, [solver.Plane(point=(0, 0, 0))])
        cpu += time.process_time() - t
        x = state.positions
        pairs = max(pairs, count_self_intersections(model, x))
        turned = np.einsum("ij,ij->i", normals(x), rest_n) < 0.0
        flat = (np.abs(x[tri, 1]) < 1e-4).all(axis=1)
        turned_most = max(turned_most, int(turned.sum()))
        in_plane_most = max(in_plane_most, int((turned & flat).sum()))
        stretch = max(stretch, float((np.linalg.norm(x[edges[:, 0]] - x[edges[:, 1]], axis=1) / rest_len).max()))
    x = state.positions
    digest = hashlib.md5(np.ascontiguousarray(x, dtype=np.float64).tobytes()).hexdigest()[:10]
    return (
        f"{variant:5} n {n} pairs max {pairs} turned max {turned_most} last {int(turned.sum())} in-plane max "
        f"{in_plane_most} last {int((turned & flat).sum())} stretch max {stretch:.3f} top z {x[:, 2].max():.3f} "
        f"max |y| {np.abs(x[:, 1]).max():.3f} cpu {cpu:.1f} id {digest}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    folded = not hasattr(face_collision, "SLIDES_PUSHED_OFF")  # (round 27: the push is the default)
    parser.add_argument("variants", nargs="*", default=["push"] if folded else ["main", "push"])
    parser.add_argument("--n", type=int, default=24)
    parser.add_argument("--frames", type=int, default=24)
    args = parser.parse_args()
    for variant in args.variants:
        print(run(variant, args.n, args.frames), flush=True)


if __name__ == "__main__":
    main()
