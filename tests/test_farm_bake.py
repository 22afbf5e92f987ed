"""Farm bakes that cannot lose a shot: the command line writes a checked file beside the target and
renames it over the target, refuses an unwritable or full output folder before baking, and leaves
no temporary folders behind. Full disks are tiny tmpfs mounts (root only; skipped otherwise)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ADDON_MODULE, ROOT
from vc_helpers import fail_key_writing, grid_object


@pytest.fixture
def cli(blender):
    return sys.modules[ADDON_MODULE + ".services.cli"]


@pytest.fixture
def blend_file(blender):
    return sys.modules[ADDON_MODULE + ".services.blend_file"]


def _shot(bpy, path: Path, compress: bool = False) -> Path:
    cloth = grid_object(bpy, "Cloth", n=8, size=1.0, height=1.0)
    cloth.verlet_cloth.enabled = True
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 12
    bpy.ops.wm.save_as_mainfile(filepath=str(path), check_existing=False, compress=compress)
    return path


@pytest.fixture
def mount(tmp_path):
    """mount(options) -> a fresh tmpfs folder mounted with those options (unmounted afterwards)."""
    mounted: list[Path] = []

    def make(options: str) -> Path:
        if os.geteuid() != 0 or shutil.which("mount") is None:
            pytest.skip("tiny disks need root and mount")
        folder = tmp_path / f"disk{len(mounted)}"
        folder.mkdir()
        result = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], check=False, capture_output=True
        )
        if result.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {result.stderr.decode().strip()}")
        mounted.append(folder)
        return folder

    yield make
    for folder in mounted:
        subprocess.run(["umount", "-l", str(folder)], check=False)


@pytest.mark.parametrize("compress", [False, True])
def test_a_truncated_blend_is_recognised(blender, blend_file, tmp_path, compress):
    path = _shot(blender, tmp_path / "whole.blend", compress=compress)
    assert blend_file.problem(str(path)) is None
    data = path.read_bytes()
    cut = tmp_path / "cut.blend"
    for size in (0, 5, 12, 40, len(data) // 3, len(data) - 100, len(data) - 1):
        cut.write_bytes(data[:size])
        assert blend_file.problem(str(cut)) is not None, size


@pytest.mark.parametrize("compress", [False, True])
def test_full_disk_in_place_bake_fails_and_leaves_the_input_untouched(
    cli, blender, mount, monkeypatch, capsys, compress
):
    """A compressed save returns FINISHED on a full disk with a truncated file; the bake must fail
    and leave the input as it was."""
    source = _shot(blender, Path(mount("size=4m")) / "source.blend", compress=compress)
    disk = mount(f"size={os.path.getsize(source) + 32 * 1024}")  # room for the input, not for a second copy
    shot = disk / "shot.blend"
    shutil.copy(source, shot)
    before = shot.read_bytes()
    monkeypatch.setattr(cli, "check_room", lambda folder, needed: None)  # reach the save itself
    assert cli.main(["bake", str(shot)]) == 1
    assert shot.read_bytes() == before
    assert sorted(p.name for p in disk.iterdir()) == ["shot.blend"]  # no temporary or backup file left
    err = capsys.readouterr().err
    assert "cannot save" in err and "untouched" in err, err


def test_a_full_output_disk_is_refused_before_baking(cli, blender, mount, tmp_path, capsys):
    shot = _shot(blender, tmp_path / "shot.blend")
    disk = mount("size=64k")
    assert cli.main(["bake", str(shot), "--output", str(disk / "out.blend")]) == 1
    captured = capsys.readouterr()
    assert "not enough free space" in captured.err and "baking" not in captured.out
    assert not list(disk.iterdir())


def test_an_unwritable_output_folder_is_refused_before_baking(cli, blender, mount, tmp_path, capsys):
    shot = _shot(blender, tmp_path / "shot.blend")
    read_only = mount("ro,size=64k")
    assert cli.main(["bake", str(shot), "--output", str(read_only / "out.blend")]) == 1
    captured = capsys.readouterr()
    assert "cannot write in the output folder" in captured.err and "opening" not in captured.out


def test_output_that_is_a_folder_is_refused(cli, blender, tmp_path, capsys):
    shot = _shot(blender, tmp_path / "shot.blend")
    assert cli.main(["bake", str(shot), "--output", str(tmp_path)]) == 1
    assert "--output is a folder" in capsys.readouterr().err


def test_in_place_bake_keeps_blenders_save_versions(cli, blender, tmp_path, capsys, monkeypatch):
    shot = _shot(blender, tmp_path / "shot.blend")
    before = shot.read_bytes()
    monkeypatch.setattr(blender.context.preferences.filepaths, "save_version", 2)  # restored afterwards
    assert cli.main(["bake", str(shot)]) == 0, capsys.readouterr().err
    assert (tmp_path / "shot.blend1").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shot.blend", "shot.blend1"]
    assert cli.main(["bake", str(shot)]) == 0
    assert (tmp_path / "shot.blend2").read_bytes() == before
    blender.ops.wm.open_mainfile(filepath=str(shot))
    assert blender.data.objects["Cloth"].verlet_cloth.baked


@pytest.mark.blender
def test_the_wrapper_leaves_no_temporary_folders(tmp_path):
    """tools/bake.py in a fresh interpreter: its temporary user and repository folders go away."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "BLENDER_USER_RESOURCES"}
    env["TMPDIR"] = str(temp)
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "bake.py"), "bake", str(tmp_path / "missing.blend")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=300,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "file not found" in result.stderr
    assert not [p.name for p in temp.iterdir() if p.name.startswith("vc_")]


