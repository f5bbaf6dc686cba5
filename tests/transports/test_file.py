"""The file transport: NDJSON lines from many writers, one file per event."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from olsdk.client import ConfigError
from olsdk.transports import FileSettings, FileTransport, Payload, create_transport
from tests.support.client_testkit import run_event
from tests.support.processes import run_script


def test_file_transport_concurrent_writers(tmp_path: Path) -> None:
    path = tmp_path / "out" / "events.ndjson"
    writers = [FileTransport(FileSettings(log_file_path=str(path), append=True)) for _ in range(2)]
    body = json.dumps(run_event(job="x" * 5000)).encode()  # long lines tear if unsynchronised

    def write(transport: FileTransport, n: int) -> None:
        for _ in range(n):
            transport.send(Payload.from_json(body))

    threads = [threading.Thread(target=write, args=(writers[i % 2], 300)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    assert len(lines) - 1 == 1800
    assert all(json.loads(line) == json.loads(body) for line in lines[:-1])


@pytest.mark.fsspec
def test_file_transport_one_file_per_event(tmp_path: Path) -> None:
    transport = create_transport({"type": "file", "log_file_path": str(tmp_path / "ev"), "append": False})
    for i in range(3):
        transport.send(Payload.from_json(json.dumps(run_event(job=f"j{i}"))))
    assert len(list(tmp_path.glob("ev-*.json"))) == 3
    with pytest.raises(ConfigError, match=r"transport\.filesystem: cannot import 'nowhere\.FileSystem'"):
        create_transport({"type": "file", "log_file_path": "/tmp/x", "filesystem": "nowhere.FileSystem"})


def test_a_torn_last_line_never_swallows_the_next_event(tmp_path: Path) -> None:
    path = tmp_path / "events.ndjson"
    events = [run_event(job=f"j{i}") for i in range(4)]
    transport = FileTransport(FileSettings(log_file_path=str(path), append=True))
    for event in events[:3]:
        transport.send(Payload.from_json(json.dumps(event)))
    with open(path, "ab") as handle:  # what a writer killed in the middle of a line leaves
        handle.write(b'{"eventTime": "2024-07-01T12:00:00", "eventTy')
    transport.send(Payload.from_json(json.dumps(events[3])))
    transport.close()
    lines = path.read_bytes().splitlines()
    assert [json.loads(line) for line in lines[:3]] == events[:3]
    assert lines[3] == b'{"eventTime": "2024-07-01T12:00:00", "eventTy'  # torn, on its own line
    assert json.loads(lines[4]) == events[3]


def test_a_write_that_fails_half_way_is_taken_back(tmp_path: Path) -> None:
    """A file-size limit in a child process: the line that does not fit leaves nothing behind."""
    path = tmp_path / "events.ndjson"
    done = run_script(
        f"""
        import json, resource, signal
        from olsdk.transports import DeliveryError, FileSettings, FileTransport, Payload
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        transport = FileTransport(FileSettings(log_file_path={str(path)!r}, append=True))
        transport.send(Payload.from_json(json.dumps({{"eventType": "START", "n": 1}})))
        resource.setrlimit(resource.RLIMIT_FSIZE, (100, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
        try:
            transport.send(Payload.from_json(json.dumps({{"eventType": "START", "pad": "x" * 500}})))
        except DeliveryError as exc:
            print("refused:", exc.reason)
        """,
        tmp_path,
    )
    assert done.stdout.startswith("refused: cannot write"), done.stderr
    assert path.read_bytes() == b'{"eventType": "START", "n": 1}\n'


def test_keys_a_local_path_ignores_are_warned_about(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING", logger="olsdk"):
        create_transport({"type": "file", "log_file_path": str(tmp_path / "ev"), "storage_options": {"anon": True}})
    assert f"transport.storage_options is ignored: '{tmp_path / 'ev'}' is a local path" in caplog.text
