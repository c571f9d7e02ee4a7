"""The Promotion aggregate: one nomination of an entry to a higher layer.

L2 → L3 is a stale-fact nomination accepted by the ratify owner. L3 → L4
(canon) also needs reminders from at least three distinct sessions and a
structured dissent record of the council before the owner may ratify. Who may
do what is the policy's call; what a promotion has gathered is recorded here.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from enum import Enum
from uuid import UUID

from eventsourcing.domain import event
from pydantic import BaseModel, ConfigDict, field_validator

from memhall.domains.aggregate import Aggregate
from memhall.domains.canon import CANON_REMINDERS, canon_progress
from memhall.domains.errors import InvalidTransitionError, InvalidValueError, RefusedError
from memhall.domains.session import Session
from memhall.domains.values import Layer, clean_text

__all__ = ["CANON_REMINDERS", "canon_progress"]

#: the rule a reminder from a session that is not the reminder's own, open one is refused under
REMINDER_SESSION_RULE = "reminders-come-from-open-sessions-of-their-own"
#: the rule a position from outside the council is refused under
COUNCIL_RULE = "dissent-from-council-members-only"
#: how to get a session, for a reminder given none
HOW_TO_GET_A_SESSION = ("a reminder counts only inside a session of yours: run `memhall handoff`, "
                        "then `export MEMHALL_SESSION=<the session id it prints>` (or pass --session)")


class PromotionPath(str, Enum):
    FOUR_QUESTIONS = "four-questions"  # L1 -> L2, decided at once by the session chair
    STALE_FACT = "stale-fact"  # L2 -> L3
    CANON = "canon"  # L3 -> L4


class PromotionStatus(str, Enum):
    OPEN = "open"
    RATIFIED = "ratified"
    REJECTED = "rejected"
    WITHDRAWN = "withdrawn"


class Stance(str, Enum):
    AGREE = "agree"
    DISAGREE = "disagree"
    ABSTAIN = "abstain"


class Position(BaseModel):
    """One council member's position in a dissent record."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    member: str
    position: Stance
    reason: str

    @field_validator("member", "reason")
    @classmethod
    def _not_empty(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value.strip()


def path_to(target: Layer) -> PromotionPath:
    if target is Layer.L3:
        return PromotionPath.STALE_FACT
    if target is Layer.L4:
        return PromotionPath.CANON
    raise InvalidValueError(
        f"nominations go to L3 or L4; L1 -> L2 is `memhall promote ID --to L2`, not {target.value}"
    )


def reminder_session_problem(session: Session, *, actor: str, nominated_at: datetime) -> str | None:
    """Why a reminder made in `session` cannot count, or None: it must be a
    session of the reminder's own, opened after the nomination and still open
    (a made-up, borrowed, closed or earlier session would let one sitting
    count as three)."""
    if session.principal != actor:
        return f"session {session.id} was opened by {session.principal}, not {actor}: remind from a session of your own"
    if session.closed:
        return f"session {session.id} is closed: remind from an open session (`memhall handoff` opens one)"
    if session.created_on <= nominated_at:
        return (f"session {session.id} was opened before the nomination: a reminder counts from a "
                "session opened after it (`memhall handoff` opens one)")
    return None


class Promotion(Aggregate):
    TOPIC = "memhall.Promotion"

    class Created(Aggregate.Created):
        TOPIC = "memhall.Promotion.Created"

    class Nominated(Created):
        TOPIC = "memhall.Promotion.Nominated"
        entry_id: UUID
        from_layer: Layer
        to_layer: Layer
        path: PromotionPath
        reason: str
        #: who must record a dissent position (canon): the council when it was nominated
        council: tuple[str, ...] = ()

    class ReminderRecorded(Aggregate.Event):
        TOPIC = "memhall.Promotion.ReminderRecorded"
        session_id: str
        note: str
        counted: bool
        #: when the reminding session was opened (None in logs from before sessions were checked)
        session_opened_at: datetime | None = None

    class DissentRecorded(Aggregate.Event):
        """Several members' positions recorded at once by the chair (logs from before
        each member recorded its own; kept so those logs replay)."""

        TOPIC = "memhall.Promotion.DissentRecorded"
        positions: tuple[Position, ...]

    class PositionRecorded(Aggregate.Event):
        """One council member's own position (the actor is the member); a later one revises it."""

        TOPIC = "memhall.Promotion.PositionRecorded"
        position: Stance
        reason: str

    class Ratified(Aggregate.Event):
        TOPIC = "memhall.Promotion.Ratified"

    class Rejected(Aggregate.Event):
        TOPIC = "memhall.Promotion.Rejected"
        reason: str

    class Withdrawn(Aggregate.Event):
        TOPIC = "memhall.Promotion.Withdrawn"
        reason: str

    @event(Nominated)
    def __init__(self, *, entry_id: UUID, from_layer: Layer, to_layer: Layer, path: PromotionPath,
                 reason: str, actor: str, rule: str, council: tuple[str, ...] = ()) -> None:
        self.entry_id = entry_id
        self.council = council
        self.from_layer = from_layer
        self.to_layer = to_layer
        self.path = path
        self.reason = reason
        self.nominated_by = actor
        self.status = PromotionStatus.OPEN
        self.reminder_sessions: list[str] = []
        #: when each counted session was opened, in the order they counted
        self.counted_opened: list[datetime] = []
        self.reminders = 0
        self.positions: list[Position] = []

    @classmethod
    def nominate(cls, entry_id: UUID, from_layer: Layer, to_layer: Layer, reason: str, *,
                 actor: str, rule: str, council: Sequence[str] = ()) -> Promotion:
        path = path_to(to_layer)
        above = from_layer.next()
        if above is not to_layer:
            raise InvalidTransitionError(
                f"entry is at {from_layer.value}: it can only be nominated for "
                f"{above.value if above else 'nothing higher'}"
            )
        if not reason.strip():
            what = "--stale-fact" if path is PromotionPath.STALE_FACT else "--reason"
            raise InvalidValueError(f"a nomination needs its grounds ({what})")
        clean_text(reason, "reason")
        members = tuple(sorted(set(council))) if path is PromotionPath.CANON else ()
        return cls(entry_id=entry_id, from_layer=from_layer, to_layer=to_layer, path=path,
                   reason=reason.strip(), actor=actor, rule=rule, council=members)

    @property
    def is_open(self) -> bool:
        return self.status is PromotionStatus.OPEN

    def _require_open(self, doing: str) -> None:
        if not self.is_open:
            raise InvalidTransitionError(f"cannot {doing}: promotion {self.id} is {self.status.value}")

    def remind(self, session: Session, note: str, *, min_gap: timedelta = timedelta(0),
               actor: str, rule: str) -> bool:
        """Record a reminder made in `session`; it counts once per session, and
        only when the session was opened at least `min_gap` apart from those of
        the reminders already counted. Returns whether it counted."""
        self._require_open("remind")
        problem = reminder_session_problem(session, actor=actor, nominated_at=self.created_on)
        if problem is not None:
            raise RefusedError(f"refused: {problem} [{REMINDER_SESSION_RULE}]", rule=REMINDER_SESSION_RULE)
        opened = session.created_on
        counted = str(session.id) not in self.reminder_sessions and all(
            abs(opened - earlier) >= min_gap for earlier in self.counted_opened)
        self._reminded(session_id=str(session.id), note=note, counted=counted,
                       session_opened_at=opened, actor=actor, rule=rule)
        return counted

    @event(ReminderRecorded)
    def _reminded(self, session_id: str, note: str, counted: bool, actor: str, rule: str,
                  session_opened_at: datetime | None = None) -> None:
        self.reminders += 1
        if counted:
            self.reminder_sessions.append(session_id)
            if session_opened_at is not None:
                self.counted_opened.append(session_opened_at)

    def members(self, fallback: Sequence[str] | None = None) -> tuple[str, ...] | None:
        """The council whose positions complete the dissent record: the one recorded
        at nomination, else (older logs) `fallback`, the council the policy names now."""
        if self.council:
            return self.council
        return tuple(sorted(fallback)) if fallback is not None else None

    def record_position(self, position: Stance, reason: str, *, fallback: Sequence[str] | None = None,
                        actor: str, rule: str) -> None:
        """The actor's own position; a member may revise it until the decision."""
        self._require_open("record dissent")
        members = self.members(fallback)
        if members is not None and actor not in members:
            raise RefusedError(f"refused: {actor} is not on the council of this nomination and cannot "
                               f"record a dissent position (the council: {', '.join(members)}) [{COUNCIL_RULE}]",
                               rule=COUNCIL_RULE)
        if not reason.strip():
            raise InvalidValueError("a dissent position needs its reason (--reason)")
        clean_text(reason, "reason")
        self._position_recorded(position=position, reason=reason.strip(), actor=actor, rule=rule)

    @event(PositionRecorded)
    def _position_recorded(self, position: Stance, reason: str, actor: str, rule: str) -> None:
        recorded = {p.member: p for p in self.positions}
        recorded[actor] = Position(member=actor, position=position, reason=reason)
        self.positions = [recorded[m] for m in sorted(recorded)]

    @event(DissentRecorded)
    def _dissented(self, positions: tuple[Position, ...], actor: str, rule: str) -> None:
        recorded = {p.member: p for p in self.positions}
        recorded.update({p.member: p for p in positions})
        self.positions = [recorded[m] for m in sorted(recorded)]

    def missing(self, fallback: Sequence[str] | None = None) -> list[str]:
        """Council members who have not recorded a position."""
        members = self.members(fallback) or ()
        given = {p.member for p in self.positions}
        return [m for m in members if m not in given]

    def dissent_complete(self, fallback: Sequence[str] | None = None) -> bool:
        """Every council member has recorded a position (with no council known:
        at least one position)."""
        if self.members(fallback) is None:
            return bool(self.positions)
        return bool(self.positions) and not self.missing(fallback)

    @property
    def dissent_recorded(self) -> bool:
        return self.dissent_complete()

    def ratify(self, *, actor: str, rule: str) -> None:
        self._require_open("ratify")
        self._ratified(actor=actor, rule=rule)

    @event(Ratified)
    def _ratified(self, actor: str, rule: str) -> None:
        self.status = PromotionStatus.RATIFIED

    def reject(self, reason: str, *, actor: str, rule: str) -> None:
        self._require_open("reject")
        if not reason.strip():
            raise InvalidValueError("a rejection needs a reason")
        clean_text(reason, "reason")
        self._rejected(reason=reason, actor=actor, rule=rule)

    @event(Rejected)
    def _rejected(self, reason: str, actor: str, rule: str) -> None:
        self.status = PromotionStatus.REJECTED

    def withdraw(self, reason: str, *, actor: str, rule: str) -> None:
        self._require_open("withdraw")
        clean_text(reason, "reason")
        self._withdrawn(reason=reason or "withdrawn", actor=actor, rule=rule)

    @event(Withdrawn)
    def _withdrawn(self, reason: str, actor: str, rule: str) -> None:
        self.status = PromotionStatus.WITHDRAWN

    def progress(self, fallback: Sequence[str] | None = None) -> str:
        """What the promotion has gathered, in words ("2 of 3 reminders; no dissent recorded")."""
        if self.path is not PromotionPath.CANON:
            return "awaiting the ratify owner"
        return canon_progress(len(self.reminder_sessions), len(self.positions), self.missing(fallback))
