"""On PostgreSQL a write prepared before its domain's lock is locked, checked, appended and
committed in one round trip (`at_once`): the server computes its position, chain link and
time, and writes the rows the projection made. What it stores is what the lock path stores
(the chain verifies, a rebuild stores the same bytes, the event decodes to the same bytes);
anything the preparation assumed that no longer holds sends the write under the lock."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from memhall.audit.verify import ChainSource, verify_store
from memhall.domains.entry import draft
from memhall.domains.errors import DomainRebuildingError, MemhallError
from memhall.governance import at_once, rebuilding
from memhall.governance.hall import Hall
from memhall.governance.rebuild import rebuild
from memhall.governance.recompute import verify_read_models
from memhall.governance.store import Store
from memhall.governance.tables import tables_for
from tests.governance.test_rebuild import stored_bytes

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def outcomes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int | None]]:
    """What each one-round-trip attempt returned (its position, or None: not written)."""
    seen: list[int | None] = []
    real = at_once.append

    def append(*args: Any, **kwargs: Any) -> int | None:
        seen.append(real(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(at_once, "append", append)
    yield seen


@pytest.fixture
def warm(postgres_hall: Hall, outcomes: list[int | None]) -> Hall:
    """A PostgreSQL hall that has written once (its charter read): `outcomes` holds the writes after."""
    postgres_hall.write("codex", "company", draft(text="warm-up"))
    outcomes.clear()
    return postgres_hall


def chain_ok(hall: Hall, domain: str = "company") -> bool:
    t = tables_for(domain)
    with hall.store.read() as conn:
        (report,) = verify_store(conn, [ChainSource(domain, t.events_name, t.chain.name)])
    return report.ok


def audit_times(hall: Hall) -> list[tuple[int, str]]:
    with hall.store.read() as conn:
        return [(int(p), str(a)) for p, a in conn.execute(text(
            "SELECT position, at FROM mh_company_audit ORDER BY position"))]


def test_prepared_writes_go_in_one_round_trip_and_store_what_the_lock_path_stores(
        warm: Hall, outcomes: list[int | None]) -> None:
    hall = warm
    hall.write("codex", "company", draft(text="the payroll audit moved", tags={"topics": ("payroll",)}))
    hall.write("codex", "company", draft(text="told and present, myself among them", participants=("codex", "claude"),
                                         addressees=("codex", "gemini")))
    hall.write("gemini", "company", draft(text="the billing migration starts monday", tags={"topics": ("payroll",)},
                                          idempotency_key="gemini-1"))
    hall.write("codex", "company", draft(text="it happened last week",
                                         occurred_at=datetime.now(timezone.utc) - timedelta(days=7)))

    assert len(outcomes) == 4 and None not in outcomes
    assert outcomes == sorted(outcomes) and len(set(outcomes)) == 4
    assert chain_ok(hall)
    assert all(report.ok for report in verify_read_models(hall.streams))
    with hall.store.read() as conn:
        thread = conn.execute(text("SELECT entries, position FROM mh_company_threads WHERE thread = 'payroll'")).one()
        exposure = conn.execute(text("SELECT count(*) FROM mh_company_exposure WHERE position = :p"),
                                {"p": outcomes[1]}).scalar()
        events = conn.execute(text("SELECT originator_version, topic, state FROM mh_company_events "
                                   "WHERE id = ANY(:ids) ORDER BY id"), {"ids": outcomes}).all()
    assert tuple(thread) == (2, outcomes[2])  # the second write to the thread counted one more
    assert exposure == 3  # codex wrote it (and was told, and present: one row), gemini told, claude present
    stream = hall.streams.stream("company")
    for _version, _topic, state in events:  # the time went in where the stand-in was: the same bytes
        decoded = stream.mapper.transcoder.decode(bytes(state))
        assert stream.mapper.transcoder.encode(decoded) == bytes(state)
        assert at_once.STAND_IN_TIME.isoformat()[:10] not in bytes(state).decode()
    before = stored_bytes(hall)
    rebuild(hall)
    assert stored_bytes(hall) == before


WORDS = ["alpha", "beta", "gamma", str(at_once.STAND_IN), "9999-12-31T23:59:59.999999Z"]
SEATS = ["codex", "gemini", "claude", "maki"]
written = st.fixed_dictionaries({
    "text": st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join),
    "layer": st.sampled_from(["L1", "L2"]),
    "kind": st.sampled_from(["episode", "state", "open-loop", "claim"]),
    "tags": st.fixed_dictionaries({"topics": st.lists(st.sampled_from(WORDS[:3]), max_size=2).map(tuple),
                                   "people": st.lists(st.sampled_from(SEATS), max_size=2).map(tuple)}),
    "addressees": st.lists(st.sampled_from(SEATS), max_size=2).map(tuple),
    "participants": st.lists(st.sampled_from(SEATS), max_size=2).map(tuple),
    "idempotency_key": st.one_of(st.none(), st.sampled_from(["k1", "k2"])),
    "thread": st.one_of(st.none(), st.sampled_from(WORDS)),
}, optional={"occurred_at": st.integers(1, 90).map(lambda d: datetime.now(timezone.utc) - timedelta(days=d))})


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["codex", "maki", "gemini"]), written), min_size=1, max_size=12))
def test_whatever_is_written_at_once_a_rebuild_stores_the_same_bytes(
        postgres_hall: Hall, outcomes: list[int | None], writes: list[tuple[str, dict[str, Any]]]) -> None:
    hall = postgres_hall
    for actor, fields in writes:
        try:
            hall.write(actor, "company", draft(**fields))
        except MemhallError:
            pass  # a refusal is part of the history too
    before = stored_bytes(hall)

    rebuild(hall)

    assert stored_bytes(hall) == before
    assert chain_ok(hall)


def test_a_writers_text_holding_the_stand_ins_is_stored_as_written(
        warm: Hall, outcomes: list[int | None]) -> None:
    hall = warm
    said = f"{at_once.STAND_IN}:{at_once.STAND_IN_TIME.isoformat()} and 9999-12-31T23:59:59.999999Z"
    hall.write("codex", "company", draft(text=said, thread=f"{at_once.STAND_IN}:codex",
                                         tags={"people": (str(at_once.STAND_IN),)}))

    assert outcomes[0] is not None
    with hall.store.read() as conn:
        stored = conn.execute(text("SELECT text, thread, people FROM mh_company_entries WHERE position = :p"),
                              {"p": outcomes[0]}).one()
        thread = conn.execute(text("SELECT thread FROM mh_company_threads WHERE position = :p"),
                              {"p": outcomes[0]}).scalar()
    assert tuple(stored) == (said, f"{at_once.STAND_IN}:codex", f'["{at_once.STAND_IN}"]')
    assert thread == f"{at_once.STAND_IN}:codex"
    assert all(report.ok for report in verify_read_models(hall.streams))


def test_a_processs_first_write_reads_the_charter_before_the_lock_and_goes_at_once(
        postgres_hall: Hall, outcomes: list[int | None]) -> None:
    """A CLI command writes once: its write takes the lock in the round trip of its append too."""
    url = postgres_hall.store.write_engine.url.render_as_string(hide_password=False)
    fresh = Hall(Store(url), postgres_hall.gate)
    try:
        written = fresh.write("codex", "company", draft(text="a command's only write"))
        connections = fresh.store.write_engine.pool.checkedin()  # type: ignore[attr-defined]
    finally:
        fresh.store.dispose()

    assert outcomes == [outcomes[0]] and outcomes[0] is not None
    assert connections == 1  # the charter read before the lock took no second connection
    assert written.entry_id and chain_ok(postgres_hall)


def test_a_repeated_write_and_a_replayed_key_are_decided_under_the_lock(
        warm: Hall, outcomes: list[int | None]) -> None:
    hall = warm
    first = hall.write("codex", "company", draft(text="the NAS is full", idempotency_key="k1"))
    again = hall.write("gemini", "company", draft(text="the NAS is full"))
    replay = hall.write("codex", "company", draft(text="the NAS is full", idempotency_key="k1"))

    assert outcomes[0] is not None and outcomes[1:] == [None, None]
    assert again.duplicate_of == first.entry_id
    assert replay.replayed and replay.entry_id == first.entry_id
    assert chain_ok(hall)


def test_an_edited_charter_row_sends_the_write_under_the_lock(
        warm: Hall, outcomes: list[int | None]) -> None:
    """The charter is checked by its last event's row version, not its bytes: an edit that
    leaves them as they were still moves it."""
    hall = warm
    charter = hall.seal.charter_ident("company") if hall.seal is not None else None
    with hall.store.write() as conn:
        conn.execute(text("UPDATE mh_company_events SET state = state WHERE originator_id = :c"), {"c": charter})

    written = hall.write("codex", "company", draft(text="after the edit"))

    assert outcomes == [None]
    assert written.entry_id and chain_ok(hall)


@pytest.mark.parametrize("edited", ["not a time", "2026-13-45T99:99:99.000001Z", "9999-12-31T23:59:59.999999Z"])
def test_an_edited_last_time_is_not_taken_for_the_logs_and_the_write_goes_under_the_lock(
        warm: Hall, outcomes: list[int | None], edited: str) -> None:
    hall = warm
    with hall.store.write() as conn:
        conn.execute(text("UPDATE mh_company_audit SET at = :at WHERE position = "
                          "(SELECT max(position) FROM mh_company_audit)"), {"at": edited})

    written = hall.write("codex", "company", draft(text="after the edit"))

    assert outcomes == [None]
    assert written.entry_id and chain_ok(hall)
    assert audit_times(hall)[-1][1] < "9999"  # the write's own time


@pytest.mark.parametrize(("last", "taken"), [
    ("2027-02-01T00:00:00.100000Z", True),   # within the second after the clock's: the log's time
    ("2027-01-31T23:59:60.100000Z", False),  # no such second
    ("2027-01-32T00:00:00.100000Z", False),  # no such day, though it sorts within that second
    ("2027-02-01T00:00:01.100000Z", False),  # more than a second ahead
])
def test_a_last_time_ahead_of_the_clock_is_taken_only_when_it_is_a_time_within_the_second(
        postgres_hall: Hall, outcomes: list[int | None], last: str, taken: bool) -> None:
    hall = postgres_hall
    with freeze_time("2027-01-31T23:59:59.700000Z", tick=False):
        hall.write("codex", "company", draft(text="warm-up"))
        outcomes.clear()  # the writes after the warm-up
        with hall.store.write() as conn:
            conn.execute(text("UPDATE mh_company_audit SET at = :at WHERE position = "
                              "(SELECT max(position) FROM mh_company_audit)"), {"at": last})
        hall.write("codex", "company", draft(text="a clock just behind the log"))

    assert (outcomes[0] is not None) is taken
    assert audit_times(hall)[-1][1] == (last if taken else "2027-01-31T23:59:59.700000Z")
    assert chain_ok(hall)


def test_a_domain_being_rebuilt_refuses_the_write_and_stores_nothing(
        warm: Hall, outcomes: list[int | None]) -> None:
    hall = warm
    before = audit_times(hall)
    rebuilding.mark(hall.store, "company")
    try:
        with pytest.raises(DomainRebuildingError):
            hall.write("codex", "company", draft(text="while it is rebuilt"))
    finally:
        rebuilding.clear(hall.store, "company")

    assert outcomes == [None] and audit_times(hall) == before


def test_a_clock_slightly_behind_the_log_takes_the_logs_last_time(
        warm: Hall, outcomes: list[int | None]) -> None:
    """Another writer's clock ran ahead by half a second: the time never runs backwards."""
    hall = warm
    last = datetime.fromisoformat(audit_times(hall)[-1][1].replace("Z", "+00:00"))
    with freeze_time(last - timedelta(seconds=0.5, microseconds=-7)):
        hall.write("codex", "company", draft(text="from a clock behind"))

    assert outcomes[0] is not None
    times = audit_times(hall)
    assert times[-1][1] == times[-2][1]  # the log's last time, not the clock's


