"""The memory dynamics as recall uses them: one read of the observer's memory, one pure weighing.

How a recall plugs them in (SPEC §7; seed 001):

    snap = read_snapshot(conn, stream, gate, observer, pool_ids, config)   # in recall's read
    weights = weigh(pool_ids, as_of, snap, active=task_tags)              # pure
    final[id] *= weights[id].factor   # only for candidates a relevance channel found
    handed = ...budget...
    tier = tiers(ranked_ids, len(handed), config.tiers)                   # for --explain
    Recall.Recorded(..., nudges=nudges(handed, as_of, snap))              # reconsolidation

Multiplying only among relevant candidates keeps the dynamics from pulling in
a memory that nothing in the task is about: they reorder, they never recall.
Every factor is bounded (forgetting ×0.9 once faded, a wandering insight weighs
0.1, mood ±10 %, activation up to +10 %, salience ±10 %), and none is shown as
text: only `--explain` shows them (strength, reviews, tier and each factor).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Connection

from memhall.domains.dynamics.config import DynamicsConfig
from memhall.domains.dynamics.record import WANDERING
from memhall.domains.dynamics.weighing import Snapshot, Weights, nudges, tiers, weigh
from memhall.governance import memory_records as records
from memhall.governance.streams import DomainStream

__all__ = ["INSIGHTS", "Snapshot", "Weights", "explained", "nudges", "read_snapshot", "reweighed",
           "tiers", "weigh"]

#: recorded insights read per recall (their weak links spread activation)
INSIGHTS = 200


def read_snapshot(conn: Connection, stream: DomainStream, gate: object, observer: str,
                  ids: Iterable[str], config: DynamicsConfig) -> Snapshot:
    """Everything `weigh` and `nudges` need, in the caller's read transaction: the pool's
    records with the observer's reviews, its recent memories, the recorded insights and
    the nudges earlier recalls gave it (a handful of indexed queries, bounded by the pool)."""
    scope = records.Scope.of(gate, observer, stream.name)
    wanted = list(dict.fromkeys(ids))
    return Snapshot(
        observer=observer,
        records=records.by_ids(conn, stream, scope, wanted, text=False),
        recent=records.recent(conn, stream, scope, config.mood.window),
        insights=records.proposals(conn, stream, WANDERING, limit=INSIGHTS, text=False),
        nudges=records.nudge_sums(conn, stream, observer, wanted),
        config=config,
    )


def reweighed(scores: Mapping[str, float], weights: Mapping[str, Weights],
              relevant: Iterable[str]) -> dict[str, float]:
    """Scores with the dynamics multiplied in, for the relevant candidates only."""
    lifted = set(relevant)
    return {i: s * weights[i].factor if i in lifted and i in weights else s for i, s in scores.items()}


def explained(weights: Weights | None, tier: str) -> dict[str, Any]:
    """What `recall --explain` shows of the dynamics for one item (never the mood as text)."""
    if weights is None:
        return {"tier": tier}
    return {"strength": round(weights.strength, 4), "reviews": weights.reviews, "faded": weights.faded,
            "tier": tier, "retention": weights.retention, "source": weights.source,
            "mood": round(weights.mood, 4), "activation": round(weights.activation, 4),
            "salience": round(weights.salience, 4), "dynamics_factor": round(weights.factor, 4)}
