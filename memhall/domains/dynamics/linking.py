"""How memories link tags: the construction of a TagGraph's links (the rules are in graph.py).

A walk builds the graph of a whole domain — 100k memories make about a million
link additions — so the work is done on small integers: each node is numbered
once (a lookup by its name in its kind's table), a pair of nodes is one integer,
and the relation kinds of a link are bits. Nodes and Links are made once each,
at the end. The result is the same as following the rules memory by memory.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from itertools import combinations

from memhall.domains.dynamics.graph import (
    KINDS_OF_MASK,
    RELATION_BITS,
    Link,
    Node,
    NodeKind,
    Pair,
    Relation,
    period,
)
from memhall.domains.dynamics.record import WANDERING, MemoryRecord

_SHIFT = 32
_LOW = (1 << _SHIFT) - 1
_PERSON, _EVENT, _TEMPORAL, _CAUSAL, _EMOTIONAL, _WANDERING = (
    RELATION_BITS[r] for r in (Relation.PERSON, Relation.EVENT, Relation.TEMPORAL, Relation.CAUSAL,
                               Relation.EMOTIONAL, Relation.WANDERING))


class _Numbers:
    """Each node's number, by kind and name."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.tables: dict[NodeKind, dict[str, int]] = {kind: {} for kind in NodeKind}

    def of(self, kind: NodeKind, name: str) -> int:
        table = self.tables[kind]
        number = table.get(name)
        if number is None:
            number = table[name] = len(self.nodes)
            self.nodes.append(Node(kind, name))
        return number


def _key(a: int, b: int) -> int:
    return (a << _SHIFT) | b if a < b else (b << _SHIFT) | a


def build_links(records: Iterable[MemoryRecord], weights: Mapping[str, float], insight_weight: float,
                touching: Collection[Node] | None = None) -> tuple[dict[Pair, Link], dict[Node, float]]:
    """The links of `records` and each node's strongest emotional intensity. With `touching`
    (entity nodes), only the links with an end among them (and no intensities): what one hop from
    them reads, in the same order and with the same weights as in the whole graph."""
    ordered = sorted(records, key=lambda r: r.id)
    numbers = _Numbers()
    entities: dict[str, tuple[list[int], int]] = {}
    for record in ordered:
        people = [numbers.of(NodeKind.PERSON, p) for p in record.people]
        others = ([numbers.of(NodeKind.PLACE, p) for p in record.places]
                  + [numbers.of(NodeKind.TOPIC, t) for t in record.topics])
        entities[record.id] = (people + others, len(people))
    insights = {r.id for r in ordered if r.source == WANDERING}
    ends = None if touching is None else {
        number for n in touching if (number := numbers.tables[n.kind].get(n.name)) is not None}
    masks: dict[int, int] = defaultdict(int)
    behind: dict[int, list[str]] = defaultdict(list)
    totals: dict[int, float] = defaultdict(float)
    felt: dict[int, float] = {}
    for record in ordered:
        ident = record.id
        own, count = entities[ident]
        if not own:
            continue
        if ident in insights:
            found = {_key(a, b): _WANDERING for a, b in combinations(own, 2)}
            touched, weight, intensity = (own if found else []), insight_weight, 0.0
        else:
            found, touched = _relations(record, own, count, numbers, entities, insights, ends)
            weight, intensity = weights.get(ident, 1.0), record.emotion.intensity
        for key, mask in found.items():
            if ends is not None and key >> _SHIFT not in ends and key & _LOW not in ends:
                continue
            masks[key] |= mask
            behind[key].append(ident)
            totals[key] += weight
        if ends is not None:
            continue
        for node in touched:
            if intensity >= felt.get(node, 0.0):
                felt[node] = intensity
    nodes = numbers.nodes
    links: dict[Pair, Link] = {}
    for key, mask in masks.items():
        x, y = nodes[key >> _SHIFT], nodes[key & _LOW]
        if y < x:
            x, y = y, x
        links[(x, y)] = Link(x, y, KINDS_OF_MASK[mask], tuple(behind[key]), totals[key])
    return links, {nodes[n]: value for n, value in felt.items()}


def _relations(record: MemoryRecord, own: list[int], people: int, numbers: _Numbers,
               entities: Mapping[str, tuple[list[int], int]], insights: set[str],
               ends: set[int] | None = None) -> tuple[dict[int, int], list[int]]:
    """One memory's pairs (as keys, with their relation bits) and the nodes they touch;
    with `ends` (entity nodes), only the pairs with an end among them, in the same order."""
    found: dict[int, int] = {}
    every, among = ends is None, ends or set()
    for i, a in enumerate(own):
        kept = every or a in among
        for j in range(i + 1, len(own)):
            if kept or own[j] in among:
                key = _key(a, own[j])
                found[key] = found.get(key, 0) | (_PERSON if j < people else _EVENT)
    when = numbers.of(NodeKind.TIME, period(record.occurred_at))
    touched = [*own, when]
    for a in own:
        if every or a in among:
            key = _key(a, when)
            found[key] = found.get(key, 0) | _TEMPORAL
    feelers = own[:people] or own
    for tag in record.emotion.tags:
        feeling = numbers.of(NodeKind.EMOTION, tag)
        touched.append(feeling)
        for a in feelers:
            if every or a in among:
                key = _key(a, feeling)
                found[key] = found.get(key, 0) | _EMOTIONAL
    for cause_id in record.causes:
        cause = entities.get(cause_id)
        if cause is None or cause_id in insights:
            continue
        for x in cause[0]:
            for y in own:
                if x != y and (every or x in among or y in among):
                    key = _key(x, y)
                    found[key] = found.get(key, 0) | _CAUSAL
                    touched.append(x)
    return found, touched
