"""Opinions keep what speaks against them apart from what supports them, and recall reaches both."""

from __future__ import annotations

import pytest

from memhall.domains.entry import Tags
from memhall.domains.errors import InvalidValueError, RefusedError
from memhall.domains.opinion import Stance
from memhall.governance import perspective
from memhall.governance.hall import Hall
from memhall.governance.memory_records import Scope
from memhall.ledgers.recall import portrait_evidence
from memhall.ledgers.recall.gather import gather
from memhall.ledgers.recall.pool import Reader, position
from memhall.ledgers.recall.query import Query
from tests.ledgers.conftest import Write


def test_an_opinion_keeps_the_memories_against_it_apart_from_those_for_it(write: Write, hall: Hall) -> None:
    kept = write("ren kept the backup schedule all winter", addressees=("gemini",))
    missed = write("ren missed the march backup", addressees=("gemini",))

    stated = perspective.opinion(hall, "gemini", "company", "ren", category="reliability",
                                 statement="dependable with backups", stance=Stance.POSITIVE,
                                 evidence=[kept], contradicting=[missed])
    about = perspective.about(hall, "gemini", "company", "ren")

    assert (stated.evidence, stated.contradicting) == ([kept], [missed])
    assert [(o.evidence, o.contradicting) for o in about.portrait] == [([kept], [missed])]
    assert set(about.evidence) == {kept, missed}


def test_a_new_version_of_an_opinion_states_its_contradicting_memories_anew(write: Write, hall: Hall) -> None:
    missed = write("ren missed the march backup", addressees=("gemini",))
    perspective.opinion(hall, "gemini", "company", "ren", category="reliability", statement="dependable",
                        stance=Stance.POSITIVE, contradicting=[missed])

    again = perspective.opinion(hall, "gemini", "company", "ren", category="reliability",
                                statement="not dependable", stance=Stance.NEGATIVE, evidence=[missed])

    assert (again.version, again.evidence, again.contradicting) == (2, [missed], [])
    assert [o.contradicting for o in perspective.about(hall, "gemini", "company", "ren").portrait] == [[]]


def test_one_memory_cannot_both_support_and_contradict_an_opinion(write: Write, hall: Hall) -> None:
    fact = write("ren missed the march backup", addressees=("gemini",))

    with pytest.raises(InvalidValueError, match="both support and contradict"):
        perspective.opinion(hall, "gemini", "company", "ren", category="reliability", statement="dependable",
                            stance=Stance.POSITIVE, evidence=[fact], contradicting=[fact])


def test_an_opinion_cannot_be_contradicted_by_a_memory_its_observer_does_not_hold(
        write: Write, hall: Hall) -> None:
    secret = write("ren missed the march backup")

    with pytest.raises(RefusedError, match="evidence-must-be-held|does not hold"):
        perspective.opinion(hall, "gemini", "company", "ren", category="reliability", statement="dependable",
                            stance=Stance.POSITIVE, contradicting=[secret])


def test_the_memories_against_an_opinion_come_into_a_recall_as_portrait_evidence(
        write: Write, hall: Hall) -> None:
    missed = write("the march job never ran", addressees=("gemini",), tags=Tags(people=("ren",)))
    perspective.opinion(hall, "gemini", "company", "ren", category="reliability", statement="dependable",
                        stance=Stance.POSITIVE, contradicting=[missed])
    stream = hall.streams.stream("company")

    with hall.store.read() as conn:
        reader = Reader(conn, stream, hall.store.dialect, "gemini",
                        Scope.of(hall.gate, "gemini", "company").whole, position(conn, stream))
        found = gather(reader, Query.of("ren", "gemini"))

    assert [i for i, _ in found.channels[portrait_evidence.NAME]] == [missed]
