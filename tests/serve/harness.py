"""`olsdk serve` as a real process for the tests: started on a free port, stopped by PID.

`ServeProcess` runs ``olsdk serve --port 0`` in a child interpreter (the same olsdk
as the tests), reads the address it prints, drains its output on a thread (kept for
assertions: nothing secret may be in it), and stops it with SIGTERM (SIGKILL after a
timeout) by its PID. `events` builds real-shaped OpenLineage events.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.support.processes import child_env

LISTENING = re.compile(r"listening on (http://[0-9.]+:\d+)")
SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
SCHEMA_FACET_URL = "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
PRODUCER = "https://example.com/olsdk-serve-tests"


class ServeProcess:
    """``olsdk serve`` in a child process; `url` once it listens."""

    def __init__(
        self, home: Path, db: str | None, *args: str, env: dict[str, str] | None = None, timeout: float = 60
    ) -> None:
        self.home = home
        code = "import sys; from olsdk._integrations._cli import main; sys.exit(main(sys.argv[1:]))"
        self.process = subprocess.Popen(
            [sys.executable, "-c", code, "serve", "--port", "0", *(["--db", db] if db else []), *args],
            cwd=home,
            env=child_env(home, **(env or {})),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self._listening = threading.Event()
        self.url = ""
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()
        if not self._listening.wait(timeout) or not self.url:
            self.stop()
            raise RuntimeError(f"olsdk serve did not start: {self.output()}")

    def _drain(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            found = LISTENING.search(line)
            if found:
                self.url = found.group(1)
                self._listening.set()
        self._listening.set()

    def output(self) -> str:
        return "".join(self.lines)

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, timeout: float = 30) -> int:
        """SIGTERM by PID, SIGKILL after `timeout`; the exit status."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout)
        self._reader.join(10)
        return self.process.returncode

    def get(self, path: str, headers: dict[str, str] | None = None) -> Any:
        request = urllib.request.Request(self.url + path, headers=headers or {})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)

    def post(self, path: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, Any]:
        request = urllib.request.Request(
            self.url + path, data=body, method="POST", headers={"Content-Type": "application/json", **(headers or {})}
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            with contextlib.closing(exc):
                return exc.code, json.loads(exc.read() or b"null")

    def status(self) -> dict[str, Any]:
        result: dict[str, Any] = self.get("/api/olsdk/status")
        return result

    def wait_for(self, predicate: Any, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError("condition not met")
            time.sleep(0.05)

    def __enter__(self) -> ServeProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def run_event(
    job: str,
    run_id: str,
    event_type: str = "START",
    *,
    namespace: str = "etl",
    time: str = "2024-07-01T12:00:00.000000Z",
    inputs: list[tuple[str, str]] = (),  # type: ignore[assignment]
    outputs: list[tuple[str, str]] = (),  # type: ignore[assignment]
    fields: list[tuple[str, str]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A valid RunEvent; `fields` become the schema facet of every output."""

    def dataset(ns: str, name: str, with_fields: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"namespace": ns, "name": name}
        if with_fields and fields is not None:
            out["facets"] = {
                "schema": {
                    "_producer": PRODUCER,
                    "_schemaURL": SCHEMA_FACET_URL,
                    "fields": [{"name": n, "type": t} for n, t in fields],
                }
            }
        return out

    return {
        "eventType": event_type,
        "eventTime": time,
        "run": {"runId": run_id},
        "job": {"namespace": namespace, "name": job},
        "inputs": [dataset(ns, n, False) for ns, n in inputs],
        "outputs": [dataset(ns, n, True) for ns, n in outputs],
        "producer": PRODUCER,
        "schemaURL": SCHEMA_URL,
        **extra,
    }


def dumps(event: Any) -> bytes:
    return json.dumps(event).encode()
