"""Promotion through the layers: four questions, nominations, reminders,
dissent, ratification, rejection, withdrawal and demotion (SPEC §2–§3).

Every step asks the policy with facts read from the store (the entry's layer,
the promotion's nominator, its distinct reminder sessions, whether dissent is
recorded), never from what the caller claims. Ratification changes the layer
only: it rewrites no agent's instructions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable
from uuid import UUID

from sqlalchemy import Connection, select

from memhall.domains.entry import Entry
from memhall.domains.errors import InvalidValueError, MemhallError
from memhall.domains.promotion import Position, Promotion
from memhall.domains.values import Layer, principal_name
from memhall.governance.facts import entry_facts, promotion_facts
from memhall.governance.hall import Hall
from memhall.governance.promotion_records import (
    LayerView,
    PromotionView,
    promotion_rows,
)
from memhall.governance.streams import DomainStream
from memhall.governance.views import EntryView
from memhall.policies.model import Action, Decision, PolicyRequest

#: the four questions of L1 -> L2, in the words a refusal uses
FOUR_QUESTIONS = {
    "useful": "useful in future?",
    "not_temporary": "not a temporary narrative?",
    "safe": "safe (no secrets, no cross-domain data)?",
}


def promote(hall: Hall, actor: str, domain: str, entry_id: UUID, *, useful: bool,
            evidence: tuple[str, ...], not_temporary: bool, safe: bool) -> Entry:
    """L1 -> L2: all four questions answered yes, and recorded."""
    answers = {"useful": useful, "not_temporary": not_temporary, "safe": safe}
    recorded = {k: "yes" if v else "no" for k, v in answers.items()}
    recorded["evidence"] = " ".join(evidence)

    def act(entry: Entry, decision: Decision) -> None:
        if entry.layer is not Layer.L1:
            raise InvalidValueError(
                f"entry {entry.id} is at {entry.layer.value}: the four questions promote L1 -> L2 only")
        failed = [FOUR_QUESTIONS[k] for k, v in answers.items() if not v]
        if failed:
            raise InvalidValueError(f"L1 -> L2 refused: answered no to {'; '.join(failed)}")
        entry.promote(Layer.L2, promotion_id=None, answers=recorded,
                      actor=decision.request.principal, rule=decision.rule_id)

    return hall.entry_action(actor, domain, entry_id, Action.PROMOTE, act,
                             target_layer=Layer.L2.value, promotion_path="four-questions",
                             has_evidence=bool(evidence))


def _promotion_request(actor: str, action: Action, stream: DomainStream, promotion: Promotion,
                       entry: Entry) -> PolicyRequest:
    return PolicyRequest(principal=actor, action=action, domain=stream.name,
                         **promotion_facts(promotion, entry))


def nominate(hall: Hall, actor: str, domain: str, entry_id: UUID, to_layer: Layer, reason: str) -> Promotion:
    """Nominate an entry one layer up: L2 -> L3 (stale fact) or L3 -> L4 (canon)."""
    actor = principal_name(actor)
    stream = hall.stream(domain, actor=actor, action=Action.NOMINATE)
    with hall.writing(stream) as session:
        entry: Entry = stream.get(entry_id, kind=Entry)
        request = PolicyRequest(
            principal=actor, action=Action.NOMINATE, domain=stream.name, **entry_facts(entry),
            target_layer=to_layer.value,
            promotion_path="canon" if to_layer is Layer.L4 else "stale-fact",
        )
        decision = hall.authorize(session, stream, request)
        try:
            if not entry.is_active:
                raise InvalidValueError(f"entry {entry.id} is {entry.status.value}: only active entries rise")
            if _open_promotion_of(session, stream, entry.id):
                raise InvalidValueError(f"entry {entry.id} already has an open nomination")
            promotion = Promotion.nominate(entry.id, entry.layer, to_layer, reason,
                                           actor=actor, rule=decision.rule_id)
        except MemhallError as error:
            hall.refuse(session, stream, request, error, rule=decision.rule_id)
        stream.save(session, promotion)
    return promotion


def _open_promotion_of(session: Connection, stream: DomainStream, entry_id: UUID) -> bool:
    promotions = stream.tables.promotions
    row = session.execute(
        promotions.select().where(promotions.c.entry_id == str(entry_id), promotions.c.status == "open")
    ).first()
    return row is not None


def _on_promotion(hall: Hall, actor: str, domain: str, promotion_id: UUID, action: Action,
                  act: Callable[[Promotion, Entry, Decision], list[Any]]) -> Promotion:
    """Load a promotion and its entry, ask the policy with their stored facts, act, save."""
    actor = principal_name(actor)
    stream = hall.stream(domain, actor=actor, action=action)
    with hall.writing(stream) as session:
        promotion: Promotion = stream.get(promotion_id, "promotion", kind=Promotion)
        entry: Entry = stream.get(promotion.entry_id, kind=Entry)
        request = _promotion_request(actor, action, stream, promotion, entry)
        decision = hall.authorize(session, stream, request)
        try:
            changed = act(promotion, entry, decision)
        except MemhallError as error:
            hall.refuse(session, stream, request, error, rule=decision.rule_id)
        stream.save(session, promotion, *changed)
    return promotion


def remind(hall: Hall, actor: str, domain: str, promotion_id: UUID, session_id: str | None,
           note: str = "") -> Promotion:
    def act(p: Promotion, e: Entry, d: Decision) -> list[Any]:
        p.remind(session_id or "", note, actor=d.request.principal, rule=d.rule_id)
        return []

    return _on_promotion(hall, actor, domain, promotion_id, Action.REMIND, act)


def dissent(hall: Hall, actor: str, domain: str, promotion_id: UUID,
            positions: list[dict[str, str]]) -> Promotion:
    from pydantic import ValidationError

    try:
        parsed = tuple(Position(**p) for p in positions)  # type: ignore[arg-type]
    except ValidationError as error:
        first = error.errors()[0]
        raise InvalidValueError(
            f"invalid dissent {'.'.join(str(x) for x in first['loc'])}: {first['msg']}") from None

    def act(p: Promotion, e: Entry, d: Decision) -> list[Any]:
        members = council(hall, d.request.domain)
        given = {position.member for position in parsed}
        if members is not None:
            strangers, missing = sorted(given - set(members)), sorted(set(members) - given)
            if strangers:
                raise InvalidValueError(
                    f"not on the council of {d.request.domain}: {', '.join(strangers)} "
                    f"(the council: {', '.join(members)})")
            if missing:
                raise InvalidValueError(
                    f"a full-council dissent record needs every member's position: "
                    f"missing {', '.join(missing)}")
        p.record_dissent(parsed, actor=d.request.principal, rule=d.rule_id)
        return []

    return _on_promotion(hall, actor, domain, promotion_id, Action.DISSENT, act)


@runtime_checkable
class KnowsRoles(Protocol):
    @property
    def principals(self) -> tuple[str, ...]: ...

    def roles_of(self, principal: str, domain: str) -> frozenset[str]: ...


COUNCIL_ROLES = frozenset({"system_chair", "session_chair", "seat"})


def council(hall: Hall, domain: str) -> list[str] | None:
    """The domain's council: every principal holding a chair or a seat there
    (the ratify owner decides; it does not sit on the council). None when the
    policy cannot say who holds roles."""
    gate = hall.gate
    if not isinstance(gate, KnowsRoles):
        return None
    return sorted(p for p in gate.principals if gate.roles_of(p, domain) & COUNCIL_ROLES)


def ratify(hall: Hall, actor: str, domain: str, promotion_id: UUID) -> Promotion:
    """Ratify: the entry rises to the promotion's target layer, nothing else changes."""

    def act(p: Promotion, e: Entry, d: Decision) -> list[Any]:
        if e.layer is not p.from_layer:
            raise InvalidValueError(
                f"entry {e.id} is at {e.layer.value}, no longer at {p.from_layer.value}")
        p.ratify(actor=d.request.principal, rule=d.rule_id)
        e.promote(p.to_layer, promotion_id=p.id, answers={"path": p.path.value},
                  actor=d.request.principal, rule=d.rule_id)
        return [e]

    return _on_promotion(hall, actor, domain, promotion_id, Action.RATIFY, act)


