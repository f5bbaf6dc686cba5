"""The ASGI application (Starlette): ingest, Marquez's read calls, the page and its feed."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hmac
import json
import logging
import re
import threading
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Final

from pydantic_core import to_json
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from olsdk._foundation._exceptions import Problem
from olsdk._integrations._graph._facts import NO_TIME, canonical_time, extract, facts_json
from olsdk._integrations._graph._page import page_data, render_page
from olsdk._integrations.serve import _catalog, _marquez, _versions
from olsdk._integrations.serve._guard import RequestGuard, served_hosts
from olsdk._integrations.serve._ingest import (
    BodyBudget,
    BodyError,
    Sorted,
    check_event,
    problem_dicts,
    read_body,
    sort_batch,
    sort_event,
    sort_small_event,
)
from olsdk._integrations.serve._settings import ServeSettings
from olsdk._integrations.serve._store import Refusal, Store, now
from olsdk._integrations.serve._writer import Writer

__all__ = ["Changes", "ServeApp", "build_app", "create_app"]

log = logging.getLogger("olsdk.serve")

LINEAGE: Final = "/api/v1/lineage"
BATCH: Final = "/api/v1/lineage/batch"
VALIDATE: Final = "/api/v1/lineage/validate"
LIVE: Final = "/api/olsdk/live"
COALESCE_SECONDS: Final = 0.5
FEED_LIMIT: Final = 1000  # events per feed answer
LONG_POLL_SECONDS: Final = 25.0
HEARTBEAT_SECONDS: Final = 15.0
_JSON_POSITION = re.compile(r" at line \d+ column \d+")
_NAMESPACES: Final = b"/api/v1/namespaces"
_STORED_VALID: Final = b'{"status":"stored","valid":true}'  # the answer to most posts, written once


class Changes:
    """Wakes the page feeds whenever the writer committed something (on the event loop)."""

    def __init__(self) -> None:
        self.version = 0
        self._event = asyncio.Event()

    def notify(self) -> None:
        self.version += 1
        self._event.set()
        self._event = asyncio.Event()

    async def wait(self, seen: int, timeout: float) -> None:
        if self.version != seen:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._event.wait(), timeout)


def _reason(problem: Problem) -> str:
    """A refusal's reason, the same for the same fault (counted by it): no line/column numbers."""
    return _JSON_POSITION.sub("", str(problem))


def _int_param(request: Request, name: str, default: int, low: int = 0, high: int = 1_000_000) -> int:
    value = request.query_params.get(name)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise _BadRequest(f"{name}={value[:40]!r}: not an integer") from None
    if not low <= number <= high:
        raise _BadRequest(f"{name}={number}: must be between {low} and {high}")
    return number


def _limit(request: Request, cap: int, default: int = 100) -> int:
    """The ``limit`` of a listing: at most `cap` items a page (400 beyond, saying so)."""
    number = _int_param(request, "limit", default, 0, 2**62)
    if number > cap:
        raise _BadRequest(f"limit={number}: a page holds at most {cap} items; ask for the next ones with offset")
    return number


class _BadRequest(ValueError):
    pass


class SafeJSONResponse(JSONResponse):
    """JSON as Starlette writes it; a value JSON has no number for (a stored event's ``1e999``
    reads back as infinity) is written as null rather than failing the answer."""

    def render(self, content: Any) -> bytes:
        try:
            return super().render(content)
        except ValueError:
            return to_json(content, inf_nan_mode="null")


def _error(status: int, message: str, **extra: Any) -> JSONResponse:
    return SafeJSONResponse({"code": status, "message": message, **extra}, status_code=status)


