"""memhall speed and scale (issue 14): every figure against its goal, in one run.

    python benchmarks/run.py                  # a 100k-event store (about 10 minutes on 2 busy cores)
    python benchmarks/run.py --size 1000000   # builds the 1M-event store and says how long it took
    python benchmarks/run.py --postgres URL   # default: MEMHALL_BENCH_POSTGRES_URL, else the local test db
    python benchmarks/run.py --suite          # also time the test suite as CI runs it

Run by hand, never in the suite. Ratios are taken against a bare
eventsourcing-sqlalchemy save measured in the same run and interleaved with
memhall's writes (turn by turn), so drift in the machine's speed falls on both
alike. Stores are scratch files in a temp dir and a scratch PostgreSQL schema.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from eventsourcing.persistence import EventStore  # noqa: E402
from eventsourcing_sqlalchemy.datastore import SQLAlchemyDatastore  # noqa: E402
from eventsourcing_sqlalchemy.recorders import SQLAlchemyApplicationRecorder  # noqa: E402
from sqlalchemy import create_engine, text  # noqa: E402
from sqlalchemy.orm import sessionmaker  # noqa: E402

from memhall.domains.entry import Entry, EntryDraft, draft  # noqa: E402
from memhall.governance import sessions  # noqa: E402
from memhall.governance.encodings import default_encoder, encoded  # noqa: E402
from memhall.governance.hall import Hall  # noqa: E402
from memhall.governance.mapper import new_mapper  # noqa: E402
from memhall.governance.store import Store  # noqa: E402
from memhall.policies.engine import PolicySet  # noqa: E402
from memhall.policies.model import Action, PolicyRequest, ResourceType  # noqa: E402

POLICY = PolicySet.load(None)
ENCODER = default_encoder()
ROWS: list[tuple[str, str, str, str]] = []
COUNTER = itertools.count()
RUNS = itertools.count(1)  # writer runs: each writes texts of its own
WORDS = [f"w{n}" for n in range(3000)] + ["billing", "invoice", "payroll", "audit", "migration"]
TOPICS = [f"topic{n}" for n in range(300)] + ["billing", "payroll"]


def reference_s() -> float:
    """The best of three runs of a fixed loop of pure Python: how fast this machine is today,
    to set absolute rates beside (the ratios are measured against a baseline in the same run)."""
    def loop() -> None:
        total = 0
        for i in range(5_000_000):
            total += i
    return min(timed(loop) for _ in range(3))


def row(figure: str, goal: str, measured: str, met: bool | None) -> None:
    verdict = {True: "met", False: "NOT MET", None: "-"}[met]
    ROWS.append((figure, goal, measured, verdict))
    print(f"  {figure}: {measured}   (goal {goal}: {verdict})", flush=True)


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# -- stores -------------------------------------------------------------------------


@contextmanager
def postgres_schema(url: str) -> Iterator[str]:
    """A scratch schema on the server, dropped afterwards; its URL."""
    schema = f"bench_{uuid.uuid4().hex[:10]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in url else "?"
    try:
        yield f"{url}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def new_hall(url: str, *domains: str) -> Hall:
    hall = Hall(Store(url), POLICY)
    for domain in domains or ("company",):
        hall.create_domain("maki", domain)
    return hall


def note(i: int | None = None) -> EntryDraft:
    n = next(COUNTER) if i is None else i
    return draft(text=f"note {n}: the payroll audit moved to the billing migration")


class Bare:
    """A bare eventsourcing-sqlalchemy application recorder: the same Entry events (their
    encoding record included), saved with no policy, no dedup, no chain and no read models."""

    def __init__(self, url: str) -> None:
        self.store = Store(url)
        self.datastore = SQLAlchemyDatastore(session_maker=sessionmaker(bind=self.store.write_engine))
        recorder = SQLAlchemyApplicationRecorder(self.datastore, events_table_name="bare_events")
        recorder.create_table()
        self.events = EventStore(new_mapper(), recorder)

    def save(self, entries: list[EntryDraft]) -> None:
        made = [Entry.write("company", e, actor="codex", rule="r", implanted=50,
                            encoding=encoded(ENCODER, e, "codex", _now())) for e in entries]
        with self.datastore.transaction(commit=True) as session:
            self.events.put([event for a in made for event in a.collect_events()], session=session)


def _now() -> Any:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc)


def interleaved(writers: Mapping[str, Callable[[], object]], turns: int) -> dict[str, float]:
    """Seconds per writer, taking turns, so drift in the machine's speed falls on all alike;
    `<name> cpu` is the CPU time this process spent on it (what a busy machine inflates least)."""
    spent = dict.fromkeys([*writers, *(f"{name} cpu" for name in writers)], 0.0)
    for _ in range(turns):
        for name, write in writers.items():
            cpu = time.process_time()
            spent[name] += timed(write)
            spent[f"{name} cpu"] += time.process_time() - cpu
    return spent


# -- the rows -------------------------------------------------------------------------


def single_writes(url: str, label: str, n: int, *, rate_goal: int | None) -> None:
    hall, bare = new_hall(url), Bare(url)
    writers = {"bare": lambda: bare.save([note()]),
               "memhall": lambda: hall.write("codex", "company", note()) and None}
    interleaved(writers, 10)  # warm up
    t = interleaved(writers, n)
    ratio = t["memhall"] / t["bare"]
    row(f"governed write vs bare save, {label}", "<= 1.5x",
        f"{ratio:.2f}x ({t['memhall'] / n * 1000:.2f} ms vs {t['bare'] / n * 1000:.2f} ms; CPU "
        f"{t['memhall cpu'] / n * 1000:.2f} vs {t['bare cpu'] / n * 1000:.2f} ms)", ratio <= 1.5)
    if rate_goal:
        rate = n / t["memhall"]
        row(f"single governed writes/s, {label}", f">= {rate_goal}/s",
            f"{rate:,.0f}/s ({n / t['memhall cpu']:,.0f}/s of CPU time)", rate >= rate_goal)
    hall.store.dispose()
    bare.store.dispose()


def imports(url: str, label: str, batches: int, size: int = 1000) -> None:
    hall, bare = new_hall(url), Bare(url)

    def batch() -> list[EntryDraft]:
        return [note() for _ in range(size)]

    memhall_batches = [batch() for _ in range(batches + 1)]
    bare_batches = [batch() for _ in range(batches + 1)]
    hall.write_many("codex", "company", memhall_batches.pop())
    bare.save(bare_batches.pop())
    t = interleaved({"bare": lambda: bare.save(bare_batches.pop()),
                     "memhall": lambda: hall.write_many("codex", "company", memhall_batches.pop()) and None},
                    batches)
    rate, bare_rate = batches * size / t["memhall"], batches * size / t["bare"]
    ratio = rate / bare_rate
    row(f"write_many import, {label}", ">= 10,000/s and >= 0.6x a bare batched save",
        f"{rate:,.0f}/s = {ratio:.2f}x the bare batched save ({bare_rate:,.0f}/s); CPU time: "
        f"{batches * size / t['memhall cpu']:,.0f}/s vs {batches * size / t['bare cpu']:,.0f}/s",
        rate >= 10_000 and ratio >= 0.6)
    hall.store.dispose()
    bare.store.dispose()


def file_import(folder: Path, label: str, lines: int, rounds: int = 2) -> None:
    """`memhall import` of a JSONL file of `lines` lines into a fresh SQLite store (its batches
    written by a process beside it from 2,000 lines on: the CPU time of both is given), taking
    turns with a bare batched save of as many entries in batches of 1,000, `rounds` times."""
    import json
    import resource

    from memhall.governance import transfer

    def cpu() -> tuple[float, float]:
        mine, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return mine.ru_utime + mine.ru_stime, children.ru_utime + children.ru_stime

    data = [json.dumps({"text": f"note {i}: the payroll audit moved to the billing migration",
                        "tags": [f"topic{i % 7}"], "kind": "claim" if i % 3 else "episode"}).encode()
            for i in range(lines)]
    spent: dict[str, list[float]] = {"memhall": [], "bare": [], "self": [], "writer": []}
    for turn in range(rounds):
        hall = new_hall(f"sqlite:///{folder / f'file{turn}.db'}")
        before = cpu()
        spent["memhall"].append(timed(lambda: transfer.run_import(hall, "codex", "company", transfer.jsonl(data))))
        after = cpu()
        spent["self"].append(after[0] - before[0])
        spent["writer"].append(after[1] - before[1])
        hall.store.dispose()
        bare = Bare(f"sqlite:///{folder / f'bare{turn}.db'}")
        drafts = [note() for _ in range(lines)]

        def bare_import() -> None:
            for at in range(0, lines, 1000):
                bare.save(drafts[at:at + 1000])

        spent["bare"].append(timed(bare_import))
        bare.store.dispose()
    rate, bare_rate = lines / statistics.median(spent["memhall"]), lines / statistics.median(spent["bare"])
    us = {name: statistics.median(spent[name]) / lines * 1e6 for name in ("self", "writer")}
    row(f"memhall import of a {lines:,}-line file, {label}", ">= 10,000/s",
        f"{rate:,.0f}/s = {rate / bare_rate:.2f}x a bare batched save ({bare_rate:,.0f}/s); CPU per line: "
        f"{us['self']:.0f} us here, {us['writer']:.0f} us in the writer beside; median of {rounds}",
        rate >= 10_000)


def decisions(n: int = 5000) -> None:
    """Uncached decisions: each request a question Cedar has not been asked (its domain, a
    fact every write rule reads, differs), so neither the memo nor a batch asking one question
    once applies. Beside it, what a batch of requests that differ only in a fact no write rule
    reads (the author, as an import's lines do) costs: one question, asked once."""
    base = PolicyRequest(principal="codex", action=Action.WRITE_L2, domain="company",
                         resource_type=ResourceType.ENTRY, target_layer="L2", kind="claim")

    def questions(tag: str) -> list[PolicyRequest]:
        return [base.model_copy(update={"domain": f"{tag}{i}"}) for i in range(n)]

    # Cedar's cost per question swings by a third from one process to the next on the same
    # code (measured: 5,800-10,000/s of CPU time): five rounds, each a fresh set, the median.
    rounds: list[tuple[float, float, float, float]] = []
    for r in range(5):
        one, batched_set = PolicySet.load(None), PolicySet.load(None)
        distinct = questions(f"a{r}_")
        cpu = time.process_time()
        alone = timed(lambda: [one.decide(q) for q in distinct])
        alone_cpu = time.process_time() - cpu
        distinct = questions(f"b{r}_")
        cpu = time.process_time()
        batched = timed(lambda: batched_set.decide_batch(distinct))
        rounds.append((batched, time.process_time() - cpu, alone, alone_cpu))
    batched, batched_cpu, alone, alone_cpu = (statistics.median(column) for column in zip(*rounds))
    spread = sorted(n / b for b, *_ in rounds)
    row("uncached policy decisions", ">= 10,000/s",
        f"{n / batched:,.0f}/s batched (decide_batch, as write_many asks; {n / batched_cpu:,.0f}/s of CPU "
        f"time); {n / alone:,.0f}/s one at a time ({n / alone_cpu:,.0f}/s of CPU time); {n:,} distinct "
        f"questions, median of 5 rounds (batched {spread[0]:,.0f}-{spread[-1]:,.0f}/s)", n / batched >= 10_000)
    shared_set = PolicySet.load(None)
    same_question = [base.model_copy(update={"author": f"c{i}"}) for i in range(n)]
    cpu = time.process_time()
    shared = timed(lambda: shared_set.decide_batch(same_question))
    shared_cpu = time.process_time() - cpu
    row("policy decisions, one question (authors differ)", "-",
        f"{n / shared:,.0f}/s batched ({n / shared_cpu:,.0f}/s of CPU time): Cedar is asked once", None)


def fill(hall: Hall, total: int, batch: int = 2000) -> float:
    """A varied corpus in import batches, then a few wrap-ups; seconds taken."""
    rng = random.Random(total)
    start = time.perf_counter()
    shown = 0.0
    for first in range(0, total, batch):
        drafts = [draft(text=" ".join(rng.choices(WORDS, k=rng.randint(6, 20))) + f" #{n}",
                        kind=rng.choice(["claim", "episode", "lesson", "state"]),
                        tags={"topics": rng.sample(TOPICS, 2)})
                  for n in range(first, min(total, first + batch))]
        hall.write_many("codex", "company", drafts)
        if time.perf_counter() - shown > 30:
            shown = time.perf_counter()
            print(f"    ... {first + len(drafts):,} of {total:,} events", flush=True)
    for i in range(3):
        sessions.wrap_up(hall, "codex", "company", f"state {i}", opens=[f"loop {i}"])
    return time.perf_counter() - start


def child(code: str, *args: str) -> dict[str, float]:
    """Run `code` in a fresh interpreter; it prints `key=value` lines."""
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=7200)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return {k: float(v) for k, v in (line.split("=") for line in done.stdout.split() if "=" in line)}


