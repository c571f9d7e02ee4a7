"""Several processes writing one store at once all succeed and lose nothing
(a SQLite file; PostgreSQL too when configured)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path
from uuid import uuid4

import pytest
from sqlalchemy import func, select, text

from memhall.domains.entry import draft
from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.governance.tables import tables_for
from memhall.policies.engine import PolicySet

ROOT = Path(__file__).resolve().parents[2]

WRITER = """
import sys
import threading
from memhall.domains.entry import draft
from memhall.domains.entry import draft
from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.policies.engine import PolicySet
hall = Hall(Store(sys.argv[1]), PolicySet.load(None))
for n in range(int(sys.argv[3])):
    hall.write("codex", "company", draft(text=f"writer {sys.argv[2]} note {n}"))
"""


def test_four_processes_writing_fifty_entries_each_lose_nothing(store_url: str) -> None:
    url = store_url
    hall = Hall(Store(url), PolicySet.load(None))
    hall.create_domain("maki", "company")

    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, url, str(w), "50"], cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT)}, stderr=subprocess.PIPE, text=True)
        for w in range(4)
    ]
    errors = [w.communicate(timeout=300)[1] for w in writers]

    assert [w.returncode for w in writers] == [0, 0, 0, 0], errors
    tables = tables_for("company")
    with hall.store.read() as conn:
        entries = conn.execute(select(func.count()).select_from(tables.entries)).scalar_one()
        positions = [r[0] for r in conn.execute(text(f"SELECT id FROM {tables.events_name} ORDER BY id"))]
        chained = [r[0] for r in conn.execute(select(tables.chain.c.position).order_by(tables.chain.c.position))]
    assert entries == 200
    assert positions == list(range(1, 203))  # the domain's opening, its charter, 200 writes, no gap
    assert chained == positions


def test_on_postgresql_writers_of_one_domain_never_wait_for_another_domain(store_url: str) -> None:
    if not store_url.startswith("postgresql"):
        pytest.skip("SQLite has one write lock per file: its writers take turns whatever their domain")
    hall = Hall(Store(store_url), PolicySet.load(None))
    hall.create_domain("maki", "company")
    hall.create_domain("maki", "family")
    company = hall.streams.stream("company")
    name = f"memhall_behind_{uuid4().hex[:8]}"
    blocked = ("SELECT count(*) FROM pg_stat_activity WHERE application_name = :name "
               "AND wait_event_type = 'Lock' AND :holder = ANY(pg_blocking_pids(pid))")

    def writer(domain: str, name: str, n: int, app: str = "") -> subprocess.Popen[str]:
        script = WRITER.replace('"company"', repr(domain))
        url = f"{store_url}{'&' if '?' in store_url else '?'}application_name={app}" if app else store_url
        return subprocess.Popen([sys.executable, "-c", script, url, name, str(n)], cwd=ROOT,
                                env={"PYTHONPATH": str(ROOT)}, stderr=subprocess.PIPE, text=True)

    watching = Store(store_url)
    with hall.writing(company) as session, watching.write_engine.connect() as watcher:
        holder = session.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()  # holds company's head row
        behind = writer("company", "c", 2, name)
        while not watcher.execute(text(blocked), {"name": name, "holder": holder}).scalar_one():
            assert behind.poll() is None, behind.communicate()[1]
            watcher.rollback()
            time.sleep(0.05)
        watcher.rollback()
        family = [writer("family", f"f{i}", 5) for i in range(4)]  # while the company writer waits
        errors = [w.communicate(timeout=300)[1] for w in family]
        still_blocked = watcher.execute(text(blocked), {"name": name, "holder": holder}).scalar_one()
    watching.dispose()
    behind_error = behind.communicate(timeout=300)[1]

    assert [w.returncode for w in family] == [0] * 4, errors
    assert still_blocked == 1  # the company writer waited on the company lock throughout, and only on it
    assert behind.returncode == 0, behind_error
    with hall.store.read() as conn:
        assert conn.execute(select(func.count()).select_from(tables_for("family").entries)).scalar_one() == 20
        assert conn.execute(select(func.count()).select_from(tables_for("company").entries)).scalar_one() == 2
    hall.store.dispose()


def test_on_postgresql_a_writer_that_waited_for_the_lock_sees_the_same_memory_written_meanwhile(
        store_url: str) -> None:
    if not store_url.startswith("postgresql"):
        pytest.skip("SQLite's writers take its one write lock before they read anything")
    hall = Hall(Store(store_url), PolicySet.load(None))
    hall.create_domain("maki", "company")
    name = f"memhall_waiter_{uuid4().hex[:8]}"
    script = WRITER.replace('f"writer {sys.argv[2]} note {n}"', '"the export job moved to fridays"')
    with hall.writing(hall.streams.stream("company")):  # the domain's lock, held until the block ends
        hall.write("codex", "company", draft(text="the export job moved to fridays"))
        behind = subprocess.Popen(
            [sys.executable, "-c", script, f"{store_url}{'&' if '?' in store_url else '?'}application_name={name}",
             "w", "1"], cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, stderr=subprocess.PIPE, text=True)
        wait_until_waiting_on_a_lock(store_url, name, behind)
    error = behind.communicate(timeout=300)[1]

    assert behind.returncode == 0, error
    tables = tables_for("company")
    with hall.store.read() as conn:
        stored = conn.execute(select(func.count()).select_from(tables.entries)
                              .where(tables.entries.c.text == "the export job moved to fridays")).scalar_one()
    assert stored == 1  # the waiter's duplicate check ran once it held the lock
    hall.store.dispose()


#: a process (by its PostgreSQL application_name) waiting for a lock
_WAITING = ("SELECT count(*) FROM pg_stat_activity WHERE application_name = :name "
            "AND wait_event_type = 'Lock'")


def wait_until_waiting_on_a_lock(store_url: str, name: str, process: subprocess.Popen[str]) -> None:
    """Until the process whose connections are named `name` waits for a lock (or has ended)."""
    watching = Store(store_url)
    with watching.write_engine.connect() as watcher:
        while not watcher.execute(text(_WAITING), {"name": name}).scalar_one() and process.poll() is None:
            watcher.rollback()
            time.sleep(0.05)
    watching.dispose()


def test_on_postgresql_a_domain_s_lock_is_its_store_s_own_not_every_schema_s_domain_of_that_name(
        postgres_hall: Hall, policies: PolicySet) -> None:
    """A writer takes its domain's advisory lock, keyed by the domain's head table: another store
    (a schema of the same database) with a domain of the same name does not wait for it."""
    from tests.conftest import POSTGRES_URL, postgres_schema_url

    schema = f"t_{uuid4().hex[:12]}"
    admin = Store(POSTGRES_URL)
    with admin.write_engine.connect() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
        conn.commit()
    other = Hall(Store(postgres_schema_url(schema)), policies)
    other.create_domain("maki", "company")
    done: list[str] = []
    try:
        with postgres_hall.writing(postgres_hall.streams.stream("company")):  # this store's company lock
            elsewhere = threading.Thread(target=lambda: done.append(
                other.write("codex", "company", draft(text="written in the other store")).entry_id))
            elsewhere.start()
            elsewhere.join(timeout=20)
            finished_while_held = not elsewhere.is_alive()
        elsewhere.join()
    finally:
        other.store.dispose()
        with admin.write_engine.connect() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
            conn.commit()
        admin.dispose()

    assert finished_while_held
    assert len(done) == 1
