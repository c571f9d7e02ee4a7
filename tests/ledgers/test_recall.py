"""Recall for an observer: what it holds, each channel, relevance first, ties, abstention, one record."""

from __future__ import annotations

from datetime import datetime, timezone
from uuid import UUID

import pytest

from memhall.domains.entry import Tags, draft
from memhall.domains.errors import RefusedError
from memhall.domains.opinion import Stance
from memhall.domains.relationship import Visibility
from memhall.governance import perspective
from memhall.governance.hall import Hall
from memhall.governance.memory_records import Scope
from memhall.ledgers.recall import (
    active_intent,
    entity_neighborhood,
    lexical_match,
    portrait_evidence,
    recent_event,
    relationship_evidence,
)
from memhall.ledgers.recall.embedding_match import find as embedded
from memhall.ledgers.recall.gather import gather
from memhall.ledgers.recall.observer import recall
from memhall.ledgers.recall.pool import Pool, Reader, position
from memhall.ledgers.recall.query import Query
from tests.ledgers.conftest import Write

RECORDED = "memhall.Recall.Recorded"


def pool_of(hall: Hall, observer: str, text: str, tags: Tags | None = None) -> Pool:
    stream = hall.streams.stream("company")
    with hall.store.read() as conn:
        reader = Reader(conn, stream, hall.store.dialect, observer,
                        Scope.of(hall.gate, observer, "company").whole, position(conn, stream))
        return gather(reader, Query.of(text, observer, tags))


def texts(found: object) -> list[str]:
    return [i.text for i in getattr(found, "items")]


def recorded(hall: Hall) -> int:
    return hall.streams.topics("company").count(RECORDED)


def test_a_seat_recalls_only_what_it_holds_and_a_chair_its_whole_domain(write: Write, hall: Hall) -> None:
    write("the billing export runs nightly on hako", addressees=("gemini",))
    write("the billing export is owned by codex")

    seat = recall(hall, "gemini", "company", "billing export", record=False)
    chair = recall(hall, "codex", "company", "billing export", record=False)

    assert texts(seat) == ["the billing export runs nightly on hako"]
    assert sorted(texts(chair)) == ["the billing export is owned by codex",
                                    "the billing export runs nightly on hako"]


def test_a_seat_that_never_held_a_memory_has_no_memory_of_it(write: Write, hall: Hall) -> None:
    write("disk 2 of kura shows a SMART warning")

    found = recall(hall, "gemini", "company", "kura SMART warning")

    assert found.abstained and found.answer == "no memory of that"
    assert found.items == [] and found.recorded is None


def test_one_recall_records_one_event_with_every_id_it_handed_out(write: Write, hall: Hall) -> None:
    for n in range(4):
        write(f"invoice run {n} finished", addressees=("gemini",))
    before = recorded(hall)

    found = recall(hall, "gemini", "company", "invoice run", max_items=3)

    assert recorded(hall) == before + 1
    stream = hall.streams.stream("company")
    event = stream.get(UUID(str(found.recorded)), "recall")
    assert list(event.handed) == [i.id for i in found.items] and len(found.items) == 3


def test_a_recall_as_of_an_earlier_time_or_without_recording_records_nothing(write: Write, hall: Hall) -> None:
    write("invoice run finished", addressees=("gemini",))
    before = recorded(hall)

    recall(hall, "gemini", "company", "invoice", record=False)
    recall(hall, "gemini", "company", "invoice", as_of=datetime.now(timezone.utc))

    assert recorded(hall) == before


def test_a_recall_as_of_before_a_memory_was_written_does_not_see_it(write: Write, hall: Hall) -> None:
    before = datetime(2020, 1, 1, tzinfo=timezone.utc)
    write("the invoice run finished")

    assert recall(hall, "codex", "company", "invoice", as_of=before).items == []


def test_the_lexical_channel_stems_and_leaves_out_stop_words(write: Write, hall: Hall) -> None:
    painted = write("I painted that lake sunrise last summer")
    write("did she go there with her")

    found = pool_of(hall, "codex", "did she paint the sunrise?")

    assert [i for i, _ in found.channels[lexical_match.NAME]] == [painted]


