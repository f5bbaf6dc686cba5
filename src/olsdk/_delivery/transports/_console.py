"""The console transport: one event per line on stdout.

It writes to ``sys.stdout`` directly rather than through ``logging`` (the official
client logs at INFO), because a logger that nobody configured prints nothing.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import TextIO

from olsdk._delivery._config import Settings
from olsdk._delivery.transports._base import Payload, Transport
from olsdk._foundation._exceptions import DeliveryError

__all__ = ["ConsoleSettings", "ConsoleTransport"]


class ConsoleSettings(Settings):
    """The `console` transport: events printed to standard output."""

    pretty: bool = False  # indented, multi-line JSON instead of one line per event


class ConsoleTransport(Transport):
    """Prints each event as JSON to standard output."""

    kind = "console"

    def __init__(
        self,
        settings: ConsoleSettings | None = None,
        *,
        name: str | None = None,
        priority: int = 0,
        stream: TextIO | None = None,
    ) -> None:
        super().__init__(name=name, priority=priority)
        self.settings = settings or ConsoleSettings()
        self._stream = stream
        self._lock = threading.Lock()  # keep lines from concurrent emitters whole

    def send(self, payload: Payload) -> None:
        text = payload.body.decode("utf-8")
        if self.settings.pretty:
            text = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
        stream = self._stream or sys.stdout  # looked up late: tests and tools swap stdout
        try:
            with self._lock:
                stream.write(text + "\n")
                stream.flush()
        except (OSError, ValueError) as exc:  # closed or broken stdout
            raise DeliveryError(f"cannot write to stdout: {exc}", target=self.label) from exc
