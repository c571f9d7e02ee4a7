"""Memory dynamics benchmark (issue 15): run by hand, `python benchmarks/dynamics_bench.py`.

Prints, on one store of N entries (default 100,000) written through the hall:
- what encoding adds to a write (the lexicon encoder, per entry),
- `consolidate` and `wander` wall times over the whole store,
- the cost the dynamics add to one recall: `memhall recall` (as codex,
  recording nothing) without and with them (target: at most +20 %),
- the recall eval (benchmarks/recall_eval.py, the multi-agent story) with the
  dynamics off (`fused-dynamics`) and on (`fused`, what `memhall recall` does):
  fused R@5 must not drop.

    python benchmarks/dynamics_bench.py                    # 100k entries
    python benchmarks/dynamics_bench.py --size 20000 --keep /tmp/dyn   # reuse the store later
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from freezegun import freeze_time  # noqa: E402

from benchmarks.evaluation.datasets import load_multiagent  # noqa: E402
from benchmarks.evaluation.ingest import DOMAIN, VOCABULARY, Context, principal  # noqa: E402
from benchmarks.evaluation.scores import evaluate  # noqa: E402
from benchmarks.evaluation.systems import SYSTEMS, TOP, Answer  # noqa: E402
from benchmarks.evaluation.datasets import Question  # noqa: E402
from memhall.domains.dynamics.config import DynamicsConfig  # noqa: E402
from memhall.domains.entry import Tags, draft  # noqa: E402
from memhall.governance import consolidation, wandering  # noqa: E402
from memhall.governance.encodings import default_encoder, encoded  # noqa: E402
from memhall.governance.hall import Hall  # noqa: E402
from memhall.governance.store import Store  # noqa: E402
from memhall.ledgers.recall.observer import MAX_TOKENS, recall  # noqa: E402
from memhall.policies.engine import PolicySet  # noqa: E402

CONFIG = DynamicsConfig()
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
DAYS = 100
BATCH = 2000
PEOPLE = [f"person{i}" for i in range(300)]
PLACES = [f"place{i}" for i in range(60)]
TOPICS = [f"topic{i}" for i in range(150)]
FEELINGS = ("happy", "proud", "worried", "angry", "calm", "sad", "excited", "tired", "grateful", "")


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def clocked(fn: Callable[[], Any]) -> tuple[str, Any]:
    """"W s wall (C s CPU)": on a shared machine the CPU time is the steadier figure."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return f"{time.perf_counter() - wall:.2f} s wall ({time.process_time() - cpu:.2f} s CPU)", out


