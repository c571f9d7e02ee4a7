"""Materialization latency at 1k and 100k entries (a measurement, not a test).

Run: PYTHONPATH=. python -m tests.ledgers.latency [1000 100000]
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from memhall.domains.entry import Entry, draft
from memhall.domains.values import Layer
from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.ledgers.materialize import materialize
from memhall.policies.engine import PolicySet

BATCH = 1000
WORDS = [f"w{n}" for n in range(3000)] + ["billing", "invoice", "payroll", "audit", "migration"]
TOPICS = [f"topic{n}" for n in range(300)] + ["billing", "payroll"]
PEOPLE = [f"person{n}" for n in range(200)] + ["maki"]


def fill(hall: Hall, count: int, rng: random.Random) -> float:
    stream = hall.streams.stream("company")
    started = time.perf_counter()
    for start in range(0, count, BATCH):
        batch = []
        for n in range(start, min(count, start + BATCH)):
            kind = rng.choice(["claim", "episode", "decision", "lesson", "quote"])
            author = "maki" if kind == "quote" else "codex"
            text = " ".join(rng.choices(WORDS, k=rng.randint(6, 30))) + f" #{n}"
            written = draft(text=text, layer="L2", kind=kind,
                          tags={"topics": rng.sample(TOPICS, 2), "people": rng.sample(PEOPLE, 1)},
                          provenance={"claim_root_id": f"root{rng.randint(0, count // 5)}"})
            batch.append(Entry.write("company", written, actor=author, rule="bench", implanted=50))
        for entry in batch[:: 50]:
            entry.promote(Layer.L3, promotion_id=None, answers={}, actor="maki", rule="bench")
        with hall.store.write() as session:
            stream.save(session, *batch)
    return time.perf_counter() - started


def measure(count: int, runs: int = 7) -> None:
    rng = random.Random(count)
    with tempfile.TemporaryDirectory() as folder:
        hall = Hall(Store(f"sqlite:///{Path(folder) / 'bench.db'}"), PolicySet.load(None))
        hall.create_domain("maki", "company")
        filled = fill(hall, count, rng)
        tasks = ["review the billing migration", "payroll audit for maki", "w17 w230 w1999 invoice"]
        timings = []
        for run in range(runs):
            started = time.perf_counter()
            done = materialize(hall, "claude", "company", seat="gemini", task=tasks[run % len(tasks)])
            timings.append(time.perf_counter() - started)
        hall.store.dispose()
    print(f"{count:>7} entries (filled in {filled:.1f}s): materialize median "
          f"{statistics.median(timings) * 1000:.0f} ms, max {max(timings) * 1000:.0f} ms "
          f"(B={len(done.ledgers.b)}, C={len(done.ledgers.c)}, A={len(done.ledgers.a)})")


if __name__ == "__main__":
    for size in [int(a) for a in sys.argv[1:]] or [1000, 100000]:
        measure(size)
