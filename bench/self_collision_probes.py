"""Artists' self-collision scenes in real Blender, counted at every frame (issue 13; docs/self-collision.md, round 14).

Builds each scene with the public names (`bpy.ops.verlet_cloth.*`, `Object.verlet_cloth`), bakes it, and at every
frame counts the pairs of Blender's own loop triangles that overlap (`BVHTree.overlap`) and share no vertex. For
sewn scenes the pairs are split as an artist sees the seam once merged (Merge by Distance): *merged-apart* (sharing
no vertex with each seam's twins as one vertex: faces poking through each other), *seam-point crossing* (sharing a
twin and crossing beyond it) and *touching* (sharing a twin or two and meeting only there: an unmerged shut seam).
`own_bag` / `own_fan` run Blender's own Cloth modifier on the same scenes.

    VC_ROOT=<checkout> .venv/bin/python bench/self_collision_probes.py bag:quad,tri sleeve:quad,tri \
        folded:quad,tri stairs:quad,tri scarf:quad,tri fan:1,3 own_bag:quad,tri own_fan:1,2,3,5

Prints one line per run: max / last frame counts, frames with any pair, the seams' widest gap at the end.
"""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_blender import activate, mesh_obj, reset, start, world_mesh  # noqa: E402 - Blender's start, the scene helpers

ROOT, scratch, _ = start("sp17_", repo="sp", own_resources=True, raise_errors=False)  # bl_ext.sp.verlet_cloth
import bpy  # noqa

sys.path.insert(0, str(ROOT))
import solver  # noqa  (the checkout's pure solver, for meshes)
from mathutils.bvhtree import BVHTree  # noqa


def setup(frames, fps=24):
    return reset((1, frames), fps)


def make_object(name, vertices, faces, edges=()):
    obj = mesh_obj(name, np.asarray(vertices), faces, np.asarray(edges, dtype=int).reshape(-1, 2).tolist())
    activate(obj)
    return obj


def floor(size=8.0):
    bpy.ops.mesh.primitive_plane_add(size=size)
    bpy.ops.verlet_cloth.make_collider(kind="PLANE")


def evaluated(obj):
    return world_mesh(obj)[:2]


def overlap_pairs(co, tris):
    tree = BVHTree.FromPolygons(co.tolist(), tris.tolist(), all_triangles=True)
    pairs = np.array([(a, b) for a, b in tree.overlap(tree) if a < b], dtype=np.int64).reshape(-1, 2)
    if len(pairs):
        share = (tris[pairs[:, 0]][:, :, None] == tris[pairs[:, 1]][:, None, :]).any(axis=(1, 2))
        pairs = pairs[~share]
    return pairs


def groups_of(n, seams):
    lab = np.arange(n)
    if len(seams):
        a, b = seams[:, 0], seams[:, 1]
        while True:
            old = lab.copy()
            m = np.minimum(lab[a], lab[b])
            lab[a] = np.minimum(lab[a], m)
            lab[b] = np.minimum(lab[b], m)
            if np.array_equal(old, lab):
                break
    return lab


def wedge_cross(co, ta, tb, va, vb):
    """Triangles ta, tb (3 vertex ids each) share merged vertex va ~ vb: do they cross beyond that point?"""
    v = co[va]
    A = [co[i] for i in ta if i != va]
    B = [co[i] if i != vb else v for i in tb if i != vb]
    nA = np.cross(A[0] - v, A[1] - v)
    nB = np.cross(B[0] - v, B[1] - v)
    d = np.cross(nA, nB)
    if np.linalg.norm(d) < 1e-12 * (np.linalg.norm(nA) * np.linalg.norm(nB) + 1e-30):
        return False

    def inside(w, P, n):
        return np.dot(np.cross(P[0] - v, w), n) > 0 and np.dot(np.cross(w, P[1] - v), n) > 0

    return any(inside(s * d, A, nA) and inside(s * d, B, nB) for s in (1.0, -1.0))


def classify(co, tris, pairs, lab):
    """(raw, merged-apart crossing, seam-point crossing, seam-touching only) counts."""
    if lab is None or len(pairs) == 0:
        return len(pairs), len(pairs), 0, 0
    la, lb = lab[tris[pairs[:, 0]]], lab[tris[pairs[:, 1]]]
    shared = la[:, :, None] == lb[:, None, :]
    nshared = shared.any(axis=2).sum(axis=1)
    apart = int((nshared == 0).sum())
    seam_cross = touch = 0
    for k in np.flatnonzero(nshared == 1):
        ta, tb = tris[pairs[k, 0]], tris[pairs[k, 1]]
        i, j = np.argwhere(shared[k])[0]
        if wedge_cross(co, ta, tb, ta[i], tb[j]):
            seam_cross += 1
        else:
            touch += 1
    touch += int((nshared >= 2).sum())
    return len(pairs), apart, seam_cross, touch


