"""One-hop spreading activation and the seed's three tiers."""

from __future__ import annotations

import pytest

from memhall.domains.dynamics.activation import Tier, boosts, spread, tier, tiers
from memhall.domains.dynamics.config import ActivationConfig, TierConfig
from memhall.domains.dynamics.graph import Node, NodeKind, TagGraph
from tests.domains.dynamics.memories import memory

XIAOMEI = Node(NodeKind.PERSON, "xiaomei")
LIU = Node(NodeKind.PERSON, "liu")
MOVING = Node(NodeKind.TOPIC, "moving")
Q1 = Node(NodeKind.TIME, "2026Q1")


def test_an_active_node_shares_its_activation_among_its_links_by_weight() -> None:
    graph = TagGraph.build([memory("m1", people=("xiaomei", "liu"), topics=("moving",))])

    activation = spread(graph, [XIAOMEI], ActivationConfig(spread_factor=0.3))

    # xiaomei has three links of weight 1 (liu, moving, 2026Q1): 0.3 · 1/3 each
    assert activation == pytest.approx({LIU: 0.1, MOVING: 0.1, Q1: 0.1})


def test_active_nodes_are_not_boosted_and_a_shared_neighbour_caps_at_the_spread_factor() -> None:
    graph = TagGraph.build([memory("m1", people=("xiaomei", "liu"))])

    activation = spread(graph, [XIAOMEI, LIU], ActivationConfig(spread_factor=0.3))

    # each gives half its weight to 2026Q1: 0.3 · (0.5 + 0.5)
    assert activation == pytest.approx({Q1: 0.3})


def test_memories_carrying_an_activated_entity_rise_without_being_recalled() -> None:
    records = [memory("m1", people=("liu",), topics=("moving",)), memory("m2", people=("maki",))]

    raised = boosts(records, {LIU: 0.1, MOVING: 0.25, Q1: 0.3})

    assert raised == pytest.approx({"m1": 1.25})


@pytest.mark.parametrize(("rank", "expected"), [
    (1, Tier.WORKING), (10, Tier.WORKING), (11, Tier.PRECONSCIOUS), (100, Tier.PRECONSCIOUS),
    (101, Tier.SUBCONSCIOUS),
])
def test_a_rank_falls_in_the_seeds_tiers(rank: int, expected: Tier) -> None:
    assert tier(rank, TierConfig()) is expected


def test_a_ranking_is_named_by_tier() -> None:
    named = tiers(["a", "b", "c"], TierConfig(working=1, preconscious_min=2, preconscious_max=2))

    assert named == {"a": Tier.WORKING, "b": Tier.PRECONSCIOUS, "c": Tier.SUBCONSCIOUS}
