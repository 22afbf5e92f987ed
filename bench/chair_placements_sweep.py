"""Every placement of bench/chair_placements.py (the 13 of rounds 23-24) x the five mesh kinds, for one checkout and one
set of switches: one bench/chair_placements.py line each, in subprocesses, `-j` at a time (issue 11, round 25
(chair25)). Lines are printed as they finish, prefixed by the label; sort them to compare runs.
--only=KIND:DX:DY:TURN,... runs those jobs alone, in that order (a loaded machine: the placements that decide first).

    .venv/bin/python bench/chair_placements_sweep.py CHECKOUT LABEL [-jN] [--kinds=quad,tri] [n] [frames] \
        [--only=tri:0:0.03:20,...] [--set=module.NAME=value ...]
    git archive e555609 | tar -x -C /tmp/base    # main's tree, for the base run
    .venv/bin/python bench/chair_placements_sweep.py /tmp/base main -j2
    .venv/bin/python bench/chair_placements_sweep.py . reach -j2 --set=corner_support.REACH=0.16
(Round 25 swept corner_contacts.SKIP_COVERED / DROP_INWARD here: deleted in round 27, aab9675 has them.)
"""

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

PLACEMENTS = [
    (0, 0, 20), (0.03, 0, 20), (0, 0.03, 20), (-0.03, -0.02, 20), (0, 0, 0), (0, 0, 35), (0.02, 0.04, -15),
    (0.03, 0, 35), (0, 0.03, 0), (-0.03, 0.02, 35), (0, -0.03, 20), (0.03, 0.03, 0), (-0.02, 0.03, -30),
]  # fmt: skip
KINDS = ["quad", "tri", "jitter", "fan", "holed"]

checkout, label = sys.argv[1], sys.argv[2]
jobs = next((int(a[2:]) for a in sys.argv if a.startswith("-j")), 2)
kinds = next((a[8:].split(",") for a in sys.argv if a.startswith("--kinds=")), KINDS)
only = next((a[7:].split(",") for a in sys.argv if a.startswith("--only=")), None)
sets = [a for a in sys.argv[3:] if a.startswith("--set=")]
sizes = [a for a in sys.argv[3:] if not a.startswith("-")]
bench = str(Path(__file__).with_name("chair_placements.py"))


def one(job):
    kind, (dx, dy, turn) = job
    cmd = [sys.executable, bench, checkout, kind, str(dx), str(dy), str(turn), *sizes, *sets]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    line = (out.stdout.strip().splitlines() or [out.stderr.strip().splitlines()[-1]])[-1]
    print(f"{label} {line}", flush=True)


with ThreadPoolExecutor(jobs) as pool:
    if only is None:
        queue = [(k, p) for k in kinds for p in PLACEMENTS]
    else:
        queue = [(j.split(":")[0], tuple(float(f) for f in j.split(":")[1:])) for j in only]
    list(pool.map(one, queue))
