"""Which sharp edges get the edge pass every substep and which go on the mesh colliders' windows with the hold
(solver/edge_contacts.py): thin sides a cloth hangs on, a pointed rod's sides, a rigid mesh that travels as it turns."""

from __future__ import annotations

import math
import weakref

import numpy as np

from .mesh_collider import MIN_GAP
from .sharp_edges import SharpEdges
from .sharp_rules import COS_SHARP
from .triangles import dot
from .vectors import rows_among

# A thin sharp edge within this of gravity's line (a standing pole, a table's round leg) carries no
# hanging cloth: it is collided on the windows, with the hold (see collide_cloth_edges).
UPRIGHT_ANGLE = 30.0
_COS_UPRIGHT = math.cos(math.radians(UPRIGHT_ANGLE))
# TIPPED_RODS (a rule, folded in round 24):
# A still collider with a sharp tip (a pointed rod, a spike) gets the pass every substep on its standing thin edges
# that end at no sharp tip too (a rod's sides below its point): a cloth hanging from the tip is drawn in
# round the rod below it, and with the windows and the hold 3 cm cloth edges ended through a 1 cm rod's sides
# (docs/design.md, round 12 (needle15)). From the run's start: switched on when a tip first held the cloth, edges
# already through stayed through (kept on their side) and the rod ended through the cloth's whole skirt. Of the
# edges that reach the point, only those sharp by curvature alone (a cone's sides, bending under SHARP_ANGLE:
# they held an irregular 64² cloth the cone r 5 cm skewered): with a 2 cm pyramid's edges (90°) a triangulated
# 64² cloth was flung up off its apex.
# AFTER_CORNERS (a rule, folded in round 24):
# ... and that pass again after the corner pass: the tip's support propagation (contact_support.py) moves cloth
# 0.6-0.7 m from the tip after the edge pass, and carried skirt edges through a 1 cm rod's foot, where the next
# pass kept them (docs/design.md, round 13 (needle16)).
# ROD_ENDS_TIPPED (a rule, folded in round 24):
# A thin rod's upper ends (corner_contacts.ROD_ENDS: sharp tips too) switch that pass on for its sides as well. Off in
# round 14 (posts17: a fan disc on a 1 cm post and a 64² cloth on a 2 cm one were flung up); the flings were the support
# propagation's (contact_support.HANGING_ONLY), and without the pass cloth lying round a post's foot ended pierced by
# it (1 cm 8-segment post, quad / triangulated 64²: 14-64 crossings to the end at 3 of 4 placements; with it 0 at every
# frame; docs/design.md, round 15 (fling18)).

# A rigid mesh that turns while its centre travels more than TURN_TRAVEL gaps a substep gets the edge pass every
# substep (`_turning`): with windows a box tumbling at 6 m/s hooked a curtain; turning about a still centre (a
# turntable, a box spinning in place) it keeps the windows, which hold there (docs/design.md, round 13 (turn16)).
TURN_TRAVEL = 0.5

_LAST_UP: list = [None, None]  # (gravity, the unit vector against it) last asked for by a tuple (immutable)


def up_of_gravity(gravity):
    """The unit vector (3,) against `gravity`, None without gravity (or without one given)."""
    if gravity is None:
        return None
    if _LAST_UP[0] is gravity:
        return _LAST_UP[1]
    down = np.asarray(gravity, dtype=np.float64)
    length = float(np.sqrt(down @ down))
    up = -down / length if length > 0.0 else None
    if isinstance(gravity, tuple):
        _LAST_UP[:] = gravity, up
    return up


def _split(sharp: SharpEdges, pose, gravity, below=None):
    """`sharp.parts` of its `_hanging` edges (and `below`'s, `_below_a_tip`: the same for a mesh's SharpEdges),
    kept on `sharp` while the pose and gravity (a tuple: immutable) are the same objects (a still mesh's every
    substep: its pose is None)."""
    kept = sharp._split
    if kept is not None and kept[0] is pose and kept[1] is gravity:
        return kept[2]
    hanging = _hanging(sharp, pose, gravity)
    found = sharp.parts(hanging if below is None else hanging | below)
    if gravity is None or isinstance(gravity, tuple):
        sharp._split = (pose, gravity, found)
    return found


