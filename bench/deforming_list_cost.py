# ruff: noqa
r"""The deforming body's Verlet list on a recorded cape (docs/design.md, issue 11, round 27 (bodylist_r27)).

Replays a recording of bench/cape_cost_trace.py (its docstring: `record`) in the pure solver:

    VC_ROOT=$PWD .venv/bin/python bench/deforming_list_cost.py split REC [--set mesh_collider.SWEEP_QUERY=True ...]
        # CPU ms a frame in the collider's list and narrow phase (wrapped timers), the list's query count,
        # and whether the positions equal the recording's
    VC_ROOT=$PWD .venv/bin/python bench/deforming_list_cost.py broad REC [FRAMES]
        # each list query's broad phase on the same inputs: `BoxSweep` against the grid / `BoxGroups` (best of 5),
        # by the number of boxes asked
    VC_ROOT=$PWD .venv/bin/python bench/deforming_list_cost.py ab REC [BEST]
        # main's list (SWEEP_QUERY off) and the sweep: interleaved, CPU ms a frame, and every frame's positions
        # compared with the first's (bit for bit) and with the recording's. (Round 27's third variant, the sweep with
        # a deforming collider's refresh share 0 (DEFORMING_REFRESH, 0 to -18 %, within noise), went with that
        # constant; 5815231 has it.)
"""

import collections
import importlib
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cape_cost_trace as T  # noqa: E402


def _set(pairs):
    for name, val in pairs:
        mod, attr = name.rsplit(".", 1)
        setattr(importlib.import_module("solver." + mod), attr, val)


def split(path, sets):
    rec = T.load(path)
    frames = T.frames_of(rec)
    import solver.edge_list as E
    import solver.mesh_collider as M
    import solver.triangle_grid as G

    _set([(kv.split("=")[0], eval(kv.split("=")[1])) for kv in sets])
    acc, cnt = collections.defaultdict(float), collections.Counter()

    def wrap(obj, name, key):
        f = getattr(obj, name)

        def w(*a, **k):
            t = time.process_time()
            r = f(*a, **k)
            acc[key] += time.process_time() - t
            cnt[key] += 1
            return r

        setattr(obj, name, w)

    for obj, name in (
        (M._Candidates, "pairs"),
        (M._Candidates, "_query"),
        (M._Candidates, "_prune"),
        (G.TriangleGrid, "query_boxes"),
        (G.TriangleGrid, "groups"),
        (G.BoxGroups, "overlapping"),
        (G.BoxSweep, "overlapping"),
        (G.BoxSweep, "meets"),
        (G.TriangleGrid, "sweep"),
        (M.MeshCollider, "_resolve"),
        (M.MeshCollider, "collide_rows"),
        (M.MeshCollider, "_grid"),
        (E._EdgeList, "_query"),
    ):
        wrap(obj, name, f"{obj.__name__}.{name}")
    t = time.process_time()
    cpu, build, subs, pos, model = T.run(rec, frames)
    tot = time.process_time() - t
    n = len(frames)
    same = all(np.array_equal(a, f["positions"]) for a, f in zip(pos, rec["frames"]))
    print(
        f"{path}: {1000 * tot / n:.1f} ms a frame (wrapped); list queries {cnt['_Candidates._query']}; "
        f"equal to the recording: {same}"
    )
    for k in sorted(acc, key=lambda k: -acc[k]):
        print(f"  {k:28s} {1000 * acc[k] / n:7.2f} ms a frame {cnt[k] / n:6.1f} calls a frame")


