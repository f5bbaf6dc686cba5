"""The client's settings: the validated shape of ``openlineage.yml``, the official client's top-level
keys (``transport``, ``facets``, ``filters``, ``tags``, ``dataset``) and olsdk's own, which the official
client ignores. Each transport's settings live with the transport, the breaker's with the breaker."""

from __future__ import annotations

import re
from typing import Any, Literal, TypeAlias

from pydantic import Field, model_validator

from olsdk._delivery._config import Settings
from olsdk._delivery.transports._breaker import BreakerSettings
from olsdk._foundation._exceptions import ConfigError
from olsdk._foundation._secrets import masked

#: what the client does after spooling an event it could not deliver: ``log`` a
#: warning, or ``raise`` a DeliveryError (code may also pass a callable instead)
ErrorPolicy: TypeAlias = Literal["log", "raise"]


class FilterSettings(Settings):
    """Drop run events by job name: ``exact`` compares, ``regex`` matches at the start."""

    type: Literal["exact", "regex"]
    match: str | None = None
    regex: str | None = None

    @model_validator(mode="after")
    def _complete(self) -> FilterSettings:
        if self.type == "exact" and self.match is None:
            raise ConfigError("filters: an 'exact' filter needs 'match'", "filters.match")
        if self.type == "regex" and self.regex is None:
            raise ConfigError("filters: a 'regex' filter needs 'regex'", "filters.regex")
        try:
            re.compile(self.regex or "")
        except re.error as exc:
            raise ConfigError(
                f"filters.regex: invalid regular expression {self.regex!r}: {exc}", "filters.regex"
            ) from None
        return self


class SourceCodeLocationSettings(Settings):
    disabled: bool = True
    repo_url: str | None = None
    version: str | None = None
    tag: str | None = None
    branch: str | None = None
    pull_request_number: str | None = None


class FacetsSettings(Settings):
    environment_variables: list[str] = Field(default_factory=list)
    source_code_location: SourceCodeLocationSettings = Field(default_factory=SourceCodeLocationSettings)


class TagsSettings(Settings):
    job: dict[str, str] = Field(default_factory=dict)
    run: dict[str, str] = Field(default_factory=dict)


class DatasetSettings(Settings):
    reducing_enabled: bool = False
    disabled_trimmers: list[str] = Field(default_factory=list)
    extra_trimmers: list[str] = Field(default_factory=list)


class SpoolSettings(Settings):
    path: str | None = None  # the store (SQLite); default: $XDG_STATE_HOME/olsdk/spool.db
    enabled: bool = True
    write_ahead: bool = True  # every event is committed to the store before emit returns
    # "never": a record survives the process being killed (page cache); "always": power loss too
    fsync: Literal["never", "always"] = "never"
    finish: bool = True  # deliver, in the background, what processes that are gone left in the store
    finish_delay: float = Field(default=1.0, ge=0)  # ...starting this many seconds after the client starts


class ClientSettings(Settings):
    transport: dict[str, Any] | None = None  # checked and built by the transports layer
    facets: FacetsSettings = Field(default_factory=FacetsSettings)
    filters: list[FilterSettings] = Field(default_factory=list)
    tags: TagsSettings = Field(default_factory=TagsSettings)
    dataset: DatasetSettings = Field(default_factory=DatasetSettings)
    producer: str | None = None
    error_policy: ErrorPolicy = "log"
    spool: SpoolSettings = Field(default_factory=SpoolSettings)
    breaker: BreakerSettings = Field(default_factory=BreakerSettings)
    # seconds close() (and interpreter exit) may take; the rest stays in the store
    close_timeout: float = Field(default=5.0, ge=0)
    max_event_bytes: int = Field(default=10 * 1024 * 1024, ge=1)  # a larger event is refused (spooled as text)

    @property
    def enriches(self) -> bool:
        """Whether any enrichment key is set (events are then changed before delivery)."""
        facets, tags = self.facets, self.tags
        code = not facets.source_code_location.disabled
        return bool(facets.environment_variables or code or tags.job or tags.run or self.dataset.reducing_enabled)

    def __repr__(self) -> str:
        return f"ClientSettings(transport={masked(self.transport)!r}, ...)"
