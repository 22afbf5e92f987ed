"""Plain step against vertex–vertex self-collision at N², per mesh kind: CPU ms/frame, best of `rounds`, interleaved.

Each round runs `bench/vv_cost.py` (one drape in its own process) plain and then with vertex–vertex for every kind,
for each given checkout root (`--root`, repeatable: base and branch interleaved in the same rounds), and prints a
line per run, then per root and kind the best plain, the best vertex–vertex, their ratio and the md5s:

    .venv/bin/python bench/vv_ab.py [--n 128] [--frames 48] [--rounds 3] [--root DIR ...] quad tri holed jitter
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
parser = argparse.ArgumentParser()
parser.add_argument("kinds", nargs="+")
parser.add_argument("--n", type=int, default=128)
parser.add_argument("--frames", type=int, default=48)
parser.add_argument("--rounds", type=int, default=3)
parser.add_argument("--root", action="append", default=None)
args = parser.parse_args()
roots = args.root or [str(HERE.parent)]
best: dict[tuple[str, str, str], list[str]] = {}
for r in range(args.rounds):
    for kind in args.kinds:
        for root in roots:
            for mode in ("plain", "vv"):
                command = [
                    sys.executable,
                    str(HERE / "vv_cost.py"),
                    str(args.n),
                    str(args.frames),
                    kind,
                    mode,
                    "--root",
                    root,
                ]
                line = subprocess.run(command, capture_output=True, text=True, check=True).stdout.split()
                print(f"round {r} {root} {kind} {mode}: {' '.join(line)}", flush=True)
                best.setdefault((root, kind, mode), []).append(line)
for root in roots:
    for kind in args.kinds:
        plain = min(float(x[0]) for x in best[(root, kind, "plain")])
        vv = min(float(x[0]) for x in best[(root, kind, "vv")])
        digests = sorted({x[4] for x in best[(root, kind, "vv")]}) + sorted({x[4] for x in best[(root, kind, "plain")]})
        print(f"{root} {kind}: plain {plain:.1f} vv {vv:.1f} ratio {vv / plain:.2f} md5 {' '.join(digests)}")
