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
from typing import NamedTuple
from uuid import UUID

GENESIS = "0" * 64
TAG_PREFIX = "memhall-chain-v1:"


class ChainedEvent(NamedTuple):
    """What the chain covers of one stored event."""

    position: int
    originator_id: UUID
    originator_version: int
    topic: str
    state: bytes


def _field(data: bytes) -> bytes:
    return len(data).to_bytes(8, "big") + data


def tag_field(domain: str) -> bytes:
    """The first field of every link of a domain's chain (worked out once per walk)."""
    return _field((TAG_PREFIX + domain).encode())


def uuid_text(raw: bytes) -> str:
    """`str(UUID(bytes=raw))`, without building a UUID (the verify walk does this per event)."""
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def next_head(tag: bytes, previous: str, position: int, originator: str, version: int, topic: str,
              state: bytes) -> str:
    """The head after one event (its originator id as canonical UUID text), given the head
    before it and the domain's `tag_field`: the one implementation of a link."""
    p, h = str(position).encode(), previous.encode()
    o, v, t = originator.encode(), str(version).encode(), topic.encode()
    return hashlib.sha256(b"".join((
        tag, len(p).to_bytes(8, "big"), p, len(h).to_bytes(8, "big"), h, len(o).to_bytes(8, "big"), o,
        len(v).to_bytes(8, "big"), v, len(t).to_bytes(8, "big"), t, len(state).to_bytes(8, "big"), state,
    ))).hexdigest()


def link(domain: str, previous: str, event: ChainedEvent) -> str:
    """The head after `event`, given the head before it."""
    return next_head(tag_field(domain), previous, event.position, str(event.originator_id),
                     event.originator_version, event.topic, bytes(event.state))
