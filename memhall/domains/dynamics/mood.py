"""Mood: an observer's emotional undertone, which reweights retrieval slightly and is never shown as text."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from memhall.domains.dynamics.config import MoodConfig
from memhall.domains.dynamics.encoding import Emotion
from memhall.domains.dynamics.record import MemoryRecord


@dataclass(frozen=True)
class Mood:
    observer: str
    valence: float
    arousal: float
    #: how many memories it was drawn from
    count: int


def mood(observer: str, records: Iterable[MemoryRecord], as_of: datetime, config: MoodConfig) -> Mood:
    """The weighted mean of the emotions of the observer's `window` newest memories up to
    `as_of` (the i-th newest weighs decay**i); `records` are the memories the observer holds.
    Proposals of the dynamics are not experiences and do not count."""
    lived = [r for r in records if r.occurred_at <= as_of and not r.proposed_by_a_dynamic]
    recent = sorted(lived, key=lambda r: (r.occurred_at, r.id), reverse=True)[: config.window]
    if not recent:
        return Mood(observer=observer, valence=0.0, arousal=0.0, count=0)
    weights = [config.decay ** i for i in range(len(recent))]
    total = sum(weights)
    return Mood(
        observer=observer,
        valence=sum(w * r.emotion.valence for w, r in zip(weights, recent, strict=True)) / total,
        arousal=sum(w * r.emotion.arousal for w, r in zip(weights, recent, strict=True)) / total,
        count=len(recent),
    )


def mood_factor(current: Mood, emotion: Emotion, config: MoodConfig) -> float:
    """Mood-congruent recall: a memory whose valence shares the mood's sign weighs a little
    more, one of the opposite sign a little less; within 1 ± max_reweight."""
    return congruence(current, emotion.valence, config)


def congruence(current: Mood, valence: float, config: MoodConfig) -> float:
    """`mood_factor` of a memory's valence alone."""
    return 1 + config.max_reweight * current.valence * valence


def is_calm(current: Mood, config: MoodConfig) -> bool:
    """Wandering suits a calm mind (seed 001: a low-arousal emotional undertone)."""
    return current.arousal <= config.calm_arousal
