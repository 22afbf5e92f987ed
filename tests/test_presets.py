"""The bundled material presets run through Blender's preset system and set the cloth settings."""

import math
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRESET_DIR = ROOT / "ui" / "presets" / "verlet_cloth"
MATERIALS = ("cotton", "silk", "denim", "leather", "rubber")
NAMES = (*MATERIALS, "pillow")  # pillow: a material with air inside (pressure)
PROPERTIES = (
    "mass_mode",
    "limit_stretch",
    "density",
    "stretch_stiffness",
    "shear_stiffness",
    "bend_stiffness",
    "damping",
    "friction",
    "thickness",
)


def _expected(name: str) -> dict:
    """The assignments `cloth.<prop> = <value>` a preset file makes, read without Blender."""
    values = {}
    for line in (PRESET_DIR / f"{name}.py").read_text().splitlines():
        if line.startswith("cloth.") and " = " in line:
            prop, value = line.removeprefix("cloth.").split(" = ")
            values[prop] = eval(value)
    return values


@pytest.mark.parametrize("name", NAMES)
def test_preset_sets_every_material_property(name):
    values = _expected(name)
    extra = {"pillow": {"auto_substeps", "substeps", "use_pressure", "pressure"}}.get(name, set())
    assert set(values) == set(PROPERTIES) | extra
    assert values["mass_mode"] == "DENSITY"
    assert all(values[p] > 0 for p in PROPERTIES if p not in {"mass_mode", "limit_stretch"})
    assert values["limit_stretch"] == (name != "rubber")  # only rubber's stretch comes from its stiffness
    assert 0 <= values["damping"] <= 1


def test_presets_are_physically_ordered():
    v = {name: _expected(name) for name in MATERIALS}
    # Areal densities, kg/m²: silk < cotton < denim < leather < rubber.
    assert [v[n]["density"] for n in ("silk", "cotton", "denim", "leather", "rubber")] == sorted(
        v[n]["density"] for n in MATERIALS
    )
    assert math.isclose(v["cotton"]["density"], 0.15) and math.isclose(v["silk"]["density"], 0.06)
    # Woven fabrics and leather are effectively inextensible; rubber stretches.
    assert min(v[n]["stretch_stiffness"] for n in ("silk", "cotton", "denim", "leather")) >= 5e3
    assert 50 <= v["rubber"]["stretch_stiffness"] <= 200
    # Leather is the stiffest in bending, silk the softest, relative to weight.
    bend_per_weight = {n: v[n]["bend_stiffness"] / v[n]["density"] for n in MATERIALS}
    assert max(bend_per_weight, key=bend_per_weight.get) == "leather"
    assert min(bend_per_weight, key=bend_per_weight.get) == "silk"


def test_the_pillow_preset_inflates_a_closed_mesh_firmly_against_gravity():
    pillow = _expected("pillow")
    assert pillow["use_pressure"] is True
    weight = pillow["density"] * 9.81  # Pa: what the top of the pillow weighs per area
    assert 3 * weight < pillow["pressure"] < 20 * weight


def _cloth_object(bpy):
    mesh = bpy.data.meshes.new("Cloth")
    mesh.from_pydata([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)], [], [(0, 1, 2, 3)])
    obj = bpy.data.objects.new("Cloth", mesh)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    return obj


def test_bundled_presets_are_on_blenders_preset_path(blender):
    import sys

    from conftest import ADDON_MODULE

    preset_menu = sys.modules[ADDON_MODULE + ".ui.preset_menu"]
    assert preset_menu.BUNDLED_DIR in blender.utils.preset_paths("verlet_cloth")
    assert [Path(p).stem for p in preset_menu.bundled_presets()] == sorted(NAMES)
    assert hasattr(blender.types, "VERLET_CLOTH_MT_presets")
    assert blender.ops.verlet_cloth.preset_add.idname() == "VERLET_CLOTH_OT_preset_add"


@pytest.mark.parametrize("name", NAMES)
def test_preset_executes_against_an_object(blender, name):
    import sys

    from conftest import ADDON_MODULE

    preset_menu = sys.modules[ADDON_MODULE + ".ui.preset_menu"]
    obj = _cloth_object(blender)
    path = Path(preset_menu.BUNDLED_DIR) / f"{name}.py"
    result = blender.ops.script.execute_preset(filepath=str(path), menu_idname="VERLET_CLOTH_MT_presets")
    assert result == {"FINISHED"}
    settings = obj.verlet_cloth
    for prop, value in _expected(name).items():
        if isinstance(value, str):
            assert getattr(settings, prop) == value, prop
        else:  # float properties hold single precision
            assert math.isclose(getattr(settings, prop), value, rel_tol=1e-6), (prop, getattr(settings, prop))


def test_user_preset_is_added_to_the_user_folder_and_removed(blender, tmp_path):
    import os

    obj = _cloth_object(blender)
    obj.verlet_cloth.density = 0.42
    assert blender.ops.verlet_cloth.preset_add(name="My Wool") == {"FINISHED"}
    user_dir = blender.utils.user_resource("SCRIPTS", path=os.path.join("presets", "verlet_cloth"))
    written = Path(user_dir) / "My_Wool.py"
    assert written.is_file()
    assert "cloth.density = 0.4199" in written.read_text()  # float32
    obj.verlet_cloth.density = 1.0
    blender.ops.script.execute_preset(filepath=str(written), menu_idname="VERLET_CLOTH_MT_presets")
    assert math.isclose(obj.verlet_cloth.density, 0.42, rel_tol=1e-6)
    assert blender.ops.verlet_cloth.preset_add(name="My_Wool", remove_name=True) == {"FINISHED"}
    assert not written.exists()


def test_bundled_presets_cannot_be_removed(blender):
    import sys

    from conftest import ADDON_MODULE

    preset_menu = sys.modules[ADDON_MODULE + ".ui.preset_menu"]
    _cloth_object(blender)
    assert blender.ops.verlet_cloth.preset_add(name="cotton", remove_name=True) == {"CANCELLED"}
    assert (Path(preset_menu.BUNDLED_DIR) / "cotton.py").is_file()


def test_the_settings_panel_shows_the_presets(blender):
    import sys
    import types

    from conftest import ADDON_MODULE

    preset_menu = sys.modules[ADDON_MODULE + ".ui.preset_menu"]
    if not hasattr(blender.types, preset_menu.SETTINGS_PANEL):
        assert not hasattr(blender.types, "VIEW3D_PT_verlet_cloth_presets")
        pytest.skip("the cloth Settings panel (issue 3) is not merged yet")
    panel = blender.types.VIEW3D_PT_verlet_cloth_presets
    assert panel.bl_parent_id == preset_menu.SETTINGS_PANEL

    drawn = []

    class Layout:
        def row(self, **_kwargs):
            return self

        def menu(self, name, **_kwargs):
            drawn.append(name)

        def operator(self, idname, **_kwargs):
            drawn.append(idname)
            return types.SimpleNamespace()

    obj = _cloth_object(blender)
    context = types.SimpleNamespace(object=obj)
    assert panel.poll(context)
    preset_menu.VIEW3D_PT_verlet_cloth_presets.draw(types.SimpleNamespace(layout=Layout()), context)
    assert drawn == ["VERLET_CLOTH_MT_presets", "verlet_cloth.preset_add", "verlet_cloth.preset_add"]
