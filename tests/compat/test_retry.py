"""Retries follow urllib3's ``Retry`` like the official client's: the same ``retry:``
keys make the same number of attempts against the same misbehaving server; olsdk's
own defaults (429 retried, ``Retry-After`` capped, sleeps that ``close()`` ends) stay."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from olsdk.client import OpenLineageClient, Spool
from tests.support.client_testkit import LineageServer, Reply, run_event
from tests.support.official import official_run_event

FAST = {"backoff_factor": 0, "backoff_jitter": 0}

# (retry section, the server's replies) -> the attempts both clients make
CASES: list[tuple[str, dict[str, Any], list[Reply]]] = [
    ("total", {"total": 2, "status_forcelist": [503]}, [Reply(503)] * 5),
    ("status", {"total": 5, "status": 1, "status_forcelist": [503]}, [Reply(503)] * 5),
    ("forcelist", {"total": 2, "status_forcelist": [418]}, [Reply(418)] * 5),
    ("not-in-forcelist", {"total": 2, "status_forcelist": [418]}, [Reply(503)] * 5),
    ("methods", {"total": 3, "allowed_methods": ["GET"], "status_forcelist": [503]}, [Reply(503)] * 5),
    ("raise_on_status", {"total": 1, "raise_on_status": False, "status_forcelist": [503]}, [Reply(503)] * 5),
    ("retry-after 413", {"total": 2, "status_forcelist": []}, [Reply(413, {"Retry-After": "0"})] * 5),
    (
        "retry-after ignored",
        {"total": 2, "status_forcelist": [], "respect_retry_after_header": False},
        [Reply(413, {"Retry-After": "0"})] * 5,
    ),
    ("recovers", {"total": 4, "status_forcelist": [502]}, [Reply(502), Reply(502), Reply(200)]),
]


def attempts_official(url: str, retry: dict[str, Any]) -> None:
    from openlineage.client import OpenLineageClient as Official

    official = Official(config={"transport": {"type": "http", "url": url, "retry": {**FAST, **retry}}})
    with contextlib.suppress(Exception):  # the official client raises when delivery fails
        official.emit(official_run_event())
    official.close(1)


def attempts_olsdk(url: str, retry: dict[str, Any], spool: Path) -> None:
    config = {"transport": {"type": "http", "url": url, "retry": {**FAST, **retry}}}
    with OpenLineageClient(config=config, spool=spool, environ={}) as client:
        client.emit(run_event())


@pytest.mark.parametrize(("case", "retry", "replies"), CASES, ids=[c[0] for c in CASES])
def test_same_attempts_as_the_official_client(
    case: str, retry: dict[str, Any], replies: list[Reply], tmp_path: Path, restore_environ: None
) -> None:
    counts = []
    for run in (attempts_official, attempts_olsdk):
        srv = LineageServer()
        srv.script.extend(replies)
        try:
            if run is attempts_official:
                attempts_official(srv.url, retry)
            else:
                attempts_olsdk(srv.url, retry, tmp_path / "spool")
        finally:
            srv.stop()
        counts.append(len(srv.requests))
    assert counts[0] == counts[1], f"official {counts[0]} attempts, olsdk {counts[1]}"


class HangUpServer:
    """Accepts connections and closes them without answering: a read error each time."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.accepted = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        while not self.stopping.is_set() and self.accepted < 100:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.settimeout(1)
            with contextlib.suppress(OSError):
                conn.recv(65536)
            conn.close()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(5)
        self.sock.close()


@pytest.fixture
def hang_up() -> Iterator[HangUpServer]:
    srv = HangUpServer()
    yield srv
    srv.stop()


@pytest.mark.parametrize("retry", [{"total": 5, "read": 1}, {"total": 2}, {"total": 4, "read": 0}])
def test_read_errors_spend_the_read_counter_like_the_official_client(
    retry: dict[str, Any], tmp_path: Path, restore_environ: None
) -> None:
    counts = []
    for olsdk_side in (False, True):
        srv = HangUpServer()
        try:
            if olsdk_side:
                attempts_olsdk(srv.url, retry, tmp_path / "spool")
            else:
                attempts_official(srv.url, retry)
        finally:
            srv.stop()
        counts.append(srv.accepted)
    assert counts[0] == counts[1] >= 1


def test_olsdk_defaults_retry_429_and_cap_retry_after(server: LineageServer, tmp_path: Path) -> None:
    server.script.extend([Reply(429, {"Retry-After": "3600"}), Reply(200)])
    config = {"transport": {"type": "http", "url": server.url, "retry": {"retry_after_max": 0.05}}}
    with OpenLineageClient(config=config, spool=tmp_path / "spool", environ={}) as client:
        client.emit(run_event())
    assert len(server.requests) == 2 and len(server.events) == 1  # retried after 0.05 s, not an hour


def test_close_cuts_a_retry_wait_short(server: LineageServer, tmp_path: Path) -> None:
    server.script.extend([Reply(503, {"Retry-After": "30"})] * 3)
    config = {"transport": {"type": "http", "url": server.url}}
    client = OpenLineageClient(config=config, spool=tmp_path / "spool", environ={})
    worker = threading.Thread(target=client.emit, args=(run_event(),))
    worker.start()
    for _ in range(1000):  # bounded: at most 10 s
        if server.requests:
            break
        threading.Event().wait(0.01)
    client.close()
    worker.join(10)
    assert not worker.is_alive()  # the 30 s wait ended at close
    assert len(server.requests) == 1
    # issue 23: the emit's thread made one attempt; the wait was the relay's, ended by close,
    # and the event stays in the outbox (written ahead), not lost
    (record,) = Spool(tmp_path / "spool").records()
    assert record["event"] == run_event()


@pytest.mark.parametrize("factor", [0.0, 0.5, 10.0])
def test_backoff_is_urllib3s_formula_with_jitter_of_olsdks_own(factor: float) -> None:
    """The wait before each retry is what urllib3's Retry computes (the official client's), within
    the jitter; the jitter comes from olsdk's generator, never from the global random state."""
    import random

    from urllib3.util.retry import Retry

    from olsdk._delivery.transports._retry import backoff_time

    retry = Retry(total=10, backoff_factor=factor, backoff_jitter=0.2, backoff_max=30)
    state = random.getstate()
    for _ in range(6):
        ours = backoff_time(retry)
        theirs = retry.new(backoff_jitter=0.0).get_backoff_time()  # urllib3's, without jitter
        jittered = theirs > 0 or len(retry.history) > 1  # urllib3 adds jitter from the second retry on
        assert theirs <= ours <= min(30.0, theirs + 0.2) if jittered else ours == 0.0
        retry = retry.increment("POST", "/api/v1/lineage", error=ConnectionError("refused"))
    assert random.getstate() == state
