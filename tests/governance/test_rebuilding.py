"""A domain being rebuilt serves nothing from its partial read models and takes no writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memhall.domains.entry import draft
from memhall.domains.errors import DomainRebuildingError
from memhall.governance import fast_handoff, pipelined, rebuilding, sessions
from memhall.governance.hall import Hall
from memhall.governance.rebuild import rebuild
from memhall.governance.store import Store
from memhall.policies.engine import PolicySet


def states(hall: Hall) -> list[str]:
    return [e.text for e in sessions.handoff(hall, "codex", "company", open_session=False).latest]


def fill(hall: Hall, n: int) -> None:
    hall.write_many("codex", "company", [draft(text=f"step {i} of topic{i % 3}", kind="state", layer="L2",
                                                tags={"topics": [f"topic{i % 3}"]}) for i in range(n)])


def test_a_reader_during_a_rebuild_is_refused_until_the_read_models_are_whole(
        hall: Hall, store_url: str, policies: PolicySet, monkeypatch: pytest.MonkeyPatch) -> None:
    fill(hall, 90)
    before = states(hall)
    reader = Hall(Store(store_url), policies)  # another process's hall
    seen: list[str] = []
    submit = pipelined.Inline.submit

    def between_batches(writer: pipelined.Inline, plan: Any, events: int) -> None:
        submit(writer, plan, events)
        try:
            seen.append(repr(states(reader)))
        except DomainRebuildingError as refused:
            seen.append(type(refused).__name__)

    monkeypatch.setattr(pipelined.Inline, "submit", between_batches)
    rebuild(hall, ["company"], batch=20)
    monkeypatch.undo()

    assert len(seen) >= 5 and set(seen) == {"DomainRebuildingError"}  # never a partial handoff
    assert states(reader) == before
    reader.store.dispose()


def test_while_a_domain_is_marked_every_command_on_it_is_refused_and_other_domains_go_on(hall: Hall) -> None:
    rebuilding.mark(hall.store, "company")

    for act in (lambda: hall.write("codex", "company", draft(text="x")),
                lambda: states(hall),
                lambda: sessions.wrap_up(hall, "codex", "company", "done")):
        with pytest.raises(DomainRebuildingError, match="'company' is being rebuilt \\(since 20"):
            act()
    assert hall.write("codex", "family", draft(text="family goes on")).entry_id  # the fixture's second domain
    rebuilding.clear(hall.store, "company")
    assert hall.write("codex", "company", draft(text="x")).entry_id


def test_a_rebuild_that_failed_leaves_the_domain_closed_until_one_succeeds(
        hall: Hall, monkeypatch: pytest.MonkeyPatch) -> None:
    fill(hall, 30)
    before = states(hall)

    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("the machine went away")

    monkeypatch.setattr("memhall.governance.rebuild.replay", broken)
    with pytest.raises(RuntimeError):
        rebuild(hall, ["company"])
    monkeypatch.undo()

    with pytest.raises(DomainRebuildingError, match="run `memhall rebuild` again"):
        states(hall)
    rebuild(hall, ["company"])
    assert states(hall) == before


def test_the_fast_handoff_declines_a_domain_being_rebuilt(sqlite_hall: Hall, tmp_path: Path) -> None:
    from memhall.governance.fast_handoff import remember_allowed

    remember_allowed(sqlite_hall, "codex", "company", None, (fast_handoff.HANDOFF,))
    store = Path(sqlite_hall.store.url.removeprefix("sqlite:///"))
    found = fast_handoff.allowed(store, None, "codex", "company")
    assert found is not None
    found.conn.close()

    rebuilding.mark(sqlite_hall.store, "company")

    assert fast_handoff.allowed(store, None, "codex", "company") is None


def test_a_store_older_than_its_settings_table_gets_one_and_is_read_as_before(
        hall: Hall, store_url: str, policies: PolicySet) -> None:
    fill(hall, 6)
    before = states(hall)
    with hall.store.write() as conn:
        conn.exec_driver_sql("DROP TABLE mh_settings")
    later = Hall(Store(store_url), policies)  # the next process, of this version

    assert states(later) == before
    later.store.dispose()


def test_a_second_rebuild_while_one_runs_is_refused_and_changes_nothing(hall: Hall) -> None:
    from memhall.domains.errors import RebuildRunningError

    fill(hall, 6)
    before = states(hall)

    with rebuilding.exclusive(hall.store):  # a rebuild under way, in another process as far as the store knows
        with pytest.raises(RebuildRunningError, match="under way in another process"):
            rebuild(hall, ["company"])
        assert states(hall) == before  # not marked, not emptied

    assert rebuild(hall, ["company"]) == {"company": hall.streams.event_count("company")}
    assert states(hall) == before


def test_a_writer_with_the_domain_open_is_refused_once_another_process_marks_it_and_writes_nothing(
        hall: Hall, store_url: str, policies: PolicySet) -> None:
    assert hall.write("codex", "company", draft(text="before the rebuild")).entry_id  # the stream is open
    events = hall.streams.event_count("company")
    rebuilder = Hall(Store(store_url), policies)  # the rebuild's process

    rebuilding.mark(rebuilder.store, "company")

    for text in ("during the rebuild", "before the rebuild"):  # a new entry, and a duplicate
        with pytest.raises(DomainRebuildingError, match="'company' is being rebuilt"):
            hall.write("codex", "company", draft(text=text))
    assert hall.streams.event_count("company") == events
    rebuilding.clear(rebuilder.store, "company")
    assert hall.write("codex", "company", draft(text="during the rebuild")).duplicate_of is None
    rebuilder.store.dispose()


def test_on_postgresql_a_write_reads_the_mark_in_its_lock_round_trip_once_its_stream_is_open(
        postgres_hall: Hall, monkeypatch: pytest.MonkeyPatch) -> None:
    looked: list[str] = []
    check = rebuilding.check
    monkeypatch.setattr(rebuilding, "check", lambda store, domain: (looked.append(domain), check(store, domain)))

    postgres_hall.write("codex", "company", draft(text="opens the stream"))
    postgres_hall.write("codex", "company", draft(text="the stream is open"))
    postgres_hall.write_many("codex", "company", [draft(text="a batch looks on its own")])

    assert looked == ["company", "company"]  # the first write, and the batch: not the second write


def test_on_postgresql_an_edited_mark_keeps_every_domain_closed_until_a_rebuild_writes_it_again(
        postgres_hall: Hall) -> None:
    from sqlalchemy import text

    postgres_hall.write("codex", "company", draft(text="before the edit"))  # the stream is open
    events = postgres_hall.streams.event_count("company")
    for edited in ("not json", "[1, 2]"):
        with postgres_hall.store.write() as conn:
            conn.execute(text("DELETE FROM mh_settings WHERE key = 'rebuilding'"))
            conn.execute(text("INSERT INTO mh_settings (key, value) VALUES ('rebuilding', :v)"), {"v": edited})
        for act in (lambda: postgres_hall.write("codex", "company", draft(text="in the lock's round trip")),
                    lambda: states(postgres_hall)):
            with pytest.raises(DomainRebuildingError, match="the mark was edited"):
                act()
    assert postgres_hall.streams.event_count("company") == events

    rebuild(postgres_hall, ["company"])

    assert postgres_hall.write("codex", "company", draft(text="after the rebuild")).duplicate_of is None
