"""Every dynamic is a function of the log and an as-of time: a rebuild reproduces each of them.

Hypothesis writes a random history (emotional writes about a few people and
topics, materializations that hand memories out, recalls whose one event
carries reconsolidation nudges, consolidations and walks), with freezegun
moving the days; then each dynamic is read, the read models are rebuilt from
the log, and each is read again.
"""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from freezegun import freeze_time
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memhall.domains.dynamics.config import DynamicsConfig
from memhall.domains.dynamics.consolidation import consolidate
from memhall.domains.dynamics.forgetting import retention_of
from memhall.domains.dynamics.graph import TagGraph
from memhall.domains.dynamics.incubation import incubation_pool
from memhall.domains.dynamics.mood import mood
from memhall.domains.dynamics.wandering import wander
from memhall.domains.entry import draft
from memhall.domains.recall import Recall
from memhall.governance import consolidation, memory_records, wandering
from memhall.governance.hall import Hall
from memhall.governance.rebuild import rebuild
from memhall.governance.recompute import verify_read_models
from memhall.governance.store import Store
from memhall.ledgers import dynamics_weights
from memhall.ledgers.materialize import materialize
from memhall.policies.engine import PolicySet

CONFIG = DynamicsConfig.model_validate({"wandering": {"exploration_rate": 0.5},
                                        "mood": {"calm_arousal": 1.0}})
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
WORDS = ("happy", "angry", "calm", "worried", "billing", "release", "tea", "proud", "sad")
PEOPLE = ("ana", "bo", "cy")
TOPICS = ("billing", "release")
POLICIES = PolicySet.load(None)

write_op = st.tuples(st.just("write"), st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
                     st.lists(st.sampled_from(PEOPLE), max_size=2), st.lists(st.sampled_from(TOPICS), max_size=1),
                     st.sampled_from(("episode", "claim", "open-loop")))
other_op = st.one_of(st.tuples(st.just("materialize"), st.sampled_from(WORDS)),
                     st.tuples(st.just("recall"), st.sampled_from(("codex", "gemini"))),
                     st.tuples(st.just("consolidate")), st.tuples(st.just("wander"), st.integers(0, 9)))
history = st.lists(st.tuples(st.integers(0, 3), st.one_of(write_op, other_op)), min_size=3, max_size=14)


def day(n: float) -> datetime:
    return T0 + timedelta(days=n)


def act(hall: Hall, op: tuple[Any, ...], serial: int) -> None:
    if op[0] == "write":
        _, words, people, topics, kind = op
        hall.write("codex", "company", draft(
            layer="L2", kind=kind, text=" ".join(words) + (f"? ({serial})" if kind == "open-loop" else f" ({serial})"),
            tags={"people": people, "topics": topics}, addressees=("gemini",)))
    elif op[0] == "materialize":
        materialize(hall, "claude", "company", seat="gemini", task=f"what about {op[1]}")
    elif op[0] == "recall":
        recall(hall, op[1])
    elif op[0] == "consolidate":
        consolidation.run(hall, "codex", "company", CONFIG)
    else:
        wandering.run(hall, "codex", "company", CONFIG, seed=op[1])


def recall(hall: Hall, observer: str) -> None:
    """A recall's one event, as the recall use case records it: the ids it handed, and the
    nudges the dynamics computed for them."""
    stream = hall.streams.stream("company")
    with hall.store.read() as conn:
        held = memory_records.held_records(conn, stream, memory_records.Scope.of(hall.gate, observer, "company"))
        handed = [r.id for r in held][:3]
        snap = dynamics_weights.read_snapshot(conn, stream, hall.gate, observer, handed, CONFIG)
    now = hall.clock()
    moved = dynamics_weights.nudges(handed, now, snap)
    with hall.store.write() as session:
        stream.save(session, Recall(domain="company", observer=observer, query="anything",
                                    handed=tuple(handed), recalled_at=now, actor=observer, rule="test",
                                    nudges=moved))


def dynamics_of(hall: Hall, as_of: datetime) -> dict[str, Any]:
    """Each dynamic, read from the read models as of one time."""
    stream = hall.streams.stream("company")
    seen: dict[str, Any] = {}
    with hall.store.read() as conn:
        for observer in ("codex", "gemini"):
            scope = memory_records.Scope.of(hall.gate, observer, "company")
            held = memory_records.held_records(conn, stream, scope)
            ids = [r.id for r in held]
            snap = dynamics_weights.read_snapshot(conn, stream, hall.gate, observer, ids, CONFIG)
            seen[observer] = {
                "strength": {r.id: retention_of(r, as_of, CONFIG.forgetting) for r in held},
                "mood": mood(observer, held, as_of, CONFIG.mood),
                "weights": dynamics_weights.weigh(ids, as_of, snap, active=PEOPLE[:1]),
                "nudges": dynamics_weights.nudges(ids, as_of, snap),
                "graph": TagGraph.build(held).links,
                "walk": wander(TagGraph.build(held), seed=3, config=CONFIG.wandering),
            }
        everything = memory_records.held_records(conn, stream, None)
        seen["incubation"] = incubation_pool(everything)
        seen["consolidation"] = consolidate(
            memory_records.episodes_since(conn, stream, None, as_of - timedelta(days=7)), as_of,
            CONFIG.consolidation)
    return seen


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history)
def test_a_rebuild_reproduces_every_dynamic(steps: list[tuple[int, tuple[Any, ...]]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = Store(f"sqlite:///{Path(folder) / 'memhall.db'}")
        try:
            hall = Hall(store, POLICIES)
            with freeze_time(day(0)):
                hall.create_domain("maki", "company")
            moment = 0.0
            for serial, (gap, op) in enumerate(steps):
                moment += gap + 0.1
                with freeze_time(day(moment)):
                    act(hall, op, serial)
            as_of = day(moment + 5)
            before = dynamics_of(hall, as_of)

            rebuild(hall)

            assert dynamics_of(hall, as_of) == before
            assert all(r.ok for r in verify_read_models(hall.streams))
        finally:
            store.dispose()
