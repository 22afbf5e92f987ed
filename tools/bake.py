"""Bake cloth in a .blend file with Blender-as-a-module (`pip install bpy`), no Blender binary.

    python tools/bake.py bake shot.blend [--objects A,B] [--frames START:END] [--scene S] [--output OUT.blend]

The arguments are those of `blender -b -c verlet_cloth ...`; this script loads the add-on from this
checkout (as the extension `bl_ext.vc_cli.verlet_cloth`, through a temporary extension repository)
and runs the same entry point, `services.cli.main`. Blender's user folder is a temporary one unless
BLENDER_USER_RESOURCES is set, so the user's preferences are never touched.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPO = "vc_cli"


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="vc_cli_") as scratch:
        os.environ.setdefault("BLENDER_USER_RESOURCES", os.path.join(scratch, "user"))
        # Ctrl+C or SIGTERM while Blender starts (seconds): noted, then obeyed once it has started. Raised there,
        # a KeyboardInterrupt landed in bpy's own import of NumPy, which printed it and went on: the bake ran
        # and replaced the file after all (or it escaped as a traceback).
        stopped: list[int] = []
        previous = {sig: signal.signal(sig, lambda signum, frame: stopped.append(signum)) for sig in _STOPS}
        try:
            import bpy

            import addon_utils

            repo_dir = Path(scratch) / "repo"
            repo_dir.mkdir()
            (repo_dir / "verlet_cloth").symlink_to(ROOT, target_is_directory=True)
            bpy.context.preferences.extensions.repos.new(
                name=REPO, module=REPO, custom_directory=str(repo_dir), source="USER"
            )
            module = f"bl_ext.{REPO}.verlet_cloth"
            addon_utils.enable(module, default_set=True, handle_error=_raise)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if stopped:
            print(
                "verlet_cloth: error: interrupted while Blender started; nothing was baked or written", file=sys.stderr
            )
            return 128 + stopped[0]
        return sys.modules[module + ".services.cli"].main(argv)


_STOPS = (signal.SIGINT, signal.SIGTERM)


def _raise(exc: BaseException) -> None:
    raise exc


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
