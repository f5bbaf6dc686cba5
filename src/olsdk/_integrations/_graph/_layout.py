"""A layered (Sugiyama-style) left-to-right layout, computed before the page is written.

Steps, per weakly connected component:

1. cycles are broken by reversing the back edges of a depth-first search (a job
   that reads and writes the same table makes one);
2. layers by longest path from the sources, then sources moved right next to their
   first consumer, so that inputs sit next to the job that reads them;
3. edges spanning several layers get one dummy node per layer crossed, so that they
   are routed around the nodes;
4. the order within layers comes from barycenter sweeps (down and up), keeping the
   order with the fewest crossings, counted exactly with a Fenwick tree;
5. vertical positions: each node is pulled towards the mean of its neighbours,
   layer by layer, by an order-preserving least-squares fit with minimum gaps
   (isotonic regression, pool-adjacent-violators), which keeps edges short and
   mostly straight; long edges (dummies) weigh more, so they stay straight.

Components are then packed in rows, largest first. Everything is deterministic:
the same graph always gets the same picture.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

__all__ = ["LAYER_SPACING", "NODE_HEIGHT", "NODE_WIDTH", "Layout", "layered_layout"]

NODE_WIDTH: Final = 250
NODE_HEIGHT: Final = 46
LAYER_SPACING: Final = NODE_WIDTH + 110
NODE_GAP: Final = 18
DUMMY_HEIGHT: Final = 4
DUMMY_GAP: Final = 8
COMPONENT_GAP: Final = 60
MAX_SWEEPS: Final = 12
DUMMY_WEIGHT: Final = 4.0
SETTLE_ROUNDS: Final = 6


@dataclass(slots=True)
class Layout:
    """Node centres, and the bend points of every edge that crosses several layers."""

    x: list[int]
    y: list[int]
    bends: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # edge index -> points, source first
    width: int = 0
    height: int = 0


@dataclass(slots=True)
class _Component:
    nodes: list[int]  # graph node ids, sorted
    x: list[float]  # by local index
    y: list[float]
    bends: dict[int, list[tuple[float, float]]]
    width: float
    height: float


def _components(count: int, edges: Sequence[tuple[int, int]]) -> list[list[int]]:
    parent = list(range(count))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for u, v in edges:
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[max(ru, rv)] = min(ru, rv)
    groups: dict[int, list[int]] = {}
    for node in range(count):
        groups.setdefault(find(node), []).append(node)
    return list(groups.values())


def _crossings(upper: list[int], lower_pos: list[int], succ: list[list[int]], lower_size: int) -> int:
    """Crossings between two adjacent layers: inversions of the edges' lower ends."""
    ends = [lower_pos[w] for v in upper for w in sorted(succ[v], key=lower_pos.__getitem__)]
    tree = [0] * (lower_size + 1)
    crossings = 0
    for seen, end in enumerate(ends):
        # edges already seen whose lower end is right of this one cross it
        i = end + 1
        not_greater = 0
        while i > 0:
            not_greater += tree[i]
            i -= i & -i
        crossings += seen - not_greater
        i = end + 1
        while i <= lower_size:
            tree[i] += 1
            i += i & -i
    return crossings


