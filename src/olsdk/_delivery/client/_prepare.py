"""From what ``emit`` was given to the one payload the store keeps and the transport sends.

The event is serialised once (``_input.serialise``); the client's producer, its job-name
filters and (when configured) its enrichment apply here; a dict or text is checked against
the spec once. The bytes of the returned payload are the bytes stored and sent.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from olsdk._delivery.client._filters import JobNameFilter
from olsdk._delivery.client._input import serialise
from olsdk._delivery.transports._base import Payload, describe_event
from olsdk._models._runtime._bases import _DEFAULT_PRODUCER as BUILTIN_PRODUCER
from olsdk._models._runtime._pydantic import dump_data

if TYPE_CHECKING:
    from olsdk._delivery.client._enrich import Enricher
    from olsdk._delivery.client._settings import ClientSettings

__all__ = ["BUILTIN_PRODUCER", "Preparer"]

log = logging.getLogger("olsdk.client")


class Preparer:
    """The payload of an event for one client (its producer, filters and enrichment)."""

    def __init__(self, producer: str, max_event_bytes: int) -> None:
        self.producer = producer
        self.max_event_bytes = max_event_bytes
        self.strict = False  # the ``raise`` policy: an event that breaks the spec raises
        self.filters: list[JobNameFilter] = []
        self.enricher: Enricher | None = None
        self._swap: tuple[tuple[bytes, bytes], ...] = ()
        self._builtin = json.dumps(BUILTIN_PRODUCER).encode()
        self._set_swap()

    def configure(self, settings: ClientSettings, env: Mapping[str, str]) -> None:
        self.producer = settings.producer or self.producer
        self.max_event_bytes = settings.max_event_bytes
        self.strict = settings.error_policy == "raise"
        self.filters = [JobNameFilter(f) for f in settings.filters]
        self._set_swap()
        if settings.enriches:  # the enrichment code (and the naming builders it uses) only when asked
            from olsdk._delivery.client._enrich import Enricher

            self.enricher = Enricher(settings, self.producer, env)

    def _set_swap(self) -> None:
        """A model built with olsdk's built-in producer (no producer given) gets this client's,
        in its ``producer`` and its facets' ``_producer``, as it is serialised; one given
        explicitly is kept. The caller's model is not changed."""
        if self.producer == BUILTIN_PRODUCER:
            self._swap = ()
            return
        mine = json.dumps(self.producer).encode()
        self._swap = tuple(
            (b'"%s":%s' % (key, self._builtin), b'"%s":%s' % (key, mine)) for key in (b"producer", b"_producer")
        )

    def payload(self, event: Any) -> Payload | None:
        """The payload to send; None when a filter drops the event; ``Refused`` when it is no event."""
        if self.enricher is not None:
            return self._enriched(event)
        if isinstance(event, str | bytes | bytearray):
            typed = self._typed_text(event)
            if typed is not None:
                return typed if not JobNameFilter.any_drops(self.filters, typed) else None
        raw, data = serialise(event, self.max_event_bytes)
        if data is None:  # a model: typed and valid already
            payload = describe_event(event, self._own_producer(raw))
        else:
            self._check(raw)
            payload = describe_event(data, raw)
        return None if JobNameFilter.any_drops(self.filters, payload) else payload

    def _typed_text(self, event: str | bytes | bytearray) -> Payload | None:
        """Event text that is a valid event, read once into its model (which gives the routing
        facts); None for anything else, which takes the checks of ``serialise``."""
        from olsdk._foundation._exceptions import ValidationError
        from olsdk._readers._events import parse_event

        try:
            raw = event.encode("utf-8") if isinstance(event, str) else bytes(event)
        except UnicodeEncodeError:
            return None
        if len(raw) > self.max_event_bytes or b"NaN" in raw or b"Infinity" in raw:
            return None  # refused, or a number JSON does not allow: said by serialise
        try:
            return describe_event(parse_event(raw), raw)
        except (ValidationError, ValueError, RecursionError):
            return None

    def _own_producer(self, raw: bytes) -> bytes:
        if not self._swap or self._builtin not in raw:
            return raw
        for old, new in self._swap:
            raw = raw.replace(old, new)
        return raw

    def _enriched(self, event: Any) -> Payload | None:
        """Enrichment applies to the event as data (a model's, this client's producer in it),
        before its one serialisation; the result is checked once."""
        if isinstance(event, BaseModel):
            data = dump_data(event)
            if self._swap:
                _swap_producer(data, BUILTIN_PRODUCER, self.producer)
        elif isinstance(event, Mapping):
            data = dict(event)  # serialised (and refused if it cannot be) once enriched
        else:
            data = serialise(event, self.max_event_bytes)[1]  # text (or an official event) read once
        if not isinstance(data, dict):
            raise ValueError("an OpenLineage event must be a JSON object")
        if JobNameFilter.any_drops(self.filters, describe_event(data, b"")):
            return None
        assert self.enricher is not None
        data = self.enricher.apply(data)  # the caller's mapping is not changed (copies on write)
        raw = serialise(data, self.max_event_bytes)[0]
        self._check(raw)
        return describe_event(data, raw)

    def _check(self, raw: bytes) -> None:
        """Event JSON given as text or a dict, checked against the spec's models once.

        With the ``raise`` policy a mismatch raises ``olsdk.ValidationError``; otherwise it is
        logged with every problem and the event is still sent as given: the sender's data is
        not dropped, and the backend keeps the last word."""
        from olsdk._foundation._exceptions import ValidationError
        from olsdk._readers._events import parse_event

        try:
            parse_event(raw)
        except ValidationError as exc:
            if self.strict:
                raise
            log.warning("OpenLineage event does not match the spec; sending it as given. %s", exc)


def _swap_producer(data: Any, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` as the value of every ``producer`` and ``_producer`` key."""
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("producer", "_producer") and value == old:
                    node[key] = new
                elif isinstance(value, dict | list):
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(item for item in node if isinstance(item, dict | list))
