"""Placing scored candidates into ledgers A, B and C: eligibility, conflicts, budgets.

A *conflict* is between two entries that speak to the same claim at different
layers: the same `claim_root_id` (SPEC §5: identity is the claim root, never
similarity), or one superseding the other. The higher layer wins: an L2 write
cannot override L3 knowledge or L4 canon by superseding it or by restating
the claim; only demotion or retirement can. The winner still has to pass the
eligibility rules itself (a doubtful L3 stays out, and the L2 it outranks
stays out too: the seat then gets neither and C says why, so it can ask with
a MEMORY REQUEST rather than infer). Retired or superseded entries no longer
contest a claim.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from memhall.ledgers.budget import Budget, cut_verbatim, fact_tokens, quote_tokens
from memhall.ledgers.ledger import Exclusion, Explained, Fact, Provenance, Quote
from memhall.ledgers.recall.fusion import Scored
from memhall.ledgers.recall.gather import CLAIM
from memhall.ledgers.recall.pool import Candidate

_STATUS = {
    "retired": "retired",
    "closed": "closed (a finished open loop)",
}
_STATE = {
    "doubtful": "doubtful: contradicted by evidence",
    "anomalous": "anomalous: in strong conflict with evidence",
    "past": "past: no longer influencing",
}


@dataclass
class Placement:
    a: list[Quote] = field(default_factory=list)
    b: list[Fact] = field(default_factory=list)
    c: list[Exclusion] = field(default_factory=list)
    #: id -> (ledger, reason), for --explain
    decided: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def used_tokens(self) -> int:
        return sum(q.tokens for q in self.a) + sum(f.tokens for f in self.b)

    def exclude(self, s: Scored, reason: str) -> None:
        c = s.candidate
        self.c.append(Exclusion(id=c.id, layer=c.layer, kind=c.kind, reason=reason))
        self.decided[c.id] = ("C", reason)


def conflicts(candidates: Iterable[Candidate]) -> dict[str, str]:
    """The losers of every conflict, with the reason they lost."""
    pool = {c.id: c for c in candidates}
    losers: dict[str, str] = {}
    roots: dict[str, list[Candidate]] = {}
    for c in pool.values():
        if c.status == "active" and c.claim_root_id:
            roots.setdefault(c.claim_root_id, []).append(c)
    for root, group in sorted(roots.items()):
        winner = min(group, key=lambda c: (-c.rank, c.id))
        for c in group:
            if c.rank < winner.rank:
                losers[c.id] = (f"lower layer: {c.layer} under {winner.layer} {winner.id} "
                                f"on the same claim {root}")
    for c in sorted(pool.values(), key=lambda c: c.id):
        newer = pool.get(c.superseded_by or "")
        if newer is not None and newer.rank < c.rank:
            losers.setdefault(newer.id, f"lower layer: it supersedes {c.layer} {c.id}, and an "
                                        f"{newer.layer} write does not override {c.layer}")
    return losers


def ineligible(c: Candidate, s: Scored, lost: dict[str, str]) -> str | None:
    """Why a candidate can enter neither A nor B, or None."""
    if c.status == "superseded":
        return f"superseded by {c.superseded_by}"
    if c.status in _STATUS:
        return _STATUS[c.status]
    if c.status != "active":
        return c.status
    if c.state in _STATE:
        return _STATE[c.state]
    if c.id in lost:
        return lost[c.id]
    if not s.relevant and not s.found_by(CLAIM):
        return "not related to the task: no channel found what it is about"
    return None


def place(scored: Sequence[Scored], *, is_human: Callable[[str], bool], words: Sequence[str],
          budget: Budget) -> Placement:
    """Scored candidates (best first) into A, B and C; every candidate lands in exactly one."""
    placed = Placement()
    lost = conflicts(s.candidate for s in scored)
    quotes = [s for s in scored if s.candidate.kind == "quote" and is_human(s.candidate.author)]
    quote_ids = {s.id for s in quotes}
    quote_room = budget.quote_tokens
    for s in quotes:
        reason = ineligible(s.candidate, s, lost)
        if reason is not None:
            placed.exclude(s, reason)
            continue
        if len(placed.a) >= budget.max_quotes:
            placed.exclude(s, f"over quote budget: ledger A holds at most {budget.max_quotes}")
            continue
        quote = _quote(s.candidate, quote_room, words)
        if quote is None:
            placed.exclude(s, f"over token budget: ledger A may use {budget.quote_tokens} tokens")
            continue
        quote_room -= quote.tokens
        placed.a.append(quote)
        placed.decided[s.id] = ("A", "the human's own words")
    room, full = budget.max_tokens - placed.used_tokens, False
    for s in scored:
        if s.id in quote_ids:
            continue
        c = s.candidate
        reason = ineligible(c, s, lost)
        if reason is None and c.layer == "L1":
            reason = "wrong layer: L1 is a working-memory candidate, not a fact"
        if reason is None and len(placed.b) >= budget.max_items:
            reason = f"over item budget: ledger B holds at most {budget.max_items}"
        if reason is None and (full or fact_tokens(c.text) > room):
            # Selection stops at the first fact that does not fit (S3: "until the
            # token budget is reached"), so a lower-ranked short fact never
            # jumps ahead of a better one.
            full, reason = True, f"over token budget: {budget.max_tokens} tokens"
        if reason is not None:
            placed.exclude(s, reason)
            continue
        room -= fact_tokens(c.text)
        placed.b.append(_fact(c))
        placed.decided[s.id] = ("B", "related, eligible, within budget")
    order = {s.id: i for i, s in enumerate(scored)}
    placed.b.sort(key=lambda f: (-int(f.layer[1]), order[f.id]))
    return placed


def _quote(c: Candidate, room: int, words: Sequence[str]) -> Quote | None:
    lowered = c.text.lower()
    hits = [i for i in (lowered.find(w) for w in words) if i >= 0]
    cut = cut_verbatim(c.text, room, min(hits) if hits else 0)
    if cut is None:
        return None
    return Quote(id=c.id, layer=c.layer, author=c.author, text=cut.shown, start=cut.start,
                 end=cut.end, elided_start=cut.elided_start, elided_end=cut.elided_end,
                 tokens=quote_tokens(cut.shown))


def _fact(c: Candidate) -> Fact:
    return Fact(
        id=c.id, layer=c.layer, kind=c.kind, text=c.text, author=c.author,
        confidence=c.confidence, state=c.state, tokens=fact_tokens(c.text),
        provenance=Provenance(
            source_kind=c.source_kind, source_agent_id=c.source_agent_id,
            evidence_refs=list(c.evidence_refs), claim_root_id=c.claim_root_id,
            session_id=c.session_id, written_at=c.created_at, written_position=c.created_position,
        ),
    )


def explained(scored: Sequence[Scored], placed: Placement) -> list[Explained]:
    return [
        Explained(
            id=s.id, layer=s.candidate.layer,
            channels={name: {"rank": float(rank), "score": round(raw, 6)}
                      for name, (rank, raw) in s.channels.items()},
            fused=round(s.fused, 6), salience=s.salience, recency=round(s.recency, 6),
            final=round(s.final, 6), ledger=placed.decided[s.id][0],
            reason=placed.decided[s.id][1],
        )
        for s in scored
    ]
