"""Superseding is governed on the target entry, and a value that comes back is recorded."""

from __future__ import annotations

from uuid import UUID

import pytest

from memhall.domains.entry import draft
from memhall.domains.errors import PolicyDeniedError
from memhall.domains.values import Layer
from memhall.governance import history, promotions, sessions
from memhall.governance.hall import Hall


def state(hall: Hall, text: str, supersedes: str | None = None, actor: str = "codex") -> str:
    result = hall.write(actor, "company", draft(text=text, kind="state", layer="L2"),
                        supersedes=UUID(supersedes) if supersedes else None)
    return result.entry_id


def last_topic(hall: Hall) -> str:
    return history.log(hall, "maki", "company", limit=1)[0].topic


def test_a_seats_l1_write_cannot_supersede_the_l2_state(hall: Hall) -> None:
    on = state(hall, "flag = on")

    with pytest.raises(PolicyDeniedError, match="never from a lower layer") as refused:
        hall.write("gemini", "company", draft(text="flag = off"), supersedes=UUID(on))

    assert refused.value.rule == "supersede-never-from-below"
    assert last_topic(hall) == "memhall.Refusal.Recorded"
    assert [e.id for e in sessions.handoff(hall, "codex", "company", open_session=False).latest] == [on]


def test_an_l2_write_cannot_supersede_ratified_knowledge(hall: Hall) -> None:
    fact = state(hall, "the build cache lives on the NAS")
    nomination = promotions.nominate(hall, "claude", "company", UUID(fact), Layer.L3, "held for months")
    promotions.ratify(hall, "maki", "company", nomination.id)

    with pytest.raises(PolicyDeniedError, match="only by demotion") as refused:
        state(hall, "the build cache lives in S3", supersedes=fact)

    assert refused.value.rule == "l3-and-l4-are-never-superseded"
    assert promotions.ratified(hall, "maki", "company", "L3").available
    assert history.show(hall, "maki", "company", UUID(fact)).entry.status == "active"


def test_a_session_chair_supersedes_within_the_layers_it_writes(hall: Hall) -> None:
    candidate = hall.write("gemini", "company", draft(text="deploys on fridays", kind="claim")).entry_id

    replaced = hall.write("codex", "company", draft(text="deploys on thursdays", kind="claim", layer="L2"),
                          supersedes=UUID(candidate), reason="the release moved")

    shown = history.show(hall, "maki", "company", UUID(candidate))
    assert shown.entry.superseded_by == replaced.entry_id
    assert shown.history[-1].rule == "session-chair-supersedes-within-l1-and-l2"


def test_a_value_that_comes_back_after_being_superseded_is_recorded(hall: Hall) -> None:
    on = state(hall, "flag = on")
    off = state(hall, "flag = off", supersedes=on)

    back = hall.write("codex", "company", draft(text="flag = on", kind="state", layer="L2"),
                      supersedes=UUID(off))

    assert back.duplicate_of is None and back.entry_id not in (on, off)
    latest = sessions.handoff(hall, "codex", "company", open_session=False).latest
    assert [e.text for e in latest] == ["flag = on"]
    assert history.show(hall, "maki", "company", UUID(off)).entry.superseded_by == back.entry_id


def test_the_batched_path_supersedes_and_records_a_returning_value(hall: Hall) -> None:
    on = state(hall, "flag = on")
    off = state(hall, "flag = off", supersedes=on)

    results = hall.write_many("codex", "company", [draft(text="flag = on", kind="state", layer="L2")],
                              supersedes=[UUID(off)])

    assert results[0].duplicate_of is None
    latest = sessions.handoff(hall, "codex", "company", open_session=False).latest
    assert [e.id for e in latest] == [results[0].entry_id]


def test_the_batched_path_refuses_a_supersede_from_below(hall: Hall) -> None:
    on = state(hall, "flag = on")

    with pytest.raises(PolicyDeniedError, match="never from a lower layer"):
        hall.write_many("gemini", "company", [draft(text="flag = off")], supersedes=[UUID(on)])

    assert history.show(hall, "maki", "company", UUID(on)).entry.status == "active"
