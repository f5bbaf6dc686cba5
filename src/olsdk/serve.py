"""``olsdk serve``: a local OpenLineage endpoint with a store, Marquez's read API and a live page.

Needs the ``serve`` extra (Starlette, uvicorn, SQLAlchemy, psycopg); the names below
load it only when first used, so ``olsdk --help`` never needs it.

* ``ServeSettings``: where to listen and store, the API key, the limits.
* ``create_app(settings)``: the ASGI application (Starlette) and its state, to run under
  any ASGI server or to mount in another application.
* ``run(settings)``: serve on uvicorn until SIGINT/SIGTERM (what ``olsdk serve`` does).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from olsdk._integrations.serve._app import create_app
    from olsdk._integrations.serve._server import run
    from olsdk._integrations.serve._settings import ServeSettings

_EXPORTS = {
    "ServeSettings": "olsdk._integrations.serve._settings",
    "create_app": "olsdk._integrations.serve._app",
    "run": "olsdk._integrations.serve._server",
}

__all__ = ["ServeSettings", "create_app", "run"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'olsdk.serve' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
