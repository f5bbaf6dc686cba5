"""The layered layout: left to right, no overlaps, few crossings, cycles, determinism."""

from __future__ import annotations

import random
from itertools import combinations, pairwise

import pytest

from olsdk._integrations._graph import _layout
from olsdk._integrations._graph._layout import NODE_GAP, NODE_HEIGHT, NODE_WIDTH, Layout, layered_layout


def overlaps(layout: Layout, count: int) -> list[tuple[int, int]]:
    found = []
    by_column: dict[int, list[int]] = {}
    for node in range(count):
        by_column.setdefault(layout.x[node], []).append(node)
    for column in by_column.values():
        column.sort(key=lambda n: layout.y[n])
        for a, b in pairwise(column):
            if layout.y[b] - layout.y[a] < NODE_HEIGHT + NODE_GAP - 1:
                found.append((a, b))
    # nodes of different columns never share space either
    for a, b in combinations(range(min(count, 300)), 2):
        close = abs(layout.x[a] - layout.x[b]) < NODE_WIDTH and abs(layout.y[a] - layout.y[b]) < NODE_HEIGHT
        if close and (a, b) not in found:
            found.append((a, b))
    return found


def crossings(layout: Layout, edges: list[tuple[int, int]]) -> int:
    """Crossing pairs among edges joining the same two columns (straight segments)."""
    count = 0
    for (a, b), (c, d) in combinations(edges, 2):
        same_columns = layout.x[a] == layout.x[c] and layout.x[b] == layout.x[d] and len({a, b, c, d}) == 4
        if same_columns and (layout.y[a] - layout.y[c]) * (layout.y[b] - layout.y[d]) < 0:
            count += 1
    return count


def test_edges_point_right_and_nodes_do_not_overlap() -> None:
    # two sources -> job -> two outputs -> job -> one output, plus a separate pair
    edges = [(0, 2), (1, 2), (2, 3), (2, 4), (3, 5), (4, 5), (5, 6), (7, 8)]
    layout = layered_layout(9, edges)
    for u, v in edges:
        assert layout.x[u] < layout.x[v], (u, v)
    assert overlaps(layout, 9) == []
    assert layout.width >= max(layout.x) + NODE_WIDTH // 2 - 1
    assert layout.height >= max(layout.y) + NODE_HEIGHT // 2 - 1


def test_sweeps_untangle_what_the_first_order_crosses() -> None:
    # The depth-first order puts job 4 above job 3, which crosses 1 -> 3 and 2 -> 4.
    edges = [(0, 4), (1, 3), (2, 4), (3, 5), (4, 5)]
    layout = layered_layout(6, edges)
    assert crossings(layout, edges) == 0


def test_sweeps_reduce_crossings(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(3)
    edges = sorted({(rng.randrange(0, 30), rng.randrange(30, 60)) for _ in range(50)})
    edges += sorted({(rng.randrange(30, 60), rng.randrange(60, 90)) for _ in range(50)})
    swept = crossings(layered_layout(90, edges), edges)
    monkeypatch.setattr(_layout, "MAX_SWEEPS", 0)
    unswept = crossings(layered_layout(90, edges), edges)
    assert swept < unswept * 0.8, (swept, unswept)


def test_long_edges_are_routed_through_bends_between_the_layers() -> None:
    edges = [(0, 1), (1, 2), (2, 3), (0, 3)]  # 0 -> 3 skips two layers
    layout = layered_layout(4, edges)
    bends = layout.bends[3]
    assert len(bends) == 2
    assert all(layout.x[0] < x < layout.x[3] for x, _ in bends)
    assert 0 not in layout.bends and 1 not in layout.bends


def test_cycles_are_laid_out() -> None:
    # a job that reads and writes the same table, and a three-node loop
    edges = [(0, 1), (1, 0), (2, 3), (3, 4), (4, 2), (4, 5)]
    layout = layered_layout(6, edges)
    assert overlaps(layout, 6) == []
    forward = [(u, v) for u, v in edges if layout.x[u] < layout.x[v]]
    assert len(forward) == len(edges) - 2  # exactly one edge per cycle runs backwards


def test_the_layout_is_deterministic_and_independent_of_edge_order() -> None:
    rng = random.Random(11)
    edges = sorted({(rng.randrange(0, 60), rng.randrange(60, 120)) for _ in range(150)})
    edges += [(v, rng.randrange(120, 160)) for _, v in edges[:40]]
    first = layered_layout(160, edges)
    shuffled = list(edges)
    rng.shuffle(shuffled)
    second = layered_layout(160, shuffled)
    assert (first.x, first.y) == (second.x, second.y)


def test_isolated_nodes_are_packed_in_rows() -> None:
    layout = layered_layout(100, [])
    assert overlaps(layout, 100) == []
    assert len(set(layout.x)) > 1 and len(set(layout.y)) > 1  # rows, not one long column


# Four components and two isolated nodes: a back edge across a long edge, a two-node
# loop and a late source (A); a three-node loop with a self loop, a repeated edge and
# long edges out of the loop (B); one edge (C); the crossing the sweeps untangle (D).
PINNED_EDGES = [
    *[(0, 1), (1, 2), (2, 3), (0, 3), (3, 1), (4, 2), (2, 5), (5, 2), (1, 6), (6, 3)],
    *[(7, 8), (8, 9), (9, 7), (8, 8), (9, 10), (9, 10), (7, 11), (10, 11), (11, 12), (7, 12)],
    (13, 14),
    *[(15, 19), (16, 18), (17, 19), (18, 20), (19, 20)],
]


def test_the_layout_of_a_small_graph_is_pinned() -> None:
    """Coordinates of the layout as written in issue 17; a refactoring must keep them."""
    layout = layered_layout(23, PINNED_EDGES)
    # fmt: off
    assert layout.x == [
        125, 485, 845, 1205, 485, 1205, 845,  # A
        125, 485, 845, 1205, 1565, 1925,  # B
        125, 485,  # C
        125, 125, 125, 485, 485, 845,  # D
        795, 1105,  # isolated
    ]
    assert layout.y == [
        257, 284, 357, 284, 348, 357, 293,
        486, 501, 485, 485, 471, 493,
        629, 629,
        23, 151, 87, 129, 65, 97,
        629, 629,
    ]
    # fmt: on
    assert layout.bends == {
        3: [(485, 241), (845, 238)],
        4: [(845, 250)],
        12: [(485, 458)],
        16: [(485, 446), (845, 442), (1205, 442)],
        19: [(485, 544), (845, 535), (1205, 528), (1565, 514)],
    }
    assert (layout.width, layout.height) == (2050, 652)
