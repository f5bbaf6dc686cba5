"""Hostile clients against the real `olsdk serve` process, over real sockets, bounded in time.

Each attack gets a 4xx (or the connection closed after its timeout), the server's
memory stays bounded (its peak RSS, read from /proc), it keeps serving producers
meanwhile, and nothing stored before is lost.
"""

from __future__ import annotations

import gzip
import socket
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.serve.harness import ServeProcess, dumps, run_event

RUN = "0190d3a4-7b5c-7a3e-9f00-0000000000a1"
MIB = 1024 * 1024
TIMEOUTS = ("--header-timeout", "2", "--body-timeout", "3")


def peak_rss(pid: int) -> int:
    """The process's peak resident memory (VmHWM), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@pytest.fixture
def guarded(tmp_path: Path, sqlite_db: str) -> Iterator[ServeProcess]:
    """A server with short timeouts, holding one stored event."""
    with ServeProcess(tmp_path, sqlite_db, *TIMEOUTS) as server:
        assert server.post("/api/v1/lineage", dumps(run_event("before_attack", RUN)))[0] == 200
        yield server
        assert server.alive()
        assert server.status()["events"]["stored"] >= 1  # what was stored before is still there
        assert server.get("/api/v1/namespaces/etl/jobs/before_attack")["latestRun"]["state"] == "RUNNING"


def connect(server: ServeProcess, timeout: float = 30) -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=timeout)


def head(path: str, **headers: str) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json"]
    lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def response_status(sock: socket.socket) -> int | None:
    """The status of the answer on `sock`, or None when it was closed without one."""
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    except (ConnectionResetError, TimeoutError):
        pass
    return int(data.split(b" ")[1]) if data.startswith(b"HTTP/1.1 ") else None


def send_until_refused(sock: socket.socket, chunks: Iterator[bytes]) -> int:
    """Send chunks until the server stops reading; the bytes sent."""
    sent = 0
    try:
        for chunk in chunks:
            sock.sendall(chunk)
            sent += len(chunk)
    except (BrokenPipeError, ConnectionResetError, TimeoutError):
        pass
    return sent


def test_a_body_announced_as_500_mb_is_refused_before_it_is_read(guarded: ServeProcess) -> None:
    with connect(guarded) as sock:
        sock.sendall(head("/api/v1/lineage", Content_Length=str(500 * MIB)))
        assert response_status(sock) == 413
    assert guarded.status()["refused"] == {f"body of {500 * MIB} bytes: the limit is {16 * MIB}": 1}


def test_a_chunked_body_of_hundreds_of_mb_is_cut_off(guarded: ServeProcess) -> None:
    before = rss(guarded.pid)
    block = b"x" * MIB
    chunk = f"{len(block):x}\r\n".encode() + block + b"\r\n"
    with connect(guarded) as sock:
        sock.sendall(head("/api/v1/lineage/batch", Transfer_Encoding="chunked"))
        sent = send_until_refused(sock, (chunk for _ in range(300)))
        status = response_status(sock)
    assert status in (413, None)  # the answer may be lost in the reset of a connection still sending
    assert sent < 300 * len(chunk)  # the server stopped reading long before the end
    guarded.wait_for(lambda: "body over the limit of 16777216 bytes" in guarded.status()["refused"])
    assert peak_rss(guarded.pid) - before < 200 * MIB


@pytest.mark.slow
def test_a_gzip_bomb_is_refused_without_inflating_it(guarded: ServeProcess) -> None:
    before = rss(guarded.pid)
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(MIB)
    bomb = b"".join(packer.compress(zeros) for _ in range(1024)) + packer.flush()  # 1 GiB inflated
    assert len(bomb) < 2 * MIB
    status, answer = guarded.post("/api/v1/lineage", bomb, {"Content-Encoding": "gzip"})
    assert status == 413
    assert "inflates to over the limit" in answer["message"]
    assert peak_rss(guarded.pid) - before < 200 * MIB
    # a gzip body that is not gzip, and one cut short
    assert guarded.post("/api/v1/lineage", b"plain text", {"Content-Encoding": "gzip"})[0] == 400
    whole = gzip.compress(dumps(run_event("cut", RUN)))
    assert guarded.post("/api/v1/lineage", whole[: len(whole) // 2], {"Content-Encoding": "gzip"})[0] == 400
    assert guarded.post("/api/v1/lineage", whole, {"Content-Encoding": "br"})[0] == 415


def test_nesting_thousands_deep_and_bad_utf8_in_a_batch(guarded: ServeProcess) -> None:
    deep = b'[{"a":' * 20000 + b"1" + b"}]" * 20000
    status, answer = guarded.post("/api/v1/lineage/batch", deep)
    assert status == 422 and "nested more than 200 levels" in answer["problems"][0]["rule"]
    status, answer = guarded.post("/api/v1/lineage/batch", b'[{"job": {"name": "\xc3\x28"}}]')
    assert status == 422 and "UTF-8" in answer["problems"][0]["rule"]


@pytest.mark.slow
def test_slow_clients_time_out_and_producers_are_served_meanwhile(guarded: ServeProcess) -> None:
    # ten connections sending their request head one byte a second, ten sending their body so
    slow_heads = [connect(guarded) for _ in range(10)]
    slow_bodies = [connect(guarded) for _ in range(10)]
    request_head = head("/api/v1/lineage", Content_Length="2")
    for sock in slow_heads:
        sock.sendall(request_head[:1])
    for sock in slow_bodies:
        sock.sendall(head("/api/v1/lineage", Content_Length="1000") + b"{")
    started = time.monotonic()
    # a producer is served while they trickle
    assert guarded.post("/api/v1/lineage", dumps(run_event("during_attack", RUN)))[0] == 200
    statuses: dict[int, int | None] = {}
    for second in range(15):  # bounded: the server's timeouts are 2 s and 3 s
        for sock in slow_heads + slow_bodies:
            if sock.fileno() in statuses:
                continue
            try:
                sock.sendall(request_head[second + 1 : second + 2] if sock in slow_heads else b" ")
            except OSError:
                statuses[sock.fileno()] = response_status(sock)
        if len(statuses) == 20:
            break
        time.sleep(1)
    assert len(statuses) == 20, f"{20 - len(statuses)} slow connections still open after {second} s"
    assert time.monotonic() - started < 15
    codes = [statuses.get(sock.fileno()) for sock in slow_heads], [statuses.get(s.fileno()) for s in slow_bodies]
    assert set(codes[0]) <= {408, None} and set(codes[1]) <= {408, None}, codes
    for sock in slow_heads + slow_bodies:
        sock.close()
    refused = guarded.status()["refused"]
    assert refused.get("the body did not arrive within 3 s", 0) == 10
    assert refused.get("request line and headers not complete within 2 s", 0) == 10


def test_headers_without_end_are_cut_off(guarded: ServeProcess) -> None:
    with connect(guarded) as sock:
        sock.sendall(b"POST /api/v1/lineage HTTP/1.1\r\nHost: test\r\n")
        line = b"X-Filler: " + b"a" * 1000 + b"\r\n"
        sent = send_until_refused(sock, (line for _ in range(10_000)))
        status = response_status(sock)
    assert status in (431, None) and sent < 10_000 * len(line)
    guarded.wait_for(lambda: "request line and headers over 65536 bytes" in guarded.status()["refused"])
