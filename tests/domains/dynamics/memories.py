"""Building MemoryRecords for the dynamics tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from memhall.domains.dynamics.encoding import Emotion
from memhall.domains.dynamics.record import MemoryRecord

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def day(n: float) -> datetime:
    return T0 + timedelta(days=n)


def memory(ident: str, *, at: float = 0, valence: float = 0.0, arousal: float = 0.0,
           significance: float = 0.0, feelings: tuple[str, ...] = (), **fields: Any) -> MemoryRecord:
    fields.setdefault("text", f"memory {ident}.")
    return MemoryRecord(
        id=ident, occurred_at=day(at),
        emotion=Emotion(valence=valence, arousal=arousal, significance=significance, tags=feelings),
        **fields,
    )