REBUILD = """
import resource, sys, time
from memhall.governance.hall import Hall
from memhall.governance.rebuild import rebuild
from memhall.governance.store import Store
from memhall.policies.engine import PolicySet
hall = Hall(Store(sys.argv[1]), PolicySet.load(None))
# a large rebuild's SQL runs in a writer process beside it: its CPU time and peak RSS count too
def used():
    own, writer = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, writer.ru_utime + writer.ru_stime
start, (cpu, writer_cpu) = time.perf_counter(), used()
counts = rebuild(hall)
seconds, (own, writer) = time.perf_counter() - start, used()
print(f"seconds={seconds} cpu={own - cpu + writer - writer_cpu} own_cpu={own - cpu} "
      f"writer_cpu={writer - writer_cpu} events={sum(counts.values())}")
print(f"rss_mb={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024} "
      f"writer_rss_mb={resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}")
"""

VERIFY = """
import json, os, subprocess, sys, time
# `memhall audit verify` as a user runs it: chains, acts and every read model (the read models
# in a second process beside the chains when the log is long); CPU counts both processes
start = time.perf_counter()
process = subprocess.Popen([sys.executable, "-m", "memhall", "--store", sys.argv[1], "--as", "maki", "--json",
                            "audit", "verify"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
out = process.stdout.read()
_, status, usage = os.wait4(process.pid, 0)
seconds = time.perf_counter() - start
report = json.loads(out)
events = sum(d["events"] for d in report["domains"])
print(f"seconds={seconds} cpu={usage.ru_utime + usage.ru_stime} events={events} ok={int(report['ok'])}")
"""


