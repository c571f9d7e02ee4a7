"""Subliminal activation: one-hop spreading over the tag graph, and the seed's three tiers.

Nodes active in the current conversation pass activation to their direct
neighbours, which raises the retrieval weight of the memories carrying them
without recalling them. A node shares its activation among its links in
proportion to their weight (the fan effect: a hub primes each neighbour less).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from enum import Enum
from typing import cast

from memhall.domains.dynamics.config import ActivationConfig, TierConfig
from memhall.domains.dynamics.graph import Node, NodeKind, TagGraph
from memhall.domains.dynamics.record import MemoryRecord


class Tier(str, Enum):
    """Where a ranked memory sits (seed 001, layer 5)."""

    WORKING = "working"  # in the context window: what recall's budget hands out
    PRECONSCIOUS = "preconscious"  # highly active, not recalled: recall's candidate pool
    SUBCONSCIOUS = "subconscious"  # the rest: never enters the context


def tier(rank: int, config: TierConfig) -> Tier:
    """The tier of the memory ranked `rank` (from 1) by recall."""
    if rank <= config.working:
        return Tier.WORKING
    if rank <= config.preconscious_max:
        return Tier.PRECONSCIOUS
    return Tier.SUBCONSCIOUS


def tiers(ranked_ids: Sequence[str], config: TierConfig) -> dict[str, Tier]:
    return {ident: tier(index + 1, config) for index, ident in enumerate(ranked_ids)}


def spread(graph: TagGraph, active: Iterable[Node], config: ActivationConfig) -> dict[Node, float]:
    """Activation of each neighbour of the active nodes (not of the active nodes
    themselves), in [0, spread_factor]: spread_factor · Σ over active neighbours
    of the share of that neighbour's link weight that leads here."""
    sources = set(active)
    reached: dict[Node, float] = defaultdict(float)
    for source in sorted(sources):
        links = graph.neighbours(source)
        total = sum(link.weight for link in links.values())
        if total <= 0:
            continue
        for node, link in links.items():
            if node not in sources:
                reached[node] += link.weight / total
    return {node: config.spread_factor * min(1.0, share) for node, share in sorted(reached.items())}


def boosts(records: Iterable[MemoryRecord], activation: Mapping[Node, float]) -> dict[str, float]:
    """Retrieval multipliers (> 1) of the memories carrying an activated entity; any
    memory not listed keeps 1. The strongest of its entities counts, not their sum."""
    # a Node is a named tuple, so a plain (kind, name) tuple finds it: no Node made per tag
    lit = cast(Mapping[tuple[NodeKind, str], float], activation)
    out: dict[str, float] = {}
    for record in records:
        best = max((lit.get((kind, name), 0.0) for kind, names in (
            (NodeKind.PERSON, record.people), (NodeKind.PLACE, record.places), (NodeKind.TOPIC, record.topics))
            for name in names), default=0.0)
        if best > 0:
            out[record.id] = 1 + best
    return out
