"""Encoding a draft at write time: the configured encoder's output, recorded with the entry.

The hall calls this once per new entry (never for a duplicate or a replay) and
stores the record in the entry's Written event; projections and rebuilds read
that record back, so the encoder is never called again for the same entry.
"""

from __future__ import annotations

from datetime import datetime

from memhall.domains.dynamics.encoding import Encoder, EncodingRecord, LexiconEncoder
from memhall.domains.entry import EntryDraft


def default_encoder() -> Encoder:
    """The deterministic, offline lexicon encoder (memhall.domains.dynamics.lexicon)."""
    return LexiconEncoder()


def encoded(encoder: Encoder, entry: EntryDraft, actor: str, now: datetime) -> EncodingRecord:
    """The speaker is the writing principal; the first addressee is who it was said to,
    the other addressees and those present are its participants."""
    addressee = entry.addressees[0] if entry.addressees else None
    others = (*entry.addressees[1:], *entry.participants)
    return encoder.encode(entry.text, speaker=actor, addressee=addressee, participants=others,
                          occurred_at=entry.occurred_at or now).record()
