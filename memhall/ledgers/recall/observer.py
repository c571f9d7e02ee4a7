"""The recall use case: what one observer holds about a query, within a small budget, recorded once.

`memhall recall`, the MCP `recall` tool and (through `gather` and `fuse`)
`materialize` all run this. The observer is the acting principal: it gets
only what it holds (exposure; chairs and the ratify owner hold their domain by
role). One call records at most one Recall.Recorded event with the ids it
handed out (which exposure and the dynamics' reviews are derived from, and
which carries the reconsolidation nudges); a recall as of an earlier time, an
evaluation run (`record=False`) and an abstention record nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memhall.domains.dynamics.config import DynamicsConfig
from memhall.domains.entry import Tags
from memhall.domains.errors import InvalidValueError
from memhall.domains.recall import Recall
from memhall.domains.values import principal_name
from memhall.governance import logged
from memhall.governance.hall import Hall
from memhall.governance.memory_records import Scope, collector_paused
from memhall.governance.store import raw
from memhall.governance.views import View
from memhall.ledgers import dynamics_weights
from memhall.ledgers.budget import fact_tokens
from memhall.ledgers.recall import abstention, fusion, understanding
from memhall.ledgers.recall.embedding_match import Embedder
from memhall.ledgers.recall.gather import gather
from memhall.ledgers.recall.pool import Reader, newest, position_at
from memhall.ledgers.recall.query import Query
from memhall.policies.model import Action

MAX_ITEMS = 50
DEFAULT_ITEMS = 5
DEFAULT_TOKENS = 500
MAX_TOKENS = 100_000


class RecalledItem(View):
    """One memory as recall found it: its layer always shown, never implied."""

    id: str
    layer: str
    kind: str
    text: str
    author: str
    state: str
    confidence: int
    tags: list[str]
    occurred_at: datetime
    created_at: datetime
    #: the channels that found it
    found_by: list[str]
    score: float
    #: what a corrected claim is now understood to say (`text` is what was written, since
    #: disproved); None when that is still its text (`understanding`)
    understanding: str | None = None


class ExplainedItem(View):
    """--explain: every channel's rank and score, the factors, and why it made the cut or not."""

    id: str
    layer: str
    text: str
    channels: dict[str, dict[str, float]]
    relevance: float
    proximity: float
    factors: dict[str, float]
    coverage: float | None = None
    dynamics: dict[str, Any] = {}
    tier: str
    handed: bool
    reason: str


class Recalled(View):
    domain: str
    query: str
    observer: str
    #: the log position the candidates were read at
    as_of_position: int
    as_of: datetime | None = None
    items: list[RecalledItem] = []
    #: recall declined: "no memory of that", "no memory of <person> saying that"
    abstained: bool = False
    answer: str | None = None
    why: str | None = None
    attributed_to: str | None = None
    entities: list[str] = []
    budget: dict[str, int] = {}
    explain: list[ExplainedItem] | None = None
    #: the Recall record's id, when one was recorded
    recorded: str | None = None
    notice: str = ("recall ranks by relevance among what you hold: it is neither where things stand "
                   "(handoff, get_handoff) nor authority; trust each item only as far as its layer")


def recall(hall: Hall, actor: str, domain: str, query: str, *, tags: Tags | None = None,
           max_items: int = DEFAULT_ITEMS, max_tokens: int = DEFAULT_TOKENS, explain: bool = False,
           as_of: datetime | None = None, record: bool = True, embedder: Embedder | None = None,
           dynamics: DynamicsConfig | None = None, with_dynamics: bool = True) -> Recalled:
    """Active memories the actor holds that are relevant to `query`, best first, within
    `max_items` and `max_tokens`; or an abstention. `with_dynamics=False` leaves the
    memory dynamics out of the order (for measuring what they change)."""
    with collector_paused():
        return _recall(hall, actor, domain, query, tags=tags, max_items=max_items, max_tokens=max_tokens,
                       explain=explain, as_of=as_of, record=record, embedder=embedder, dynamics=dynamics,
                       with_dynamics=with_dynamics)


