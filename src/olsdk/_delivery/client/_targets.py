"""Where an event goes: the destinations of the client's transport, and their breakers.

A composite transport's children each owe a delivery of their own: the client keeps one
record per child, and a failure or a delivery reported by any transport below a child
(a label anywhere under it) settles that child's record.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeGuard

from olsdk._delivery.transports._base import Transport
from olsdk._delivery.transports._breaker import Breaker, BreakerSettings, SharedState

if TYPE_CHECKING:
    from olsdk._delivery.transports._composite import CompositeTransport

__all__ = ["Destinations", "install_breakers", "leaves", "waits_on_network"]

_LOCAL_KINDS = frozenset({"noop", "console", "file", "callback"})  # destinations that need no network


class Destinations:
    """The children of a composite at the top of the transport tree (none for another transport)."""

    def __init__(self, transport: Transport | None) -> None:
        self.targets: tuple[str, ...] = ()
        self.child_of: dict[str, str] = {}  # a label anywhere below a composite child -> that child
        if transport is not None and transport.children() and _is_composite(transport):
            self.targets = tuple(child.label for child in transport.transports)
            self.child_of = {node.label: child.label for child in transport.transports for node in _nodes(child)}

    def target_of(self, label: str | None) -> str | None:
        """The composite child a label belongs to (None: no composite at the top)."""
        if not self.targets or label is None:
            return None
        return self.child_of.get(label, label)

    def delivered(self, ref: Any, label: str | None) -> list[int]:
        """The records an asynchronous delivery by ``label`` settles (``ref``: the payload's)."""
        if not isinstance(ref, Mapping):
            return []
        if not self.targets:
            return list(ref.values())
        child = self.target_of(label)
        return [ref[child]] if child in ref else []


def _is_composite(transport: Transport) -> TypeGuard[CompositeTransport]:
    # imported here: a transport without children (most of them) is no composite
    from olsdk._delivery.transports._composite import CompositeTransport

    return isinstance(transport, CompositeTransport)


def _nodes(transport: Transport) -> Iterator[Transport]:
    """Every transport of the tree under (and including) ``transport``."""
    yield transport
    for child in transport.children():
        yield from _nodes(child)


def leaves(transport: Transport) -> list[Transport]:
    """The destinations of the tree: the transports under ``transport`` without children."""
    return [node for node in _nodes(transport) if not node.children()]


def install_breakers(transport: Transport, settings: BreakerSettings, shared: SharedState | None) -> list[Breaker]:
    """A breaker on every destination of the tree that has none yet (state shared in the store)."""
    found = leaves(transport)
    for leaf in found:
        if leaf.breaker is None:
            leaf.breaker = Breaker(leaf.breaker_identity, settings, shared)
    return [leaf.breaker for leaf in found if leaf.breaker is not None]


def waits_on_network(transport: Transport) -> bool:
    """Whether delivering through ``transport`` may wait on a network: any destination of the
    tree but a local file, the console, a callback or none (a transport of another kind may)."""
    return any(leaf.kind not in _LOCAL_KINDS or bool(getattr(leaf, "remote", False)) for leaf in leaves(transport))