def run(obj, frames, seams=None, label="", bake=True, every=True, extra=None):
    scene = bpy.context.scene
    t0 = time.process_time()
    if bake:
        assert bpy.ops.verlet_cloth.bake() == {"FINISHED"}
    tb = time.process_time() - t0
    n = len(obj.data.vertices)
    lab = groups_of(n, np.asarray(seams)) if seams is not None and len(seams) else None
    rows = []
    for f in range(1, frames + 1):
        scene.frame_set(f)
        co, tris = evaluated(obj)
        pairs = overlap_pairs(co, tris)
        c = classify(co, tris, pairs, lab)
        gap = float(np.linalg.norm(co[seams[:, 0]] - co[seams[:, 1]], axis=1).max()) if lab is not None else 0.0
        rows.append((f, *c, gap, co[:, 2].max()))
    arr = np.array(rows)
    raw = arr[:, 1]
    apart = arr[:, 2]
    sc = arr[:, 3]
    bad = np.flatnonzero(raw > 0)
    first = int(arr[bad[0], 0]) if len(bad) else None
    msg = f"{label}: raw max/end {int(raw.max())}/{int(raw[-1])} (bad frames {len(bad)}, first {first})"
    if lab is not None:
        msg += (
            f"; merged-apart {int(apart.max())}/{int(apart[-1])}, seam-point crossing {int(sc.max())}/{int(sc[-1])},"
            f" touching {int(arr[:, 4].max())}/{int(arr[-1, 4])}; seam gap end {arr[-1, 5] * 1000:.1f} mm"
        )
    msg += f"; top end {arr[-1, 6]:.3f} m; bake {tb:.1f} s cpu"
    print(msg, flush=True)
    return arr


def bag(kind, frames=60, n=12, size=0.6, apart=0.16, height=0.5):
    setup(frames)
    floor()
    v, f = solver.grid(n, n, size=size)
    if kind == "tri":
        f = solver.meshes.triangulated(f)
    nv = len(v)
    border = np.flatnonzero(np.isclose(np.abs(v[:, 0]), size / 2) | np.isclose(v[:, 1], -size / 2))
    verts = np.concatenate([v + [0, 0, height], v + [0, 0, height + apart]])
    faces = np.concatenate([f[:, ::-1], f + nv])
    seams = np.stack([border, border + nv], 1)
    obj = make_object("Bag", verts, faces, seams)
    bpy.ops.verlet_cloth.convert()
    s = obj.verlet_cloth
    s.use_sewing = True
    s.self_collision, s.self_collision_faces = True, True
    return obj, seams


def cloth_settings(obj, **kw):
    s = obj.verlet_cloth
    s.self_collision, s.self_collision_faces = True, True
    for k, v in kw.items():
        setattr(s, k, v)


def tri_faces(f, kind):
    return solver.meshes.triangulated(f) if kind == "tri" else f


