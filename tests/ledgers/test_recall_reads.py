"""Recall's cheaper reads give what the longer path gave: one fusion reweighed, the mood's light
records; and what a recall leaves behind (the collector as it was, a read connection's page cache)."""

from __future__ import annotations

import dataclasses
import gc

import pytest

from memhall.domains.entry import Tags
from memhall.governance import fulltext
from memhall.governance import memory_records as records
from memhall.governance.hall import Hall
from memhall.governance.memory_records import Scope
from memhall.governance.store import READ_CACHE_KIB
from memhall.ledgers.materialize import materialize
from memhall.ledgers.recall import fusion
from memhall.ledgers.recall.gather import gather
from memhall.ledgers.recall.observer import recall
from memhall.ledgers.recall.pool import Candidate, Pool, Reader, newest
from memhall.ledgers.recall.query import Query
from tests.ledgers.conftest import Write


def pool_of(hall: Hall, observer: str, text: str) -> Pool:
    stream = hall.streams.stream("company")
    with hall.store.read() as conn:
        reader = Reader(conn, stream, hall.store.dialect, observer,
                        Scope.of(hall.gate, observer, "company").whole, newest(conn, stream))
        return gather(reader, Query.of(text, observer))


def test_reweighing_one_fusion_orders_as_fusing_again_with_the_dynamics(write: Write, hall: Hall) -> None:
    for n in range(6):
        write(f"billing run {n} on friday", tags=Tags(topics=("billing",), people=("ren",) if n % 2 else ()))
    write("the office plants need water", tags=Tags(topics=("plants",)))
    pool = pool_of(hall, "codex", "when does billing run")
    fused = fusion.fuse(pool)
    relevant = [s.id for s in fused if s.relevant]
    dynamics = {ident: 0.8 + 0.1 * index for index, ident in enumerate(relevant)}
    dynamics[next(s.id for s in fused if not s.relevant)] = 5.0  # never lifts an irrelevant one

    again = fusion.reweighed(fused, dynamics)

    expected = fusion.fuse(pool, dynamics)
    assert [(s.id, s.final, s.factors) for s in again] == [(s.id, s.final, s.factors) for s in expected]
    assert [s.id for s in again] != [s.id for s in fused]


def test_the_moods_recent_memories_carry_the_time_emotion_and_source_of_their_records(
        write: Write, hall: Hall) -> None:
    ids = [write(text) for text in ("the outage was a disaster and everyone was furious",
                                    "we celebrated: the launch went wonderfully",
                                    "billing runs on fridays")]
    materialize(hall, "claude", "company", seat="gemini", task="the outage, the launch and billing")
    stream = hall.streams.stream("company")

    with hall.store.read() as conn:
        seat = records.recent(conn, stream, Scope.of(hall.gate, "gemini", "company"), 20)
        full = records.by_ids(conn, stream, None, ids, with_reviews=False)

    assert sorted(r.id for r in seat) == sorted(ids)
    for light in seat:
        assert (light.occurred_at, light.emotion, light.source) == (
            full[light.id].occurred_at, full[light.id].emotion, full[light.id].source)
    assert any(r.emotion.valence != 0 for r in seat)


def test_the_mood_reads_only_as_many_recent_memories_as_it_weighs(write: Write, hall: Hall) -> None:
    ids = [write(f"billing note number {n}") for n in range(4)]
    materialize(hall, "claude", "company", seat="gemini", task="billing notes")
    stream = hall.streams.stream("company")

    with hall.store.read() as conn:
        two = records.recent(conn, stream, Scope.of(hall.gate, "gemini", "company"), 2)
        every = records.recent(conn, stream, Scope.of(hall.gate, "gemini", "company"), 20)

    assert len(two) == 2 and [r.id for r in two] == [r.id for r in every][:2]
    assert sorted(r.id for r in every) == sorted(ids)


def test_a_recall_leaves_the_garbage_collector_as_it_found_it(write: Write, hall: Hall) -> None:
    write("billing runs on fridays")

    recall(hall, "codex", "company", "billing", record=False)
    gc.disable()
    try:
        recall(hall, "codex", "company", "billing", record=False)
        still_off = not gc.isenabled()
    finally:
        gc.enable()

    assert gc.isenabled() and still_off


def test_a_sqlite_read_connection_keeps_more_pages_than_sqlites_default(hall: Hall) -> None:
    if hall.store.dialect != "sqlite":
        pytest.skip("a SQLite page cache")

    with hall.store.read() as conn:
        size = conn.exec_driver_sql("PRAGMA cache_size").scalar()

    assert size == -READ_CACHE_KIB


def test_a_candidate_read_from_its_row_is_the_candidate_built_field_by_field(write: Write, hall: Hall) -> None:
    write("ren fixed the wifi", tags=Tags(people=("ren",), topics=("wifi",)))
    pool = pool_of(hall, "codex", "wifi")
    read = next(iter(pool.candidates.values()))

    built = Candidate(**{f.name: getattr(read, f.name) for f in dataclasses.fields(Candidate)})

    assert read == built and hash(read) == hash(built)
    assert read.tags == frozenset({"ren", "wifi"}) and read.people == ("ren",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        read.text = "changed"  # type: ignore[misc]


def test_a_texts_stems_are_the_stems_of_its_words_one_by_one() -> None:
    text = "Maki PAINTED the sunrises; Müller's café runs 2026 jobs, Straße naïvely"

    found = fulltext.stems(text)

    assert found == {fulltext.stem(w) for w in fulltext.words_of(text)}
    assert {"paint", "sunris", "run"} <= found


def test_a_chairs_mood_reads_the_newest_lived_writes_past_a_page_of_proposals(write: Write, hall: Hall) -> None:
    lived = [write(f"billing note number {n}") for n in range(4)]
    for n in range(5):  # a dynamic's proposals, newest of all: no experience, a page of them skipped
        write(f"a consolidated billing pattern {n}", idempotency_key=f"consolidation:pattern-{n}")
    stream = hall.streams.stream("company")
    chair = Scope.of(hall.gate, "maki", "company")

    with hall.store.read() as conn:
        three = records.recent(conn, stream, chair, 3)
        every = records.recent(conn, stream, chair, 20)

    assert chair.whole
    assert [r.id for r in three] == lived[::-1][:3]
    assert [r.id for r in every] == lived[::-1]
