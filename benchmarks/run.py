"""memhall benchmarks: run by hand (`python benchmarks/run.py [--quick]`), never in the suite.

Every figure is printed with its baseline measured in the same run, so the
ratios hold on any machine. Stores are scratch SQLite files in a temp dir.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from eventsourcing.persistence import EventStore  # noqa: E402
from eventsourcing_sqlalchemy.datastore import SQLAlchemyDatastore  # noqa: E402
from eventsourcing_sqlalchemy.recorders import SQLAlchemyApplicationRecorder  # noqa: E402
from sqlalchemy.orm import sessionmaker  # noqa: E402

from memhall.domains.entry import Entry, draft  # noqa: E402
from memhall.domains.values import Layer  # noqa: E402
from memhall.governance import sessions  # noqa: E402
from memhall.governance.hall import Hall  # noqa: E402
from memhall.governance.mapper import new_mapper  # noqa: E402
from memhall.governance.store import Store  # noqa: E402
from memhall.policies.engine import PolicySet  # noqa: E402
from memhall.policies.model import Action, Decision, PolicyRequest, ResourceType  # noqa: E402

POLICY = PolicySet.load(None)


class AllowAll:
    """The baseline for what the policy costs: no decision work at all."""

    def decide(self, request: PolicyRequest) -> Decision:
        return Decision(allowed=True, rule_id="bench", message="", request=request)


def rate(n: int, seconds: float) -> str:
    return f"{n / seconds:,.0f}/s"


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def new_hall(folder: Path, name: str, gate: Any = POLICY) -> Hall:
    hall = Hall(Store(f"sqlite:///{folder / name}"), gate)
    hall.create_domain("maki", "company")
    return hall


def bare_saver(folder: Path) -> Callable[[int], None]:
    """A bare eventsourcing-sqlalchemy save of a similar event, one per transaction."""
    store = Store(f"sqlite:///{folder / 'bare.db'}")
    datastore = SQLAlchemyDatastore(session_maker=sessionmaker(bind=store.write_engine))
    recorder = SQLAlchemyApplicationRecorder(datastore, events_table_name="bare_events")
    recorder.create_table()
    events = EventStore(new_mapper(), recorder)

    def save(i: int) -> None:
        entry = Entry.write("company", draft(text=f"bare note {i}"), actor="codex", rule="r", implanted=50)
        with datastore.transaction(commit=True) as session:
            events.put(entry.collect_events(), session=session)

    return save


def interleaved(writers: dict[str, Callable[[int], None]], n: int) -> dict[str, float]:
    """Total seconds per writer, taking turns write by write, so that drift in
    the machine's speed (fsync, the other core) falls on every writer alike."""
    spent = dict.fromkeys(writers, 0.0)
    for i in range(n):
        for name, write in writers.items():
            start = time.perf_counter()
            write(i)
            spent[name] += time.perf_counter() - start
    return spent


WORDS = [f"w{n}" for n in range(3000)] + ["billing", "invoice", "payroll", "audit", "migration"]
TOPICS = [f"topic{n}" for n in range(300)] + ["billing", "payroll"]
PEOPLE = [f"person{n}" for n in range(200)] + ["maki"]
TASK = "prepare the payroll audit for billing migration"


def fill(hall: Hall, total: int, batch: int = 1000) -> None:
    """A varied corpus (3,000-word vocabulary, quotes by the human, 2% at L3),
    saved straight to the stream in batches like an import; then wrap-ups."""
    rng = random.Random(total)
    stream = hall.streams.stream("company")
    for start in range(0, total, batch):
        entries = []
        for n in range(start, min(total, start + batch)):
            kind = rng.choice(["claim", "episode", "decision", "lesson", "quote"])
            text = " ".join(rng.choices(WORDS, k=rng.randint(6, 30))) + f" #{n}"
            written = draft(text=text, layer="L2", kind=kind,
                            tags={"topics": rng.sample(TOPICS, 2), "people": rng.sample(PEOPLE, 1)},
                            provenance={"claim_root_id": f"root{rng.randint(0, total // 5)}"})
            entries.append(Entry.write("company", written, actor="maki" if kind == "quote" else "codex",
                                       rule="bench-import", implanted=50))
        for entry in entries[::50]:
            entry.promote(Layer.L3, promotion_id=None, answers={}, actor="maki", rule="bench-import")
        with hall.store.write() as session:
            stream.save(session, *entries)
    for i in range(3):
        sessions.wrap_up(hall, "codex", "company", f"state {i}", opens=[f"loop {i}"])


