"""The chord pass and a curtain a ball appears round (issue 11, round 25 (chord25)), solver only.

    .venv/bin/python bench/chord_inside_swings.py [--variants off,on] [--shifts 0,-0.001,-0.0005,0.0005,0.001]
        [--kinds irregular] [--set module.FLAG=value ...]

tests/test_mesh_collider_inside.py's `test_cloth_inside_a_still_ball_comes_out_wherever_it_appears`: the spherified
cube (r 0.2) appears round the hanging curtain's middle, its centre at the test's 9 placements (5-21 mm off the
curtain's plane) each moved by `shift` (m); 8 frames. Per line: the median over the 9 placements of the curtain's
|y| at frame 8 (the test asks < 0.3 m), then the 9 swings. Variants: off (chord_contacts.CHORD_PASS False), on (True);
`--set` applies to both. The shifts say whether a median is the pass's or the swing's chaos (the curtain is caught
through the ball, and how it swings off it is a coin toss per placement: the test's docstring).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))
sys.path.insert(2, str(ROOT / "tests"))
import measure  # noqa: E402
import test_mesh_collider_inside as inside_tests  # noqa: E402

from solver import chord_contacts  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", default="off,on")
    parser.add_argument("--shifts", default="0,-0.001,-0.0005,0.0005,0.001")
    parser.add_argument("--kinds", default="irregular")
    parser.add_argument("--set", action="append", default=[])
    args = parser.parse_args()
    measure.set_flags(args.set)
    for kind in args.kinds.split(","):
        for shift in (float(s) for s in args.shifts.split(",")):
            for variant in args.variants.split(","):
                chord_contacts.CHORD_PASS = variant == "on"
                swings = []
                for y in inside_tests.BALL_PLACEMENTS:
                    ball = inside_tests.closed_ball(centre=(0.0, y + shift, 0.95))
                    inside, x = inside_tests.around_curtain_rigid(ball, "appears", kind)
                    assert inside == [0] * len(inside), (y, inside)
                    swings.append(float(np.abs(x[:, 1]).max()))
                print(
                    f"{kind:10s} shift {1000 * shift:+5.1f} mm {variant:3s} median {np.median(swings):.3f}  "
                    + " ".join(f"{s:.2f}" for s in swings),
                    flush=True,
                )


if __name__ == "__main__":
    main()
