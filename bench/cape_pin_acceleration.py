"""A pinned cape on a leaning, walking chest, solver-only (docs/design.md, round 24 (cape24)).

A 24² cloth (tri, quad, jitter, holed; fan: a 32x12 disc, its top 3 cm pinned) of 0.6 x 0.8 m hangs in the YZ plane
at x -0.22, top row pinned; the pins follow bench/acceptance_probes_r24.py's `cape` chest: turned about (0, 0, 0.6)
by 15° about X and 10° about Z times a triangle wave (keys every 3 frames at sin(2π(f-1)/12), linear between),
a 3 cm bob, walking 1.2 m over 47 frames (motion=lean). motion=leanonly (no walk, no bob), smooth (the sine, not
linear keys), walk (no lean), still, rail (the pinned row shaken ±0.2 m along Y, the same triangle wave: a curtain
rail), sway (a gentle ±5 cm sine sway, 2 s), walkbob (0.6 m/s with a smooth 3 cm bob).
Default settings (Auto Substeps following motion, bend 0.05). Prints the end's mean / max edge stretch, the
worst frame's max, avgmax (the mean over frames of each frame's max), the pins' largest acceleration (m/s²) and
the substeps taken.

    VC=.venv/bin/python; $VC bench/cape_pin_acceleration.py kind=tri motion=lean [sub=64] [it=2] [limit=inf] [acc=6]
    acc=H: the pin-acceleration rule (on by default since round 25) held H frames (PIN_ACCELERATION_HOLD); 0: off
    (PIN_ACCELERATION_MOST = 0); default 6 (main), so round 24's "rule off" commands now need acc=0
    most=M, free=F: PIN_ACCELERATION_MOST / PIN_ACCELERATION_FREE; n=N: an N² cloth (fan: unchanged)
"""

import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import numpy as np

import solver
from solver import meshes
from solver import settings as table


def cloth(kind, n=24):
    if kind == "fan":
        v, f = meshes.fan_disc(spokes=32, rings=12, radius=0.4)
    elif kind == "jitter":
        v, f = meshes.jittered_grid(n, size=1.0)
    elif kind == "holed":
        v, f = meshes.holed_grid(n, size=1.0)
    else:
        v, f = meshes.grid(n, n, size=1.0)
        f = meshes.triangulated(f) if kind == "tri" else f
    v = np.asarray(v, float).copy()
    v[:, :2] -= v[:, :2].mean(0)
    # local x -> world -z (hangs), local y -> world y; scale 0.8 (height) x 0.6 (width)
    w = np.stack([np.full(len(v), -0.22), v[:, 1] * 0.6, 0.95 - v[:, 0] * 0.8], 1)
    return w, f


def tri_wave(f):  # keys every 3 frames at sin(2pi(f-1)/12), linear between: a triangle wave of amplitude 1
    k = (f - 1) / 3.0
    i = math.floor(k)
    t = k - i
    a = math.sin(2 * math.pi * (3 * i) / 12)
    b = math.sin(2 * math.pi * (3 * i + 3) / 12)
    return a + (b - a) * t


def pose(rest, f, motion):
    s = tri_wave(f) if motion in ("lean", "leanonly") else 0.0
    if motion == "rail":
        return rest + np.array([0, 0.2 * tri_wave(f), 0])
    if motion == "smooth":
        s = math.sin(2 * math.pi * (f - 1) / 12)
    if motion == "sway":  # a gentle sway: ±5 cm along Y, a 2 s sine (0.5 m/s² at most)
        return rest + np.array([0, 0.05 * math.sin(2 * math.pi * (f - 1) / 48), 0])
    if motion == "walkbob":  # walking 0.6 m/s with a smooth 3 cm bob every 12 frames (2.4 m/s² at most)
        return rest + np.array([0.6 * (f - 1) / 24, 0, 0.015 * (1 - math.cos(2 * math.pi * (f - 1) / 12))])
    ax, az = math.radians(15) * s, math.radians(10) * s
    bob = 0.03 * abs(s) if motion != "leanonly" else 0.0
    walk = 1.2 * (f - 1) / 47 if motion in ("lean", "walk", "smooth") else 0.0
    cx, sx, cz, sz = math.cos(ax), math.sin(ax), math.cos(az), math.sin(az)
    Rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    Rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    R = Rz @ Rx
    piv = np.array([0, 0, 0.6])
    return (rest - piv) @ R.T + piv + np.array([walk, 0, bob])


