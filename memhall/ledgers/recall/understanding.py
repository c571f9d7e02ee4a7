"""What a handed claim is now understood to say.

A correction updates a belief's subject to what the correcting evidence says,
and keeps the old understanding in its history ("I used to think X", SPEC §5);
the entry's own text stays what was written. Recall hands over the hall's
belief in a claim as it stands (the recall exposes its holder to it, as
`beliefs.HANDED` says), so a corrected claim goes out with its current
understanding beside its text: an agent never gets the disproved sentence
alone with a label it may misread. Ledger B of a materialization hands its
facts the same way. Only corrected claims change subject, so only they are
folded here (a few of the handed items at most).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from memhall.governance import beliefs
from memhall.governance.as_of import resolve_cut
from memhall.governance.hall import Hall
from memhall.governance.streams import DomainStream
from memhall.governance.trust import table as trust_table

CHANGED = "corrected"


class Handed(Protocol):
    """An entry as recall or ledger B hands it over."""

    @property
    def id(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def state(self) -> str: ...


def current(hall: Hall, stream: DomainStream, handed: Sequence[Handed], position: int) -> dict[str, str]:
    """Entry id -> the hall's understanding as of log position `position` (the one the items
    were read at, so a materialization re-run there says the same), for each corrected claim
    among `handed` whose understanding is no longer its text."""
    corrected = [c for c in handed if c.state == CHANGED and c.kind not in beliefs.NOT_BELIEFS]
    if not corrected:
        return {}
    found: dict[str, str] = {}
    with hall.store.read() as conn:
        cut = resolve_cut(conn, stream, position, hall.clock())
        claims = {c.id: beliefs.claim_entry(conn, stream, c.id) for c in corrected}
        facts = {f.entry_id: f for f in beliefs.facts(conn, stream, set(claims.values()))}
        trust = trust_table(conn, stream, cut)
        for candidate in corrected:
            fact = facts.get(claims[candidate.id])
            belief = beliefs.hall_belief(conn, stream, fact, cut, trust) if fact is not None else None
            if belief is not None and belief.subject != candidate.text:
                found[candidate.id] = belief.subject
    return found
