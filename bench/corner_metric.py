"""tests/test_tablecloth_corners.py's measure, printed instead of asserted (issue 11, round 25 (rest25)).

    .venv/bin/python bench/corner_metric.py quad|tri|jitter|fan|holed [n] [--set=module.FLAG=value ...]

A 1.8 m n² cloth (default 48, the test's) dropped 22 cm onto meshes.boxes()' table: the mean over frames 37-48 of
the worst structural strain within 15 cm (across) of the top's corners (the test's bound: 0.25), its largest frame,
and the deepest a vertex lay inside the boxes at a frame's end (mm, < 0 outside).
"""

import sys
from pathlib import Path

import numpy as np

root = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(root), str(root / "bench"), str(root / "tests")]
import measure  # noqa: E402
from solver_scenes import tablecloth, tablecloth_corner_strains  # noqa: E402

flags = [a[len("--set=") :] for a in sys.argv[1:] if a.startswith("--set=")]
args = [a for a in sys.argv[1:] if not a.startswith("--set")]
measure.set_flags(flags)
kind, n = args[0], int(args[1]) if len(args) > 1 else 48
if kind in ("quad", "tri"):
    vertices, faces = tablecloth("triangulated" if kind == "tri" else "quad", n)
else:  # (round 26: jitter, fan, holed, as measure.cloth_kind makes them)
    vertices, faces = measure.cloth_kind(kind, n, 1.8, 0.99)
worst, deepest = tablecloth_corner_strains(vertices, faces)
print(f"{kind} {n}² {flags}: corner strain {np.mean(worst):.3f} (worst frame {max(worst):.3f}), "
      f"deepest {1000 * deepest:.2f} mm")  # fmt: skip
