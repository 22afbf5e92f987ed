r"""probe24's Blender `cape`, the pin-acceleration rule on or off (design.md, round 24, cape24; on by default since
round 25: ACC=0 sets solver.driven_motion.PIN_ACCELERATION_MOST = 0).

    VC_ROOT=$PWD BL=0 KIND=tri N=24 FRAMES=48 EVERY=2 ACC=0|1 \
        .venv/bin/python bench/cape_pin_acceleration_blender.py cape

Starts Blender and enables the add-on (bench/acceptance_probes_r20.py), sets the add-on's switch from ACC, then runs
bench/acceptance_probes_r24.py with the same arguments.
"""

import os
import runpy
import sys

sys.path.insert(0, os.path.join(os.environ["VC_ROOT"], "bench"))
import acceptance_probes_r20  # noqa: E402, F401  (starts Blender, enables the add-on)

switch = sys.modules["bl_ext.dev.verlet_cloth.solver.driven_motion"]
if os.environ.get("ACC") != "1":
    switch.PIN_ACCELERATION_MOST = 0
print("PIN_ACCELERATION_MOST", switch.PIN_ACCELERATION_MOST, flush=True)
sys.argv = [os.path.join(os.environ["VC_ROOT"], "bench", "acceptance_probes_r24.py"), *sys.argv[1:]]
runpy.run_path(sys.argv[0], run_name="__main__")