def scale(url: str, small_url: str, label: str, size: int) -> None:
    hall = new_hall(url)
    built = fill(hall, size)
    events = hall.streams.event_count("company")
    print(f"    built the {events:,}-event store in {built:.0f} s ({events / built:,.0f} events/s, "
          f"import batches of 2,000)", flush=True)
    small = new_hall(small_url)
    fill(small, 1000)
    handoff = medians_ms({"small": lambda: sessions.handoff(small, "codex", "company", open_session=False),
                          "large": lambda: sessions.handoff(hall, "codex", "company", open_session=False)})
    ratio = handoff["large"] / handoff["small"]
    row(f"handoff at {events // 1000:,}k events vs 1k, {label}", "<= 1.2x",
        f"{ratio:.2f}x ({handoff['large']:.2f} ms vs {handoff['small']:.2f} ms, medians of 51 calls taking "
        f"turns; CPU {handoff['large cpu']:.2f} vs {handoff['small cpu']:.2f} ms)", ratio <= 1.2)
    hall.store.dispose()
    small.store.dispose()
    verified = child(VERIFY, url)
    row(f"full audit verify (chain and every read model), {events // 1000:,}k events, {label}",
        "<= 10 s for 100k", f"{verified['seconds']:.1f} s ({verified['events'] / verified['seconds']:,.0f} "
        f"events/s; {verified['cpu']:.1f} s of CPU time; ok={bool(verified['ok'])})", verified["seconds"] * 100_000 / verified["events"] <= 10)
    rebuilt = child(REBUILD, url)
    rate = rebuilt["events"] / rebuilt["seconds"]
    row(f"rebuild, {events // 1000:,}k events, {label}", ">= 20,000 events/s, with progress",
        f"{rate:,.0f} events/s ({rebuilt['seconds']:.1f} s; {rebuilt['cpu']:.1f} s of CPU time: "
        f"{rebuilt['own_cpu']:.1f} s its own, {rebuilt['writer_cpu']:.1f} s its writer's; a bar on a terminal)",
        rate >= 20_000)
    peak = max(rebuilt["rss_mb"], rebuilt["writer_rss_mb"])
    row(f"peak RSS rebuilding {events // 1000:,}k events, {label}", "<= 300 MB at 1M",
        f"{peak:.0f} MB (the larger of the rebuild's {rebuilt['rss_mb']:.0f} MB and its writer's "
        f"{rebuilt['writer_rss_mb']:.0f} MB)", peak <= 300 if events >= 1_000_000 else None)


