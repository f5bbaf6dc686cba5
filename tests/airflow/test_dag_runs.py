"""A real Airflow 3 with the OpenLineage provider sending through ``olsdk.compat.OlsdkTransport``.

``airflow dags test`` of tests/airflow/dags/olsdk_lineage.py in .venv-airflow, in the
provider's default mode (each emission in a forked child that is killed after
``[openlineage] execution_timeout`` or ends with ``os._exit``) and with
``[openlineage] execute_in_thread``. Every run is counted against the official ``file``
transport's events of the same DAG in the same environment (the provider makes the same
events in both modes: the receiver-up runs check that exactly). Nothing may be lost;
duplicates are counted and reported (olsdk delivers at least once).

The runs are planned in ``PLANS`` and go two at a time in the background (see conftest.py).
"""

from __future__ import annotations

import re
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests.airflow.conftest import Campaign
from tests.airflow.harness import DAG_ID, ROOT, Finished, Site, Sites, compat, file_events, tally
from tests.support.client_testkit import LineageServer, kept, unused_port

pytestmark = pytest.mark.airflow

Events = list[dict[str, Any]]
TASKS = ("create_tables", "insert_select", "python_step", "bash_step", "fails_on_purpose", "after_failure")


# docs/how-to/airflow.md's settings, as a reader copies them: the receiver-up runs use them
DOCS = (ROOT / "docs" / "how-to" / "airflow.md").read_text()
DOCUMENTED_URL, DOCUMENTED_SPOOL = "http://localhost:5000", "/var/lib/airflow/openlineage-spool.db"


def documented(site: Site, url: str) -> Path:
    """Configure ``site`` as docs/how-to/airflow.md says: the variable in fork mode, airflow.cfg with
    ``execute_in_thread``; the URL and spool path are this test's. Returns the spool path."""
    spool = site.root / "openlineage-spool.db"

    def ours(text: str) -> str:
        assert DOCUMENTED_URL in text and DOCUMENTED_SPOOL in text, text
        return text.replace(DOCUMENTED_URL, url).replace(DOCUMENTED_SPOOL, str(spool))

    if site.mode == "fork":
        (variable,) = set(
            re.findall(r"^\$ export AIRFLOW__OPENLINEAGE__TRANSPORT='([^']+)'", DOCS, re.M)
        )  # one, shown twice
        site.variables["AIRFLOW__OPENLINEAGE__TRANSPORT"] = ours(variable)
    else:
        (section,) = re.findall(r"^```ini\n(.*?)^```", DOCS, re.M | re.S)
        (site.airflow_home / "airflow.cfg").write_text(ours(section))
    return spool


# -- the runs ------------------------------------------------------------------------


def reference_run(sites: Sites) -> tuple[Events, Finished]:
    site = sites.new("fork")
    path = site.root / "reference.ndjson"
    site.configure({"type": "file", "log_file_path": str(path), "append": True})
    done = site.dags_test()
    return file_events(path), done


def receiver_up(mode: str, sites: Sites) -> tuple[Events, Finished]:
    """As docs/how-to/airflow.md configures it; nothing may be left in the spool."""
    server = LineageServer()
    try:
        site = sites.new(mode)
        spool = documented(site, server.url)
        done = site.dags_test()
    finally:
        server.stop()
    assert kept(spool) == []
    return list(server.events), done


def batch_mode(mode: str, sites: Sites) -> tuple[Events, Finished]:
    server = LineageServer()
    try:
        site = sites.new(mode)
        site.configure(compat({"type": "http", "url": server.url, "batch": {"max_events": 100}}))
        done = site.dags_test()
    finally:
        server.stop()
    return list(server.events), done


def down_then_replay(sites: Sites) -> tuple[Events, Finished, Finished]:
    """The receiver down for the whole run (default http settings, fork mode: each emitting child
    is killed after execution_timeout); then up, and ``olsdk replay`` with no argument."""
    return sites.new("fork").down_then_replay()


