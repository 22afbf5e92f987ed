# ruff: noqa
r"""Where the cape's time goes (design.md, issue 11, round 26 (capecost_r26)): record probe24's Blender scenes' solver
inputs frame by frame, then replay them in the pure solver with a CPU clock on each pass.

Record (in Blender: builds bench/acceptance_probes_r24.py's scene, plays it with our cloth, and pickles what each
`solver.step` call got: the model, the state before frame 1, and per frame the params, pins and colliders (a mesh
collider as its vertices and triangles; a deforming one's start is the frame before's vertices), plus the positions
after the step, which the replay must reproduce to the bit):

    VC_ROOT=$PWD KIND=tri N=24 FRAMES=48 EVERY=48 .venv/bin/python bench/cape_cost_trace.py record cape /tmp/cape_tri24.pkl
    (scenes: cape, walker (the shawl on the same walking body), subd_rock (a still mesh collider, for contrast))

Replay (pure solver; CPU time, `time.process_time`):

    .venv/bin/python bench/cape_cost_trace.py parts /tmp/cape_tri24.pkl [--frames 11:16]  # ms a frame by pass (wrapped)
    .venv/bin/python bench/cape_cost_trace.py plain /tmp/cape_tri24.pkl [--best 3] # ms a frame, no wrappers
    .venv/bin/python bench/cape_cost_trace.py ab /tmp/cape_tri24.pkl --set mod.NAME=VALUE [--set ...] [--best 3]
        # base against the settings, interleaved in one process; reports ms a frame, substeps, whether the positions
        # equal the recording's (bit for bit), worst / last frame's stretch (% over the rest lengths of the
        # polygons' edges), cloth vertices inside the mesh colliders and cloth edges through them (the most at any
        # 2nd frame's end)

Blender's Cloth on the same scene: `BL=1 VC_ROOT=$PWD KIND=tri N=24 FRAMES=48 EVERY=48 .venv/bin/python
bench/acceptance_probes_r24.py cape` (its RESULT's ms: median CPU ms of frame_set).
"""

import os
import pickle
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


# --------------------------------------------------------------------------- record (Blender)
def record(scene: str, out: str) -> None:
    sys.path.insert(0, str(HERE))
    import acceptance_probes_r20  # noqa: F401  (starts Blender, enables the add-on)

    sol = sys.modules["bl_ext.dev.verlet_cloth.solver"]
    mc = sys.modules["bl_ext.dev.verlet_cloth.solver.mesh_collider"]
    real = sol.step
    rec = {"frames": [], "scene": scene, "env": {k: os.environ.get(k) for k in ("KIND", "N", "FRAMES")}}
    clock = []

    def described(c):
        if isinstance(c, mc.MeshCollider):
            pose = None
            if c.pose is not None:
                pose = [np.vstack([np.hstack([r, o[:, None]]), [0, 0, 0, 1]]) for r, o in (c.pose_start, c.pose)]
            assert not c.grown
            start = None
            if c.deforming:  # the start's vertices, from the start corners the collider keeps per triangle
                start = c.mesh.vertices.copy()
                rows, tri = c._corner_rows, c.mesh.triangles
                for k in range(3):
                    start[tri[:, k]] = rows[:, 3 * k : 3 * k + 3]
            given = c.mesh.triangles
            if len(c.mesh.given) == len(given) and int(c.mesh.given.max()) == len(given) - 1:
                given = np.empty_like(given)  # the triangles in the order the add-on gave them (Morton order aside):
                given[c.mesh.given] = c.mesh.triangles  # a deforming mesh's kept edge table is keyed by that list
            return dict(
                given=given,
                start=start,
                mesh=True,
                vertices=c.mesh.vertices.copy(),
                triangles=c.mesh.triangles.copy(),
                deforming=c.deforming,
                pose=pose,
                friction=c.friction,
                offset=c.offset,
            )
        return dict(mesh=False, obj=pickle.dumps(c))

    def recording(model, state, params, frame_time, colliders=(), pin_targets=None, pin_targets_start=None, **kw):
        assert not kw.get("grab") and kw.get("inputs") is None and kw.get("acceleration") is None
        if not rec["frames"]:
            st = state.copy()
            assert not state.scratch, "a fresh run expected"
            rec["model"], rec["state"] = pickle.dumps(model), pickle.dumps(st)
        f = dict(
            params=pickle.dumps(params),
            frame_time=float(frame_time),
            pins=None if pin_targets is None else np.array(pin_targets),
            pins_start=None if pin_targets_start is None else np.array(pin_targets_start),
            colliders=[described(c) for c in colliders],
        )
        c0 = time.process_time()
        r = real(model, state, params, frame_time, colliders, pin_targets, pin_targets_start, **kw)
        f["cpu"] = time.process_time() - c0
        f["positions"] = state.positions.copy()
        f["substeps"] = int(state.last_substeps)
        rec["frames"].append(f)
        return r

    sol.step = recording
    import acceptance_probes_r24 as P

    P.CASES[scene]()
    sol.step = real
    with open(out, "wb") as fh:
        pickle.dump(rec, fh)
    cpu = [f["cpu"] for f in rec["frames"]]
    print(
        f"RECORDED {scene} {len(cpu)} frames, solver.step in Blender: median {1000 * np.median(cpu[1:]):.1f} ms, "
        f"mean substeps {np.mean([f['substeps'] for f in rec['frames']]):.1f} -> {out}",
        flush=True,
    )


