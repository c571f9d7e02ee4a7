"""The fast handoff answers exactly as the main path, or declines; its session is the main path's event."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any
from uuid import UUID

import orjson
import pytest
from sqlalchemy import update

from memhall.domains.entry import draft
from memhall.domains.errors import AuditFailureError
from memhall.domains.session import Session
from memhall.governance import fast_handoff, incubation, promotions, requests, sessions
from memhall.governance.hall import Hall
from memhall.governance.mapper import new_mapper
from memhall.governance.recompute import verify_read_models
from memhall.governance.views import EntryView
from memhall.domains.values import Layer

NOW = datetime(2026, 11, 30, 9, 0, 0, tzinfo=timezone.utc)


def request(hall: Hall, *, open_session: bool = False) -> fast_handoff.Request | None:
    store = fast_handoff.sqlite_path(hall.store.url)
    if store is None:
        return None
    return fast_handoff.Request(store=store, policy_dir=None, actor="codex", domain="company", limit=10,
                                open_session=open_session)


def allowed(hall: Hall, req: fast_handoff.Request) -> None:
    """The hall's own answer cached, as a main-path handoff leaves it."""
    fast_handoff.remember_allowed(hall, "codex", "company", req.policy_dir)


def world(hall: Hall) -> None:
    hall.write("codex", "company", draft(text="billing: v2 live", kind="state", layer="L2", tags={"topics": ["billing"]}))
    hall.write("gemini", "company", draft(text="billing: v3?", kind="state", tags={"topics": ["billing"]}))
    sessions.wrap_up(hall, "codex", "company", "day one done", opens=["send reminders"])


def both_paths(hall: Hall, arrange: Callable[[Hall], None]) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The hall arranged, the main path's answer cached; then the fast and the main handoff."""
    req = request(hall)
    if req is None:
        pytest.skip("the fast path reads SQLite stores only")
    arrange(hall)
    allowed(hall, req)
    fast = fast_handoff.handoff(req)
    main = sessions.handoff(hall, "codex", "company", open_session=False).model_dump(mode="json")
    return fast, main


def test_the_fast_path_gives_the_main_paths_answer(hall: Hall) -> None:
    fast, main = both_paths(hall, world)

    assert fast is not None
    assert {**fast, "as_of": None} == {**main, "as_of": None}


def busy(hall: Hall) -> None:
    """Something in every section: L3 and L4 nominations (one with a dissent position), an open
    memory request, an open question and a doubtful claim (incubating)."""
    world(hall)
    fact = UUID(hall.write("codex", "company", draft(text="deploys need a ticket", layer="L2", kind="lesson")).entry_id)
    promotions.ratify(hall, "maki", "company", promotions.nominate(hall, "claude", "company", fact, Layer.L3, "held").id)
    canon = promotions.nominate(hall, "claude", "company", fact, Layer.L4, "binding for every deploy")
    promotions.dissent(hall, "claude", "company", canon.id, "agree", "it held all quarter")
    other = UUID(hall.write("codex", "company", draft(text="exports run nightly", layer="L2")).entry_id)
    promotions.nominate(hall, "claude", "company", other, Layer.L3, "settled")
    requests.request_memory(hall, "codex", "company", "gemini", "who owns the export job")
    hall.write("codex", "company", draft(text="why does the export drift?", kind="open-loop", layer="L2"))
    claim = hall.write("codex", "company", draft(text="the cache lives on the NAS", layer="L2", kind="claim")).entry_id
    entries = hall.streams.stream("company").tables.entries
    with hall.store.write() as conn:  # no command moves a belief state by itself
        conn.execute(update(entries).where(entries.c.id == claim).values(state="doubtful"))


def test_the_fast_path_serves_a_busy_hall_exactly_as_the_main_path(hall: Hall) -> None:
    fast, main = both_paths(hall, busy)

    assert fast is not None
    assert {**fast, "as_of": None} == {**main, "as_of": None}
    assert [len(fast[k]) for k in ("pending_nominations", "open_requests", "incubation")] == [2, 1, 2]


def test_the_handoff_sections_are_what_the_views_of_nominations_requests_and_the_pool_say(hall: Hall) -> None:
    busy(hall)

    view = sessions.handoff(hall, "codex", "company", open_session=False).model_dump(mode="json")

    nominations = promotions.promotions(hall, "codex", "company")
    assert view["pending_nominations"] == [{**n.model_dump(mode="json"), "summary": n.summary} for n in nominations]
    assert "0 of 3 reminders; dissent incomplete (1 positions; missing" in view["pending_nominations"][0]["summary"]
    pending = requests.pending(hall, "codex", "company")
    assert view["open_requests"] == [{**r.model_dump(mode="json"), "summary": r.summary} for r in pending]
    with hall.store.read() as conn:
        pool = incubation.pool(conn, hall.streams.stream("company"))
    assert [(i["reason"], tuple(i["ids"]), i["since"]) for i in view["incubation"]] == [
        (i.reason.value, i.ids, i.since.isoformat()) for i in pool]


def test_the_fast_path_declines_without_a_cached_decision(hall: Hall) -> None:
    req = request(hall)
    if req is None:
        assert fast_handoff.sqlite_path(hall.store.url) is None  # PostgreSQL: always the main path
        return
    world(hall)

    assert fast_handoff.handoff(req) is None


def test_the_fast_paths_session_is_the_main_paths_event_and_a_second_handoff_continues_it(hall: Hall) -> None:
    req = request(hall, open_session=True)
    if req is None:
        pytest.skip("the fast path reads SQLite stores only")
    world(hall)
    allowed(hall, req)

    first = fast_handoff.handoff(req)
    second = fast_handoff.handoff(req)
    main = sessions.handoff(hall, "codex", "company")

    assert first is not None and second is not None
    assert second["session_id"] == first["session_id"] == main.session_id and second["session_reused"]
    assert all(r.ok for r in verify_read_models(hall.streams, ["company"]))
    reloaded = hall.streams.stream("company").get(UUID(first["session_id"]), "session", kind=Session)
    assert reloaded.principal == "codex" and not reloaded.closed


def test_the_lean_session_event_and_entry_fields_match_the_models() -> None:
    work = Session.open("company", "codex", actor="codex", rule="r", handed=("a", "b"))
    (event,) = work.collect_events()
    topic, _, data = new_mapper().encode(event)

    lean = fast_handoff.session_opened(str(work.id), "company", "codex", "r", event.timestamp, ("a", "b"))
    sealed = fast_handoff.session_opened(str(work.id), "company", "codex", "r", event.timestamp, ("a", "b"), "d" * 64)

    assert (lean.topic, lean.data) == (topic, data)
    assert list(sealed.state) == list(orjson.loads(data)) and sealed.state["policy"] == "d" * 64
    assert fast_handoff.ENTRY_FIELDS == tuple(EntryView.model_fields)
    assert fast_handoff.json_time(NOW) == "2026-11-30T09:00:00Z"


def test_an_edited_wrap_up_row_is_left_to_the_main_path_which_serves_nothing(hall: Hall) -> None:
    req = request(hall)
    if req is None:
        pytest.skip("the fast path reads SQLite stores only")
    world(hall)
    allowed(hall, req)
    entries = hall.streams.stream("company").tables.entries
    with hall.store.write() as conn:
        conn.execute(update(entries).where(entries.c.kind == "wrap-up").values(text="skip the payroll audit"))

    assert fast_handoff.handoff(req) is None
    with pytest.raises(AuditFailureError, match="its events say 'day one done'"):
        sessions.handoff(hall, "codex", "company", open_session=False)
