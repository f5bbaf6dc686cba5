"""``lineage_run``: an explicit run around Spark code the listener cannot see.

Works as a context manager and as a decorator, on classic sessions and on Spark
Connect (where inputs come from the client-side plan). It rides on the client's run
helper: START on enter, COMPLETE on exit, FAIL with ``errorMessage`` on an exception
(which is re-raised).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable
from types import TracebackType
from typing import Any

from olsdk._builders._build import Emitter, parent_facet
from olsdk._integrations.spark._build import job_type, processing_engine

__all__ = ["lineage_run"]


def _is_dataframe(value: Any) -> bool:
    return hasattr(value, "schema") and (hasattr(value, "_jdf") or hasattr(value, "_plan"))


def _inputs(values: Iterable[Any]) -> list[Any]:
    from olsdk._builders.naming._uris import from_uri
    from olsdk._integrations.spark._plan import datasets

    out: list[Any] = []
    for value in values:
        if _is_dataframe(value):
            out.extend(datasets(value))
        elif isinstance(value, str):
            out.append(from_uri(value, trim_partitions=True).as_input())
        else:
            out.append(value)
    return out


def _outputs(values: Iterable[Any]) -> list[Any]:
    from olsdk._builders.naming._uris import from_uri
    from olsdk._integrations.spark._schema import schema_facet

    out: list[Any] = []
    for value in values:
        if isinstance(value, tuple) and len(value) == 2 and _is_dataframe(value[0]):
            # (df, "path"): the data written and where it goes.
            ident = from_uri(value[1], trim_partitions=True)
            out.append(ident.as_output(schema=schema_facet(value[0].schema)))
        elif isinstance(value, str):
            out.append(from_uri(value, trim_partitions=True).as_output())
        else:
            out.append(value)
    return out


class lineage_run(contextlib.ContextDecorator):
    """A run of ``job_name`` with the given inputs and outputs.

    ``inputs``: DataFrames (their plan's datasets), URIs/paths, or datasets.
    ``outputs``: URIs/paths, ``(df, uri)`` pairs (adds the schema), or datasets.
    ``client`` (an ``Emitter``: an ``OpenLineageClient`` or anything with
    ``emit(event)``) defaults to the one ``install()`` was given for this session, else
    a client configured from the environment. The run's parent is ``parent`` if given,
    else the application run of ``install()`` when there is one.

    >>> with lineage_run(spark, "daily.orders", inputs=[orders_df], outputs=["s3://b/out"]):
    ...     orders_df.write.parquet("s3://b/out")
    """

    def __init__(
        self,
        spark: Any,
        job_name: str,
        inputs: Iterable[Any] = (),
        outputs: Iterable[Any] = (),
        *,
        client: Emitter | None = None,
        namespace: str | None = None,
        parent: Any = None,
        job_type: str = "JOB",
    ) -> None:
        self.spark = spark
        self.job_name = job_name
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.client = client
        self.namespace = namespace
        self.parent = parent
        self.job_type = job_type
        self._local = threading.local()

    def _context(self) -> Any:
        from olsdk._integrations.spark._listener import CallableEmitter, handle_for

        handle = handle_for(self.spark)
        client: Any = self.client or (handle.client if handle is not None else None)
        if client is None:
            from olsdk._delivery.client._client import OpenLineageClient

            client = OpenLineageClient()
        elif not hasattr(client, "producer"):  # the run helper stamps the client's producer
            client = CallableEmitter(client.emit if isinstance(client, Emitter) else client)
        parent = self.parent
        if parent is None and handle is not None:
            parent = parent_facet(handle.app_run, handle.root_run)
        namespace = self.namespace or (handle.namespace if handle is not None else "default")
        from olsdk._delivery.client._run import RunContext

        return RunContext(
            client,
            namespace,
            self.job_name,
            inputs=_inputs(self.inputs),
            outputs=_outputs(self.outputs),
            parent=parent,
            run_facets={"processing_engine": processing_engine(str(self.spark.version))},
            job_facets={key: facet for key, facet in (("jobType", job_type(self.job_type)),) if facet is not None},
        )

    def __enter__(self) -> Any:
        stack = self._local.__dict__.setdefault("stack", [])
        run = self._context()
        stack.append(run)
        return run.__enter__()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        run = self._local.stack.pop()
        run.__exit__(exc_type, exc, tb)
