"""``olsdk serve``: a local OpenLineage endpoint (`olsdk._integrations._cli` lists this module).

Importing this module needs none of the ``serve`` extra: ``olsdk --help`` works
without it, and ``olsdk serve`` says which extra to install.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

__all__ = ["register", "run_serve"]


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
    parser.set_defaults(handler=run_serve)


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
        print(
            f"olsdk serve: error: {exc.name or exc} is not installed: pip install 'olsdk[serve]'",
            file=sys.stderr,
        )
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
