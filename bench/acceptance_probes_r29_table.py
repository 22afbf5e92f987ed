"""Round 29 (probes_r29): one table of bench/acceptance_probes_r26.py's RESULT lines from several runs, a row per
case x kind, columns per run (e.g. Blender's Cloth, ours at defaults, ours with RULES=...):
    .venv/bin/python bench/acceptance_probes_r29_table.py Blender=bl.txt defaults=ours.txt ridge=ridge.txt
Each cell: worst stretch % / last stretch % / in / thr / CPU ms a frame (median); '-' where the run has no such case.
in / thr = the worst count of cloth vertices inside / edges through the collider over the checked frames."""

import ast
import sys

runs = [a.split("=", 1) for a in sys.argv[1:]]
cells: dict[tuple[str, str], dict[str, dict]] = {}
order: list[tuple[str, str]] = []
for label, path in runs:
    for line in open(path):
        if not line.startswith("RESULT {"):
            continue
        r = ast.literal_eval(line[len("RESULT ") :])
        _, scene, kind = r["tag"].split()[:3]
        if (scene, kind) not in cells:
            order.append((scene, kind))
        cells.setdefault((scene, kind), {})[label] = r


def cell(r):
    if r is None:
        return "-"
    w, last = r["worst"], r["last"]
    bad = "" if not w.get("nan") else f" NaN {w['nan']}"
    inside = f"{w.get('inside', 0)}" + (f" ({w.get('in_mm', 0)} mm)" if w.get("inside") else "")
    thr = f"{w.get('thr', 0)}" + (f" ({w.get('thr_mm', 0)} mm)" if w.get("thr") else "")
    return f"{w.get('stretch', 0)} / {last['stretch']} / {inside} / {thr} / {r['ms']}{bad}"


labels = [label for label, _ in runs]
print("| case | kind | " + " | ".join(f"{lab}: worst % / last % / in / thr / ms" for lab in labels) + " |")
print("| --- | --- |" + " --- |" * len(labels))
for scene, kind in sorted(order, key=lambda sk: (order.index(next(o for o in order if o[0] == sk[0])), sk[1])):
    row = cells[(scene, kind)]
    print(f"| {scene} | {kind} | " + " | ".join(cell(row.get(lab)) for lab in labels) + " |")
