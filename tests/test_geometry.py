"""Pure helpers of the Blender side (services/geometry.py), loaded without bpy."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from conftest import ROOT

_spec = importlib.util.spec_from_file_location("vc_geometry", ROOT / "services" / "geometry.py")
assert _spec is not None and _spec.loader is not None
geometry = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(geometry)


def test_geometry_does_not_import_bpy():
    assert "bpy" not in geometry.__dict__
    source = (ROOT / "services" / "geometry.py").read_text()
    assert "import bpy" not in source and "from .." not in source
    assert "vc_geometry" not in sys.modules  # loaded standalone, not registered globally


def _matrix(rotation_z=0.0, scale=1.0, translation=(0.0, 0.0, 0.0)):
    c, s = np.cos(rotation_z), np.sin(rotation_z)
    m = np.eye(4)
    m[:3, :3] = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]) * scale
    m[:3, 3] = translation
    return m


def test_to_world_and_back_round_trip():
    m = _matrix(0.7, 2.0, (1.0, -2.0, 3.0))
    local = np.random.default_rng(0).normal(size=(20, 3))
    world = geometry.to_world(m, local)
    np.testing.assert_allclose(world[0], m[:3, :3] @ local[0] + m[:3, 3])
    np.testing.assert_allclose(geometry.to_local(m, world), local, atol=1e-12)


def test_sphere_radius_is_the_farthest_point():
    points = np.array([[1.0, 0, 0], [0, 3.0, 0], [0, 0, -2.0]])
    assert geometry.sphere_radius(points, np.zeros(3)) == pytest.approx(3.0)
    assert geometry.sphere_radius(points, np.array([0.0, 3.0, 0.0])) == pytest.approx(np.sqrt(13))
    assert geometry.sphere_radius(np.zeros((0, 3)), np.zeros(3)) == 0.0


def test_plane_frame_faces_local_z_and_bounds_to_the_mesh():
    tilt = np.eye(4)
    tilt[:3, :3] = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]])  # 90° about X: +Z becomes -Y
    tilt[:3, 3] = (0, 0, 2)
    point, normal, extent = geometry.plane_frame(tilt)
    np.testing.assert_allclose(normal, [0, -1, 0], atol=1e-12)
    np.testing.assert_allclose(point, [0, 0, 2])
    assert extent is None
    local = np.array([[-1.0, -1.0, 0], [3.0, -1.0, 0], [3.0, 1.0, 0], [-1.0, 1.0, 0]])
    point, normal, extent = geometry.plane_frame(_matrix(translation=(0, 0, 1)), local, bounded=True)
    np.testing.assert_allclose(point, [1, 0, 1])  # the rectangle's centre, on the plane
    np.testing.assert_allclose(extent, [[2, 0, 0], [0, 1, 0]])
    _, _, extent = geometry.plane_frame(_matrix(scale=2.0), None, half_size=0.5, bounded=True)
    np.testing.assert_allclose(extent, [[1, 0, 0], [0, 1, 0]])


def test_topology_signature_changes_with_rewiring_only():
    edges = np.array([0, 1, 1, 2, 2, 0])
    corners = np.array([0, 1, 2])
    a = geometry.topology_signature(3, edges, corners)
    assert a == geometry.topology_signature(3, edges.copy(), corners.copy())
    assert a != geometry.topology_signature(4, edges, corners)
    assert a != geometry.topology_signature(3, np.array([0, 2, 1, 2, 2, 0]), corners)
    assert a != geometry.topology_signature(3, edges, np.array([0, 2, 1]))


@pytest.mark.parametrize(
    ("cached", "frame", "expected"),
    [
        (None, 1, "RESET"),
        (5, 1, "RESET"),
        (5, 0, "RESET"),
        (1, 2, "STEP"),
        (9, 10, "STEP"),
        (10, 11, "HOLD"),  # past the end
        (3, 5, "HOLD"),
        (3, 2, "HOLD"),
        (None, 4, "HOLD"),
        (3, 3, "HOLD"),
    ],
)
def test_frame_action_policy(cached, frame, expected):
    assert geometry.frame_action(cached, frame, 1, 10) == expected


def test_compensated_key_cancels_the_users_shape_keys():
    rng = np.random.default_rng(1)
    basis, smile, simulated = rng.normal(size=(3, 8, 3))
    mix = geometry.user_mix(basis, [(0.4, smile, basis), (0.0, smile * 9, basis)])
    np.testing.assert_allclose(mix, basis + 0.4 * (smile - basis))
    ours = geometry.compensated_key(basis, simulated, mix)
    evaluated = basis + 0.4 * (smile - basis) + 1.0 * (ours - basis)  # Blender's relative-key sum
    np.testing.assert_allclose(evaluated, simulated, atol=1e-12)


def test_bake_keyframes_are_zero_one_zero_and_the_last_holds():
    assert geometry.bake_key_frames(5, 1, 10) == [(4, 0.0), (5, 1.0), (6, 0.0)]
    assert geometry.bake_key_frames(1, 1, 10) == [(1, 1.0), (2, 0.0)]  # the start's key holds before it
    assert geometry.bake_key_frames(10, 1, 10) == [(9, 0.0), (10, 1.0)]


def test_percent_lines_print_each_tenth_once_and_the_end():
    last, lines = -1, []
    for done in range(1, 31):
        last, line = geometry.percent_lines(done, 30, last)
        if line:
            lines.append(line)
    assert len(lines) == 11  # the first frame, then 10%, 20%, ... 100%
    assert lines[1].startswith("Verlet Cloth bake:  10%")
    assert lines[-1].startswith("Verlet Cloth bake: 100%")


def _rotation_x(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


@pytest.mark.parametrize(
    "basis",
    [
        _rotation_x(0.5) @ np.diag([1.0, 1.0, 0.0]),  # a tilted plane scaled flat along its Z (S Z 0)
        np.diag([1.0, 3.0, 1.0]) @ _rotation_x(np.pi / 4),  # under a parent scaled along Y: sheared
        _rotation_x(0.5) @ np.diag([2.0, -1.0, 0.5]),  # mirrored in Y: still faces its local +Z
    ],
)
def test_plane_frame_normal_is_perpendicular_to_the_plane_the_object_shows(basis):
    """The normal is perpendicular to the object's XY plane as drawn (its X and Y axes in world space),
    on the side its local +Z points to; a flattened or sheared transform used to tilt it (or make
    a tilted plane horizontal)."""
    m = np.eye(4)
    m[:3, :3] = basis
    _, normal, _ = geometry.plane_frame(m)
    assert np.linalg.norm(normal) == pytest.approx(1.0)
    assert abs(normal @ basis[:, 0]) < 1e-12 and abs(normal @ basis[:, 1]) < 1e-12
    if np.linalg.norm(basis[:, 2]) > 0:
        assert normal @ basis[:, 2] > 0
    else:
        assert normal @ (_rotation_x(0.5) @ [0, 0, 1.0]) == pytest.approx(1.0)


def test_sphere_radius_and_plane_extent_leave_out_points_that_are_not_finite():
    points = np.array([[1.0, 0, 0], [np.nan, 0, 0], [0, 2.0, 0], [np.inf, 0, 0]])
    assert geometry.sphere_radius(points, np.zeros(3)) == pytest.approx(2.0)
    _, _, extent = geometry.plane_frame(np.eye(4), points, bounded=True)
    assert np.isfinite(extent).all()
    assert np.allclose(np.abs(extent).max(axis=0)[:2], [0.5, 1.0])  # x from 0 to 1, y from 0 to 2


def test_rigid_fit_finds_a_whole_mesh_carried_rigidly_and_rejects_a_bent_one():
    rng = np.random.default_rng(3)
    reference = rng.uniform(-0.5, 0.5, (200, 3)) + (0.0, 0.0, 0.5)
    angle = 0.7
    rotation = np.array([[np.cos(angle), -np.sin(angle), 0.0], [np.sin(angle), np.cos(angle), 0.0], [0.0, 0.0, 1.0]])
    carried = (reference @ rotation.T + (0.3, -0.2, 0.1)).astype(np.float32)  # as Blender hands it over
    fit = geometry.rigid_fit(reference.astype(np.float32), carried)
    assert fit is not None
    np.testing.assert_allclose(fit[:3, :3], rotation, atol=1e-5)
    np.testing.assert_allclose(fit[:3, 3], (0.3, -0.2, 0.1), atol=1e-5)
    bent = carried.copy()
    bent[reference[:, 0] > 0.3, 2] += 0.01  # one end lifted 1 cm: a deformation
    assert geometry.rigid_fit(reference, bent) is None
    mirrored = reference * (-1.0, 1.0, 1.0)  # a reflection is not a motion
    assert geometry.rigid_fit(reference, mirrored) is None
    assert geometry.rigid_fit(reference, reference * 1.01) is None  # nor a scale


def test_a_plane_turned_over_or_mirrored_on_z_faces_down():
    floor = np.eye(4)
    assert not geometry.plane_faces_down(floor, (0.0, 0.0, -9.81))
    mirrored = np.diag([1.0, 1.0, -1.0, 1.0])  # S Z -1: keeps cloth below it
    turned = np.diag([1.0, -1.0, -1.0, 1.0])  # rotated 180° about X
    assert geometry.plane_faces_down(mirrored, (0.0, 0.0, -9.81))
    assert geometry.plane_faces_down(turned, (0.0, 0.0, -9.81))
    assert not geometry.plane_faces_down(turned, (0.0, 0.0, 9.81))  # gravity up: that is its top
    wall = np.array([[1.0, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])
    assert not geometry.plane_faces_down(wall, (0.0, 0.0, -9.81))
