"""Configuration: settings on pydantic (``_engine``), the shape of ``openlineage.yml`` (``_settings``), where
values come from (``_load``: file, variables, code; ``_airflow``: Airflow's OpenLineage provider).

It knows no transport: the ``transport`` section stays a mapping, ``olsdk.transports`` parses it.
"""

from olsdk._delivery._config._engine import (
    Origins,
    Settings,
    build,
    display_names,
    fail,
    norm,
    parse_json_text,
    respell,
    suggest,
    unknown_key_error,
)
from olsdk._delivery._config._load import HostConfig, LoadedConfig, env_layer, find_config_file, is_disabled, load
from olsdk._delivery._config._settings import BreakerSettings, ClientSettings, ErrorPolicy, FilterSettings
from olsdk._foundation._secrets import install_log_masking, is_secret_key, mask_url, masked, scrub, secret_values

__all__ = ["BreakerSettings", "ClientSettings", "ErrorPolicy", "FilterSettings", "HostConfig", "LoadedConfig"]
__all__ += ["Origins"]
__all__ += ["Settings", "build", "display_names", "env_layer", "fail", "find_config_file", "install_log_masking"]
__all__ += ["is_disabled", "is_secret_key", "load", "mask_url", "masked", "norm", "parse_json_text", "respell", "scrub"]
__all__ += ["secret_values", "suggest", "unknown_key_error"]