def _hanging(sharp: SharpEdges, pose, gravity) -> np.ndarray:
    """Which sharp edges are thin (`SharpEdges.thin`) and further than UPRIGHT_ANGLE from `gravity`'s
    line at the collider's pose (rotation, origin) or None: a cloth can hang on them."""
    if gravity is None or not sharp.thin.any():
        return sharp.thin
    down = np.asarray(gravity, dtype=np.float64)
    length = float(np.sqrt(down @ down))
    if not length > 0.0:
        return sharp.thin
    along = sharp.along if pose is None else pose[0] @ sharp.along  # (own frame to world)
    return sharp.thin & (np.abs(down @ along) < _COS_UPRIGHT * length)


def _turning(collider, thickness: float, substep: float) -> bool:
    """Whether a rigid mesh turns this frame while its centre travels more than TURN_TRAVEL gaps in a substep
    (`substep`: its share of the frame): its edge pass then runs every substep. With windows, a box tumbling
    through a curtain at 6 m/s hooked cloth edges over its leading corner for good (664% stretch at 16 substeps;
    docs/design.md, round 12 (tumble15)); a turntable's windows (its centre still) hold, at 22% less cost."""
    return travelling(collider, thickness, substep) and not np.array_equal(collider.pose_start[0], collider.pose[0])


def travelling(collider, thickness: float, substep: float) -> bool:
    """Whether a rigid mesh's centre travels more than TURN_TRAVEL gaps in a substep (`substep`: its share of the
    frame), turning or not (solver/step.py EDGES_AFTER_MOVING_VERTICES)."""
    first, last = collider.pose_start, collider.pose
    if first is last or first is None:
        return False
    centre = _centre(collider.mesh)
    travel = (last[0] @ centre + last[1]) - (first[0] @ centre + first[1])
    gap = max(float(thickness) + collider.offset, MIN_GAP)
    return float(np.sqrt(travel @ travel)) * substep > TURN_TRAVEL * gap


_CENTRES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # TriangleMesh -> its bounding box's centre


def _centre(mesh) -> np.ndarray:
    """The centre (3,) of a mesh's bounding box, in its own frame."""
    found = _CENTRES.get(mesh)
    if found is None:
        vertices = np.asarray(mesh.vertices, dtype=np.float64).reshape(-1, 3)
        found = _CENTRES[mesh] = 0.5 * (vertices.min(axis=0) + vertices.max(axis=0)) if len(vertices) else np.zeros(3)
    return found


_BELOW_A_TIP: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # SharpEdges -> (its corners, its mask or None)


def _below_a_tip(collider, sharp: SharpEdges, up=None) -> np.ndarray | None:
    """Of a still mesh's sharp edges, the thin ones that end at none of its sharp tips or bend less than SHARP_ANGLE,
    when it has a sharp tip (a pointed rod's sides, a cone's; not a pyramid's edges), else None (see TIPPED_RODS).
    up (3,): against gravity, world (a thin rod's upper ends count as tips here, corner_contacts.ROD_ENDS)."""
    from .corner_contacts import _corners_of_collider

    rods = None
    if up is not None and not collider.deforming and sharp.thin.any():
        pose = collider._pose_at(1.0)
        rods = (sharp, up if pose is None else pose[0].T @ up, sharp.radius)
    corners = _corners_of_collider(collider, rods)
    found = _BELOW_A_TIP.get(sharp)
    if found is None or found[0] is not corners:
        mask = None
        apexes = corners.tips & ~corners.ends
        if not collider.deforming and (apexes.any() or corners.ends.any()):
            tips = corners.points.T[apexes]
            at_tip = rows_among(sharp.a.T, tips) | rows_among(sharp.b.T, tips)
            curved = dot(sharp.into, sharp.into_other) <= -COS_SHARP  # (sharp by curvature only: a cone's sides)
            mask = sharp.thin & (~at_tip | curved)
        found = _BELOW_A_TIP[sharp] = (corners, mask if mask is not None and mask.any() else None)
    return found[1]
