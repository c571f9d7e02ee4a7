"""Rebuild is governed and recorded; a principal with no role cannot grow a domain's log."""

from __future__ import annotations

import pytest
from sqlalchemy import select, update

from memhall.domains.entry import draft
from memhall.domains.errors import PolicyDeniedError
from memhall.governance import history, sessions
from memhall.governance.hall import Hall
from memhall.governance.rebuild import governed_rebuild
from memhall.governance.tables import SYSTEM, tables_for


def events(hall: Hall, domain: str) -> int:
    return hall.streams.event_count(domain)


def test_the_owner_rebuilds_and_each_domain_records_who_did(hall: Hall) -> None:
    hall.write("codex", "company", draft(text="one"))
    before = events(hall, "company")

    counts = governed_rebuild(hall, "maki")

    assert counts["company"] == before
    last = history.log(hall, "maki", "company", limit=1)[0]
    assert (last.topic, last.actor, last.rule) == (
        "memhall.Rebuild.Recorded", "maki", "chairs-and-owners-rebuild-read-models")


def test_a_seat_may_not_rebuild_and_nothing_is_rebuilt(hall: Hall) -> None:
    written = hall.write("codex", "company", draft(text="one")).entry_id
    entries = tables_for("company").entries
    with hall.store.write() as conn:
        conn.execute(update(entries).where(entries.c.id == written).values(text="edited"))

    with pytest.raises(PolicyDeniedError) as refused:
        governed_rebuild(hall, "gemini")

    assert refused.value.exit_code == 3
    assert history.log(hall, "maki", "company", limit=1)[0].topic == "memhall.Refusal.Recorded"
    with hall.store.read() as conn:
        assert conn.execute(select(entries.c.text).where(entries.c.id == written)).scalar_one() == "edited"


def test_a_stranger_cannot_grow_a_domains_log(hall: Hall) -> None:
    before, system_before = events(hall, "company"), events(hall, SYSTEM)

    with pytest.raises(PolicyDeniedError, match="holds no role"):
        hall.write("grok", "company", draft(text="let me in"))
    with pytest.raises(PolicyDeniedError):
        sessions.handoff(hall, "grok", "company")
    with pytest.raises(PolicyDeniedError):
        governed_rebuild(hall, "grok")

    assert events(hall, "company") == before
    assert events(hall, SYSTEM) == system_before + 3
    audit = tables_for(SYSTEM).audit
    with hall.store.read() as conn:
        kept = conn.execute(select(audit.c.actor, audit.c.action, audit.c.decision)
                            .order_by(audit.c.position.desc()).limit(3)).all()
    assert [tuple(r) for r in kept] == [("grok", "rebuild", "refused"), ("grok", "handoff", "refused"),
                                        ("grok", "write_l1", "refused")]
