"""A baked cloth exports with Blender's Alembic exporter and imports back with the same motion.

Vertex positions are compared frame by frame: evaluated in the scene before export, and evaluated
from the imported object (a MeshSequenceCache) after import into an empty file.
"""

from pathlib import Path

import numpy as np
from vc_helpers import evaluated_positions, grid_object

FRAMES = range(1, 9)


def _sample(bpy, obj) -> list[np.ndarray]:
    out = []
    for frame in FRAMES:
        bpy.context.scene.frame_set(frame)
        out.append(evaluated_positions(bpy, obj))
    return out


def _round_trip(bpy, obj, path: Path) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(positions per frame before export, positions per frame of the re-imported object)."""
    before = _sample(bpy, obj)
    for other in bpy.context.scene.objects:
        other.select_set(other == obj)
    result = bpy.ops.wm.alembic_export(
        filepath=str(path),
        start=FRAMES[0],
        end=FRAMES[-1],
        selected=True,
        init_scene_frame_range=False,
        as_background_job=False,
    )
    assert result == {"FINISHED"} and path.is_file()

    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.wm.alembic_import(filepath=str(path), as_background_job=False) == {"FINISHED"}
    meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    assert len(meshes) == 1, [o.name for o in bpy.context.scene.objects]
    return before, _sample(bpy, meshes[0])


def _assert_same_motion(before, after):
    assert len(before) == len(after)
    for frame, (a, b) in zip(FRAMES, zip(before, after)):
        assert a.shape == b.shape, frame
        np.testing.assert_allclose(b, a, atol=1e-5, err_msg=f"frame {frame}")
    # The motion is real, so the comparison means something.
    assert np.abs(before[-1] - before[0]).max() > 0.05


def test_shape_key_animation_round_trips(blender, tmp_path):
    """The exporter path itself, with a shape-key deformation like a bake's (no solver needed)."""
    obj = grid_object(blender, "Cloth", n=5)
    obj.shape_key_add(name="Basis", from_mix=False)
    key = obj.shape_key_add(name="Sag", from_mix=False)
    co = np.empty(len(key.data) * 3)
    key.data.foreach_get("co", co)
    co = co.reshape(-1, 3)
    co[:, 2] -= 0.5 * (1 - (co[:, 0] ** 2 + co[:, 1] ** 2))
    key.data.foreach_set("co", co.ravel())
    for frame, value in ((FRAMES[0], 0.0), (FRAMES[-1], 1.0)):
        key.value = value
        key.keyframe_insert("value", frame=frame)
    obj.location = (0.3, -0.2, 0.1)
    _assert_same_motion(*_round_trip(blender, obj, tmp_path / "sag.abc"))


def test_baked_cloth_round_trips(blender, tmp_path):
    import sys

    from conftest import ADDON_MODULE

    baking = sys.modules.get(ADDON_MODULE + ".services.baking")
    if baking is None:
        import importlib

        baking = importlib.import_module(ADDON_MODULE + ".services.baking")
    obj = grid_object(blender, "Cloth", n=8, size=1.0, height=1.0)
    obj.verlet_cloth.enabled = True
    scene = blender.context.scene
    assert baking.bake_object(scene, obj, FRAMES[0], FRAMES[-1]) > 0
    _assert_same_motion(*_round_trip(blender, obj, tmp_path / "cloth.abc"))
