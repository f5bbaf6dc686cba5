"""The readers' first use from several threads at once (a server's first requests, a Spark
listener's first events): pydantic builds the event adapter on first use, and threads that
arrive while it is half built must wait for it rather than fail."""

from __future__ import annotations

import subprocess
import sys
import textwrap

RACE = textwrap.dedent(
    """
    import threading
    import olsdk
    document = {
        "eventType": "START", "eventTime": "2024-07-01T12:00:00",  # no offset: a problem
        "run": {"runId": "0190d3a4-7b5c-7a3e-9f00-000000000000", "facets": {}},
        "job": {"namespace": "etl", "name": "daily", "facets": {}},
        "inputs": [{"namespace": "etl", "name": "in", "facets": {}, "inputFacets": {}}],
        "producer": "https://example.com/p",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }
    barrier, failures, verdicts = threading.Barrier(8), [], []
    def first_use():
        barrier.wait()
        try:
            event = olsdk.parse_event(document, strict=False)
            verdicts.append((event.job.name, [p.path for p in olsdk.validate_event(document)]))
        except Exception as exc:
            failures.append(f"{type(exc).__name__}: {str(exc)[:300]}")
    threads = [threading.Thread(target=first_use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(failures or sorted(set(map(repr, verdicts))))
    """
)


def test_eight_threads_reading_and_validating_first_all_get_the_verdict() -> None:
    for _ in range(3):  # a fresh process each time: the adapter is built by its first use
        done = subprocess.run([sys.executable, "-c", RACE], capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "[\"('daily', ['eventTime'])\"]", done.stdout