def test_the_entity_channel_finds_memories_sharing_the_entities_in_play(write: Write, hall: Hall) -> None:
    write("kura reports a failing disk", tags=Tags(topics=("kura", "disks")))
    spare = write("order the replacement before friday", tags=Tags(topics=("disks",)))
    for n in range(20):  # an entity on more than a tenth of the domain is no signal
        write(f"lunch menu number {n}", tags=Tags(topics=("food",)))

    found = pool_of(hall, "codex", "kura failing")

    assert spare in [i for i, _ in found.channels[entity_neighborhood.NAME]]
    assert "disks" in found.entities


def test_the_neighbours_in_time_of_a_strong_candidate_come_with_it(write: Write, hall: Hall) -> None:
    write("when does the plumber come?", session_id="s1")
    answer = write("thursday at nine", session_id="s1")
    write("unrelated chatter about lunch", session_id="s2")

    found = recall(hall, "codex", "company", "plumber", record=False)

    assert answer in [i.id for i in found.items]
    assert answer in [i for i, _ in pool_of(hall, "codex", "plumber").channels[recent_event.NAME]]


def test_open_loops_matching_the_query_are_active_intents(write: Write, hall: Hall) -> None:
    loop = write("buy a new UPS battery", kind="open-loop")

    found = pool_of(hall, "codex", "UPS battery")

    assert [i for i, _ in found.channels[active_intent.NAME]] == [loop]


def test_an_embedder_reorders_what_the_other_channels_gathered(write: Write, hall: Hall) -> None:
    write("the heater broke", addressees=("gemini",))

    class Letters:
        """A tiny deterministic embedder: letter counts."""

        def embed(self, texts: list[str]) -> list[list[float]]:
            return [[float(t.lower().count(c)) for c in "abcdefghijklmnopqrstuvwxyz"] for t in texts]

    candidates = list(pool_of(hall, "gemini", "heater").candidates.values())

    assert [c.text for c, _ in embedded(Letters(), "heater broken", candidates)] == ["the heater broke"]


def test_relevance_leads_recency_never_lifts_an_irrelevant_memory(write: Write, hall: Hall) -> None:
    relevant = write("the router cutover needs a VLAN tag of 10", addressees=("gemini",))
    for n in range(12):
        write(f"newer chatter {n}", addressees=("gemini",))

    found = recall(hall, "gemini", "company", "router VLAN", record=False, max_items=5)

    assert [i.id for i in found.items] == [relevant]


def test_equal_relevance_is_ordered_by_when_it_happened_then_by_position_never_by_id(
        write: Write, hall: Hall) -> None:
    early = datetime(2026, 1, 1, tzinfo=timezone.utc)
    late = datetime(2026, 1, 2, tzinfo=timezone.utc)
    happened_later = write("alpha beta", occurred_at=late)
    written_first = write("alpha gamma", occurred_at=early)
    written_second = write("alpha delta", occurred_at=early)

    found = recall(hall, "codex", "company", "alpha", record=False, with_dynamics=False)

    assert [i.id for i in found.items] == [happened_later, written_second, written_first]


def test_a_query_attributing_words_to_someone_who_never_said_them_has_no_memory_of_it(
        write: Write, hall: Hall) -> None:
    write("the UPS test passed", actor="maki")

    said = recall(hall, "codex", "company", "did maki say the UPS test passed?", record=False)
    not_said = recall(hall, "codex", "company", "did gemini say the UPS test passed?", record=False)

    assert texts(said) == ["the UPS test passed"] and said.attributed_to == "maki"
    assert not_said.abstained and not_said.answer == "no memory of gemini saying that"
    assert not_said.items == []


def test_explain_shows_every_channel_rank_and_score_the_dynamics_and_why(write: Write, hall: Hall) -> None:
    write("the billing export runs nightly", addressees=("gemini",))

    found = recall(hall, "gemini", "company", "billing export", explain=True, record=False)

    item = found.explain[0] if found.explain else pytest.fail("no explain")
    assert item.channels[lexical_match.NAME]["rank"] == 1.0
    assert {"strength", "reviews", "tier"} <= set(item.dynamics) and item.tier == "working"
    assert item.handed and item.reason == "relevant, held, within budget"