def test_a_clock_far_behind_the_log_keeps_its_own_time_under_the_lock(
        warm: Hall, outcomes: list[int | None]) -> None:
    hall = warm
    with freeze_time("2026-03-02T09:00:00.250000Z"):
        hall.write("codex", "company", draft(text="a frozen clock"))

    assert outcomes == [None]
    assert audit_times(hall)[-1][1] == "2026-03-02T09:00:00.250000Z"


WRITER = """
import sys
from memhall.domains.entry import draft
from memhall.governance import at_once
from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.policies.engine import PolicySet
hall = Hall(Store(sys.argv[1]), PolicySet.load(None), warn=lambda _message: None)
hall.write("codex", "company", draft(text=f"warm-up {sys.argv[2]}"))
real, at_once_count = at_once.append, []
def counted(*args, **kwargs):
    position = real(*args, **kwargs)
    at_once_count.append(position is not None)
    return position
at_once.append = counted
for i in range(25):
    hall.write("codex", "company", draft(text=f"writer {sys.argv[2]} note {i}", tags={"topics": ("shared",)}))
print(sum(at_once_count))
"""


def test_writers_taking_turns_keep_one_chain_contiguous_positions_and_times_in_order(postgres_hall: Hall) -> None:
    hall = postgres_hall
    url = hall.store.write_engine.url.render_as_string(hide_password=False)
    processes = [subprocess.Popen([sys.executable, "-c", WRITER, url, str(n)], cwd=ROOT, env={"PYTHONPATH": str(ROOT)},
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for n in range(4)]
    outs = [process.communicate(timeout=120) for process in processes]

    assert all(process.returncode == 0 for process in processes), [err for _, err in outs]
    assert sum(int(out) for out, _ in outs) >= 50  # most went in one round trip
    times = audit_times(hall)
    assert [p for p, _ in times] == list(range(1, len(times) + 1))
    assert [a for _, a in times] == sorted(a for _, a in times)
    assert chain_ok(hall)
    with hall.store.read() as conn:
        assert conn.execute(text("SELECT entries FROM mh_company_threads WHERE thread = 'shared'")).scalar() == 100
    assert all(report.ok for report in verify_read_models(hall.streams))
