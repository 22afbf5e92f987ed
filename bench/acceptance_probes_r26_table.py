"""Tables of bench/acceptance_probes_r26.py's RESULT lines, a table a scene, ours beside Blender's Cloth:
    .venv/bin/python bench/acceptance_probes_r26_table.py OUT.txt
in / thr = the worst count of cloth vertices inside / edges through the collider over the checked frames (deepest
mm), stretch = the worst and the last max edge stretch (%), NaN, ms = the median CPU ms a frame."""

import ast
import sys

rows: dict[str, dict[str, dict[str, dict]]] = {}
for line in open(sys.argv[1]):
    if not line.startswith("RESULT {"):
        continue
    r = ast.literal_eval(line[len("RESULT ") :])
    who, scene, kind = r["tag"].split()[:3]
    rows.setdefault(scene, {}).setdefault(kind, {})[who] = r


def cell(r, key, mm=None):
    if r is None:
        return "-"
    v = r["worst"].get(key, 0)
    return f"{v} ({r['worst'].get(mm, 0)})" if mm and v else str(v)


for scene, kinds in rows.items():
    print(f"\n{scene}\n")
    print(
        "| kind | in ours / Bl (mm) | thr ours / Bl (mm) | worst stretch % ours / Bl | last stretch % ours / Bl "
        "| NaN | ms a frame ours / Bl |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for kind, w in kinds.items():
        o, b = w.get("ours"), w.get("BLENDER")
        last = lambda r: "-" if r is None else str(r["last"]["stretch"])  # noqa: E731
        nan = lambda r: "-" if r is None else str(r["worst"].get("nan", 0))  # noqa: E731
        ms = lambda r: "-" if r is None else str(r["ms"])  # noqa: E731
        print(
            f"| {kind} | {cell(o, 'inside', 'in_mm')} / {cell(b, 'inside', 'in_mm')} | {cell(o, 'thr', 'thr_mm')} / "
            f"{cell(b, 'thr', 'thr_mm')} | {cell(o, 'stretch')} / {cell(b, 'stretch')} | {last(o)} / {last(b)} | "
            f"{nan(o)} / {nan(b)} | {ms(o)} / {ms(b)} |"
        )
