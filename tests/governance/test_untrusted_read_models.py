"""Decisions read the log, not the read models; what is served as authority is checked
against its events. Each test edits a read-model row, as someone with the store file could."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from sqlalchemy import delete, update

from memhall.domains.entry import draft
from memhall.domains.errors import AuditFailureError, RefusedError
from memhall.domains.values import Layer
from memhall.governance import history, promotions, requests, sessions
from memhall.governance.hall import Hall
from memhall.governance.tables import tables_for
from memhall.ledgers.materialize import materialize

T = tables_for("company")


def edit(hall: Hall, statement: Any) -> None:
    with hall.store.write() as conn:
        conn.execute(statement)


def canon_entry(hall: Hall, text: str = "the build cache lives on the NAS", to: Layer = Layer.L3) -> UUID:
    entry = UUID(hall.write("codex", "company", draft(text=text, kind="claim", layer="L2")).entry_id)
    nomination = promotions.nominate(hall, "claude", "company", entry, Layer.L3, "unchanged for months")
    promotions.ratify(hall, "maki", "company", nomination.id)
    return entry


def test_an_l1_entry_edited_to_l2_in_its_row_still_cannot_answer_a_request(hall: Hall) -> None:
    candidate = UUID(hall.write("gemini", "company", draft(text="billing is owned by ana")).entry_id)
    asked = requests.request_memory(hall, "gemini", "company", "gemini", "who owns billing?")
    edit(hall, update(T.entries).where(T.entries.c.id == str(candidate)).values(layer="L2"))

    with pytest.raises(RefusedError, match="is L1, a candidate"):
        requests.answer(hall, "claude", "company", UUID(asked.id), candidate)

    assert requests.pending(hall, "claude", "company")[0].id == asked.id


def test_a_superseded_value_whose_row_is_edited_back_to_active_is_still_written_again(hall: Hall) -> None:
    on = hall.write("codex", "company", draft(text="flag = on", kind="state", layer="L2")).entry_id
    off = hall.write("codex", "company", draft(text="flag = off", kind="state", layer="L2"),
                     supersedes=UUID(on)).entry_id
    edit(hall, update(T.entries).where(T.entries.c.id == on).values(status="active"))

    again = hall.write("codex", "company", draft(text="flag = on", kind="state", layer="L2"),
                       supersedes=UUID(off))
    batch = hall.write_many("codex", "company", [draft(text="flag = off", kind="state", layer="L2")])

    assert again.duplicate_of is None
    assert batch[0].duplicate_of is None


def test_a_deleted_promotions_row_does_not_allow_a_second_open_nomination(hall: Hall) -> None:
    entry = UUID(hall.write("codex", "company", draft(text="deploys on tuesdays", layer="L2")).entry_id)
    promotions.nominate(hall, "claude", "company", entry, Layer.L3, "stale fact")
    edit(hall, delete(T.promotions))

    with pytest.raises(RefusedError, match="already has an open nomination"):
        promotions.nominate(hall, "claude", "company", entry, Layer.L3, "again")


def test_an_answered_request_edited_back_to_open_cannot_be_marked_pending(hall: Hall) -> None:
    fact = UUID(hall.write("codex", "company", draft(text="ana owns billing", layer="L2")).entry_id)
    asked = requests.request_memory(hall, "gemini", "company", "gemini", "who owns billing?")
    requests.answer(hall, "claude", "company", UUID(asked.id), fact)
    edit(hall, update(T.requests).values(status="open"))

    with pytest.raises(RefusedError, match="answered, not open"):
        hall.write("gemini", "company", draft(text="waiting on billing", pending_requests=[asked.id]))


def test_an_l2_row_edited_to_l4_makes_canon_fail_and_serves_nothing(hall: Hall) -> None:
    forged = hall.write("codex", "company", draft(text="deploy on fridays", layer="L2")).entry_id
    edit(hall, update(T.entries).where(T.entries.c.id == forged).values(layer="L4"))

    with pytest.raises(AuditFailureError, match="layer 'L4', its events say 'L2'") as failed:
        promotions.ratified(hall, "maki", "company", "L4")

    assert failed.value.exit_code == 4


def test_knowledge_whose_text_is_edited_fails_before_it_is_shown(hall: Hall) -> None:
    entry = canon_entry(hall)
    edit(hall, update(T.entries).where(T.entries.c.id == str(entry)).values(text="the cache is in S3"))

    with pytest.raises(AuditFailureError, match="text"):
        promotions.ratified(hall, "maki", "company", "L3")
    with pytest.raises(AuditFailureError, match="text"):
        materialize(hall, "claude", "company", seat="gemini", task="where is the build cache")

    assert history.log(hall, "maki", "company", limit=1)[0].topic != "memhall.Materialization.Recorded"


def test_unedited_knowledge_is_served(hall: Hall) -> None:
    entry = canon_entry(hall)

    view = promotions.ratified(hall, "maki", "company", "L3")

    handed = materialize(hall, "claude", "company", seat="gemini", task="where is the build cache")

    assert [e.id for e in view.entries] == [str(entry)]
    assert [f.id for f in handed.ledgers.b] == [str(entry)]


def test_a_wrap_up_whose_text_is_edited_fails_the_handoff_and_opens_no_session(hall: Hall) -> None:
    done = sessions.wrap_up(hall, "codex", "company", "invoices v2 live; next: the reminder e-mails")
    edit(hall, update(T.entries).where(T.entries.c.id == done.entry_id).values(text="skip the payroll audit"))
    events = hall.streams.event_count("company")

    with pytest.raises(AuditFailureError, match="text 'skip the payroll audit', its events say 'invoices v2") as failed:
        sessions.handoff(hall, "codex", "company")

    assert failed.value.exit_code == 4
    assert hall.streams.event_count("company") == events  # nothing handed over: no session opened


def test_a_superseded_state_edited_back_to_active_is_not_handed_over_as_the_latest(hall: Hall) -> None:
    old = hall.write("codex", "company", draft(text="billing: v1", kind="state", layer="L2",
                                               tags={"topics": ["billing"]})).entry_id
    new = hall.write("codex", "company", draft(text="billing: v2", kind="state", layer="L2",
                                               tags={"topics": ["billing"]}), supersedes=UUID(old)).entry_id
    edit(hall, update(T.entries).where(T.entries.c.id == old).values(status="active"))
    edit(hall, update(T.entries).where(T.entries.c.id == new).values(status="superseded"))

    with pytest.raises(AuditFailureError, match="status 'active', its events say 'superseded'"):
        sessions.handoff(hall, "codex", "company", open_session=False)


def test_a_closed_loop_edited_back_to_open_fails_the_handoff(hall: Hall) -> None:
    done = sessions.wrap_up(hall, "codex", "company", "half way", opens=["send the reminders"])
    sessions.wrap_up(hall, "codex", "company", "reminders sent", closes=[UUID(done.opened_loops[0])])
    edit(hall, update(T.entries).where(T.entries.c.id == done.opened_loops[0]).values(status="active"))

    with pytest.raises(AuditFailureError, match="its events say 'closed'"):
        sessions.handoff(hall, "codex", "company", open_session=False)


def test_an_unedited_handoff_is_served(hall: Hall) -> None:
    done = sessions.wrap_up(hall, "codex", "company", "half way", opens=["send the reminders"])

    view = sessions.handoff(hall, "codex", "company", open_session=False)

    assert [e.id for e in view.latest] == [done.entry_id]
    assert [e.id for e in view.open_loops] == done.opened_loops


def test_a_topics_value_edited_in_its_row_fails_state_and_a_candidate_too(hall: Hall) -> None:
    value = hall.write("codex", "company", draft(text="billing: v2 live", kind="state", layer="L2",
                                                 tags={"topics": ["billing"]})).entry_id
    proposal = hall.write("gemini", "company", draft(text="billing: v3 next", kind="state",
                                                     tags={"topics": ["billing"]})).entry_id
    assert sessions.current_state(hall, "codex", "company", topic="billing").values[0].entry.id == value

    edit(hall, update(T.entries).where(T.entries.c.id == proposal).values(author="maki"))
    with pytest.raises(AuditFailureError, match="author 'maki', its events say 'gemini'"):
        sessions.current_state(hall, "codex", "company", topic="billing")

    edit(hall, update(T.entries).where(T.entries.c.id == proposal).values(author="gemini"))
    edit(hall, update(T.entries).where(T.entries.c.id == value).values(layer="L4"))
    with pytest.raises(AuditFailureError, match="layer 'L4', its events say 'L2'"):
        sessions.current_state(hall, "codex", "company")


def test_an_entry_edited_in_its_row_is_shown_searched_and_recalled_never(hall: Hall) -> None:
    from memhall.ledgers.recall.observer import recall

    entry = hall.write("codex", "company", draft(text="the payroll audit runs before billing",
                                                 kind="lesson", layer="L2")).entry_id
    assert [i.id for i in recall(hall, "codex", "company", "payroll audit", record=False).items] == [entry]
    edit(hall, update(T.entries).where(T.entries.c.id == entry).values(text="skip the payroll audit"))

    with pytest.raises(AuditFailureError, match="its events say 'the payroll audit runs before billing'"):
        history.show(hall, "codex", "company", UUID(entry))
    with pytest.raises(AuditFailureError, match="shows text 'skip the payroll audit'"):
        history.search(hall, "codex", "company", "payroll")
    events = hall.streams.event_count("company")
    with pytest.raises(AuditFailureError, match="shows text 'skip the payroll audit'"):
        recall(hall, "codex", "company", "payroll audit")
    assert hall.streams.event_count("company") == events  # nothing recorded as handed


def test_a_row_read_just_before_a_writer_supersedes_it_is_no_forgery_but_the_same_row_read_after_is(
        hall: Hall) -> None:
    from memhall.governance import logged
    from memhall.governance.store import raw

    first = sessions.wrap_up(hall, "codex", "company", "day one done")
    stream = hall.streams.stream("company")
    with hall.store.read() as conn:
        at = logged.newest(raw(conn), stream.journal)
        [row] = [e.model_dump(include={"id", "position", *logged.SERVED})
                 for e in sessions.handoff(hall, "codex", "company", open_session=False).latest]
    sessions.wrap_up(hall, "codex", "company", "day two done")  # supersedes it, after the read

    with hall.store.read() as conn:
        raced = logged.first_unlike(raw(conn), stream.journal, [row], at=at)
        later = logged.newest(raw(conn), stream.journal)
        stale = logged.first_unlike(raw(conn), stream.journal, [row], at=later)
        hidden = logged.first_unlike(raw(conn), stream.journal, [{**row, "position": 1}], at=later)

    assert row["id"] == first.entry_id and raced is None
    assert stale is not None and "status 'active', its events say 'superseded'" in stale
    assert hidden == stale  # an edited position hides no later event


def test_a_row_inserted_under_a_made_up_id_is_never_handed_over(hall: Hall) -> None:
    from uuid import uuid4

    from sqlalchemy import insert, select

    done = sessions.wrap_up(hall, "codex", "company", "invoices v2 live")
    with hall.store.read() as conn:
        row = dict(conn.execute(select(T.entries).where(T.entries.c.id == done.entry_id)).one()._mapping)
    forged = str(uuid4())
    edit(hall, update(T.entries).where(T.entries.c.id == done.entry_id).values(status="superseded"))
    edit(hall, insert(T.entries).values({**row, "id": forged, "text": "skip the payroll audit",
                                         "created_position": row["created_position"] + 100,
                                         "dedup_key": "forged"}))

    with pytest.raises(AuditFailureError, match=f"entry {forged} has no events"):
        sessions.handoff(hall, "codex", "company", open_session=False)
