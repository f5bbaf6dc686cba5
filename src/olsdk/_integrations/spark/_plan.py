"""From the JVM listener's plan descriptions to datasets, as the Java agent names them.

The Java side (``OlsdkLineageBridge.java``) reads a plan into plain JSON: the write target of a
command, and the query as a node list whose leaves say where their data lives (files,
a catalog table, a JDBC table or query, a DataSource V2 table). This module applies
``olsdk.naming``'s rules to those facts; it makes no JVM call of its own, except in
``SessionFacts.of`` (once per session) and ``datasets(df)``.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pyspark.sql.types import StructType

from olsdk._builders.naming._identifier import DatasetId
from olsdk._integrations.spark import _connect, _ids
from olsdk._integrations.spark._dataset import PlanDataset
from olsdk._integrations.spark._jvm import call, log

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from olsdk._models import InputDataset

__all__ = ["LeafColumns", "PlanFacts", "PlanReader", "SessionFacts", "WriteTarget", "datasets", "qualify"]

#: exprId -> the input columns it is: (dataset, field, IDENTITY or TRANSFORMATION)
LeafColumns = dict[int, list[tuple[DatasetId, str, str]]]

_SQL_DIALECTS = {
    "postgresql": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
    "sqlserver": "mssql",
    "snowflake": "snowflake",
    "redshift": "redshift",
    "sqlite": "sqlite",
    "hive2": "hive",
    "bigquery": "bigquery",
    "oracle": "oracle",
    "trino": "trino",
    "databricks": "databricks",
}
# Commands whose job name ends with the written path rather than the table name (A3).
_PATH_SUFFIX = frozenset({"InsertIntoHadoopFsRelationCommand", "InsertIntoHiveTable", "InsertIntoDataSourceDirCommand"})
# V2 tables that write nothing anywhere: a run, but no output dataset.
_NO_OUTPUT_TABLES = frozenset({"NoopTable$", "NoopTable"})


@dataclass(frozen=True)
class SessionFacts:
    """What naming needs from the session, read once: where catalog-table symlinks point."""

    symlink_namespace: str  # the metastore (hive://host:port), else the warehouse location
    warehouse: str
    derby_home: str | None = None
    catalogs: dict[str, dict[str, str]] = field(default_factory=dict)  # spark.sql.catalog.<name>.*

    @classmethod
    def of(cls, spark: Any) -> SessionFacts:
        jsession = spark._jsparkSession
        conf = jsession.conf()
        impl = str(call(conf, "get", "spark.sql.catalogImplementation", "in-memory"))
        warehouse = qualify(str(call(conf, "get", "spark.sql.warehouse.dir", "spark-warehouse"))).rstrip("/")
        uris = call(spark.sparkContext._jsc.hadoopConfiguration(), "get", "hive.metastore.uris")
        if impl == "hive" and uris:
            first = urlsplit(str(uris).split(",")[0])
            symlink_ns = f"hive://{first.hostname}:{first.port or 9083}"
        else:
            symlink_ns = warehouse
        jvm = spark.sparkContext._jvm
        home = call(jvm.java.lang.System, "getProperty", "derby.system.home") if jvm else None
        catalogs: dict[str, dict[str, str]] = {}
        for key, value in _all_conf(spark).items():
            match = re.match(r"spark\.sql\.catalog\.([^.]+)\.(.+)$", key)
            if match:
                catalogs.setdefault(match.group(1), {})[match.group(2)] = value
        return cls(symlink_ns, warehouse, str(home) if home else None, catalogs)


def _all_conf(spark: Any) -> dict[str, str]:
    try:
        return {str(k): str(v) for k, v in spark.sparkContext.getConf().getAll()}
    except Exception:
        return {}


@dataclass
class WriteTarget:
    """What a command writes (or changes), as the job name and the output dataset need it."""

    dataset: PlanDataset | None  # None: a write that lands nowhere (the noop format)
    lifecycle: str | None  # CREATE / OVERWRITE / DROP / TRUNCATE / ALTER / RENAME / None
    suffix: str | None  # what ends the job name: a table id or a path (naming.job.spark)
    command: str  # the analyzed plan's root node
    previous: DatasetId | None = None  # RENAME: the identifier before
    loaded: PlanDataset | None = None  # LOAD DATA: the files loaded


@dataclass
class PlanFacts:
    """One execution's plan as the listener needs it."""

    root: str  # analyzed plan root
    command: str  # executed plan root, as the agent names commands
    target: WriteTarget | None
    inputs: list[PlanDataset]
    nodes: list[dict[str, Any]]  # the query's node list (column lineage works on it)
    leaf_columns: LeafColumns
    errors: list[str] = field(default_factory=list)  # what could not be read
    stream_run_id: str | None = None  # a streaming query's micro-batch: the query run's id


