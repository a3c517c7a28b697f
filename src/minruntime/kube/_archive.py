"""The reference scheduler's own snapshot: the ZIP file of its ``/get-snapshot`` endpoint
(private; re-exported by the package)."""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Mapping
from typing import Any, Final

from minruntime._load import DocumentError, load_json
from minruntime._text import shown
from minruntime.config import find_scheduler_config
from minruntime.errors import InvalidConfiguration, InvalidObject
from minruntime.kube._loading import flatten

__all__ = ["MAX_ARCHIVE_MEMBER", "load_snapshot_archive"]

_ARCHIVE_KINDS: Final = {
    "queues": ("scheduling.run.ai/v2", "Queue"),
    "podGroups": ("scheduling.run.ai/v2alpha2", "PodGroup"),
    "pods": ("v1", "Pod"),
    "priorityClasses": ("scheduling.k8s.io/v1", "PriorityClass"),
    "configMaps": ("v1", "ConfigMap"),
    "nodes": ("v1", "Node"),
}
MAX_ARCHIVE_MEMBER: Final = 1 << 30
"""The most ``snapshot.json`` may expand to, in bytes: the bound applies while it is read."""
_CHUNK: Final = 1 << 16


def _read_bounded(member: Any, limit: int) -> bytes:
    """The member's bytes, read in chunks; an error as soon as they pass ``limit`` (the size
    its header claims is not trusted)."""
    buffer = bytearray()
    while True:
        chunk = member.read(min(_CHUNK, limit + 1 - len(buffer)))
        if not chunk:
            return bytes(buffer)
        buffer += chunk
        if len(buffer) > limit:
            raise _TooLarge


class _TooLarge(Exception):
    pass


def load_snapshot_archive(data: bytes, *, origin: str = "<input>") -> list[Any]:
    """The objects of the reference scheduler's own snapshot: the ZIP file its ``/get-snapshot``
    endpoint returns, holding one ``snapshot.json``.

    ``rawObjects`` holds lists keyed by what they are (``queues``, ``podGroups``, ``pods``,
    ``priorityClasses``, ``configMaps``, ``nodes``: their GPU memory; other keys, such as
    ``bindRequests``, are not read); an object
    in them that lacks ``apiVersion`` or ``kind`` gets the list's. ``config``, the scheduler's
    configuration, is read as the scheduler config, and then the ConfigMaps are not searched
    for another. Any other member is not read: the reference's redacted snapshot holds a
    ``translation-table.json`` beside its ``snapshot.json``, whose objects carry obfuscated names,
    and those are the names read (the table that maps them back is the operator's, not the
    library's). The member is read in chunks, and reading stops as soon as it passes 2^30
    bytes, so that a ZIP bomb is an error before it is in memory.

    Raises:
        InvalidObject: for data that is not such an archive, naming ``origin``.

    >>> import io, json, zipfile
    >>> buffer = io.BytesIO()
    >>> with zipfile.ZipFile(buffer, "w") as archive:
    ...     archive.writestr("snapshot.json", json.dumps({"rawObjects": {
    ...         "queues": [{"metadata": {"name": "team"}}], "nodes": [{"metadata": {"name": "n1"}}],
    ...         "bindRequests": [{"metadata": {"name": "b1"}}]}}))
    >>> [(o["kind"], o["metadata"]["name"]) for o in load_snapshot_archive(buffer.getvalue())]
    [('Queue', 'team'), ('Node', 'n1')]
    """

    def fail(why: str) -> InvalidObject:
        return InvalidObject(f"{origin}: {why}", object=origin)

    limit = MAX_ARCHIVE_MEMBER  # read here: a test lowers it
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = [
                m for m in archive.infolist() if m.filename.rsplit("/", 1)[-1] == "snapshot.json"
            ]
            if len(members) != 1:
                names = sorted(m.filename for m in archive.infolist())
                held = ", ".join(map(shown, names[:5])) + (" ..." if len(names) > 5 else "")
                raise fail(
                    f"expected one snapshot.json in the archive, found {len(members)}"
                    + (f" (it holds {held})" if not members and names else "")
                )
            with archive.open(members[0]) as member:
                raw = _read_bounded(member, limit)
    except InvalidObject:
        raise
    except _TooLarge:
        raise fail(f"snapshot.json expands to more than {limit} bytes") from None
    # A damaged archive fails in the zipfile module (BadZipFile, EOFError, OSError), in zlib (a
    # corrupt deflate stream), or in decoding a member's name (ValueError).
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        OSError,
        ValueError,
        NotImplementedError,
    ) as error:
        raise fail(f"not a readable ZIP archive ({error})") from None
    except RuntimeError as error:  # an encrypted member
        raise fail(f"cannot read the archive ({error})") from None
    try:
        text = raw.decode("utf-8")
        del raw
        document = load_json(text)
    except UnicodeDecodeError as error:
        raise fail(
            f"snapshot.json: not UTF-8 text ({error.reason} at byte {error.start})"
        ) from None
    except DocumentError as error:
        raise fail(f"snapshot.json: {error}") from None
    raw_objects = document.get("rawObjects") if isinstance(document, Mapping) else None
    if not isinstance(raw_objects, Mapping):
        raise fail("snapshot.json: expected an object with rawObjects (the reference's snapshot)")
    config = document.get("config")
    try:
        own_config = isinstance(config, Mapping) and find_scheduler_config(config) is not None
    except InvalidConfiguration:  # pragma: no cover - a bare document is never searched
        own_config = False
    objects: list[Any] = []
    for key, (api_version, kind) in _ARCHIVE_KINDS.items():
        if key == "configMaps" and own_config:
            continue  # the scheduler's own configuration is in the snapshot: that one counts
        listed = raw_objects.get(key)
        if listed is None:
            continue
        if not isinstance(listed, list):
            raise fail(
                f"snapshot.json rawObjects.{key}: expected a list, got {type(listed).__name__}"
            )
        for obj in listed:
            if isinstance(obj, Mapping):
                obj = {"apiVersion": api_version, "kind": kind, **obj}
            objects.extend(flatten(obj, origin))
    if own_config:
        objects.append(config)
    if not objects:
        raise fail("snapshot.json holds no objects (rawObjects is empty)")
    return objects
