"""``olsdk config show`` and ``olsdk replay SPOOL``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import yaml

from olsdk.client.config import LoadedConfig, load_config, masked
from olsdk.client.spool import default_spool_path, replay
from olsdk.transports.registry import create_transport
from olsdk.transports.settings import ConfigError

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

    rep = subparsers.add_parser(
        "replay", help="resend spooled events; delivered ones are removed from the spool"
    )
    rep.add_argument("spool", nargs="?", help="spool file (default: the configured spool)")
    rep.add_argument("--dry-run", action="store_true", help="only count the spooled events")
    rep.set_defaults(handler=_replay)


def _annotated(data: Any, loaded: LoadedConfig, path: tuple[str, ...] = ()) -> list[str]:
    """``key: value    # origin`` lines, secrets masked."""
    lines: list[str] = []
    safe = masked(data)
    for key, value in safe.items():
        here = (*path, str(key))
        indent = "  " * len(path)
        if isinstance(value, dict) and value:
            lines.append(f"{indent}{key}:")
            lines.extend(_annotated(data[key], loaded, here))
            continue
        text = yaml.safe_dump({key: value}, default_flow_style=True, width=1000).strip()[1:-1]
        origin = loaded.origin(*here)
        lines.append(f"{indent}{text}" + (f"    # {origin}" if origin else ""))
    return lines


def _config_show(args: argparse.Namespace) -> int:
    try:
        loaded = load_config()
    except ConfigError as exc:
        print(f"olsdk: invalid OpenLineage configuration: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        out = {
            "file": str(loaded.file) if loaded.file else None,
            "disabled": loaded.disabled,
            "config": masked(loaded.data),
            "origins": {".".join(k): v for k, v in sorted(loaded.origins.items())},
        }
        print(json.dumps(out, indent=2))
        return 0
    print(f"# config file: {loaded.file or 'none found'}")
    print("# precedence: code > environment variables > file")
    if loaded.disabled:
        print("# OPENLINEAGE_DISABLED=true: no events are emitted")
    if not loaded.data.get("transport"):
        print("# no transport configured: events go to the console")
    print("\n".join(_annotated(loaded.data, loaded)) if loaded.data else "{}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    try:
        loaded = load_config()
        path = args.spool or loaded.settings.spool.path or str(default_spool_path(dict(os.environ)))
        if not loaded.settings.transport:
            print("olsdk: no transport configured to replay to", file=sys.stderr)
            return 2
        transport = create_transport(loaded.settings.transport, ("transport",), loaded.origins)
    except ConfigError as exc:
        print(f"olsdk: invalid OpenLineage configuration: {exc}", file=sys.stderr)
        return 2
    try:
        result = replay(path, transport, dry_run=args.dry_run)
    finally:
        transport.close()
    verb = "would resend" if args.dry_run else "delivered"
    count = result.kept if args.dry_run else result.delivered
    print(
        f"{verb} {count}, kept {0 if args.dry_run else result.kept} in {path}"
        + (f", {result.unreadable} unreadable lines kept" if result.unreadable else "")
    )
    for reason in sorted(set(result.reasons))[:5]:
        print(f"  still failing: {reason}")
    return 0 if result.ok or args.dry_run else 1