def run(
    kind="tri",
    motion="lean",
    frames=48,
    sub=None,
    it=None,
    limit=None,
    follow=True,
    verbose=False,
    acc=6,
    n=24,
    most=None,
    free=None,
):
    import solver.driven_motion as dm

    dm.PIN_ACCELERATION_HOLD = max(int(acc), 1)
    dm.PIN_ACCELERATION_MOST = 0 if not acc else 3 if most is None else int(most)
    if free is not None:
        dm.PIN_ACCELERATION_FREE = float(free)
    v, f = cloth(kind, n)
    top = v[:, 2] > v[:, 2].max() - (0.03 if kind == "fan" else 1e-6)
    model = solver.build_model(v, f, pin_weight=top.astype(float))
    vals = table.cloth_values({})
    vals["bend_stiffness"] = 0.05 if "bend_stiffness" in vals else vals.get("bend_stiffness")
    p = table.params_from(vals, (0, 0, -9.81), None, model.mean_edge_length, 1 / 24, len(v))
    import dataclasses

    ch = {}
    if sub:
        ch["substeps"] = sub
    if it:
        ch["iterations"] = it
    if limit is not None:
        ch["stretch_limit"] = limit
    if not follow:
        ch["substeps_follow_motion"] = False
    p = dataclasses.replace(p, **ch)
    st = model.initial_state()
    S = model.constraints.kind == solver.STRUCTURAL
    pr, rl = model.constraints.pairs[S], model.constraints.rest_length[S]
    worst = 0
    subs = []
    maxes = []
    pin_acc = 0.0
    c0 = time.process_time()
    for fr in range(2, frames + 1):
        solver.step(model, st, p, 1 / 24, pin_targets=pose(v, fr, motion), pin_targets_start=pose(v, fr - 1, motion))
        x = st.positions
        L = np.linalg.norm(x[pr[:, 0]] - x[pr[:, 1]], axis=1) / rl - 1
        maxes.append(L.max())
        if fr >= 3:
            d = pose(v, fr, motion)[top] - 2 * pose(v, fr - 1, motion)[top] + pose(v, fr - 2, motion)[top]
            pin_acc = max(pin_acc, float(np.linalg.norm(d, axis=1).max()) * 24 * 24)
        worst = max(worst, L.max())
        subs.append(st.last_substeps)
        if verbose:
            print(fr, st.last_substeps, round(100 * L.max(), 1), round(100 * np.maximum(L, 0).mean(), 2))
    return dict(
        kind=kind,
        motion=motion,
        end_mean=round(100 * np.maximum(L, 0).mean(), 2),
        end_max=round(100 * L.max(), 1),
        worst=round(100 * worst, 1),
        avgmax=round(100 * float(np.mean(maxes)), 1),
        pin_acc=round(pin_acc),
        subs=(min(subs), max(subs)),
        sub=p.substeps,
        it=p.iterations,
        lim=p.stretch_limit,
        on=dm.PIN_ACCELERATION_MOST > 0,
        meansub=round(float(np.mean(subs)), 1),
        bend=p.bend_stiffness,
        cpu=round(time.process_time() - c0, 1),
    )


if __name__ == "__main__":
    a = dict(x.split("=") for x in sys.argv[1:])
    kw = {}
    for k, val in a.items():
        kw[k] = (
            val
            if k in ("kind", "motion")
            else (val == "1" if k in ("follow", "verbose") else (float(val) if k in ("limit", "free") else int(val)))
        )
    print(run(**kw), flush=True)
