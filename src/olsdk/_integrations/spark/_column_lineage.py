"""Column lineage from a plan description, by following expression ids.

Every column in a Catalyst plan has an ``exprId``. The JVM listener describes, per
node, the aliases that create new ids (with the ids they read, split into values and
the conditions of ``If``/``CASE WHEN``), and the ids a node uses without producing
them: filter and join conditions, grouping keys, sort orders, window specifications.
Following aliases from the written columns back to the leaves gives DIRECT lineage
(``IDENTITY``, ``TRANSFORMATION``, ``AGGREGATION``: the strongest step on the way);
the conditions give INDIRECT lineage (``CONDITIONAL`` for one column; ``FILTER``,
``JOIN``, ``GROUP_BY``, ``SORT``, ``WINDOW`` for the whole dataset), as the spec's
transformation types describe. A node outside the known set stops the analysis: no
facet is better than a wrong one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from olsdk._builders.naming._identifier import DatasetId
from olsdk._integrations.spark._plan import LeafColumns

__all__ = ["column_lineage_facet"]

# Nodes whose column flow is known: pass-through (joins, filters, ...) or described (aliases).
_KNOWN_NODES = frozenset(
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
        "DeduplicateWithinWatermark",
        "ResolvedHint",
        "RebalancePartitions",
        "Intersect",
        "Except",
        "WithWatermark",
        "Subquery",
        "Project",
        "Aggregate",
        "Window",
        "Union",
        "Generate",
        "Expand",
        "SerializeFromObject",
        "EventTimeWatermark",
    }
)
_RANK = {"IDENTITY": 0, "TRANSFORMATION": 1, "AGGREGATION": 2}
# node field -> INDIRECT subtype of the ids it lists
_INDIRECT = (("filter", "FILTER"), ("join", "JOIN"), ("group", "GROUP_BY"), ("sort", "SORT"), ("window", "WINDOW"))
_Column = tuple[DatasetId, str]  # an input dataset and one of its columns


class _Flow:
    """How expression ids depend on each other in one plan."""

    def __init__(self) -> None:
        self.links: dict[int, list[tuple[int, str]]] = {}  # out id -> [(in id, DIRECT subtype)]
        self.conditions: dict[int, list[int]] = {}  # out id -> ids its CASE/IF conditions read
        self.indirect: list[tuple[int, str]] = []  # (id, INDIRECT subtype) for the whole dataset

    def link(self, out: int, ids: Iterable[int], subtype: str) -> None:
        self.links.setdefault(out, []).extend((int(i), subtype) for i in ids)


def _flow(nodes: list[dict[str, Any]]) -> _Flow | None:
    flow = _Flow()
    for node in nodes:
        name = str(node.get("name") or "")
        if "leaf" not in node and name not in _KNOWN_NODES:
            return None  # a node whose column flow is unknown (a Python UDF node, for instance)
        _add_aliases(flow, node)
        for key, subtype in _INDIRECT:
            flow.indirect.extend((int(i), subtype) for i in node.get(key) or [])
        if name == "Union":
            _add_union(flow, [nodes[i] for i in node.get("children") or []])
        _add_generated(flow, node)
    return flow


def _add_aliases(flow: _Flow, node: dict[str, Any]) -> None:
    """The ids a node's aliases create, from the values and the conditions they read."""
    for out, _name, subtype, direct, conditions in node.get("exprs") or []:
        flow.link(int(out), direct, str(subtype))
        if conditions:
            flow.conditions.setdefault(int(out), []).extend(int(i) for i in conditions)


def _add_union(flow: _Flow, kids: list[dict[str, Any]]) -> None:
    """A union's output is its first child's: each other child's column at the same position feeds it."""
    first = [int(a[0]) for a in (kids[0].get("output") or [])] if kids else []
    for other in kids[1:]:
        for pos, attr in enumerate(other.get("output") or []):
            if pos < len(first):
                flow.link(first[pos], [int(attr[0])], "IDENTITY")


def _add_generated(flow: _Flow, node: dict[str, Any]) -> None:
    """The columns a Generate (explode, ...) or an Expand node makes from the ids they read."""
    generate = node.get("generate")
    if generate:
        for out, _ in generate.get("output") or []:
            flow.link(int(out), generate.get("refs") or [], "TRANSFORMATION")
    projections = node.get("projections")
    if projections:
        for pos, (out, _) in enumerate(node.get("output") or []):
            for projection in projections:
                if pos < len(projection):
                    flow.link(int(out), projection[pos], "TRANSFORMATION")


