"""Drive Debian's headless chromium over the Chrome DevTools protocol, with the stdlib only.

`Chromium` starts ``/usr/bin/chromium --headless`` in its own process group with a
throw-away profile, reads the debugging port from ``DevToolsActivePort``, talks to the
page target over a minimal websocket client, records every event (exceptions, console
errors, network requests) and stops the browser by its process group id.
Also used by ``bench/graph.py`` to time the page.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request
import zlib
from pathlib import Path
from typing import Any

__all__ = ["CHROMIUM", "Chromium", "pixel_variance", "png_pixels"]

CHROMIUM = "/usr/bin/chromium"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-port=0",
)


class _WebSocket:
    """Just enough RFC 6455 for one CDP connection: masked text frames out, frames in."""

    def __init__(self, url: str, timeout: float) -> None:
        assert url.startswith("ws://"), url
        host_port, _, path = url[5:].partition("/")
        host, _, port = host_port.partition(":")
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET /{path} HTTP/1.1\r\nHost: {host_port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("websocket handshake: connection closed")
            response += chunk
        head, _, self.buffer = response.partition(b"\r\n\r\n")
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise ConnectionError(f"websocket handshake refused: {head[:200]!r}")

    def _read(self, size: int) -> bytes:
        while len(self.buffer) < size:
            chunk = self.sock.recv(max(65536, size - len(self.buffer)))
            if not chunk:
                raise ConnectionError("websocket closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def send_text(self, text: str) -> None:
        payload = text.encode()
        length = len(payload)
        if length < 126:
            header = struct.pack("!BB", 0x81, 0x80 | length)
        elif length < 65536:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, length)
        else:
            header = struct.pack("!BBQ", 0x81, 0x80 | 127, length)
        mask = os.urandom(4)
        repeated = (mask * (length // 4 + 1))[:length]
        masked = (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(length, "big")
        self.sock.sendall(header + mask + masked)

    def _send_frame(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(struct.pack("!BB", 0x80 | opcode, 0x80 | len(payload)) + mask + masked)

    def receive_text(self) -> str:
        parts: list[bytes] = []
        while True:
            first, second = self._read(2)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", self._read(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", self._read(8))
            payload = self._read(length)  # a server never masks
            if opcode == 0x9:  # ping
                self._send_frame(0xA, payload)
                continue
            if opcode == 0x8:
                raise ConnectionError("websocket closed by the browser")
            if opcode in (0x0, 0x1, 0x2):
                parts.append(payload)
                if first & 0x80:
                    return b"".join(parts).decode()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._send_frame(0x8, b"")
        self.sock.close()


class Chromium:
    """A headless chromium with one page, its DevTools events recorded in `events`."""

    def __init__(self, width: int = 1400, height: int = 900, binary: str = CHROMIUM, timeout: float = 60.0) -> None:
        self.width, self.height, self.timeout = width, height, timeout
        self.profile = Path(tempfile.mkdtemp(prefix="olsdk-chromium-"))
        self.log = open(self.profile.parent / f"{self.profile.name}.log", "wb")  # noqa: SIM115 - closed in close()
        self.process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=self.log,
            start_new_session=True,  # its own process group: renderers stop with it
        )
        self.events: list[dict[str, Any]] = []
        self._next_id = 0
        try:
            port = self._port()
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=timeout) as response:
                targets = json.load(response)
            page = next(t for t in targets if t.get("type") == "page")
            self.ws = _WebSocket(page["webSocketDebuggerUrl"], timeout)
            for domain in ("Runtime", "Network", "Page", "Log"):
                self.send(f"{domain}.enable")
            self.send(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            )
        except BaseException:
            self.close()
            raise

    def _port(self) -> int:
        marker = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"chromium exited with {self.process.returncode}")
            if marker.exists():
                lines = marker.read_text().split()
                if lines:
                    return int(lines[0])
            time.sleep(0.05)
        raise TimeoutError("chromium wrote no DevToolsActivePort")

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self._next_id += 1
        ident = self._next_id
        self.ws.send_text(json.dumps({"id": ident, "method": method, "params": params or {}}))
        while True:
            message = json.loads(self.ws.receive_text())
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            if "method" in message:
                self.events.append(message)

    def wait_event(self, method: str, timeout: float | None = None, since: int = 0) -> dict[str, Any]:
        """The first `method` event recorded at or after position `since` of `events`."""
        deadline = time.monotonic() + (timeout or self.timeout)
        seen = since
        while time.monotonic() < deadline:
            for event in self.events[seen:]:
                if event["method"] == method:
                    return event
            seen = len(self.events)
            self.ws.sock.settimeout(max(0.05, deadline - time.monotonic()))
            try:
                message = json.loads(self.ws.receive_text())
            except TimeoutError:
                break
            finally:
                self.ws.sock.settimeout(self.timeout)
            if "method" in message:
                self.events.append(message)
        raise TimeoutError(f"no {method} event")

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, path: Path | str, ready: str = "document.documentElement.dataset.rendered === 'true'") -> None:
        """Navigate to a file (or a URL) and wait for its load event, then for `ready` to be true."""
        url = path if isinstance(path, str) else path.resolve().as_uri()
        since = len(self.events)  # a second page in the same browser: not the first page's load event
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired", since=since)
        self.wait_for(ready)

    def wait_for(self, condition: str, timeout: float | None = None) -> None:
        """Poll a JavaScript expression until it is true (bounded by `timeout`, not a timing check)."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while not self.evaluate(condition):
            if time.monotonic() > deadline:
                raise TimeoutError(f"still false: {condition}")
            time.sleep(0.05)

    def key(self, key: str, *, shift: bool = False) -> None:
        """Press and release one key as the user does (trusted events, to the focused element)."""
        named = {
            "Enter": ("Enter", 13, "\r"),
            "Tab": ("Tab", 9, ""),
            "Escape": ("Escape", 27, ""),
            "ArrowDown": ("ArrowDown", 40, ""),
            "ArrowUp": ("ArrowUp", 38, ""),
            "ArrowLeft": ("ArrowLeft", 37, ""),
            "ArrowRight": ("ArrowRight", 39, ""),
            "Home": ("Home", 36, ""),
            "End": ("End", 35, ""),
            " ": ("Space", 32, " "),
        }
        code, keycode, text = named.get(key, (f"Key{key.upper()}" if key.isalpha() else "", ord(key.upper()[0]), key))
        base: dict[str, Any] = {
            "key": key,
            "code": code,
            "windowsVirtualKeyCode": keycode,
            "modifiers": 8 if shift else 0,
        }
        self.send(
            "Input.dispatchKeyEvent",
            {**base, "type": "keyDown" if text else "rawKeyDown", **({"text": text} if text else {})},
        )
        self.send("Input.dispatchKeyEvent", {**base, "type": "keyUp"})

    def type_text(self, text: str) -> None:
        """Type characters into the focused element (one key press each)."""
        for char in text:
            self.key(char)

    def screenshot(self, scale: float = 1.0) -> bytes:
        params: dict[str, Any] = {"format": "png"}
        if scale != 1.0:
            params["clip"] = {"x": 0, "y": 0, "width": self.width, "height": self.height, "scale": scale}
        return base64.b64decode(self.send("Page.captureScreenshot", params)["data"])

    def errors(self) -> list[str]:
        """JavaScript exceptions and console or log errors seen so far."""
        found: list[str] = []
        for event in self.events:
            params = event.get("params", {})
            if event["method"] == "Runtime.exceptionThrown":
                found.append(json.dumps(params.get("exceptionDetails", {}))[:500])
            elif event["method"] == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(json.dumps(params.get("args", []))[:500])
            elif event["method"] == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                found.append(json.dumps(params["entry"])[:500])
        return found

    def requests(self) -> list[str]:
        """URLs of every network request the page made."""
        return [e["params"]["request"]["url"] for e in self.events if e["method"] == "Network.requestWillBeSent"]

    def close(self) -> None:
        ws = getattr(self, "ws", None)
        if ws is not None:
            ws.close()
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def png_pixels(png: bytes) -> tuple[int, int, int, bytes]:
    """(width, height, bytes per pixel, raw rows) of an 8-bit RGB or RGBA PNG."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    offset, idat = 8, b""
    width = height = channels = 0
    while offset < len(png):
        (length,) = struct.unpack("!I", png[offset : offset + 4])
        kind = png[offset + 4 : offset + 8]
        body = png[offset + 8 : offset + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack("!IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    out = bytearray(height * stride)
    previous = bytearray(stride)
    position = 0
    for row in range(height):
        row_filter = raw[position]  # PNG filter type of this row
        line = bytearray(raw[position + 1 : position + 1 + stride])
        position += 1 + stride
        if row_filter == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xFF
        elif row_filter == 2:
            for i in range(stride):
                line[i] = (line[i] + previous[i]) & 0xFF
        elif row_filter == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif row_filter == 4:
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b = previous[i]
                c = previous[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                predictor = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + predictor) & 0xFF
        out[row * stride : (row + 1) * stride] = line
        previous = line
    return width, height, channels, bytes(out)


def pixel_variance(png: bytes) -> float:
    """Variance of the grey level over all pixels: 0 for a blank (one-colour) image."""
    _width, _height, channels, raw = png_pixels(png)
    greys = [sum(raw[i : i + 3]) / 3 for i in range(0, len(raw), channels)]
    mean = sum(greys) / len(greys)
    return sum((g - mean) ** 2 for g in greys) / len(greys)
