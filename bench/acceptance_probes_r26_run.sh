#!/bin/sh
# Runs bench/acceptance_probes_r26.py on every scene, ours (BL=0) and Blender's Cloth (BL=1) interleaved per kind,
# and keeps the RESULT lines:  sh bench/acceptance_probes_r26_run.sh OUT.txt [kinds...]   (N, FRAMES, EVERY from env)
out=$1; shift
kinds=${*:-"tri quad jit fan hole"}
for k in $kinds; do
  for bl in 0 1; do
    VC_ROOT=$PWD BL=$bl KIND=$k N=${N:-24} FRAMES=${FRAMES:-48} EVERY=${EVERY:-2} .venv/bin/python \
      bench/acceptance_probes_r26.py box table ball torus tilted cape table_slide 2>&1 |
      grep -E "^RESULT|Traceback|Error|pins" >>"$out"
  done
done
