"""The integer-keyed link construction gives exactly the graph the rules describe, memory by memory."""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from memhall.domains.dynamics.graph import Link, Node, NodeKind, Pair, Relation, TagGraph, entity_nodes, pair, period
from memhall.domains.dynamics.record import WANDERING, MemoryRecord
from tests.domains.dynamics.memories import memory


def reference(records: list[MemoryRecord], weights: dict[str, float]) -> TagGraph:
    """The rules of graph.py, applied one memory and one pair at a time."""
    by_id = {r.id: r for r in records}
    kinds: dict[Pair, set[Relation]] = defaultdict(set)
    ids: dict[Pair, list[str]] = defaultdict(list)
    total: dict[Pair, float] = defaultdict(float)
    felt: dict[Node, float] = {}
    for record in sorted(records, key=lambda r: r.id):
        found: dict[Pair, set[Relation]] = defaultdict(set)
        nodes = entity_nodes(record)
        if record.source == WANDERING:
            for x, y in combinations(nodes, 2):
                found[pair(x, y)].add(Relation.WANDERING)
        else:
            for x, y in combinations(nodes, 2):
                people = x.kind is NodeKind.PERSON and y.kind is NodeKind.PERSON
                found[pair(x, y)].add(Relation.PERSON if people else Relation.EVENT)
            when = Node(NodeKind.TIME, period(record.occurred_at))
            for node in nodes:
                found[pair(node, when)].add(Relation.TEMPORAL)
            for tag in record.emotion.tags:
                for node in [n for n in nodes if n.kind is NodeKind.PERSON] or nodes:
                    found[pair(node, Node(NodeKind.EMOTION, tag))].add(Relation.EMOTIONAL)
            for cause_id in record.causes:
                cause = by_id.get(cause_id)
                if cause is not None and cause.source != WANDERING:
                    for x in entity_nodes(cause):
                        for y in nodes:
                            if x != y:
                                found[pair(x, y)].add(Relation.CAUSAL)
        insight = record.source == WANDERING
        for key, relations in found.items():
            kinds[key] |= relations
            ids[key].append(record.id)
            total[key] += 0.1 if insight else weights.get(record.id, 1.0)
        for node in {n for key in found for n in key}:
            felt[node] = max(felt.get(node, 0.0), 0.0 if insight else record.emotion.intensity)
    links = {k: Link(k[0], k[1], frozenset(kinds[k]), tuple(ids[k]), total[k]) for k in kinds}
    return TagGraph(links=links, intensities=felt)


names = st.sampled_from(["ana", "bo", "cy", "x", "y"])
records = st.lists(st.tuples(st.lists(names, max_size=3), st.lists(names, max_size=1), st.lists(names, max_size=2),
                             st.lists(st.sampled_from(["joy", "fear"]), max_size=2), st.integers(0, 400),
                             st.floats(-1, 1), st.booleans(), st.lists(st.integers(0, 9), max_size=2)),
                   max_size=10)


@settings(max_examples=150, deadline=None)
@given(records, st.dictionaries(st.sampled_from([f"m{i}" for i in range(10)]), st.floats(0.1, 1)))
def test_the_fast_build_is_the_reference_build(specs: list[tuple], weights: dict[str, float]) -> None:  # type: ignore[type-arg]
    built = [memory(f"m{i}", at=at, valence=v, arousal=abs(v), feelings=tuple(feel), people=tuple(p),
                    places=tuple(pl), topics=tuple(t), source=WANDERING if insight else "",
                    causes=tuple(f"m{c}" for c in causes))
             for i, (p, pl, t, feel, at, v, insight, causes) in enumerate(specs)]

    fast = TagGraph.build(built, weights=weights)

    assert fast == reference(built, weights)


@settings(max_examples=150, deadline=None)
@given(records, st.lists(names, min_size=1, max_size=3))
def test_the_graph_around_some_nodes_gives_them_the_neighbours_the_whole_graph_does(
        specs: list[tuple], around: list[str]) -> None:  # type: ignore[type-arg]
    built = [memory(f"m{i}", at=at, valence=v, arousal=abs(v), feelings=tuple(feel), people=tuple(p),
                    places=tuple(pl), topics=tuple(t), source=WANDERING if insight else "",
                    causes=tuple(f"m{c}" for c in causes))
             for i, (p, pl, t, feel, at, v, insight, causes) in enumerate(specs)]
    nodes = [Node(kind, name) for name in around for kind in (NodeKind.PERSON, NodeKind.PLACE, NodeKind.TOPIC)]

    part = TagGraph.build(built, touching=nodes)

    whole = TagGraph.build(built)
    for node in nodes:
        assert list(part.neighbours(node).items()) == list(whole.neighbours(node).items())
    assert all(x in nodes or y in nodes for x, y in part.links)
