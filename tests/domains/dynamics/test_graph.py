"""The tag graph: relation kinds from memories, neighbourhoods, and drawings."""

from __future__ import annotations

from memhall.domains.dynamics.drawing import to_dot, to_mermaid
from memhall.domains.dynamics.graph import Node, NodeKind, Relation, TagGraph
from tests.domains.dynamics.memories import memory

XIAOMEI = Node(NodeKind.PERSON, "xiaomei")
LIU = Node(NodeKind.PERSON, "liu")
HUAYANG = Node(NodeKind.PLACE, "huayang")
MOVING = Node(NodeKind.TOPIC, "moving")
Q1 = Node(NodeKind.TIME, "2026Q1")
CALM = Node(NodeKind.EMOTION, "calm")


def moved() -> TagGraph:
    return TagGraph.build([memory("m1", people=("Xiaomei", "liu"), places=("huayang",),
                                  topics=("moving",), feelings=("calm",))])


def relations(graph: TagGraph, x: Node, y: Node) -> set[Relation]:
    link = graph.link(x, y)
    return set(link.relations) if link else set()


def test_one_memory_joins_its_tags_by_kind_of_relation() -> None:
    graph = moved()

    assert relations(graph, XIAOMEI, LIU) == {Relation.PERSON}
    assert relations(graph, XIAOMEI, HUAYANG) == {Relation.EVENT}
    assert relations(graph, HUAYANG, MOVING) == {Relation.EVENT}
    assert relations(graph, MOVING, Q1) == {Relation.TEMPORAL}
    assert relations(graph, XIAOMEI, CALM) == {Relation.EMOTIONAL}
    assert relations(graph, HUAYANG, CALM) == set()  # the people felt it, not the place


def test_a_memory_without_people_gives_its_feeling_to_its_things() -> None:
    graph = TagGraph.build([memory("m1", topics=("release",), feelings=("fear",))])

    assert relations(graph, Node(NodeKind.TOPIC, "release"), Node(NodeKind.EMOTION, "fear")) == {
        Relation.EMOTIONAL}


def test_a_cited_cause_joins_its_entities_to_the_effects() -> None:
    graph = TagGraph.build([
        memory("a", topics=("diet",)),
        memory("b", topics=("health",), causes=("a", "missing")),
    ])

    assert relations(graph, Node(NodeKind.TOPIC, "diet"), Node(NodeKind.TOPIC, "health")) == {
        Relation.CAUSAL}


def test_every_memory_on_a_link_adds_its_weight() -> None:
    graph = TagGraph.build([memory("m1", people=("liu", "xiaomei")),
                            memory("m2", people=("liu", "xiaomei"))],
                           weights={"m2": 0.5})

    link = graph.link(LIU, XIAOMEI)

    assert link is not None
    assert link.memory_ids == ("m1", "m2")
    assert link.weight == 1.5


def test_a_recorded_insight_is_a_wandering_link_and_nothing_else() -> None:
    graph = TagGraph.build([memory("i1", people=("liu",), topics=("moving",), source="wandering")])

    link = graph.link(LIU, MOVING)

    assert link is not None and link.wandering_only
    assert link.weight == 0.1
    assert graph.link(LIU, Q1) is None
    assert graph.neighbours(LIU, wandering=False) == {}


def test_the_neighbourhood_of_an_entity_holds_its_neighbours_and_the_links_among_them() -> None:
    graph = TagGraph.build([memory("m1", people=("liu", "xiaomei")),
                            memory("m2", people=("xiaomei",), topics=("moving",), at=200)])

    around = graph.neighbourhood(LIU)

    assert set(around.nodes()) == {LIU, XIAOMEI, Q1}
    assert around.link(XIAOMEI, Q1) is not None
    assert around.link(XIAOMEI, MOVING) is None
    assert graph.named("Xiaomei") == [XIAOMEI]


def test_dot_draws_nodes_relations_and_dashed_wandering_links() -> None:
    graph = TagGraph.build([memory("m1", people=("liu", "xiaomei")),
                            memory("i1", people=("xiaomei",), topics=('say "hi"',), source="wandering")])

    dot = to_dot(graph)

    assert dot.startswith('graph "memory" {')
    assert '"person:liu" -- "person:xiaomei" [label="person"];' in dot
    assert '"person:xiaomei" -- "topic:say \\"hi\\"" [label="wandering", style=dashed];' in dot


def test_mermaid_draws_the_same_graph_with_dotted_wandering_links() -> None:
    graph = TagGraph.build([memory("m1", people=("liu", "xiaomei")),
                            memory("i1", people=("xiaomei",), topics=("moving",), source="wandering")])

    mermaid = to_mermaid(graph).splitlines()

    assert mermaid[0] == "graph LR"
    assert '  n0["liu (person)"]' in mermaid
    assert "  n0 ---|person| n1" in mermaid
    assert "  n1 -. wandering .- n3" in mermaid
