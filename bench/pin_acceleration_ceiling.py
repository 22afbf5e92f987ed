"""PIN_ACCELERATION_SUBSTEPS' ceiling and free load (docs/design.md, round 25 (pinacc25)),
on bench/cape_pin_acceleration.py.

Table 1 (`stretch`): the five mesh kinds × the cape's lean and the shaken rail, avgmax stretch % (mean over the 47
frames of each frame's largest edge stretch) and mean substeps a frame, for: the rule off (main), the rule with no
ceiling and no free load (round 24's), and PIN_ACCELERATION_MOST = 2, 3, 4 (free load PIN_ACCELERATION_FREE = 2).
Table 2 (`calm`): pins that should pay nothing (still, walking at a steady speed, a gentle sway, a walk's bob) on
the five kinds 24² and a tri 64² (a count the sag rule sets: 26), substeps with the rule on
against off: the frames' counts must be equal.

    .venv/bin/python bench/pin_acceleration_ceiling.py stretch [kinds=tri,quad,...] [jobs=2]
    .venv/bin/python bench/pin_acceleration_ceiling.py calm [jobs=2]
    .venv/bin/python bench/pin_acceleration_ceiling.py cost [repeats=3]   # CPU s, off / on interleaved, best of
"""

import sys
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cape_pin_acceleration import run

KINDS = ("tri", "quad", "jitter", "holed", "fan")
VARIANTS = {
    "off": dict(acc=0),
    "no ceiling, free 0": dict(acc=6, most=1000, free=0.0),
    "most 2": dict(acc=6, most=2, free=2.0),
    "most 3": dict(acc=6, most=3, free=2.0),
    "most 4": dict(acc=6, most=4, free=2.0),
}


def _one(job):
    kind, motion, name, kw, n = job
    r = run(kind=kind, motion=motion, n=n, **kw)
    return kind, motion, name, n, r


def _runs(jobs, procs):
    with Pool(procs) as pool:
        return pool.map(_one, jobs, chunksize=1)


def stretch(kinds, procs):
    jobs = [(k, m, name, kw, 24) for k in kinds for m in ("lean", "rail") for name, kw in VARIANTS.items()]
    out = {(k, m, name): r for k, m, name, _, r in _runs(jobs, procs)}
    print("| kind | motion | " + " | ".join(VARIANTS) + " |")
    print("|---|---|" + "---|" * len(VARIANTS))
    for k in kinds:
        for m in ("lean", "rail"):
            cells = [f"{out[k, m, n]['avgmax']} ({out[k, m, n]['meansub']})" for n in VARIANTS]
            print(f"| {k} | {m} | " + " | ".join(cells) + " |", flush=True)


def calm(procs):
    motions = ("still", "walk", "sway", "walkbob")
    cases = [(k, m, 24) for k in KINDS for m in motions] + [("tri", m, 64) for m in motions]
    jobs = [(k, m, name, dict(acc=a), n) for k, m, n in cases for name, a in (("off", 0), ("on", 6))]
    out = {(k, m, name, n): r for k, m, name, n, r in _runs(jobs, procs)}
    print("| kind | n | motion | pins' accel m/s² | substeps off (min-max, mean) | on | equal | avgmax off / on % |")
    print("|---|---|---|---|---|---|---|---|")
    for k, m, n in cases:
        a, b = out[k, m, "off", n], out[k, m, "on", n]
        same = a["subs"] == b["subs"] and a["meansub"] == b["meansub"] and a["avgmax"] == b["avgmax"]
        print(
            f"| {k} | {n} | {m} | {a['pin_acc']} | {a['subs']} {a['meansub']} | {b['subs']} {b['meansub']} | "
            f"{'yes' if same else 'NO'} | {a['avgmax']} / {b['avgmax']} |",
            flush=True,
        )


def cost(repeats):
    """CPU seconds of the 47 frames, the rule off and on (most 3) interleaved in this process, best of `repeats`."""
    cases = [("tri", "lean"), ("tri", "rail"), ("quad", "lean"), ("tri", "walk")]
    best = {}
    for _ in range(repeats):
        for k, m in cases:
            for name, kw in (("off", dict(acc=0)), ("on", dict(acc=6, most=3, free=2.0))):
                r = run(kind=k, motion=m, **kw)
                key = (k, m, name)
                best[key] = min(best.get(key, (1e9,))[0], r["cpu"]), r["meansub"]
    print("| kind | motion | off: CPU s (mean substeps) | on | ratio |")
    print("|---|---|---|---|---|")
    for k, m in cases:
        (a, sa), (b, sb) = best[k, m, "off"], best[k, m, "on"]
        print(f"| {k} | {m} | {a} ({sa}) | {b} ({sb}) | {b / a:.2f} |", flush=True)


if __name__ == "__main__":
    args = dict(a.split("=") for a in sys.argv[2:])
    procs = int(args.get("jobs", 2))
    if sys.argv[1] == "stretch":
        stretch(tuple(args.get("kinds", ",".join(KINDS)).split(",")), procs)
    elif sys.argv[1] == "cost":
        cost(int(args.get("repeats", 3)))
    else:
        calm(procs)
