"""The file transport: NDJSON, one event per line, appended.

Writes go through one ``O_APPEND`` descriptor per path under a per-path lock, so
several transports and threads of one process can share a file without
interleaving lines. With ``append: false`` each event gets its own file named
``<log_file_path>-<timestamp>.json``, as the official client does by default.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlparse
from urllib.request import url2pathname

from olsdk.transports.base import DeliveryError, Payload, Transport
from olsdk.transports.registry import register_transport
from olsdk.transports.settings import ConfigError

__all__ = ["FileSettings", "FileTransport"]

# one lock per absolute path, shared by every FileTransport of the process
_PATH_LOCKS: dict[str, threading.Lock] = {}
_PATH_LOCKS_GUARD = threading.Lock()


def _lock_for(path: str) -> threading.Lock:
    with _PATH_LOCKS_GUARD:
        return _PATH_LOCKS.setdefault(path, threading.Lock())


def local_path(path: str) -> str:
    """Accept plain paths and ``file://`` URLs; reject remote URLs (no fsspec here)."""
    parsed = urlparse(path)
    if parsed.scheme == "file":
        return url2pathname(parsed.path)
    if "://" in path:
        raise ConfigError(
            f"transport.log_file_path: remote file systems are not supported by olsdk: {path!r}",
            "transport.log_file_path",
        )
    return os.path.abspath(os.path.expanduser(path))


@dataclass(frozen=True)
class FileSettings:
    log_file_path: str
    append: bool = True  # olsdk default; the official client defaults to one file per event
    debug_mode: bool = False  # with append: false, write indented JSON
    # keys of the official client for remote file systems; only None is accepted
    storage_options: dict[str, Any] | None = None
    filesystem: str | None = None
    fs_kwargs: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        for key in ("storage_options", "filesystem", "fs_kwargs"):
            if getattr(self, key) is not None:
                raise ConfigError(
                    f"transport.{key}: remote file systems (fsspec) are not supported by olsdk",
                    f"transport.{key}",
                )


@register_transport
class FileTransport(Transport):
    kind = "file"
    settings_class = FileSettings

    def __init__(self, settings: FileSettings, *, name: str | None = None, priority: int = 0) -> None:
        super().__init__(name=name, priority=priority)
        self.settings = settings
        self.path = local_path(settings.log_file_path)
        self._lock = _lock_for(self.path)
        self._fd: int | None = None

    def send(self, payload: Payload) -> None:
        try:
            if self.settings.append:
                self._append(payload.body)
            else:
                self._write_new(payload.body)
        except OSError as exc:
            raise DeliveryError(f"cannot write {self.path}: {exc}", target=self.label) from exc

    def _append(self, body: bytes) -> None:
        line = body.rstrip(b"\n") + b"\n"
        with self._lock:
            if self._fd is None:
                parent = os.path.dirname(self.path)
                if parent:
                    os.makedirs(parent, exist_ok=True)
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            view = memoryview(line)
            while view:  # os.write may write less than asked
                view = view[os.write(self._fd, view) :]

    def _write_new(self, body: bytes) -> None:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S.%f")
        if self.settings.debug_mode:
            body = json.dumps(json.loads(body), indent=2).encode("utf-8")
        with self._lock:
            for n in range(1000):  # two events in one microsecond get a counter suffix
                target = f"{self.path}-{stamp}{f'-{n}' if n else ''}.json"
                try:
                    with open(target, "xb") as handle:
                        handle.write(body + b"\n")
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
