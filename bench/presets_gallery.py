"""Render each bundled material preset draped over a sphere, side by side, for the README.

    .venv/bin/python bench/presets_gallery.py [--out docs/presets.png] [--n 40] [--frames 60]

Loads this checkout as an extension in headless Blender, and for each preset (cotton, silk, denim,
leather, rubber) builds the drape scene of `make demo`, applies the preset through Blender's
preset operator, bakes with `services.baking.bake_object`, renders the last frame with Workbench,
and joins the stills into one labelled image. Needs issue 3's properties and baking.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
SCRATCH = tempfile.TemporaryDirectory(prefix="vc_gallery_")  # removed when the script ends
os.environ.setdefault("BLENDER_USER_RESOURCES", os.path.join(SCRATCH.name, "user"))

import bpy  # noqa: E402
import scenes  # noqa: E402

MODULE = "bl_ext.vc_gallery.verlet_cloth"


def render_preset(preset: Path, still: Path, n: int, frames: int) -> None:
    baking = sys.modules[MODULE + ".services.baking"]
    cloth, ball, ground = scenes.drape_scene(n, frames)
    ball.verlet_cloth_collider.kind = "SPHERE"
    ground.verlet_cloth_collider.kind = "PLANE"
    bpy.context.view_layer.objects.active = cloth
    cloth.verlet_cloth.enabled = True
    result = bpy.ops.script.execute_preset(filepath=str(preset), menu_idname="VERLET_CLOTH_MT_presets")
    assert result == {"FINISHED"}, result
    scene = bpy.context.scene
    baking.bake_object(scene, cloth, 1, frames)
    scene.frame_set(frames)
    scenes.stage_for_docs(cloth, ball, ground, str(still), resolution=(480, 400))
    bpy.ops.render.render(write_still=True)


def join(stills: list[tuple[str, Path]], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(stills), figsize=(2.6 * len(stills), 3.0), dpi=120)
    for ax, (name, path) in zip(axes, stills):
        image = mpimg.imread(path)
        h, w = image.shape[:2]
        ax.imshow(image[int(0.06 * h) : int(0.96 * h), int(0.08 * w) : int(0.92 * w)])  # the cloth, not the floor
        ax.set_title(name, fontsize=13)
        ax.axis("off")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    print(f"wrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "presets.png")
    parser.add_argument("--n", type=int, default=40, help="grid resolution of each cloth")
    parser.add_argument("--frames", type=int, default=60)
    args = parser.parse_args()
    assert scenes.enable_checkout("vc_gallery") == MODULE
    preset_menu = sys.modules[MODULE + ".ui.preset_menu"]
    work = Path(tempfile.mkdtemp(prefix="vc_gallery_", dir=SCRATCH.name))
    stills = []
    order = ["silk", "cotton", "denim", "leather", "rubber"]
    for preset in map(Path, preset_menu.bundled_presets()):
        if preset.stem not in order:  # pillow: a closed mesh's preset, shown in docs/pressure.png
            continue
        still = work / f"{order.index(preset.stem)}_{preset.stem}.png"
        print(f"{preset.stem} ...", flush=True)
        render_preset(preset, still, args.n, args.frames)
        stills.append((preset.stem, still))
    join(sorted(stills, key=lambda item: item[1].name), args.out)


if __name__ == "__main__":
    main()
