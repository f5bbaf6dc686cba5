"""The Java agent's ``spark.openlineage.*`` settings, read the agent's way.

Keys are split on dots into a tree (``transport.auth.apiKey``), except below
``transport.properties.``, ``transport.urlParams.`` and ``transport.headers.``, where
the rest of the key is one name; a value ``[a;b]`` is a list. The transport tree is
then translated into an ``openlineage.yml`` transport section (Java names such as
``timeoutInMillis``, ``location`` or ``topicName`` become olsdk's), so the same
``--conf`` keys that configure the agent configure olsdk. What the agent's keys do
not set falls back to the olsdk client's own configuration (``openlineage.yml``,
``OPENLINEAGE_*``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import Field

from olsdk._builders._build import RunRef
from olsdk._delivery._config import Settings, build, display_names
from olsdk._foundation._exceptions import ConfigError

__all__ = ["PREFIX", "SparkSettings", "Tag", "conf_tree", "transport_config"]

PREFIX = "spark.openlineage."
_WHOLE_KEY_PREFIXES = ("transport.properties.", "transport.urlParams.", "transport.headers.")
# Facets the agent never emits unless asked (SparkOpenLineageConfig.DISABLED_BY_DEFAULT).
_DISABLED_BY_DEFAULT = frozenset({"spark_unknown", "spark.logicalPlan", "debug"})


@dataclass(frozen=True)
class Tag:
    """A ``tags`` facet entry from ``job.tags`` / ``run.tags`` (``key:value:SOURCE``, or a label)."""

    key: str
    value: str
    source: str = "CONFIG"


def _truthy(value: Any) -> bool:
    return str(value).strip().lower() in ("true", "1", "yes", "on")


def conf_tree(conf: Mapping[str, str]) -> dict[str, Any]:
    """``spark.openlineage.*`` keys as a nested dict, the agent's way (``ArgumentParser``)."""
    tree: dict[str, Any] = {}
    for key, raw in sorted(conf.items()):
        if not key.startswith(PREFIX) or raw is None or not str(raw).strip():
            continue
        path = key[len(PREFIX) :]
        prefix = next((p for p in _WHOLE_KEY_PREFIXES if path.startswith(p)), None)
        parts = [*prefix.rstrip(".").split("."), path[len(prefix) :]] if prefix else path.split(".")
        value: Any = str(raw)
        if value.startswith("[") and value.endswith("]"):
            value = [item for item in value[1:-1].split(";") if item.strip()]
        node = tree
        for part in parts[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node[parts[-1]] = value
    return tree


# Java transport names -> olsdk's (openlineage.yml) names, per transport type.
_RENAMES: dict[str, dict[str, str]] = {
    "http": {"headers": "custom_headers"},
    "file": {"location": "log_file_path"},
    "kafka": {"topicName": "topic", "properties": "config"},
}


def transport_config(tree: Mapping[str, Any], where: str = "spark.openlineage.transport") -> dict[str, Any]:
    """The agent's transport tree as an ``openlineage.yml`` ``transport:`` section."""
    kind = str(tree.get("type") or "").strip().lower()
    if not kind:
        raise ConfigError(f"{where}.type: required to configure a transport (http, file, console, kafka, ...)")
    out: dict[str, Any] = {}
    renames = _RENAMES.get(kind, {})
    for key, value in tree.items():
        if key == "timeoutInMillis":
            try:
                out["timeout"] = float(value) / 1000.0
            except ValueError as error:
                raise ConfigError(
                    f"{where}.timeoutInMillis: must be a number of milliseconds, got {value!r}"
                ) from error
        elif key == "urlParams":
            continue  # appended to the URL below
        elif kind == "composite" and key == "transports" and isinstance(value, Mapping):
            out["transports"] = {
                name: transport_config(child, f"{where}.transports.{name}")
                for name, child in value.items()
                if isinstance(child, Mapping)
            }
        else:
            out[renames.get(key, key)] = value
    out["type"] = kind
    if kind == "file":
        # The agent's file transport appends one line per event to `location`; the
        # official Python client's default (one file per event) is not what a Spark user set.
        out.setdefault("append", True)
    if kind == "http" and out.get("url"):
        _split_url(out, tree.get("urlParams") or {})
    return out


def _split_url(section: dict[str, Any], params: Mapping[str, Any]) -> None:
    """A URL with a path gives the endpoint (as the agent's ``UrlParser`` does); ``urlParams`` join its query."""
    parts = urlsplit(str(section["url"]))
    query = "&".join(p for p in [parts.query, *(f"{k}={v}" for k, v in params.items())] if p)
    if parts.path.strip("/") and "endpoint" not in section:
        section["endpoint"] = parts.path
        section["url"] = urlunsplit((parts.scheme, parts.netloc, "", "", ""))
    if query:
        base = urlsplit(str(section["url"]))
        section["url"] = urlunsplit((base.scheme, base.netloc, base.path, query, ""))


def _tags(value: Any) -> list[Tag]:
    items = value if isinstance(value, list) else str(value or "").split(";")
    out: list[Tag] = []
    for item in items:
        parts = [p.strip() for p in str(item).split(":")]
        if not parts[0]:
            continue
        if len(parts) == 1:
            out.append(Tag(parts[0], "true"))
        elif len(parts) == 2:
            out.append(Tag(parts[0], parts[1]))
        else:
            out.append(Tag(parts[0], ":".join(parts[1:-1]), parts[-1] or "CONFIG"))
    return out


def _run_ref(tree: Mapping[str, Any], prefix: str) -> RunRef | None:
    ns, name, run_id = (tree.get(f"{prefix}JobNamespace"), tree.get(f"{prefix}JobName"), tree.get(f"{prefix}RunId"))
    return RunRef(str(ns), str(name), str(run_id)) if ns and name and run_id else None


def _section(tree: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = tree.get(key)
    return dict(value) if isinstance(value, Mapping) else {}


def _at(tree: Any, dotted: str) -> Any:
    """The value at a dotted key of the tree, or None."""
    for key in dotted.split("."):
        tree = tree.get(key) if isinstance(tree, Mapping) else None
    return tree


def _disabled_facets(facets: Mapping[str, Any]) -> frozenset[str]:
    """The agent's defaults, plus ``facets.disabled`` (``[a;b]``), each ``facets.<name>.disabled`` deciding last."""
    listed = facets.get("disabled")
    listed = listed.replace(";", ",").split(",") if isinstance(listed, str) else listed
    disabled = {*_DISABLED_BY_DEFAULT, *(listed if isinstance(listed, list) else ())}
    for name, value in facets.items():
        if isinstance(value, dict) and "disabled" in value:
            (disabled.add if _truthy(value["disabled"]) else disabled.discard)(name)
    return frozenset(name.strip() for name in disabled if name.strip())


class SparkSettings(Settings):
    """What ``install()`` takes from ``spark.openlineage.*`` (see the module docstring). A field read from one
    key has that key as its alias: pydantic reads it the client's way (switches, ``a,b`` lists), and a value
    that is not what the setting takes is a ConfigError naming the key."""

    namespace: str | None = None
    app_name: str | None = Field(default=None, validation_alias="appName")
    application_run_id: str | None = Field(default=None, validation_alias="applicationRunId")
    disabled: bool = False
    parent: RunRef | None = None
    root: RunRef | None = None
    transport: dict[str, Any] | None = None  # an openlineage.yml transport section
    disabled_facets: frozenset[str] = _DISABLED_BY_DEFAULT
    captured_properties: tuple[str, ...] = Field(default=(), validation_alias="capturedProperties")
    job_tags: tuple[Tag, ...] = ()
    run_tags: tuple[Tag, ...] = ()
    job_owners: tuple[tuple[str, str], ...] = ()  # (type, name)
    column_lineage: bool = True
    dataset_lineage: bool = Field(default=True, validation_alias="columnLineage.datasetLineageEnabled")
    append_dataset_name: bool = Field(default=True, validation_alias="jobName.appendDatasetName")
    replace_dot_with_underscore: bool = Field(default=False, validation_alias="jobName.replaceDotWithUnderscore")
    keys: dict[str, str] = Field(default_factory=dict)  # every spark.openlineage.* key seen

    @classmethod
    def from_conf(cls, conf: Mapping[str, str]) -> SparkSettings:
        keys = {k: str(v) for k, v in conf.items() if k.startswith(PREFIX)}
        tree = conf_tree(keys)
        transport, disabled = tree.get("transport"), _disabled_facets(_section(tree, "facets"))
        derived: dict[str, Any] = {
            "parent": _run_ref(tree, "parent"),
            "root": _run_ref(tree, "rootParent"),
            "transport": transport_config(transport) if isinstance(transport, dict) else None,
            "disabled_facets": disabled,
            "job_tags": _tags(_at(tree, "job.tags")),
            "run_tags": _tags(_at(tree, "run.tags")),
            "job_owners": [(str(k), str(v)) for k, v in _section(_section(tree, "job"), "owners").items()],
            "column_lineage": "columnLineage" not in disabled and not _truthy(_at(tree, "columnLineage.disabled")),
            "keys": keys,
        }
        read = {key: _at(tree, key) for name, key in display_names(cls).items() if name not in derived}
        return build(cls, {**{k: v for k, v in read.items() if v is not None}, **derived}, ("spark.openlineage",))

    def facet_enabled(self, key: str) -> bool:
        return key not in self.disabled_facets
