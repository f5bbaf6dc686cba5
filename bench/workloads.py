"""The benchmark workloads: a "full" RunEvent (about 16 KB) and a minimal START event.

Both are built twice, once with the official client's models (`openlineage.client`)
and once with olsdk's, from the same inputs. The bytes every parse/validate contender
reads are the official client's `Serde.to_json` output, so all contenders handle the
very same document; `check_same_document` asserts the two builders agree.
"""

from __future__ import annotations

import json
from typing import Any

from openlineage.client import event_v2 as ev
from openlineage.client import facet_v2 as fv
from openlineage.client.generated import column_lineage_dataset as cl
from openlineage.client.generated import output_statistics_output_dataset as osd
from openlineage.client.generated import parent_run as pr
from openlineage.client.generated import schema_dataset as sd
from openlineage.client.serde import Serde

from olsdk import models as m

PRODUCER = "https://github.com/olsdk/olsdk/tree/main/bench"
EVENT_TIME = "2026-11-22T10:15:30.123456+00:00"
RUN_ID = "0191f3a4-7c55-7d2e-9a31-5be0c6a1d001"
PARENT_RUN_ID = "0191f3a4-7c55-7d2e-9a31-5be0c6a1d002"
ROOT_RUN_ID = "0191f3a4-7c55-7d2e-9a31-5be0c6a1d003"
NAMESPACE = "airflow://prod-scheduler"
DATA_NAMESPACE = "postgres://warehouse.internal:5432"
N_COLUMNS = 20

_TYPES = ("BIGINT", "VARCHAR", "TIMESTAMP", "DECIMAL(18,2)", "BOOLEAN")

QUERY = (
    "INSERT INTO analytics.daily_orders_enriched\n"
    "SELECT "
    + ",\n       ".join(f"o.col_{i:02d}" for i in range(N_COLUMNS))
    + "\nFROM raw.orders o\nJOIN raw.customers c ON c.id = o.customer_id\n"
    "WHERE o.created_at >= DATE '2026-11-21' AND o.created_at < DATE '2026-11-22'"
)

STACK_TRACE = "".join(
    [
        "Traceback (most recent call last):\n",
        *(
            f'  File "/opt/airflow/dags/pipelines/orders/step_{i:02d}.py", line {100 + 7 * i}, '
            f"in run_step_{i:02d}\n    result = executor.execute(context, retries={i % 3})\n"
            for i in range(10)
        ),
        "psycopg2.errors.UndefinedColumn: column o.col_21 does not exist\n",
        "LINE 22: FROM raw.orders o JOIN raw.customers c ON c.id = o.customer_id\n",
    ]
)


def _column(i: int) -> tuple[str, str, str]:
    return f"col_{i:02d}", _TYPES[i % len(_TYPES)], f"orders column {i}"


# ---------------------------------------------------------------------------------------
# the official client


