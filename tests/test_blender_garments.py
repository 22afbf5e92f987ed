"""Sewing and pressure through the public properties, in real headless Blender: live preview, bake, CLI."""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest
from conftest import ADDON_MODULE
from vc_helpers import activate, evaluated_positions, setup_scene

import solver
from solver.meshes import box

FRAMES = 12


def _object(bpy, name, vertices, faces, edges=()):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(np.asarray(vertices).tolist(), np.asarray(edges).tolist(), np.asarray(faces).tolist())
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    activate(bpy, obj)
    return obj


def _panels(bpy, gap=0.1):
    """Two 0.5 m panels side by side `gap` apart along X, their facing sides joined by loose edges."""
    vertices, faces = solver.grid(6, 6, size=0.5)
    n = len(vertices)
    right = np.flatnonzero(np.isclose(vertices[:, 0], 0.25))
    left = np.flatnonzero(np.isclose(vertices[:, 0], -0.25)) + n
    both = np.concatenate([vertices, vertices + [0.5 + gap, 0.0, 0.0]]) + [0.0, 0.0, 1.0]
    seams = np.stack([right, left], axis=1)
    return _object(bpy, "Panels", both, np.concatenate([faces, faces + n]), seams), seams


def _weightless(bpy):
    scene = setup_scene(bpy, FRAMES)
    scene.use_gravity = False
    return scene


def _gap(positions, seams):
    return float(np.linalg.norm(positions[seams[:, 0]] - positions[seams[:, 1]], axis=1).max())


@pytest.mark.parametrize("sewing", [True, False])
def test_sewing_closes_loose_edges_in_the_live_preview_and_the_bake(blender, sewing):
    scene = _weightless(blender)
    obj, seams = _panels(blender)
    assert not obj.verlet_cloth.use_sewing  # off by default
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    obj.verlet_cloth.use_sewing = sewing
    for frame in range(2, FRAMES + 1):  # the live preview steps one frame at a time
        scene.frame_set(frame)
    live = _gap(evaluated_positions(blender, obj), seams)
    assert (live < 0.01) == sewing, live  # off: loose edges are cloth edges, the gap stays 10 cm
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    scene.frame_set(FRAMES)
    baked = evaluated_positions(blender, obj)
    assert (_gap(baked, seams) < 0.01) == sewing
    first = np.arange(len(baked)) < len(baked) // 2
    assert np.ptp(baked[first, 0]) == pytest.approx(0.5, abs=0.01)  # the panel keeps its size


def _volume(positions, faces):
    triangles = np.concatenate([faces[:, [0, 1, 2]], faces[:, [0, 2, 3]]])
    a, b, c = (positions[triangles[:, k]] for k in range(3))
    return float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0)


@pytest.mark.parametrize("pressure", [True, False])
def test_pressure_inflates_a_cube_in_the_bake(blender, pressure):
    _weightless(blender)
    vertices, faces = box(4)
    obj = _object(blender, "Cube", vertices + [0.0, 0.0, 1.0], faces)
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    settings = obj.verlet_cloth
    assert not settings.use_pressure  # off by default
    settings.use_pressure = pressure
    settings.pressure = 20.0
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    blender.context.scene.frame_set(FRAMES)
    volume = _volume(evaluated_positions(blender, obj), faces)
    if pressure:
        assert volume > 1.1
    else:
        assert volume == pytest.approx(1.0, abs=1e-3)


def test_the_pressure_panel_says_when_a_mesh_is_not_closed(blender):
    garments = importlib.import_module(ADDON_MODULE + ".services.garments")
    vertices, faces = box(2)
    cube = _object(blender, "Cube", vertices, faces)
    assert garments.pressure_problem(cube) is None
    sheet = _object(blender, "Sheet", *solver.grid(3, 3))
    assert garments.pressure_problem(sheet) == garments.NOT_CLOSED
    # Two squares sewn all round close a bag, but only with Sewing on.
    square, quad = solver.grid(2, 2)
    with_seams = _object(
        blender,
        "Sewn",
        np.concatenate([square, square + [0, 0, 0.1]]),
        [quad[0][::-1], quad[0] + 4],
        [(k, k + 4) for k in range(4)],
    )
    assert garments.pressure_problem(with_seams) == garments.NOT_CLOSED
    with_seams.verlet_cloth.use_sewing = True
    assert garments.pressure_problem(with_seams) is None


def test_the_command_line_bake_sews(blender, tmp_path, capsys):
    cli = sys.modules[ADDON_MODULE + ".services.cli"]
    _weightless(blender)
    obj, seams = _panels(blender)
    obj.verlet_cloth.enabled = True
    obj.verlet_cloth.use_sewing = True
    path = str(tmp_path / "sewn.blend")
    blender.ops.wm.save_as_mainfile(filepath=path, check_existing=False)
    assert cli.main(["bake", path, "--frames", f"1:{FRAMES}"]) == 0, capsys.readouterr().err
    blender.ops.wm.open_mainfile(filepath=path)
    blender.context.scene.frame_set(FRAMES)
    assert _gap(evaluated_positions(blender, blender.data.objects["Panels"]), seams) < 0.01


@pytest.mark.parametrize("pressure", [True, False])
def test_a_sewn_cushion_with_pressure_lands_on_a_mesh_collider(blender, pressure):
    setup_scene(blender, 24)
    square, quads = solver.grid(7, 7, size=0.6)
    n = len(square)
    border = np.flatnonzero(np.isclose(np.abs(square[:, :2]), 0.3).any(axis=1))
    vertices = np.concatenate([square, square + [0.0, 0.0, 0.03]]) + [0.0, 0.0, 0.6]
    faces = np.concatenate([quads[:, ::-1], quads + n])
    block, block_quads = box(1, size=0.4, center=(0.0, 0.0, 0.2))  # a 40 cm block on the ground
    collider = _object(blender, "Block", block, block_quads)
    collider.verlet_cloth_collider.kind = "MESH"
    cushion = _object(blender, "Cushion", vertices, faces, np.stack([border, border + n], axis=1))
    assert blender.ops.verlet_cloth.convert() == {"FINISHED"}
    settings = cushion.verlet_cloth
    settings.use_sewing = True
    settings.use_pressure = pressure
    settings.pressure = 10.0
    assert blender.ops.verlet_cloth.bake() == {"FINISHED"}
    blender.context.scene.frame_set(24)
    x = evaluated_positions(blender, cushion)
    assert np.isfinite(x).all()
    assert _gap(x, np.stack([border, border + n], axis=1)) < 0.01  # sewn shut
    inside = (np.abs(x[:, :2]).max(axis=1) < 0.2 - 0.002) & (x[:, 2] < 0.4 - 0.002)
    assert not inside.any()  # resting on the block, not in it
    volume = _volume(x, faces)
    assert (volume > 0.02) == pressure  # 0.035 m³ from 0.6 × 0.6 × 0.03 m = 0.011 (off: it sags flat, ~0)
