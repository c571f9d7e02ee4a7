"""Fusion: one score per candidate from its channel ranks, salience, recency and confidence.

The channels are fused by reciprocal-rank fusion (Cormack, Clarke & Büttcher,
SIGIR 2009): fused = Σ_c w_c / (K + rank_c). Why ranks and not a weighted sum
of raw scores: the channels' scores live on incomparable scales (BM25 is
unbounded and shifts as the corpus grows, tag overlap is a small count,
recency is a time, authority a layer), so a weighted sum would need per-channel
normalization whose constants drift with the domain. RRF needs no calibration,
one channel's outlier cannot swamp the others, an entry found by several
channels rises above one found by a single channel, and it is a pure function
of the ranks, hence deterministic. K = 60 is the published default, which damps
the difference between the first few ranks of any one list.

The fused score is then shaped by three bounded factors (each at most halves
or adds a quarter, so none can overturn the channels on its own):
salience by kind (a decision matters more than an episode), recency decay
(half-life 30 days, counted from the newest entry of the pool, never from the
wall clock, so that re-running is byte-identical) and the entry's confidence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from memhall.ledgers.recall import Candidate, Pool

K = 60
WEIGHTS = {"lexical": 1.0, "entity": 1.0, "authority": 0.75, "claim": 0.5, "recent": 0.5}
SALIENCE = {
    "decision": 1.0, "lesson": 0.8, "claim": 0.6, "quote": 0.6, "state": 0.4,
    "handoff": 0.4, "wrap-up": 0.4, "open-loop": 0.3, "episode": 0.3,
}
SALIENCE_BOOST = 0.25
HALF_LIFE_DAYS = 30.0


@dataclass(frozen=True)
class Scored:
    candidate: Candidate
    #: channel -> (rank from 1, the channel's raw score)
    channels: dict[str, tuple[int, float]]
    fused: float
    salience: float
    recency: float
    final: float

    @property
    def id(self) -> str:
        return self.candidate.id

    def found_by(self, *channels: str) -> bool:
        return any(c in self.channels for c in channels)


def fuse(pool: Pool) -> list[Scored]:
    """Every candidate of the pool, best first; ties broken by id."""
    ranks: dict[str, dict[str, tuple[int, float]]] = {i: {} for i in pool.candidates}
    for channel, ranked in sorted(pool.channels.items()):
        for index, (ident, raw) in enumerate(ranked):
            ranks[ident][channel] = (index + 1, raw)
    by_authority = sorted(pool.candidates.values(), key=_authority_key)
    for index, c in enumerate(by_authority):
        ranks[c.id]["authority"] = (index + 1, float(c.rank))
    newest = pool.newest
    scored = [_score(c, ranks[c.id], newest) for c in pool.candidates.values()]
    return sorted(scored, key=lambda s: (-s.final, s.id))


def _authority_key(c: Candidate) -> tuple[int, int, int, str]:
    """L4 > L3 > L2 > L1, then the more confident, then the newer."""
    return (-c.rank, -c.confidence, -c.created_position, c.id)


def _score(c: Candidate, channels: dict[str, tuple[int, float]], newest: datetime | None) -> Scored:
    fused = sum(WEIGHTS[name] / (K + rank) for name, (rank, _) in channels.items())
    salience = SALIENCE.get(c.kind, 0.3)
    recency = decay(c.created_at, newest)
    final = fused * (1 + SALIENCE_BOOST * salience) * (0.5 + 0.5 * recency) * (0.5 + c.confidence / 200)
    return Scored(c, dict(sorted(channels.items())), fused, salience, recency, final)


def decay(moment: datetime, newest: datetime | None) -> float:
    """1.0 for the newest entry, halving every HALF_LIFE_DAYS before it."""
    if newest is None:
        return 1.0
    days = max(0.0, (newest - moment).total_seconds() / 86400)
    return math.pow(0.5, days / HALF_LIFE_DAYS)