def test_an_opinion_is_its_observers_own_and_each_statement_a_new_version(write: Write, hall: Hall) -> None:
    fact = write("gemini mixed up two drive models", addressees=("gemini",))

    perspective.opinion(hall, "codex", "company", "gemini", category="reliability",
                        statement="checks sources", stance=Stance.POSITIVE)
    again = perspective.opinion(hall, "codex", "company", "gemini", category="reliability",
                                statement="sometimes mixes up models", stance=Stance.MIXED, evidence=[fact])

    assert again.version == 2 and again.evidence == [fact]
    assert [o.statement for o in perspective.about(hall, "codex", "company", "gemini").portrait] == \
        ["sometimes mixes up models"]
    assert perspective.about(hall, "gemini", "company", "gemini").portrait == []


def test_an_opinion_cannot_cite_a_memory_its_observer_does_not_hold(write: Write, hall: Hall) -> None:
    secret = write("codex keeps the spare key")

    with pytest.raises(RefusedError, match="evidence-must-be-held|does not hold"):
        perspective.opinion(hall, "gemini", "company", "codex", category="care",
                            statement="careful", stance=Stance.POSITIVE, evidence=[secret])


def test_a_private_relationship_is_seen_by_its_perspective_only_and_a_public_one_by_all(
        write: Write, hall: Hall) -> None:
    perspective.relate(hall, "gemini", "company", "ren", "hana", kind="sibling-of",
                       visibility=Visibility.PRIVATE)
    perspective.relate(hall, "codex", "company", "ren", "maki", kind="child-of", visibility=Visibility.PUBLIC)

    seen_by_gemini = {r.kind for r in perspective.about(hall, "gemini", "company", "ren").relationships}
    seen_by_codex = {r.kind for r in perspective.about(hall, "codex", "company", "ren").relationships}

    assert seen_by_gemini == {"sibling-of", "child-of"} and seen_by_codex == {"child-of"}


def test_a_relationship_is_governed_like_a_write_of_its_visibilitys_layer(hall: Hall) -> None:
    with pytest.raises(RefusedError):
        perspective.relate(hall, "gemini", "company", "ren", "maki", kind="child-of",
                           visibility=Visibility.OBJECTIVE)


def test_relationship_and_portrait_evidence_bring_their_memories_into_a_recall(
        write: Write, hall: Hall) -> None:
    seen = write("ren fixed the wifi at grandma's flat", tags=Tags(people=("ren",)))
    judged = write("ren forgot the router password twice", tags=Tags(people=("ren",)))
    perspective.relate(hall, "codex", "company", "ren", "sachiko", kind="helps", visibility=Visibility.PUBLIC,
                       evidence=[seen])
    perspective.opinion(hall, "codex", "company", "ren", category="skill", statement="handy",
                        stance=Stance.POSITIVE, evidence=[judged])

    found = pool_of(hall, "codex", "ren")

    assert [i for i, _ in found.channels[relationship_evidence.NAME]] == [seen]
    assert [i for i, _ in found.channels[portrait_evidence.NAME]] == [judged]


def test_the_recall_of_a_draft_write_round_trips_through_the_hall(hall: Hall) -> None:
    hall.write("codex", "company", draft(text="the NAS lives in the garage", layer="L2"))

    assert texts(recall(hall, "codex", "company", "where is the NAS?", record=False)) == \
        ["the NAS lives in the garage"]


def test_a_corrected_claim_is_handed_with_what_it_is_now_understood_to_say(write: Write, hall: Hall) -> None:
    from memhall.domains.belief import EvidenceKind
    from memhall.governance import evidence

    rumour = UUID(write("the NAS is backed up nightly"))
    plain = write("the NAS sits in the server room")
    evidence.record(hall, "maki", "company", rumour, EvidenceKind.CONTRADICTS, text="no backup job exists")
    doubted = {i.id: i for i in recall(hall, "codex", "company", "NAS backed up", record=False).items}
    evidence.record(hall, "maki", "company", rumour, EvidenceKind.CONTRADICTS, text="backups run weekly")

    items = {i.id: i for i in recall(hall, "codex", "company", "NAS backed up", record=False).items}

    corrected = items[str(rumour)]
    assert (corrected.state, corrected.confidence) == ("corrected", 72)
    assert (corrected.text, corrected.understanding) == ("the NAS is backed up nightly", "backups run weekly")
    assert items[plain].understanding is None
    assert doubted[str(rumour)].state == "doubtful" and doubted[str(rumour)].understanding is None
