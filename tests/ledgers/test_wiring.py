"""What needs the hall's wiring (see the ledgers issue note): handoff shows open
requests, and `write --pending` names only open requests."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memhall.domains.entry import draft
from memhall.domains.errors import RefusedError
from memhall.governance import requests, sessions
from memhall.governance.hall import Hall


def test_handoff_shows_the_open_memory_requests(hall: Hall) -> None:
    made = requests.request_memory(hall, "gemini", "company", "gemini", "who owns billing?")

    view = sessions.handoff(hall, "codex", "company", open_session=False)

    assert [r["id"] for r in view.open_requests] == [made.id]
    assert "who owns billing?" in view.open_requests[0]["summary"]


def test_a_seat_marks_memory_pending_only_on_an_open_request(hall: Hall) -> None:
    made = requests.request_memory(hall, "gemini", "company", "gemini", "who owns billing?",
                                   timedelta(hours=1))

    marked = hall.write("gemini", "company", draft(text="plan, except the approval step",
                                                   pending_requests=(made.id,)))

    assert not marked.duplicate
    with pytest.raises(RefusedError, match="no memory request"):
        hall.write("gemini", "company", draft(text="plan B", pending_requests=("nope",)))
