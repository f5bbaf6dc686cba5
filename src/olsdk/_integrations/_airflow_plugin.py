"""The ``olsdk`` Airflow plugin: olsdk loaded once in a task process that delivers through it.

In its default fork mode, Airflow's OpenLineage provider emits each event from a child
process forked for that one event, and builds its client there. Through
``olsdk.compat.OlsdkTransport``, each child would import olsdk anew: about 0.2 s of CPU, and
enough new objects to start a full garbage collection of the heap it inherited, which in a
large task process costs half a second more (every object touched, every page copied).
Loaded once in the parent, before the first fork, olsdk is shared by every child.

Airflow loads the plugins its packages declare (entry point group ``airflow.plugins``) in
each of its processes. This one reads the provider's OpenLineage configuration as ``olsdk
replay`` does, and loads the rest of olsdk only when a transport there is olsdk's; any
failure leaves the process as it was (the children then load olsdk themselves).
"""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Mapping
from typing import Any

from airflow.plugins_manager import AirflowPlugin  # type: ignore[import-not-found, unused-ignore]

from olsdk._delivery._config import merge_sources
from olsdk._integrations._airflow_config import airflow_config

__all__ = ["OlsdkAirflowPlugin", "delivers_through_olsdk", "preload"]

log = logging.getLogger("olsdk.airflow")

# What a child imports to build ``OlsdkTransport`` and its client.
_MODULES = ("olsdk.compat", "olsdk._delivery.client._client")


def _olsdk_sections(section: Any) -> list[Mapping[str, Any]]:
    """Every transport section at or under ``section`` whose type is olsdk's (a composite's
    children included), outermost first."""
    if not isinstance(section, Mapping):
        return []
    found: list[Mapping[str, Any]] = []
    kind = section.get("type")
    if isinstance(kind, str) and kind.strip().lower().startswith("olsdk"):
        found.append(section)
    children = section.get("transports")
    values = children.values() if isinstance(children, Mapping) else children if isinstance(children, list) else []
    for child in values:
        found.extend(_olsdk_sections(child))
    return found


def delivers_through_olsdk(environ: Mapping[str, str]) -> Mapping[str, Any] | None:
    """The olsdk transport section of the configuration the provider uses, or None."""
    merged = merge_sources(host=airflow_config(environ), environ=environ)
    sections = _olsdk_sections(merged.data.get("transport"))
    return sections[0] if sections else None


# An event as the official client writes one: reading it builds the validator every event the
# provider hands over is read with.
_FIRST_EVENT = (
    b'{"eventTime":"2025-01-01T00:00:00+00:00","eventType":"START","inputs":[],"outputs":[],'
    b'"job":{"namespace":"olsdk","name":"preload","facets":{}},'
    b'"run":{"runId":"01942a3c-9b00-7000-8000-000000000000","facets":{}},'
    b'"producer":"https://github.com/olsdk/olsdk","schemaURL":"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"}'
)


def preload(section: Mapping[str, Any]) -> None:
    """Import what a child needs to build and use ``OlsdkTransport``, and build the validators
    it uses: its configuration's settings and the event reader's (each is built on first use
    otherwise: in every child)."""
    for module in _MODULES:
        importlib.import_module(module)
    from olsdk._delivery.client._config import load_config
    from olsdk._readers._events import parse_event

    inner = section.get("transport")
    if isinstance(inner, Mapping):
        load_config({"transport": dict(inner)}, environ={})
    parse_event(_FIRST_EVENT)


class OlsdkAirflowPlugin(AirflowPlugin):  # type: ignore[misc, unused-ignore]
    """Loads olsdk in Airflow's processes whose OpenLineage transport is olsdk's."""

    name = "olsdk"

    @classmethod
    def on_load(cls, *args: Any, **kwargs: Any) -> None:
        try:
            section = delivers_through_olsdk(os.environ)
            if section is not None:
                preload(section)
        except Exception:  # a plugin never stops Airflow: each child then loads olsdk itself
            log.debug("olsdk was not loaded ahead of the provider's forks", exc_info=True)
