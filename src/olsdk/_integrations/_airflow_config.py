"""Where Airflow's OpenLineage provider (apache-airflow-providers-openlineage 2.x) finds its configuration,
read its way, so that ``olsdk replay``, ``send`` and ``config show`` use what the provider used. It hands the
official client, as ``config=`` (over the file and variables: this layer goes where code goes), the first of
the ``[openlineage]`` options ``config_conn_id`` (an Airflow connection, which olsdk cannot read: a warning
says so), ``config_path`` (an ``openlineage.yml``) and ``transport`` (JSON). An option is
``AIRFLOW__OPENLINEAGE__<OPTION>``, else in ``airflow.cfg`` (``$AIRFLOW_CONFIG``, else
``$AIRFLOW_HOME/airflow.cfg``, ``AIRFLOW_HOME`` defaulting to ``~/airflow``), with ConfigParser's ``%%``
interpolation and ``$VARIABLES`` and ``~`` expanded; empty counts as unset.
"""

from __future__ import annotations

import configparser
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from olsdk._delivery._config import HostConfig, parse_json_text
from olsdk._foundation._documents import MAX_TEXT_BYTES
from olsdk._foundation._exceptions import ConfigError

SECTION, ENV_PREFIX = "openlineage", "AIRFLOW__OPENLINEAGE__"
_VARIABLE = re.compile(r"\$(\w+|\{[^}$]*\})")


def _expand(value: str, environ: Mapping[str, str], home: str | None) -> str:
    """Airflow's ``expand_env_var``: ``$VAR``/``${VAR}`` and a leading ``~``, until nothing changes."""
    for _ in range(32):
        expanded = _VARIABLE.sub(lambda m: environ.get(m.group(1).strip("{}"), m.group(0)), value)
        if expanded.startswith("~") and (expanded == "~" or expanded[1] == "/"):
            expanded = (home or environ.get("HOME") or os.path.expanduser("~")) + expanded[1:]
        if expanded == value:
            break
        value = expanded
    return value


def _parser(path: Path) -> configparser.ConfigParser | None:
    if not path.is_file():
        return None
    parser = configparser.ConfigParser()  # Airflow's parser is a ConfigParser: the same % rules
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(MAX_TEXT_BYTES + 1)
        if len(text) > MAX_TEXT_BYTES:
            raise ConfigError(f"Airflow config file {path}: larger than {MAX_TEXT_BYTES} characters")
        parser.read_string(text, str(path))
    except (OSError, UnicodeDecodeError, configparser.Error) as exc:
        raise ConfigError(f"cannot read Airflow config file {path}: {exc}") from None
    return parser


def _option(
    option: str, environ: Mapping[str, str], home: str | None, path: Path, parser: Any
) -> tuple[str, str] | None:
    """(value, where it was set) of a non-empty ``[openlineage]`` option, or None."""
    variable = ENV_PREFIX + option.upper()
    if variable in environ:
        value, where = environ[variable].strip(), f"environment variable {variable}"
    elif parser is not None and parser.has_option(SECTION, option):
        try:
            value, where = parser.get(SECTION, option).strip(), f"[{SECTION}] {option} in {path}"
        except configparser.Error as exc:
            raise ConfigError(f"[{SECTION}] {option} in {path}: {exc}", option) from None
    else:
        return None
    value = _expand(value, environ, home)
    return (value, where) if value else None


def airflow_config(environ: Mapping[str, str], home: str | None = None) -> HostConfig | None:
    """What the provider configures, or None when Airflow configures no OpenLineage at all."""
    named = environ.get("AIRFLOW_CONFIG", environ.get("AIRFLOW_HOME", "~/airflow") + "/airflow.cfg")
    path = Path(_expand(named, environ, home))
    parser = _parser(path)
    if parser is None and not any(name.startswith(ENV_PREFIX) for name in environ):
        return None

    def get(option: str) -> tuple[str, str] | None:
        return _option(option, environ, home, path, parser)

    disabled = get("disabled")
    on = disabled and disabled[0].split("#")[0].strip().lower() in ("true", "t", "1")  # Airflow's getboolean
    disabled_by = f"[{SECTION}] disabled = {disabled[0]} ({disabled[1]})" if disabled and on else None
    if (connection := get("config_conn_id")) is not None:
        note = (
            f"[{SECTION}] config_conn_id = {connection[0]} ({connection[1]}): the provider reads its OpenLineage "
            "configuration from that Airflow connection, which olsdk cannot read; its config_path and transport "
            "options are not used either. Put the connection's configuration in a file and name it with "
            "OPENLINEAGE_CONFIG for olsdk"
        )
        return HostConfig({}, None, disabled_by, (note,))
    if (file := get("config_path")) is not None:
        if not Path(file[0]).is_file():
            why = "does not exist" if not Path(file[0]).exists() else "is not a file"
            where = f"from [{SECTION}] config_path, {file[1]}"
            raise ConfigError(f"OpenLineage config file {file[0]} ({where}) {why}", "config_path")
        return HostConfig({}, f"{file[0]} ([{SECTION}] config_path, {file[1]})", disabled_by, file=Path(file[0]))
    if (transport := get("transport")) is not None:
        where = f"[{SECTION}] transport ({transport[1]})"
        section = parse_json_text(transport[0], ("transport",), {("transport",): where})
        if not isinstance(section, dict):
            raise ConfigError(f"transport: {where} must be a JSON object, got {type(section).__name__}", "transport")
        return HostConfig({"transport": section}, where, disabled_by)
    return HostConfig({}, None, disabled_by)