def official_full() -> Any:
    """The full RunEvent built with `openlineage.client` (event_v2 / facet_v2)."""

    def schema() -> Any:
        return sd.SchemaDatasetFacet(
            fields=[
                sd.SchemaDatasetFacetFields(name=name, type=type_, description=desc, ordinal_position=i + 1)
                for i, (name, type_, desc) in enumerate(map(_column, range(N_COLUMNS)))
            ],
            producer=PRODUCER,
        )

    def datasource() -> Any:
        return fv.datasource_dataset.DatasourceDatasetFacet(name="warehouse", uri=DATA_NAMESPACE, producer=PRODUCER)

    lineage = cl.ColumnLineageDatasetFacet(
        fields={
            f"col_{i:02d}": cl.Fields(
                inputFields=[
                    cl.InputField(
                        namespace=DATA_NAMESPACE,
                        name="raw.orders",
                        field=f"col_{i:02d}",
                        transformations=[cl.Transformation(type="DIRECT", subtype="IDENTITY")],
                    ),
                    cl.InputField(
                        namespace=DATA_NAMESPACE,
                        name="raw.customers",
                        field="id",
                        transformations=[cl.Transformation(type="INDIRECT", subtype="JOIN")],
                    ),
                ]
            )
            for i in range(N_COLUMNS)
        },
        producer=PRODUCER,
    )
    return ev.RunEvent(
        eventType=ev.RunState.FAIL,
        eventTime=EVENT_TIME,
        producer=PRODUCER,
        run=ev.Run(
            runId=RUN_ID,
            facets={
                "parent": pr.ParentRunFacet(
                    run=pr.Run(runId=PARENT_RUN_ID),
                    job=pr.Job(namespace=NAMESPACE, name="orders_daily"),
                    root=pr.Root(
                        run=pr.RootRun(runId=ROOT_RUN_ID),
                        job=pr.RootJob(namespace=NAMESPACE, name="warehouse_nightly"),
                    ),
                    producer=PRODUCER,
                ),
                "errorMessage": fv.error_message_run.ErrorMessageRunFacet(
                    message="column o.col_21 does not exist",
                    programmingLanguage="PYTHON",
                    stackTrace=STACK_TRACE,
                    producer=PRODUCER,
                ),
            },
        ),
        job=ev.Job(
            namespace=NAMESPACE,
            name="orders_daily.enrich_orders",
            facets={
                "sql": fv.sql_job.SQLJobFacet(query=QUERY, dialect="postgres", producer=PRODUCER),
                "sourceCodeLocation": fv.source_code_location_job.SourceCodeLocationJobFacet(
                    type="git",
                    url="https://github.com/example/pipelines/blob/4f2a9c1/dags/orders.py",
                    repoUrl="https://github.com/example/pipelines.git",
                    path="dags/orders.py",
                    version="4f2a9c1e0b7d3a5f6c8e9d0a1b2c3d4e5f6a7b8c",
                    branch="main",
                    producer=PRODUCER,
                ),
            },
        ),
        inputs=[
            ev.InputDataset(
                namespace=DATA_NAMESPACE,
                name="raw.orders",
                facets={"schema": schema(), "dataSource": datasource()},
            )
        ],
        outputs=[
            ev.OutputDataset(
                namespace=DATA_NAMESPACE,
                name="analytics.daily_orders_enriched",
                facets={"schema": schema(), "dataSource": datasource(), "columnLineage": lineage},
                outputFacets={
                    "outputStatistics": osd.OutputStatisticsOutputDatasetFacet(
                        rowCount=1_250_000, size=98_304_000, fileCount=12, producer=PRODUCER
                    )
                },
            )
        ],
    )


def official_minimal() -> Any:
    """A minimal START RunEvent built with `openlineage.client`."""

    return ev.RunEvent(
        eventType=ev.RunState.START,
        eventTime=EVENT_TIME,
        producer=PRODUCER,
        run=ev.Run(runId=RUN_ID),
        job=ev.Job(namespace=NAMESPACE, name="orders_daily.enrich_orders"),
    )


# ---------------------------------------------------------------------------------------
# olsdk