# --------------------------------------------------------------------------- replay (pure solver)
def _root():
    root = Path(os.environ.get("VC_ROOT", str(HERE.parent))).resolve()
    sys.path.insert(0, str(root))


def load(path: str):
    _root()
    import solver  # noqa: F401

    with open(path, "rb") as fh:
        rec = pickle.load(fh)
    # the recording names the add-on's module path (bl_ext.dev.verlet_cloth.solver...): map it to `solver`
    return rec


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if module.startswith("bl_ext.dev.verlet_cloth."):
            module = module[len("bl_ext.dev.verlet_cloth.") :]
        return super().find_class(module, name)


def _loads(b):
    import io

    return _Unpickler(io.BytesIO(b)).load()


def frames_of(rec):
    """Per frame: (params, frame_time, pins, pins_start, collider builders)."""
    out = []
    for f in rec["frames"]:
        makers = []
        for k, c in enumerate(f["colliders"]):
            if not c["mesh"]:
                obj = _loads(c["obj"])
                makers.append(lambda obj=obj: obj)
                continue
            makers.append(lambda c=c: _mesh(c, c["start"]))
        out.append((_loads(f["params"]), f["frame_time"], f["pins"], f["pins_start"], makers))
    return out


def _mesh(c, start):
    import solver
    from solver.mesh_collider import MeshCollider, TriangleMesh

    shape = TriangleMesh(c["vertices"], c.get("given", c["triangles"]))
    if c["deforming"]:
        return MeshCollider(shape, mesh_start=start, friction=c["friction"], offset=c["offset"])
    if c["pose"] is None:
        return MeshCollider(shape, friction=c["friction"], offset=c["offset"])
    p0, p1 = c["pose"]
    return MeshCollider(shape, pose=p1, pose_start=p0, friction=c["friction"], offset=c["offset"])


def run(rec, frames, timers=None):
    """Replay every frame; returns (cpu per frame, build cpu per frame, substeps, positions per frame)."""
    import solver

    model, state = _loads(rec["model"]), _loads(rec["state"])
    cpu, build, subs, pos = [], [], [], []
    shapes = {}
    for params, ft, pins, pins0, makers in frames:
        b0 = time.process_time()
        cols = []
        for m in makers:
            c = m()
            cols.append(c)
        # still meshes: the add-on reuses one TriangleMesh across frames (its caches: grid, candidates, sharp edges)
        for k, c in enumerate(cols):
            if isinstance(c, solver.MeshCollider) and not c.deforming:
                key = (k, c.mesh.vertices.tobytes())
                kept = shapes.get(key)
                if kept is None:
                    shapes[key] = c.mesh
                else:
                    c.mesh = kept
        if timers is not None:
            timers["@frames"] = timers.get("@frames", []) + [{k: v for k, v in timers.items() if k != "@frames"}]
        b1 = time.process_time()
        solver.step(model, state, params, ft, colliders=cols, pin_targets=pins, pin_targets_start=pins0)
        c1 = time.process_time()
        cpu.append(c1 - b1)
        build.append(b1 - b0)
        subs.append(int(state.last_substeps))
        pos.append(state.positions.copy())
    return np.array(cpu), np.array(build), subs, pos, model


def stretch(model, rec, pos):
    """Worst frame's and last frame's largest edge stretch (%), over the model's structural edges."""
    from solver.model import Model  # noqa: F401

    rest = model.rest_positions
    e = np.unique(np.sort(model.faces.edges(), axis=1), axis=0)  # the polygons' edges (no quad diagonals)
    L0 = np.linalg.norm(rest[e[:, 0]] - rest[e[:, 1]], axis=1)
    s = [float((np.linalg.norm(p[e[:, 0]] - p[e[:, 1]], axis=1) / L0 - 1).max()) * 100 for p in pos]
    return max(s), s[-1]