def test_a_cloth_that_cannot_bake_is_refused_before_any_is_baked(cli, blender, tmp_path, capsys):
    """A linked duplicate (Alt+D) listed after a good cloth: the bake stops before baking anything
    (it baked the good cloth first, then failed on the copy and saved nothing)."""
    good = grid_object(blender, "Good", n=8, size=1.0, height=1.0)
    good.verlet_cloth.enabled = True
    first = grid_object(blender, "Twin", n=8, size=1.0, height=1.0)
    first.verlet_cloth.enabled = True
    second = blender.data.objects.new("Twin.copy", first.data)  # Alt+D: one mesh, two objects
    blender.context.scene.collection.objects.link(second)
    blender.context.scene.frame_start, blender.context.scene.frame_end = 1, 12
    shot = tmp_path / "shot.blend"
    blender.ops.wm.save_as_mainfile(filepath=str(shot), check_existing=False)
    output = tmp_path / "out.blend"
    assert cli.main(["bake", str(shot), "--objects", "Good,Twin", "--output", str(output)]) == 1
    captured = capsys.readouterr()
    assert "Twin: " in captured.err and "Make Single User" in captured.err, captured.err
    assert "baking Good" not in captured.out, captured.out
    assert not output.exists()


def test_a_rebake_of_a_baked_file_failing_while_writing_keys_leaves_the_file_and_its_bake(
    cli, blender, tmp_path, monkeypatch, capsys
):
    """The farm bake of a file baked before, failing while writing the new keys: exit 1, the file on disk byte for
    byte as it was, nothing beside it, and the opened file still holds the earlier bake (the re-bake writes its
    keys beside the earlier ones and removes those only once the new ones are complete)."""
    shot = _shot(blender, tmp_path / "shot.blend")
    assert cli.main(["bake", str(shot), "--frames", "1:6"]) == 0
    before = shot.read_bytes()
    fail_key_writing(
        monkeypatch, sys.modules[ADDON_MODULE + ".services.geometry"], 5, MemoryError("out of memory, say")
    )
    capsys.readouterr()
    assert cli.main(["bake", str(shot)]) == 1
    assert shot.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shot.blend", "shot.blend1"]  # (the first bake's backup)
    cloth = blender.data.objects["Cloth"]
    assert [k.name for k in cloth.verlet_cloth.bake_keys] == [f"VerletCloth {f:04d}" for f in range(1, 7)]
    assert [b.name for b in cloth.data.shape_keys.key_blocks][1:] == [f"VerletCloth {f:04d}" for f in range(1, 7)]
    err = capsys.readouterr().err
    assert "baking Cloth failed: out of memory" in err, err


def test_a_read_only_output_file_is_refused_before_baking_and_left_as_it_was(cli, blender, tmp_path, capsys):
    """Blender will not save over a read-only file; a temporary file renamed over it replaced it anyway."""
    shot = _shot(blender, tmp_path / "shot.blend")
    before = shot.read_bytes()
    shot.chmod(0o444)
    assert cli.main(["bake", str(shot)]) == 1
    captured = capsys.readouterr()
    assert "read-only" in captured.err and "opening" not in captured.out
    assert shot.read_bytes() == before and (shot.stat().st_mode & 0o777) == 0o444
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shot.blend"]


def test_a_baked_file_keeps_the_permissions_of_the_file_it_replaces(cli, blender, tmp_path, capsys):
    """A group-writable shot on a shared folder stays group-writable (the new file had the default 0644)."""
    shot = _shot(blender, tmp_path / "shot.blend")
    out = tmp_path / "out.blend"
    out.write_bytes(b"an older bake")
    for path in (shot, out):
        path.chmod(0o664)
    old_umask = os.umask(0o022)
    try:
        assert cli.main(["bake", str(shot)]) == 0, capsys.readouterr().err
        assert cli.main(["bake", str(shot), "--output", str(out)]) == 0, capsys.readouterr().err
    finally:
        os.umask(old_umask)
    assert (shot.stat().st_mode & 0o777) == 0o664 and (out.stat().st_mode & 0o777) == 0o664
    blender.ops.wm.open_mainfile(filepath=str(out))
    assert blender.data.objects["Cloth"].verlet_cloth.baked


_CANCEL_WHILE_SAVING = """
import os, signal, sys
sys.path.insert(0, {tools!r})
import bpy  # noqa: F401 - before addon_utils, as the wrapper does
import addon_utils
import bake as wrapper

enable = addon_utils.enable


def enable_and_cancel_while_saving(module, **options):
    result = enable(module, **options)
    blend_file = sys.modules[module + ".services.blend_file"]
    check = blend_file.problem

    def problem(path):  # Blender has just written the temporary file: the farm manager cancels the job
        os.kill(os.getpid(), signal.SIGTERM)
        return check(path)

    blend_file.problem = problem
    return result


addon_utils.enable = enable_and_cancel_while_saving
raise SystemExit(wrapper.main(["bake", {shot!r}]))
"""


@pytest.mark.blender
def test_a_job_cancelled_while_the_baked_file_is_written_leaves_no_temporary_file(blender, tmp_path):
    """SIGTERM (a farm manager cancelling the job) while Blender wrote the baked file killed the process there:
    the hidden temporary file, the shot's size, stayed beside the shot. Now the job stops as on Ctrl+C."""
    folder = tmp_path / "shots"
    folder.mkdir()
    shot = _shot(blender, folder / "shot.blend")
    before = shot.read_bytes()
    script = _CANCEL_WHILE_SAVING.format(tools=str(ROOT / "tools"), shot=str(shot))
    env = dict(os.environ, BLENDER_USER_RESOURCES=str(tmp_path / "user"))
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False, timeout=300
    )
    assert result.returncode == 128 + 15, result.stdout + result.stderr
    assert "terminated" in result.stderr and "untouched" in result.stderr, result.stderr
    assert shot.read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == ["shot.blend"]
