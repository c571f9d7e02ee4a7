"""Consolidation: recent episodes of one entity become one cited, extractive L1 note proposal."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memhall.domains.dynamics.config import ConsolidationConfig
from memhall.domains.dynamics.consolidation import consolidate, note_key
from memhall.domains.dynamics.record import MemoryRecord
from memhall.domains.values import Kind, Layer, Status
from tests.domains.dynamics.memories import day, memory

CONFIG = ConsolidationConfig()  # a 7-day window, at least 3 episodes
AS_OF = day(10)


def week_of_xiaomei() -> list[MemoryRecord]:
    return [
        memory("e3", at=5, people=("xiaomei",), text="Xiaomei said she is on a diet. She skips lunch.",
               valence=-0.6, arousal=0.8, significance=0.5, trust=0.7),
        memory("e1", at=4, people=("xiaomei",), text="Xiaomei declined the afternoon tea.",
               valence=0.5, arousal=0.4, significance=1.0, confidence=58),
        memory("e5", at=9, people=("xiaomei",), text="Xiaomei said she has not felt well lately."),
        memory("e2", at=6, people=("xiaomei",), text="Xiaomei brought a salad."),
        memory("e4", at=8, people=("xiaomei",), text="Xiaomei went to the doctor."),
        memory("old", at=1, people=("xiaomei",), text="Too old for this week."),
        memory("liu", at=9, people=("liu",), text="Liu alone."),
    ]


def test_five_episodes_about_one_person_become_one_cited_note() -> None:
    [note] = consolidate(week_of_xiaomei(), AS_OF, CONFIG)

    assert note.layer is Layer.L1 and note.source == "consolidation"
    assert note.source_ids == ("e1", "e2", "e3", "e4", "e5")
    assert note.key == note_key(["e5", "e4", "e3", "e2", "e1"])
    assert note.people == ("xiaomei",)
    assert note.text == (
        "About xiaomei (5 episodes, 2026-03-06 to 2026-03-11): "
        "Xiaomei declined the afternoon tea. / Xiaomei said she is on a diet. / "
        "Xiaomei brought a salad. / Xiaomei went to the doctor. / "
        "Xiaomei said she has not felt well lately."
    )


def test_a_note_inherits_the_lowest_trust_and_confidence_and_the_highest_priority() -> None:
    [note] = consolidate(week_of_xiaomei(), AS_OF, CONFIG)

    assert note.trust == 0.7
    assert note.confidence == 58
    # e3: 0.5 · |−0.6| · 0.8 = 0.24 beats e1: 1.0 · 0.5 · 0.4 = 0.20
    assert note.priority == pytest.approx(0.24)


def test_running_again_over_the_note_proposes_nothing_new() -> None:
    [note] = consolidate(week_of_xiaomei(), AS_OF, CONFIG)
    written = memory("n1", at=10, source="consolidation", causes=note.source_ids, kind=Kind.CLAIM)

    assert consolidate([*week_of_xiaomei(), written], AS_OF, CONFIG) == []
    assert consolidate(week_of_xiaomei(), AS_OF, CONFIG, existing={note.key}) == []


def test_since_replaces_the_window() -> None:
    [note] = consolidate(week_of_xiaomei(), AS_OF, CONFIG, since=day(0))

    assert "old" in note.source_ids


def test_only_active_episodes_that_no_dynamic_proposed_are_consolidated() -> None:
    records = [
        memory("a", at=9, people=("maki",)),
        memory("b", at=9, people=("maki",), kind=Kind.DECISION),
        memory("c", at=9, people=("maki",), status=Status.SUPERSEDED),
        memory("d", at=9, people=("maki",), source="wandering"),
        memory("e", at=9, people=("maki",)),
    ]

    assert consolidate(records, AS_OF, CONFIG) == []


def test_entities_with_the_same_episodes_share_a_note_and_a_subset_joins_the_larger() -> None:
    records = [memory(f"m{i}", at=9, people=("maki",), topics=("release",) if i < 3 else ())
               for i in range(4)]
    records += [memory(f"t{i}", at=9, people=("liu",), topics=("rent",)) for i in range(3)]

    notes = sorted(consolidate(records, AS_OF, CONFIG), key=lambda n: n.source_ids)

    assert [n.source_ids for n in notes] == [("m0", "m1", "m2", "m3"), ("t0", "t1", "t2")]
    assert (notes[1].people, notes[1].topics) == (("liu",), ("rent",))
    assert notes[1].text.startswith("About liu, rent (3 episodes")


def test_a_long_first_sentence_is_cut_with_an_ellipsis() -> None:
    long = "word " * 100
    records = [memory(f"m{i}", at=9, people=("maki",), text=long) for i in range(3)]

    [note] = consolidate(records, AS_OF, ConsolidationConfig(snippet_chars=20))

    assert note.text.endswith("word word word word…")


episodes = st.lists(
    st.builds(lambda i, at, who, v: memory(f"m{i}", at=at, people=who, valence=v, arousal=0.5,
                                           significance=0.5),
              st.integers(0, 10_000), st.floats(0, 10), st.sets(st.sampled_from("abcd"), max_size=2),
              st.floats(-1, 1)),
    max_size=30, unique_by=lambda r: r.id)


@settings(max_examples=50)
@given(episodes, st.randoms(use_true_random=False))
def test_the_same_records_in_any_order_make_the_same_notes(records: list[MemoryRecord],
                                                          shuffler: random.Random) -> None:
    shuffled = list(records)
    shuffler.shuffle(shuffled)

    assert consolidate(shuffled, AS_OF, CONFIG) == consolidate(records, AS_OF, CONFIG)


@settings(max_examples=50)
@given(episodes)
def test_every_note_cites_enough_recent_sources_in_sorted_order(records: list[MemoryRecord]) -> None:
    by_id = {r.id: r for r in records}

    for note in consolidate(records, AS_OF, CONFIG):
        assert list(note.source_ids) == sorted(note.source_ids)
        assert len(note.source_ids) >= CONFIG.min_cluster
        assert all(day(3) <= by_id[i].occurred_at <= AS_OF for i in note.source_ids)


def test_a_busy_entity_is_cut_in_time_order_into_notes_of_at_most_max_sources() -> None:
    config = ConsolidationConfig(max_sources=4, min_cluster=3)
    busy = [memory(f"e{i:02d}", at=i * 0.5, people=("xiaomei",), text=f"Episode {i}.") for i in range(10)]

    notes = consolidate(busy, day(6), config)

    cited = sorted(len(n.source_ids) for n in notes)
    assert cited == [4, 6]  # 4 + 4 + 2: the short last run joins the one before it
    assert sorted(i for n in notes for i in n.source_ids) == [r.id for r in busy]
