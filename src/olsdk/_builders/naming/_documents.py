"""Builders for document management systems: Box, FileNet, SharePoint.

The conventions give no default ports for these, so the port is required.
"""

from __future__ import annotations

from olsdk._builders.naming import _rules as rules
from olsdk._builders.naming._databases import server_namespace
from olsdk._builders.naming._identifier import DatasetId

__all__ = ["box", "filenet", "sharepoint"]


def box(*, host: str, port: int | str, enterprise_id: str, object_key: str) -> DatasetId:
    """Box: ``box://{host}:{port}/{enterprise ID}`` / ``{object key}``."""
    enterprise = rules.segment("box", "enterprise_id", enterprise_id)
    return DatasetId(
        f"{server_namespace('box', 'box', host, port)}/{enterprise}",
        rules.object_key("box", "object_key", object_key),
    )


def filenet(*, host: str, port: int | str, repository_id: str, object_key: str) -> DatasetId:
    """FileNet: ``filenet://{host}:{port}/{repository ID}`` / ``{object key}``."""
    repository = rules.segment("filenet", "repository_id", repository_id)
    return DatasetId(
        f"{server_namespace('filenet', 'filenet', host, port)}/{repository}",
        rules.object_key("filenet", "object_key", object_key),
    )


def sharepoint(*, host: str, port: int | str, site: str, object_key: str) -> DatasetId:
    """SharePoint: ``mssharepoint://{host}:{port}/{site}`` / ``{object key}``.

    ``site`` may be a path (``sites/finance``); its slashes are normalised like a key.
    """
    site_path = rules.object_key("sharepoint", "site", site)
    if site_path == "/":
        raise rules.fail("sharepoint", "site", "must name a site, not only '/'", site)
    return DatasetId(
        f"{server_namespace('sharepoint', 'mssharepoint', host, port)}/{site_path}",
        rules.object_key("sharepoint", "object_key", object_key),
    )
