""".blend files that are replaced only by complete ones: save to a temporary file beside the
target, check it, then swap it in with one atomic rename.

Blender's save returns FINISHED on a full disk and leaves a truncated file, so a save is trusted
only after `problem(path)` has walked the written file from its header to its end block (ENDB):
every block header whole and every block as long as its header says. Compressed files (zstd) are
walked through the decompressor. Formats: the 12-byte header of Blender 4.x (`BLENDER-v402`) with
24-byte block headers, and the header of Blender 5.x (`BLENDER17-01v0500`) with 32-byte ones.
"""

from __future__ import annotations

import os
import shutil
import stat
import struct
import tempfile
import uuid
from typing import IO

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
ZSTD_SEEK_TABLE_FOOTER = b"\xb1\xea\x92\x8f"  # Blender writes zstd's seekable format; this ends the file
_CHUNK = 1 << 20


class SaveError(Exception):
    """The file could not be written completely; the target is untouched. The message says why."""


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _skip(stream: IO[bytes], size: int) -> bool:
    """Read past `size` bytes; False if the stream ends first."""
    while size > 0:
        chunk = stream.read(min(size, _CHUNK))
        if not chunk:
            return False
        size -= len(chunk)
    return True


def _walk(stream: IO[bytes]) -> str | None:
    """Why the uncompressed .blend in `stream` is not whole, or None."""
    head = _read_exactly(stream, 12)
    if len(head) < 12 or not head.startswith(b"BLENDER"):
        return "it does not start with a .blend header"
    if head[7:9].isdigit():  # Blender 5: BLENDER<header size><-><format version><endian><version>
        extra = _read_exactly(stream, int(head[7:9]) - 12)
        endian = "<" if extra[:1] == b"v" else ">"
        size, length_of = 32, struct.Struct(endian + "4siQqq")  # code, SDNA index, old address, length, count
        length_field = 3
    else:  # Blender 4: BLENDER<pointer size: - or _><endian: v or V><version>
        pointer = 8 if head[7:8] == b"-" else 4
        endian = "<" if head[8:9] == b"v" else ">"
        size, length_of = 16 + pointer, struct.Struct(endian + "4si")  # code, length, ...
        length_field = 1
    blocks = 0
    while True:
        header = _read_exactly(stream, size)
        if len(header) < size:
            return f"it ends inside a block header after {blocks} blocks (truncated)"
        if header[:4] == b"ENDB":
            return None
        length = length_of.unpack(header[: length_of.size])[length_field]
        if length < 0 or not _skip(stream, length):
            return f"it ends inside block {blocks} (truncated)"
        blocks += 1


def problem(path: str) -> str | None:
    """Why the .blend at `path` is not a complete file, or None when it is whole."""
    try:
        if os.path.getsize(path) == 0:
            return "it is empty"
        with open(path, "rb") as raw:
            if raw.read(4) != ZSTD_MAGIC:
                raw.seek(0)
                return _walk(raw)
            raw.seek(-4, os.SEEK_END)  # the seek table, which Blender reads first, is written last
            if raw.read(4) != ZSTD_SEEK_TABLE_FOOTER:
                return "its compressed data is cut short (no seek table at the end)"
            try:
                import zstandard
            except ImportError:  # no decompressor here: the seek table has to do
                return None
            raw.seek(0)
            reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
            return _walk(reader)
    except Exception as exc:  # zstd errors, I/O errors: the file is not usable
        return f"it cannot be read ({exc})"


def check_writable(folder: str) -> None:
    """Raise SaveError unless a file can be created (and removed) in `folder`."""
    if not os.path.isdir(folder):
        raise SaveError(f"output folder does not exist: {folder}")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".vc_write_test_"):
            pass
    except OSError as exc:
        raise SaveError(f"cannot write in the output folder {folder}: {exc.strerror or exc}") from None


def check_replaceable(target: str) -> None:
    """Raise SaveError when `target` is a read-only file (as Blender will not save over one; renaming a
    new file over it would replace it even so, and even for root)."""
    if not os.path.isfile(target):
        return
    mode = os.stat(target).st_mode
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(target, os.W_OK):
        raise SaveError(f"the file {target} is read-only: make it writable or pass --output with another file")


def _keep_mode(target: str, temporary: str) -> None:
    """Give the new file the permissions (and, where allowed, the group) of the file it replaces, so a
    group-writable shot on a shared folder stays group-writable after a farm bake."""
    if not os.path.isfile(target):
        return
    old = os.stat(target)
    os.chmod(temporary, stat.S_IMODE(old.st_mode))
    if os.stat(temporary).st_gid != old.st_gid:
        try:
            os.chown(temporary, -1, old.st_gid)
        except OSError:  # not a member of that group: the folder's default group stays
            pass


def temporary_path(target: str) -> str:
    """A free name beside `target` for the file that will replace it (same folder: same file system)."""
    folder, name = os.path.split(target)
    stem = name[:-6] if name.endswith(".blend") else name
    return os.path.join(folder, f".{stem}.vc-{uuid.uuid4().hex[:12]}.blend")


def keep_versions(target: str, versions: int) -> None:
    """Blender's Save Versions: target.blend1, .blend2, ... shifted up; the target itself stays."""
    if versions <= 0 or not os.path.exists(target):
        return
    for n in range(versions, 1, -1):
        older = f"{target}{n - 1}"
        if os.path.exists(older):
            os.replace(older, f"{target}{n}")
    backup = f"{target}1"
    try:
        os.link(target, backup + ".tmp")
        os.replace(backup + ".tmp", backup)
    except OSError:  # no hard links here: a copy does the same
        shutil.copy2(target, backup)


def save_verified(target: str, save, versions: int = 0) -> int:
    """Write the file with `save(path)` to a temporary path beside `target`, check it, then
    replace `target` atomically; returns the size written. On any failure the temporary file is
    removed, `target` is untouched and SaveError says why."""
    temporary = temporary_path(target)
    try:
        try:
            save(temporary)
        except Exception as exc:
            raise SaveError(f"Blender could not save: {exc}") from None
        if not os.path.isfile(temporary):
            raise SaveError("Blender wrote no file (is the disk full or the folder read-only?)")
        why = problem(temporary)
        if why is not None:
            raise SaveError(f"the saved file is incomplete: {why}; is the disk full?")
        size = os.path.getsize(temporary)
        _keep_mode(target, temporary)
        keep_versions(target, versions)
        os.replace(temporary, target)
        return size
    finally:
        for leftover in (temporary, temporary + "@"):  # Blender writes `path@` first, then renames it
            if os.path.exists(leftover):
                os.remove(leftover)
