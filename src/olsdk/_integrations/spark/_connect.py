"""Spark Connect: datasets from the client-side plan (there is no JVM to walk there).

A Connect DataFrame carries an unresolved protobuf plan (``df._plan``). Its ``Read``
relations name what is read: ``data_source`` (format, paths, options) or
``named_table``. Options can hold ``user``/``password`` in clear text (B3), so only
the format, paths, ``url`` and ``dbtable``/``query`` are ever looked at, and the URL
goes through ``olsdk.naming.from_jdbc``, which drops credentials. Schemas come from
the server (one analyze call per source); tables are resolved to their location with
``DESCRIBE TABLE EXTENDED``. Anything that fails yields fewer facets, never an error.
"""

from __future__ import annotations

from typing import Any

from olsdk._builders.naming._identifier import DatasetId
from olsdk._integrations.spark import _ids
from olsdk._integrations.spark._dataset import PlanDataset
from olsdk._integrations.spark._jvm import log

__all__ = ["is_connect", "plan_datasets", "read_relations"]


def is_connect(df: Any) -> bool:
    """True for a Spark Connect DataFrame (a client-side plan, no ``_jdf``)."""
    return type(df).__module__.startswith("pyspark.sql.connect")


def read_relations(message: Any) -> list[Any]:
    """Every ``Read`` relation inside a protobuf plan message, depth first."""
    found: list[Any] = []
    stack = [message]
    while stack:
        msg = stack.pop()
        if type(msg).__name__ == "Read" and hasattr(msg, "WhichOneof"):
            found.append(msg)
            continue
        for desc, value in msg.ListFields():
            if desc.message_type is None:
                continue
            if _repeated(desc):
                if desc.message_type.GetOptions().map_entry:
                    continue  # map<string,string> (options): never walked
                stack.extend(reversed(list(value)))
            else:
                stack.append(value)
    return found


def _repeated(desc: Any) -> bool:
    flag = getattr(desc, "is_repeated", None)  # protobuf >= 5; older ones have .label
    return bool(flag) if flag is not None else bool(desc.label == desc.LABEL_REPEATED)


def plan_datasets(df: Any) -> list[PlanDataset]:
    """The input datasets of a Spark Connect DataFrame."""
    spark = df.sparkSession
    try:
        reads = read_relations(df._plan.to_proto(spark.client))
    except Exception as exc:
        log.debug("olsdk.spark: no client-side plan: %s", exc)
        return []
    out: dict[DatasetId, PlanDataset] = {}
    for read in reads:
        try:
            for ds in _datasets_of_read(spark, read):
                out.setdefault(ds.ident, ds)
        except Exception as exc:  # one unreadable source must not hide the others
            log.debug("olsdk.spark: cannot read a Connect relation: %s", exc)
    return list(out.values())


def _datasets_of_read(spark: Any, read: Any) -> list[PlanDataset]:
    kind = read.WhichOneof("read_type")
    if kind == "named_table":
        return [_table(spark, read.named_table.unparsed_identifier)]
    if kind != "data_source":
        return []
    source = read.data_source
    fmt = (source.format or "").lower()
    options = dict(source.options)
    if fmt == "jdbc":
        return _jdbc(spark, options)
    paths = list(source.paths) or ([options["path"]] if "path" in options else [])
    schema = _schema(lambda: spark.read.format(fmt).options(**options).load(paths))
    return [PlanDataset(_ids.from_location(path), schema) for path in paths]


def _jdbc(spark: Any, options: dict[str, str]) -> list[PlanDataset]:
    url, dbtable = options.get("url"), options.get("dbtable")
    if not url:
        return []
    schema = _schema(lambda: spark.read.format("jdbc").options(**options).load())
    table = _ids.jdbc_table(dbtable)
    if table is not None:
        return [PlanDataset(_ids.from_jdbc(url, table), schema, table=table)]
    try:
        import openlineage_sql  # type: ignore[import-untyped]
    except ImportError:
        return []
    meta = openlineage_sql.parse([options.get("query") or dbtable or ""])
    tables = [t.qualified_name for t in (meta.in_tables if meta is not None else [])]
    return [PlanDataset(_ids.from_jdbc(url, t), table=t) for t in tables]


def _table(spark: Any, identifier: str) -> PlanDataset:
    schema = _schema(lambda: spark.table(identifier))
    rows = spark.sql(f"DESCRIBE TABLE EXTENDED {identifier}").collect()
    info = {str(r[0]).strip(): str(r[1]).strip() for r in rows if r[0] and r[1] is not None}
    location = info.get("Location")
    db = info.get("Database", "default")
    qualified = f"{db}.{info.get('Table', identifier.split('.')[-1])}"
    if location is None:  # a view or a temporary table: no physical dataset to name
        return PlanDataset(DatasetId("spark_catalog", qualified), schema, table=qualified)
    warehouse = str(spark.conf.get("spark.sql.warehouse.dir", "spark-warehouse"))
    warehouse_ns = warehouse if ":" in warehouse else f"file:{warehouse}"
    symlink = DatasetId(warehouse_ns.rstrip("/"), qualified)
    return PlanDataset(_ids.from_location(location), schema, symlinks=[symlink], table=qualified)


def _schema(build: Any) -> Any:
    try:
        return build().schema
    except Exception:
        return None