def medians_ms(fns: dict[str, Callable[[], Any]], repeat: int = 51) -> dict[str, float]:
    """Median ms of each call, wall and (`<name> cpu`) CPU, the calls taking turns so that
    the machine's drift falls on all alike (one untimed call each first)."""
    walls: dict[str, list[float]] = {name: [] for name in fns}
    cpus: dict[str, list[float]] = {name: [] for name in fns}
    for fn in fns.values():
        fn()
    for _ in range(repeat):
        for name, fn in fns.items():
            cpu = time.process_time()
            walls[name].append(timed(fn))
            cpus[name].append(time.process_time() - cpu)
    return {**{name: statistics.median(v) * 1000 for name, v in walls.items()},
            **{f"{name} cpu": statistics.median(v) * 1000 for name, v in cpus.items()}}


WRITER = """
import os, sys, time
from memhall.domains.entry import draft
from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.policies.engine import PolicySet
hall = Hall(Store(sys.argv[1]), PolicySet.load(None))
domain, name, n, start_at = sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
# every write new: a text written before in the domain (by the run before, in the same store)
# would be a duplicate, a corroboration decided under the lock, not the write measured
hall.write("codex", domain, draft(text=f"warm {name}"))

def backends():
    # this writer's PostgreSQL server processes (the server is on this machine, else none)
    if hall.store.dialect != "postgresql":
        return []
    with hall.store.read() as conn:
        pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
    return [pid] if os.path.exists(f"/proc/{pid}/stat") else []

def cpu_of(pids):
    total = 0.0
    for pid in pids:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total

pids = backends()
while time.time() < start_at:
    time.sleep(0.005)
errors, first, cpu, server = 0, time.time(), time.process_time(), cpu_of(pids)
for i in range(n):
    try:
        hall.write("codex", domain, draft(text=f"writer {name} note {i}"))
    except Exception as error:
        errors += 1
        print(repr(error)[:200], file=sys.stderr)
last = time.time()
print(f"first={first} last={last} errors={errors} writes={n} cpu={time.process_time() - cpu} "
      f"server={cpu_of(pids) if pids and pids == backends() else -1}")
"""


