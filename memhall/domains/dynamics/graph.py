"""The tag graph: tags are nodes, memories the edges between the tags they carry.

How each relation kind comes out of one memory (seed 001, layer 2):
- person: two people tagged on the same memory (a relationship);
- event: any other pair of its entity tags, a person with a place or topic or a
  place with a topic (who took part in what, and where it happened);
- temporal: each entity tag with the memory's period node (its quarter, "2026Q1");
- emotional: each person (or, when it names none, each entity) with the node of
  each emotion tag (this made someone feel so);
- causal: each entity of a memory it cites as a cause with each entity of its own
  (because X, so Y);
- wandering: the two nodes of a synthetic insight, weight 0.1, drawn dashed; the
  only links that no walk follows.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import NamedTuple

from memhall.domains.dynamics.record import MemoryRecord


class NodeKind(str, Enum):
    PERSON = "person"
    PLACE = "place"
    TOPIC = "topic"
    TIME = "time"
    EMOTION = "emotion"


ENTITY_KINDS = frozenset({NodeKind.PERSON, NodeKind.PLACE, NodeKind.TOPIC})


class Relation(str, Enum):
    PERSON = "person"
    EVENT = "event"
    TEMPORAL = "temporal"
    CAUSAL = "causal"
    EMOTIONAL = "emotional"
    WANDERING = "wandering"


class Node(NamedTuple):
    """A tag. A named tuple, not a dataclass: graphs of 100k memories hash nodes
    millions of times, and a tuple hashes and compares in C."""

    kind: NodeKind
    name: str

    def __str__(self) -> str:
        return f"{self.kind.value}:{self.name}"

    @classmethod
    def parse(cls, text: str) -> Node:
        """The inverse of str(): "person:maki" -> Node(PERSON, "maki")."""
        kind, _, name = text.partition(":")
        return cls(NodeKind(kind), name)

    @property
    def is_entity(self) -> bool:
        return self.kind in ENTITY_KINDS


class Link(NamedTuple):
    """All that joins two nodes: its relation kinds, the memories behind it, their weight.
    A named tuple, like Node: a domain's graph holds hundreds of thousands of them."""

    a: Node
    b: Node
    relations: frozenset[Relation]
    memory_ids: tuple[str, ...]
    weight: float

    @property
    def wandering_only(self) -> bool:
        return self.relations == {Relation.WANDERING}

    def other(self, node: Node) -> Node:
        return self.b if node == self.a else self.a


Pair = tuple[Node, Node]


def pair(x: Node, y: Node) -> Pair:
    return (x, y) if x <= y else (y, x)


def period(moment: datetime) -> str:
    return f"{moment.year}Q{(moment.month - 1) // 3 + 1}"


def entity_nodes(record: MemoryRecord) -> list[Node]:
    return ([Node(NodeKind.PERSON, p) for p in record.people]
            + [Node(NodeKind.PLACE, p) for p in record.places]
            + [Node(NodeKind.TOPIC, t) for t in record.topics])


@dataclass(frozen=True)
class TagGraph:
    links: Mapping[Pair, Link]
    #: the strongest emotional intensity among the memories carrying each node
    intensities: Mapping[Node, float] = field(default_factory=dict)
    _adjacent: dict[Node, dict[Node, Link]] = field(default_factory=dict, init=False, repr=False,
                                                     compare=False)

    def __post_init__(self) -> None:
        for (x, y), link in self.links.items():
            self._adjacent.setdefault(x, {})[y] = link
            self._adjacent.setdefault(y, {})[x] = link
        for node in self.intensities:
            self._adjacent.setdefault(node, {})

    @classmethod
    def build(cls, records: Iterable[MemoryRecord], *, weights: Mapping[str, float] | None = None,
              insight_weight: float = 0.1, touching: Collection[Node] | None = None) -> TagGraph:
        """The graph of `records`; `weights` (memory id -> retrieval weight, 1 if absent)
        scale each memory's edges, so faded memories pull a walk less. With `touching`, only
        the links of those nodes (one hop from them reads the same as in the whole graph)."""
        from memhall.domains.dynamics.linking import build_links

        links, intensities = build_links(records, weights or {}, insight_weight, touching)
        return cls(links=links, intensities=intensities)

    def nodes(self) -> list[Node]:
        return sorted(self._adjacent)

    def neighbours(self, node: Node, *, wandering: bool = True) -> dict[Node, Link]:
        """The links of `node`; without `wandering`, only those memories made."""
        around = self._adjacent.get(node, {})
        if wandering:
            return dict(around)
        return {n: link for n, link in around.items() if not link.wandering_only}

    def link(self, x: Node, y: Node) -> Link | None:
        return self.links.get(pair(x, y))

    def named(self, name: str) -> list[Node]:
        """Every node called `name`, whatever its kind (an entity may be a person and a topic)."""
        wanted = name.strip().lower()
        return [n for n in self.nodes() if n.name == wanted]

    def neighbourhood(self, centre: Node, hops: int = 1) -> TagGraph:
        """The nodes within `hops` of `centre` and every link among them."""
        reached, frontier = {centre}, {centre}
        for _ in range(hops):
            frontier = {n for f in frontier for n in self._adjacent.get(f, {})} - reached
            reached |= frontier
        links = {key: link for key, link in self.links.items()
                 if key[0] in reached and key[1] in reached}
        return TagGraph(links=links, intensities={n: self.intensities.get(n, 0.0) for n in reached})


#: each relation kind as a bit, and every set of them as the frozenset a Link holds
RELATION_BITS = {relation: 1 << index for index, relation in enumerate(Relation)}
KINDS_OF_MASK = {mask: frozenset(r for r, bit in RELATION_BITS.items() if mask & bit)
                 for mask in range(1 << len(RELATION_BITS))}
