"""The projection path's instructions per event (issue 14): a stored log replayed into emptied
read models on a SQLite file, stopping after a phase, to run under callgrind.

    python benchmarks/projection_bench.py build /tmp/p.db 3000      # fill()'s corpus, wrap-ups
    for n in 0 3140; do PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python benchmarks/projection_bench.py replay /tmp/p.db $n 4; done

(instructions at N minus those at 0) / N is the cost of an event. Phases: 1 read and decode
the events, 2 and `ops_for` each, 3 and `Projector.prefetch/apply`, 4 and `flush` (the
encoding and SQLite's inserts). The replay runs in a transaction it rolls back, so the same
file serves every run. Wall time on a shared machine moves more than the changes measured.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def build(path: str, size: int) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import run  # noqa: PLC0415 - the corpus run.py's scale section replays

    from memhall.governance import sessions

    hall = run.new_hall(f"sqlite:///{path}")
    run.fill(hall, size)
    for i in range(20):
        sessions.wrap_up(hall, "codex", "company", f"state x{i}", opens=[f"loop x{i}"])
    print(hall.streams.event_count("company"), "events")


def replay(path: str, n: int, phase: int) -> None:
    import orjson

    from memhall.governance.projection import ops_for
    from memhall.governance.projection.apply import Projector, SqlBackend
    from memhall.governance.projection.ops import Merge
    from memhall.governance.projection.schema import READ_MODELS, SEARCH
    from memhall.governance.replay import KEPT, collector_paused

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    for spec in (*READ_MODELS, SEARCH):
        conn.execute(f"DELETE FROM mh_company_{spec.suffix}")
    rows = conn.execute("SELECT id, topic, state FROM mh_company_events ORDER BY id LIMIT ?", (n,)).fetchall()
    projector = Projector(SqlBackend(conn, "sqlite", "mh_company_"), keep=KEPT)
    with collector_paused():
        states = [(position, topic, orjson.loads(data)) for position, topic, data in rows]
        batch = [ops_for(topic, state, position) for position, topic, state in states] if phase >= 2 else []
        if phase >= 3:
            projector.prefetch([op for ops in batch for op in ops if type(op) is Merge])
            for ops in batch:
                projector.apply(ops)
        if phase >= 4:
            projector.flush()
    conn.execute("ROLLBACK")


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2], int(sys.argv[3]))
    else:
        replay(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
