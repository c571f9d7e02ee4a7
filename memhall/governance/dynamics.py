"""Reading the dynamics of one observer's memory: strength and reviews, and the tag graph.

Both are computed at read time from the read models and an as-of time; nothing
here is stored, so they are the same after a rebuild. An observer's memory is
what it holds (a chair or the ratify owner: the whole domain); asking about
another observer's memory needs a role that holds the domain.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memhall.domains.dynamics.config import DynamicsConfig
from memhall.domains.dynamics.forgetting import retention_of
from memhall.domains.dynamics.graph import Link, Pair, TagGraph
from memhall.domains.errors import InvalidValueError, NotFoundError
from memhall.domains.values import principal_name
from memhall.governance import memory_records as records
from memhall.governance.exposure import held
from memhall.governance.hall import Hall
from memhall.governance.streams import DomainStream
from memhall.governance.views import View
from memhall.policies.model import Action, PolicyRequest, ResourceType

#: a graph drawn without --entity must stay readable
MAX_DRAWN_LINKS = 400


class StrengthView(View):
    id: str
    layer: str
    text: str
    observer: str
    as_of: datetime
    occurred_at: datetime
    strength: float
    stability_days: float
    reviews: int
    last_review: datetime | None
    #: below the threshold: lower retrieval priority, never deleted
    faded: bool
    weight: float
    held: bool


def _observer_scope(hall: Hall, actor: str, domain: str, observer: str | None,
                    action: Action) -> tuple[DomainStream, records.Scope]:
    actor = principal_name(actor)
    stream, _ = hall.ask(actor, action, domain)
    who = principal_name(observer) if observer else actor
    if who != actor and not records.Scope.of(hall.gate, actor, stream.name).whole:
        request = PolicyRequest(principal=actor, action=action, domain=stream.name,
                                resource_type=ResourceType.DOMAIN, resource_id=who)
        with hall.writing(stream) as session:
            hall.refuse(session, stream, request, InvalidValueError(
                f"{actor} may read only its own memory in {stream.name}, not {who}'s"),
                rule="own-memory-only")
    return stream, records.Scope.of(hall.gate, who, stream.name)


def strengths(hall: Hall, actor: str, domain: str, ids: Sequence[str], config: DynamicsConfig, *,
              observer: str | None = None, as_of: datetime | None = None) -> list[StrengthView]:
    """Strength = s0 · exp(−t / stability) of each entry in the observer's memory, as of a time."""
    stream, scope = _observer_scope(hall, actor, domain, observer, Action.SEARCH)
    moment = as_of or hall.clock()
    with hall.store.read() as conn:
        found = records.by_ids(conn, stream, scope, ids)
        holding = set(found) if scope.whole else held(conn, stream, scope.observer, found)
        layers = {str(r.id): str(r.layer) for r in conn.execute(
            stream.tables.entries.select().where(stream.tables.entries.c.id.in_(list(found))))}
    out = []
    for ident in ids:
        record = found.get(ident)
        if record is None:
            raise NotFoundError("entry", ident, stream.name)
        kept = retention_of(record, moment, config.forgetting)
        known = [r for r in record.reviews if r <= moment]
        out.append(StrengthView(
            id=ident, layer=layers[ident], text=record.text, observer=scope.observer, as_of=moment,
            occurred_at=record.occurred_at, strength=kept.strength, stability_days=kept.stability_days,
            reviews=kept.reviews, last_review=max(known, default=None), faded=kept.faded,
            weight=kept.weight, held=ident in holding))
    return out


def graph(hall: Hall, actor: str, domain: str, config: DynamicsConfig, *, entity: str | None = None,
          hops: int = 1, observer: str | None = None, as_of: datetime | None = None) -> TagGraph:
    """The tag graph of the observer's memory, or the neighbourhood of every node named
    `entity` within `hops`; edges weigh by retention as of `as_of` (now by default)."""
    if not 1 <= hops <= 3:
        raise InvalidValueError("hops must be between 1 and 3")
    stream, scope = _observer_scope(hall, actor, domain, observer, Action.SEARCH)
    moment = as_of or hall.clock()
    with records.collector_paused():
        with hall.store.read() as conn:
            held_now = records.held_records(conn, stream, scope)
        weights = {r.id: retention_of(r, moment, config.forgetting).weight for r in held_now
                   if not r.proposed_by_a_dynamic}
        whole = TagGraph.build(held_now, weights=weights, insight_weight=config.wandering.insight_weight)
    if entity is None:
        if len(whole.links) > MAX_DRAWN_LINKS:
            raise InvalidValueError(f"the graph has {len(whole.links)} links, too many to draw: "
                                    "pick a neighbourhood with --entity NAME")
        return whole
    centres = whole.named(entity)
    if not centres:
        raise NotFoundError("entity", entity, stream.name)
    links: dict[Pair, Link] = {}
    for centre in centres:
        links.update(whole.neighbourhood(centre, hops).links)
    nodes = {n for key in links for n in key} | set(centres)
    return TagGraph(links=links, intensities={n: whole.intensities.get(n, 0.0) for n in nodes})
