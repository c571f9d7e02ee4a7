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

import orjson
from sqlalchemy import Connection, select, text

from memhall.domains.entry import Entry
from memhall.domains.errors import InvalidValueError, MemhallError, NotFoundError, RefusedError
from memhall.domains.promotion import (
    HOW_TO_GET_A_SESSION,
    REMINDER_SESSION_RULE,
    Promotion,
    Stance,
)
from memhall.domains.session import Session as WorkSession
from memhall.domains.values import Layer, principal_name
from memhall.governance import logged
from memhall.governance.facts import council, entry_facts, promotion_facts
from memhall.governance.hall import Hall
from memhall.governance.promotion_records import (
    LayerView,
    PromotionView,
    promotion_rows,
)
from memhall.governance.store import raw
from memhall.governance.streams import DomainStream
from memhall.governance.views import EntryView
from memhall.policies.model import Action, Decision, PolicyRequest
from memhall.policies.promotion_file import PromotionSettings

NOMINATED = "memhall.Promotion.Nominated"
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


def _promotion_request(hall: Hall, actor: str, action: Action, stream: DomainStream,
                       promotion: Promotion, entry: Entry) -> PolicyRequest:
    return PolicyRequest(principal=actor, action=action, domain=stream.name,
                         **promotion_facts(promotion, entry, council(hall, stream.name)))


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
                                           actor=actor, rule=decision.rule_id,
                                           council=council(hall, stream.name) or ())
        except MemhallError as error:
            hall.refuse(session, stream, request, error, rule=decision.rule_id)
        stream.save(session, promotion)
    return promotion


def _open_promotion_of(session: Connection, stream: DomainStream, entry_id: UUID) -> bool:
    """Whether the entry has an open nomination, by the log: every nomination
    event of the domain (few) and the state of the ones naming this entry, so
    an edited or deleted promotions row cannot allow a second one."""
    events = text(f"SELECT originator_id, state FROM {stream.tables.events_name} WHERE topic = :topic")
    wanted = str(entry_id)
    for originator, state in session.execute(events, {"topic": NOMINATED}):
        data = orjson.loads(bytes(state))
        if data.get("entry_id") != wanted:
            continue
        ident = originator if isinstance(originator, UUID) else UUID(bytes=bytes(originator))
        promotion: Promotion = stream.get(ident, "promotion", kind=Promotion)
        if promotion.is_open:
            return True
    return False


def _on_promotion(hall: Hall, actor: str, domain: str, promotion_id: UUID, action: Action,
                  act: Callable[[Promotion, Entry, Decision], list[Any]]) -> Promotion:
    """Load a promotion and its entry, ask the policy with their stored facts, act, save."""
    actor = principal_name(actor)
    stream = hall.stream(domain, actor=actor, action=action)
    with hall.writing(stream) as session:
        promotion: Promotion = stream.get(promotion_id, "promotion", kind=Promotion)
        entry: Entry = stream.get(promotion.entry_id, kind=Entry)
        request = _promotion_request(hall, actor, action, stream, promotion, entry)
        decision = hall.authorize(session, stream, request)
        try:
            changed = act(promotion, entry, decision)
        except MemhallError as error:
            # a rule of the domain that refuses names itself; else the refusal is under the decision's rule
            hall.refuse(session, stream, request, error, rule=error.rule or decision.rule_id)
        stream.save(session, promotion, *changed)
    return promotion


def remind(hall: Hall, actor: str, domain: str, promotion_id: UUID, session_id: str | None,
           note: str = "") -> Promotion:
    """Record a reminder made inside `session_id`: a session of this domain the
    actor opened after the nomination and has not closed (else it is refused)."""
    if not session_id:
        raise InvalidValueError(HOW_TO_GET_A_SESSION)

    def act(p: Promotion, e: Entry, d: Decision) -> list[Any]:
        work = _reminding_session(hall, d.request.domain, session_id)
        p.remind(work, note, min_gap=_settings(hall).min_reminder_gap,
                 actor=d.request.principal, rule=d.rule_id)
        return []

    return _on_promotion(hall, actor, domain, promotion_id, Action.REMIND, act)


def _reminding_session(hall: Hall, domain: str, session_id: str) -> WorkSession:
    """The session, from its events; an id that names none in this domain is refused."""
    unknown = RefusedError(f"refused: no session {session_id} in {domain}: {HOW_TO_GET_A_SESSION} "
                           f"[{REMINDER_SESSION_RULE}]", rule=REMINDER_SESSION_RULE, domain=domain)
    try:
        ident = UUID(session_id)
    except ValueError:
        raise unknown from None
    try:
        found: WorkSession = hall.streams.stream(domain).get(ident, "session", kind=WorkSession)
    except NotFoundError:
        raise unknown from None
    return found


@runtime_checkable
class KnowsPromotionSettings(Protocol):
    @property
    def promotion(self) -> PromotionSettings: ...


def _settings(hall: Hall) -> PromotionSettings:
    gate = hall.gate
    return gate.promotion if isinstance(gate, KnowsPromotionSettings) else PromotionSettings()


def dissent(hall: Hall, actor: str, domain: str, promotion_id: UUID, position: Stance | str,
            reason: str) -> Promotion:
    """Record the actor's own dissent position on a canon nomination; a council
    member may revise it until the decision (the last one counts, every one stays
    in the log). Nobody records another member's position."""
    try:
        stance = Stance(position)
    except ValueError:
        raise InvalidValueError(
            f"invalid dissent position {position!r}: agree, disagree or abstain") from None

    def act(p: Promotion, e: Entry, d: Decision) -> list[Any]:
        p.record_position(stance, reason, fallback=council(hall, d.request.domain),
                          actor=d.request.principal, rule=d.rule_id)
        return []

    return _on_promotion(hall, actor, domain, promotion_id, Action.DISSENT, act)


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
        at = logged.newest(raw(conn), stream.journal)  # before the rows (`logged`)
        rows = conn.execute(
            select(entries).where(entries.c.layer == layer, entries.c.status == "active")
            .order_by(entries.c.updated_at.desc(), entries.c.id)
        ).all()
        found = [EntryView.from_row(stream.name, r) for r in rows]
        # authority: each item as its events say, or nothing
        logged.require_served(raw(conn), stream, found, at=at)
    name = {"L3": "knowledge", "L4": "canon"}[layer]
    message = (f"{layer} {name} of {stream.name}: {len(found)} ratified" if found
               else f"{layer} unavailable: nothing ratified in {stream.name}")
    return LayerView(domain=stream.name, layer=layer, available=bool(found), message=message, entries=found)