class PlanReader:
    """Datasets from plan descriptions, named by ``olsdk.naming`` (A5 rules)."""

    def __init__(self, facts: SessionFacts) -> None:
        self.facts = facts

    def read(self, plan: dict[str, Any]) -> PlanFacts:
        errors: list[str] = []
        nodes: list[dict[str, Any]] = (plan.get("query") or {}).get("nodes") or []
        inputs, leaf_columns = self.inputs(nodes, errors)
        target = self.target(plan.get("target"), errors)
        if target is not None and target.loaded is not None:
            inputs.append(target.loaded)
        root = str(plan.get("root") or "")
        return PlanFacts(
            root=root,
            # a command that failed before it was planned has no executed plan: its analyzed root
            command=str(plan.get("command") or root or "unknown"),
            target=target,
            inputs=inputs,
            nodes=nodes,
            leaf_columns=leaf_columns,
            errors=errors,
            stream_run_id=plan.get("streamRunId"),
        )

    # -- inputs ------------------------------------------------------------------------

    def inputs(self, nodes: list[dict[str, Any]], errors: list[str]) -> tuple[list[PlanDataset], LeafColumns]:
        """Every dataset the leaves read (deduplicated) and what each leaf column is."""
        found: dict[DatasetId, PlanDataset] = {}
        columns: LeafColumns = {}
        for node in nodes:
            leaf = node.get("leaf")
            if not leaf:
                continue
            try:
                leaf_sets, leaf_cols = self._leaf(leaf, node.get("output") or [], errors)
            except Exception as error:  # an unexpected shape: skip the leaf, keep going
                errors.append(f"{node.get('name')}: {type(error).__name__}: {error}")
                continue
            for ds in leaf_sets:
                found.setdefault(ds.ident, ds)
            columns.update(leaf_cols)
        return list(found.values()), columns

    def _leaf(
        self, leaf: dict[str, Any], output: list[list[Any]], errors: list[str]
    ) -> tuple[list[PlanDataset], LeafColumns]:
        schema = _struct(leaf.get("schema"))
        if leaf.get("type") == "jdbc" and not _ids.jdbc_table(leaf.get("dbtable")):
            return self._jdbc_query(leaf, schema, output, errors)
        found = self.datasets(leaf, schema, errors)
        columns: LeafColumns = {}
        for expr_id, name in output:
            columns[int(expr_id)] = [(ds.ident, str(name), "IDENTITY") for ds in found]
        return found, columns

    def datasets(self, desc: dict[str, Any], schema: StructType | None, errors: list[str]) -> list[PlanDataset]:
        """The datasets a relation or target description names."""
        kind = desc.get("type")
        if kind == "files":
            paths = [str(p) for p in desc.get("paths") or []]
            flags = list(desc.get("isFile") or [None] * len(paths))
            found = [PlanDataset(_ids.from_location(p), schema) for p in _fs_locations(paths, flags)]
            if desc.get("table") and len(found) == 1:  # a file write into a catalog table
                catalog = self.table(desc["table"], None)
                found[0].table, found[0].symlinks = catalog.table, catalog.symlinks
            return found
        if kind == "table":
            return [self.table(desc.get("table") or {}, schema)]
        if kind == "jdbc":
            table = _ids.jdbc_table(desc.get("dbtable"))
            if table is None:
                return []
            ident = _ids.from_jdbc(str(desc.get("url") or ""), table, self.facts.derby_home)
            return [PlanDataset(ident, schema, table=table)]
        if kind in ("v2", "ident"):
            ds = self._v2(desc, schema)
            return [ds] if ds is not None else []
        if kind == "stream":
            ds = _stream_source(desc, schema)
            return [ds] if ds is not None else []
        if kind == "other":
            errors.append(f"relation {desc.get('class')}: no dataset naming rule")
        return []

    def table(self, table: dict[str, Any], schema: StructType | None) -> PlanDataset:
        """A catalog table: its physical location, plus a TABLE symlink to ``db.table`` (A5.3)."""
        qualified = f"{table.get('db') or 'default'}.{table.get('name')}"
        location = table.get("location")
        ident = _ids.from_location(str(location)) if location else DatasetId(self.facts.symlink_namespace, qualified)
        if schema is None:
            schema = _struct(table.get("schema"))
            if schema is not None and not schema.fields:
                schema = None  # a CTAS target before the write: the query's schema is used
        extra: dict[str, Any] = {}
        if str(table.get("provider") or "").lower() == "hive":
            extra["catalog"] = _catalog("hive", "hive", "spark_catalog", self.facts.warehouse)
        return PlanDataset(
            ident,
            schema,
            symlinks=[DatasetId(self.facts.symlink_namespace, qualified)],
            table=qualified,
            extra=extra,
        )

    def _v2(self, desc: dict[str, Any], schema: StructType | None) -> PlanDataset | None:
        """A DataSource V2 table (A5.4, A5.5): its location, else its path option, else its name."""
        if desc.get("tableClass") in _NO_OUTPUT_TABLES:
            return None
        props: dict[str, str] = desc.get("properties") or {}
        options: dict[str, str] = desc.get("options") or {}
        catalog = desc.get("catalog")
        name = desc.get("name")
        location = props.get("location") or options.get("path")
        symlinks: list[DatasetId] = []
        extra: dict[str, Any] = {}
        provider = (props.get("provider") or "").lower()
        fmt = (props.get("format") or "").lower()
        if desc.get("tableClass") == "DeltaTableV2" or provider == "delta":
            extra["storage"] = _storage("delta", "parquet")
            framework = "delta"
        elif desc.get("tableClass") == "SparkTable" or fmt.startswith("iceberg"):
            extra["storage"] = _storage("iceberg", fmt.split("/", 1)[1] if "/" in fmt else "parquet")
            framework = "iceberg"
        else:
            framework = ""
        if catalog and name:
            symlinks.append(DatasetId(self._catalog_namespace(str(catalog), framework), str(name)))
        if location:
            ident = _ids.from_location(str(location))
        elif symlinks:
            ident, symlinks = symlinks[0], []
        else:
            # a source with neither a location nor a catalog (a Python data source): its name
            source = str(desc.get("tableName") or desc.get("tableClass") or "unknown")
            ident = DatasetId(f"spark-datasource://{_ids.normalize(source)}", source)
        return PlanDataset(ident, schema, symlinks=symlinks, table=str(name) if name else None, extra=extra)

    def _catalog_namespace(self, catalog: str, framework: str) -> str:
        """Where a V2 catalog's names live: its metastore or REST URI, else its warehouse."""
        settings = self.facts.catalogs.get(catalog, {})
        kind = settings.get("type", "").lower()
        if kind == "hive" or (framework == "iceberg" and not kind and settings.get("uri", "").startswith("thrift")):
            uri = urlsplit(settings.get("uri", ""))
            return f"hive://{uri.hostname}:{uri.port or 9083}" if uri.hostname else self.facts.symlink_namespace
        if kind == "rest" and settings.get("uri"):
            return settings["uri"].rstrip("/")
        if settings.get("warehouse"):
            return qualify(settings["warehouse"]).rstrip("/")
        if catalog == "spark_catalog":
            return self.facts.symlink_namespace
        return f"spark-catalog://{catalog}"

    def _jdbc_query(
        self, leaf: dict[str, Any], schema: StructType | None, output: list[list[Any]], errors: list[str]
    ) -> tuple[list[PlanDataset], LeafColumns]:
        """The tables a JDBC ``query`` reads, and which of their columns each result column is."""
        url = str(leaf.get("url") or "")
        sql = str(leaf.get("query") or leaf.get("dbtable") or "")
        try:
            import openlineage_sql  # type: ignore[import-untyped]
        except ImportError:
            errors.append("JDBC query not parsed: install the 'sql' extra (openlineage-sql) to get the tables it reads")
            return [], {}
        match = re.match(r"(?i)jdbc:([a-z0-9]+):", url)
        dialect = _SQL_DIALECTS.get(match.group(1).lower() if match else "", "generic")
        try:
            meta = openlineage_sql.parse([_unwrap_subquery(sql)], dialect=dialect)
        except Exception as error:
            errors.append(f"JDBC query not parsed: {error}")
            return [], {}
        if meta is None:
            errors.append("JDBC query not parsed: openlineage-sql found no statement")
            return [], {}
        errors.extend(f"JDBC query partly parsed: {e.message}" for e in meta.errors)
        types = {f.name.lower(): f.dataType for f in (schema.fields if schema else [])}
        tables: dict[str, DatasetId] = {
            t.qualified_name: _ids.from_jdbc(url, t.qualified_name, self.facts.derby_home) for t in meta.in_tables
        }
        used: dict[str, dict[str, str | None]] = {name: {} for name in tables}
        origins: dict[str, list[tuple[DatasetId, str, str]]] = {}
        by_result = {str(item.descendant.name).lower(): item for item in meta.column_lineage}
        # the query's result columns in their order; each origin column gets the type of
        # the result it flows into, as the agent does
        for result in [str(name) for _, name in output] or list(by_result):
            lineage = by_result.get(result.lower())
            if lineage is None:
                continue
            sources = [o for o in lineage.lineage if o.origin is not None and o.origin.qualified_name in tables]
            identity = len(sources) == 1 and sources[0].name.lower() == result.lower()
            kind = types.get(result.lower())
            for source in sources:
                table = source.origin.qualified_name
                used[table].setdefault(str(source.name), _type_name(kind.jsonValue()) if kind is not None else None)
                how = "IDENTITY" if identity else "TRANSFORMATION"
                origins.setdefault(result.lower(), []).append((tables[table], str(source.name), how))
        found = [
            PlanDataset(ident, None, table=name, columns=list(used[name].items())) for name, ident in tables.items()
        ]
        columns: LeafColumns = {int(i): origins.get(str(n).lower(), []) for i, n in output}
        return found, columns

    # -- targets -----------------------------------------------------------------------

    def target(self, desc: dict[str, Any] | None, errors: list[str]) -> WriteTarget | None:
        if not desc:
            return None
        command = str(desc.get("command") or "")
        schema = _struct(desc.get("schema"))
        dataset_desc = desc.get("dataset") or {}
        found = self.datasets(dataset_desc, schema, errors)
        dataset = found[0] if found else None
        if dataset is None and dataset_desc.get("tableClass") not in _NO_OUTPUT_TABLES:
            return None  # nothing nameable: no run rather than a run about nothing
        if dataset is not None and dataset.schema is None and schema is not None and schema.fields:
            dataset.schema = schema
        previous = None
        if desc.get("previous"):
            before = self.datasets(desc["previous"], None, errors)
            previous = before[0].ident if before else None
        loaded = None
        if desc.get("load"):
            loaded = PlanDataset(_ids.from_location(qualify(str(desc["load"]))))
        if dataset is None:
            suffix = None
        elif command in _PATH_SUFFIX:
            suffix = dataset.ident.name
        else:
            suffix = dataset.table or dataset.ident.name
        return WriteTarget(dataset, desc.get("lifecycle"), suffix, command, previous, loaded)


