"""Column lineage from a logical plan, by following expression ids.

Every column in a Catalyst plan has an ``exprId``. A ``Project``, ``Aggregate`` or
``Window`` creates new ids through ``Alias`` expressions whose references are the
columns they read; a ``Union`` exposes its first child's ids and takes the other
children's columns by position; joins, filters, sorts and limits pass ids through.
Following these links from the query's output back to the leaves' attributes gives
each output column's input fields. A node outside that list stops the analysis: no
facet is better than a wrong one.
"""

from __future__ import annotations

from typing import Any

from olsdk.spark._jvm import call, children, class_name, log, seq
from olsdk.spark.plan import PlanDataset

__all__ = ["column_lineage_facet"]

# Nodes that keep their children's expression ids as they are.
_PASS_THROUGH = frozenset(
    {
        "Join",
        "Filter",
        "Sort",
        "GlobalLimit",
        "LocalLimit",
        "Limit",
        "Offset",
        "Tail",
        "SubqueryAlias",
        "View",
        "Repartition",
        "RepartitionByExpression",
        "Sample",
        "Distinct",
        "Deduplicate",
        "ResolvedHint",
        "RebalancePartitions",
        "Intersect",
        "Except",
        "WithWatermark",
        "Subquery",
    }
)
_LEAVES = frozenset(
    {
        "LogicalRelation",
        "HiveTableRelation",
        "LogicalRDD",
        "LocalRelation",
        "Range",
        "OneRowRelation",
    }
)
_RANK = {"IDENTITY": 0, "TRANSFORMATION": 1, "AGGREGATION": 2}


def _ids_of(expr: Any) -> list[int]:
    return [int(a.exprId().id()) for a in seq(expr.references())]


class _Deps:
    def __init__(self) -> None:
        # output exprId -> [(input exprId, subtype)]
        self.links: dict[int, list[tuple[int, str]]] = {}

    def add_named(self, expressions: Any, aggregate: bool) -> None:
        for named in seq(expressions):
            if class_name(named) != "Alias":
                continue  # a plain attribute keeps its id
            child = named.child()
            if class_name(child) == "AttributeReference":
                subtype = "IDENTITY"
            else:
                subtype = "AGGREGATION" if aggregate else "TRANSFORMATION"
            out = int(named.exprId().id())
            self.links.setdefault(out, []).extend((i, subtype) for i in _ids_of(child))


def _collect(plan: Any) -> _Deps | None:
    deps = _Deps()
    stack = [plan]
    while stack:
        node = stack.pop()
        name = str(call(node, "nodeName") or "")
        kids = list(children(node))
        if name == "Project":
            deps.add_named(node.projectList(), aggregate=False)
        elif name == "Aggregate":
            deps.add_named(node.aggregateExpressions(), aggregate=True)
        elif name == "Window":
            deps.add_named(node.windowExpressions(), aggregate=False)
        elif name == "Union":
            first = [int(a.exprId().id()) for a in seq(kids[0].output())] if kids else []
            for other in kids[1:]:
                for pos, attr in enumerate(seq(other.output())):
                    if pos < len(first):
                        deps.links.setdefault(first[pos], []).append((int(attr.exprId().id()), "IDENTITY"))
        elif name not in _PASS_THROUGH and name not in _LEAVES:
            log.debug("olsdk.spark: column lineage stops at %s", name)
            return None
        stack.extend(kids)
    return deps


def column_lineage_facet(query: Any, inputs: list[PlanDataset]) -> Any | None:
    """A ``ColumnLineageDatasetFacet`` for the output of ``query`` (JVM LogicalPlan).

    ``inputs`` must come from a walker with ``column_lineage=True`` (they carry the
    leaves' expression ids). Returns None when the plan holds a node it cannot follow.
    """
    from olsdk.models import ColumnLineageDatasetFacet

    try:
        deps = _collect(query)
        if deps is None:
            return None
        leaves = {i: (ds.key, col) for ds in inputs for i, col in ds.attributes.items()}
        fields: dict[str, Any] = {}
        for attr in seq(query.output()):
            found = _resolve(int(attr.exprId().id()), deps.links, leaves)
            if found:
                fields[str(attr.name())] = {
                    "inputFields": [
                        {
                            "namespace": key[0],
                            "name": key[1],
                            "field": col,
                            "transformations": [{"type": "DIRECT", "subtype": subtype}],
                        }
                        for (key, col), subtype in found.items()
                    ]
                }
        return ColumnLineageDatasetFacet(fields=fields) if fields else None
    except Exception as exc:  # an unexpected expression shape: no facet
        log.debug("olsdk.spark: column lineage failed: %s", exc)
        return None


def _resolve(
    start: int,
    links: dict[int, list[tuple[int, str]]],
    leaves: dict[int, tuple[tuple[str, str], str]],
) -> dict[tuple[tuple[str, str], str], str]:
    """Leaf columns reachable from ``start``, each with the strongest transformation."""
    found: dict[tuple[tuple[str, str], str], str] = {}
    best: dict[int, int] = {}
    stack = [(start, "IDENTITY")]
    while stack:
        expr_id, subtype = stack.pop()
        if best.get(expr_id, -1) >= _RANK[subtype]:
            continue  # already reached with an equal or stronger transformation
        best[expr_id] = _RANK[subtype]
        if expr_id in leaves:
            key = leaves[expr_id]
            if _RANK[subtype] > _RANK.get(found.get(key, ""), -1):
                found[key] = subtype
        for nxt, step in links.get(expr_id, []):
            stack.append((nxt, max(subtype, step, key=_RANK.__getitem__)))
    return found
