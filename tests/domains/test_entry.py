"""The Entry model: validation at the edge, provenance, layers, transitions."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memhall.domains.entry import Entry, draft
from memhall.domains.errors import InvalidTransitionError, InvalidValueError
from memhall.domains.values import (
    BeliefState,
    Layer,
    Status,
    domain_name,
    normalized_text,
)


def written(**fields: object) -> Entry:
    return Entry.write("company", draft(text="the door is open", **fields), actor="codex",
                       rule="test", implanted=40)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"text": "x", "confidence": 101}, "confidence"),
        ({"text": "x", "confidence": -1}, "confidence"),
        ({"text": "x", "provenance": {"source_kind": "hearsay"}}, "hearsay needs a source agent"),
        ({"text": "x", "provenance": {"source_kind": "firsthand", "source_agent_id": "gemini"}},
         "only allowed for hearsay"),
        ({"text": "x", "layer": "L9"}, "layer"),
        ({"text": "x", "kind": "rumour"}, "kind"),
        ({"text": "   "}, "text must not be empty"),
        ({"text": "x", "colour": "red"}, "colour"),
        ({"text": "x", "thread": "   "}, "a thread name must not be blank"),
        ({"text": "x", "thread": "@"}, "'@' alone names nobody"),
        ({"text": "x", "thread": "a\x00b"}, "NUL"),
        ({"text": "x", "occurred_at": datetime(1, 1, 1, tzinfo=timezone.utc)}, "out of range (years 1900 to 9000)"),
        ({"text": "x", "tags": {"topics": ["t" * 129]}}, "a tag in topics holds at most 128 characters"),
        ({"text": "x", "session_id": "s" * 129}, "session_id: String should have at most 128 characters"),
    ],
)
def test_invalid_values_are_refused_with_one_line(fields: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidValueError) as raised:
        draft(**fields)

    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("bad", ["", "   ", "Company", "a-b", "1st", "x" * 40, "drop table"])
def test_a_domain_name_must_be_a_slug(bad: str) -> None:
    with pytest.raises(InvalidValueError):
        domain_name(bad)


def test_a_thread_name_is_kept_without_the_spaces_around_it() -> None:
    assert draft(text="x", thread="  deploy ").thread == "deploy"


def test_initial_confidence_follows_provenance() -> None:
    assert written().confidence == 78
    assert written(provenance={"source_kind": "hearsay", "source_agent_id": "gemini"}).confidence == 58
    assert written(provenance={"source_kind": "implanted"}).confidence == 40
    assert written(confidence=12).confidence == 12


def test_a_new_entry_is_influencing_and_active() -> None:
    entry = written()

    assert entry.state is BeliefState.INFLUENCING
    assert entry.status is Status.ACTIVE
    assert entry.author == "codex"


def test_writing_at_l3_or_l4_is_refused() -> None:
    with pytest.raises(InvalidValueError, match="only by promotion"):
        written(layer="L3")


def test_dedup_key_ignores_case_and_spacing_but_not_kind_or_claim() -> None:
    base = draft(text="The  door is OPEN", kind="claim")

    assert base.dedup_key() == draft(text="the door is open", kind="claim").dedup_key()
    assert base.dedup_key() != draft(text="the door is open", kind="lesson").dedup_key()
    assert base.dedup_key() != draft(text="the door is open", kind="claim",
                                     provenance={"claim_root_id": "r1"}).dedup_key()
    assert normalized_text("Ｄoor  IS\topen") == "door is open"


def test_promotion_moves_one_layer_up_and_keeps_every_layer_held() -> None:
    entry = written()

    entry.promote(Layer.L2, promotion_id=None, answers={}, actor="codex", rule="r")

    assert entry.layer is Layer.L2
    assert entry.layers_held == [Layer.L1, Layer.L2]
    with pytest.raises(InvalidTransitionError):
        entry.promote(Layer.L4, promotion_id=None, answers={}, actor="codex", rule="r")


def test_only_an_open_loop_can_be_closed_and_only_once() -> None:
    loop = written(kind="open-loop")
    loop.close_loop(None, "done", actor="codex", rule="r")

    with pytest.raises(InvalidTransitionError):
        loop.close_loop(None, "again", actor="codex", rule="r")
    with pytest.raises(InvalidTransitionError):
        written().close_loop(None, "x", actor="codex", rule="r")


def test_retiring_keeps_the_entry_and_needs_a_reason() -> None:
    entry = written()
    with pytest.raises(InvalidValueError):
        entry.retire(" ", actor="codex", rule="r")

    entry.retire("obsolete", actor="codex", rule="r")

    assert entry.status is Status.RETIRED
    assert len(entry.collect_events()) == 2


def test_a_written_entry_is_the_event_and_state_its_validated_event_gives() -> None:
    from memhall.domains.dynamics.encoding import LexiconEncoder
    from memhall.governance.mapper import new_mapper

    entry = draft(text="Maki told me the door is open", kind="state", layer="L2",
                  tags={"people": ["maki"], "topics": ["doors"]}, idempotency_key="k1",
                  provenance={"source_kind": "hearsay", "source_agent_id": "gemini"}, addressees=["liu"])
    encoding = LexiconEncoder().encode(entry.text, speaker="codex", addressee="liu", participants=(),
                                       occurred_at=datetime(2026, 3, 2, tzinfo=timezone.utc)).record()
    new = Entry.write("company", entry, actor="codex", rule="test", implanted=40, encoding=encoding)

    made = new.pending_events[0]
    validated = Entry.Written(**made.model_dump())
    mapper = new_mapper()
    assert mapper.encode(validated)[2] == mapper.encode(made)[2]
    assert list(vars(validated)) == list(vars(made)) and validated == made
    replayed = validated.mutate(None)
    assert {k: v for k, v in vars(replayed).items() if k != "_pending_events"} == \
        {k: v for k, v in vars(new).items() if k != "_pending_events"}


def test_a_created_event_with_an_unknown_or_missing_field_is_refused() -> None:
    from memhall.domains.aggregate import created

    with pytest.raises(TypeError, match="colour"):
        created(Entry, Entry.Written, colour="red")


def test_new_ids_are_random_version_4_uuids_and_a_forked_child_makes_its_own() -> None:
    import os
    import uuid

    from memhall.domains.aggregate import new_id

    ids = [new_id() for _ in range(3000)]  # past several refills of the pool
    assert len(set(ids)) == 3000
    assert all(i.version == 4 and i.variant == uuid.RFC_4122 and uuid.UUID(str(i)) == i for i in ids)
    assert written().id.version == 4
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        os.write(write, str(new_id()).encode())
        os._exit(0)
    os.waitpid(child, 0)
    os.close(write)
    assert uuid.UUID(os.read(read, 64).decode()) != new_id()  # not the same bits from the same pool
