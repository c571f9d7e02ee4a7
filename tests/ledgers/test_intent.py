"""The active_intent channel follows the observer's current task: what was handed to it for the
task of its current session, and no longer once that session has ended."""

from __future__ import annotations

from memhall.governance import sessions
from memhall.governance.hall import Hall
from memhall.governance.memory_records import Scope
from memhall.ledgers.materialize import materialize
from memhall.ledgers.recall import active_intent
from memhall.ledgers.recall.gather import gather
from memhall.ledgers.recall.pool import Reader, newest
from memhall.ledgers.recall.query import Query
from tests.ledgers.conftest import Write


def intents(hall: Hall, observer: str, text: str) -> list[str]:
    stream = hall.streams.stream("company")
    with hall.store.read() as conn:
        reader = Reader(conn, stream, hall.store.dialect, observer,
                        Scope.of(hall.gate, observer, "company").whole, newest(conn, stream))
        return [i for i, _ in gather(reader, Query.of(text, observer)).channels[active_intent.NAME]]


def test_what_was_handed_for_the_current_task_is_an_active_intent(write: Write, hall: Hall) -> None:
    cutover = write("the router cutover is set for friday night")
    write("the heat pump quote arrived")
    materialize(hall, "claude", "company", seat="gemini", task="plan the router cutover")
    sessions.handoff(hall, "gemini", "company")

    assert intents(hall, "gemini", "when does the router cutover happen?") == [cutover]
    assert intents(hall, "gemini", "what did the heat pump quote say?") == []


def test_a_task_from_a_session_that_has_ended_is_no_longer_an_intent(write: Write, hall: Hall) -> None:
    cutover = write("the router cutover is set for friday night")
    materialize(hall, "claude", "company", seat="codex", task="plan the router cutover")
    sessions.handoff(hall, "codex", "company")
    during = intents(hall, "codex", "when does the router cutover happen?")

    sessions.wrap_up(hall, "codex", "company", "cutover planned")

    assert during == [cutover]
    assert intents(hall, "codex", "when does the router cutover happen?") == []


def test_a_task_is_the_seats_own_never_another_seats(write: Write, hall: Hall) -> None:
    write("the router cutover is set for friday night")
    materialize(hall, "claude", "company", seat="gemini", task="plan the router cutover")

    assert intents(hall, "maki", "when does the router cutover happen?") == []