class Writers(NamedTuple):
    rate: float  # writes/s over the span from the first start to the last finish
    errors: int
    cpu_ms: float  # the writers' own CPU per write
    server_ms: float  # their PostgreSQL server processes' CPU per write (-1: not measured)
    load: float  # the load average after


def writers(url: str, domains: list[str], processes: int, n: int) -> Writers:
    """`processes` writer processes, spread over `domains`, n writes each."""
    start_at = time.time() + 3 + processes * 0.5  # after every interpreter has started
    run = next(RUNS)
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, url, domains[p % len(domains)], f"{run}.{p}", str(n),
                               str(start_at)], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for p in range(processes)]
    outs = [p.communicate(timeout=3600) for p in procs]
    stats = [{k: float(v) for k, v in (x.split("=") for x in out.split())} for out, _ in outs]
    total = sum(s["writes"] for s in stats)
    span = max(s["last"] for s in stats) - min(s["first"] for s in stats)
    server = -1.0 if any(s["server"] < 0 for s in stats) else sum(s["server"] for s in stats) / total * 1000
    return Writers(total / span, int(sum(s["errors"] for s in stats)), sum(s["cpu"] for s in stats) / total * 1000,
                   server, os.getloadavg()[0])


def cpu_note(w: Writers) -> str:
    server = f" + {w.server_ms:.1f} ms server" if w.server_ms >= 0 else ""
    return f"CPU {w.cpu_ms:.1f} ms client{server} per write, load {w.load:.1f}"


