"""The file transport: one file per event (the official default), or NDJSON appended.

Defaults and file names are the official client's: without ``append: true`` each
event gets its own file ``<log_file_path>-<%Y%m%d-%H%M%S.%f>.json`` (with
``debug_mode``: ``<log_file_path>-<%y%m%dT%H%M%S.%f>-<job or dataset>-<event type>.json``,
indented). With ``append: true`` local writes go through one ``O_APPEND``
descriptor per path under a per-path lock, so several transports and threads of one
process can share a file without interleaving lines.

Remote paths (``s3://``, ``gs://``, ``memory://``...) and the official keys
``storage_options``, ``filesystem`` and ``fs_kwargs`` go through fsspec, an optional
extra (``pip install 'olsdk[fsspec]'``) plus the file system's own package.

Every append starts on a fresh line: a line torn by a crash or a full disk never
swallows the next event (and a write that fails half-way is taken back).
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import json
import logging
import os
import threading
from datetime import datetime
from typing import Any
from urllib.parse import urlparse

from pydantic import model_validator

from olsdk._delivery._config import Settings
from olsdk._delivery.transports._base import Payload, Transport
from olsdk._foundation._exceptions import ConfigError, DeliveryError

__all__ = ["FileSettings", "FileTransport"]

log = logging.getLogger("olsdk._delivery.transports._file")

# one lock per absolute path, shared by every FileTransport of the process
_PATH_LOCKS: dict[str, threading.Lock] = {}
_PATH_LOCKS_GUARD = threading.Lock()


def _lock_for(path: str) -> threading.Lock:
    with _PATH_LOCKS_GUARD:
        return _PATH_LOCKS.setdefault(path, threading.Lock())


def is_remote(path: str) -> bool:
    """A URL with a scheme other than ``file``: the official client's rule for fsspec."""
    return "://" in path and not path.startswith("file://")


def local_path(path: str) -> str:
    """Plain paths and ``file://`` URLs as an absolute local path."""
    parsed = urlparse(path)
    if parsed.scheme == "file":
        # imported here: `urllib.request` brings `http.client` and `ssl`, which a plain path never needs
        from urllib.request import url2pathname

        if parsed.netloc and parsed.netloc != "localhost":
            return url2pathname(f"//{parsed.netloc}{parsed.path}")
        return url2pathname(parsed.path)
    return os.path.abspath(os.path.expanduser(path))


def _import(dotted: str, key: str) -> Any:
    module_name, _, attribute = dotted.rpartition(".")
    try:
        return getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(f"transport.{key}: cannot import {dotted!r}: {exc}", f"transport.{key}") from None


class FileSettings(Settings):
    """The `file` transport: where events are written, one file per event or appended NDJSON."""

    log_file_path: str
    append: bool = False  # the official default: one file per event
    debug_mode: bool = False  # with append: false, job and event type in the name, indented JSON
    # the official client's keys for remote file systems (fsspec)
    storage_options: dict[str, Any] | None = None
    filesystem: str | None = None  # dotted path: a file system class, a factory or an instance
    fs_kwargs: dict[str, Any] | None = None

    @property
    def needs_fsspec(self) -> bool:
        return bool(self.filesystem) or is_remote(self.log_file_path)

    @model_validator(mode="after")
    def _fsspec(self) -> FileSettings:
        if not self.needs_fsspec:
            if self.storage_options or self.fs_kwargs:
                key = "storage_options" if self.storage_options else "fs_kwargs"
                log.warning("transport.%s is ignored: %r is a local path", key, self.log_file_path)
            return self
        try:
            importlib.import_module("fsspec")
        except ImportError:
            raise ConfigError(
                f"transport.log_file_path: {self.log_file_path!r} needs fsspec (pip install 'olsdk[fsspec]')",
                "transport.log_file_path",
            ) from None
        if self.filesystem and self.storage_options:
            log.warning("transport.storage_options is ignored with an explicit filesystem; use fs_kwargs")
        return self


def _open_filesystem(settings: FileSettings) -> Any:
    """The file system object ``filesystem`` names (a class or factory is called with fs_kwargs)."""
    if not settings.filesystem:
        return None
    target = _import(settings.filesystem, "filesystem")
    kwargs = settings.fs_kwargs or {}
    fs = target(**kwargs) if inspect.isclass(target) or callable(target) else target
    if not hasattr(fs, "open"):
        raise ConfigError(
            f"transport.filesystem: {settings.filesystem!r} gave {type(fs).__name__}, which has no open()",
            "transport.filesystem",
        )
    return fs


