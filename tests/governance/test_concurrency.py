"""Several processes writing one store at once all succeed and lose nothing
(a SQLite file; PostgreSQL too when configured)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select, text

from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.governance.tables import tables_for
from memhall.policies.engine import PolicySet

ROOT = Path(__file__).resolve().parents[2]

WRITER = """
import sys
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

    def writer(domain: str, name: str, n: int) -> subprocess.Popen[str]:
        script = WRITER.replace('"company"', repr(domain))
        return subprocess.Popen([sys.executable, "-c", script, store_url, name, str(n)], cwd=ROOT,
                                env={"PYTHONPATH": str(ROOT)}, stderr=subprocess.PIPE, text=True)

    with hall.writing(company):  # holds the company domain's head row until the block ends
        behind = writer("company", "c", 1)
        family = [writer("family", f"f{i}", 5) for i in range(2)]
        errors = [w.communicate(timeout=300)[1] for w in family]
        still_waiting = behind.poll() is None
    behind_error = behind.communicate(timeout=300)[1]

    assert [w.returncode for w in family] == [0, 0], errors
    assert still_waiting  # a company writer waits for the company lock, and only for it
    assert behind.returncode == 0, behind_error
    tables = tables_for("family")
    with hall.store.read() as conn:
        assert conn.execute(select(func.count()).select_from(tables.entries)).scalar_one() == 10
    hall.store.dispose()