def contention(sqlite_url: str, pg_url: str | None, n: int, rounds: int) -> None:
    new_hall(sqlite_url).store.dispose()
    lite = writers(sqlite_url, ["company"], 16, n)
    row("16 SQLite writer processes, one domain", "0 errors",
        f"{lite.errors} errors in {16 * n:,} writes ({lite.rate:,.0f} writes/s in all, {cpu_note(lite)}; SQLite "
        "has one write lock per file, so its writers take turns whatever their domain)", lite.errors == 0)
    if pg_url is None:
        return
    # The three take turns, round after round, and each ratio is of figures of one round: this
    # machine's speed drifts by a third from one minute to the next, more than the ratios differ.
    alone: list[Writers] = []
    one: list[Writers] = []
    two: list[Writers] = []
    with postgres_schema(pg_url) as url:
        new_hall(url, "company", "family").store.dispose()
        for _ in range(rounds):
            alone.append(writers(url, ["company"], 1, n * 4))
            one.append(writers(url, ["company"], 8, n))
            two.append(writers(url, ["company", "family"], 8, n))
    scaled = sorted(o.rate / a.rate for o, a in zip(one, alone))
    spread = sorted(t.rate / o.rate for t, o in zip(two, one))
    errors = sum(w.errors for w in (*one, *two))
    mid = rounds // 2
    one_m, alone_m, two_m = (sorted(ws, key=lambda w: w.rate)[mid] for ws in (one, alone, two))
    row("8 PostgreSQL writer processes, one domain", ">= 1x one writer's rate (no collapse)",
        f"{statistics.median(scaled):.2f}x one writer (median of {rounds} rounds taking turns: "
        f"{', '.join(f'{r:.2f}' for r in scaled)}; {one_m.rate:,.0f} vs {alone_m.rate:,.0f} writes/s, medians); "
        f"{errors} errors; {cpu_note(one_m)} (one writer: {cpu_note(alone_m)})",
        statistics.median(scaled) >= 1 and errors == 0)
    row("8 PostgreSQL writers over two domains vs one domain", ">= 1.6x",
        f"{statistics.median(spread):.2f}x (median of {rounds} rounds: {', '.join(f'{r:.2f}' for r in spread)}; "
        f"{two_m.rate:,.0f} vs {one_m.rate:,.0f} writes/s, medians); {cpu_note(two_m)}{ceiling(two_m, one_m)}",
        statistics.median(spread) >= 1.6 and errors == 0)


