"""The Promotion aggregate: one nomination of an entry to a higher layer.

L2 → L3 is a stale-fact nomination accepted by the ratify owner. L3 → L4
(canon) also needs reminders from at least three distinct sessions and a
structured dissent record of the council before the owner may ratify. Who may
do what is the policy's call; what a promotion has gathered is recorded here.
"""

from __future__ import annotations

from enum import Enum
from uuid import UUID

from eventsourcing.domain import event
from pydantic import BaseModel, ConfigDict, field_validator

from memhall.domains.aggregate import Aggregate
from memhall.domains.errors import InvalidTransitionError, InvalidValueError
from memhall.domains.values import Layer

#: reminders from distinct sessions that canon needs (SPEC §3)
CANON_REMINDERS = 3


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

    class ReminderRecorded(Aggregate.Event):
        TOPIC = "memhall.Promotion.ReminderRecorded"
        session_id: str
        note: str
        counted: bool

    class DissentRecorded(Aggregate.Event):
        TOPIC = "memhall.Promotion.DissentRecorded"
        positions: tuple[Position, ...]

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
                 reason: str, actor: str, rule: str) -> None:
        self.entry_id = entry_id
        self.from_layer = from_layer
        self.to_layer = to_layer
        self.path = path
        self.reason = reason
        self.nominated_by = actor
        self.status = PromotionStatus.OPEN
        self.reminder_sessions: list[str] = []
        self.reminders = 0
        self.positions: list[Position] = []

    @classmethod
    def nominate(cls, entry_id: UUID, from_layer: Layer, to_layer: Layer, reason: str, *,
                 actor: str, rule: str) -> Promotion:
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
        return cls(entry_id=entry_id, from_layer=from_layer, to_layer=to_layer, path=path,
                   reason=reason.strip(), actor=actor, rule=rule)

    @property
    def is_open(self) -> bool:
        return self.status is PromotionStatus.OPEN

    def _require_open(self, doing: str) -> None:
        if not self.is_open:
            raise InvalidTransitionError(f"cannot {doing}: promotion {self.id} is {self.status.value}")

    def remind(self, session_id: str, note: str, *, actor: str, rule: str) -> bool:
        """Record a reminder; only one per session counts. Returns whether it counted."""
        self._require_open("remind")
        if not session_id:
            raise InvalidValueError("a reminder belongs to a session: pass --session or set MEMHALL_SESSION")
        counted = session_id not in self.reminder_sessions
        self._reminded(session_id=session_id, note=note, counted=counted, actor=actor, rule=rule)
        return counted

    @event(ReminderRecorded)
    def _reminded(self, session_id: str, note: str, counted: bool, actor: str, rule: str) -> None:
        self.reminders += 1
        if counted:
            self.reminder_sessions.append(session_id)

    def record_dissent(self, positions: tuple[Position, ...], *, actor: str, rule: str) -> None:
        self._require_open("record dissent")
        if not positions:
            raise InvalidValueError("a dissent record needs at least one member's position")
        members = [p.member for p in positions]
        if len(set(members)) != len(members):
            raise InvalidValueError("a dissent record gives each member one position")
        self._dissented(positions=positions, actor=actor, rule=rule)

    @event(DissentRecorded)
    def _dissented(self, positions: tuple[Position, ...], actor: str, rule: str) -> None:
        recorded = {p.member: p for p in self.positions}
        recorded.update({p.member: p for p in positions})
        self.positions = [recorded[m] for m in sorted(recorded)]

    @property
    def dissent_recorded(self) -> bool:
        return bool(self.positions)

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
        self._rejected(reason=reason, actor=actor, rule=rule)

    @event(Rejected)
    def _rejected(self, reason: str, actor: str, rule: str) -> None:
        self.status = PromotionStatus.REJECTED

    def withdraw(self, reason: str, *, actor: str, rule: str) -> None:
        self._require_open("withdraw")
        self._withdrawn(reason=reason or "withdrawn", actor=actor, rule=rule)

    @event(Withdrawn)
    def _withdrawn(self, reason: str, actor: str, rule: str) -> None:
        self.status = PromotionStatus.WITHDRAWN

    def progress(self) -> str:
        """What the promotion has gathered, in words ("2 of 3 reminders; no dissent recorded")."""
        if self.path is not PromotionPath.CANON:
            return "awaiting the ratify owner"
        dissent = (f"dissent recorded ({len(self.positions)} positions)" if self.positions
                   else "no dissent recorded")
        count = min(len(self.reminder_sessions), CANON_REMINDERS)
        return f"{count} of {CANON_REMINDERS} reminders; {dissent}"
