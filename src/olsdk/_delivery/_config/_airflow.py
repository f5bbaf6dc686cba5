"""Where Airflow's OpenLineage provider finds its configuration, read the way it reads it.

``olsdk replay``, ``olsdk send`` and ``olsdk config show`` use this so that they send to the
place the provider sent to (apache-airflow-providers-openlineage 2.x, ``plugins/adapter.py``
and ``conf.py``). The provider builds its client from the first of:

1. ``[openlineage] config_conn_id``: an Airflow connection whose extra holds the whole
   configuration. It lives in Airflow's metadata database or secrets backend, which olsdk
   does not read: a warning says so and the provider's other options are not used (the
   provider does not use them either);
2. ``[openlineage] config_path``: an ``openlineage.yml``, its whole content;
3. ``[openlineage] transport``: JSON, the ``transport`` section.

It hands that to the official client as ``config=``, which still merges ``$OPENLINEAGE_CONFIG``
(or ``./openlineage.yml``) and the ``OPENLINEAGE__*`` variables below it; so this layer goes
where code goes in olsdk's precedence. Without any of the three the official client's own
lookup applies alone (the provider's ``config_path`` ignores ``OPENLINEAGE_CONFIG``; the
official client then reads it).

An ``[openlineage]`` option is read as Airflow reads it: ``AIRFLOW__OPENLINEAGE__<OPTION>``
first, then the ``[openlineage]`` section of ``airflow.cfg`` (``$AIRFLOW_CONFIG``, else
``$AIRFLOW_HOME/airflow.cfg``, ``AIRFLOW_HOME`` defaulting to ``~/airflow``), with
ConfigParser's ``%%`` interpolation and ``$VARIABLES`` and ``~`` expanded in the value. An
empty value counts as unset. ``[openlineage] disabled`` true is reported too.
"""

from __future__ import annotations

import configparser
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from olsdk._delivery._config._engine import MAX_TEXT_BYTES, parse_json_text
from olsdk._delivery._config._file import read_config_file
from olsdk._foundation._exceptions import ConfigError

__all__ = ["AirflowConfig", "airflow_config", "airflow_config_file"]

SECTION = "openlineage"
ENV_PREFIX = "AIRFLOW__OPENLINEAGE__"
_TRUE = {"true", "t", "1"}  # what Airflow's getboolean reads as true
_VARIABLE = re.compile(r"\$(\w+|\{[^}$]*\})")
_MAX_EXPANSIONS = 32


@dataclass(frozen=True)
class AirflowConfig:
    """The configuration the provider hands the official client, and where it came from.

    ``data`` is empty when the provider has none of its own (the official client's lookup
    then applies alone); ``source`` names the option and where it was set.
    """

    data: dict[str, Any]
    source: str | None
    disabled_by: str | None = None
    warnings: tuple[str, ...] = ()


def airflow_config_file(environ: Mapping[str, str], home: str | None = None) -> Path:
    """``$AIRFLOW_CONFIG``, else ``$AIRFLOW_HOME/airflow.cfg`` (``AIRFLOW_HOME``: ``~/airflow``)."""
    explicit = environ.get("AIRFLOW_CONFIG")
    if explicit is not None:
        return Path(_expand(explicit, environ, home))
    airflow_home = _expand(environ.get("AIRFLOW_HOME", "~/airflow"), environ, home)
    return Path(airflow_home) / "airflow.cfg"


def _expand(value: str, environ: Mapping[str, str], home: str | None) -> str:
    """Airflow's ``expand_env_var``: ``$VAR``/``${VAR}`` and a leading ``~``, until nothing changes."""

    def variable(match: re.Match[str]) -> str:
        name = match.group(1).strip("{}")
        return environ.get(name, match.group(0))

    for _ in range(_MAX_EXPANSIONS):
        expanded = _VARIABLE.sub(variable, value)
        if expanded.startswith("~") and (expanded == "~" or expanded[1] == "/"):
            expanded = (home or environ.get("HOME") or os.path.expanduser("~")) + expanded[1:]
        if expanded == value:
            break
        value = expanded
    return value


