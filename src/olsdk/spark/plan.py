"""Datasets from Spark logical plans, found by walking them through py4j.

The walker returns plain data (``PlanDataset``) that the listener, ``lineage_run`` and
``datasets()`` turn into models. Any node it does not understand is skipped, never
raised: a lineage helper must not break the query it describes.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pyspark.sql.types import StructType

from olsdk.spark import _ids
from olsdk.spark._jvm import call, children, class_name, log, opt, seq, smap_get
from olsdk.spark.schema import schema_facet

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from olsdk.models import InputDataset, OutputDataset

__all__ = ["PlanDataset", "PlanWalker", "WriteTarget", "datasets"]


@dataclass
class PlanDataset:
    """One dataset seen in a plan: its identifier and what the plan says about it."""

    namespace: str
    name: str
    schema: StructType | None = None
    symlinks: list[tuple[str, str]] = field(default_factory=list)  # (namespace, name), TABLE
    table: str | None = None  # "db.table" when it is a catalog table
    # exprId -> column name of the leaf's output attributes (for column lineage)
    attributes: dict[int, str] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        return self.namespace, self.name

    def facets(self) -> dict[str, Any]:
        from olsdk.models import (
            DatasourceDatasetFacet,
            SymlinksDatasetFacet,
            SymlinksDatasetFacetIdentifier,
        )

        # The agent sets uri = namespace; the spec requires a URI there, which a bare
        # namespace such as "file" is not, so uri is only set when it is one.
        source = (
            DatasourceDatasetFacet(name=self.namespace, uri=self.namespace)
            if ":" in self.namespace
            else DatasourceDatasetFacet(name=self.namespace)
        )
        out: dict[str, Any] = {"dataSource": source}
        if self.schema is not None:
            out["schema"] = schema_facet(self.schema)
        if self.symlinks:
            out["symlinks"] = SymlinksDatasetFacet(
                identifiers=[
                    SymlinksDatasetFacetIdentifier(namespace=ns, name=name, type="TABLE") for ns, name in self.symlinks
                ]
            )
        return out

    def as_input(self) -> InputDataset:
        from olsdk.models import DatasetFacets, InputDataset

        facets = DatasetFacets.model_validate(self.facets())
        return InputDataset(namespace=self.namespace, name=self.name, facets=facets)

    def as_output(self, output_facets: dict[str, Any] | None = None, **extra_facets: Any) -> OutputDataset:
        from olsdk.models import DatasetFacets, OutputDataset, OutputDatasetFacets

        facets = DatasetFacets.model_validate({**self.facets(), **extra_facets})
        if output_facets:
            return OutputDataset(
                namespace=self.namespace,
                name=self.name,
                facets=facets,
                outputFacets=OutputDatasetFacets.model_validate(output_facets),
            )
        return OutputDataset(namespace=self.namespace, name=self.name, facets=facets)


@dataclass
class WriteTarget:
    """What a write command writes, and from which plan."""

    dataset: PlanDataset
    query: Any | None  # the JVM LogicalPlan that produces the data
    lifecycle: str | None  # CREATE / OVERWRITE / None
    suffix: str  # what names the job: a table id or a path (naming.job.spark)


# Write commands whose target is a catalog table, and the accessor of that table.
_CTAS = {
    "CreateDataSourceTableAsSelectCommand": "table",
    "CreateHiveTableAsSelectCommand": "tableDesc",
    "OptimizedCreateHiveTableAsSelectCommand": "tableDesc",
}
# Leaves that carry no dataset (in-memory data, generated ranges).
_NO_DATASET = {"LogicalRDD", "LocalRelation", "Range", "OneRowRelation", "RDDScanExec"}
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


def _struct(jschema: Any) -> StructType | None:
    """A JVM StructType as a PySpark one (one py4j call: its JSON)."""
    try:
        parsed = StructType.fromJson(json.loads(jschema.json()))
    except Exception:
        return None
    return parsed


class PlanWalker:
    """Finds datasets in the logical plans of one SparkSession (JVM side)."""

    def __init__(self, jsession: Any, *, column_lineage: bool = False) -> None:
        self.jsession = jsession
        self.column_lineage = column_lineage
        self.errors: list[str] = []
        self._hadoop_conf: Any = None
        self._symlink_ns: str | None = None

    # -- session facts, computed once -------------------------------------------------

    def hadoop_conf(self) -> Any:
        if self._hadoop_conf is None:
            self._hadoop_conf = self.jsession.sessionState().newHadoopConf()
        return self._hadoop_conf

    def symlink_namespace(self) -> str:
        """Namespace of catalog-table symlinks: the metastore, else the warehouse (A5.3)."""
        if self._symlink_ns is None:
            conf = self.jsession.conf()
            impl = str(call(conf, "get", "spark.sql.catalogImplementation", "in-memory"))
            uris = call(self.hadoop_conf(), "get", "hive.metastore.uris")
            if impl == "hive" and uris:
                first = urlsplit(str(uris).split(",")[0])
                self._symlink_ns = f"hive://{first.hostname}:{first.port or 9083}"
            else:
                wh = str(call(conf, "get", "spark.sql.warehouse.dir", "spark-warehouse"))
                self._symlink_ns = _qualify(wh).rstrip("/")
        return self._symlink_ns

    def derby_home(self) -> str | None:
        """``derby.system.home`` of the driver JVM: where relative Derby databases live."""
        from pyspark import SparkContext

        jvm = SparkContext._jvm
        home = call(jvm.java.lang.System, "getProperty", "derby.system.home") if jvm else None
        return str(home) if home else None

    def current_database(self) -> str:
        return str(call(self.jsession.sessionState().catalog(), "getCurrentDatabase") or "default")

    # -- inputs ------------------------------------------------------------------------

    def inputs(self, plan: Any) -> list[PlanDataset]:
        """Every dataset read by ``plan`` (a JVM LogicalPlan), deduplicated."""
        found: dict[tuple[str, str], PlanDataset] = {}
        stack = [plan]
        while stack:
            node = stack.pop()
            name = str(call(node, "nodeName") or "")
            for ds in self._leaf(node, name):
                if ds.key in found:
                    found[ds.key].attributes.update(ds.attributes)
                else:
                    found[ds.key] = ds
            kids = list(children(node))
            if not kids and name not in _NO_DATASET:
                # Commands keep their query out of children() (e.g. CTAS).
                query = call(node, "query")
                if query is not None:
                    kids = [query]
            stack.extend(reversed(kids))
        return list(found.values())

    def _leaf(self, node: Any, name: str) -> list[PlanDataset]:
        try:
            if name == "LogicalRelation":
                return self._logical_relation(node)
            if name == "HiveTableRelation":
                ds = self._table(node.tableMeta(), _struct(node.schema()))
                return [self._with_attributes(ds, node)]
        except Exception as exc:  # an unexpected plan shape: skip the leaf, keep going
            log.debug("olsdk.spark: cannot read %s: %s", name, exc)
            self.errors.append(f"{name}: {exc}")
        return []

    def _with_attributes(self, ds: PlanDataset, node: Any) -> PlanDataset:
        if self.column_lineage:
            for attr in seq(node.output()):
                ds.attributes[int(attr.exprId().id())] = str(attr.name())
        return ds

    def _logical_relation(self, node: Any) -> list[PlanDataset]:
        relation = node.relation()
        kind = class_name(relation)
        schema = _struct(node.schema())
        table = opt(node.catalogTable())
        if table is not None:
            return [self._with_attributes(self._table(table, schema), node)]
        if kind == "HadoopFsRelation":
            out = []
            for location in self._fs_datasets(seq(relation.location().rootPaths())):
                ns, nm = _ids.from_location(location)
                out.append(self._with_attributes(PlanDataset(ns, nm, schema), node))
            return out
        if kind == "JDBCRelation":
            return [self._with_attributes(d, node) for d in self._jdbc(relation, schema)]
        log.debug("olsdk.spark: relation %s has no dataset rule", kind)
        return []

    def _fs_datasets(self, roots: list[Any]) -> list[str]:
        """The agent's directory-or-file rule for ``HadoopFsRelation`` root paths (JVM Paths)."""
        if len(roots) == 1 and self._is_file(roots[0]):
            return [str(roots[0].toString())]
        dirs: list[str] = []
        for root in roots:
            location = str((root.getParent() if self._is_file(root) else root).toString())
            if location not in dirs:
                dirs.append(location)
        return dirs

    def _is_file(self, path: Any) -> bool:
        location = str(path.toString())
        parts = urlsplit(location)
        if parts.scheme in ("", "file"):
            return os.path.isfile(parts.path)
        try:
            return bool(path.getFileSystem(self.hadoop_conf()).isFile(path))
        except Exception:  # unreachable FS (credential passthrough): keep the raw path
            return False

    def _table(self, table: Any, schema: StructType | None) -> PlanDataset:
        ident = table.identifier()
        db = opt(ident.database()) or self.current_database()
        qualified = f"{db}.{ident.table()}"
        location = opt(table.storage().locationUri())
        if location is None:
            location = self.jsession.sessionState().catalog().defaultTablePath(ident)
        ns, name = _ids.from_location(str(location.toString()))
        return PlanDataset(ns, name, schema, symlinks=[(self.symlink_namespace(), qualified)], table=qualified)

    def _jdbc(self, relation: Any, schema: StructType | None) -> list[PlanDataset]:
        options = relation.jdbcOptions()
        url = str(options.url())
        params = options.parameters()
        dbtable = smap_get(params, "dbtable")
        if dbtable and not re.search(r"\s|^\(", dbtable.strip()):
            ns, name = _ids.from_jdbc(url, dbtable.strip(), self.derby_home())
            return [PlanDataset(ns, name, schema, table=dbtable.strip())]
        sql = smap_get(params, "query") or dbtable or ""
        return self._jdbc_query(url, sql, schema)

    def _jdbc_query(self, url: str, sql: str, schema: StructType | None) -> list[PlanDataset]:
        """Tables read by a JDBC ``query`` (or subquery ``dbtable``), via openlineage-sql."""
        try:
            import openlineage_sql  # type: ignore[import-untyped]
        except ImportError:
            self.errors.append(
                "JDBC query not parsed: install the 'sql' extra (openlineage-sql) to get the tables it reads"
            )
            return []
        match = re.match(r"(?i)jdbc:([a-z0-9]+):", url)
        dialect = _SQL_DIALECTS.get(match.group(1).lower() if match else "", "generic")
        try:
            meta = openlineage_sql.parse([_unwrap_subquery(sql)], dialect=dialect)
        except Exception as exc:
            self.errors.append(f"JDBC query not parsed: {exc}")
            return []
        if meta is None:
            self.errors.append("JDBC query not parsed: openlineage-sql found no statement")
            return []
        for err in meta.errors:
            self.errors.append(f"JDBC query partly parsed: {err.message}")
        types = {f.name: f.dataType for f in (schema.fields if schema else [])}
        out = []
        for table in meta.in_tables:
            ns, name = _ids.from_jdbc(url, table.qualified_name, self.derby_home())
            # The query's result columns that come straight from this table, with their types.
            cols: dict[str, Any] = {}
            for lineage in meta.column_lineage:
                for origin in lineage.lineage:
                    if origin.origin is not None and origin.origin.qualified_name == table.qualified_name:
                        same = origin.name == lineage.descendant.name and len(lineage.lineage) == 1
                        cols.setdefault(origin.name, types.get(origin.name) if same else None)
            fields: list[dict[str, Any]] = [
                {"name": c, "type": t.jsonValue() if t is not None else "unknown", "nullable": True, "metadata": {}}
                for c, t in cols.items()
            ]
            sub = _struct_from_fields(fields)
            out.append(PlanDataset(ns, name, sub, table=table.qualified_name))
        return out

    # -- writes ------------------------------------------------------------------------

    def write_target(self, command: Any) -> WriteTarget | None:
        """The output of a write command (analyzed plan root), or None if it is no write."""
        kind = str(call(command, "nodeName") or "")
        if kind == "InsertIntoHadoopFsRelationCommand":
            query = command.query()
            ns, name = _ids.from_location(str(command.outputPath().toString()))
            ds = PlanDataset(ns, name, _struct(query.schema()))
            table = opt(command.catalogTable())
            if table is not None:
                ds.table = self._table(table, None).table
                ds.symlinks = [(self.symlink_namespace(), ds.table or "")]
            mode = str(command.mode().toString())
            return WriteTarget(ds, query, "OVERWRITE" if mode == "Overwrite" else None, name)
        if kind in _CTAS:
            query = command.query()
            ds = self._table(getattr(command, _CTAS[kind])(), _struct(query.schema()))
            mode = str(command.mode().toString())
            return WriteTarget(ds, query, "OVERWRITE" if mode == "Overwrite" else "CREATE", ds.table or ds.name)
        if kind == "InsertIntoHiveTable":
            query = command.query()
            ds = self._table(command.table(), _struct(query.schema()))
            return WriteTarget(ds, query, "OVERWRITE" if command.overwrite() else None, ds.name)
        if kind == "CreateDataSourceTableCommand":
            ds = self._table(command.table(), _struct(command.table().schema()))
            return WriteTarget(ds, None, "CREATE", ds.table or ds.name)
        if kind == "SaveIntoDataSourceCommand":
            return self._save_into_data_source(command)
        return None

    def _save_into_data_source(self, command: Any) -> WriteTarget | None:
        query = command.query()
        options = command.options()
        mode = str(command.mode().toString())
        lifecycle = "OVERWRITE" if mode == "Overwrite" else None
        url, dbtable = smap_get(options, "url"), smap_get(options, "dbtable")
        if url and url.lower().startswith("jdbc:") and dbtable:
            ns, name = _ids.from_jdbc(url, dbtable, self.derby_home())
            ds = PlanDataset(ns, name, _struct(query.schema()), table=dbtable)
            return WriteTarget(ds, query, lifecycle, dbtable)
        path = smap_get(options, "path")
        if path:
            ns, name = _ids.from_location(path)
            ds = PlanDataset(ns, name, _struct(query.schema()))
            return WriteTarget(ds, query, lifecycle, name)
        return None