def reject(hall: Hall, actor: str, domain: str, promotion_id: UUID, reason: str) -> Promotion:
    def act(p: Promotion, e: Entry, d: Decision) -> list[Any]:
        p.reject(reason, actor=d.request.principal, rule=d.rule_id)
        return []

    return _on_promotion(hall, actor, domain, promotion_id, Action.REJECT, act)


def withdraw(hall: Hall, actor: str, domain: str, promotion_id: UUID, reason: str = "") -> Promotion:
    def act(p: Promotion, e: Entry, d: Decision) -> list[Any]:
        p.withdraw(reason, actor=d.request.principal, rule=d.rule_id)
        return []

    return _on_promotion(hall, actor, domain, promotion_id, Action.WITHDRAW, act)


def demote(hall: Hall, actor: str, domain: str, entry_id: UUID, to_layer: Layer, reason: str) -> Entry:
    """Demotion, L4 -> L3 or L3 -> L2: governed and audited like promotion."""
    return hall.entry_action(
        actor, domain, entry_id, Action.DEMOTE,
        lambda e, d: e.demote(to_layer, reason, actor=d.request.principal, rule=d.rule_id),
        target_layer=to_layer.value,
    )


def promotions(hall: Hall, actor: str, domain: str, *, all_: bool = False) -> list[PromotionView]:
    stream, _ = hall.ask(actor, Action.READ, domain)
    with hall.store.read() as conn:
        return promotion_rows(conn, stream, None if all_ else "open")


def ratified(hall: Hall, actor: str, domain: str, layer: str) -> LayerView:
    """What is ratified at L3 (knowledge) or L4 (canon); never L2 standing in."""
    stream, _ = hall.ask(actor, Action.READ, domain)
    entries = stream.tables.entries
    with hall.store.read() as conn:
        rows = conn.execute(
            select(entries).where(entries.c.layer == layer, entries.c.status == "active")
            .order_by(entries.c.updated_at.desc(), entries.c.id)
        ).all()
    found = [EntryView.from_row(stream.name, r) for r in rows]
    name = {"L3": "knowledge", "L4": "canon"}[layer]
    message = (f"{layer} {name} of {stream.name}: {len(found)} ratified" if found
               else f"{layer} unavailable: nothing ratified in {stream.name}")
    return LayerView(domain=stream.name, layer=layer, available=bool(found), message=message, entries=found)
