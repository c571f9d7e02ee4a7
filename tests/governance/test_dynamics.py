"""The dynamics in the hall: encodings recorded at write time, reviews from the calls that hand
memory out, consolidation and wandering written as L1 candidates, the incubation pool."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from uuid import UUID

import pytest
from freezegun import freeze_time
from sqlalchemy import select

from memhall.domains.dynamics.config import DynamicsConfig
from memhall.domains.dynamics.encoding import Emotion, Encoding
from memhall.domains.entry import draft
from memhall.domains.errors import RefusedError
from memhall.domains.values import Layer
from memhall.governance import consolidation, dynamics, incubation, wandering
from memhall.governance.hall import Hall
from memhall.governance.rebuild import rebuild
from memhall.governance.recompute import verify_read_models
from memhall.governance.sessions import handoff
from memhall.governance.store import Store
from memhall.ledgers.materialize import materialize
from memhall.policies.engine import PolicySet

CONFIG = DynamicsConfig()
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def day(n: float) -> datetime:
    return T0 + timedelta(days=n)


def write(hall: Hall, text: str, *, actor: str = "codex", layer: str = "L2",
          people: Sequence[str] = (), topics: Sequence[str] = (), **fields: object) -> str:
    tags = {"people": tuple(people), "topics": tuple(topics)}
    return hall.write(actor, "company", draft(layer=layer, text=text, tags=tags, **fields)).entry_id


def encodings(hall: Hall) -> dict[str, tuple[str, str, dict[str, object]]]:
    table = hall.streams.stream("company").tables.encodings
    with hall.store.read() as conn:
        return {r.entry_id: (r.encoder, r.encoder_version, r.emotion) for r in conn.execute(select(table))}


def key_of(hall: Hall, entry_id: object) -> str:
    entries = hall.streams.stream("company").tables.entries
    with hall.store.read() as conn:
        return str(conn.execute(select(entries.c.idempotency_key).where(entries.c.id == str(entry_id))).scalar())


class FixedEncoder:
    """A second encoder, as an LLM-backed one would be: another name, another version."""

    name = "fixed"
    version = "7"

    def encode(self, text: str, *, speaker: str, addressee: str | None, participants: Sequence[str],
               occurred_at: datetime) -> Encoding:
        return Encoding(encoder=self.name, encoder_version=self.version, text=text, content=text,
                        speaker=speaker, addressee=addressee, participants=tuple(participants),
                        entities=(), occurred_at=occurred_at,
                        emotion=Emotion(valence=-0.5, arousal=0.9, tags=("fear",), significance=0.8))


def test_each_write_records_the_encoder_its_version_and_the_emotion(hall: Hall) -> None:
    entry = write(hall, "We won the contract, I am thrilled!", addressees=("gemini",))

    [(encoder, version, emotion)] = encodings(hall).values()

    assert (encoder, version) == ("lexicon", "1")
    assert emotion["valence"] > 0.5 and "joy" in emotion["tags"]  # type: ignore[operator]
    stored = hall.streams.stream("company").get(UUID(entry)).encoding
    assert stored.content.endswith("codex told gemini: We won the contract, I am thrilled!")


def test_a_rebuild_reads_the_recorded_encoding_and_never_encodes_again(store: Store,
                                                                        policies: PolicySet) -> None:
    writer = Hall(store, policies, encoder=FixedEncoder())
    writer.create_domain("maki", "company")
    entry = write(writer, "We won the contract, I am thrilled!")

    rebuild(Hall(store, policies))  # the default (lexicon) encoder is never asked

    assert encodings(writer)[entry] == ("fixed", "7", {"valence": -0.5, "arousal": 0.9, "tags": ["fear"],
                                                       "significance": 0.8})
    assert all(r.ok for r in verify_read_models(writer.streams))


def test_a_duplicate_write_is_not_encoded_twice(hall: Hall) -> None:
    write(hall, "billing runs on fridays")
    write(hall, "Billing runs on Fridays")

    assert len(encodings(hall)) == 1


def test_a_memory_handed_out_daily_outlives_one_never_used(hall: Hall) -> None:
    with freeze_time(day(0)):
        used = write(hall, "billing runs on fridays", topics=("billing",), addressees=("gemini",))
        unused = write(hall, "the office cat is grey", topics=("cats",), addressees=("gemini",))
    for n in range(1, 15):
        with freeze_time(day(n)):
            materialize(hall, "claude", "company", seat="gemini", task="when does billing run")

    held = dynamics.strengths(hall, "gemini", "company", [used, unused], CONFIG, as_of=day(30))

    assert [v.reviews for v in held] == [14, 0]
    assert not held[0].faded and held[1].faded
    assert held[1].strength < CONFIG.forgetting.threshold < held[0].strength
    assert all(v.held for v in held)  # faded, never deleted


def test_a_seat_cannot_read_another_principal_s_memory_and_the_refusal_is_recorded(hall: Hall) -> None:
    entry = write(hall, "billing runs on fridays")

    with pytest.raises(RefusedError):
        dynamics.strengths(hall, "gemini", "company", [entry], CONFIG, observer="codex")

    assert hall.streams.topics("company")[-1] == "memhall.Refusal.Recorded"


def five_episodes(hall: Hall) -> list[str]:
    texts = ["Xiaomei said she is on a diet.", "Xiaomei declined the afternoon tea.",
             "Xiaomei brought a salad.", "Xiaomei went to the doctor.", "Xiaomei has not felt well lately."]
    ids = []
    for n, text in enumerate(texts):
        with freeze_time(day(n)):
            ids.append(write(hall, text, people=("xiaomei",), confidence=70 + n))
    return ids


def test_five_episodes_about_one_person_become_one_cited_l1_note(hall: Hall) -> None:
    sources = five_episodes(hall)

    done = consolidation.run(hall, "codex", "company", CONFIG, as_of=day(6))

    [note] = done.notes
    assert note.new and sorted(note.source_ids) == sorted(sources)
    stored = hall.streams.stream("company").get(UUID(note.entry_id))
    assert stored.layer is Layer.L1
    assert sorted(stored.provenance.evidence_refs) == sorted(sources)
    assert stored.confidence == 70
    assert key_of(hall, note.entry_id) == note.key


def test_consolidating_the_same_sources_again_writes_nothing(hall: Hall) -> None:
    five_episodes(hall)
    consolidation.run(hall, "codex", "company", CONFIG, as_of=day(6))
    events = hall.streams.event_count("company")

    again = consolidation.run(hall, "codex", "company", CONFIG, as_of=day(6))

    assert again.notes == [] and hall.streams.event_count("company") == events


def test_a_principal_without_a_role_cannot_consolidate(store: Store, policies: PolicySet) -> None:
    hall = Hall(store, policies)
    hall.create_domain("maki", "company")

    with pytest.raises(RefusedError):
        consolidation.run(hall, "stranger", "company", CONFIG)


def test_the_same_seed_wanders_the_same_way_and_a_second_run_writes_nothing(hall: Hall) -> None:
    for people, topics in ((("a", "b"), ()), (("b", "c"), ()), ((), ("x", "y")), ((), ("y", "z"))):
        write(hall, f"memory about {people} {topics}", people=people, topics=topics)
    calm = DynamicsConfig.model_validate({"wandering": {"exploration_rate": 0.9}})

    first = wandering.run(hall, "codex", "company", calm, seed=7)
    events = hall.streams.event_count("company")
    second = wandering.run(hall, "codex", "company", calm, seed=7)

    assert first.insights and all(i.new for i in first.insights)
    assert second.path == first.path
    assert second.insights == [] and hall.streams.event_count("company") == events
    insight = hall.streams.stream("company").get(UUID(first.insights[0].entry_id))
    assert insight.layer is Layer.L1 and insight.confidence == 10
    assert key_of(hall, insight.id).startswith("wandering:")


def test_an_aroused_mood_does_not_wander_unless_asked(hall: Hall) -> None:
    write(hall, "Terrified! The server is on fire!", people=("a",), topics=("x",))

    skipped = wandering.run(hall, "codex", "company", CONFIG, seed=1)
    walked = wandering.run(hall, "codex", "company", CONFIG, seed=1, anyway=True)

    assert skipped.skipped and not skipped.path
    assert walked.path


def test_an_open_question_incubates_until_its_loop_is_closed(hall: Hall) -> None:
    loop = write(hall, "Who approves the billing change?", kind="open-loop")
    write(hall, "Ship the release notes", kind="open-loop")

    before = handoff(hall, "codex", "company", open_session=False).incubation
    hall.close_loop("codex", "company", UUID(loop), "maki approves it")
    after = handoff(hall, "codex", "company", open_session=False).incubation

    assert [i["ids"] for i in before] == [[loop]] and before[0]["reason"] == "open-question"
    assert after == []


def test_a_doubtful_claim_incubates_until_it_is_no_longer_in_doubt(hall: Hall) -> None:
    from sqlalchemy import update

    claim = write(hall, "the build cache lives on the NAS", kind="claim")
    entries = hall.streams.stream("company").tables.entries

    def set_state(state: str) -> None:  # no command moves belief states on this branch yet
        with hall.store.write() as session:
            session.execute(update(entries).where(entries.c.id == claim).values(state=state))

    set_state("doubtful")
    with hall.store.read() as conn:
        doubted = incubation.pool(conn, hall.streams.stream("company"))
    set_state("corrected")
    with hall.store.read() as conn:
        settled = incubation.pool(conn, hall.streams.stream("company"))

    assert [(i.reason.value, i.ids) for i in doubted] == [("doubtful", (claim,))]
    assert settled == []


def test_the_graph_of_an_entity_shows_its_neighbourhood_with_wandering_links(hall: Hall) -> None:
    write(hall, "Bob won the tennis match", people=("bob",), topics=("tennis",))
    write(hall, "Alice paints", people=("alice",), topics=("painting",))

    drawn = dynamics.graph(hall, "codex", "company", CONFIG, entity="bob")

    names = {n.name for n in drawn.nodes()}
    assert {"bob", "tennis"} <= names and "alice" not in names
