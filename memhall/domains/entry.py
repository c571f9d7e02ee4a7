"""The Entry aggregate: one memory in the hall, one stream per entry.

What a writer asks to record is a draft (`memhall.domains.drafts`): the names callers take
from here (`draft`, `EntryDraft`, `Tags`, `tags`, `foreign_owner`) are that module's."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from eventsourcing.domain import event

from memhall.domains.aggregate import Aggregate, created
from memhall.domains.drafts import EntryDraft as EntryDraft
from memhall.domains.drafts import Provenance as Provenance
from memhall.domains.drafts import Tags as Tags
from memhall.domains.drafts import draft as draft
from memhall.domains.drafts import foreign_owner as foreign_owner
from memhall.domains.drafts import tags as tags
from memhall.domains.dynamics.encoding import EncodingRecord
from memhall.domains.errors import InvalidTransitionError, InvalidValueError
from memhall.domains.values import BeliefState, Kind, Layer, Status, clean_text


class Entry(Aggregate):
    TOPIC = "memhall.Entry"

    class Created(Aggregate.Created):
        TOPIC = "memhall.Entry.Created"

    class Written(Created):
        TOPIC = "memhall.Entry.Written"
        domain: str
        layer: Layer
        kind: Kind
        text: str
        interpretation: str | None
        tags: Tags
        provenance: Provenance
        confidence: int
        session_id: str | None
        dedup_key: str
        pending_requests: tuple[str, ...]
        pointers: tuple[str, ...]
        idempotency_key: str | None = None
        thread: str | None = None
        occurred_at: datetime | None = None
        addressees: tuple[str, ...] = ()
        participants: tuple[str, ...] = ()
        #: the encoder's output at write time (emotion, entities); None before encoding existed
        encoding: EncodingRecord | None = None

    class Superseded(Aggregate.Event):
        TOPIC = "memhall.Entry.Superseded"
        by_entry: UUID
        #: why the old entry no longer holds (a manual supersede needs it or evidence)
        reason: str | None = None

    class Retired(Aggregate.Event):
        TOPIC = "memhall.Entry.Retired"
        reason: str

    class OpenLoopClosed(Aggregate.Event):
        TOPIC = "memhall.Entry.OpenLoopClosed"
        by_entry: UUID | None
        note: str

    class Promoted(Aggregate.Event):
        TOPIC = "memhall.Entry.Promoted"
        from_layer: Layer
        to_layer: Layer
        promotion_id: UUID | None
        answers: dict[str, str]

    class Demoted(Aggregate.Event):
        TOPIC = "memhall.Entry.Demoted"
        from_layer: Layer
        to_layer: Layer
        reason: str

    @event(Written)
    def __init__(
        self,
        *,
        domain: str,
        layer: Layer,
        kind: Kind,
        text: str,
        interpretation: str | None,
        tags: Tags,
        provenance: Provenance,
        confidence: int,
        session_id: str | None,
        dedup_key: str,
        pending_requests: tuple[str, ...],
        pointers: tuple[str, ...],
        idempotency_key: str | None,
        actor: str,
        rule: str,
        thread: str | None = None,
        occurred_at: datetime | None = None,
        addressees: tuple[str, ...] = (),
        participants: tuple[str, ...] = (),
        encoding: EncodingRecord | None = None,
    ) -> None:
        self.domain = domain
        self.encoding = encoding
        self.thread = thread
        self.occurred_at = occurred_at
        self.addressees = addressees
        self.participants = participants
        self.layer = layer
        self.kind = kind
        self.text = text
        self.interpretation = interpretation
        self.tags = tags
        self.provenance = provenance
        self.confidence = confidence
        self.session_id = session_id
        self.dedup_key = dedup_key
        self.pending_requests = pending_requests
        self.pointers = pointers
        self.author = actor
        self.state = BeliefState.INFLUENCING
        self.status = Status.ACTIVE
        self.superseded_by: UUID | None = None
        self.layers_held: list[Layer] = [layer]

    @classmethod
    def write(
        cls, domain: str, entry: EntryDraft, *, actor: str, rule: str, implanted: int,
        encoding: EncodingRecord | None = None, dedup_key: str | None = None,
    ) -> Entry:
        """`dedup_key`: the draft's, when the caller has worked it out already."""
        if entry.layer not in (Layer.L1, Layer.L2):
            raise InvalidValueError(
                f"cannot write at {entry.layer.value}: L3 and L4 are reached only by promotion"
            )
        if entry.occurred_at is not None and entry.occurred_at > cls.Written.create_timestamp():
            raise InvalidValueError(f"occurred_at {entry.occurred_at.isoformat()} is later than now: "
                                    "what is recorded has happened already (--at)")
        return created(
            cls, cls.Written,
            domain=domain,
            layer=entry.layer,
            kind=entry.kind,
            text=entry.text,
            interpretation=entry.interpretation,
            tags=entry.tags,
            provenance=entry.provenance,
            confidence=entry.initial_confidence(implanted),
            session_id=entry.session_id,
            dedup_key=dedup_key or entry.dedup_key(),
            pending_requests=entry.pending_requests,
            pointers=entry.pointers,
            idempotency_key=entry.idempotency_key,
            actor=actor,
            rule=rule,
            thread=entry.thread,
            occurred_at=entry.occurred_at,
            addressees=entry.addressees,
            participants=entry.participants,
            encoding=encoding,
        )

    @property
    def is_active(self) -> bool:
        return self.status is Status.ACTIVE

    def _require_active(self, doing: str) -> None:
        if self.status is not Status.ACTIVE:
            raise InvalidTransitionError(
                f"cannot {doing} entry {self.id}: it is {self.status.value}"
            )

    def supersede(self, by_entry: UUID, *, actor: str, rule: str, reason: str | None = None) -> None:
        self._require_active("supersede")
        if reason is not None:
            clean_text(reason, "reason")
        self._superseded(by_entry=by_entry, reason=reason, actor=actor, rule=rule)

    @event(Superseded)
    def _superseded(self, by_entry: UUID, reason: str | None, actor: str, rule: str) -> None:
        self.status = Status.SUPERSEDED
        self.superseded_by = by_entry

    def retire(self, reason: str, *, actor: str, rule: str) -> None:
        if self.status is Status.RETIRED:
            raise InvalidTransitionError(f"entry {self.id} is already retired")
        if not reason.strip():
            raise InvalidValueError("retiring needs a reason")
        clean_text(reason, "reason")
        self._retired(reason=reason, actor=actor, rule=rule)

    @event(Retired)
    def _retired(self, reason: str, actor: str, rule: str) -> None:
        self.status = Status.RETIRED

    def close_loop(self, by_entry: UUID | None, note: str, *, actor: str, rule: str) -> None:
        if self.kind is not Kind.OPEN_LOOP:
            raise InvalidTransitionError(f"entry {self.id} is a {self.kind.value}, not an open loop")
        self._require_active("close")
        clean_text(note, "note")
        self._loop_closed(by_entry=by_entry, note=note, actor=actor, rule=rule)

    @event(OpenLoopClosed)
    def _loop_closed(self, by_entry: UUID | None, note: str, actor: str, rule: str) -> None:
        self.status = Status.CLOSED

    def promote(
        self,
        to_layer: Layer,
        *,
        promotion_id: UUID | None,
        answers: dict[str, str],
        actor: str,
        rule: str,
    ) -> None:
        self._require_active("promote")
        if to_layer is not self.layer.next():
            raise InvalidTransitionError(
                f"cannot promote entry {self.id} from {self.layer.value} to {to_layer.value}: "
                "promotion moves one layer up"
            )
        self._promoted(
            from_layer=self.layer,
            to_layer=to_layer,
            promotion_id=promotion_id,
            answers=answers,
            actor=actor,
            rule=rule,
        )

    @event(Promoted)
    def _promoted(
        self,
        from_layer: Layer,
        to_layer: Layer,
        promotion_id: UUID | None,
        answers: dict[str, str],
        actor: str,
        rule: str,
    ) -> None:
        self.layer = to_layer
        self.layers_held.append(to_layer)

    def demote(self, to_layer: Layer, reason: str, *, actor: str, rule: str) -> None:
        self._require_active("demote")
        if to_layer is not self.layer.previous() or to_layer is Layer.L1:
            raise InvalidTransitionError(
                f"cannot demote entry {self.id} from {self.layer.value} to {to_layer.value}: "
                "demotion moves one layer down, L4 → L3 or L3 → L2"
            )
        if not reason.strip():
            raise InvalidValueError("demotion needs a reason")
        clean_text(reason, "reason")
        self._demoted(from_layer=self.layer, to_layer=to_layer, reason=reason, actor=actor, rule=rule)

    @event(Demoted)
    def _demoted(
        self, from_layer: Layer, to_layer: Layer, reason: str, actor: str, rule: str
    ) -> None:
        self.layer = to_layer
        self.layers_held.append(to_layer)