def build(path: Path, size: int, seed: int = 15) -> Hall:
    """`size` episodes by codex over DAYS days, tagged from small vocabularies (Zipf-like),
    some of them emotional; a reused store is kept as it is."""
    fresh = not path.exists()
    hall = Hall(Store(f"sqlite:///{path}"), PolicySet.load(None))
    if not fresh:
        return hall
    hall.create_domain("maki", "company")
    rng = random.Random(seed)
    weights = [1 / (rank + 1) for rank in range(len(VOCABULARY))]
    started = time.perf_counter()
    for start in range(0, size, BATCH):
        n = min(BATCH, size - start)
        moment = T0 + timedelta(days=DAYS * (start + n) / size)
        drafts = [draft(layer="L2", kind="episode",
                        text=" ".join(rng.choices(VOCABULARY, weights, k=rng.randint(6, 16)))
                        + f" {rng.choice(FEELINGS)} ({start + i})",
                        tags=Tags(people=tuple(rng.sample(PEOPLE[: 10 + rng.randint(0, 290)], rng.randint(1, 2))),
                                  places=tuple(rng.sample(PLACES, rng.randint(0, 1))),
                                  topics=tuple(rng.sample(TOPICS, rng.randint(0, 2)))))
                  for i in range(n)]
        with freeze_time(moment):
            hall.write_many("codex", "company", drafts)
        print(f"  wrote {start + n:,} entries ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    return hall


def encoding_cost(n: int = 5000) -> float:
    """Microseconds the lexicon encoder adds to one write."""
    rng = random.Random(1)
    encoder = default_encoder()
    drafts = [draft(layer="L2", text=" ".join(rng.choices(VOCABULARY, k=12)) + f" {rng.choice(FEELINGS)}")
              for _ in range(n)]
    seconds, _ = timed(lambda: [encoded(encoder, d, "codex", T0) for d in drafts])
    return 1e6 * seconds / n


def recall_cost(hall: Hall, queries: int, seed: int = 3) -> dict[str, float]:
    """Median ms of one recall (as codex, recording nothing) without and with the dynamics."""
    rng = random.Random(seed)
    asks = [(" ".join(rng.sample(VOCABULARY[40:], 3)), Tags(people=(rng.choice(PEOPLE[:40]),)))
            for _ in range(queries)]
    as_of = T0 + timedelta(days=DAYS)
    plain: list[float] = []
    dynamic: list[float] = []
    cpu_plain: list[float] = []
    cpu_dynamic: list[float] = []
    for task, tags in asks * 2:  # the first pass warms the caches
        for on, wall_times, cpu_times in ((False, plain, cpu_plain), (True, dynamic, cpu_dynamic)):
            start, cpu_start = time.perf_counter(), time.process_time()
            with freeze_time(as_of):
                recall(hall, "codex", "company", task, tags=tags, max_items=10, record=False,
                       dynamics=CONFIG, with_dynamics=on)
            wall_times.append(time.perf_counter() - start)
            cpu_times.append(time.process_time() - cpu_start)
    base, withd = statistics.median(plain[queries:]) * 1000, statistics.median(dynamic[queries:]) * 1000
    cpu_base, cpu_withd = sum(cpu_plain[queries:]), sum(cpu_dynamic[queries:])
    return {"recall_ms": base, "with_dynamics_ms": withd, "added_percent": 100 * (withd - base) / base,
            "cpu_recall_ms": 1000 * cpu_base / queries, "cpu_with_dynamics_ms": 1000 * cpu_withd / queries,
            "cpu_added_percent": 100 * (cpu_withd - cpu_base) / cpu_base}


def fused_without_dynamics(context: Context, question: Question) -> Answer:
    """`memhall recall` as the asking observer with the dynamics left out of the order."""
    done = recall(context.hall, principal(question.observer), DOMAIN, question.text, max_items=TOP,
                  max_tokens=MAX_TOKENS, record=False, with_dynamics=False)
    return Answer([i.id for i in done.items], abstained=done.abstained)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000, help="entries in the store")
    parser.add_argument("--queries", type=int, default=30, help="recalls timed")
    parser.add_argument("--keep", type=Path, help="build (or reuse) the store in this folder")
    parser.add_argument("--skip-eval", action="store_true", help="leave out the recall eval")
    args = parser.parse_args(argv)
    print(f"load average at start: {' '.join(open('/proc/loadavg').read().split()[:3])}")
    with tempfile.TemporaryDirectory(prefix="dynamics-bench-") as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        print(f"encoding: {encoding_cost():.0f} µs per write (lexicon encoder)")
        built, hall = timed(lambda: build(folder / f"dynamics-{args.size}.db", args.size))
        print(f"store: {args.size:,} entries ready in {built:.0f} s")
        as_of = T0 + timedelta(days=DAYS)
        took, done = clocked(lambda: consolidation.run(hall, "codex", "company", CONFIG, as_of=as_of))
        print(f"consolidate: {took} ({done.episodes:,} episodes in the window, "
              f"{len(done.notes)} notes, {sum(n.new for n in done.notes)} new)")
        took, again = clocked(lambda: consolidation.run(hall, "codex", "company", CONFIG, as_of=as_of))
        print(f"consolidate again: {took} ({sum(n.new for n in again.notes)} new notes)")
        took, walk = clocked(lambda: wandering.run(hall, "codex", "company", CONFIG, seed=7, anyway=True))
        print(f"wander: {took} ({len(walk.path)} nodes visited, {len(walk.insights)} insights)")
        took, again_walk = clocked(lambda: wandering.run(hall, "codex", "company", CONFIG, seed=7, anyway=True))
        print(f"wander again, same seed: {took} ({sum(i.new for i in again_walk.insights)} new insights, "
              f"same path: {again_walk.path == walk.path})")
        cost = recall_cost(hall, args.queries)
        print(f"recall ({args.queries} queries, medians): {cost['recall_ms']:.1f} ms wall, with dynamics "
              f"{cost['with_dynamics_ms']:.1f} ms (+{cost['added_percent']:.1f} %); CPU "
              f"{cost['cpu_recall_ms']:.1f} ms, with dynamics {cost['cpu_with_dynamics_ms']:.1f} ms "
              f"(+{cost['cpu_added_percent']:.1f} %); target at most +20 %")
        hall.store.dispose()
        if not args.skip_eval:
            SYSTEMS["fused-dynamics"] = fused_without_dynamics
            with tempfile.TemporaryDirectory(prefix="dynamics-eval-") as fresh:
                report = evaluate(load_multiagent(), ["fused-dynamics", "fused"], Path(fresh))
            for name in ("fused-dynamics", "fused"):
                row = report.scores(name)
                print(f"recall eval (multi-agent story), {name}: R@1 {100 * row['R@1']:.1f} %  "
                      f"R@5 {100 * row['R@5']:.1f} %  R@10 {100 * row['R@10']:.1f} %  p50 {row['p50_ms']:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
