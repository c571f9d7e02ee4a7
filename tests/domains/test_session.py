"""A working session ends once, by its own principal: wrapped up, or closed with nothing to hand over."""

from __future__ import annotations

from collections.abc import Callable
from uuid import uuid4

import pytest

from memhall.domains.errors import InvalidTransitionError
from memhall.domains.session import Session


def opened() -> Session:
    return Session.open("company", "codex", actor="codex", rule="members-read-their-domain")


def test_a_session_closed_with_nothing_to_hand_over_records_only_its_close() -> None:
    session = opened()
    session.collect_events()

    session.close(actor="codex", rule="session-chair-runs-its-session")

    assert session.closed and session.summary_entry is None
    assert [type(e).__name__ for e in session.collect_events()] == ["Closed"]


@pytest.mark.parametrize("end", [
    lambda s: s.close(actor="claude", rule="r"),
    lambda s: s.wrap_up(uuid4(), actor="claude", rule="r"),
])
def test_only_its_principal_ends_a_session(end: Callable[[Session], None]) -> None:
    session = opened()

    with pytest.raises(InvalidTransitionError, match="belongs to codex, not claude"):
        end(session)
    assert not session.closed


@pytest.mark.parametrize("end", [
    lambda s: s.close(actor="codex", rule="r"),
    lambda s: s.wrap_up(uuid4(), actor="codex", rule="r"),
])
def test_a_closed_session_ends_no_second_time(end: Callable[[Session], None]) -> None:
    session = opened()
    session.close(actor="codex", rule="r")

    with pytest.raises(InvalidTransitionError, match="already closed"):
        end(session)