def _recall(hall: Hall, actor: str, domain: str, query: str, *, tags: Tags | None, max_items: int,
            max_tokens: int, explain: bool, as_of: datetime | None, record: bool, embedder: Embedder | None,
            dynamics: DynamicsConfig | None, with_dynamics: bool) -> Recalled:
    if not 1 <= max_items <= MAX_ITEMS:
        raise InvalidValueError(f"max_items must be between 1 and {MAX_ITEMS}")
    if not 1 <= max_tokens <= MAX_TOKENS:
        raise InvalidValueError(f"max_tokens must be between 1 and {MAX_TOKENS}")
    stream, decision = hall.ask(actor, Action.SEARCH, domain)
    asked = Query.of(query, principal_name(actor), tags)
    if asked.empty:
        raise InvalidValueError("recall needs at least one word or tag to look for")
    config = dynamics or DynamicsConfig()
    observer = asked.observer
    scope = Scope.of(hall.gate, observer, stream.name)
    moment = as_of or hall.clock()
    store = hall.store
    with store.read() as conn:
        if store.dialect != "sqlite":
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        at = newest(conn, stream) if as_of is None else position_at(conn, stream, as_of)
        reader = Reader(conn, stream, store.dialect, observer, scope.whole, at)
        pool = gather(reader, asked, embedder=embedder)
        # The dynamics weigh the preconscious pool only (the relevant candidates a first
        # fusion ranks highest): their factors are bounded, so nothing from below it
        # could reach the handed few, and weighing is most of a recall's cost.
        fused = fusion.fuse(pool)
        first = [s.id for s in fused if s.relevant][:config.tiers.preconscious_min if with_dynamics else 0]
        snap = dynamics_weights.read_snapshot(conn, stream, hall.gate, observer, first, config)
        weights = dynamics_weights.weigh(first, moment, snap, active=pool.entities)
        ranked = fusion.reweighed(fused, {i: w.factor for i, w in weights.items()})
        verdict = abstention.judge(reader, asked, ranked)
    handed, reasons, used = _select(ranked, verdict, max_items, max_tokens)
    chosen = [s for s in ranked if s.id in set(handed)]
    if as_of is None and chosen:  # what it hands over, as its entries' events say it
        with store.read() as conn:
            # the pool was read in one snapshot at `at`
            logged.require(raw(conn), stream.journal, stream.tables.entries.name,
                           [{"id": s.id, **{name: getattr(s.candidate, name) for name in logged.SERVED}}
                            for s in chosen], at=at)
    tiers = dynamics_weights.tiers([s.id for s in ranked], len(handed), config.tiers)
    recorded = None
    if record and as_of is None and handed:
        recorded = _record(hall, stream, observer, query, handed, moment, decision.rule_id,
                           dynamics_weights.nudges(handed, moment, snap))
    now_understood = understanding.current(hall, stream, [s.candidate for s in chosen], at)
    items = [_item(s, now_understood.get(s.id)) for s in chosen]
    return Recalled(
        domain=stream.name, query=query, observer=observer, as_of_position=at, as_of=as_of,
        items=items, abstained=verdict.abstained, answer=verdict.answer, why=verdict.reason or None,
        attributed_to=asked.attributed_to, entities=list(pool.entities),
        budget={"max_items": max_items, "max_tokens": max_tokens, "used_tokens": used},
        explain=[_explained(s, reasons[s.id], s.id in set(handed), verdict, weights.get(s.id),
                            str(tiers[s.id].value)) for s in ranked] if explain else None,
        recorded=recorded,
    )


def _select(ranked: list[fusion.Scored], verdict: abstention.Verdict, max_items: int,
            max_tokens: int) -> tuple[list[str], dict[str, str], int]:
    """The handed ids in order, a reason for every candidate, and the tokens spent."""
    handed: list[str] = []
    reasons: dict[str, str] = {}
    room, full = max_tokens, False
    for s in ranked:
        c = s.candidate
        if verdict.abstained:
            reason = f"abstained: {verdict.reason}"
        elif not s.relevant:
            reason = "not relevant: no channel found what the query is about"
        elif c.status != "active":
            reason = f"history, not memory in force ({c.status}): search finds it"
        elif len(handed) >= max_items:
            reason = f"over the item budget ({max_items})"
        elif full or fact_tokens(c.text) > room:
            # stop at the first that does not fit, so a lower-ranked short memory
            # never jumps ahead of a better one
            full, reason = True, f"over the token budget ({max_tokens})"
        else:
            handed.append(c.id)
            room -= fact_tokens(c.text)
            reason = "relevant, held, within budget"
        reasons[s.id] = reason
    return handed, reasons, max_tokens - room


def _record(hall: Hall, stream: Any, observer: str, query: str, handed: list[str], moment: datetime,
            rule: str, nudges: dict[str, dict[str, float]]) -> str:
    with hall.writing(stream) as session:
        done = Recall(domain=stream.name, observer=observer, query=query, handed=tuple(handed),
                      recalled_at=moment, actor=observer, rule=rule, nudges=nudges or None)
        stream.save(session, done)
    return str(done.id)


def _item(s: fusion.Scored, understood: str | None = None) -> RecalledItem:
    c = s.candidate
    return RecalledItem(understanding=understood, 
        id=c.id, layer=c.layer, kind=c.kind, text=c.text, author=c.author, state=c.state,
        confidence=c.confidence, tags=sorted(c.tags), occurred_at=c.occurred_at, created_at=c.created_at,
        found_by=sorted(s.channels), score=round(s.final, 6))


def _explained(s: fusion.Scored, reason: str, handed: bool, verdict: abstention.Verdict,
               weights: dynamics_weights.Weights | None, tier: str) -> ExplainedItem:
    return ExplainedItem(
        id=s.id, layer=s.candidate.layer, text=s.candidate.text[:120],
        channels={name: {"rank": float(rank), "score": round(raw, 6)}
                  for name, (rank, raw) in s.channels.items()},
        relevance=round(s.fused, 6), proximity=round(s.recency, 6),
        factors={k: round(v, 4) for k, v in s.factors.items()},
        coverage=verdict.coverage.get(s.id), dynamics=dynamics_weights.explained(weights, tier),
        tier=tier, handed=handed, reason=reason)
