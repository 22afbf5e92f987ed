"""The table drape's edge holds, edge iterations and corner supports replayed: another checkout's functions against
this one's on the same recorded inputs, interleaved, best of many (issue 11, round 25 (tablecost25)).

A frame of the 64² drape (bench/mesh_collider_cost.py's scenes) costs ~100 ms against a shared machine's noise of
±5-10 %, so a cut of a few % in one pass cannot be told from a whole-drape A/B. Here this checkout's solver steps the
drape, recording every call of `edge_hold.hold_edges`, `edge_iterations.iterate_edge_contacts` and
`corner_support.support_hanging` in frames --start..--stop (its inputs copied), then each call is timed with the other
checkout's function and this one's in turn (`timeit`, --number calls, least of --repeat), on fresh copies of x and
x_start (their copying measured alone and subtracted), after asserting that both leave the same positions to the
bit. The other checkout's `support_hanging` gets the positional arguments it had before round 25 (no plan).

    .venv/bin/python bench/hold_replay_ab.py /path/to/base [--scene table] [--kind quad] [--start 24] [--stop 30]
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import sys
import tempfile
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import mesh_collider_cost as cost  # noqa: E402

import solver  # noqa: E402
from solver import corner_contacts, corner_support, edge_contacts, edge_hold, edge_iterations  # noqa: E402


def _other(checkout: Path):
    scratch = Path(tempfile.mkdtemp(prefix="vc_replay_"))
    shutil.copytree(checkout / "solver", scratch / "solver_other", ignore=shutil.ignore_patterns("__pycache__"))
    sys.path.insert(0, str(scratch))
    names = ("edge_hold", "edge_iterations", "corner_support", "edge_contacts")
    return {m: importlib.import_module(f"solver_other.{m}") for m in names}


def record(scene: str, kind: str, start: int, stop: int) -> dict:
    calls: dict = {"hold_edges": [], "iterate_edge_contacts": [], "support_hanging": []}
    on = [False]
    hold, iterate, support = edge_hold.hold_edges, edge_iterations.iterate_edge_contacts, corner_support.support_hanging

    def kept_hold(collider, x, x_start, *args):
        if on[0]:
            calls["hold_edges"].append((x.copy(), x_start.copy(), (collider, *args)))
        return hold(collider, x, x_start, *args)

    def kept_iterate(x, *args):
        if on[0]:
            calls["iterate_edge_contacts"].append((x.copy(), None, args))
        return iterate(x, *args)

    def kept_support(x, x_start, *args):
        if on[0]:
            calls["support_hanging"].append((x.copy(), x_start.copy(), args))
        return support(x, x_start, *args)

    edge_contacts.hold_edges, edge_contacts.iterate_edge_contacts = kept_hold, kept_iterate
    corner_contacts.support_hanging = kept_support
    try:
        shape = solver.TriangleMesh(*cost.SCENES[scene]())
        model, params, floor = cost.cloth(kind), solver.Params(), solver.Plane(point=(0, 0, 0))
        state = model.initial_state()
        for frame in range(stop):
            on[0] = frame >= start
            solver.step(model, state, params, 1 / cost.FPS, [solver.MeshCollider(shape), floor])
    finally:
        edge_contacts.hold_edges, edge_contacts.iterate_edge_contacts = hold, iterate
        corner_contacts.support_hanging = support
    return calls


def _call(function, name: str, x, x_start, arguments) -> None:
    if name == "hold_edges":  # (collider, x, x_start, ...)
        function(arguments[0], x, x_start, *arguments[1:])
    elif x_start is None:
        function(x, *arguments)
    else:
        function(x, x_start, *arguments)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("other", type=Path, help="the other checkout (its solver/ is copied and imported)")
    parser.add_argument("--scene", default="table")
    parser.add_argument("--kind", default="quad")
    parser.add_argument("--start", type=int, default=24)
    parser.add_argument("--stop", type=int, default=30)
    parser.add_argument("--number", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=31)
    args = parser.parse_args()
    other = _other(args.other)
    calls = record(args.scene, args.kind, args.start, args.stop)
    ours = {
        "hold_edges": edge_hold.hold_edges,
        "iterate_edge_contacts": edge_iterations.iterate_edge_contacts,
        "support_hanging": corner_support.support_hanging,
    }
    theirs = {
        "hold_edges": other["edge_hold"].hold_edges,
        "iterate_edge_contacts": other["edge_iterations"].iterate_edge_contacts,
        "support_hanging": other["corner_support"].support_hanging,
    }
    frames = args.stop - args.start
    any_x = next(c[0] for v in calls.values() for c in v)
    copying = min(timeit.repeat(any_x.copy, number=200, repeat=args.repeat)) / 200
    print(f"{args.scene}/{args.kind}, frames {args.start}-{args.stop - 1}: CPU ms a frame, other -> this checkout")
    for name, recorded in calls.items():
        total = [0.0, 0.0]
        for x, x_start, call_args in recorded:
            their_args = call_args
            if name == "iterate_edge_contacts":  # (each checkout's own scatter)
                their_args = (*call_args[:7], other["edge_contacts"]._scatter, *call_args[8:])
            if name == "support_hanging":
                their_args = call_args[:8]
            copies = 1 if x_start is None else 2

            def run(function, arguments, x=x, x_start=x_start, name=name):
                _call(function, name, x.copy(), None if x_start is None else x_start.copy(), arguments)

            a, b = x.copy(), x.copy()
            a0, b0 = (None, None) if x_start is None else (x_start.copy(), x_start.copy())
            _call(theirs[name], name, a, a0, their_args)
            _call(ours[name], name, b, b0, call_args)
            assert np.array_equal(a, b) and (x_start is None or np.array_equal(a0, b0)), name
            best = [float("inf"), float("inf")]
            for _ in range(args.repeat):  # (in turn)
                for k, (function, arguments) in enumerate(((theirs[name], their_args), (ours[name], call_args))):
                    best[k] = min(best[k], timeit.timeit(lambda f=function, a=arguments: run(f, a), number=args.number))
            for k in (0, 1):
                total[k] += best[k] / args.number - copies * copying
        a, b = (1000 * t / frames for t in total)
        rate = len(recorded) / frames
        print(f"  {name:24s} {rate:5.1f} calls  {a:7.3f} -> {b:7.3f} ms  ({100 * (b - a) / a:+.1f} %)")


if __name__ == "__main__":
    main()
