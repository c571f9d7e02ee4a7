"""What waits in a handoff is read in bounded pages: the sections a hall with thousands of
open loops or nominations shows are the ones reading everything would show."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from uuid import UUID

from memhall.domains.dynamics.incubation import asks, incubation_pool
from memhall.domains.entry import EntryDraft, draft
from memhall.domains.moments import from_iso
from memhall.domains.values import BeliefState, Layer, Status
from memhall.governance import promotions, threads, waiting
from memhall.governance.hall import Hall
from memhall.governance.store import raw

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@contextmanager
def reader(hall: Hall) -> Iterator[threads.Reader]:
    with hall.store.read() as conn:
        yield threads.Reader(raw(conn), hall.streams.stream("company").tables.prefix, conn.dialect.name)


def loop(text: str, minutes: int) -> EntryDraft:
    return draft(text=text, kind="open-loop", layer="L2", occurred_at=T0 + timedelta(minutes=minutes))


def every_item(r: threads.Reader) -> list[tuple[str, list[str], str]]:
    """The pool over every unsettled entry, read at once: what the paged read must match."""
    rows = r.rows(f"SELECT id, occurred_at, kind, state, status, text FROM {r.prefix}entries "
                  "WHERE status = 'active' AND (state IN ('doubtful', 'anomalous') OR kind = 'open-loop')")
    pool = incubation_pool(waiting.Unsettled(str(i), from_iso(at), BeliefState(state), Status(status), asks(kind, text))
                           for i, at, kind, state, status, text in rows)
    return [(item.reason.value, list(item.ids), item.since.isoformat()) for item in pool]


def test_the_incubation_section_pages_past_open_loops_that_ask_nothing(hall: Hall) -> None:
    # 70 old chores (no question: not in the pool), then questions, three of them at one minute
    chores = [loop(f"chore {n}: tidy the runbook", n) for n in range(70)]
    questions = [loop(f"who owns export {n}?", 100 + min(n, 4)) for n in range(8)]
    hall.write_many("codex", "company", [*chores, *questions])
    with reader(hall) as r:
        shown = waiting.incubation(r, limit=5)
        everything = every_item(r)

    assert [(i["reason"], i["ids"], i["since"]) for i in shown] == everything[:5]
    assert len(shown) == 5 and all(i["reason"] == "open-question" for i in shown)


def test_the_incubation_section_takes_every_entry_as_old_as_its_last_item(hall: Hall) -> None:
    # more questions at the boundary minute than the page holds: ties are read, never cut
    questions = [loop(f"is job {n} still needed?", 0 if n < 3 else 1) for n in range(60)]
    hall.write_many("codex", "company", questions)
    with reader(hall) as r:
        for limit in (1, 3, 4, 20):
            shown = waiting.incubation(r, limit=limit)
            assert [(i["reason"], i["ids"], i["since"]) for i in shown] == every_item(r)[:limit]


def test_a_handoff_lists_the_oldest_open_nominations_up_to_its_limit(hall: Hall) -> None:
    facts = [UUID(hall.write("codex", "company", draft(text=f"deploys are on tuesdays {n}", layer="L2")).entry_id)
             for n in range(3)]
    nominated = [promotions.nominate(hall, "claude", "company", fact, Layer.L3, "held for a quarter").id
                 for fact in facts]
    with reader(hall) as r:
        assert [n["id"] for n in waiting.pending_nominations(r, limit=2)] == [str(p) for p in nominated[:2]]
        assert [n["id"] for n in waiting.pending_nominations(r)] == [str(p) for p in nominated]


def test_a_hall_with_hundreds_of_open_questions_reads_one_page_of_them(hall: Hall) -> None:
    hall.write_many("codex", "company", [loop(f"who signs off step {n}?", n) for n in range(300)])

    with reader(hall) as r:
        read = waiting.unsettled(r, limit=5)

    assert len(read) == 50  # one page, not all 300
    assert [u.id for u in read[:5]] == [ids[0] for _, ids, _ in every_item_of(hall)[:5]]


def every_item_of(hall: Hall) -> list[tuple[str, list[str], str]]:
    with reader(hall) as r:
        return every_item(r)
