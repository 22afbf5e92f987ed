"""Cloths and checks shared by the pure-solver benches (no Blender): the five mesh kinds, edge lists, stretch,
cloth edges through a collider's triangles or a bounded plane's rectangle, and the scripts' command-line bits.

Each bench keeps its own numbers (size, height, the fan's spokes and rings, the hole) and passes them here, so the
scenes are exactly what they were before the scripts shared this module (round 24, benchshare24).
Import it after the script has put the checkout it measures on `sys.path` (tablecloth_corners.py copies a checkout's
solver first): this module only appends the repository root, so an earlier `solver` wins.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np

_ROOT = Path(__file__).resolve().parent.parent
if str(_ROOT) not in sys.path:
    sys.path.append(str(_ROOT))
if str(_ROOT / "tests") not in sys.path:
    sys.path.append(str(_ROOT / "tests"))

from solver import meshes  # noqa: E402

__all__ = ["KINDS", "LONG_NAMES", "cloth_kind", "each_kind", "edges_of", "edges_through", "edges_through_chunked"]

KINDS = ("quad", "tri", "jitter", "fan", "holed")
LONG_NAMES = {"quad": "quad", "tri": "triangulated", "jitter": "jittered", "fan": "fan disc", "holed": "with a hole"}


def cloth_kind(kind: str, n: int, size: float = 2.0, height: float = 0.0, fan=None, hole=None, shift=None):
    """(vertices, faces) of one of the five mesh kinds (`KINDS`), `size` wide, at `height`.

    fan: (spokes, rings) of the fan disc (radius size / 2), default (32, max(n // 4, 2)); hole: (centre, radius) of
    the holed grid's hole, default `meshes.holed_grid`'s; shift: added to the vertices (a float array then).
    """
    if kind in ("quad", "tri"):
        vertices, faces = meshes.grid(n, n, size=size, height=height)
        faces = meshes.triangulated(faces) if kind == "tri" else faces
    elif kind == "jitter":
        vertices, faces = meshes.jittered_grid(n, size=size, height=height)
    elif kind == "fan":
        spokes, rings = fan or (32, max(n // 4, 2))
        vertices, faces = meshes.fan_disc(spokes, rings, radius=size / 2, height=height)
    elif kind == "holed":
        shape = {} if hole is None else {"centre": hole[0], "radius": hole[1]}
        vertices, faces = meshes.holed_grid(n, size=size, height=height, **shape)
    else:
        raise ValueError(kind)
    if shift is not None:
        vertices = vertices + np.asarray(shift, dtype=float)
    return vertices, faces


def each_kind(n: int, size: float = 2.0, height: float = 0.0, fan=None, hole=None, long_names: bool = False):
    """(name, vertices, faces) of the five kinds in turn (`cloth_kind`'s arguments)."""
    for kind in KINDS:
        yield (LONG_NAMES[kind] if long_names else kind), *cloth_kind(kind, n, size, height, fan, hole)


def edges_of(faces) -> np.ndarray:
    """The sorted unique (i, j), i < j, edges of a list of polygons (any corner counts)."""
    return np.array(
        sorted({tuple(sorted((int(f[i]), int(f[(i + 1) % len(f)])))) for f in faces for i in range(len(f))})
    )


def edges_through(x, edges, vertices, triangles) -> int:
    """Cloth edges whose segment passes through one of the triangles (tests/solver_scenes.py's count; imported
    when first used, so a script measuring another checkout's solver (vv_cost.py --root) needs none of tests/)."""
    from solver_scenes import edges_through as count  # noqa: PLC0415

    return count(x, edges, vertices, triangles)


def edges_through_chunked(x, edges, vertices, triangles, chunk: int = 1024) -> int:
    """`edges_through` over the edges in chunks (bounded memory for big meshes)."""
    return sum(edges_through(x, edges[s : s + chunk], vertices, triangles) for s in range(0, len(edges), chunk))


def stretch(x, rest, edges) -> np.ndarray:
    """Each edge's positive strain in % (length now over rest length, minus one; 0 where shorter)."""
    length = np.linalg.norm(rest[edges[:, 0]] - rest[edges[:, 1]], axis=1)
    return np.maximum(np.linalg.norm(x[edges[:, 0]] - x[edges[:, 1]], axis=1) / length - 1, 0) * 100


def within(local, u, w, strict: bool = True):
    """Points (relative to a rectangle's centre) within its half-extents u, w (strict: not on the rim)."""
    if strict:
        return (np.abs(local @ u) < u @ u) & (np.abs(local @ w) < w @ w)
    return (np.abs(local @ u) <= u @ u) & (np.abs(local @ w) <= w @ w)


def through_rectangle(P, E, point, normal, extent) -> int:
    """Cloth edges E crossing the interior of the rectangle at `point` facing `normal` with half-extents `extent`."""
    point, normal = np.asarray(point), np.asarray(normal)
    d = (P - point) @ normal
    a, b = d[E[:, 0]], d[E[:, 1]]
    cross = (a > 0) != (b > 0)
    t = a[cross] / (a[cross] - b[cross])
    X = P[E[cross, 0]] + t[:, None] * (P[E[cross, 1]] - P[E[cross, 0]]) - point
    return int(within(X, *extent).sum())


def box_mesh():
    """(vertices, triangles) of a 0.6 m box standing on the floor at the origin."""
    v, q = meshes.box(1)
    return v * 0.6 + np.array([0, 0, 0.3]), meshes.triangulated(q)


def inside_box(x) -> float:
    """How deep the deepest point is inside `box_mesh`'s box (m; negative: all outside)."""
    d = 0.3 - np.abs(x - np.array([0, 0, 0.3]))
    return float(d.min(axis=1).max())


def set_flags(flags) -> None:
    """`--set=module.FLAG=value` options: each sets `solver.module.FLAG` to the evaluated value. A name the module
    does not have (a switch folded in or deleted since: docs/switches.md) stops the bench, not run the default."""
    for flag in flags:
        name, value = flag.split("=")
        module_name, attr = name.rsplit(".", 1)
        module = importlib.import_module("solver." + module_name)
        if not hasattr(module, attr):
            raise SystemExit(f"--set {name}: solver.{module_name} has no {attr} (folded or deleted: docs/switches.md)")
        setattr(module, attr, eval(value))


def set_rule(module, name: str, value: bool) -> None:
    """Set a failsafe switch on a checkout that has it; round 27 (fanbox_r27) folded IN_PLANE_SLIDES_CROSS,
    SLIDES_PUSHED_OFF and REWIND_WITH_COLLIDERS into plain code (all three True): a rule that needs one False
    exits (run it at aab9675 or older)."""
    if hasattr(module, name):
        setattr(module, name, value)
    elif not value:
        sys.exit(f"{name} = False: folded away in round 27 (fanbox_r27); run this rule at aab9675")


def scene_rows(rows, scenes, kinds=KINDS) -> list[tuple[str, str]]:
    """(scene, kind) pairs from "scene/kind" or "scene" command-line rows (every pair when there are none)."""
    todo = []
    for row in rows or [f"{s}/{k}" for s in scenes for k in kinds]:
        scene, _, kind = row.partition("/")
        todo += [(scene, k) for k in ((kind,) if kind else kinds)]
    return todo
