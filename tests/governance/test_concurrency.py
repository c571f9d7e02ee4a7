"""Several processes writing one store at once all succeed and lose nothing
(a SQLite file; PostgreSQL too when configured)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
    assert positions == list(range(1, 202))  # the domain's opening + 200 writes, no gap
    assert chained == positions
