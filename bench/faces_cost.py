"""The Faces drape's cost, measured a part at a time (docs/self-collision.md, round 22 (faces26)). Solver only, CPU time
(`time.process_time()`); ROOT is a checkout (`git archive <commit> | tar -x -C ROOT`) so that a base and a branch run
side by side, interleaved, on the same load. Modes (.venv/bin/python bench/faces_cost.py MODE ROOT ...):

    drape ROOT N FRAMES [PROFILE_OUT]  bench.py's Faces row (N² drape on the sphere): ms/frame, md5 (cProfile)
    finds ROOT N FRAMES                PatchPairs.find by caller: full / skin / partial queries
    lines ROOT N FRAMES METHOD...      ms/frame of each top-level statement of PatchPairs methods (_near _set_paths)
    set_paths ROOT N                   one PatchPairs._set_paths, best of 30; md5 of what it makes
    kinds ROOT                         md5 + crossings: Faces drapes of five mesh kinds (40², 30 frames), face
                                       crumples 16² 48 frames and 24² 36
    runs_check ROOT                    `_Runs` against `reduceat` on 300 random run layouts (±0, inf): equal values
                                       (== : a tie of -0.0 and 0.0 may come out either sign), and how many zeros'
                                       signs differ
    reductions ROOT N FRAMES [KIND]    ms/frame inside the patches' min / max over runs (round 23 (facescost23):
                                       `_set_paths`, `_group_spans`, `_member_max`) over the N² drape of a
                                       mesh KIND (default: bench.py's grid on the sphere), md5
"""

from __future__ import annotations

import ast
import collections
import hashlib
import inspect
import sys
import textwrap
import time

import numpy as np


def _md5(x) -> str:
    return hashlib.md5(np.ascontiguousarray(x).tobytes()).hexdigest()[:10]


def _drape(solver, n: int, frames: int, before=None) -> tuple[float, str]:
    vertices, faces = solver.grid(n, n, size=2.0, height=1.5)
    model = solver.build_model(vertices, faces)
    state = model.initial_state()
    colliders = [solver.Sphere(center=(0.0, 0.0, 0.5), radius=0.5), solver.Plane(point=(0, 0, 0))]
    params = solver.Params(self_collision=True, self_collision_faces=True)
    if before:
        before()
    start = time.process_time()
    for _ in range(frames):
        solver.step(model, state, params, 1 / 24, colliders)
    return 1000 * (time.process_time() - start) / frames, _md5(state.positions)


def drape(n: int, frames: int, out: str | None = None) -> None:
    import solver

    prof = None
    if out:
        import cProfile

        prof = cProfile.Profile()
    ms, md5 = _drape(solver, n, frames, prof.enable if prof else None)
    if prof:
        prof.disable()
        prof.dump_stats(out)
    print(sys.path[0], n, frames, f"{ms:.1f} ms/frame", md5)


def finds(n: int, frames: int) -> None:
    import solver
    from solver import patch_pairs

    stats: dict = collections.defaultdict(lambda: [0, 0.0, 0])
    original = patch_pairs.PatchPairs.find

    def find(self, start, end, low, high, gap, mv, me, active=None, moved=None, pad=None, skin=0.0):
        caller = sys._getframe(1).f_code.co_name
        if caller == "_query":
            caller += "/" + sys._getframe(2).f_code.co_name
        key = (caller, "partial" if moved is not None else "skin" if pad is not None else "full")
        t = time.process_time()
        found = original(self, start, end, low, high, gap, mv, me, active, moved, pad, skin)
        s = stats[key]
        s[0] += 1
        s[1] += time.process_time() - t
        s[2] += 0 if moved is None else int(np.count_nonzero(moved))
        return found

    patch_pairs.PatchPairs.find = find
    ms, md5 = _drape(solver, n, frames)
    print(f"{ms:.1f} ms/frame", md5)
    for key, (count, seconds, moved) in sorted(stats.items(), key=lambda kv: -kv[1][1]):
        each = f"{1000 * seconds / count:.1f} ms each"
        print(
            key,
            count,
            f"{1000 * seconds / frames:.1f} ms/frame",
            each,
            f"mean moved {moved / count:.0f}" if moved else "",
        )


def lines(n: int, frames: int, methods: list[str]) -> None:
    import solver
    from solver import patch_pairs

    spent: dict = collections.defaultdict(float)
    clock = [0.0]

    def _tick(name):
        t = time.process_time()
        spent[name] += t - clock[0]
        clock[0] = t

    def _start():
        clock[0] = time.process_time()

    for method in methods:
        tree = ast.parse(textwrap.dedent(inspect.getsource(getattr(patch_pairs.PatchPairs, method))))
        fn = tree.body[0]
        assert isinstance(fn, ast.FunctionDef)
        body: list = [ast.parse("_start()").body[0]]
        for statement in fn.body:
            label = repr(f"{method}:{statement.lineno}:" + ast.unparse(statement).splitlines()[0][:50])
            if isinstance(statement, ast.Return):
                keep = ast.parse("_ret = 0").body[0]
                assert isinstance(keep, ast.Assign)
                keep.value = statement.value  # type: ignore[assignment]
                body += [keep, ast.parse(f"_tick({label})").body[0], ast.parse("return _ret").body[0]]
                continue
            body += [statement, ast.parse(f"_tick({label})").body[0]]
        fn.body, fn.decorator_list = body, []
        ast.fix_missing_locations(tree)
        scope = dict(vars(patch_pairs))
        scope.update(_tick=_tick, _start=_start)
        exec(compile(tree, method, "exec"), scope)
        setattr(patch_pairs.PatchPairs, method, scope[method])
    ms, md5 = _drape(solver, n, frames)
    print(f"total {ms:.1f} ms/frame", md5)
    for name, seconds in spent.items():
        if 1000 * seconds / frames > 0.5:
            print(f"{1000 * seconds / frames:7.1f} ms/frame  {name}")


