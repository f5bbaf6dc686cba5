"""What `olsdk serve` is told: where to listen, where to store, and the limits it holds to."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

__all__ = ["API_KEY_ENV", "ServeSettings", "default_db_path"]

API_KEY_ENV: Final = "OLSDK_SERVE_API_KEY"
MIB: Final = 1024 * 1024


def default_db_path(environ: dict[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/olsdk/lineage.db`` (``~/.local/state/olsdk/lineage.db``), beside the spool."""
    env = os.environ if environ is None else environ
    state = env.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(state) / "olsdk" / "lineage.db"


@dataclass(frozen=True)
class ServeSettings:
    """The server's settings; every limit bounds what one hostile client can cost.

    ``db`` is a SQLite file path (the default) or a ``postgresql://`` URL. ``api_key``,
    when set, is required on every call (``Authorization: Bearer KEY``, as OpenLineage
    clients send it, or HTTP Basic with the key as password, as a browser sends it);
    it is never printed or logged.
    """

    host: str = "127.0.0.1"
    port: int = 5000
    db: str = field(default_factory=lambda: str(default_db_path()))
    api_key: str | None = field(default=None, repr=False)
    # a request body, compressed or not, and after gzip decompression
    max_body_bytes: int = 16 * MIB
    # all request bodies being read at once (503 beyond it): bounds memory under many large posts
    max_bodies_in_flight_bytes: int = 128 * MIB
    # seconds for a whole request body to arrive, and for the request line and headers
    body_timeout: float = 30.0
    header_timeout: float = 10.0
    max_header_bytes: int = 64 * 1024
    # refused requests are kept (the first bytes of each) up to this many rows, oldest dropped
    # first; their counts by reason are kept forever
    refused_rows: int = 10_000
    refused_head_bytes: int = 64 * 1024
    # connections and requests at once before uvicorn answers 503
    max_connections: int = 1000
    # connections one client address may hold open at once (503 and closed beyond it), so that
    # one client cannot take the whole of `max_connections` from the others
    max_connections_per_client: int = 100
    # Host names (and addresses) the server answers besides the localhost names and the address
    # it is bound to: a request with another Host header is refused (403), which defeats DNS
    # rebinding; "*" answers any. Browser requests from another origin are refused unless listed
    # in `allowed_origins` ("https://ui.example:3000").
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    # items in one page of a listing (a larger `limit` is refused with 400), and bytes of stored
    # facets or events one answer may hold (a page that would hold more is refused with 400)
    max_page_items: int = 10_000
    max_response_bytes: int = 64 * MIB
    title: str = "Lineage (olsdk serve)"
    # days runs, jobs, datasets and events are kept, as Marquez's retention keeps them (deleted at
    # start and every 15 minutes); None keeps everything
    retention_days: float | None = None