def _resolve(start: int, flow: _Flow, leaves: LeafColumns) -> tuple[dict[_Column, str], list[int]]:
    """Leaf columns reachable from ``start`` with their strongest DIRECT subtype, and the
    condition ids met on the way."""
    found: dict[_Column, str] = {}
    conditions: list[int] = []
    best: dict[int, int] = {}
    stack = [(start, "IDENTITY")]
    while stack:
        expr_id, subtype = stack.pop()
        if best.get(expr_id, -1) >= _RANK[subtype]:
            continue  # already reached with an equal or stronger transformation
        best[expr_id] = _RANK[subtype]
        conditions.extend(flow.conditions.get(expr_id, []))
        for ident, column, how in leaves.get(expr_id, []):
            step = max(subtype, how, key=_RANK.__getitem__)
            key = (ident, column)
            if _RANK[step] > _RANK.get(found.get(key, ""), -1):
                found[key] = step
        for nxt, step in flow.links.get(expr_id, []):
            stack.append((nxt, max(subtype, step, key=_RANK.__getitem__)))
    return found, conditions


def _columns_of(ids: Iterable[int], flow: _Flow, leaves: LeafColumns) -> list[_Column]:
    out: list[_Column] = []
    for expr_id in ids:
        for column in _resolve(expr_id, flow, leaves)[0]:
            if column not in out:
                out.append(column)
    return out


def column_lineage_facet(
    nodes: list[dict[str, Any]],
    leaves: LeafColumns,
    *,
    dataset_lineage: bool = True,
) -> Any | None:
    """A ``ColumnLineageDatasetFacet`` for the columns the plan's root writes, or None.

    ``dataset_lineage`` puts the INDIRECT inputs that concern every column (filters,
    joins, grouping, sorting, windows) in the facet's ``dataset`` list, as the agent does
    with ``columnLineage.datasetLineageEnabled`` (its default); otherwise each column
    lists them. Models without the ``dataset`` field (older specs) get the latter.
    """
    from olsdk._models import ColumnLineageDatasetFacet
    from olsdk._models._release import has_field

    if not nodes:
        return None
    flow = _flow(nodes)
    if flow is None:
        return None
    # INDIRECT for the whole dataset: (column) -> subtypes
    whole: dict[_Column, list[str]] = {}
    for expr_id, subtype in flow.indirect:
        for column in _columns_of([expr_id], flow, leaves):
            if subtype not in whole.setdefault(column, []):
                whole[column].append(subtype)
    fields: dict[str, dict[_Column, list[dict[str, str]]]] = {}
    for expr_id, name in nodes[0].get("output") or []:
        direct, conditions = _resolve(int(expr_id), flow, leaves)
        entries: dict[_Column, list[dict[str, str]]] = {
            column: [{"type": "DIRECT", "subtype": subtype}] for column, subtype in direct.items()
        }
        for column in _columns_of(conditions, flow, leaves):
            entries.setdefault(column, []).append({"type": "INDIRECT", "subtype": "CONDITIONAL"})
        if entries:
            fields[str(name)] = entries
    if not fields:
        return None
    per_dataset = dataset_lineage and has_field(
        "ColumnLineageDatasetFacet",
        "dataset",
        feature="Spark column lineage: the inputs of the whole dataset are listed under each column instead",
    )
    if not per_dataset:
        for entries in fields.values():
            for column, subtypes in whole.items():
                entries.setdefault(column, []).extend({"type": "INDIRECT", "subtype": s} for s in subtypes)
    facet: dict[str, Any] = {
        "fields": {name: {"inputFields": _input_fields(entries)} for name, entries in fields.items()}
    }
    if per_dataset and whole:
        facet["dataset"] = _input_fields(
            {column: [{"type": "INDIRECT", "subtype": s} for s in subtypes] for column, subtypes in whole.items()}
        )
    return ColumnLineageDatasetFacet(**facet)


def _input_fields(entries: dict[_Column, list[dict[str, str]]]) -> list[dict[str, Any]]:
    return [
        {"namespace": ident.namespace, "name": ident.name, "field": column, "transformations": transformations}
        for (ident, column), transformations in entries.items()
    ]
