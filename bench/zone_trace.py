"""The failsafe's zones (step.REWIND_WITH_COLLIDERS with face_collision.SLIDES_PUSHED_OFF) traced on
bench/moving_collider_failsafe.py's curtain, round 27 (fanbox_r27; docs/self-collision.md).

    PYTHONPATH=. .venv/bin/python bench/zone_trace.py rounds fan fast FRAME SUBSTEP [--zone-rounds K]
        every failsafe call of frames 2..FRAME whose start, input or output has intersecting face pairs
        (solver.intersections.intersecting_faces: polygon pairs), and at FRAME's SUBSTEP (0-based) each round's
        `_zone_carry`: the crossed rows it joined, the movable vertices placed, the pairs at the round's input and
        where its placement puts them; per frame the most zone rounds any call took. --zone-rounds sets
        face_collision.ZONE_ROUNDS (1: round 26's 16 rounds; the fan's 3 pairs are made at frame 5 substep 20)
    PYTHONPATH=. .venv/bin/python bench/zone_trace.py inside quad fast FRAME
        after every substep's failsafe of frames 2..FRAME, the vertices inside the box (more than 1 mm, at its pose
        at the substep's end), with their start, input and output in the box's frame at that pose (its half size 0.15)
    PYTHONPATH=. .venv/bin/python bench/zone_trace.py through quad fast FRAME [--variant r27|push-zone] [--dz M]
        round 29 (zonepush_r29): after every substep's failsafe of frames 2..FRAME, the cloth edges through the box
        (a point at 1/4, 1/2 or 3/4 more than 1 mm inside; both ends may be outside) at the call's start (the box at
        the substep's start), input and output (the box at its end), how many vertices the call moved, and the hem's
        first two vertices (0, 1) in the box's frame, (x, z) (x 0.15: the front face; z -0.15: the bottom face)

Slow: the fan (1153 vertices, 24 substeps a frame) takes ~55 s CPU to frame 5 at load ~14 (~3 min wall).
"""

import sys

import moving_collider_failsafe as B  # (bench/ is on sys.path: this file's folder)
import numpy as np

import solver
from solver import face_collision as FC
from solver import settings
from solver.face_collision import FaceCollision
from solver.intersections import intersecting_faces


def main(args):
    mode, kind, which, last = args[0], args[1], args[2], int(args[3])
    substep = int(args[4]) if mode == "rounds" else -1
    if "--zone-rounds" in args:
        FC.ZONE_ROUNDS = int(args[args.index("--zone-rounds") + 1])
    if "--dz" in args:
        B.DZ = float(args[args.index("--dz") + 1])
    B.variant(args[args.index("--variant") + 1] if "--variant" in args else "push-zone")
    model = B.curtain(kind, 16)
    state = model.initial_state()
    values = settings.cloth_values({"self_collision": True, "bend_stiffness": 0.05})
    params = settings.params_from(
        values, frame_time=1 / 24, mean_edge=model.mean_edge_length, vertex_count=model.vertex_count
    )
    log = {"frame": 0, "s": 0, "x": None, "round": 0, "most": 0, "on": False}
    zone_carry = FC._zone_carry
    carrier = B.step_module._rewind_carrier

    def traced_zones(ends, previous, inv_mass, zone_rows, carrier_, carried_by):
        log["round"] += 1
        carry, placed = zone_carry(ends, previous, inv_mass, zone_rows, carrier_, carried_by)
        if log["on"]:
            x = log["x"]
            then = x.copy()
            then[placed] = previous[placed] + carry[placed]
            print(
                f"  round {log['round']}: rows {len(zone_rows[-1])} placed {len(placed)} "
                f"pairs in {intersecting_faces(model, x).tolist()} placed {intersecting_faces(model, then).tolist()}"
            )
        return carry, placed

    def traced_carrier(start, movers, t0, t1, thickness):
        log["t0"], log["t1"] = t0, t1
        return carrier(start, movers, t0, t1, thickness)

    def traced_undo(self, x, previous, inv_mass, **kwargs):
        log["x"], log["round"] = x, 0
        log["on"] = log["frame"] == last and log["s"] == substep
        came, start = x.copy(), previous.copy()
        sent = B.ORIGINAL_UNDO(self, x, previous, inv_mass, **kwargs)
        log["most"] = max(log["most"], log["round"])
        if mode == "rounds":
            pairs = [intersecting_faces(model, y) for y in (start, came, x)]
            if any(len(p) for p in pairs):
                print(
                    f"frame {log['frame']} substep {log['s']}: pairs at start {pairs[0].tolist()} in "
                    f"{pairs[1].tolist()} out {pairs[2].tolist()}; zone rounds {log['round']}, sent {sent}"
                )
        elif mode == "through":
            r, c = log["box"]._pose_at(log.get("t1", 1.0))
            r0, c0 = log["box"]._pose_at(log.get("t0", 0.0))
            edges = model.cloth_edges[0]
            poses = ((r0, c0), (r, c), (r, c))
            ends = [B.through_edges(y, r_, c_, edges) for y, (r_, c_) in zip((start, came, x), poses)]
            if any(len(e) for e in ends):
                moved = int(np.count_nonzero((x != came).any(axis=1)))
                hem = " ".join(f"v{v} {np.round(((x[v] - c) @ r)[[0, 2]], 3).tolist()}" for v in (0, 1))
                print(
                    f"frame {log['frame']} substep {log['s']}: through at start {ends[0].tolist()} in "
                    f"{ends[1].tolist()} out {ends[2].tolist()}; moved {moved}, sent {sent}; hem (x, z) {hem}"
                )
        else:
            r, c = log["box"]._pose_at(log.get("t1", 1.0))
            local = [(y - c) @ r for y in (start, came, x)]
            inside = np.flatnonzero((np.abs(local[2]) < B.HALF - 1e-3).all(axis=1))
            if len(inside):
                print(f"frame {log['frame']} substep {log['s']}: inside {inside.tolist()}")
                for v in inside:
                    where = " ".join(f"{name} {np.round(y[v], 4)}" for name, y in zip(("start", "in", "out"), local))
                    print(f"  v{v} {where}")
        log["s"] += 1
        return sent

    FC._zone_carry = traced_zones
    B.step_module._rewind_carrier = traced_carrier
    FaceCollision.undo_crossings = traced_undo
    mesh = B.box_mesh()
    for fr in range(1, last):
        box, _ = B.collider_at(which, fr, mesh)
        log["box"], log["frame"], log["s"], log["most"] = box, fr + 1, 0, 0
        solver.step(model, state, params, 1 / 24, colliders=[box])
        pairs = intersecting_faces(model, state.positions).tolist()
        print(f"frame {fr + 1}: substeps {log['s']}, most zone rounds {log['most']}, pairs {pairs}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
