"""Beliefs benchmark (issue 11): run by hand, `python benchmarks/beliefs_bench.py`.

On one store of N entries (default 100,000) written through the hall's batched path —
hearsay claims from a few tellers on a few topics, 1 % of them told to gemini — prints:
- evidence events per second: `memhall evidence` recorded one at a time through the hall
  (policy, R(B, e) over the root's evidence, trust), each in its own transaction,
- the cost of one correction (trust lost on the topic, the teller's other hearsay re-scored),
- `beliefs --holder gemini` latency (a seat: only what it was told or handed),
- `beliefs --holder claude` latency (a chair: the whole domain, newest 1,000),
- `why` latency on a claim with evidence.

    python benchmarks/beliefs_bench.py                          # 100k entries
    python benchmarks/beliefs_bench.py --size 20000 --keep /tmp/beliefs.db
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from freezegun import freeze_time  # noqa: E402

from memhall.domains.belief import EvidenceKind  # noqa: E402
from memhall.domains.entry import Tags, draft  # noqa: E402
from memhall.domains.values import SourceKind  # noqa: E402
from memhall.governance import beliefs, evidence  # noqa: E402
from memhall.governance.hall import Hall  # noqa: E402
from memhall.governance.store import Store  # noqa: E402
from memhall.policies.engine import PolicySet  # noqa: E402

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
DAYS = 100
BATCH = 2000
TELLERS = ("codex", "gemini", "claude")
TOPICS = [f"topic{i}" for i in range(40)]


def clocked(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def build(path: Path, size: int, seed: int = 11) -> tuple[Hall, list[str]]:
    fresh = not path.exists()
    hall = Hall(Store(f"sqlite:///{path}"), PolicySet.load(None))
    if fresh:
        hall.create_domain("maki", "company")
        rng = random.Random(seed)
        started = time.perf_counter()
        for start in range(0, size, BATCH):
            n = min(BATCH, size - start)
            moment = T0 + timedelta(days=DAYS * (start + n) / size)
            drafts = []
            for i in range(n):
                teller = rng.choice(TELLERS)
                drafts.append(draft(
                    layer="L2", kind="claim", text=f"claim {start + i} about {rng.choice(TOPICS)}",
                    tags=Tags(topics=(rng.choice(TOPICS),)),
                    addressees=("gemini",) if rng.random() < 0.01 else (),
                    provenance={"source_kind": "hearsay", "source_agent_id": teller}))
            with freeze_time(moment):
                hall.write_many("maki", "company", drafts)
            print(f"  wrote {start + n:,} entries ({time.perf_counter() - started:.0f} s)",
                  file=sys.stderr)
    stream = hall.streams.stream("company")
    with hall.store.read() as conn:
        x = stream.tables.entries
        ids = [str(i) for i in conn.execute(x.select().with_only_columns(x.c.id)
                                            .order_by(x.c.created_position)).scalars()]
    return hall, ids


def untouched(hall: Hall, ids: list[str]) -> list[str]:
    """Claims with no evidence yet (a reused store keeps earlier runs' evidence)."""
    stream = hall.streams.stream("company")
    with hall.store.read() as conn:
        e = stream.tables.evidence
        touched = set(conn.execute(e.select().with_only_columns(e.c.claim_entry)).scalars())
    return [i for i in ids if i not in touched]


def evidence_rate(hall: Hall, ids: list[str], count: int, seed: int = 5) -> tuple[float, float]:
    """Evidence events per second (wall, CPU), each through the hall in its own transaction,
    on claims nobody had recorded evidence on (support or a first doubt)."""
    rng = random.Random(seed)
    targets = rng.sample(untouched(hall, ids), count)
    kinds = (EvidenceKind.SUPPORTS, EvidenceKind.CONTRADICTS)

    def run() -> None:
        for target in targets:
            evidence.record(hall, "maki", "company", UUID(target), rng.choice(kinds),
                            source_kind=SourceKind.FIRSTHAND, text="seen")

    wall, cpu, _ = clocked(run)
    return count / wall, count / cpu


def correction_cost(hall: Hall, ids: list[str]) -> tuple[float, float, int]:
    """Wall and CPU ms of the correction of one rumour (its second firsthand contradiction):
    the teller loses trust on the topic and its other hearsay there is re-scored."""
    target = UUID(untouched(hall, ids)[0])
    evidence.record(hall, "maki", "company", target, EvidenceKind.CONTRADICTS, text="not so")
    wall, cpu, done = clocked(lambda: evidence.record(hall, "maki", "company", target,
                                                      EvidenceKind.CONTRADICTS, text="so"))
    return 1000 * wall, 1000 * cpu, len(done.rescored)


def latency(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """Median wall and CPU milliseconds over `repeat` runs after one warm-up."""
    fn()
    walls, cpus, out = [], [], None
    for _ in range(repeat):
        wall, cpu, out = clocked(fn)
        walls.append(wall)
        cpus.append(cpu)
    return 1000 * statistics.median(walls), 1000 * statistics.median(cpus), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--evidence", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="Store file to create or reuse.")
    args = parser.parse_args()
    path = args.keep or Path(tempfile.mkdtemp()) / "beliefs.db"
    hall, ids = build(path, args.size)
    print(f"store: {len(ids):,} entries ({path})")
    wall_rate, cpu_rate = evidence_rate(hall, ids, args.evidence)
    print(f"evidence: {wall_rate:.0f} events/s wall ({cpu_rate:.0f}/s CPU), "
          f"{args.evidence} recorded one by one")
    wall, cpu, moved = correction_cost(hall, ids)
    print(f"one correction: {wall:.0f} ms wall ({cpu:.0f} ms CPU), re-scoring {moved:,} "
          "hearsay claims of the caught-out teller on the topic")
    for holder in ("gemini", "claude"):
        wall, cpu, view = latency(lambda: beliefs.beliefs(hall, "maki", "company", holder=holder),
                                  args.repeat)
        print(f"beliefs --holder {holder}: {wall:.0f} ms wall ({cpu:.0f} ms CPU), "
              f"{len(view.beliefs):,} beliefs")
    wall, cpu, _ = latency(lambda: beliefs.why_of(hall, "maki", "company", UUID(ids[-1])),
                           args.repeat)
    print(f"why: {wall:.0f} ms wall ({cpu:.0f} ms CPU)")


if __name__ == "__main__":
    main()
