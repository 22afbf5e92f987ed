"""Command-line baking for render farms.

With a Blender binary (the add-on registers the command when it is enabled)::

    blender -b -c verlet_cloth bake shot.blend [--objects A,B] [--frames START:END] [--output OUT.blend]

With Blender-as-a-module (`pip install bpy`), the same entry point from Python::

    from bl_ext.user_default.verlet_cloth.services import cli
    raise SystemExit(cli.main(["bake", "shot.blend", "--frames", "1:120"]))

`main` opens the file, bakes the named cloth objects (by default every object with Verlet Cloth
enabled in the scene), saves to `--output` or over the file, prints progress, and returns 0, or
1 with a message on stderr when something is wrong. It checks everything it can (file, frame
range, objects, that the output folder is writable and has room) before it bakes anything, so a
farm job fails fast. The output is written beside the target, checked to be whole, and only then
renamed over it (services/blend_file.py): a full disk or a crash never leaves a truncated file,
and the input survives any failure.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from ..solver.settings import MAX_FRAME, MIN_FRAME
from . import blend_file

COMMAND = "verlet_cloth"
PROG = f"blender -b -c {COMMAND}"

# Handle from bpy.utils.register_cli_command while the add-on is enabled.
_handle: Any = None


class CliError(Exception):
    """A problem with the command line or the file; the message is shown to the user."""


class Terminated(BaseException):  # noqa: N818 - a stop request, like KeyboardInterrupt, not an error
    """SIGTERM arrived (a farm manager cancelling the job): stop like Ctrl+C, through every cleanup."""


_terminated = False  # SIGTERM arrived: Blender swallows the exception when it lands in a handler it runs


def _terminate(signum: int, frame: Any) -> None:
    global _terminated  # noqa: PLW0603 - one flag per process, set by the signal
    _terminated = True
    raise Terminated


@contextlib.contextmanager
def _stop_on_terminate() -> Iterator[None]:
    """SIGTERM raises Terminated while the bake runs, instead of killing the process where it stands: a job
    cancelled while Blender wrote the baked file left that temporary file (hidden, the shot's size) behind."""
    global _terminated  # noqa: PLW0603
    _terminated = False
    try:
        previous = signal.signal(signal.SIGTERM, _terminate)
    except (ValueError, OSError, AttributeError):  # not the main thread, or no SIGTERM on this system
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse would exit the whole process
        raise CliError(f"{message}\n{self.format_usage().strip()}")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Verlet Cloth command-line tools.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    bake = commands.add_parser(
        "bake",
        help="bake cloth objects of a .blend file and save it",
        description="Open FILE, bake its cloth objects and save it (in place unless --output is given).",
    )
    bake.add_argument("file", metavar="FILE", help="the .blend file to bake")
    bake.add_argument(
        "--objects", metavar="A,B", help="comma-separated object names (default: every object with Verlet Cloth on)"
    )
    bake.add_argument(
        "--frames",
        metavar="START:END",
        help="frame range, both included (default: each object's range, or the scene's); negative: --frames=-10:20",
    )
    bake.add_argument("--scene", metavar="NAME", help="scene to bake in (default: the file's active scene)")
    bake.add_argument("--output", metavar="OUT.blend", help="save here instead of over FILE")
    return parser


def parse_frames(text: str) -> tuple[int, int]:
    """ "START:END" → (start, end), with start <= end."""
    parts = text.split(":")
    if len(parts) != 2:
        raise CliError(f"bad frame range {text!r}: expected START:END, for example 1:250")
    try:
        start, end = int(parts[0]), int(parts[1])
    except ValueError:
        raise CliError(f"bad frame range {text!r}: START and END must be whole frame numbers") from None
    if start > end:
        raise CliError(f"bad frame range {text!r}: START ({start}) is after END ({end})")
    if start < MIN_FRAME or end > MAX_FRAME:
        raise CliError(f"bad frame range {text!r}: Blender shows frames {MIN_FRAME} to {MAX_FRAME} only")
    return start, end


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Parse and check the arguments that need no file; raise CliError on a problem."""
    args = _parser().parse_args(list(argv))
    args.frame_range = parse_frames(args.frames) if args.frames is not None else None
    args.object_names = None
    if args.objects is not None:
        args.object_names = [name.strip() for name in args.objects.split(",") if name.strip()]
        if not args.object_names:
            raise CliError("--objects is empty: give object names separated by commas")
    args.file = os.path.abspath(os.path.expanduser(args.file))
    if not os.path.isfile(args.file):
        raise CliError(f"file not found: {args.file}")
    args.output = os.path.abspath(os.path.expanduser(args.output)) if args.output else args.file
    if os.path.isdir(args.output):
        raise CliError(f"--output is a folder: {args.output}; give a file name such as {args.output}/baked.blend")
    try:
        blend_file.check_writable(os.path.dirname(args.output))
        blend_file.check_replaceable(args.output)
    except blend_file.SaveError as exc:
        raise CliError(str(exc)) from None
    return args


# A baked frame costs about 12.2 bytes per vertex in an uncompressed .blend (measured, see
# docs/farm-and-ci.md): the output needs the input's size plus that, with a margin.
BYTES_PER_VERTEX_FRAME = 12.2 * 1.25


def needed_bytes(input_size: int, jobs: Sequence[tuple[Any, tuple[int, int]]]) -> int:
    """A generous estimate of the baked file's size: the input plus every baked frame's keys."""
    baked = sum(len(obj.data.vertices) * (end - start + 1) for obj, (start, end) in jobs)
    return int(input_size + baked * BYTES_PER_VERTEX_FRAME)


def check_room(folder: str, needed: int) -> None:
    """Raise CliError if `folder`'s disk has less free space than `needed` bytes."""
    free = shutil.disk_usage(folder).free
    if free < needed:
        raise CliError(
            f"not enough free space in {folder}: the baked file needs about {needed / 1e6:.1f} MB, "
            f"{free / 1e6:.1f} MB are free; free some space or pass --output on another disk"
        )


def is_cloth(obj: Any) -> bool:
    """The object is a mesh with Verlet Cloth turned on."""
    settings = getattr(obj, "verlet_cloth", None)
    return obj.type == "MESH" and settings is not None and bool(getattr(settings, "enabled", False))


def object_frame_range(scene: Any, obj: Any) -> tuple[int, int]:
    """The object's own bake range: the scene's, unless the cloth settings override it."""
    settings = obj.verlet_cloth
    if getattr(settings, "use_scene_frame_range", True):
        return scene.frame_start, scene.frame_end
    return settings.frame_start, settings.frame_end


def resolve_objects(scene: Any, names: list[str] | None) -> list[Any]:
    """The cloth objects to bake; raise CliError naming unknown or non-cloth objects."""
    import bpy

    # Coupling is one-way: a cloth that is a mesh collider for the others is baked first, the lowest
    # first, so each layer collides with the bake of the ones below rather than their rest shape
    # (the live preview steps Mesh-collider cloths first too, but couples them both ways). Named cloths
    # too (as the Bake operator orders the selected ones): `--objects Upper,Lower` baked the upper
    # against the lower's unbaked shape. The others keep their given order (the sort is stable).
    from .scene_reading import layer_order

    if names is None:
        found = [obj for obj in scene.objects if is_cloth(obj)]
        if not found:
            raise CliError(f"no object in scene {scene.name!r} has Verlet Cloth enabled; nothing to bake")
        return sorted(found, key=lambda obj: layer_order(scene, obj))
    cloths = ", ".join(sorted(obj.name for obj in scene.objects if is_cloth(obj))) or "none"
    unknown = [name for name in names if name not in bpy.data.objects]
    if unknown:
        raise CliError(f"unknown object(s): {', '.join(unknown)} (cloth objects in scene {scene.name!r}: {cloths})")
    objects = [bpy.data.objects[name] for name in names]
    outside = [obj.name for obj in objects if obj.name not in scene.objects]
    if outside:
        raise CliError(f"object(s) not in scene {scene.name!r}: {', '.join(outside)}")
    not_cloth = [obj.name for obj in objects if not is_cloth(obj)]
    if not_cloth:
        raise CliError(
            f"not a cloth object: {', '.join(not_cloth)} (turn Verlet Cloth on for it first; cloth objects: {cloths})"
        )
    return sorted(dict.fromkeys(objects), key=lambda obj: layer_order(scene, obj))


def _load_baking() -> Any:
    try:
        from . import baking
    except ImportError as exc:
        raise CliError(f"this version of Verlet Cloth cannot bake ({exc})") from None
    return baking


class _Progress:
    """Prints a line per simulated frame: `bake_object` reports progress(done, total)."""

    def __init__(self, name: str, start: int) -> None:
        self.name, self.start = name, start

    def __call__(self, done: int, total: int) -> None:
        print(f"  {self.name}: frame {self.start + done - 1} ({done}/{total})", flush=True)


def _say(message: str) -> None:
    print(f"{COMMAND}: {message}", flush=True)


def _error(message: str) -> int:
    print(f"{COMMAND}: error: {message}", file=sys.stderr, flush=True)
    return 1


def main(argv: Sequence[str]) -> int:
    """Run a command line such as ["bake", "shot.blend", "--frames", "1:100"]; 0 on success."""
    try:
        args = parse_args(argv)
    except CliError as exc:
        return _error(str(exc))
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else 0
    try:
        with _stop_on_terminate():
            return _bake(args)
    except CliError as exc:
        return _error(str(exc))
    except Exception as exc:  # a farm job fails with a message and a non-zero exit, never silently
        return _error(f"{type(exc).__name__}: {exc}")
    except KeyboardInterrupt:  # Ctrl+C: the bake stops; nothing was saved
        _error(f"interrupted; {_untouched(args)}")
        return 130
    except Terminated:  # the job was cancelled: the same, with the exit code of a process ended by SIGTERM
        _error(f"terminated; {_untouched(args)}")
        return 128 + signal.SIGTERM


def _bake(args: argparse.Namespace) -> int:
    import bpy

    _say(f"opening {args.file}")
    try:
        bpy.ops.wm.open_mainfile(filepath=args.file)
    except RuntimeError as exc:
        raise CliError(f"cannot open {args.file}: {exc}") from None
    if args.scene is not None:
        if args.scene not in bpy.data.scenes:
            names = ", ".join(scene.name for scene in bpy.data.scenes)
            raise CliError(f"unknown scene {args.scene!r} (scenes: {names})")
        scene = bpy.data.scenes[args.scene]
    else:
        scene = bpy.context.scene
    with _active(scene):
        _bake_objects(args, scene, resolve_objects(scene, args.object_names))

    def save(path: str) -> None:
        # A copy: the session keeps its file path; relative paths stay right (same folder).
        bpy.ops.wm.save_as_mainfile(filepath=path, check_existing=False, copy=True)
        if _terminated:  # cancelled while saving, inside a save handler Blender ran (it printed and went on)
            raise Terminated

    versions = int(bpy.context.preferences.filepaths.save_version)
    try:
        size = blend_file.save_verified(args.output, save, versions)
    except blend_file.SaveError as exc:
        raise CliError(f"cannot save {args.output}: {exc}; {_untouched(args)}") from None
    _say(f"saved {args.output} ({size / 1e6:.1f} MB, checked)")
    return 0


@contextlib.contextmanager
def _active(scene: Any) -> Iterator[None]:
    """`scene` is the window's scene while baking, and the file's own active scene again after.

    Blender evaluates animation, drivers and world matrices only for the scene a window shows: a
    bake of another scene (`--scene`) read every object unevaluated (the cloth at the world
    origin, colliders frozen), so the bake shows the scene, as the artist would.
    """
    import bpy

    if bpy.context.scene == scene:  # the file's active scene: nothing to switch
        yield
        return
    window = bpy.context.window or next(iter(bpy.context.window_manager.windows), None)
    if window is None:
        raise CliError(f"cannot show scene {scene.name!r} to bake it: save the file with that scene active")
    previous = window.scene
    window.scene = scene
    try:
        if bpy.context.scene != scene:
            raise CliError(f"cannot show scene {scene.name!r} to bake it: save the file with that scene active")
        bpy.context.view_layer.update()  # its depsgraph made the active one now (Blender 4.2 waits for an event)
        yield
    finally:
        window.scene = previous
        bpy.context.view_layer.update()


def _bake_objects(args: argparse.Namespace, scene: Any, objects: list[Any]) -> None:
    jobs = [(obj, args.frame_range or object_frame_range(scene, obj)) for obj in objects]
    for obj, (start, end) in jobs:
        if start > end:
            raise CliError(f"{obj.name}: its frame range {start}:{end} is empty; pass --frames START:END")
    bake_object: Callable[..., int] = _load_baking().bake_object
    _refuse_unbakeable(obj for obj, _ in jobs)
    check_room(os.path.dirname(args.output), needed_bytes(os.path.getsize(args.file), jobs))

    for obj, (start, end) in jobs:
        _say(f"baking {obj.name}, frames {start}-{end}")
        began = time.perf_counter()
        capped: list[int] = []
        try:
            frames = bake_object(scene, obj, start, end, progress=_Progress(obj.name, start), capped=capped)
        except Exception as exc:
            raise CliError(f"baking {obj.name} failed: {exc}") from exc
        from .solver_params import capped_note  # (with baking's: Blender's side)

        note = capped_note(capped)
        _say(f"baked {obj.name}: {frames} frames in {time.perf_counter() - began:.1f} s.{note}")


def _refuse_unbakeable(objects: Iterable[Any]) -> None:
    """Every cloth's problem (a linked duplicate, a changed mesh, ...) before any is baked: a farm job
    must not bake the first cloths for hours and then fail on a later one without saving any."""
    from . import pin_group
    from .checks import cloth_problem

    objects = list(objects)
    for obj in objects:
        pin_group.follow(obj)
    problems = [f"{obj.name}: {problem}" for obj in objects if (problem := cloth_problem(obj))]
    if problems:
        raise CliError("cannot bake, nothing was baked: " + "; ".join(problems))


def _untouched(args: argparse.Namespace) -> str:
    if args.output == args.file:
        return f"the input {args.file} is untouched"
    return f"nothing was written to {args.output}" + (
        " (the file there is untouched)" if os.path.exists(args.output) else ""
    )


def register_command() -> None:
    """Make `blender -c verlet_cloth ...` available (Blender 4.2 and later)."""
    global _handle  # noqa: PLW0603 - the handle lives as long as the add-on is enabled
    import bpy

    register = getattr(bpy.utils, "register_cli_command", None)
    if register is not None and _handle is None:
        _handle = register(COMMAND, main)


def unregister_command() -> None:
    global _handle  # noqa: PLW0603
    import bpy

    if _handle is not None:
        bpy.utils.unregister_cli_command(_handle)
        _handle = None