def median_ms(fn: Callable[[], Any], repeat: int = 15) -> float:
    fn()
    return statistics.median(timed(fn) for _ in range(repeat)) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="10k instead of 100k entries")
    args = parser.parse_args()
    big = 10_000 if args.quick else 100_000
    n = 300
    with tempfile.TemporaryDirectory(prefix="memhall-bench-") as tmp:
        folder = Path(tmp)
        print(f"# memhall benchmarks (SQLite file, {n} single writes; big domain = {big:,} entries)\n")

        halls = {
            "policy": new_hall(folder, "policy.db"),
            "allow": new_hall(folder, "allow.db", AllowAll()),
        }
        writers: dict[str, Callable[[int], None]] = {"bare": bare_saver(folder)}
        for name, hall in halls.items():
            writers[name] = (lambda h: lambda i: h.write("codex", "company", draft(text=f"note {i}")))(hall)
        t = interleaved(writers, n)
        bare, written, allowed = t["bare"], t["policy"], t["allow"]
        batch_hall = new_hall(folder, "batch.db")
        batched = timed(lambda: batch_hall.write_many(
            "codex", "company", [draft(text=f"batched {i}") for i in range(n * 10)]))
        print("## writes (interleaved write by write)")
        print(f"bare eventsourcing-sqlalchemy save : {rate(n, bare)} (baseline)")
        print(f"memhall write, one per call         : {rate(n, written)} = {bare / written:.2f}x baseline")
        print(f"memhall batched import (write_many) : {rate(n * 10, batched)} = "
              f"{(n * 10 / batched) / (n / bare):.2f}x baseline")
        print(f"write with an allow-all gate        : {rate(n, allowed)}; the Cedar policy makes a write "
              f"take {written / allowed:.2f}x as long")
        print()

        request = PolicyRequest(principal="codex", action=Action.WRITE_L2, domain="company",
                                resource_type=ResourceType.ENTRY, target_layer="L2", kind="claim")
        decisions = 5000
        varied = [request.model_copy(update={"kind": f"k{i}"}) for i in range(decisions)]
        spent = timed(lambda: [POLICY.decide(r) for r in varied])
        print("## policy")
        print(f"decisions (parsed once, distinct requests): {rate(decisions, spent)} "
              f"= {spent / decisions * 1e6:.0f} µs each\n")

        small = new_hall(folder, "small.db")
        fill(small, 1_000)
        large = new_hall(folder, "large.db")
        filled = timed(lambda: fill(large, big))
        h_small = median_ms(lambda: sessions.handoff(small, "codex", "company", open_session=False))
        h_large = median_ms(lambda: sessions.handoff(large, "codex", "company", open_session=False))
        print("## handoff")
        print(f"filled {big:,} entries (import batches of 1,000) in {filled:.1f}s ({rate(big, filled)})")
        print(f"handoff with 1k entries   : {h_small:.2f} ms")
        print(f"handoff with {big // 1000}k entries : {h_large:.2f} ms (ratio {h_large / h_small:.2f}; "
              "an index, not a scan)")
        env = {"PYTHONPATH": str(ROOT), "MEMHALL_AGENT": "codex", "MEMHALL_DOMAIN": "company"}
        cmd = [sys.executable, "-m", "memhall", "--store", str(folder / "large.db"), "handoff", "--no-session"]
        walls = [timed(lambda: subprocess.run(cmd, env=env, capture_output=True, check=True)) for _ in range(5)]
        print(f"`memhall handoff` as a process: {statistics.median(walls) * 1000:.0f} ms wall (median of 5)\n")

        audit_verify(large)
        materialization(small, large, big)


def audit_verify(hall: Hall) -> None:
    from memhall.audit.verify import ChainSource, snapshot, verify_store
    from memhall.governance.tables import tables_for

    t = tables_for("company")
    with snapshot(hall.store.read_engine) as conn:
        start = time.perf_counter()
        (report,) = verify_store(conn, [ChainSource("company", t.events_name, t.chain.name)])
        spent = time.perf_counter() - start
    print("## audit")
    print(f"verify {report.position:,} chained events: {spent:.2f} s ({rate(report.position, spent)}); "
          f"ok={report.ok}\n")


def materialization(small: Hall, large: Hall, big: int) -> None:
    from memhall.ledgers.materialize import materialize

    def run(hall: Hall) -> None:
        materialize(hall, "claude", "company", seat="gemini", task=TASK)

    m_small = median_ms(lambda: run(small), repeat=7)
    m_large = median_ms(lambda: run(large), repeat=7)
    print("## materialization")
    print(f"materialize (task {TASK!r}, recording included)")
    print(f"materialize with 1k entries   : {m_small:.1f} ms")
    print(f"materialize with {big // 1000}k entries : {m_large:.1f} ms (ratio {m_large / m_small:.2f})")

if __name__ == "__main__":
    main()
