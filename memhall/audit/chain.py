"""The hash chain over a domain's events, in notification order.

    h_i = sha256( field(tag) ‖ field(position) ‖ field(h_{i-1}) ‖ canonical(event_i) )

Canonical encoding: length-prefixed fields, each an 8-byte big-endian length
followed by the bytes. `tag` is "memhall-chain-v1:" + the domain name, so a
chain cannot be replayed into another domain. `position` is the event's
notification id in decimal ASCII. `canonical(event)` is the length-prefixed
originator id (canonical UUID text), originator version (decimal ASCII), topic
(UTF-8) and the stored state bytes exactly as persisted (orjson of the
pydantic event). Length prefixes make the encoding injective: no two different
events share an encoding, whatever bytes their fields hold. h_0 is 64 zeros.

A chain alone cannot detect truncation of its tail, or a full recompute after
an edit: checkpoints of (position, head) kept outside the database (a file
committed to git) catch those (see `checkpoints`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from uuid import UUID

GENESIS = "0" * 64
TAG_PREFIX = "memhall-chain-v1:"


@dataclass(frozen=True)
class ChainedEvent:
    """What the chain covers of one stored event."""

    position: int
    originator_id: UUID
    originator_version: int
    topic: str
    state: bytes


def _field(data: bytes) -> bytes:
    return len(data).to_bytes(8, "big") + data


def canonical(event: ChainedEvent) -> bytes:
    return b"".join(
        (
            _field(str(event.originator_id).encode()),
            _field(str(event.originator_version).encode()),
            _field(event.topic.encode()),
            _field(bytes(event.state)),
        )
    )


def link(domain: str, previous: str, event: ChainedEvent) -> str:
    """The head after `event`, given the head before it."""
    digest = hashlib.sha256()
    digest.update(_field((TAG_PREFIX + domain).encode()))
    digest.update(_field(str(event.position).encode()))
    digest.update(_field(previous.encode()))
    digest.update(canonical(event))
    return digest.hexdigest()