def _unwrap_subquery(sql: str) -> str:
    """``(SELECT ...) alias`` (a subquery ``dbtable``) -> ``SELECT ...``, which the parser
    follows column by column; a ``SELECT *`` around it would hide the column lineage."""
    match = re.match(r"(?s)^\s*\((.*)\)\s*(?:AS\s+)?\w*\s*$", sql, re.IGNORECASE)
    return match.group(1) if match else sql


def _struct_from_fields(fields: list[dict[str, Any]]) -> StructType | None:
    try:
        return StructType.fromJson({"type": "struct", "fields": fields})
    except Exception:
        return None


def _qualify(location: str) -> str:
    """``/p`` -> ``file:/p``, as Hadoop qualifies a local warehouse path."""
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", location):
        return re.sub(r"^file:///", "file:/", location)
    return "file:" + os.path.abspath(location)


def datasets(df: DataFrame, *, walker: PlanWalker | None = None) -> list[InputDataset]:
    """The input datasets of a DataFrame, from its analyzed plan (classic sessions).

    Each carries ``schema`` and ``dataSource`` facets; catalog tables carry a ``symlinks``
    TABLE entry; views are resolved to what they read. On Spark Connect, where there is
    no JVM access, the client-side plan is read instead (see ``olsdk.spark.connect``).
    """
    from olsdk.spark import connect

    if connect.is_connect(df):
        return [d.as_input() for d in connect.plan_datasets(df)]
    jdf = df._jdf
    w = walker or PlanWalker(df.sparkSession._jsparkSession)
    return [d.as_input() for d in w.inputs(jdf.queryExecution().analyzed())]