def _fit(desired: list[float], weights: list[float], offsets: list[float]) -> list[float]:
    """Positions closest to `desired` (weighted least squares) with y[i] - y[i-1] >= gap.

    `offsets` are the cumulative minimum gaps; with z = y - offset the constraint is
    z non-decreasing, which pool-adjacent-violators solves exactly in linear time.
    """
    blocks: list[list[float]] = []  # [weighted sum, weight, count]
    for target, weight, offset in zip(desired, weights, offsets, strict=True):
        blocks.append([(target - offset) * weight, weight, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            last = blocks.pop()
            blocks[-1][0] += last[0]
            blocks[-1][1] += last[1]
            blocks[-1][2] += last[2]
    result: list[float] = []
    for total, weight, count in blocks:
        result.extend([total / weight] * int(count))
    return [z + offset for z, offset in zip(result, offsets, strict=True)]


@dataclass(slots=True)
class _Acyclic:
    """A component's distinct edges with its back edges reversed (step 1)."""

    succ: list[set[int]]
    pred: list[list[int]]
    reversed_edges: set[tuple[int, int]]  # as they were before reversal
    visit_order: list[int]  # depth-first discovery order: the first order within layers


@dataclass(slots=True)
class _ProperGraph:
    """The acyclic graph with a dummy node per layer crossed by a long edge (step 3).

    Nodes below `real` are the component's own; the others are dummies. Every edge
    of `up`/`down` joins adjacent layers.
    """

    real: int
    layer_of: list[int]
    order_key: list[float]
    up: list[list[int]]  # proper (one-layer) predecessors
    down: list[list[int]]
    chains: dict[tuple[int, int], list[int]]  # acyclic edge -> its dummies, source side first

    @property
    def total(self) -> int:
        return len(self.layer_of)

    def is_dummy(self, v: int) -> bool:
        return v >= self.real

    def add_dummy(self, layer: int, order_key: float) -> int:
        dummy = len(self.layer_of)
        self.layer_of.append(layer)
        self.order_key.append(order_key)
        self.up.append([])
        self.down.append([])
        return dummy

    def link(self, upper: int, lower: int) -> None:
        self.down[upper].append(lower)
        self.up[lower].append(upper)


def _successors(n: int, edges: list[tuple[int, int, int]]) -> list[list[int]]:
    """Distinct successors, sorted; self loops have no place in a layering."""
    succ: list[list[int]] = [[] for _ in range(n)]
    for _, u, v in edges:
        if u != v and v not in succ[u]:
            succ[u].append(v)
    for targets in succ:
        targets.sort()
    return succ


def _back_edges(succ: list[list[int]]) -> tuple[set[tuple[int, int]], list[int]]:
    """Back edges of an iterative depth-first search from the sources, and the visit order."""
    n = len(succ)
    has_pred = [False] * n
    for targets in succ:
        for v in targets:
            has_pred[v] = True
    state = [0] * n  # 0 new, 1 on the stack, 2 done
    back: set[tuple[int, int]] = set()
    visit_order = [0] * n
    counter = 0
    # sources first; then every node, so that a component that is one cycle is reached
    roots = [v for v in range(n) if not has_pred[v]] + list(range(n))
    for root in roots:
        if state[root]:
            continue
        state[root] = 1
        visit_order[root] = counter
        counter += 1
        stack: list[tuple[int, int]] = [(root, 0)]
        while stack:
            v, i = stack[-1]
            if i < len(succ[v]):
                stack[-1] = (v, i + 1)
                w = succ[v][i]
                if state[w] == 0:
                    state[w] = 1
                    visit_order[w] = counter
                    counter += 1
                    stack.append((w, 0))
                elif state[w] == 1:
                    back.add((v, w))
            else:
                state[v] = 2
                stack.pop()
    return back, visit_order


def _break_cycles(succ: list[list[int]]) -> _Acyclic:
    """Step 1: reverse the back edges."""
    n = len(succ)
    reversed_edges, visit_order = _back_edges(succ)
    dag_succ: list[set[int]] = [set() for _ in range(n)]
    for u in range(n):
        for v in succ[u]:
            if (u, v) in reversed_edges:
                dag_succ[v].add(u)
            else:
                dag_succ[u].add(v)
    dag_pred: list[list[int]] = [[] for _ in range(n)]
    for u in range(n):
        for v in dag_succ[u]:
            dag_pred[v].append(u)
    return _Acyclic(succ=dag_succ, pred=dag_pred, reversed_edges=reversed_edges, visit_order=visit_order)


def _assign_layers(dag: _Acyclic) -> list[int]:
    """Step 2: longest-path layers (Kahn order), then sources next to their first consumer."""
    n = len(dag.succ)
    indegree = [len(p) for p in dag.pred]
    queue = [v for v in range(n) if indegree[v] == 0]
    layer = [0] * n
    head = 0
    while head < len(queue):
        u = queue[head]
        head += 1
        for v in sorted(dag.succ[u]):
            layer[v] = max(layer[v], layer[u] + 1)
            indegree[v] -= 1
            if indegree[v] == 0:
                queue.append(v)
    for v in range(n):
        if not dag.pred[v] and dag.succ[v]:
            layer[v] = min(layer[w] for w in dag.succ[v]) - 1
    return layer


def _split_long_edges(dag: _Acyclic, layer: list[int]) -> _ProperGraph:
    """Step 3: a dummy node per layer crossed, ordered just after the edge's source."""
    n = len(layer)
    proper = _ProperGraph(
        real=n,
        layer_of=list(layer),
        order_key=[float(k) for k in dag.visit_order],
        up=[[] for _ in range(n)],
        down=[[] for _ in range(n)],
        chains={},
    )
    for u in range(n):
        for v in sorted(dag.succ[u]):
            previous = u
            chain: list[int] = []
            for step in range(layer[u] + 1, layer[v]):
                dummy = proper.add_dummy(step, proper.order_key[u] + 0.5)
                chain.append(dummy)
                proper.link(previous, dummy)
                previous = dummy
            proper.link(previous, v)
            proper.chains[(u, v)] = chain
    return proper


def _first_order(proper: _ProperGraph) -> list[list[int]]:
    """The members of each layer in depth-first order."""
    layer_count = max(proper.layer_of) + 1 if proper.total else 0
    layers: list[list[int]] = [[] for _ in range(layer_count)]
    for v in sorted(range(proper.total), key=lambda v: (proper.order_key[v], v)):
        layers[proper.layer_of[v]].append(v)
    return layers


def _positions(layers: list[list[int]], total: int) -> list[int]:
    pos = [0] * total
    for members in layers:
        for i, v in enumerate(members):
            pos[v] = i
    return pos


def _all_crossings(layers: list[list[int]], pos: list[int], down: list[list[int]]) -> int:
    return sum(_crossings(layers[i], pos, down, len(layers[i + 1])) for i in range(len(layers) - 1) if layers[i + 1])


def _barycenter_sweep(layers: list[list[int]], pos: list[int], indices: range, neighbours: list[list[int]]) -> None:
    """Sorts each layer of `indices`, in turn, by the mean position of its neighbours."""
    for i in indices:
        members = layers[i]
        keys: dict[int, float] = {}
        for v in members:
            near = neighbours[v]
            keys[v] = sum(pos[w] for w in near) / len(near) if near else float(pos[v])
        members.sort(key=lambda v: (keys[v], pos[v]))
        for j, v in enumerate(members):
            pos[v] = j


def _order_layers(proper: _ProperGraph, layers: list[list[int]]) -> list[list[int]]:
    """Step 4: down and up sweeps, keeping the order with the fewest crossings seen."""
    pos = _positions(layers, proper.total)
    best = _all_crossings(layers, pos, proper.down)
    best_layers = [list(members) for members in layers]
    sweeps = MAX_SWEEPS if proper.total <= 4000 else MAX_SWEEPS // 2
    stale = 0
    for _ in range(sweeps if best else 0):
        _barycenter_sweep(layers, pos, range(1, len(layers)), proper.up)
        _barycenter_sweep(layers, pos, range(len(layers) - 2, -1, -1), proper.down)
        crossings = _all_crossings(layers, pos, proper.down)
        if crossings < best:
            best, best_layers, stale = crossings, [list(m) for m in layers], 0
        else:
            stale += 1
            if stale >= 3 or crossings == 0:
                break
    return best_layers


@dataclass(slots=True)
class _LayerStacks:
    """Each ordered layer as a vertical stack: the sizes, weights and gaps step 5 keeps."""

    layers: list[list[int]]
    height: list[int]  # by node
    weight: list[float]  # by node: how strongly the fit keeps it where its neighbours pull it
    offsets: list[list[float]]  # by layer: each member's top-down position at minimum gaps

    @classmethod
    def stacked(cls, proper: _ProperGraph, layers: list[list[int]]) -> _LayerStacks:
        height = [DUMMY_HEIGHT if proper.is_dummy(v) else NODE_HEIGHT for v in range(proper.total)]
        weight = [DUMMY_WEIGHT if proper.is_dummy(v) else 1.0 for v in range(proper.total)]
        offsets: list[list[float]] = []
        for members in layers:
            running = 0.0
            layer_offsets = []
            for i, v in enumerate(members):
                if i:
                    w = members[i - 1]
                    gap = DUMMY_GAP if (proper.is_dummy(v) and proper.is_dummy(w)) else NODE_GAP
                    running += (height[v] + height[w]) / 2 + gap
                layer_offsets.append(running)
            offsets.append(layer_offsets)
        return cls(layers=layers, height=height, weight=weight, offsets=offsets)

    def centred(self) -> list[float]:
        """The stacked positions, each layer centred on the tallest one."""
        y = [0.0] * len(self.height)
        tallest = max((o[-1] for o in self.offsets if o), default=0.0)
        for members, layer_offsets in zip(self.layers, self.offsets, strict=True):
            shift = (tallest - (layer_offsets[-1] if layer_offsets else 0.0)) / 2
            for v, offset in zip(members, layer_offsets, strict=True):
                y[v] = offset + shift
        return y

    def settle(self, y: list[float], indices: Sequence[int], neighbour_lists: Sequence[list[list[int]]]) -> None:
        """Moves each layer of `indices`, in turn, towards the mean of its neighbours."""
        for i in indices:
            members = self.layers[i]
            desired = []
            for v in members:
                near = [w for lists in neighbour_lists for w in lists[v]]
                desired.append(sum(y[w] for w in near) / len(near) if near else y[v])
            fitted = _fit(desired, [self.weight[v] for v in members], self.offsets[i])
            for v, value in zip(members, fitted, strict=True):
                y[v] = value


def _vertical_positions(proper: _ProperGraph, layers: list[list[int]]) -> tuple[list[float], float]:
    """Step 5: node centres by node of `proper`, the topmost edge at 0, and the height."""
    stacks = _LayerStacks.stacked(proper, layers)
    y = stacks.centred()
    layer_count = len(layers)
    for _ in range(SETTLE_ROUNDS):
        stacks.settle(y, range(1, layer_count), [proper.up])
        stacks.settle(y, range(layer_count - 2, -1, -1), [proper.down])
    stacks.settle(y, range(layer_count), [proper.up, proper.down])
    top = min((y[v] - stacks.height[v] / 2 for v in range(proper.total)), default=0.0)
    bottom = max((y[v] + stacks.height[v] / 2 for v in range(proper.total)), default=0.0)
    return [value - top for value in y], bottom - top


def _edge_bends(
    edges: list[tuple[int, int, int]],
    dag: _Acyclic,
    proper: _ProperGraph,
    xs: list[float],
    ys: list[float],
) -> dict[int, list[tuple[float, float]]]:
    """The dummies' positions along each long edge, from the edge's own source."""
    bends: dict[int, list[tuple[float, float]]] = {}
    for index, u, v in edges:
        if u == v:
            continue
        if (u, v) in dag.reversed_edges:
            chain = list(reversed(proper.chains.get((v, u), [])))
        else:
            chain = proper.chains.get((u, v), [])
        if chain:
            bends[index] = [(xs[d], ys[d]) for d in chain]
    return bends


def _layout_component(nodes: list[int], edges: list[tuple[int, int, int]]) -> _Component:
    """`edges`: (edge index, local source, local target)."""
    dag = _break_cycles(_successors(len(nodes), edges))
    proper = _split_long_edges(dag, _assign_layers(dag))
    layers = _order_layers(proper, _first_order(proper))
    ys, height = _vertical_positions(proper, layers)
    xs = [layer * LAYER_SPACING + NODE_WIDTH / 2 for layer in proper.layer_of]
    layer_count = len(layers)
    return _Component(
        nodes=nodes,
        x=xs[: proper.real],
        y=ys[: proper.real],
        bends=_edge_bends(edges, dag, proper, xs, ys),
        width=(layer_count - 1) * LAYER_SPACING + NODE_WIDTH if layer_count else 0,
        height=height,
    )


def layered_layout(count: int, edges: Sequence[tuple[int, int]]) -> Layout:
    """Positions for `count` nodes joined by directed `edges` (pairs of node ids)."""
    edge_list = list(edges)
    component_edges: dict[int, list[tuple[int, int, int]]] = {}
    local: dict[int, tuple[int, int]] = {}  # node -> (component, local index)
    groups = _components(count, edge_list)
    for c, members in enumerate(groups):
        for i, node in enumerate(members):
            local[node] = (c, i)
    for index, (u, v) in enumerate(edge_list):
        c, lu = local[u]
        component_edges.setdefault(c, []).append((index, lu, local[v][1]))
    placed = [_layout_component(members, component_edges.get(c, [])) for c, members in enumerate(groups)]

    # Rows of components, tallest first, about as wide as the biggest or sqrt(area).
    placed.sort(key=lambda comp: (-comp.height, -len(comp.nodes), comp.nodes[0]))
    area = sum((comp.width + COMPONENT_GAP) * (comp.height + COMPONENT_GAP) for comp in placed)
    row_width = max(max((comp.width for comp in placed), default=0), area**0.5 * 1.6)
    x = [0] * count
    y = [0] * count
    bends: dict[int, list[tuple[int, int]]] = {}
    cursor_x = cursor_y = row_height = 0.0
    width = height = 0.0
    for comp in placed:
        if cursor_x > 0 and cursor_x + comp.width > row_width:
            cursor_x, cursor_y, row_height = 0.0, cursor_y + row_height + COMPONENT_GAP, 0.0
        for i, node in enumerate(comp.nodes):
            x[node] = round(cursor_x + comp.x[i])
            y[node] = round(cursor_y + comp.y[i])
        for index, points in comp.bends.items():
            bends[index] = [(round(cursor_x + px), round(cursor_y + py)) for px, py in points]
        width = max(width, cursor_x + comp.width)
        height = max(height, cursor_y + comp.height)
        cursor_x += comp.width + COMPONENT_GAP
        row_height = max(row_height, comp.height)
    return Layout(x=x, y=y, bends=bends, width=round(width), height=round(height))