def broad(path, nframes):
    rec = T.load(path)
    frames = T.frames_of(rec)[:nframes]
    import solver.mesh_collider as M
    import solver.triangle_grid as G

    M.SWEEP_QUERY = True  # (off by default: the queries are hooked where the sweep is asked)
    rows, cur = [], {}
    sweep_of, overlapping = G.TriangleGrid.sweep, G.BoxSweep.overlapping

    def best(fn, k=5):
        b = 1e9
        for _ in range(k):
            t = time.process_time()
            r = fn()
            b = min(b, time.process_time() - t)
        return b, r

    def timed(self, lo, hi, most):
        g = cur["grid"]
        ts, r = best(lambda: overlapping(self, lo, hi, 1 << 60))
        if g.triangle_count <= M.GROUPED_MOST or lo.shape[1] * g.triangle_count <= M._BRUTE:
            tg, r2 = best(lambda: g.groups().overlapping(lo, hi))
        else:
            tg, r2 = best(lambda: g.query_boxes(lo.T, hi.T))
        assert len(r[0]) == len(r2[0])
        rows.append((lo.shape[1], len(r[0]), ts * 1e6, tg * 1e6))
        return overlapping(self, lo, hi, most)

    def sweep(self):
        cur["grid"] = self
        return sweep_of(self)

    G.BoxSweep.overlapping, G.TriangleGrid.sweep = timed, sweep
    T.run(rec, frames)
    a = np.array(rows)
    for lo_, hi_ in ((0, 20), (20, 40), (40, 80), (80, 160), (160, 100000)):
        m = (a[:, 0] >= lo_) & (a[:, 0] < hi_)
        if m.any():
            print(
                f"boxes {lo_}-{hi_}: {m.sum()} queries, {a[m, 1].mean():.0f} pairs; sweep {a[m, 2].mean():.0f} us, "
                f"grid / groups {a[m, 3].mean():.0f} us"
            )
    print(f"all {len(a)} queries: sweep {a[:, 2].sum() / 1e3:.1f} ms, grid / groups {a[:, 3].sum() / 1e3:.1f} ms")


def ab(path, best):
    variants = {
        "main (both off)": {"mesh_collider.SWEEP_QUERY": False, "mesh_collider._WINDOW_MOST": -1},
        "window": {"mesh_collider.SWEEP_QUERY": False, "mesh_collider._WINDOW_MOST": 16},
        "sweep": {"mesh_collider.SWEEP_QUERY": True, "mesh_collider._WINDOW_MOST": -1},
        "sweep + window": {"mesh_collider.SWEEP_QUERY": True, "mesh_collider._WINDOW_MOST": 16},
    }
    only = os.environ.get("VARIANTS")  # e.g. VARIANTS=0,1: main and the window only
    if only:
        keys = list(variants)
        variants = {keys[int(i)]: variants[keys[int(i)]] for i in only.split(",")}
    rec = T.load(path)
    import solver.mesh_collider as M

    queries = {k: 0 for k in variants}
    real_query = M._Candidates._query

    def counted(self, *a, **kw):
        queries[current[0]] += 1
        return real_query(self, *a, **kw)

    M._Candidates._query = counted
    current = [None]
    rec = T.load(path)
    frames = T.frames_of(rec)
    n = len(frames)
    res, pos = {k: [] for k in variants}, {}
    for _ in range(best):
        for k, sets in variants.items():
            _set(sets.items())
            current[0] = k
            cpu, build, subs, p, model = T.run(rec, frames)
            res[k].append(1000 * (cpu.sum() + build.sum()) / n)
            pos[k] = p
    first = next(iter(variants))
    rec_pos = [f["positions"] for f in rec["frames"]]
    tag = f"{rec['scene']} {rec['env'].get('KIND')} {rec['env'].get('N')}²"
    for k in variants:
        eq = all(np.array_equal(a, b) for a, b in zip(pos[k], pos[first]))
        eqr = all(np.array_equal(a, b) for a, b in zip(pos[k], rec_pos))
        print(
            f"{tag} {k:18s} {min(res[k]):7.1f} ms a frame (best of {best}: {' '.join(f'{v:.1f}' for v in res[k])}); "
            f"equal to {first}: {eq}; to the recording: {eqr}; list queries {queries[k] // best}"
        )


if __name__ == "__main__":
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "split":
        split(path, [sys.argv[i + 1] for i, a in enumerate(sys.argv) if a == "--set"])
    elif mode == "broad":
        broad(path, int(sys.argv[3]) if len(sys.argv) > 3 else 16)
    elif mode == "ab":
        ab(path, int(sys.argv[3]) if len(sys.argv) > 3 else 2)
    else:
        raise SystemExit(__doc__)
