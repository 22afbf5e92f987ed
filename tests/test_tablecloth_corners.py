"""A tablecloth's edges at the table's top corners stay near their rest length (issue 11, round 14 (corner17))."""

import numpy as np
import pytest
from solver_scenes import tablecloth, tablecloth_corner_strains


@pytest.mark.parametrize("kind", ["quad", "triangulated"])
def test_a_tablecloths_corners_hang_near_their_rest_length(kind):
    """A 1.8 m 48² cloth dropped 22 cm onto the table: over the last 12 of 48 frames the worst structural edge
    within 15 cm (across) of the top's corners stays under 25 % strain on average (before round 14: 43-44 %, the
    sweep and the corner pass undoing each other every substep; docs/design.md), and no vertex ends a frame
    inside the table."""
    worst, deepest = tablecloth_corner_strains(*tablecloth(kind))
    assert deepest < 0.0, deepest
    assert np.mean(worst) < 0.25, worst
