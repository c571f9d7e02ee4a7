"""Weighing a recall's pool: bounded factors from forgetting, source, mood, activation and salience."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memhall.domains.dynamics.activation import Tier
from memhall.domains.dynamics.config import DynamicsConfig, TierConfig
from memhall.domains.dynamics.graph import Node, NodeKind
from memhall.domains.dynamics.weighing import Snapshot, active_nodes, meta_of, nudges, tiers, weigh
from tests.domains.dynamics.memories import day, memory

CONFIG = DynamicsConfig()


def snapshot(*records: object, **fields: object) -> Snapshot:
    return Snapshot(observer="codex", records={r.id: r for r in records}, **fields)  # type: ignore[attr-defined, arg-type]


def test_a_memory_reviewed_often_keeps_its_weight_where_one_never_used_fades() -> None:
    used = memory("used", at=0, reviews=tuple(day(n) for n in range(1, 20)))
    unused = memory("unused", at=0)

    weights = weigh(["used", "unused"], day(30), snapshot(used, unused))

    assert weights["used"].reviews == 19 and not weights["used"].faded
    assert weights["used"].strength == pytest.approx(math.exp(-11 / (7 * 20)))
    assert weights["unused"].faded and weights["unused"].retention == CONFIG.forgetting.faded_weight
    assert weights["unused"].factor < weights["used"].factor


def test_a_wandering_insight_weighs_its_insight_weight() -> None:
    insight = memory("i", source="wandering", people=("a", "b"))

    [weights] = weigh(["i"], day(0), snapshot(insight)).values()

    assert weights.source == 0.1


def test_the_task_s_node_lifts_its_neighbours_and_not_itself() -> None:
    about_maki = memory("m1", people=("maki",), topics=("billing",))
    about_billing = memory("m2", topics=("billing", "invoices"))
    unrelated = memory("m3", topics=("cats",))

    weights = weigh(["m1", "m2", "m3"], day(0), snapshot(about_maki, about_billing, unrelated),
                    active=["maki"])

    # maki's only entity neighbour is billing, which m2 carries; m1 carries maki itself
    assert weights["m2"].activation > 1.0
    assert weights["m3"].activation == 1.0
    assert weights["m2"].activation <= 1 + CONFIG.activation.spread_factor


def test_a_happy_mood_lifts_happy_memories_slightly_and_lowers_sad_ones() -> None:
    recent = [memory(f"r{i}", at=i, valence=0.8, arousal=0.2) for i in range(5)]
    happy, sad = memory("happy", valence=0.9), memory("sad", valence=-0.9)

    weights = weigh(["happy", "sad"], day(5), snapshot(happy, sad, recent=recent))

    assert 1 < weights["happy"].mood <= 1 + CONFIG.mood.max_reweight
    assert 1 - CONFIG.mood.max_reweight <= weights["sad"].mood < 1


def test_candidates_the_snapshot_does_not_hold_are_left_out() -> None:
    assert weigh(["ghost"], day(0), snapshot(memory("m"))) == {}


def test_a_recall_nudges_salience_up_and_colour_toward_the_mood_by_at_most_the_update_strength() -> None:
    recent = [memory(f"r{i}", at=i, valence=-1.0, arousal=1.0) for i in range(3)]
    handed = memory("h", valence=0.5, arousal=0.0)

    moved = nudges(["h"], day(3), snapshot(handed, recent=recent))

    assert moved["h"]["salience"] == pytest.approx(0.025)  # 0.05 · (1 − 0.5) / 1
    assert moved["h"]["valence"] == pytest.approx(-0.0375)  # 0.05 · (−1 − 0.5) / 2
    assert moved["h"]["arousal"] == pytest.approx(0.05)  # 0.05 · (1 − 0) / 1
    assert all(abs(v) <= 0.05 for v in moved["h"].values())


def test_earlier_nudges_are_added_to_the_encoded_colour_and_clamped() -> None:
    record = memory("m", valence=0.98, arousal=0.5)

    meta = meta_of(record, {"valence": 0.05, "salience": 0.05, "stance": -0.02})

    assert (meta.valence, meta.salience, meta.stance, meta.arousal) == (1.0, 0.55, -0.02, 0.5)


def test_a_higher_salience_weighs_a_little_more() -> None:
    record = memory("m")
    lifted = snapshot(record, nudges={"m": {"salience": 0.5}})

    assert weigh(["m"], day(0), lifted)["m"].salience == pytest.approx(1 + CONFIG.reconsolidation.salience_weight)


def test_tiers_name_what_recall_handed_its_pool_and_the_rest() -> None:
    ranked = [f"m{i}" for i in range(120)]

    named = tiers(ranked, 10, TierConfig())

    assert named["m0"] is named["m9"] is Tier.WORKING
    assert named["m10"] is named["m99"] is Tier.PRECONSCIOUS
    assert named["m100"] is Tier.SUBCONSCIOUS


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-1, 1), st.floats(0, 1), st.integers(0, 40), st.integers(0, 60)),
                min_size=1, max_size=8),
       st.lists(st.floats(-1, 1), max_size=5))
def test_every_factor_stays_in_its_bounds(memories: list[tuple[float, float, int, int]],
                                          moods: list[float]) -> None:
    records = [memory(f"m{i}", at=at, valence=v, arousal=a, people=(f"p{i % 3}",), topics=("t",),
                      reviews=tuple(day(at + r) for r in range(reviews % 5)))
               for i, (v, a, reviews, at) in enumerate(memories)]
    recent = [memory(f"r{i}", valence=v) for i, v in enumerate(moods)]

    weights = weigh([r.id for r in records], day(100), snapshot(*records, recent=recent), active=["p0"])

    for w in weights.values():
        assert w.retention in (1.0, CONFIG.forgetting.faded_weight)
        assert 1 - CONFIG.mood.max_reweight - 1e-9 <= w.mood <= 1 + CONFIG.mood.max_reweight + 1e-9
        assert 1.0 <= w.activation <= 1 + CONFIG.activation.spread_factor
        assert CONFIG.forgetting.faded_weight * 0.9 * 0.9 - 1e-9 <= w.factor <= 1.1 * 1.1 * 1.1 + 1e-9


def test_the_tasks_nodes_are_every_entity_node_it_names_whatever_its_kind() -> None:
    records = [memory("m1", people=("ren",), topics=("wifi",)), memory("m2", places=("ren",), topics=("kyoto",))]

    lit = active_nodes(records, [" Ren ", "kyoto", "nobody"])

    assert lit == {Node(NodeKind.PERSON, "ren"), Node(NodeKind.PLACE, "ren"), Node(NodeKind.TOPIC, "kyoto")}
