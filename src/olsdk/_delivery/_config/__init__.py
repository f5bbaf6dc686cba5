"""Configuration: the settings engine, the client's settings and where they come from.

The client and the transports both import this package; it imports neither of them
(it knows the shape of ``openlineage.yml`` but no transport: the ``transport``
section stays a mapping here and ``olsdk.transports`` parses it).

* ``_engine``: dataclass settings filled from YAML, environment variables or code,
  with one set of rules (key spelling, coercion, errors naming key and source);
* ``olsdk._foundation._secrets`` (a leaf below the readers): masking for reprs, logs and
  ``olsdk config show``;
* ``_settings``: the validated shape of ``openlineage.yml`` (``ClientSettings``);
* ``_load``: file lookup, environment variables, precedence, origins.
"""

from olsdk._delivery._config._engine import (
    MAX_DEPTH,
    MAX_NODES,
    MAX_TEXT_BYTES,
    Origins,
    build,
    check_shape,
    coerce,
    display_name,
    fail,
    meta,
    norm,
    parse_json_text,
    suggest,
    unknown_key_error,
)
from olsdk._delivery._config._load import (
    LoadedConfig,
    env_layer,
    find_config_file,
    is_disabled,
    load,
    near_misses,
    url_shorthand,
)
from olsdk._delivery._config._settings import (
    BreakerSettings,
    ClientSettings,
    DatasetSettings,
    ErrorPolicy,
    FacetsSettings,
    FilterSettings,
    SourceCodeLocationSettings,
    SpoolSettings,
    TagsSettings,
)
from olsdk._foundation._secrets import install_log_masking, is_secret_key, mask_url, masked, scrub, secret_values

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_TEXT_BYTES",
    "BreakerSettings",
    "ClientSettings",
    "DatasetSettings",
    "ErrorPolicy",
    "FacetsSettings",
    "FilterSettings",
    "LoadedConfig",
    "Origins",
    "SourceCodeLocationSettings",
    "SpoolSettings",
    "TagsSettings",
    "build",
    "check_shape",
    "coerce",
    "display_name",
    "env_layer",
    "fail",
    "find_config_file",
    "install_log_masking",
    "is_disabled",
    "is_secret_key",
    "load",
    "mask_url",
    "masked",
    "meta",
    "near_misses",
    "norm",
    "parse_json_text",
    "scrub",
    "secret_values",
    "suggest",
    "unknown_key_error",
    "url_shorthand",
]