def _winding(P, V, T):
    """Generalised winding numbers (P,) of points P (n, 3) about the triangles V[T] (chunks of points)."""
    out = np.zeros(len(P))
    for s in range(0, len(P), 64):
        p = P[s : s + 64, None, :]
        a, b, c = V[T[:, 0]][None] - p, V[T[:, 1]][None] - p, V[T[:, 2]][None] - p
        la, lb, lc = (np.linalg.norm(x, axis=2) for x in (a, b, c))
        num = np.einsum("ijk,ijk->ij", a, np.cross(b, c))
        dot = lambda x, y: np.einsum("ijk,ijk->ij", x, y)
        den = la * lb * lc + dot(a, b) * lc + dot(b, c) * la + dot(c, a) * lb
        out[s : s + 64] = np.arctan2(num, den).sum(axis=1) / (2 * np.pi)
    return out


def _through(P, E, V, T):
    """Cloth edges E (rows of P) through the triangles V[T] (strictly), counted once each."""
    import solver.intersections as I

    p, q = P[E[:, 0]], P[E[:, 1]]
    lo, hi = np.minimum(p, q), np.maximum(p, q)
    tl, th = (
        np.minimum(np.minimum(V[T[:, 0]], V[T[:, 1]]), V[T[:, 2]]),
        np.maximum(np.maximum(V[T[:, 0]], V[T[:, 1]]), V[T[:, 2]]),
    )
    hit = np.zeros(len(E), dtype=bool)
    for s in range(0, len(E), 128):
        meet = ((lo[s : s + 128, None] <= th[None]) & (hi[s : s + 128, None] >= tl[None])).all(axis=2)
        e, t = meet.nonzero()
        if len(e):
            e = e + s
            got = I._pierces(p[e], q[e], V[T[t, 0]], V[T[t, 1]], V[T[t, 2]])
            hit[e[got]] = True
    return int(hit.sum())


def physics(rec, pos, model, every=2):
    """Every `every`-th frame's end (and the last): cloth vertices inside a closed mesh collider (|winding| > 0.5)
    at most, cloth edges through its triangles at most (the mesh colliders as recorded for that frame's end)."""
    e = np.unique(np.sort(model.faces.edges(), axis=1), axis=0)
    inside = through = 0
    for i, f in enumerate(rec["frames"]):
        if i % every and i != len(rec["frames"]) - 1:
            continue
        for c in f["colliders"]:
            if not c["mesh"]:
                continue
            V, T = c["vertices"], c["triangles"]
            if c["pose"] is not None:
                m = c["pose"][1]
                V = V @ m[:3, :3].T + m[:3, 3]
            inside = max(inside, int((np.abs(_winding(pos[i], V, T)) > 0.5).sum()))
            through = max(through, _through(pos[i], e, V, T))
    return inside, through


def _wrap(timers):
    """Inclusive CPU per pass: wrap the names solver.step calls and a few inside them."""
    import solver.step  # noqa: F401

    S = sys.modules["solver.step"]
    import solver.edge_contacts as E
    import solver.mesh_collider as M
    import solver.colliders as C
    import solver.driven_motion as D

    def timed(name, fn):
        def w(*a, **k):
            t0 = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                timers[name] = timers.get(name, 0.0) + time.process_time() - t0
                timers[name + "#"] = timers.get(name + "#", 0) + 1

        return w

    undo = []

    def patch(mod, attr, name):
        fn = getattr(mod, attr)
        undo.append((mod, attr, fn))
        setattr(mod, attr, timed(name, fn))

    patch(S, "project", "constraints (project)")
    patch(S, "collide", "vertex pass (colliders.collide)")
    patch(S, "collide_cloth_edges", "edge pass (collide_cloth_edges)")
    patch(S, "collide_cloth_corners", "corner pass")
    patch(S, "collide_cloth_ridges", "ridge pass")
    patch(S, "driven_motion", "substep rules (driven_motion)")
    patch(S, "run_cache", "run_cache")
    if hasattr(S, "edge_colliders"):  # (round 28 (edgeonce_r28): found once a step; before, a memo asked per call)
        patch(S, "edge_colliders", "  edge: sharp edges per collider (edge_colliders)")
    else:
        patch(E, "_edge_colliders", "  edge: sharp edges per collider (_edge_colliders)")
    patch(E, "collide_edges", "  edge: collide_edges")
    patch(C, "collide_plane", "  vertex: plane")
    patch(M.MeshCollider, "collide_rows", "  vertex: mesh collide_rows")
    patch(M.MeshCollider, "recover_inside", "  vertex: mesh recover_inside")
    patch(M.MeshCollider, "hold", "  vertex: mesh hold")
    patch(M._Candidates, "pairs", "    mesh: candidates (_Candidates.pairs, vertex pass)")
    patch(M.MeshCollider, "_resolve", "    mesh: _resolve")
    patch(M.MeshCollider, "_grid", "    mesh: _grid (deforming: built once a frame)")
    return undo


