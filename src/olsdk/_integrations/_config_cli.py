"""``olsdk config show`` (``olsdk replay`` and ``olsdk send`` live in ``_replay_cli``): what the client and
Airflow's OpenLineage provider would use, with where each value came from."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import yaml

from olsdk._delivery.client._config import load_config
from olsdk._delivery.client._effective import effective
from olsdk._foundation._exceptions import ConfigError
from olsdk._foundation._secrets import masked
from olsdk._integrations._airflow_config import airflow_config

__all__ = ["register"]


def register(subparsers: Any) -> None:
    config = subparsers.add_parser("config", help="inspect the OpenLineage client configuration")
    config_sub = config.add_subparsers(dest="config_command", metavar="COMMAND")
    show = config_sub.add_parser(
        "show",
        help="print the merged configuration (secrets masked) and where each value came from",
    )
    show.add_argument("--format", choices=("yaml", "json"), default="yaml")
    show.set_defaults(handler=_config_show)


def _value_text(value: Any) -> str:
    if value is None:
        return "null"
    text = yaml.safe_dump(value, default_flow_style=True, width=1000, sort_keys=False)
    return text.strip().removesuffix("\n...").strip()


def _config_show(args: argparse.Namespace) -> int:
    try:
        loaded = load_config(host=airflow_config(os.environ))
        entries = effective(loaded)
    except ConfigError as exc:
        print(f"olsdk: invalid OpenLineage configuration: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        out = {
            "file": str(loaded.file) if loaded.file else None,
            "airflow": None
            if loaded.host is None
            else {"source": loaded.host.source, "disabled_by": loaded.host.disabled_by},
            "warnings": list(loaded.warnings),
            "disabled": loaded.disabled,
            "config": masked(loaded.data),
            "origins": {".".join(k): v for k, v in sorted(loaded.origins.items())},
            "effective": {".".join(path): {"value": value, "origin": origin} for path, value, origin in entries},
        }
        print(json.dumps(out, indent=2, default=str))
        return 0
    print(f"# config file: {loaded.file or 'none found'}")
    airflow = loaded.host
    if airflow is not None and airflow.source:
        print(f"# Airflow's OpenLineage provider: {airflow.source}")
        print("# precedence: Airflow > file > environment variables (as the provider gives it to the official client)")
    else:
        print("# precedence: code > file > environment variables (as in the official client)")
    if loaded.disabled:
        print("# OPENLINEAGE_DISABLED=true: no events are emitted")
    if airflow is not None and airflow.disabled_by:
        print(f"# {airflow.disabled_by}: the provider emits no events")
    for warning in loaded.warnings:
        print(f"# warning: {warning}")
    shown: set[tuple[str, ...]] = set()
    for path, value, origin in entries:
        for depth in range(1, len(path)):  # section headers, once each
            if path[:depth] not in shown:
                shown.add(path[:depth])
                print(f"{'  ' * (depth - 1)}{path[depth - 1]}:")
        print(f"{'  ' * (len(path) - 1)}{path[-1]}: {_value_text(value)}    # {origin}")
    return 0
