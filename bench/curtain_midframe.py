"""The moving-collider curtain test's scene, the box's inside counted at every substep (issue 13, round 25, slides25).

tests/test_face_collision_moving_collider.py checks "no vertex inside the box" only at the end of each frame. This
runs the same scene (a 1 m 16² curtain pinned along its top, the 0.3 m box mesh collider swept 1.15 m along x from
frame 1 to 16, Faces self-collision with the add-on's settings, 14 frames) and, by wrapping
`FaceCollision.undo_crossings`, counts the vertices more than 1 mm inside the box (at its pose interpolated to the
substep's end) after the failsafe of every substep. With --trace it prints, for frame F's substeps, how many vertices
the failsafe sent back and how many are inside the box before / after it.

    PYTHONPATH=. .venv/bin/python bench/curtain_midframe.py [kinds] [rules] [--trace F]
    kinds: quad,tri (comma-separated; default quad,tri); rules: cross (the default: in-plane slides sent back),
    noslide (face_collision.IN_PLANE_SLIDES_CROSS False), push (face_collision.SLIDES_PUSHED_OFF), cross-zone and
    push-zone (the same with step.REWIND_WITH_COLLIDERS, round 26); default cross, noslide, push.

One line per run: per frame "F:end/mid/stretch": vertices inside at the frame's end (the test's check), the most
inside after any substep's failsafe in that frame, the longest edge over its rest length at the frame's end.
"""

import importlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
# (the test's box and its path: the same scene, measured here at every substep, not only at frame ends)
from measure import set_rule  # noqa: E402
from test_face_collision_moving_collider import HALF, centre, cube, pose  # noqa: E402

import solver  # noqa: E402
from solver import face_collision, meshes, settings  # noqa: E402

step_module = importlib.import_module("solver.step")  # (solver.step is the function)

# (IN_PLANE_SLIDES_CROSS, SLIDES_PUSHED_OFF, step.REWIND_WITH_COLLIDERS); round 26 (rewind_r26): cross-zone /
# push-zone: a crossed zone whose start the moving box covers moves as one piece with its mean motion (`_zone_carry`).
RULES = {
    "cross": (True, False, False),
    "noslide": (False, False, False),
    "push": (True, True, False),
    "cross-zone": (True, False, True),
    "push-zone": (True, True, True),  # the default since round 27 (fanbox_r27)
}


def run(kind: str, rule: str, frames: int = 14, trace: int | None = None):
    """[(frame, inside at its end, most inside after a substep, stretch)] of one run."""
    slides_cross, pushed_off, carried = RULES[rule]
    set_rule(face_collision, "IN_PLANE_SLIDES_CROSS", slides_cross)
    set_rule(face_collision, "SLIDES_PUSHED_OFF", pushed_off)
    set_rule(step_module, "REWIND_WITH_COLLIDERS", carried)
    v, f = solver.grid(16, 16, size=1.0)
    f = meshes.triangulated(f) if kind == "tri" else f
    v = np.asarray(v, float)[:, [0, 2, 1]] + [0.0, 0.0, 1.1]
    model = solver.build_model(v, f, pin_weight=np.isclose(v[:, 2], v[:, 2].max()).astype(float))
    values = settings.cloth_values({"self_collision": True, "bend_stiffness": 0.05})
    params = settings.params_from(values, frame_time=1 / 24, mean_edge=model.mean_edge_length)
    state = model.initial_state()
    edges = model.cloth_edges[0]
    rest = np.linalg.norm(v[edges[:, 0]] - v[edges[:, 1]], axis=1)
    mesh = cube()
    now = {"frame": 0, "after": [], "sent": []}
    original = face_collision.FaceCollision.undo_crossings

    def undo(self, x, previous, inv_mass, rounds=16, settled=None, carrier=None):
        before = x.copy()
        count = original(self, x, previous, inv_mass, rounds, settled, carrier)
        now["after"].append((before, x.copy()))
        now["sent"].append(count)
        return count

    def inside(x, frame, t):
        c = centre(frame) + (centre(frame + 1) - centre(frame)) * t
        return int((np.abs(x - c) < HALF - 1e-3).all(axis=1).sum())

    out = []
    face_collision.FaceCollision.undo_crossings = undo
    try:
        for frame in range(1, frames + 1):
            now.update(frame=frame, after=[], sent=[])
            box = solver.MeshCollider(mesh, pose=pose(frame + 1), pose_start=pose(frame))
            solver.step(model, state, params, 1 / 24, colliders=[box])
            n = state.last_substeps
            most = 0
            for s, (before, after) in enumerate(now["after"]):
                t = (s + 1) / n
                most = max(most, inside(after, frame, t))
                if trace == frame + 1:
                    print(
                        f"  frame {trace} substep {s}/{n}: sent back {now['sent'][s]}, inside "
                        f"{inside(before, frame, t)} -> {inside(after, frame, t)}"
                    )
            x = state.positions
            end = int((np.abs(x - centre(frame + 1)) < HALF - 1e-3).all(axis=1).sum())
            stretch = float((np.linalg.norm(x[edges[:, 0]] - x[edges[:, 1]], axis=1) / rest).max())
            out.append((frame + 1, end, most, stretch))
    finally:
        face_collision.FaceCollision.undo_crossings = original
    return out


def main(argv):
    trace = None
    if "--trace" in argv:
        i = argv.index("--trace")
        trace = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2 :]
    kinds = argv[0].split(",") if argv else ["quad", "tri"]
    rules = argv[1].split(",") if len(argv) > 1 else ["cross", "noslide", "push"]
    for kind in kinds:
        for rule in rules:
            out = run(kind, rule, trace=trace)
            cells = " ".join(f"{f}:{e}/{m}/{s:.2f}" for f, e, m, s in out if f >= 5)
            print(f"{kind:5} {rule:8} {cells}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