class _Options:
    """``[openlineage]`` options: the environment variable first, then airflow.cfg."""

    def __init__(self, environ: Mapping[str, str], home: str | None) -> None:
        self.environ = environ
        self.home = home
        self.path = airflow_config_file(environ, home)
        self.parser: configparser.ConfigParser | None = None
        if self.path.is_file():
            parser = configparser.ConfigParser()  # Airflow's parser is a ConfigParser: the same % rules
            try:
                with open(self.path, encoding="utf-8") as handle:
                    text = handle.read(MAX_TEXT_BYTES + 1)
                if len(text) > MAX_TEXT_BYTES:
                    raise ConfigError(f"Airflow config file {self.path}: larger than {MAX_TEXT_BYTES} characters")
                parser.read_string(text, str(self.path))
            except (OSError, UnicodeDecodeError, configparser.Error) as exc:
                raise ConfigError(f"cannot read Airflow config file {self.path}: {exc}") from None
            self.parser = parser

    def get(self, option: str) -> tuple[str, str] | None:
        """(value, where it was set) of a non-empty option, or None."""
        variable = ENV_PREFIX + option.upper()
        if variable in self.environ:
            value = self.environ[variable].strip()
            where = f"environment variable {variable}"
        elif self.parser is not None and self.parser.has_option(SECTION, option):
            try:
                value = self.parser.get(SECTION, option).strip()
            except configparser.Error as exc:
                raise ConfigError(f"[{SECTION}] {option} in {self.path}: {exc}", option) from None
            where = f"[{SECTION}] {option} in {self.path}"
        else:
            return None
        value = _expand(value, self.environ, self.home)
        return (value, where) if value else None


def airflow_config(environ: Mapping[str, str], home: str | None = None) -> AirflowConfig | None:
    """What the provider configures, or None when Airflow configures no OpenLineage at all."""
    options = _Options(environ, home)
    if options.parser is None and not any(name.startswith(ENV_PREFIX) for name in environ):
        return None
    disabled = options.get("disabled")
    disabled_by = f"[{SECTION}] disabled = {disabled[0]} ({disabled[1]})" if disabled else None
    if disabled and disabled[0].split("#")[0].strip().lower() not in _TRUE:
        disabled_by = None
    connection = options.get("config_conn_id")
    if connection is not None:
        note = (
            f"[{SECTION}] config_conn_id = {connection[0]} ({connection[1]}): the provider reads its OpenLineage "
            "configuration from that Airflow connection, which olsdk cannot read; its config_path and transport "
            "options are not used either. Put the connection's configuration in a file and name it with "
            "OPENLINEAGE_CONFIG for olsdk"
        )
        return AirflowConfig({}, None, disabled_by, (note,))
    path = options.get("config_path")
    if path is not None:
        return AirflowConfig(
            _read_yaml(path[0], path[1]), f"{path[0]} ([{SECTION}] config_path, {path[1]})", disabled_by
        )
    transport = options.get("transport")
    if transport is not None:
        where = f"[{SECTION}] transport ({transport[1]})"
        section = parse_json_text(transport[0], ("transport",), {("transport",): where})
        if not isinstance(section, dict):
            raise ConfigError(f"transport: {where} must be a JSON object, got {type(section).__name__}", "transport")
        return AirflowConfig({"transport": section}, where, disabled_by)
    return AirflowConfig({}, None, disabled_by)


def _read_yaml(path: str, where: str) -> dict[str, Any]:
    file = Path(path)
    if not file.is_file():
        why = "does not exist" if not file.exists() else "is not a file"
        raise ConfigError(
            f"OpenLineage config file {path} (from [{SECTION}] config_path, {where}) {why}", "config_path"
        )
    return read_config_file(file)
