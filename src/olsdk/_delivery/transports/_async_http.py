"""``type: async_http``: the official non-blocking HTTP transport's keys on olsdk's
buffered delivery.

The section is an ``http`` section plus ``max_queue_size`` and
``max_concurrent_requests``. It builds an :class:`HttpTransport` inside a
:class:`BufferedTransport`: ``emit`` returns at once, a background worker posts, a
run's events keep their order, and nothing is dropped: when the queue is full the
caller waits (``on_full: block``, as the official transport waits for room) up to the
buffered wrapper's ``block_timeout``, then the event is spooled; whatever is queued at
``close()`` past its timeout is spooled too.

``max_concurrent_requests`` maps onto the buffered wrapper's number of workers
(``workers``), at most 32 (a worker is a thread, where the official transport runs
asyncio tasks); with one worker the events are still all delivered, one request at a time.
"""

from __future__ import annotations

from pydantic import Field

from olsdk._delivery.transports._buffered import BufferedSettings, BufferedTransport
from olsdk._delivery.transports._http import HttpSettings, HttpTransport

__all__ = ["AsyncHttpSettings", "build_async_http", "queue_settings"]

_MAX_WORKERS = 32


class AsyncHttpSettings(HttpSettings):
    max_queue_size: int = Field(default=10_000, ge=1)
    max_concurrent_requests: int = Field(default=100, ge=1)


def queue_settings(settings: AsyncHttpSettings) -> BufferedSettings:
    """The buffered wrapper's settings for an ``async_http`` section."""
    queue = BufferedSettings(
        max_queue_size=settings.max_queue_size,
        on_full="block",
        workers=min(settings.max_concurrent_requests, _MAX_WORKERS),  # one worker per allowed request
    )
    batch = settings.batch
    if batch is not None and batch.enabled:
        batching = {"batch_size": batch.max_events, "batch_bytes": batch.max_bytes, "linger": batch.linger}
        queue = queue.model_copy(update=batching)
    return queue


class _AsyncHttpPoster(HttpTransport):
    kind = "async_http"  # spool records name the configured kind


def build_async_http(settings: AsyncHttpSettings, *, name: str | None = None, priority: int = 0) -> BufferedTransport:
    inner = _AsyncHttpPoster(settings, name=name, priority=priority)
    return BufferedTransport(inner, queue_settings(settings), name=name, priority=priority)
