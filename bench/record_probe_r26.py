"""Record one of bench/acceptance_probes_r26.py's scenes (ball, torus, box, table, tilted, ...) the way
bench/cape_cost_trace.py records r24's: every `solver.step` call's input and result in Blender, for a bit-equal
replay in the pure solver (`cape_cost_trace.py ab/parts/plain`). Round 27 (ridge_r27): the ball tri 24² recording
replays Blender's 19.1 % worst stretch exactly and A/B-tests the in-cone rules on it.

    VC_ROOT=$PWD KIND=tri N=24 FRAMES=14 EVERY=14 .venv/bin/python bench/record_probe_r26.py ball /tmp/ball_tri.pkl
    .venv/bin/python bench/cape_cost_trace.py ab /tmp/ball_tri.pkl --best 1 \
        --set edge_rims.RIDGE_CONE=True
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import acceptance_probes_r20  # noqa: E402, F401  (starts Blender, enables the add-on)
import acceptance_probes_r24 as P24  # noqa: E402
import acceptance_probes_r26 as P26  # noqa: E402
import cape_cost_trace as CT  # noqa: E402

if __name__ == "__main__":
    scene, out = sys.argv[1], sys.argv[2]
    P24.CASES[scene] = P26.CASES[scene]  # (`record` plays r24's CASES[scene])
    CT.record(scene, out)
