"""The settings engine: settings classes on pydantic with the official client's leniency (``_engine``),
and the sources they are read from (``_load``: ``openlineage.yml``, variables, a host program, code).

It knows no setting: each settings class lives with what it configures (the client's, each transport's).
"""

from olsdk._delivery._config._engine import (
    Origins,
    Settings,
    build,
    display_names,
    fail,
    norm,
    origin_of,
    parse_json_text,
    respell,
    suggest,
    unknown_key_error,
)
from olsdk._delivery._config._load import ENV_PREFIX, HostConfig, Merged, env_layer, find_config_file, merge_sources

__all__ = ["ENV_PREFIX", "HostConfig", "Merged", "Origins", "Settings", "build", "display_names", "env_layer", "fail"]
__all__ += ["find_config_file", "merge_sources", "norm", "origin_of", "parse_json_text", "respell", "suggest"]
__all__ += ["unknown_key_error"]