def _fs_locations(paths: list[str], is_file: list[bool | None]) -> list[str]:
    """The agent's directory-or-file rule for ``HadoopFsRelation`` root paths (A5.1)."""

    def file_flag(path: str, flag: bool | None) -> bool:
        if flag is not None:
            return flag
        parts = urlsplit(path)
        return parts.scheme in ("", "file") and os.path.isfile(parts.path)

    if len(paths) == 1 and file_flag(paths[0], is_file[0] if is_file else None):
        return paths
    out: list[str] = []
    for path, flag in zip(paths, is_file, strict=False):
        location = path.rsplit("/", 1)[0] if file_flag(path, flag) else path
        if location not in out:
            out.append(location)
    return out


def _stream_source(desc: dict[str, Any], schema: StructType | None) -> PlanDataset | None:
    """A streaming source known by its description (``FileStreamSource[file:/p]``) or path."""
    path = desc.get("path")
    if not path:
        match = re.match(r"^\w*File\w*\[(.+)\]$", str(desc.get("source") or ""))
        path = match.group(1) if match else None
    return PlanDataset(_ids.from_location(str(path)), schema) if path else None


def _catalog(framework: str, kind: str, name: str, warehouse: str) -> Any:
    from olsdk._models._release import spec_class

    # A release without the facet (before 1.33.0): the dataset stays, the facet goes.
    cls = spec_class("CatalogDatasetFacet", feature="Spark: the catalog dataset facet of catalog tables", logger=log)
    if cls is None:
        return None
    return cls(framework=framework, type=kind, name=name, warehouseUri=warehouse, source="spark")


