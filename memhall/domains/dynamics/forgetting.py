"""The forgetting curve: strength from age and reviews, and the retrieval weight it implies.

strength = s0 · exp(−t / stability), stability = base · (1 + reviews · boost),
t counted in days from the last review (or from occurred_at when there is none)
to the as-of time. A faded memory only weighs less in retrieval: nothing is
deleted, and `show` still finds it (seed 001: "想不起来了，但隐约记得").
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from memhall.domains.dynamics.config import ForgettingConfig
from memhall.domains.dynamics.record import MemoryRecord

_DAY = 86_400.0
#: The curve never reaches zero; floating point would after ~745 stabilities.
_SMALLEST = math.ulp(0.0)


def stability(reviews: int, config: ForgettingConfig) -> float:
    """In days."""
    return config.base_stability_days * (1 + reviews * config.review_boost)


def strength(s0: float, elapsed_days: float, reviews: int, config: ForgettingConfig) -> float:
    """In (0, s0]; a moment in the future counts as no time at all."""
    decayed = s0 * math.exp(-max(0.0, elapsed_days) / stability(reviews, config))
    return max(decayed, _SMALLEST)


@dataclass(frozen=True)
class Retention:
    """How well a memory is held as of a time, and what that does to its retrieval."""

    strength: float
    stability_days: float
    reviews: int
    elapsed_days: float
    faded: bool
    #: multiply the memory's retrieval score by this (1, or the faded weight)
    weight: float


def retention(occurred_at: datetime, reviews: Iterable[datetime], as_of: datetime,
              config: ForgettingConfig, *, s0: float | None = None) -> Retention:
    """Reviews after `as_of` were not known then, and do not count."""
    known = sorted(r for r in reviews if r <= as_of)
    since = max(occurred_at, known[-1]) if known else occurred_at
    elapsed = max(0.0, (as_of - since).total_seconds() / _DAY)
    now = strength(config.initial_strength if s0 is None else s0, elapsed, len(known), config)
    faded = now < config.threshold
    return Retention(strength=now, stability_days=stability(len(known), config),
                     reviews=len(known), elapsed_days=elapsed, faded=faded,
                     weight=config.faded_weight if faded else 1.0)


def retention_of(record: MemoryRecord, as_of: datetime, config: ForgettingConfig) -> Retention:
    return retention(record.occurred_at, record.reviews, as_of, config)