def ceiling(two: Writers, one: Writers) -> str:
    """What this machine's cores allow two domains at most: every core busy with writers and
    their server processes, at the CPU a write took (when the server's is known)."""
    if two.server_ms < 0:
        return ""
    most = (os.cpu_count() or 1) * 1000 / (two.cpu_ms + two.server_ms)
    return (f"; with every core busy at that CPU a write, at most {most:,.0f} writes/s = "
            f"{most / one.rate:.2f}x one domain")


def suite(pg_url: str | None) -> None:
    env = {**os.environ, "MEMHALL_TEST_POSTGRES_URL": pg_url or ""}
    spent = timed(lambda: subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "auto", "-p",
                                          "no:cacheprovider"], cwd=ROOT, env=env, capture_output=True))
    row("test suite, as CI runs it (pytest -n auto, both backends)", "<= 5 min", f"{spent / 60:.1f} min",
        spent <= 300)


SECTIONS = ("writes", "imports", "policy", "writers", "scale")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000, help="events in the big store (default 100,000)")
    parser.add_argument("--postgres", default=os.environ.get(
        "MEMHALL_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"),
        help="a PostgreSQL URL ('' to skip PostgreSQL)")
    parser.add_argument("--writes", type=int, default=300, help="single writes per interleaved comparison")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the PostgreSQL writer rows (default 3)")
    parser.add_argument("--suite", action="store_true", help="also time the test suite as CI runs it")
    parser.add_argument("--sections", default=",".join(SECTIONS),
                        help=f"which parts to run (default all of {','.join(SECTIONS)})")
    args = parser.parse_args()
    pg: str | None = args.postgres or None
    chosen = set(args.sections.split(","))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="memhall-bench-") as tmp:
        folder = Path(tmp)
        print(f"# memhall benchmarks: {os.cpu_count()} cores, load average "
              f"{os.getloadavg()[0]:.1f} at the start; this machine's speed: {reference_s():.2f} s for a "
              "reference loop of pure Python (set absolute rates of two machines beside it)\n", flush=True)
        if "writes" in chosen:
            print("## single writes (interleaved write by write with a bare save)", flush=True)
            single_writes(f"sqlite:///{folder / 'single.db'}", "SQLite", args.writes, rate_goal=700)
            if pg:
                with postgres_schema(pg) as url:
                    single_writes(url, "PostgreSQL", args.writes, rate_goal=None)
        if "imports" in chosen:
            print("## imports (interleaved batch by batch with a bare batched save of the same events)",
                  flush=True)
            imports(f"sqlite:///{folder / 'import.db'}", "SQLite", 10)
            file_import(folder, "SQLite", 20_000)
            if pg:
                with postgres_schema(pg) as url:
                    imports(url, "PostgreSQL", 10)
        if "policy" in chosen:
            print("## policy", flush=True)
            decisions()
        if "writers" in chosen:
            print("## writers at once", flush=True)
            contention(f"sqlite:///{folder / 'writers.db'}", pg, 50, args.rounds)
        if "scale" in chosen:
            print(f"## scale: a {args.size:,}-event store (SQLite)", flush=True)
            scale(f"sqlite:///{folder / 'big.db'}", f"sqlite:///{folder / 'small.db'}", "SQLite", args.size)
        if "scale" in chosen and pg:
            print(f"## scale: a {min(args.size, 100_000):,}-event store (PostgreSQL)", flush=True)
            with postgres_schema(pg) as url, postgres_schema(pg) as small_url:
                scale(url, small_url, "PostgreSQL", min(args.size, 100_000))
        if args.suite or "suite" in args.sections.split(","):
            print("## test suite", flush=True)
            suite(pg)
    load = os.getloadavg()[0]
    print(f"\n## summary ({time.perf_counter() - started:.0f} s; load average {load:.1f} at the end)\n")
    print("| figure | goal | measured | |\n|---|---|---|---|")
    for figure, goal, measured, verdict in ROWS:
        print(f"| {figure} | {goal} | {measured} | {verdict} |")
    if not args.suite:
        print("| test suite, as CI runs it | <= 5 min | not run (pass --suite) | - |")


if __name__ == "__main__":
    main()
