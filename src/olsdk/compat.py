"""Meeting the official client (openlineage-python) where its users are.

:class:`OlsdkTransport` is a transport the official client loads by its dotted type,
so Airflow's OpenLineage provider, ``dbt-ol`` and any code calling
``openlineage.client.OpenLineageClient`` hand their events to olsdk (batching,
spool and replay) with no code change::

    # openlineage.yml, read by the official client
    transport:
      type: olsdk.compat.OlsdkTransport
      transport:            # any olsdk transport section
        type: http
        url: http://marquez:5000
        batch: {max_events: 100}
      spool: {path: /var/lib/lineage/spool.db}
      error_policy: log     # log (default) or raise

olsdk's own client reads the same file and uses the inner transport.
"""

from olsdk._integrations.compat._transport import OlsdkTransport, OlsdkTransportConfig

__all__ = ["OlsdkTransport", "OlsdkTransportConfig"]
