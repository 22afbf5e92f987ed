"""Position hashes with corner_contacts.APEX_CORNERS on: the apex path's bit-identity between two trees (issue 11,
round 27 (switchdebt_r27): APEX_OUTSIDE_ONLY and APEX_HOLD / APEX_HOLD_ITERATIONS folded, checked against aab9675).

bench/pole_apex.py's scene: a 16² 1.4 m cloth of each of the five kinds, 13:21 mm off the top of the ico80 and uv12x8
balls, 20 frames at the defaults with APEX_CORNERS on; one line a run, the sha1 of the positions (12 hex digits).

    git archive aab9675 | tar -x -C /tmp/base
    .venv/bin/python bench/apex_on_identity.py /tmp/base > a.txt
    .venv/bin/python bench/apex_on_identity.py . > b.txt && diff a.txt b.txt
"""

import hashlib
import sys
from pathlib import Path

root = str(Path(sys.argv[1]).resolve())
sys.path[:0] = [root, root + "/bench"]
import numpy as np  # noqa: E402
from pole_apex import BALLS, cloth  # noqa: E402

import solver  # noqa: E402
from solver import corner_contacts  # noqa: E402

corner_contacts.APEX_CORNERS = True
for ball in ("ico80", "uv12x8"):
    for kind in ("quad", "tri", "jit", "fan", "holed"):
        vertices, triangles = BALLS[ball]()
        cloth_vertices, faces = cloth(kind, 16)
        model = solver.build_model(cloth_vertices + (0.013, 0.021, 0.0), faces)
        state, params = model.initial_state(), solver.Params()
        colliders = [solver.MeshCollider(solver.TriangleMesh(vertices, triangles)), solver.Plane(point=(0, 0, 0))]
        for _ in range(20):
            solver.step(model, state, params, 1 / 24, colliders)
        digest = hashlib.sha1(np.ascontiguousarray(state.positions).tobytes()).hexdigest()[:12]
        print(ball, kind, digest, flush=True)
