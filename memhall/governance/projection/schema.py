"""The read-model tables of one domain, as plain specs every writer shares.

One definition serves three writers — the SQLAlchemy tables readers query
(`memhall.governance.tables`), the lean DBAPI writer that appends and projects
(`memhall.governance.journal`), and the in-memory replay that `audit verify`
compares with — so a column cannot mean one thing to one and another to the
other. Stdlib only: the fast handoff path imports it without SQLAlchemy.

Column types are deliberately few. Times are stored as fixed-width ISO-8601
UTC text (`iso`), which sorts correctly as text on both backends; JSON values
as compact JSON text (`json_text`). Both are produced by the same functions
here for every writer, so the stored bytes never depend on which writer ran.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

from memhall.domains import moments
from memhall.domains.moments import from_iso
from memhall.governance.projection import codec

__all__ = ["from_iso", "iso"]

#: `moments.iso`, remembering its last results: every handler of an event normalises the
#: same timestamp (the entry, its audit row, its exposure, its thread...), and a replay
#: makes that call several times per event
iso = lru_cache(maxsize=256)(moments.iso)

TEXT, INT, POSITION, BOOL, TIME, JSON = "text", "int", "position", "bool", "time", "json"


class Col(NamedTuple):
    name: str
    type: str = TEXT
    nullable: bool = True


class TableSpec(NamedTuple):
    """One read model: its name after the domain prefix, its key, columns and indexes."""

    suffix: str
    key: str
    columns: tuple[Col, ...]
    #: index name suffix -> (columns, unique)
    indexes: tuple[tuple[str, tuple[str, ...], bool], ...] = ()
    #: indexes holding only the rows whose first column is not NULL: lookups by a value
    #: (an idempotency key, a claim's root, a session) never ask for NULL, and most rows
    #: have none, so a write that leaves them NULL touches no page of these indexes
    sparse: frozenset[str] = frozenset()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def column(self, name: str) -> Col:
        for col in self.columns:
            if col.name == name:
                return col
        raise KeyError(name)


def _req(name: str, type_: str = TEXT) -> Col:
    return Col(name, type_, nullable=False)


ENTRIES = TableSpec("entries", "id", (
    _req("id"), _req("layer"), _req("kind"), _req("text"), Col("interpretation"),
    _req("author"), Col("session_id"), _req("status"), _req("state"), _req("confidence", INT),
    _req("source_kind"), Col("source_agent_id"), Col("claim_root_id"),
    _req("evidence_refs", JSON), _req("people", JSON), _req("places", JSON), _req("topics", JSON),
    _req("pending_requests", JSON), _req("pointers", JSON), _req("dedup_key"),
    Col("idempotency_key"), Col("superseded_by"), _req("thread"), _req("occurred_at", TIME),
    _req("created_at", TIME), _req("updated_at", TIME), _req("created_position", POSITION),
    _req("position", POSITION),
), (
    ("entries_kind_time", ("kind", "status", "created_at", "created_position"), False),
    # a thread's latest state and candidate: one seek per (kind, layer) at handoff
    ("entries_thread", ("thread", "status", "kind", "layer", "created_position"), False),
    # a layer's entries, and its newest state entries of each kind (a handoff's open threads);
    # named anew when it took its last two columns, so that opening a SQLite store made
    # before builds it (`bulkload.restore`)
    ("entries_newest", ("layer", "status", "kind", "created_position"), False),
    ("entries_dedup", ("dedup_key",), False),
    ("entries_root", ("claim_root_id",), False),
    ("entries_idempotency", ("idempotency_key",), True),
    # the incubation pool reads unsettled claims at every handoff
    ("entries_state", ("state", "status"), False),
    # recall: the observer's newest memories, and the neighbours in time of a candidate
    ("entries_occurred", ("occurred_at", "created_position"), False),
    ("entries_session", ("session_id", "created_position"), False),
    # `beliefs` reads the newest claims first
    ("entries_created", ("created_position",), False),
), frozenset({"entries_root", "entries_idempotency", "entries_session"}))

SESSIONS = TableSpec("sessions", "id", (
    _req("id"), _req("principal"), _req("opened_at", TIME), _req("closed", BOOL),
    Col("summary_entry"), _req("position", POSITION),
))

PROMOTIONS = TableSpec("promotions", "id", (
    _req("id"), _req("entry_id"), _req("from_layer"), _req("to_layer"), _req("path"),
    _req("nominated_by"), _req("reason"), _req("status"),
    _req("reminder_sessions", JSON), _req("reminders", INT), _req("dissent", JSON),
    _req("council", JSON), Col("decided_by"), _req("created_at", TIME), _req("updated_at", TIME), _req("position", POSITION),
), (
    ("promotions_status", ("status", "created_at"), False),
    ("promotions_entry", ("entry_id",), False),
))

REQUESTS = TableSpec("requests", "id", (
    _req("id"), _req("seat"), _req("need"), _req("requested_by"), _req("status"),
    Col("answer_entry"), Col("answered_by"), _req("created_at", TIME), _req("expires_at", TIME),
    _req("position", POSITION),
), (("requests_status", ("status", "created_at"), False),))

MATERIALIZATIONS = TableSpec("materializations", "id", (
    _req("id"), _req("seat"), _req("task"), _req("by"), _req("log_position", POSITION),
    _req("ledger_a", JSON), _req("ledger_b", JSON), _req("ledger_c", JSON), _req("digest"),
    _req("created_at", TIME), _req("position", POSITION),
), (("materializations_seat", ("seat", "created_at"), False),))

AUDIT = TableSpec("audit", "position", (
    _req("position", POSITION), _req("at", TIME), _req("actor"), _req("action"),
    _req("decision"), _req("rule"), _req("resource_id"), _req("layer"), _req("topic"),
    _req("detail"),
), (("audit_actor", ("actor", "position"), False),))

#: the full-text rows of entries (SQLite FTS5; PostgreSQL indexes the entries table itself)
SEARCH = TableSpec("search", "entry_id", (_req("entry_id"), _req("body")))


#: who holds which entry, and how it reached them (SPEC §5 exposure, §6 "REMEMBERS"):
#: one row per (event, holder, entry). Chairs and the ratify owner hold their
#: whole domain by role — a rule (memhall.governance.exposure), not rows.
EXPOSURE = TableSpec("exposure", "id", (
    _req("id"), _req("holder"), _req("entry_id"), _req("via"), _req("position", POSITION),
    _req("at", TIME),
), (
    ("exposure_holder", ("holder", "entry_id", "position"), False),
    ("exposure_entry", ("entry_id", "position"), False),
))

#: the encoding each entry was written with (SPEC §7): its emotion and entities, as recorded
ENCODINGS = TableSpec("encodings", "entry_id", (
    _req("entry_id"), _req("encoder"), _req("encoder_version"), _req("emotion", JSON),
    _req("entities", JSON),
))

#: reconsolidation: the retrieval-metadata nudges one recall gave one holder's entry
NUDGES = TableSpec("nudges", "id", (
    _req("id"), _req("holder"), _req("entry_id"), _req("deltas", JSON), _req("position", POSITION),
    _req("at", TIME),
), (("nudges_holder", ("holder", "entry_id", "position"), False),))

#: subjective claims (issue 12): each observer's judgement of an entity by category, source
#: trust being the category `trust` (value 0..1); `history` is every step that moved it
OPINIONS = TableSpec("opinions", "id", (
    _req("id"), _req("observer"), _req("entity"), _req("category"), Col("topic"),
    _req("statement"), _req("stance"), _req("confidence", INT), Col("value", JSON),
    _req("evidence", JSON), _req("version", INT), _req("active", BOOL), _req("history", JSON),
    _req("created_at", TIME), _req("updated_at", TIME), _req("position", POSITION),
), (
    ("opinions_observer", ("observer", "category", "entity"), False),
    ("opinions_entity", ("entity", "category"), False),
))

#: evidence on claim roots (SPEC §5): one row per piece, in log order per root; what it did
#: to the hall's belief is in `revision` (the claim's entry row carries the result)
EVIDENCE = TableSpec("evidence", "id", (
    _req("id"), _req("claim_root"), _req("claim_entry"), _req("kind"), _req("source_kind"),
    _req("actor"), Col("from_agent"), Col("ref"), Col("text"), _req("via"), Col("entry_id"),
    _req("revision"), _req("occurred_at", TIME), _req("recorded_at", TIME),
    _req("position", POSITION),
), (
    ("evidence_root", ("claim_root", "position"), False),
    ("evidence_actor", ("actor", "position"), False),
))

#: relationships between two entities (issue 12 §3): objective, public or private to a
#: perspective, with evidence ids; `history` is every version (recorded, revised, ended)
RELATIONSHIPS = TableSpec("relationships", "id", (
    _req("id"), _req("source"), _req("target"), _req("kind"), _req("visibility"), Col("perspective"),
    _req("evidence", JSON), _req("note"), _req("version", INT), _req("active", BOOL),
    _req("history", JSON), _req("occurred_at", TIME), _req("created_at", TIME), _req("updated_at", TIME),
    _req("position", POSITION),
), (
    ("relationships_source", ("source", "active"), False),
    ("relationships_target", ("target", "active"), False),
))

#: the threads entries continue (`--thread`, else the first topic, else `@author`): one row
#: each, newest write last, so a handoff finds the open threads without scanning entries
THREADS = TableSpec("threads", "thread", (
    _req("thread"), _req("entries", INT), _req("last_entry"), _req("last_at", TIME),
    _req("position", POSITION),
), (("threads_position", ("position",), False),))

#: every read model `rebuild` may drop and replay, and `audit verify` recomputes
READ_MODELS: tuple[TableSpec, ...] = (ENTRIES, SESSIONS, PROMOTIONS, REQUESTS, MATERIALIZATIONS, AUDIT,
                                      EXPOSURE, ENCODINGS, NUDGES, OPINIONS, EVIDENCE, RELATIONSHIPS, THREADS)
#: read models of earlier versions, which `rebuild` drops: `lived`, one row holding the domain's
#: 100 newest lived writes for a chair's mood, rewritten (8 KB of JSON) by every write; the mood
#: reads the newest entries through `entries_created` instead
RETIRED: tuple[str, ...] = ("lived",)
BY_SUFFIX = {spec.suffix: spec for spec in (*READ_MODELS, SEARCH)}


def json_text(value: Any, *, stored: bool = True) -> str:
    """The compact JSON text stored for `value` (`codec.dumps`)."""
    return codec.dumps(value, stored=stored).decode()


def to_sql(spec: TableSpec, row: dict[str, Any], *, stored: bool = True) -> tuple[Any, ...]:
    """A row's values in column order, as stored (JSON as text); without `stored`, text that
    is only decoded again (`codec.dumps`)."""
    return tuple(json_text(row[c.name], stored=stored) if c.type == JSON else row[c.name] for c in spec.columns)


def from_sql(spec: TableSpec, values: tuple[Any, ...] | list[Any]) -> dict[str, Any]:
    """A stored row back to the values the projection produced (for comparison)."""
    row: dict[str, Any] = {}
    for col, value in zip(spec.columns, values):
        if value is None:
            row[col.name] = None
        elif col.type == JSON:
            row[col.name] = codec.loads(value)
        elif col.type == BOOL:
            row[col.name] = bool(value)
        elif col.type in (INT, POSITION):
            row[col.name] = int(value)
        else:
            row[col.name] = str(value)
    return row

