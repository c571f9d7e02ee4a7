"""The numbers of SPEC §5 and the confidence arithmetic of each revision step."""

from __future__ import annotations

from datetime import timedelta

#: reinforce: supporting evidence adds this much, never above CEILING
REINFORCE_STEP = 8
CEILING = 100
#: doubt: contradicting evidence takes this much, never below DOUBT_FLOOR
DOUBT_STEP = 20
DOUBT_FLOOR = 10
#: anomaly: a strong or abnormal conflict takes this much. The seed names no floor; we
#: use the doubt's floor because an anomaly is still a contradiction, and "contradiction
#: is not immediate correction" (S0 §10): only firsthand evidence replaces an understanding.
#: The anomaly's strength shows in its larger step and its own state, not in reaching 0.
ANOMALY_STEP = 30
ANOMALY_FLOOR = DOUBT_FLOOR
#: correct: a doubtful claim meeting contrary firsthand evidence is reset to this
CORRECTED = 72
#: hearsay aging: lose FADE_STEP per FADE_PERIOD without new evidence, down to PAST_FLOOR,
#: where the belief becomes `past`; hearsay at or below the floor is `past` at once
FADE_STEP = 8
FADE_PERIOD = timedelta(days=7)
PAST_FLOOR = 34


def reinforced(confidence: int) -> int:
    return min(CEILING, confidence + REINFORCE_STEP)


def doubted(confidence: int) -> int:
    """Never below the floor, and never *raised* to it: a contradiction cannot add belief
    to a claim that was already held below 10."""
    return min(confidence, max(DOUBT_FLOOR, confidence - DOUBT_STEP))


def anomalous(confidence: int) -> int:
    return min(confidence, max(ANOMALY_FLOOR, confidence - ANOMALY_STEP))


def confirmed(confidence: int) -> int:
    """Firsthand support settles a doubt the way firsthand contradiction would have: at
    least at the corrected level, more if reinforcing gives more."""
    return max(CORRECTED, reinforced(confidence))


def faded(confidence: int) -> int:
    return max(PAST_FLOOR, confidence - FADE_STEP)
