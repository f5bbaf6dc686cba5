"""``olsdk serve``: a local OpenLineage endpoint (`olsdk._integrations._cli` lists this module).

Importing this module needs none of the ``serve`` extra: ``olsdk --help`` works
without it, and ``olsdk serve`` says which extra to install.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import sys
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

__all__ = ["install_hint", "register", "run_serve"]


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add `serve` to an argparse subparsers object."""
    from olsdk._integrations.serve._settings import API_KEY_ENV, default_db_path

    parser = subparsers.add_parser(
        "serve",
        help="a local OpenLineage endpoint with a store, Marquez's read API and a live lineage page",
        description=(
            "Receive OpenLineage events (POST /api/v1/lineage and /api/v1/lineage/batch), validate them on "
            "receipt (events that break the spec but can be read are stored with their problems; unreadable "
            "ones are answered 422 and kept aside), store them in SQLite or PostgreSQL, answer Marquez's "
            "read calls, and serve the lineage page live at /. Needs the serve extra."
        ),
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)")
    parser.add_argument("--port", type=int, default=5000, help="port (default: 5000, Marquez's; 0 picks a free one)")
    parser.add_argument(
        "--db",
        default=None,
        metavar="PATH-or-URL",
        help=f"a SQLite file (default: {default_db_path()}) or a postgresql://user:password@host/db URL",
    )
    parser.add_argument(
        "--api-key-file",
        default=None,
        metavar="PATH",
        help=f"require the API key in this file on every call (or set {API_KEY_ENV}); it is never printed",
    )
    parser.add_argument("--title", default=None, help="the page's title")
    parser.add_argument(
        "--max-body-mb", type=float, default=16.0, help="largest request body, before and after gzip (default: 16)"
    )
    parser.add_argument(
        "--body-timeout",
        type=float,
        default=30.0,
        metavar="S",
        help="seconds for a request body to arrive (default: 30)",
    )
    parser.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds for a request line and headers to arrive (default: 10)",
    )
    parser.add_argument(
        "--retention-days",
        type=float,
        default=None,
        metavar="N",
        help="delete runs, jobs and datasets last updated, and events that happened, more than N days ago, "
        "as Marquez's retention does (at start, then every 15 minutes; default: keep everything)",
    )
    _add_safety_options(parser)
    parser.set_defaults(handler=run_serve)


def _add_safety_options(parser: argparse.ArgumentParser) -> None:
    """The options that bound what a client may ask of the server, and whom it answers."""
    parser.add_argument(
        "--max-response-mb",
        type=float,
        default=64.0,
        help="stored JSON one read answer may hold; a page that would hold more is refused (default: 64)",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host name to answer besides localhost and the bound address (repeat for more; '*' for any): "
        "requests naming another host are refused, which defeats DNS rebinding",
    )
    parser.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="URL",
        help="a web origin (https://ui.example:3000) whose pages may call the API (repeat for more); "
        "requests from other pages are refused",
    )
    parser.add_argument(
        "--max-connections-per-client",
        type=int,
        default=100,
        metavar="N",
        help="connections one client address may hold open at once (default: 100)",
    )


def _retention_days(days: float | None) -> float | None:
    if days is not None and not 0 < days < float("inf"):  # also NaN
        raise ValueError(f"--retention-days {days}: must be a number of days above 0")
    return days


def _api_key(args: argparse.Namespace) -> str | None:
    from olsdk._integrations.serve._settings import API_KEY_ENV

    if args.api_key_file:
        with open(args.api_key_file, encoding="utf-8") as handle:
            key = handle.read().strip()
        if not key:
            raise ValueError(f"--api-key-file {args.api_key_file}: the file is empty")
        return key
    return os.environ.get(API_KEY_ENV) or None


def run_serve(args: argparse.Namespace) -> int:
    try:
        from olsdk._integrations.serve._server import run
        from olsdk._integrations.serve._settings import MIB, ServeSettings
    except ImportError as exc:
        print(f"olsdk serve: error: {exc.name or exc} is not installed: {install_hint()}", file=sys.stderr)
        return 2
    from sqlalchemy.exc import SQLAlchemyError

    from olsdk._foundation._exceptions import OlsdkError

    try:
        settings = ServeSettings(
            host=args.host,
            port=args.port,
            api_key=_api_key(args),
            max_body_bytes=max(1024, int(args.max_body_mb * MIB)),
            body_timeout=max(0.1, args.body_timeout),
            header_timeout=max(0.1, args.header_timeout),
            allowed_hosts=tuple(args.allowed_host),
            allowed_origins=tuple(args.allowed_origin),
            max_connections_per_client=max(1, args.max_connections_per_client),
            max_response_bytes=max(1024, int(args.max_response_mb * MIB)),
            retention_days=_retention_days(args.retention_days),
            **({"db": args.db} if args.db else {}),
            **({"title": args.title} if args.title else {}),
        )
        return run(settings)
    except (OlsdkError, OSError, ValueError) as exc:
        print(f"olsdk serve: error: {exc}", file=sys.stderr)
        return 2
    except SQLAlchemyError as exc:  # the database cannot be opened: its own words, without the URL's password
        message = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        print(f"olsdk serve: error: {_hide_password(message, args.db)}", file=sys.stderr)
        return 2


def _hide_password(message: str, db: str | None) -> str:
    from urllib.parse import urlsplit

    password = urlsplit(db).password if db and "://" in db else None
    return message.replace(password, "***") if password else message


def install_hint(distribution: importlib.metadata.Distribution | None = None) -> str:
    """The command that installs the serve extra for the olsdk in use, where it came from:
    ``pip install 'olsdk[serve]'`` from an index, the wheel's or folder's path otherwise
    (a source tree run as it is: its folder), and the extra's packages themselves, which
    install wherever olsdk came from."""
    if distribution is None:
        source = Path(__file__).resolve().parents[3]  # src/olsdk/_integrations/serve -> src
        if source.name == "src" and (source.parent / "pyproject.toml").is_file():
            packages = _serve_packages_of_tree(source.parent)
            return _with_packages(f"pip install -e '{source.parent}[serve]'", packages)
        try:
            distribution = importlib.metadata.distribution("olsdk")
        except importlib.metadata.PackageNotFoundError:
            return "pip install 'olsdk[serve]'"
    packages = [
        requirement.split(";")[0].strip()
        for requirement in distribution.requires or []
        if "extra ==" in requirement.replace('"', "'") and "'serve'" in requirement.replace('"', "'")
    ]
    return _with_packages(_pip_command(distribution), packages)


def _pip_command(distribution: importlib.metadata.Distribution) -> str:
    origin = distribution.read_text("direct_url.json")
    if not origin:
        return "pip install 'olsdk[serve]'"  # from an index
    found = json.loads(origin)
    url = found.get("url", "")
    if url.startswith("file:"):
        path = urllib.request.url2pathname(urllib.parse.urlsplit(url).path)
        editable = found.get("dir_info", {}).get("editable", False)
        return f"pip install {'-e ' if editable else ''}'{path}[serve]'"
    vcs = found.get("vcs_info", {}).get("vcs")
    return f"pip install 'olsdk[serve] @ {vcs + '+' if vcs else ''}{url}'"


def _serve_packages_of_tree(root: Path) -> list[str]:
    import tomllib

    try:
        project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    packages: list[str] = project.get("project", {}).get("optional-dependencies", {}).get("serve", [])
    return packages


def _with_packages(command: str, packages: list[str]) -> str:
    if not packages:
        return command
    return f"{command} (or the extra's packages: pip install {' '.join(repr(p) for p in packages)})"
