"""Wandering: a seeded random walk that proposes synthetic insights, the same for the same seed."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from memhall.domains.dynamics.config import WanderingConfig
from memhall.domains.dynamics.graph import Node, NodeKind, TagGraph
from memhall.domains.dynamics.record import MemoryRecord
from memhall.domains.dynamics.wandering import InsightProposal, novelty, wander
from memhall.domains.values import Layer
from tests.domains.dynamics.memories import memory

A, B, C = (Node(NodeKind.PERSON, n) for n in "abc")
X, Y = Node(NodeKind.TOPIC, "x"), Node(NodeKind.TOPIC, "y")


def two_islands() -> list[MemoryRecord]:
    """{a, b, c} in 2026Q1 and {x, y} in 2026Q3: nothing joins them."""
    return [memory("m1", people=("a", "b")), memory("m2", people=("b", "c")),
            memory("m3", topics=("x", "y"), at=200)]


def as_insight_records(proposals: tuple[InsightProposal, ...]) -> list[MemoryRecord]:
    """The insights as the hall would record them: L1 candidates from the wandering source."""
    return [memory(f"insight{index}", source="wandering",
                   **p.model_dump(include={"people", "places", "topics"}))
            for index, p in enumerate(proposals)]


def test_novelty_is_one_minus_the_overlap_of_neighbourhoods() -> None:
    graph = TagGraph.build(two_islands())

    # a: {b, 2026Q1}; c: {b, 2026Q1} → identical; a and x share nothing
    assert novelty(graph, A, C) == 0.0
    assert novelty(graph, A, X) == 1.0


def test_a_walk_that_never_explores_finds_nothing() -> None:
    walk = wander(TagGraph.build(two_islands()), seed=7, config=WanderingConfig(exploration_rate=0))

    assert walk.insights == ()
    assert len(walk.path) == 21  # the start and 20 steps


def test_jumps_between_islands_propose_weak_links_from_the_wandering_source() -> None:
    walk = wander(TagGraph.build(two_islands()), seed=7, config=WanderingConfig(exploration_rate=1))

    assert walk.insights
    for insight in walk.insights:
        assert insight.layer is Layer.L1
        assert insight.source == "wandering"
        assert insight.weight == 0.1
        assert insight.novelty > 0.5
        assert insight.walk[-1] in insight.nodes and insight.walk[-2] in insight.nodes
        assert {insight.nodes[0][0], insight.nodes[1][0]} <= {"p", "t"}  # person or topic nodes
    nodes = [insight.nodes for insight in walk.insights]
    assert len(nodes) == len(set(nodes))


def test_the_same_seed_walks_the_same_path_and_proposes_the_same_insights() -> None:
    graph = TagGraph.build(two_islands())

    assert wander(graph, seed=7, config=WanderingConfig(exploration_rate=0.5)) == wander(
        graph, seed=7, config=WanderingConfig(exploration_rate=0.5))


def test_a_second_run_over_the_first_runs_insights_proposes_nothing_new() -> None:
    config = WanderingConfig(exploration_rate=1)
    first = wander(TagGraph.build(two_islands()), seed=7, config=config)

    recorded = TagGraph.build([*two_islands(), *as_insight_records(first.insights)])
    again = wander(recorded, seed=7, config=config)
    told = wander(TagGraph.build(two_islands()), seed=7, config=config,
                  known=[(Node.parse(a), Node.parse(b)) for a, b in (i.nodes for i in first.insights)])

    assert again.path == first.path and again.insights == ()
    assert told.insights == ()


def test_emotional_jumps_land_on_intense_nodes_more_often() -> None:
    records = [memory(f"m{i}", topics=(f"t{i}",)) for i in range(9)]
    records.append(memory("grief", topics=("loss",), valence=-1.0, arousal=1.0))
    config = WanderingConfig(exploration_rate=1, emotional_jump_weight=30, steps=400)

    walk = wander(TagGraph.build(records), seed=1, config=config)

    landed = Counter(n.name for n in walk.path[1:])
    assert landed.most_common(1)[0][0] == "loss"
    assert landed["loss"] > 100  # odds 31 against 1 each for nine others: ~ 3/4 of the jumps away from it


def test_a_graph_without_entities_is_no_walk() -> None:
    walk = wander(TagGraph.build([]), seed=1, config=WanderingConfig())

    assert walk.path == () and walk.insights == ()


names = st.sampled_from("abcdefgh")
memories = st.lists(
    st.builds(lambda i, who, what, at, v: memory(f"m{i}", people=who, topics=what, at=at, valence=v,
                                                 arousal=abs(v)),
              st.integers(0, 999), st.sets(names, max_size=2), st.sets(names, max_size=2),
              st.sampled_from([0, 100, 200]), st.floats(-1, 1)),
    min_size=1, max_size=15, unique_by=lambda r: r.id)


@settings(max_examples=60)
@given(memories, st.integers(0, 2**32), st.floats(0, 1))
def test_wandering_is_deterministic_and_idempotent_over_any_graph(
    records: list[MemoryRecord], seed: int, exploration: float
) -> None:
    config = WanderingConfig(exploration_rate=exploration)
    graph = TagGraph.build(records)

    first = wander(graph, seed=seed, config=config)
    second = wander(graph, seed=seed, config=config)
    after = wander(TagGraph.build([*records, *as_insight_records(first.insights)]), seed=seed, config=config)

    assert first == second
    assert after.path == first.path
    assert after.insights == ()
    for insight in first.insights:
        assert graph.link(Node.parse(insight.nodes[0]), Node.parse(insight.nodes[1])) is None


def test_an_insight_cites_at_most_max_sources_memories_from_both_of_its_nodes() -> None:
    hub = [memory(f"h{i:03d}", people=("a", f"friend{i}")) for i in range(50)]
    island = [memory(f"x{i}", topics=("x", f"y{i}"), at=200) for i in range(5)]
    config = WanderingConfig(exploration_rate=1, max_sources=6)

    walk = wander(TagGraph.build([*hub, *island]), seed=3, config=config, steps=200)

    joined = [i for i in walk.insights if {"person:a", "topic:x"} == set(i.nodes)]
    assert walk.insights and all(len(i.source_ids) <= 6 for i in walk.insights)
    for insight in joined:
        assert any(s.startswith("h") for s in insight.source_ids)
        assert any(s.startswith("x") for s in insight.source_ids)


def test_the_hall_key_of_an_insight_is_bounded_and_marks_its_source() -> None:
    from memhall.domains.dynamics.wandering import insight_key

    key = insight_key("wandering:person:" + "a" * 300 + "|topic:b")

    assert key.startswith("wandering:") and len(key) == len("wandering:") + 32
