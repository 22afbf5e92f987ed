"""Pure screen-space math of the drag operator (services/dragging.py), loaded without bpy."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from conftest import ROOT

_spec = importlib.util.spec_from_file_location("vc_dragging", ROOT / "services" / "dragging.py")
assert _spec is not None and _spec.loader is not None
dragging = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dragging)

W, H = 200, 100


def _perspective(eye=(0.0, -5.0, 0.0), fov_y=1.0471975511965976, near=0.1, far=100.0):
    """World → clip matrix of a camera at `eye` looking along +Y with +Z up (OpenGL conventions)."""
    view = np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, -1, 0, 0], [0, 0, 0, 1]], dtype=float)  # y→-z (forward)
    view[:3, 3] = -view[:3, :3] @ np.asarray(eye)
    f = 1.0 / np.tan(fov_y / 2)
    projection = np.array(
        [
            [f / (W / H), 0, 0, 0],
            [0, f, 0, 0],
            [0, 0, (far + near) / (near - far), 2 * far * near / (near - far)],
            [0, 0, -1, 0],
        ]
    )
    return projection @ view


def _orthographic(scale=2.0):
    view = np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, -1, 0, -5], [0, 0, 0, 1]], dtype=float)
    projection = np.diag([1 / (scale * W / H), 1 / scale, -0.02, 1.0])
    return projection @ view


@pytest.mark.parametrize("make", [_perspective, _orthographic])
def test_projection_and_ray_round_trip(make):
    m = make()
    points = np.array([[0.0, 0.0, 0.0], [0.5, 1.0, -0.3], [-1.0, 2.0, 0.4]])
    pixels, front = dragging.project(points, m, W, H)
    assert front.all()
    np.testing.assert_allclose(pixels[0], (W / 2, H / 2), atol=1e-9)  # straight ahead: the centre
    assert pixels[1, 0] > W / 2 and pixels[1, 1] < H / 2  # right and below
    for point, pixel in zip(points, pixels, strict=True):
        origin, direction = dragging.mouse_ray(m, W, H, pixel)
        assert np.linalg.norm(direction) == pytest.approx(1.0)
        along = (point - origin) @ direction
        np.testing.assert_allclose(origin + along * direction, point, atol=1e-6)  # the ray hits the point
    np.testing.assert_allclose(dragging.view_direction(m, W, H), (0, 1, 0), atol=1e-9)


def test_points_behind_the_viewer_are_never_picked():
    m = _perspective()
    behind = np.array([[0.0, -10.0, 0.0]])  # straight behind the eye
    assert not dragging.project(behind, m, W, H)[1][0]
    assert dragging.nearest_vertex(behind, m, W, H, (W / 2, H / 2), 1e9) == -1


def test_nearest_vertex_within_the_radius_and_the_front_one_wins():
    m = _perspective()
    points = np.array([[0.0, 0.0, 0.0], [0.3, 0.0, 0.0], [0.0, 3.0, 0.0]])  # [2] hides behind [0]
    pixels, _ = dragging.project(points, m, W, H)
    assert dragging.nearest_vertex(points, m, W, H, pixels[1] + (2, 1), 5.0) == 1
    assert dragging.nearest_vertex(points, m, W, H, (W / 2, H / 2), 5.0) == 0  # nearer the viewer
    assert dragging.nearest_vertex(points, m, W, H, (5.0, 5.0), 5.0) == -1  # too far from all
    assert dragging.nearest_vertex(np.empty((0, 3)), m, W, H, (0, 0), 5.0) == -1


def test_drag_target_stays_on_the_plane_facing_the_view():
    m = _perspective()
    anchor = np.array([0.2, 1.0, 0.1])
    target = dragging.drag_target(m, W, H, (150.0, 80.0), anchor)
    assert target is not None
    assert target[1] == pytest.approx(anchor[1])  # same depth: the plane faces the view (+Y)
    np.testing.assert_allclose(dragging.project(target, m, W, H)[0][0], (150.0, 80.0), atol=1e-6)
    at_anchor = dragging.drag_target(m, W, H, dragging.project(anchor, m, W, H)[0][0], anchor)
    np.testing.assert_allclose(at_anchor, anchor, atol=1e-9)


def test_ray_parallel_to_the_plane_has_no_hit():
    assert dragging.ray_plane((0, 0, 0), (1, 0, 0), (0, 0, 1), (0, 0, 1)) is None
    np.testing.assert_allclose(dragging.ray_plane((0, 0, 0), (0, 0, 1), (5, 5, 2), (0, 0, 1)), (0, 0, 2))
