#!/bin/sh
# Round 29 (probes_r29): bench/acceptance_probes_r26.py per kind, three runs: ours at defaults (7 cases), ours with
# the ridge candidate (RULES: the four in-cone switches on; ball, torus, box, table) and Blender's Cloth (7 cases).
# Full logs to OUTDIR/log_<kind>_<run>.txt, RESULT lines to OUTDIR/res_<run>.txt; ORDER sets the runs' order.
#   EVERY=2 sh bench/acceptance_probes_r29_run.sh OUTDIR [kinds...]
# then: .venv/bin/python bench/acceptance_probes_r29_table.py Blender=OUTDIR/res_bl.txt \
#         defaults=OUTDIR/res_ours.txt ridge=OUTDIR/res_ridge.txt
out=$1; shift
mkdir -p "$out"
kinds=${*:-"tri quad jit fan hole"}
RIDGE="solver.edge_rims.RIM_OUT_IN_CONE=True,solver.edge_contacts.RIDGE_PUSH_IN_CONE=True"
RIDGE="$RIDGE,solver.edge_rims.CONE_FRESH_ONLY=True,solver.edge_contacts._CONE_OFF_THIN=True"
ALL="box table ball torus tilted cape table_slide"
for k in $kinds; do
  for run in ${ORDER:-ours ridge bl}; do
    echo "=== $k $run $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
    case $run in
      ours) env VC_ROOT=$PWD BL=0 KIND=$k N=${N:-24} FRAMES=${FRAMES:-48} EVERY=${EVERY:-2} \
              .venv/bin/python bench/acceptance_probes_r26.py $ALL ;;
      ridge) env VC_ROOT=$PWD RULES=$RIDGE BL=0 KIND=$k N=${N:-24} FRAMES=${FRAMES:-48} EVERY=${EVERY:-2} \
              .venv/bin/python bench/acceptance_probes_r26.py ${RIDGE_CASES:-box table ball torus} ;;
      bl) env VC_ROOT=$PWD BL=1 KIND=$k N=${N:-24} FRAMES=${FRAMES:-48} EVERY=${EVERY:-2} \
              .venv/bin/python bench/acceptance_probes_r26.py $ALL ;;
    esac >"$out/log_${k}_$run.txt" 2>&1
    grep -E "^RESULT" "$out/log_${k}_$run.txt" >>"$out/res_$run.txt"
    grep -lE "Traceback|Error" "$out/log_${k}_$run.txt"
  done
done
echo "=== done $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