def _unwrap(undo):
    for mod, attr, fn in reversed(undo):
        setattr(mod, attr, fn)


def _apply(settings):
    """--set mod.NAME=VALUE (solver.<mod>); returns the old values."""
    import importlib

    old = []
    for s in settings:
        k, v = s.split("=", 1)
        mod, name = k.rsplit(".", 1)
        m = importlib.import_module("solver." + mod)
        old.append((m, name, getattr(m, name)))
        setattr(m, name, eval(v))
    return old


def _restore(old):
    for m, name, v in reversed(old):
        setattr(m, name, v)


def main():
    argv = sys.argv[1:]
    mode = argv[0]
    if mode == "record":
        record(argv[1], argv[2])
        return
    path = argv[1]
    best = int(argv[argv.index("--best") + 1]) if "--best" in argv else 3
    sets = [argv[i + 1] for i, a in enumerate(argv) if a == "--set"]
    rec = load(path)
    frames = frames_of(rec)
    n = len(frames)
    rec_pos = [f["positions"] for f in rec["frames"]]
    rec_sub = [f["substeps"] for f in rec["frames"]]
    tag = f"{rec['scene']} {rec['env'].get('KIND')} {rec['env'].get('N')}² {n} frames"
    _apply(sets) if mode in ("parts", "plain") else None
    if mode == "parts":
        timers = {}
        undo = _wrap(timers)
        cpu, build, subs, pos, model = run(rec, frames, timers)
        _unwrap(undo)
        snaps = timers.pop("@frames") + [dict(timers)]
        if "--frames" in argv:  # only the frames a:b (0-based, of the recording)
            a, b = (int(v) for v in argv[argv.index("--frames") + 1].split(":"))
            timers = {k: v - snaps[a].get(k, 0) for k, v in snaps[b].items()}
            cpu, build, subs, n = cpu[a:b], build[a:b], subs[a:b], b - a
        same = all(np.array_equal(a, b) for a, b in zip(pos, rec_pos))
        print(f"{tag}: mean substeps {np.mean(subs):.1f}; equal to the recording: {same}")
        print(
            f"  step total {1000 * cpu.sum() / n:.1f} ms a frame (wrapped); collider build {1000 * build.sum() / n:.2f}"
        )
        for k in sorted((k for k in timers if not k.endswith("#")), key=lambda k: -timers[k]):
            calls = timers[k + "#"]
            print(f"  {k:55s} {1000 * timers[k] / n:7.2f} ms a frame  ({calls / n:.1f} calls a frame)")
        return
    if mode == "plain":
        best_cpu = None
        for _ in range(best):
            cpu, build, subs, pos, model = run(rec, frames)
            tot = cpu.sum() + build.sum()
            best_cpu = tot if best_cpu is None else min(best_cpu, tot)
        same = all(np.array_equal(a, b) for a, b in zip(pos, rec_pos))
        w, l = stretch(model, rec, pos)
        print(
            f"{tag}: {1000 * best_cpu / n:.1f} ms a frame (best of {best}); mean substeps {np.mean(subs):.1f}; "
            f"stretch worst {w:.1f} % last {l:.1f} %; equal to the recording: {same}"
        )
        return
    if mode == "ab":
        res = {"base": [], "set": []}
        out = {}
        for _ in range(best):
            for which in ("base", "set"):
                old = _apply(sets) if which == "set" else []
                try:
                    cpu, build, subs, pos, model = run(rec, frames)
                finally:
                    _restore(old)
                res[which].append(cpu.sum() + build.sum())
                out[which] = (subs, pos, model)
        for which in ("base", "set"):
            subs, pos, model = out[which]
            same = all(np.array_equal(a, b) for a, b in zip(pos, rec_pos))
            w, l = stretch(model, rec, pos)
            ins, thr = physics(rec, pos, model)
            print(
                f"{tag} {which if which == 'base' else ' '.join(sets)}: {1000 * min(res[which]) / n:.1f} ms a frame "
                f"(best of {best}); mean substeps {np.mean(subs):.1f}; stretch worst {w:.1f} % last {l:.1f} %; "
                f"inside {ins} through {thr} (most at a frame's end, every 2nd); equal to the recording: {same}"
            )
        return
    raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
