"""The checkout loads as an installed extension in real headless Blender."""

import sys


def test_extension_enables_and_registers(blender):
    from conftest import ADDON_MODULE

    import addon_utils

    assert ADDON_MODULE in sys.modules
    loaded, enabled = addon_utils.check(ADDON_MODULE)
    assert loaded and enabled


def test_enable_disable_enable_leaves_no_handler(blender):
    from conftest import ADDON_MODULE

    import addon_utils

    before = {len(h) for h in (blender.app.handlers.frame_change_post, blender.app.handlers.load_post)}
    addon_utils.disable(ADDON_MODULE, default_set=True)
    addon_utils.enable(ADDON_MODULE, default_set=True)
    addon_utils.disable(ADDON_MODULE, default_set=True)
    assert not any("verlet" in getattr(h, "__module__", "") for h in blender.app.handlers.frame_change_post)
    addon_utils.enable(ADDON_MODULE, default_set=True)
    after = {len(h) for h in (blender.app.handlers.frame_change_post, blender.app.handlers.load_post)}
    assert after == before
