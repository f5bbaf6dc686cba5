"""Structured Streaming: one run per streaming query run.

The JVM listener forwards Spark's ``QueryStartedEvent``, ``QueryProgressEvent`` and
``QueryTerminatedEvent`` (posted on the context's bus for every session's queries).
A query run gets START when it starts, RUNNING at most once per ``interval`` seconds
while batches progress (with the sources and sink the progress names), and COMPLETE,
or FAIL with the query's exception, when it terminates. Spark's own ``runId`` of the
query run is the OpenLineage run id, so the two can be matched. The micro-batches'
SQL executions get no runs of their own; writes inside ``foreachBatch`` do, as
children of the query's run.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from olsdk._builders._build import RunRef
from olsdk._integrations.spark import _ids
from olsdk._integrations.spark._dataset import PlanDataset
from olsdk._integrations.spark._plan import PlanFacts, WriteTarget
from olsdk._integrations.spark._run_events import Application, QueryRun

__all__ = ["StreamTracker", "dataset_of_description"]

# Sinks and sources that hold no dataset of their own (generated rows, the console, memory).
_NO_DATASET = re.compile(r"^(RateStream|RateSource|Rate|ForeachBatchSink|ForeachSink|MemorySink|Console|Noop)")


def dataset_of_description(description: str | None) -> PlanDataset | None:
    """A dataset from a streaming source or sink description (``FileStreamSource[file:/in]``)."""
    text = (description or "").strip()
    if not text or _NO_DATASET.match(text):
        return None
    match = re.match(r"^(?:FileStreamSource|FileSink|FileStreamSink)\[(.+)\]$", text)
    if match:
        return PlanDataset(_ids.from_location(match.group(1)))
    match = re.match(r"^\w+\[path=([^,\]]+)", text)
    if match:
        return PlanDataset(_ids.from_location(match.group(1)))
    return None


def _time(text: Any) -> dt.datetime:
    try:
        return dt.datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return dt.datetime.now(dt.UTC)


@dataclass
class _Stream:
    run: QueryRun
    name: str | None
    sources: dict[str, PlanDataset] = field(default_factory=dict)  # by description
    last_running: float = 0.0
    rows: int = 0  # rows the sink reported written, summed over batches (-1: unknown)


class StreamTracker:
    """Runs of streaming queries, from the JVM listener's streaming messages (worker thread)."""

    def __init__(self, app: Application, send: Callable[[QueryRun, str], None], *, interval: float) -> None:
        self.app = app
        self._send = send
        self.interval = interval
        self._streams: dict[str, _Stream] = {}  # by Spark's query run id

    def parent_of(self, stream_run_id: str | None) -> RunRef | None:
        """The run of the streaming query run ``stream_run_id``, for runs inside its batches."""
        stream = self._streams.get(stream_run_id or "")
        if stream is None:
            return None
        return RunRef(self.app.namespace, stream.run.job_name, stream.run.run_id)

    def _run_id(self, spark_run_id: str) -> str:
        try:
            return str(uuid.UUID(spark_run_id))
        except ValueError:
            from olsdk._integrations.spark._run_events import new_run_id

            return new_run_id()

    def started(self, message: dict[str, Any]) -> None:
        run_id = str(message.get("runId") or "")
        name = message.get("name") or None
        sink = dataset_of_description(message.get("sink"))
        target = WriteTarget(sink, None, sink.ident.name if sink else None, "StreamingQuery") if sink else None
        command = _ids.normalize(str(name)) if name else "streaming_query"
        facts = PlanFacts(root="StreamingQuery", command=command, target=target, inputs=[], nodes=[], leaf_columns={})
        run = QueryRun(
            self._run_id(run_id),
            self.app.job_name(command, target.suffix if target else None),
            _time(message.get("timestamp")),
            facts,
            processing="STREAMING",
        )
        self._streams[run_id] = _Stream(run, name)
        self._send(run, "START")

    def progress(self, message: dict[str, Any]) -> None:
        progress = json.loads(message.get("progress") or "{}")
        stream = self._streams.get(str(progress.get("runId") or ""))
        if stream is None:
            return
        facts = stream.run.facts
        for source in progress.get("sources") or []:
            description = str(source.get("description") or "")
            if description not in stream.sources:
                found = dataset_of_description(description)
                if found is not None:
                    stream.sources[description] = found
        facts.inputs = list({d.ident: d for d in stream.sources.values()}.values())
        sink = progress.get("sink") or {}
        if facts.target is None:
            found = dataset_of_description(sink.get("description"))
            if found is not None:
                facts.target = WriteTarget(found, None, found.ident.name, "StreamingQuery")
        written = sink.get("numOutputRows")
        if isinstance(written, int) and written >= 0 and stream.rows >= 0:
            stream.rows += written
        else:
            stream.rows = -1
        now = time.monotonic()
        if now - stream.last_running >= self.interval:
            stream.last_running = now
            stream.run.end = _time(progress.get("timestamp"))
            self._send(stream.run, "RUNNING")

    def terminated(self, message: dict[str, Any]) -> None:
        stream = self._streams.pop(str(message.get("runId") or ""), None)
        if stream is None:
            return
        run = stream.run
        run.end = dt.datetime.now(dt.UTC)
        if stream.rows > 0:
            run.stats = {"rowCount": stream.rows}
        exception = message.get("exception")
        if exception:
            run.error = {"message": str(exception)}
        self._send(run, "FAIL" if exception else "COMPLETE")

    def close(self, event_type: str, reason: str) -> None:
        """Queries still running when the application ends: ``event_type`` (ABORT)."""
        for stream in list(self._streams.values()):
            stream.run.end = dt.datetime.now(dt.UTC)
            stream.run.error = {"message": reason}
            self._send(stream.run, event_type)
        self._streams.clear()