def _storage(layer: str, file_format: str) -> Any:
    from olsdk._models import StorageDatasetFacet

    return StorageDatasetFacet(storageLayer=layer, fileFormat=file_format)


def _type_name(kind: Any) -> str | None:
    """A data type's ``jsonValue`` as the agent names it (``integer``, ``decimal(10,2)``, ``struct``)."""
    if isinstance(kind, dict):
        return str(kind.get("type") or "struct")
    return None if kind is None else str(kind)


def _struct(text: Any) -> StructType | None:
    """A StructType from the JVM's JSON text (``DataType.json``)."""
    if not text:
        return None
    try:
        return StructType.fromJson(json.loads(text) if isinstance(text, str) else text)
    except Exception as error:
        log.debug("olsdk.spark: unreadable schema: %s", error)
        return None


def _unwrap_subquery(sql: str) -> str:
    """``(SELECT ...) alias`` (a subquery ``dbtable``) -> ``SELECT ...``, which the parser
    follows column by column; a ``SELECT *`` around it would hide the column lineage."""
    match = re.match(r"(?s)^\s*\((.*)\)\s*(?:AS\s+)?\w*\s*$", sql, re.IGNORECASE)
    return match.group(1) if match else sql


def qualify(location: str) -> str:
    """``/p`` -> ``file:/p``, as Hadoop qualifies a local path."""
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", location):
        return re.sub(r"^file:///", "file:/", location)
    return "file:" + os.path.abspath(location)


def datasets(df: DataFrame, *, facts: SessionFacts | None = None) -> list[InputDataset]:
    """The input datasets of a DataFrame, from its analyzed plan.

    Each carries ``schema`` and ``dataSource`` facets; catalog tables carry a ``symlinks``
    TABLE entry; views are resolved to what they read. On Spark Connect, where there is
    no JVM access, the client-side plan is read instead (see ``olsdk._integrations.spark._connect``).
    """
    if _connect.is_connect(df):
        return [d.as_input() for d in _connect.plan_datasets(df)]
    from olsdk._integrations.spark._bridge import describe_plan

    spark = df.sparkSession
    reader = PlanReader(facts or SessionFacts.of(spark))
    described = describe_plan(spark, df._jdf.queryExecution().analyzed())
    found, _ = reader.inputs(described.get("nodes") or [], [])
    return [d.as_input() for d in found]
