"""Safe by default: what a web page, a rebound DNS name, a huge number or one greedy client
can do to a server started with no API key. Real `olsdk serve` processes on 127.0.0.1,
real HTTP requests.

- writes accept JSON content types only (a page's "simple" request is text/plain or none);
- a request naming a Host the server does not serve (DNS rebinding), or sent from a page of
  another origin, is refused, with or without a key;
- any number JSON allows gets a 2xx with problems or a 422, and the listings stay readable;
- a page size above the cap, or a page holding more stored JSON than an answer may, is a 400;
- one client address cannot take every connection;
- unknown routes answer JSON like known ones.
"""

from __future__ import annotations

import contextlib
import json
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.serve.harness import PRODUCER, ServeProcess, dumps, run_event

RUN = "0190d3a4-7b5c-7a3e-9f00-0000000000b2"


def call(
    server: ServeProcess, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    """(status, decoded JSON answer) of one request; the answer must be JSON whatever the status."""
    request = urllib.request.Request(server.url + path, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        with contextlib.closing(exc):
            assert exc.headers.get_content_type() == "application/json"
            return exc.code, json.loads(exc.read())


JSON = {"Content-Type": "application/json"}


@pytest.fixture
def server(tmp_path: Path, sqlite_db: str) -> Iterator[ServeProcess]:
    with ServeProcess(tmp_path, sqlite_db) as served:
        yield served


def stored(server: ServeProcess) -> int:
    count: int = server.status()["events"]["stored"]
    return count


def test_writes_accept_json_content_types_only(server: ServeProcess) -> None:
    event = dumps(run_event("typed", RUN))
    for content_type in ("text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data"):
        status, answer = call(server, "POST", "/api/v1/lineage", event, {"Content-Type": content_type})
        assert status == 415, content_type
        assert "application/json" in answer["message"]
    # a fetch() with a Blob body sends no Content-Type at all
    status, _ = call(server, "POST", "/api/v1/lineage/batch", b"[" + event + b"]", {"Content-Type": ""})
    assert status == 415
    assert stored(server) == 0
    assert call(server, "POST", "/api/v1/lineage", event, {"Content-Type": "application/json; charset=utf-8"})[0] == 200
    assert call(server, "POST", "/api/v1/lineage", event, {"Content-Type": "application/vnd.lineage+json"})[0] == 200
    assert stored(server) == 2
    assert server.status()["refused"]["Content-Type 'text/plain': events are sent as application/json"] == 1


def test_a_request_naming_another_host_is_refused(server: ServeProcess) -> None:
    """DNS rebinding: a page of evil.example, whose name now resolves to 127.0.0.1, reads as itself."""
    server.post("/api/v1/lineage", dumps(run_event("secret_job", RUN)))
    for method, path, body in (("GET", "/api/v1/namespaces", None), ("POST", "/api/v1/lineage", b"{}")):
        status, answer = call(server, method, path, body, {"Host": "evil.example", **JSON})
        assert status == 403
        assert "evil.example" in answer["message"] and "--allowed-host" in answer["message"]
    port = server.url.rsplit(":", 1)[1]
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", "LOCALHOST", f"ui.localhost:{port}"):
        assert call(server, "GET", "/api/v1/namespaces", headers={"Host": host})[0] == 200, host


def test_a_request_from_a_page_of_another_origin_is_refused(server: ServeProcess) -> None:
    port = server.url.rsplit(":", 1)[1]
    event = dumps(run_event("from_page", RUN))
    for origin in ("https://evil.example", "null", f"http://127.0.0.1:{int(port) + 1}", f"https://127.0.0.1:{port}"):
        status, answer = call(server, "POST", "/api/v1/lineage", event, {"Origin": origin, **JSON})
        assert status == 403, origin
        assert "--allowed-origin" in answer["message"]
        assert call(server, "GET", "/api/v1/namespaces", headers={"Origin": origin})[0] == 403
    assert stored(server) == 0
    # the server's own pages are of its origin
    assert call(server, "POST", "/api/v1/lineage", event, {"Origin": server.url, **JSON})[0] == 200


def test_hosts_and_origins_can_be_allowed_and_a_key_changes_nothing(tmp_path: Path, sqlite_db: str) -> None:
    key = tmp_path / "key"
    key.write_text("k3y-of-the-test\n")
    args = ("--allowed-host", "lineage.example", "--allowed-origin", "https://ui.example:3000")
    with ServeProcess(tmp_path, sqlite_db, "--api-key-file", str(key), *args) as server:
        auth = {"Authorization": "Bearer k3y-of-the-test"}
        assert call(server, "GET", "/api/v1/namespaces", headers={"Host": "lineage.example:5000", **auth})[0] == 200
        assert (
            call(server, "GET", "/api/v1/namespaces", headers={"Origin": "https://ui.example:3000", **auth})[0] == 200
        )
        # with the right key, the wrong host, origin or content type is still refused
        assert call(server, "GET", "/api/v1/namespaces", headers={"Host": "evil.example", **auth})[0] == 403
        assert call(server, "GET", "/api/v1/namespaces", headers={"Origin": "https://evil.example", **auth})[0] == 403
        event = dumps(run_event("keyed", RUN))
        assert call(server, "POST", "/api/v1/lineage", event, {"Content-Type": "text/plain", **auth})[0] == 415
        assert call(server, "POST", "/api/v1/lineage", event, {**JSON, **auth})[0] == 200


def test_numbers_beyond_a_double_never_fail_an_answer(server: ServeProcess) -> None:
    status, answer = call(server, "POST", "/api/v1/lineage", b"1e999", JSON)
    assert status == 422 and answer["problems"][0]["rule"].startswith("not a JSON object")
    status, answer = call(server, "POST", "/api/v1/lineage", b'{"run":{"runId":1e999}}', JSON)
    assert status == 422 and answer["problems"][0]["path"] == "run.runId"
    status, answer = call(server, "POST", "/api/v1/lineage/batch", b"[1e999, -1E+400]", JSON)
    assert status == 200 and answer["summary"]["failed"] == 2
    # in a facet of an otherwise valid event: refused, saying where
    event = run_event("huge", RUN)
    event["run"]["facets"] = {"custom": {"_producer": PRODUCER, "_schemaURL": PRODUCER, "n": [1, 2]}}
    body = dumps(event).replace(b"[1, 2]", b"[1, 1" + b"0" * 400 + b".5]")
    status, answer = call(server, "POST", "/api/v1/lineage", body, JSON)
    assert status == 422
    assert answer["problems"][0]["path"] == "run.facets.custom.n[1]"
    assert "64-bit double" in answer["problems"][0]["rule"]
    status, answer = call(server, "POST", "/api/v1/lineage/batch", b"[" + body + b"]", JSON)
    assert answer["failed_events"][0]["problems"][0]["path"] == "run.facets.custom.n[1]"
    # a tiny number is a number (0.0 as a double), and 1e308 fits
    small = dumps(event).replace(b"[1, 2]", b"[1e-999, 1e308]")
    assert call(server, "POST", "/api/v1/lineage", small, JSON)[0] == 200
    # every listing stays readable
    status, refused = call(server, "GET", "/api/olsdk/refused")
    assert status == 200 and len(refused["refused"]) == 6
    assert call(server, "GET", "/api/olsdk/status")[0] == 200
    status, events = call(server, "GET", "/api/v1/events/lineage")
    assert status == 200 and events["totalCount"] == 1
    assert call(server, "GET", "/api/v1/namespaces/etl/jobs/huge")[0] == 200


def test_pages_are_capped_in_items_and_in_bytes(tmp_path: Path, sqlite_db: str) -> None:
    with ServeProcess(tmp_path, sqlite_db, "--max-response-mb", "1") as server:
        status, answer = call(server, "GET", "/api/v1/namespaces?limit=20000")
        assert status == 400 and "at most 10000" in answer["message"]
        assert call(server, "GET", "/api/v1/events/lineage?limit=10001")[0] == 400
        for index in range(3):  # three jobs with a 600 KB facet each
            event = run_event(
                f"big_{index}", f"0190d3a4-7b5c-7a3e-9f00-00000000010{index}", time=f"2024-07-01T12:00:0{index}Z"
            )
            event["job"]["facets"] = {"big": {"_producer": PRODUCER, "_schemaURL": PRODUCER, "text": "x" * 600_000}}
            assert server.post("/api/v1/lineage", dumps(event))[0] == 200
        for path in ("/api/v1/namespaces/etl/jobs?limit=3", "/api/v1/events/lineage?limit=3"):
            status, answer = call(server, "GET", path)
            assert status == 400 and "(limit=1)" in answer["message"], path
        status, answer = call(server, "GET", "/api/v1/namespaces/etl/jobs?limit=1&offset=2")
        assert status == 200 and answer["jobs"][0]["name"] == "big_0"  # the latest updated first
        assert call(server, "GET", "/api/v1/events/lineage?limit=1")[0] == 200


def _open_from(address: str, server: ServeProcess) -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30, source_address=(address, 0))
    return sock


def _status_of(sock: socket.socket) -> int | None:
    data = b""
    with contextlib.suppress(OSError):
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    return int(data.split(b" ")[1]) if data.startswith(b"HTTP/1.1 ") else None


def test_one_client_cannot_take_every_connection(tmp_path: Path, sqlite_db: str) -> None:
    args = ("--max-connections-per-client", "5", "--header-timeout", "30")
    with ServeProcess(tmp_path, sqlite_db, *args) as server:
        # another address of the loopback network plays the greedy client
        greedy = [_open_from("127.0.0.2", server) for _ in range(5)]
        try:
            for sock in greedy:
                sock.sendall(b"POST /api/v1/lineage HTTP/1.1\r\n")  # and never finishes
            extra = [_open_from("127.0.0.2", server) for _ in range(3)]
            assert [_status_of(sock) for sock in extra] == [503, 503, 503]
            for sock in extra:
                sock.close()
            # another client is served meanwhile
            assert server.post("/api/v1/lineage", dumps(run_event("served", RUN)))[0] == 200
        finally:
            for sock in greedy:
                sock.close()
        # once its connections are closed, the client is served again
        server.wait_for(lambda: call(server, "GET", "/api/olsdk/status")[1]["refused"] is not None)
        with _open_from("127.0.0.2", server) as sock:
            sock.sendall(b"GET /api/olsdk/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert _status_of(sock) == 200
        refused = server.status()["refused"]
        assert refused["over 5 connections at once from one client address"] == 3


def test_unknown_routes_answer_json(server: ServeProcess) -> None:
    status, answer = call(server, "GET", "/no/such/thing")
    assert status == 404 and answer == {"code": 404, "message": "no such call: GET /no/such/thing"}
    status, answer = call(server, "DELETE", "/api/v1/lineage")
    assert status == 405 and answer["code"] == 405
    status, answer = call(server, "GET", "/api/v1/namespaces/etl/nothing")
    assert status == 404 and answer["code"] == 404