class ServeApp:
    """The state behind the routes (settings, store, writer, body budget), and the routes of
    ingest and of Marquez's namespaces, jobs, datasets, runs, lineage and events."""

    def __init__(self, settings: ServeSettings, store: Store) -> None:
        self.settings = settings
        self.store = store
        self.budget = BodyBudget(settings.max_bodies_in_flight_bytes)
        self.writer: Writer | None = None
        self.signal: Changes | None = None
        self.closing = asyncio.Event()

    # ------------------------------------------------------------------ life

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: Starlette) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        self.closing = asyncio.Event()
        self.signal = Changes()
        self.writer = Writer(self.store, loop, self.signal.notify)
        try:
            yield
        finally:
            self.closing.set()
            await run_in_threadpool(self.writer.close)
            self.store.close()

    def _writer(self) -> Writer:
        assert self.writer is not None, "the application's lifespan has not started"
        return self.writer

    def report_refusal(self, refusal: Refusal) -> None:
        """Keep a refusal made outside a request handler (the HTTP protocol's own limits)."""
        if self.writer is not None:
            task = asyncio.get_running_loop().create_task(self.writer.refuse([refusal]))
            task.add_done_callback(lambda done: done.exception() if not done.cancelled() else None)

    # ------------------------------------------------------------------ ingest

    async def _body(self, request: Request, endpoint: str, received_at: str) -> Any:
        declared = request.headers.get("content-length")
        try:
            size = int(declared) if declared is not None else None
        except ValueError:
            size = None
        try:
            return await read_body(
                request.stream(),
                encoding=request.headers.get("content-encoding", ""),
                declared=size,
                max_bytes=self.settings.max_body_bytes,
                timeout=self.settings.body_timeout,
                head_bytes=self.settings.refused_head_bytes,
                budget=self.budget,
            )
        except BodyError as exc:
            refusal = Refusal(endpoint, exc.status, exc.reason, exc.size, exc.head, received_at)
            with contextlib.suppress(Exception):
                await self._writer().refuse([refusal])
            headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
            response = _error(exc.status, exc.reason)
            if headers:
                response.headers.update(headers)
            if exc.status in (408, 413):
                response.headers["Connection"] = "close"  # the rest of the body is not read
            return response

    async def post_event(self, request: Request) -> Response:
        received_at = now()
        body = await self._body(request, LINEAGE, received_at)
        if isinstance(body, Response):
            return body
        try:
            result: Sorted | None = sort_small_event(body.data, received_at)  # most events: no thread needed
            if result is None:
                result = await run_in_threadpool(sort_event, body.data, received_at)
            if result.received is None:
                problems = problem_dicts(result.problems)
                refusal = Refusal(
                    LINEAGE, 422, _reason(result.problems[0]), body.size, body.head, received_at,
                    problems=problems, sha256=body.sha256, producer=result.producer,
                )  # fmt: skip
                await self._writer().refuse([refusal])
                return SafeJSONResponse(
                    {"status": "refused", "message": "not a readable OpenLineage event", "problems": problems}, 422
                )
            try:
                await self._writer().store_events([result.received])
            except Exception as exc:
                return _error(503, f"the event could not be stored ({type(exc).__name__}): retry later")
        finally:
            self.budget.give(body.held)
        if result.problems:
            return SafeJSONResponse(
                {
                    "status": "stored",
                    "valid": False,
                    "message": "stored, but the event breaks the OpenLineage spec",
                    "problems": problem_dicts(result.problems),
                }
            )
        return Response(_STORED_VALID, media_type="application/json")

    async def post_batch(self, request: Request) -> Response:
        received_at = now()
        body = await self._body(request, BATCH, received_at)
        if isinstance(body, Response):
            return body
        try:
            result = await run_in_threadpool(sort_batch, body.data, received_at)
            if isinstance(result, Problem):
                refusal = Refusal(
                    BATCH, 422, _reason(result), body.size, body.head, received_at,
                    problems=problem_dicts([result]), sha256=body.sha256,
                )  # fmt: skip
                await self._writer().refuse([refusal])
                return SafeJSONResponse(
                    {"status": "refused", "message": "not a batch of events", "problems": problem_dicts([result])}, 422
                )
            stored = [s.received for s in result if s.received is not None]
            refusals, failed, with_problems = self._batch_outcome(result, received_at)
            try:
                await self._writer().store_events(stored, refusals)
            except Exception as exc:
                return _error(503, f"the batch could not be stored ({type(exc).__name__}): retry later")
        finally:
            self.budget.give(body.held)
        return SafeJSONResponse(
            {
                "status": "partial_success" if failed else "success",
                "summary": {
                    "received": len(result),
                    "successful": len(stored),
                    "failed": len(failed),
                    "retriable": 0,
                    "non_retriable": len(failed),
                },
                "failed_events": failed,
                "stored_with_problems": with_problems,
            }
        )

    def _batch_outcome(
        self, result: list[Sorted], received_at: str
    ) -> tuple[list[Refusal], list[dict[str, Any]], list[dict[str, Any]]]:
        """The refusals to keep, the spec's ``failed_events`` and olsdk's ``stored_with_problems``."""
        refusals, failed, with_problems = [], [], []
        for index, item in enumerate(result):
            problems = problem_dicts(item.problems)
            if item.received is None:
                text = json.dumps(item.document, ensure_ascii=False).encode("utf-8", "replace")
                refusals.append(
                    Refusal(
                        f"{BATCH}[{index}]", 422, _reason(item.problems[0]), len(text),
                        text[: self.settings.refused_head_bytes], received_at,
                        problems=problems, producer=item.producer,
                    )
                )  # fmt: skip
                failed.append(
                    {"index": index, "reason": str(item.problems[0]), "retriable": False, "problems": problems}
                )
            elif item.problems:
                with_problems.append({"index": index, "problems": problems})
        return refusals, failed, with_problems

    async def post_validate(self, request: Request) -> Response:
        """An event's problems (as ``olsdk validate --format json --lenient`` reports them), not stored."""
        body = await self._body(request, VALIDATE, now())
        if isinstance(body, Response):
            return body
        try:
            return SafeJSONResponse(await run_in_threadpool(check_event, body.data))
        finally:
            self.budget.give(body.held)

    # ------------------------------------------------------------------ Marquez

    async def _read(self, call: Callable[[], Any]) -> Response:
        try:
            return SafeJSONResponse(await run_in_threadpool(call))
        except _marquez.NotFound as exc:
            return _error(404, str(exc))
        except (_BadRequest, ValueError) as exc:
            return _error(400, str(exc))

    async def namespace_tree(self, request: Request) -> Response:
        """``/api/v1/namespaces[/{ns}[/jobs|datasets[/{name}[/runs]]]]``, names percent-encoded."""
        raw = request.scope.get("raw_path") or request.url.path.encode()
        rest = raw[len(_NAMESPACES) :].strip(b"/")
        try:
            parts = [urllib.parse.unquote_to_bytes(p).decode("utf-8") for p in rest.split(b"/")] if rest else []
            limit = _limit(request, self.settings.max_page_items)
            offset = _int_param(request, "offset", 0, 0, 2**62)
            states = _marquez.run_states(request.query_params.getlist("lastRunStates"))
        except UnicodeDecodeError:
            return _error(400, "the path is not UTF-8 once percent-decoded")
        except (_BadRequest, ValueError) as exc:
            return _error(400, str(exc))
        call = _namespace_call(self.store, parts, limit, offset, states)
        if call is not None:
            return await self._read(call)
        return _error(404, f"no such call: {request.url.path} (names with '/' must be percent-encoded)")

    async def get_run(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        return await self._read(lambda: _marquez.run(self.store, run_id))

    async def get_lineage(self, request: Request) -> Response:
        node_id = request.query_params.get("nodeId")
        if not node_id:
            return _error(400, "nodeId is required ('dataset:<namespace>:<name>' or 'job:<namespace>:<name>')")
        try:
            depth = _int_param(request, "depth", 20, 0, 100)
        except _BadRequest as exc:
            return _error(400, str(exc))
        return await self._read(lambda: _marquez.lineage(self.store, node_id, depth))

    async def list_events(self, request: Request) -> Response:
        try:
            limit = _limit(request, self.settings.max_page_items)
            offset = _int_param(request, "offset", 0, 0, 2**62)
        except _BadRequest as exc:
            return _error(400, str(exc))
        ascending = request.query_params.get("sortDirection", "desc").lower() == "asc"
        span = {}
        for key in ("before", "after"):
            value = request.query_params.get(key)
            if value:
                span[key] = canonical_time(value.replace(" ", "+"))  # a '+' of an offset arrives as a space
                if span[key] == NO_TIME:
                    return _error(400, f"{key}={value[:60]!r}: not an ISO 8601 date-time")
        return await self._read(lambda: _marquez.events(self.store, limit, offset, ascending, **span))


def _namespace_call(
    store: Store, parts: list[str], limit: int, offset: int, states: frozenset[str] | None = None
) -> Callable[[], Any] | None:
    """The call a path under ``/api/v1/namespaces`` names (its parts percent-decoded), or None."""
    match parts:
        case []:
            return lambda: _marquez.namespaces(store, limit, offset)
        case [ns]:
            return lambda: _marquez.namespace(store, ns)
        case [ns, "jobs"]:
            return lambda: _marquez.jobs(store, ns, limit, offset, states)
        case [ns, "jobs", name]:
            return lambda: _versions.job_with_version(store, ns, name)
        case [ns, "jobs", name, "runs"]:
            return lambda: _marquez.runs(store, ns, name, limit, offset)
        case [ns, "jobs", name, "versions"]:
            return lambda: _versions.job_versions(store, ns, name, limit, offset)
        case [ns, "jobs", name, "versions", version]:
            return lambda: _versions.job_version(store, ns, name, version)
        case [ns, "datasets"]:
            return lambda: _marquez.datasets(store, ns, limit, offset)
        case [ns, "datasets", name]:
            return lambda: _versions.dataset_with_version(store, ns, name)
        case [ns, "datasets", name, "versions"]:
            return lambda: _versions.dataset_versions(store, ns, name, limit, offset)
        case [ns, "datasets", name, "versions", version]:
            return lambda: _versions.dataset_version(store, ns, name, version)
    return None


class OwnCalls:
    """olsdk's own calls beside Marquez's: status, refusals, the page, its data and its feeds."""

    def __init__(self, state: ServeApp) -> None:
        self.state = state
        self._page: tuple[tuple[int, int], str] | None = None
        self._live: tuple[tuple[int, int], str] | None = None
        self._live_lock = threading.Lock()

    @property
    def store(self) -> Store:
        return self.state.store

    @property
    def settings(self) -> ServeSettings:
        return self.state.settings

    @property
    def signal(self) -> Changes | None:
        return self.state.signal

    @property
    def closing(self) -> asyncio.Event:
        return self.state.closing

    def _status(self) -> dict[str, Any]:
        store = self.store
        with store.engine.connect() as conn:
            stored = store.counters(conn, "stored")
            by_producer: dict[str, dict[str, int]] = {}
            for key, count in store.counters(conn, "producer_rule").items():
                producer, rule = json.loads(key)
                by_producer.setdefault(producer, {})[rule] = count
            return {
                "store": store.description,
                "cursor": store.cursor()[0],
                "events": {
                    "stored": sum(stored.values()),
                    "valid": stored.get("valid", 0),
                    "invalid": stored.get("invalid", 0),
                    "byKind": store.counters(conn, "event"),
                },
                "problems": {"byRule": store.counters(conn, "rule"), "byProducer": by_producer},
                "refused": store.counters(conn, "refused"),
                "producers": store.counters(conn, "producer"),
            }

    async def status(self, _request: Request) -> Response:
        return SafeJSONResponse(await run_in_threadpool(self._status))

    def _refused(self, after: int, limit: int) -> dict[str, Any]:
        rows = self.store.refused_rows_after(after, limit)
        return {
            "refused": [
                {
                    "id": r.id,
                    "receivedAt": r.received_at,
                    "endpoint": r.endpoint,
                    "status": r.status,
                    "reason": r.reason,
                    "problems": json.loads(r.problems) if r.problems else [],
                    "size": r.size,
                    "sha256": r.sha256,
                    "producer": r.producer,
                    "head": base64.b64encode(r.head).decode("ascii"),
                }
                for r in rows
            ]
        }

    async def refused(self, request: Request) -> Response:
        try:
            after = _int_param(request, "after", 0, 0, 2**62)
            limit = _int_param(request, "limit", 100, 1, 1000)
        except _BadRequest as exc:
            return _error(400, str(exc))
        return SafeJSONResponse(await run_in_threadpool(self._refused, after, limit))

    def _render_page(self) -> str:
        cursor, graph = self.store.graph()
        if self._page is not None and self._page[0] == cursor:
            return self._page[1]
        text = render_page(graph, title=self.settings.title, sources=[self.store.description], live_url=LIVE)
        self._page = (cursor, text)
        return text

    async def page(self, _request: Request) -> Response:
        return HTMLResponse(await run_in_threadpool(self._render_page), headers={"Cache-Control": "no-store"})

    def _graph_data(self) -> dict[str, Any]:
        cursor, graph = self.store.graph()
        data = page_data(graph, title=self.settings.title, sources=[self.store.description])
        data["cursor"] = cursor[0]
        return data

    async def graph(self, _request: Request) -> Response:
        return SafeJSONResponse(await run_in_threadpool(self._graph_data))

    def _feed_after(self, after: int) -> dict[str, Any]:
        rows = self.store.events_after(after, FEED_LIMIT)
        items = []
        for row in rows:
            facts = json.loads(facts_json(extract(json.loads(row.body))))
            items.append(
                {
                    "seq": row.seq,
                    "receivedAt": row.received_at,
                    "valid": bool(row.valid),
                    "problems": json.loads(row.problems) if row.problems else [],
                    "facts": facts,
                }
            )
        return {"cursor": rows[-1].seq if rows else after, "events": items}

    async def feed(self, request: Request) -> Response:
        """Long polling: the events stored after ``after`` (waits up to ``wait`` s for one)."""
        try:
            after = _int_param(request, "after", 0, 0, 2**62)
            wait = _int_param(request, "wait", 0, 0, int(LONG_POLL_SECONDS))
        except _BadRequest as exc:
            return _error(400, str(exc))
        signal = self.signal
        assert signal is not None
        seen = signal.version
        feed = await run_in_threadpool(self._feed_after, after)
        if not feed["events"] and wait:
            await signal.wait(seen, wait)
            feed = await run_in_threadpool(self._feed_after, after)
        return SafeJSONResponse(feed, headers={"Cache-Control": "no-store"})

    def _live_payload(self) -> tuple[tuple[int, int], str]:
        """The page data of everything stored, as one line of JSON; laid out once per change for all pages."""
        with self._live_lock:
            cursor, graph = self.store.graph()
            if self._live is not None and self._live[0] == cursor:
                return self._live
            data = page_data(graph, title=self.settings.title, sources=[self.store.description])
            self._flag_problems(data)
            self._live = (cursor, json.dumps(data, ensure_ascii=False, separators=(",", ":")))
            return self._live

    def _flag_problems(self, data: dict[str, Any]) -> None:
        """Events stored with spec problems: counted by rule and producer, and per job (``pb``)."""
        status = self._status()
        data["summary"]["specProblems"] = status["problems"]["byRule"]
        data["summary"]["specProblemsByProducer"] = status["problems"]["byProducer"]
        flagged = self.store.flagged_jobs()
        for node in data["nodes"]:
            if node["k"] == "j" and (node["ns"], node["n"]) in flagged:
                node["pb"] = flagged[node["ns"], node["n"]]

    async def live(self, _request: Request) -> Response:
        """The page's feed (docs/how-to/graph.md, "Feeding the page live"): Server-Sent Events named
        ``graph``, the whole page data each time: at once, then after each change, at most one
        per `COALESCE_SECONDS` (the first change of a quiet stream goes out at once)."""
        signal = self.signal
        assert signal is not None

        async def messages() -> AsyncIterator[bytes]:
            yield b"retry: 2000\n\n"
            sent: tuple[int, int] | None = None
            sent_at = 0.0
            loop = asyncio.get_running_loop()
            while not self.closing.is_set():
                seen = signal.version
                cursor, text = await run_in_threadpool(self._live_payload)
                if cursor != sent:
                    yield b"event: graph\ndata: " + text.encode() + b"\n\n"
                    sent, sent_at = cursor, loop.time()
                changed = asyncio.ensure_future(signal.wait(seen, HEARTBEAT_SECONDS))
                closing = asyncio.ensure_future(self.closing.wait())
                try:
                    await asyncio.wait([changed, closing], return_when=asyncio.FIRST_COMPLETED)
                finally:
                    changed.cancel()
                    closing.cancel()
                if signal.version == seen:
                    yield b": still here\n\n"  # a heartbeat: proxies and browsers keep the stream open
                else:  # at most one layout per COALESCE_SECONDS: a burst of events makes one update
                    await asyncio.sleep(max(0.0, sent_at + COALESCE_SECONDS - loop.time()))

        return StreamingResponse(
            messages(), media_type="text/event-stream", headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        )


class CatalogCalls:
    """Marquez's calls beyond namespaces, jobs, datasets and lineage (`_catalog`): every
    namespace's jobs, sources, tags, a run's facets, search and the dashboard's statistics."""

    def __init__(self, state: ServeApp) -> None:
        self.state = state

    async def _answer(self, request: Request, call: Callable[[Store], Any]) -> Response:
        try:
            store = self.state.store
            return await self.state._read(lambda: call(store))
        except _BadRequest as exc:
            return _error(400, str(exc))

    def _page(self, request: Request) -> tuple[int, int]:
        return _limit(request, self.state.settings.max_page_items), _int_param(request, "offset", 0, 0, 2**62)

    async def jobs(self, request: Request) -> Response:
        states = request.query_params.getlist("lastRunStates")
        return await self._answer(
            request, lambda store: _catalog.all_jobs(store, *self._page(request), _marquez.run_states(states))
        )

    async def sources(self, request: Request) -> Response:
        return await self._answer(request, lambda store: _catalog.sources(store, *self._page(request)))

    async def source(self, request: Request) -> Response:
        name = request.path_params["source"]
        return await self._answer(request, lambda store: _catalog.source(store, name))

    async def tags(self, request: Request) -> Response:
        return await self._answer(request, lambda store: _catalog.tags(store, *self._page(request)))

    async def run_facets(self, request: Request) -> Response:
        run_id, kind = request.path_params["run_id"], request.query_params.get("type", "run").lower()
        return await self._answer(request, lambda store: _catalog.run_facets(store, run_id, kind))

    async def search(self, request: Request) -> Response:
        params = request.query_params
        words = params.get("q", "")
        if not words.strip():
            return _error(400, "q is required: the words to search job and dataset names for")
        chosen = params.get("filter", "").upper()
        kinds = (chosen,) if chosen in ("JOB", "DATASET") else ("JOB", "DATASET")
        by_name = params.get("sort", "NAME").upper() != "UPDATE_AT"
        dates = {key: params.get(key) or None for key in ("before", "after")}
        cap = self.state.settings.max_page_items
        return await self._answer(
            request,
            lambda store: _catalog.search(
                store, words, kinds=kinds, by_name=by_name, limit=_limit(request, cap, 10),
                namespace=params.get("namespace") or None, **dates,
            ),
        )  # fmt: skip

    async def column_lineage(self, request: Request) -> Response:
        node_id = request.query_params.get("nodeId")
        if not node_id:
            return _error(
                400, "nodeId is required ('dataset:<namespace>:<name>' or 'datasetField:<namespace>:<name>:<field>')"
            )
        with_downstream = request.query_params.get("withDownstream", "false").lower() == "true"
        return await self._answer(
            request,
            lambda store: _catalog.column_lineage(
                store, node_id, _int_param(request, "depth", 20, 0, 100), with_downstream
            ),
        )

    async def upstream(self, request: Request) -> Response:
        run_id = request.query_params.get("runId")
        if not run_id:
            return _error(400, "runId is required: the run whose upstream runs to list")
        return await self._answer(
            request, lambda store: _versions.upstream_runs(store, run_id, _int_param(request, "depth", 20, 0, 100))
        )

    async def stats(self, request: Request) -> Response:
        what = request.path_params["what"]
        period, zone = request.query_params.get("period", "").upper(), request.query_params.get("timezone")
        if what == "lineage-events":
            return await self._answer(request, lambda store: _catalog.stats_events(store, period, zone))
        if what in ("jobs", "datasets", "sources"):
            return await self._answer(request, lambda store: _catalog.stats_counts(store, what, period, zone))
        return _error(404, f"no such statistics: {what} (lineage-events, jobs, datasets, sources)")


class _ApiKey:
    """Every call needs the key when one is set: ``Bearer KEY`` or HTTP Basic with KEY as password."""

    def __init__(self, app: ASGIApp, key: str, on_refused: Callable[[Refusal], None]) -> None:
        self.app = app
        self.key = key.encode()
        self.on_refused = on_refused

    def _allowed(self, header: bytes) -> bool:
        scheme, _, credentials = header.partition(b" ")
        credentials = credentials.strip()
        if scheme.lower() == b"bearer":
            return hmac.compare_digest(credentials, self.key)
        if scheme.lower() == b"basic":
            try:
                decoded = base64.b64decode(credentials, validate=True)
            except ValueError:
                return False
            return hmac.compare_digest(decoded.partition(b":")[2], self.key)
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = next((v for k, v in scope["headers"] if k == b"authorization"), b"")
        if self._allowed(header):
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if scope.get("method") == "POST":
            reason = "no API key" if not header else "wrong API key"
            self.on_refused(Refusal(path, 401, reason, 0, b"", now()))
        challenge = 'Basic realm="olsdk serve"' if not path.startswith("/api/") else 'Bearer realm="olsdk serve"'
        response = _error(401, "an API key is required (Authorization: Bearer KEY)")
        response.headers["WWW-Authenticate"] = challenge
        await response(scope, receive, send)


class _CaughtUp:
    """Every read waits until the rows derived from the events stored before it are written
    (`Writer.caught_up`): a client that posted, then reads, reads what it posted. A post of
    one event, the most frequent call, goes straight to its handler (the routes would find
    the same one, at a cost that counts at thousands of posts a second)."""

    def __init__(self, app: ASGIApp, state: ServeApp) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            method = scope["method"]
            if method == "POST" and scope["path"] == LINEAGE and not scope.get("root_path"):
                response = await self.state.post_event(Request(scope, receive, send))
                await response(scope, receive, send)
                return
            writer = self.state.writer
            if writer is not None and method in ("GET", "HEAD"):
                await writer.caught_up()
        await self.app(scope, receive, send)


def create_app(settings: ServeSettings) -> Starlette:
    """The ASGI application (Starlette) of `settings`; its store is opened now, so a bad ``db`` fails here."""
    return build_app(settings)[0]


def build_app(settings: ServeSettings, store: Store | None = None) -> tuple[Starlette, ServeApp]:
    """`create_app`, and the state behind it (the server reports protocol-level refusals to it)."""
    store = store or Store(
        settings.db,
        refused_rows=settings.refused_rows,
        max_response_bytes=settings.max_response_bytes,
        retention_days=settings.retention_days,
    )
    state = ServeApp(settings, store)
    catalog = CatalogCalls(state)
    own = OwnCalls(state)
    get = ["GET", "HEAD"]
    endpoints: list[tuple[str, Callable[[Request], Awaitable[Response]], list[str]]] = [
        ("/", own.page, get),
        (LINEAGE, state.post_event, ["POST"]),
        (LINEAGE, state.get_lineage, get),
        (BATCH, state.post_batch, ["POST"]),
        (VALIDATE, state.post_validate, ["POST"]),
        ("/api/v1/namespaces", state.namespace_tree, get),
        ("/api/v1/namespaces/{rest:path}", state.namespace_tree, get),
        ("/api/v1/jobs/runs/{run_id}", state.get_run, get),
        ("/api/v1/jobs/runs/{run_id}/facets", catalog.run_facets, get),
        ("/api/v1/jobs", catalog.jobs, get),
        ("/api/v1/sources", catalog.sources, get),
        ("/api/v1/sources/{source:path}", catalog.source, get),
        ("/api/v1/tags", catalog.tags, get),
        ("/api/v1/search", catalog.search, get),
        ("/api/v1/column-lineage", catalog.column_lineage, get),
        ("/api/v1/runlineage/upstream", catalog.upstream, get),
        ("/api/v1/stats/{what}", catalog.stats, get),
        ("/api/v1/events/lineage", state.list_events, get),
        ("/api/v1/events", state.list_events, get),  # where marquez-python's list_events() asks
        ("/api/olsdk/status", own.status, get),
        ("/api/olsdk/refused", own.refused, get),
        ("/api/olsdk/graph", own.graph, get),
        ("/api/olsdk/changes", own.feed, get),
        (LIVE, own.live, get),
    ]
    app = Starlette(
        routes=[Route(path, endpoint, methods=methods) for path, endpoint, methods in endpoints],
        lifespan=state.lifespan,
        exception_handlers={HTTPException: _http_error, Exception: _server_error},
    )
    app.add_middleware(_CaughtUp, state=state)
    if settings.api_key:
        app.add_middleware(_ApiKey, key=settings.api_key, on_refused=state.report_refusal)
    app.add_middleware(  # the outermost: refused before the key is looked at
        RequestGuard,
        hosts=served_hosts(settings.host, settings.allowed_hosts),
        origins=settings.allowed_origins,
        json_paths=frozenset({LINEAGE, BATCH, VALIDATE}),
        on_refused=state.report_refusal,
    )
    return app, state


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own answers (no such route, method not allowed) in the API's JSON shape."""
    assert isinstance(exc, HTTPException)
    message = f"no such call: {request.method} {request.url.path}" if exc.status_code == 404 else str(exc.detail)
    response = _error(exc.status_code, message)
    if exc.headers:
        response.headers.update(exc.headers)
    return response


async def _server_error(_request: Request, exc: Exception) -> Response:
    log.error("olsdk serve: an answer failed (%s)", type(exc).__name__, exc_info=exc)
    return _error(500, f"the server failed to answer ({type(exc).__name__})")
