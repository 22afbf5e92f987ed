"""bench/identity.py's scenes timed against another checkout's solver in one process (round 28, bodywin_r28): each
scene run with one solver then the other, the order alternating by round; CPU s best of the rounds, and whether
the two give the same fingerprint. (identity.py run twice in turn on a loaded machine compares different moments.)

    .venv/bin/python bench/identity_ab.py /path/to/base/checkout [--rounds 3] [--n 24] [--frames 24] scene ...
    e.g. scenes quad-rising tri-rising jitter-rising fan-rising holed-rising (a rigid box moving through the cloth)
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import identity  # noqa: E402

import solver  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("against", type=Path)
    parser.add_argument("scenes", nargs="+")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--n", type=int, default=24)
    parser.add_argument("--frames", type=int, default=24)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="vc_against_"))
    shutil.copytree(args.against / "solver", scratch / "solver_against", ignore=shutil.ignore_patterns("__pycache__"))
    sys.path.insert(0, str(scratch))
    base = importlib.import_module("solver_against")
    runs: dict = {"base": {}, "this": {}}
    for r in range(args.rounds):
        for scene in args.scenes:
            pairs = [("base", base), ("this", solver)]
            for name, module in pairs if r % 2 == 0 else pairs[::-1]:
                identity.solver = module
                runs[name].setdefault(scene, []).append(identity.run(scene, args.n, args.frames))
    total = {"base": 0.0, "this": 0.0}
    for scene in args.scenes:
        best = {k: min(t for _, t in runs[k][scene]) for k in runs}
        same = {d for d, _ in runs["base"][scene]} == {d for d, _ in runs["this"][scene]}
        print(f"{scene}: base {best['base']:.2f} s, this {best['this']:.2f} s; same fingerprint: {same}")
        for k in total:
            total[k] += best[k]
    print(f"all: base {total['base']:.2f} s, this {total['this']:.2f} s")


if __name__ == "__main__":
    main()
