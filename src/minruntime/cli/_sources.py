"""Reading the snapshot's sources: files, standard input, the scheduler's ZIP, the example.

>>> objects, sources, _ = read_sources([], None)  # type: ignore[arg-type]
>>> sources, len(objects) > 20
(['the bundled example'], True)
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from importlib import resources
from typing import Any, BinaryIO, Final, TextIO

from minruntime.errors import InvalidObject
from minruntime.kube import ObjectRef, load_objects, load_snapshot_archive

__all__ = ["in_its_file", "read_sources"]

_EXAMPLE_RESOURCE: Final = "data/example-cluster.json"
_MAX_INPUT_CHARACTERS: Final = 1 << 30
"""The most a snapshot file (or standard input) may hold: reading stops there, so that pointing
the command at ``/dev/zero`` or an endless pipe is an error, not a hang."""


def _read_bounded(handle: BinaryIO) -> bytes:
    """A file's bytes, at most ``_MAX_INPUT_CHARACTERS + 1`` of them: a regular file of a
    bounded size is read whole (``read(n)`` would set aside ``n`` bytes first, a gigabyte for
    any file), anything else (a pipe, a device) in chunks until the bound is passed."""
    info = os.fstat(handle.fileno())
    if stat.S_ISREG(info.st_mode) and 0 < info.st_size <= _MAX_INPUT_CHARACTERS:
        return handle.read()
    chunks = []
    total = 0
    while total <= _MAX_INPUT_CHARACTERS:
        chunk = handle.read(1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def read_sources(
    paths: Sequence[str], stdin: TextIO
) -> tuple[list[Any], list[str], dict[int, str]]:
    """The objects of every source, the sources' names, and each object's source (by id; only
    with several sources, where an error must say which file holds the object it names)."""
    if not paths:
        text = resources.files("minruntime").joinpath(_EXAMPLE_RESOURCE).read_text(encoding="utf-8")
        return load_objects(text, origin="the bundled example"), ["the bundled example"], {}
    objects: list[Any] = []
    origins: dict[int, str] = {}
    several = len(paths) > 1
    for path in paths:
        origin = "<stdin>" if path == "-" else path
        try:
            if path == "-":
                text = stdin.read(_MAX_INPUT_CHARACTERS + 1)
            else:
                with open(path, "rb") as handle:
                    data = _read_bounded(handle)
                if len(data) > _MAX_INPUT_CHARACTERS:
                    raise InvalidObject(
                        f"{origin}: larger than {_MAX_INPUT_CHARACTERS} bytes (a snapshot of a "
                        "large cluster is a few hundred megabytes at most; is it the right file?)",
                        object=origin,
                    )
                if data.startswith(b"PK\x03\x04"):  # the reference scheduler's snapshot (a ZIP)
                    loaded = load_snapshot_archive(data, origin=origin)
                    if several:
                        origins.update((id(obj), origin) for obj in loaded)
                    objects.extend(loaded)
                    continue
                text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InvalidObject(
                f"{origin}: not UTF-8 text ({error.reason} at byte {error.start})", object=origin
            ) from None
        if len(text) > _MAX_INPUT_CHARACTERS:
            raise InvalidObject(
                f"{origin}: larger than {_MAX_INPUT_CHARACTERS} characters (a snapshot of a large "
                "cluster is a few hundred megabytes at most; is it the right file?)",
                object=origin,
            )
        loaded = load_objects(text, origin=origin)
        if several:
            origins.update((id(obj), origin) for obj in loaded)
        objects.extend(loaded)
    return objects, ["-" if path == "-" else path for path in paths], origins


def in_its_file(error: InvalidObject, objects: list[Any], origins: dict[int, str]) -> InvalidObject:
    """The error, its message prefixed with the file that holds the object it names (when the
    snapshot comes from several files and exactly one of them holds such an object)."""
    files = sorted(
        {
            origins[id(obj)]
            for obj in objects
            if id(obj) in origins and str(ObjectRef.of(obj)) == error.object
        }
    )
    if len(files) != 1:
        return error
    return InvalidObject(f"{files[0]}: {error}", object=error.object, field=error.field)