def down_then_later_run(sites: Sites) -> tuple[Events, Finished, Finished]:
    """``execute_in_thread``: the receiver down for a whole DAG run, then up for the next run on
    the same machine (same HOME: the same spool), without ``olsdk replay``."""
    port = unused_port()
    site = sites.new("thread")
    spool = site.root / "spool" / "openlineage.ndjson"  # a spool of the user's choice, this time
    site.configure(compat({"type": "http", "url": f"http://127.0.0.1:{port}"}, spool))
    first = site.dags_test()
    server = LineageServer(port=port)
    try:
        second = site.dags_test()
    finally:
        server.stop()
    return list(server.events), first, second


PLANS = {
    "reference": reference_run,
    "test_receiver_up[fork]": partial(receiver_up, "fork"),
    "test_receiver_up[thread]": partial(receiver_up, "thread"),
    "test_batch_mode[fork]": partial(batch_mode, "fork"),
    "test_batch_mode[thread]": partial(batch_mode, "thread"),
    "test_receiver_down_then_replay": down_then_replay,
    "test_receiver_down_then_a_later_run_finishes": down_then_later_run,
}


# -- the tests -----------------------------------------------------------------------


def test_reference_run_has_every_task(campaign: Campaign, record: Any) -> None:
    """The official file transport's events: a START and an end of every task, the failure as FAIL."""
    events, done = campaign.result("reference")
    record("fork", None, done)
    ends = {e["job"]["name"]: e["eventType"] for e in events if e["eventType"] != "START"}
    starts = Counter(e["job"]["name"] for e in events if e["eventType"] == "START")
    for task in TASKS:
        assert starts[f"{DAG_ID}.{task}"] == 1, task
    assert {task: ends[f"{DAG_ID}.{task}"] for task in TASKS} == {
        **dict.fromkeys(TASKS, "COMPLETE"),
        "fails_on_purpose": "FAIL",
    }
    assert ends[DAG_ID] == "COMPLETE"  # the DAG run (its last task ran after the failure)
    # the provider's SQL support: the statements as query jobs below their task, with the SQL facet
    queries = {e["job"]["facets"]["sql"]["query"] for e in events if "sql" in e["job"].get("facets", {})}
    assert any(q.startswith("INSERT INTO customer_totals") for q in queries), queries


@pytest.mark.parametrize("mode", ["fork", "thread"])
def test_receiver_up(mode: str, campaign: Campaign, record: Any) -> None:
    expected, _ = campaign.result("reference")
    received, done = campaign.result(f"test_receiver_up[{mode}]")
    result = tally(expected, received)
    record(mode, result, done)
    assert result.lost == 0, f"{result}\n{done.tail()}"
    assert result.extra == 0, result  # the same events as the reference, whatever the mode


@pytest.mark.parametrize("mode", ["fork", "thread"])
def test_batch_mode(mode: str, campaign: Campaign, record: Any) -> None:
    """``batch: {max_events: 100}`` (the example in docs/how-to/client.md): events wait in memory for a
    batch, and the provider's forked child ends with ``os._exit`` right after emitting."""
    expected, _ = campaign.result("reference")
    received, done = campaign.result(f"test_batch_mode[{mode}]")
    result = tally(expected, received)
    record(mode, result, done)
    assert result.lost == 0, f"{result}\n{done.tail()}"


def test_receiver_down_then_replay(campaign: Campaign, record: Any) -> None:
    expected, _ = campaign.result("reference")
    received, done, replayed = campaign.result("test_receiver_down_then_replay")
    result = tally(expected, received)
    record("fork", result, done)
    assert result.lost == 0, f"{result}\n{replayed.tail()}\n{done.tail()}"
    assert replayed.returncode == 0, replayed.tail()


def test_receiver_down_then_a_later_run_finishes(campaign: Campaign, record: Any) -> None:
    expected, _ = campaign.result("reference")
    received, first, second = campaign.result("test_receiver_down_then_a_later_run_finishes")
    result = tally(expected * 2, received)
    record("thread", result, second)
    assert result.lost == 0, f"{result}\n{second.tail()}\n{first.tail()}"
    assert len({e["run"]["runId"] for e in received if e["job"]["name"] == DAG_ID}) == 2
