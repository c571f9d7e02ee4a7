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

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from itertools import combinations
from typing import NamedTuple

from memhall.domains.dynamics.record import WANDERING, MemoryRecord


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


@dataclass(frozen=True)
class Link:
    """All that joins two nodes: its relation kinds, the memories behind it, their weight."""

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
              insight_weight: float = 0.1) -> TagGraph:
        """The graph of `records`; `weights` (memory id -> retrieval weight, 1 if absent)
        scale each memory's edges, so faded memories pull a walk less."""
        records = sorted(records, key=lambda r: r.id)
        by_id = {r.id: r for r in records}
        growing: dict[Pair, _Growing] = {}
        intensities: dict[Node, float] = {}
        for record in records:
            insight = record.source == WANDERING
            own = _insight_relations(record) if insight else _relations(record, by_id)
            weight = insight_weight if insight else (weights or {}).get(record.id, 1.0)
            felt = 0.0 if insight else record.emotion.intensity
            for key, kinds in own.items():
                link = growing.get(key)
                if link is None:
                    link = growing[key] = _Growing()
                link.add(record.id, kinds, weight)
            for node in {n for key in own for n in key}:
                if felt >= intensities.get(node, 0.0):
                    intensities[node] = felt
        links = {key: Link(key[0], key[1], frozenset(g.relations), tuple(g.memory_ids), g.weight)
                 for key, g in growing.items()}
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


class _Growing:
    """A link while the graph is being built."""

    __slots__ = ("memory_ids", "relations", "weight")

    def __init__(self) -> None:
        self.relations: set[Relation] = set()
        self.memory_ids: list[str] = []
        self.weight = 0.0

    def add(self, memory_id: str, relations: set[Relation], weight: float) -> None:
        self.relations |= relations
        self.memory_ids.append(memory_id)
        self.weight += weight


def _relations(record: MemoryRecord, by_id: Mapping[str, MemoryRecord]) -> dict[Pair, set[Relation]]:
    found: dict[Pair, set[Relation]] = defaultdict(set)
    entities = entity_nodes(record)
    for x, y in combinations(entities, 2):
        both_people = x.kind is NodeKind.PERSON and y.kind is NodeKind.PERSON
        found[pair(x, y)].add(Relation.PERSON if both_people else Relation.EVENT)
    when = Node(NodeKind.TIME, period(record.occurred_at))
    for node in entities:
        found[pair(node, when)].add(Relation.TEMPORAL)
    feelers = [n for n in entities if n.kind is NodeKind.PERSON] or entities
    for tag in record.emotion.tags:
        feeling = Node(NodeKind.EMOTION, tag)
        for node in feelers:
            found[pair(node, feeling)].add(Relation.EMOTIONAL)
    for cause_id in record.causes:
        cause = by_id.get(cause_id)
        if cause is None or cause.source == WANDERING:
            continue
        for x in entity_nodes(cause):
            for y in entities:
                if x != y:
                    found[pair(x, y)].add(Relation.CAUSAL)
    return found


def _insight_relations(record: MemoryRecord) -> dict[Pair, set[Relation]]:
    """A recorded insight joins the nodes it names, and nothing else."""
    return {pair(x, y): {Relation.WANDERING} for x, y in combinations(entity_nodes(record), 2)}