def sleeve(kind, frames=48):
    setup(frames)
    floor()
    v, f, e, top = solver.meshes.sewn_panels(10, 16, width=0.3, height=0.6, gap=0.12)
    f = np.concatenate([tri_faces(f[: len(f) // 2], kind), tri_faces(f[len(f) // 2 :], kind)])
    v = v[:, [2, 1, 0]] * [1, 1, 1] + [0.3, 0, 0.45]  # tube axis along x, lying 0.45 m up
    obj = make_object("Sleeve", v, f, e)
    bpy.ops.verlet_cloth.convert()
    cloth_settings(obj, use_sewing=True, bend_stiffness=0.05)
    return obj, e


def stairs(kind, frames=60):
    setup(frames)
    floor()
    verts, quads = [], []
    for k in range(3):  # steps 0.2 m rise, 0.3 m deep, 1.2 m wide
        b, q = solver.meshes.box(1, size=1.0)
        b = b * [1.2, 0.3, 0.2 * (k + 1)] + [0, 0.3 * k, 0.1 * (k + 1)]
        quads.append(q + len(verts) * 0 + sum(len(x) for x in verts))
        verts.append(b)
    make_object("Stairs", np.concatenate(verts), np.concatenate(quads))
    bpy.ops.verlet_cloth.make_collider()
    v, f = solver.grid(24, 24, size=1.2)
    obj = make_object("Throw", v + [0, 0.3, 1.0], tri_faces(f, kind))
    bpy.ops.verlet_cloth.convert()
    cloth_settings(obj, bend_stiffness=0.05, friction=0.3)
    return obj, None


def folded(kind, frames=60):
    setup(frames)
    floor()
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.15, location=(0.1, 0, 0.15))
    bpy.ops.verlet_cloth.make_collider(kind="SPHERE")
    # a 1.0 × 0.5 m sheet folded in half over a 2 cm radius: two layers 4 cm apart
    cols, rows, r = 33, 13, 0.02
    s = np.linspace(0, 1.0, cols)
    half = (1.0 - np.pi * r) / 2
    x = np.where(
        s < half, s, np.where(s > half + np.pi * r, 2 * half + np.pi * r - s, half + r * np.sin((s - half) / r))
    )
    z = np.where(s < half, 0.0, np.where(s > half + np.pi * r, 2 * r, r - r * np.cos((s - half) / r)))
    y = np.linspace(-0.25, 0.25, rows)
    X = np.repeat(x[None], rows, 0)
    Z = np.repeat(z[None], rows, 0)
    Y = np.repeat(y[:, None], cols, 1)
    v = np.stack([X.ravel() - 0.25, Y.ravel(), Z.ravel() + 0.6], 1)
    _, f = solver.grid(cols, rows)
    obj = make_object("Folded", v, tri_faces(f, kind))
    bpy.ops.verlet_cloth.convert()
    cloth_settings(obj, bend_stiffness=0.05)
    return obj, None


def scarf(kind, frames=60):
    setup(frames)
    cols, rows = 36, 5
    v, f = solver.grid(cols, rows, size=(1.4, 0.2))
    v = v + [0, 0, 1.0]
    obj = make_object("Scarf", v, tri_faces(f, kind))
    ends = np.flatnonzero(np.isclose(np.abs(v[:, 0]), 0.7))
    right = np.flatnonzero(np.isclose(v[:, 0], 0.7))
    obj.vertex_groups.new(name="Pin").add(ends.tolist(), 1.0, "REPLACE")
    obj.vertex_groups.new(name="Right").add(right.tolist(), 1.0, "REPLACE")
    bpy.ops.object.empty_add(location=(0.7, 0, 1.0))
    held = bpy.context.active_object
    held.keyframe_insert("location", frame=1)
    held.location = (-0.6, 0.0, 1.05)
    held.keyframe_insert("location", frame=20)
    held.location = (-0.6, 0.25, 1.05)
    held.keyframe_insert("location", frame=30)
    held.location = (0.2, 0.25, 0.9)
    held.keyframe_insert("location", frame=45)
    bpy.context.scene.frame_set(1)
    hook = obj.modifiers.new("Hook", "HOOK")
    hook.object, hook.falloff_type, hook.vertex_group = held, "NONE", "Right"
    hook.matrix_inverse = held.matrix_world.inverted()
    activate(obj)
    assert bpy.ops.verlet_cloth.convert() == {"FINISHED"}
    obj.verlet_cloth.pin_group = "Pin"
    cloth_settings(obj, bend_stiffness=0.05)
    return obj, None


def own_floor():
    bpy.ops.mesh.primitive_plane_add(size=8.0)
    bpy.context.active_object.modifiers.new("Collision", "COLLISION")


def own_cloth(obj, quality, self_coll=True, sewing=False):
    mod = obj.modifiers.new("Cloth", "CLOTH")
    mod.settings.quality = quality
    mod.settings.bending_stiffness = 0.2 * 1.0
    mod.collision_settings.use_self_collision = self_coll
    mod.collision_settings.self_distance_min = 0.005  # 2 x 5 mm apart, as ours
    mod.collision_settings.distance_min = 0.005
    if sewing:
        mod.settings.use_sewing_springs = True
    mod.point_cache.frame_end = bpy.context.scene.frame_end
    return mod


def fan(substeps, frames=40):
    """A 32-spoke, 11-ring fan disc (r 0.5 m) dropped edge-first, bend 0.2; substeps 0: Auto."""
    setup(frames)
    floor()
    v, t = solver.meshes.fan_disc(32, 11, radius=0.5)
    obj = make_object("Fan", v[:, [0, 2, 1]] + [0, 0, 0.55], t)
    bpy.ops.verlet_cloth.convert()
    s = obj.verlet_cloth
    s.bend_stiffness, s.friction, s.self_collision, s.self_collision_faces = 0.2, 0.5, True, True
    if substeps > 0:
        s.auto_substeps, s.substeps = False, substeps
    return obj, None


def own_fan(quality, frames=40):
    setup(frames)
    own_floor()
    v, t = solver.meshes.fan_disc(32, 11, radius=0.5)
    obj = make_object("Fan", v[:, [0, 2, 1]] + [0, 0, 0.55], t)
    own_cloth(obj, quality)
    return obj, None


def own_bag(kind, frames=60):
    setup(frames)
    own_floor()
    v, f = solver.grid(12, 12, size=0.6)
    if kind == "tri":
        f = solver.meshes.triangulated(f)
    nv = len(v)
    border = np.flatnonzero(np.isclose(np.abs(v[:, 0]), 0.3) | np.isclose(v[:, 1], -0.3))
    seams = np.stack([border, border + nv], 1)
    obj = make_object(
        "Bag", np.concatenate([v + [0, 0, 0.5], v + [0, 0, 0.66]]), np.concatenate([f[:, ::-1], f + nv]), seams
    )
    own_cloth(obj, 5, sewing=True)
    return obj, seams


if __name__ == "__main__":
    for job in sys.argv[1:]:
        name, _, kinds = job.partition(":")
        for kind in kinds.split(","):
            argument = int(kind) if name in ("fan", "own_fan") else kind
            obj, seams = globals()[name](argument)
            run(obj, bpy.context.scene.frame_end, seams, label=f"{name} {kind}", bake=not name.startswith("own"))
