"""The validated shape of the whole configuration (``openlineage.yml``).

Top-level keys of the official client (``transport``, ``facets``, ``filters``,
``tags``, ``dataset``) plus olsdk's own (``producer``, ``error_policy``, ``spool``,
``breaker``, ``close_timeout``), which the official client ignores, so one file serves both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from olsdk._delivery._config._engine import meta
from olsdk._foundation._exceptions import ConfigError
from olsdk._foundation._secrets import masked

__all__ = [
    "BreakerSettings",
    "ClientSettings",
    "DatasetSettings",
    "ErrorPolicy",
    "FacetsSettings",
    "FilterSettings",
    "SourceCodeLocationSettings",
    "SpoolSettings",
    "TagsSettings",
]

#: what the client does after spooling an event it could not deliver: ``log`` a
#: warning, or ``raise`` a DeliveryError (code may also pass a callable instead)
ErrorPolicy: TypeAlias = Literal["log", "raise"]


@dataclass(frozen=True)
class FilterSettings:
    """Drop run events by job name: ``exact`` compares, ``regex`` matches at the start."""

    type: Literal["exact", "regex"]
    match: str | None = None
    regex: str | None = None

    def __post_init__(self) -> None:
        if self.type == "exact" and self.match is None:
            raise ConfigError("filters: an 'exact' filter needs 'match'", "filters.match")
        if self.type == "regex":
            if self.regex is None:
                raise ConfigError("filters: a 'regex' filter needs 'regex'", "filters.regex")
            try:
                re.compile(self.regex)
            except re.error as exc:
                raise ConfigError(
                    f"filters.regex: invalid regular expression {self.regex!r}: {exc}",
                    "filters.regex",
                ) from None


@dataclass(frozen=True)
class SourceCodeLocationSettings:
    disabled: bool = True
    repo_url: str | None = None
    version: str | None = None
    tag: str | None = None
    branch: str | None = None
    pull_request_number: str | None = None


@dataclass(frozen=True)
class FacetsSettings:
    environment_variables: list[str] = field(default_factory=list)
    source_code_location: SourceCodeLocationSettings = field(default_factory=SourceCodeLocationSettings)


@dataclass(frozen=True)
class TagsSettings:
    job: dict[str, str] = field(default_factory=dict)
    run: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class DatasetSettings:
    reducing_enabled: bool = False
    disabled_trimmers: list[str] = field(default_factory=list)
    extra_trimmers: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SpoolSettings:
    path: str | None = None  # default: $XDG_STATE_HOME/olsdk/spool.ndjson
    enabled: bool = True
    # every event is written to the outbox (<path>.outbox/) before emit returns
    write_ahead: bool = True
    # "never": a record survives the process being killed (page cache); "always": power loss too
    fsync: Literal["never", "always"] = "never"
    # deliver, in the background, what processes that are gone left in the outbox
    finish: bool = True
    # ...starting this many seconds after the client starts (a short-lived process never does)
    finish_delay: float = field(default=1.0, metadata=meta(ge=0))


@dataclass(frozen=True)
class BreakerSettings:
    """The circuit breaker of each destination (see ``olsdk._delivery.transports._breaker``)."""

    enabled: bool = True
    threshold: int = field(default=1, metadata=meta(ge=1))  # unreachable failures in a row that open it
    cooldown: float = field(default=1.0, metadata=meta(gt=0))  # first wait before a probe, seconds
    max_cooldown: float = field(default=60.0, metadata=meta(gt=0))  # the longest wait between probes


@dataclass(frozen=True)
class ClientSettings:
    transport: dict[str, Any] | None = None
    facets: FacetsSettings = field(default_factory=FacetsSettings)
    filters: list[FilterSettings] = field(default_factory=list)
    tags: TagsSettings = field(default_factory=TagsSettings)
    dataset: DatasetSettings = field(default_factory=DatasetSettings)
    producer: str | None = None
    error_policy: ErrorPolicy = "log"
    spool: SpoolSettings = field(default_factory=SpoolSettings)
    breaker: BreakerSettings = field(default_factory=BreakerSettings)
    # seconds close() (and interpreter exit) may take in all; what is left stays in the outbox
    close_timeout: float = field(default=5.0, metadata=meta(ge=0))
    # a larger event is refused (kept in the spool as text, never sent)
    max_event_bytes: int = field(default=10 * 1024 * 1024, metadata=meta(ge=1))

    @property
    def enriches(self) -> bool:
        """Whether any enrichment key is set (events are then changed before delivery)."""
        return bool(
            self.facets.environment_variables
            or not self.facets.source_code_location.disabled
            or self.tags.job
            or self.tags.run
            or self.dataset.reducing_enabled
        )

    def __repr__(self) -> str:
        return f"ClientSettings(transport={masked(self.transport)!r}, ...)"
