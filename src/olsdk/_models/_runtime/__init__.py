"""The runtime the generated models stand on; it imports nothing generated.

The generator (codegen/) emits one class per spec definition; the classes at the roots
of its hierarchy subclass the bases here, and the generated metadata is bound to them
at import (`bind_metadata`). One job per module, each importing only those below it in
this list:

- `_facet_maps`: the typed facet maps (`FacetContainer`) and `bind_metadata`;
- `_bases`: `OLModel`, `FacetModel`, `EventModel`, `DeletedFacet`, the default producer
  and `dump_json`;
- `_records`: `OLRecord`, the objects that repeat inside facets, as typed dicts;
- `_strings`: the uuid, uri and date-time formats as field types;
- `_pydantic`: everything olsdk relies on in pydantic beyond its public API: the
  private attributes it reads or sets, and the core-schema rewriting that makes every
  class's validation exactly the spec's (JSON Schema types, no `null`, deletion markers).

The names below are what the generated code and the hand-written layer import.
"""

from __future__ import annotations

from olsdk._foundation._exceptions import OTHER_FORM
from olsdk._foundation._exceptions import models_in as _models_in
from olsdk._foundation._formats import DATETIME_PATTERN, URI_PATTERN, UUID_PATTERN
from olsdk._models._runtime._bases import (
    DeletedFacet,
    EventModel,
    FacetModel,
    OLModel,
    OLRootModel,
    built,
    dump_json,
    get_default_producer,
    resolve_fields,
    set_default_producer,
    utc_now,
)
from olsdk._models._runtime._facet_maps import FacetContainer, bind_metadata, registry_context
from olsdk._models._runtime._pydantic import JSONValue
from olsdk._models._runtime._records import OLRecord
from olsdk._models._runtime._strings import (
    FILLED_ON_CONSTRUCTION,
    NOT_SENT,
    PATTERN_RULES,
    PYTHON_FORMS,
    DateTimeStr,
    OptionalDateTimeStr,
    OptionalUUIDStr,
    URIStr,
    UUIDStr,
    _Format,
    is_uri,
)

__all__ = [
    "DATETIME_PATTERN",
    "FILLED_ON_CONSTRUCTION",
    "NOT_SENT",
    "OTHER_FORM",
    "PATTERN_RULES",
    "PYTHON_FORMS",
    "URI_PATTERN",
    "UUID_PATTERN",
    "DateTimeStr",
    "DeletedFacet",
    "EventModel",
    "FacetContainer",
    "FacetModel",
    "JSONValue",
    "OLModel",
    "OLRecord",
    "OLRootModel",
    "OptionalDateTimeStr",
    "OptionalUUIDStr",
    "URIStr",
    "UUIDStr",
    "_Format",
    "_models_in",
    "bind_metadata",
    "built",
    "dump_json",
    "get_default_producer",
    "is_uri",
    "registry_context",
    "resolve_fields",
    "set_default_producer",
    "utc_now",
]