def olsdk_full(m: Any = m) -> Any:
    """The same full RunEvent built with olsdk's typed models (or a scratch variant's)."""

    def schema() -> Any:
        return m.SchemaDatasetFacet(
            fields=[
                m.SchemaDatasetFacetFields(name=name, type=type_, description=desc, ordinal_position=i + 1)
                for i, (name, type_, desc) in enumerate(map(_column, range(N_COLUMNS)))
            ],
            _producer=PRODUCER,
        )

    def datasource() -> Any:
        return m.DatasourceDatasetFacet(name="warehouse", uri=DATA_NAMESPACE, _producer=PRODUCER)

    lineage = m.ColumnLineageDatasetFacet(
        fields={
            f"col_{i:02d}": m.ColumnLineageDatasetFacetFields(
                inputFields=[
                    m.InputField(
                        namespace=DATA_NAMESPACE,
                        name="raw.orders",
                        field=f"col_{i:02d}",
                        transformations=[m.InputFieldTransformation(type="DIRECT", subtype="IDENTITY")],
                    ),
                    m.InputField(
                        namespace=DATA_NAMESPACE,
                        name="raw.customers",
                        field="id",
                        transformations=[m.InputFieldTransformation(type="INDIRECT", subtype="JOIN")],
                    ),
                ]
            )
            for i in range(N_COLUMNS)
        },
        _producer=PRODUCER,
    )
    return m.RunEvent(
        eventType=m.EventType.FAIL,
        eventTime=EVENT_TIME,
        producer=PRODUCER,
        run=m.Run(
            runId=RUN_ID,
            facets={
                "parent": m.ParentRunFacet(
                    run=m.ParentRunFacetRun(runId=PARENT_RUN_ID),
                    job=m.ParentRunFacetJob(namespace=NAMESPACE, name="orders_daily"),
                    root=m.ParentRunFacetRoot(
                        run=m.RootRun(runId=ROOT_RUN_ID),
                        job=m.RootJob(namespace=NAMESPACE, name="warehouse_nightly"),
                    ),
                    _producer=PRODUCER,
                ),
                "errorMessage": m.ErrorMessageRunFacet(
                    message="column o.col_21 does not exist",
                    programmingLanguage="PYTHON",
                    stackTrace=STACK_TRACE,
                    _producer=PRODUCER,
                ),
            },
        ),
        job=m.Job(
            namespace=NAMESPACE,
            name="orders_daily.enrich_orders",
            facets={
                "sql": m.SQLJobFacet(query=QUERY, dialect="postgres", _producer=PRODUCER),
                "sourceCodeLocation": m.SourceCodeLocationJobFacet(
                    type="git",
                    url="https://github.com/example/pipelines/blob/4f2a9c1/dags/orders.py",
                    repoUrl="https://github.com/example/pipelines.git",
                    path="dags/orders.py",
                    version="4f2a9c1e0b7d3a5f6c8e9d0a1b2c3d4e5f6a7b8c",
                    branch="main",
                    _producer=PRODUCER,
                ),
            },
        ),
        inputs=[
            m.InputDataset(
                namespace=DATA_NAMESPACE,
                name="raw.orders",
                facets={"schema": schema(), "dataSource": datasource()},
            )
        ],
        outputs=[
            m.OutputDataset(
                namespace=DATA_NAMESPACE,
                name="analytics.daily_orders_enriched",
                facets={"schema": schema(), "dataSource": datasource(), "columnLineage": lineage},
                outputFacets={
                    "outputStatistics": m.OutputStatisticsOutputDatasetFacet(
                        rowCount=1_250_000, size=98_304_000, fileCount=12, _producer=PRODUCER
                    )
                },
            )
        ],
    )


def olsdk_minimal(m: Any = m) -> Any:
    """The same minimal START event built with olsdk (or a scratch variant's models)."""

    return m.RunEvent(
        eventType=m.EventType.START,
        eventTime=EVENT_TIME,
        producer=PRODUCER,
        run=m.Run(runId=RUN_ID),
        job=m.Job(namespace=NAMESPACE, name="orders_daily.enrich_orders"),
    )


# ---------------------------------------------------------------------------------------


def official_bytes(event: Any) -> bytes:

    return Serde.to_json(event).encode("utf-8")


def _normalise(doc: Any) -> Any:
    """Drop empty objects/lists and nulls: the official Serde keeps `facets: {}`."""
    if isinstance(doc, dict):
        out = {k: _normalise(v) for k, v in doc.items()}
        return {k: v for k, v in out.items() if v not in (None, {}, [])}
    if isinstance(doc, list):
        return [_normalise(v) for v in doc]
    return doc


def check_same_document(official_json: bytes | str, olsdk_json: bytes | str) -> None:
    """Raise if the two builders did not produce the same event."""
    a = _normalise(json.loads(official_json))
    b = _normalise(json.loads(olsdk_json))
    if a != b:
        diff = [k for k in set(a) | set(b) if a.get(k) != b.get(k)]
        raise AssertionError(f"official and olsdk builders disagree on keys {sorted(diff)}")


WORKLOADS = {
    "full": (official_full, olsdk_full),
    "minimal": (official_minimal, olsdk_minimal),
}