def set_paths(n: int) -> None:
    import solver
    from solver.face_collision import FaceCollision

    vertices, faces = solver.grid(n, n, size=2.0, height=1.5)
    model = solver.build_model(vertices, faces)
    collision = FaceCollision(model, 0.01)
    assert collision._patches_ready()
    patches = collision.patches
    assert patches is not None
    rng = np.random.default_rng(1)
    start = model.rest_positions + rng.normal(0, 0.01, model.rest_positions.shape)
    end = start + rng.normal(0, 0.003, start.shape)
    best = np.inf
    for _ in range(30):
        t = time.process_time()
        patches._set_paths(start, end)
        best = min(best, time.process_time() - t)
    made = [patches.patch_motion, *patches.motion_span]
    made += [x for kind in ("vertex", "triangle", "edge") for x in patches.middle_spans[kind]]
    print(
        sys.path[0], n, f"{1000 * best:.2f} ms", _md5(np.concatenate([np.ravel(np.ascontiguousarray(a)) for a in made]))
    )


def reductions(n: int, frames: int, kind: str | None = None) -> None:
    import solver
    from solver import patch_pairs

    spent: dict = collections.defaultdict(float)

    def timed(owner, name):
        original = getattr(owner, name)

        def wrapper(*args, **kwargs):
            t = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                spent[name] += time.process_time() - t

        setattr(owner, name, wrapper)

    timed(patch_pairs.PatchPairs, "_set_paths")
    timed(patch_pairs, "_group_spans")
    timed(patch_pairs, "_member_max")
    if kind is None:
        ms, md5 = _drape(solver, n, frames)
    else:
        sys.path.insert(1, sys.path[0] + "/bench")
        import self_collision_scenes as scenes

        model, colliders, state = scenes.drape_scene(n, kind)
        params = solver.Params(self_collision=True, self_collision_faces=True)
        start = time.process_time()
        for _ in range(frames):
            solver.step(model, state, params, 1 / 24, colliders)
        ms, md5 = 1000 * (time.process_time() - start) / frames, _md5(state.positions)
    parts = "  ".join(f"{name} {1000 * seconds / frames:.1f}" for name, seconds in spent.items())
    total = 1000 * sum(spent.values()) / frames
    print(
        sys.path[0], n, frames, kind or "sphere", f"{ms:.1f} ms/frame", md5, f"reductions {total:.1f} ms/frame:", parts
    )


def runs_check() -> None:
    from solver import patch_pairs

    rng = np.random.default_rng(3)
    signs = 0
    for trial in range(300):
        size = rng.integers(1, rng.integers(2, 22), rng.integers(1, 200))
        first, total = np.cumsum(size) - size, int(size.sum())
        values = rng.normal(size=total)
        if trial % 3 == 0:
            values[rng.random(total) < 0.2] = 0.0
            values[rng.random(total) < 0.2] = -0.0
            values[rng.random(total) < 0.05] = np.inf
        runs = patch_pairs._Runs(first, total)
        for ufunc in (np.minimum, np.maximum):
            want, got = ufunc.reduceat(values, first), runs.reduce(ufunc, values)
            assert (want == got).all(), trial
            signs += int(np.count_nonzero(np.signbit(want) != np.signbit(got)))
    print(sys.path[0], "runs_check: equal in 300 layouts;", signs, "zeros of the other sign")


def kinds() -> None:
    sys.path.insert(1, sys.path[0] + "/bench")
    import self_collision_scenes as scenes

    import solver
    from solver.intersections import count_self_intersections

    jobs = [("drape", m, 40, 30) for m in ("quad", "triangulated", "jittered", "holed", "fan")]
    jobs += [("crumple", "quad", 16, 48), ("crumple", "quad", 24, 36)]
    for kind, mesh, n, frames in jobs:
        t = time.process_time()
        if kind == "drape":
            model, colliders, state = scenes.drape_scene(n, mesh)
            params = solver.Params(self_collision=True, self_collision_faces=True)
        else:
            vertices, faces = solver.grid(n, n, size=1.0)
            model = solver.build_model(vertices[:, [0, 2, 1]] + [0.0, 0.0, 0.52], faces)
            params = scenes._params("face", bend_stiffness=0.2, friction=0.5)
            state = model.initial_state()
            state.previous[:, 1] -= 0.3 * (state.positions[:, 2] - 0.02) * (1 / 24 / params.substeps)
            colliders = [scenes.FLOOR]
        for _ in range(frames):
            solver.step(model, state, params, 1 / 24, colliders)
        crossings = count_self_intersections(model, state.positions)
        print(kind, mesh, n, frames, _md5(state.positions), "crossings", crossings, f"{time.process_time() - t:.1f}s")


if __name__ == "__main__":
    mode, root, *rest = sys.argv[1:]
    sys.path.insert(0, root)
    if mode == "drape":
        drape(int(rest[0]), int(rest[1]), rest[2] if len(rest) > 2 else None)
    elif mode == "finds":
        finds(int(rest[0]), int(rest[1]))
    elif mode == "lines":
        lines(int(rest[0]), int(rest[1]), rest[2:])
    elif mode == "set_paths":
        set_paths(int(rest[0]))
    elif mode == "kinds":
        kinds()
    elif mode == "runs_check":
        runs_check()
    elif mode == "reductions":
        reductions(int(rest[0]), int(rest[1]), rest[2] if len(rest) > 2 else None)
    else:
        raise SystemExit(__doc__)