def event_file_name(base: str, payload: Payload, debug: bool, now: datetime | None = None) -> str:
    """The official client's name for the file of one event."""
    now = now or datetime.now()
    if not debug:
        return f"{base}-{now.strftime('%Y%m%d-%H%M%S.%f')}.json"
    name = payload.job_name or payload.dataset_name or "unknown_job_name"
    if payload.kind == "dataset" and payload.dataset_name:
        name = payload.dataset_name
    safe = "".join(c if c.isalnum() or c in "_.-" else "__" for c in name)
    event_type = payload.event_type if payload.kind == "run" and payload.event_type else "unknown_event_type"
    return f"{base}-{now.strftime('%y%m%dT%H%M%S.%f')}-{safe}-{event_type}.json"


class FileTransport(Transport):
    """Writes events to local or remote (fsspec) files."""

    kind = "file"

    def __init__(self, settings: FileSettings, *, name: str | None = None, priority: int = 0) -> None:
        super().__init__(name=name, priority=priority)
        self.settings = settings
        self.remote = settings.needs_fsspec
        self.path = settings.log_file_path if self.remote else local_path(settings.log_file_path)
        self._fs = _open_filesystem(settings) if self.remote else None
        self._lock = _lock_for(self.path)
        self._fd: int | None = None

    def send(self, payload: Payload) -> None:
        try:
            if self.remote:
                self._write_remote(payload)
            elif self.settings.append:
                self._append(payload.body)
            else:
                self._write_new(payload)
        except OSError as exc:
            raise DeliveryError(f"cannot write {self.path}: {exc}", target=self.label) from exc
        except Exception as exc:  # fsspec back ends raise their own errors
            if not self.remote:
                raise
            raise DeliveryError(f"cannot write {self.path}: {type(exc).__name__}: {exc}", target=self.label) from exc

    def _body(self, body: bytes) -> bytes:
        if self.settings.debug_mode and not self.settings.append:
            return json.dumps(json.loads(body), indent=2).encode("utf-8")
        return body.rstrip(b"\n")

    def _write_remote(self, payload: Payload) -> None:
        import fsspec  # type: ignore[import-untyped]

        if self.settings.append:
            target, mode = self.path, "ab"
        else:
            target, mode = event_file_name(self.path, payload, self.settings.debug_mode), "wb"
        data = self._body(payload.body) + b"\n"
        with self._lock:
            opened = (
                self._fs.open(target, mode)
                if self._fs is not None
                else fsspec.open(target, mode, **(self.settings.storage_options or {}))
            )
            with opened as handle:
                handle.write(data)

    def _append(self, body: bytes) -> None:
        line = body.rstrip(b"\n") + b"\n"
        with self._lock:
            if self._fd is None:
                parent = os.path.dirname(self.path)
                if parent:
                    os.makedirs(parent, exist_ok=True)
                self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
            size = os.fstat(self._fd).st_size
            if size and os.pread(self._fd, 1, size - 1) != b"\n":
                line = b"\n" + line  # the last line was torn (crash, full disk): start afresh
            view = memoryview(line)
            try:
                while view:  # os.write may write less than asked
                    view = view[os.write(self._fd, view) :]
            except OSError:
                written = len(line) - len(view)
                with contextlib.suppress(OSError):
                    if written and os.fstat(self._fd).st_size == size + written:  # nobody else wrote since
                        os.ftruncate(self._fd, size)  # take back the partial line
                raise

    def _write_new(self, payload: Payload) -> None:
        body = self._body(payload.body) + b"\n"
        base = event_file_name(self.path, payload, self.settings.debug_mode)
        with self._lock:
            parent = os.path.dirname(self.path)
            if parent:
                os.makedirs(parent, exist_ok=True)
            for n in range(1000):  # two events in one microsecond get a counter suffix
                target = base if not n else f"{base[: -len('.json')]}-{n}.json"
                try:
                    with open(target, "xb") as handle:
                        handle.write(body)
                    return
                except FileExistsError:
                    continue

    def close(self, timeout: float | None = None) -> bool:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
        return True

    def __repr__(self) -> str:
        return f"<FileTransport path={self.path!r}>"
