"""The tables of one domain, all named after it: events, read models, chain.

Every domain gets its own event table and its own read-model tables, so a
reader bound to one domain cannot see another's rows: isolation by
construction, not by a WHERE clause. Domain names are strict slugs
(`memhall.domains.values.domain_name`), which makes them safe in table names.
"""

from __future__ import annotations

from functools import cache

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

#: the system stream: refusals that name no existing domain (its prefix is not
#: a valid domain name, so it can never collide with one)
SYSTEM = "0sys"

registry_metadata = MetaData()

#: domains that exist in this store (a global index; each domain's own first
#: event is `Domain.Opened` in its own stream)
domains_table = Table(
    "mh_domains",
    registry_metadata,
    Column("name", String(40), primary_key=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("created_by", String(64), nullable=False),
)

#: one row: this store's identity, so a checkpoint file names the store it was
#: taken of (a restored older copy keeps it; a different store does not)
store_table = Table(
    "mh_store",
    registry_metadata,
    Column("key", String(8), primary_key=True),
    Column("id", String(36), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

Position = BigInteger().with_variant(Integer(), "sqlite")


class DomainTables:
    """Table objects of one domain (nothing is created until `create`)."""

    def __init__(self, domain: str) -> None:
        self.domain = domain
        self.prefix = f"mh_{domain}_"
        self.events_name = self.prefix + "events"
        self.search_name = self.prefix + "search"
        md = self.metadata = MetaData()
        p = self.prefix
        self.entries = Table(
            p + "entries",
            md,
            Column("id", String(36), primary_key=True),
            Column("layer", String(2), nullable=False),
            Column("kind", String(16), nullable=False),
            Column("text", Text, nullable=False),
            Column("interpretation", Text),
            Column("author", String(64), nullable=False),
            Column("session_id", String(64)),
            Column("status", String(16), nullable=False),
            Column("state", String(16), nullable=False),
            Column("confidence", Integer, nullable=False),
            Column("source_kind", String(16), nullable=False),
            Column("source_agent_id", String(64)),
            Column("claim_root_id", String(64)),
            Column("evidence_refs", JSON, nullable=False),
            Column("people", JSON, nullable=False),
            Column("places", JSON, nullable=False),
            Column("topics", JSON, nullable=False),
            Column("pending_requests", JSON, nullable=False),
            Column("pointers", JSON, nullable=False),
            Column("dedup_key", String(64), nullable=False),
            Column("idempotency_key", String(128)),
            Column("superseded_by", String(36)),
            Column("created_at", DateTime(timezone=True), nullable=False),
            Column("updated_at", DateTime(timezone=True), nullable=False),
            Column("created_position", Position, nullable=False),
            Column("position", Position, nullable=False),
            Index(p + "entries_kind_time", "kind", "status", "created_at", "created_position"),
            Index(p + "entries_layer", "layer", "status"),
            Index(p + "entries_dedup", "dedup_key"),
            Index(p + "entries_idempotency", "idempotency_key", unique=True),
        )
        self.sessions = Table(
            p + "sessions",
            md,
            Column("id", String(36), primary_key=True),
            Column("principal", String(64), nullable=False),
            Column("opened_at", DateTime(timezone=True), nullable=False),
            Column("closed", Boolean, nullable=False),
            Column("summary_entry", String(36)),
        )
        self.promotions = Table(
            p + "promotions",
            md,
            Column("id", String(36), primary_key=True),
            Column("entry_id", String(36), nullable=False),
            Column("from_layer", String(2), nullable=False),
            Column("to_layer", String(2), nullable=False),
            Column("path", String(16), nullable=False),
            Column("nominated_by", String(64), nullable=False),
            Column("reason", Text, nullable=False),
            Column("status", String(12), nullable=False),  # open|ratified|rejected|withdrawn
            Column("reminder_sessions", JSON, nullable=False),  # distinct sessions that counted
            Column("reminders", Integer, nullable=False),  # all reminders, counted or not
            Column("dissent", JSON, nullable=False),  # positions of the council, [] if none
            Column("decided_by", String(64)),
            Column("created_at", DateTime(timezone=True), nullable=False),
            Column("updated_at", DateTime(timezone=True), nullable=False),
            Column("position", Position, nullable=False),
            Index(p + "promotions_status", "status", "created_at"),
            Index(p + "promotions_entry", "entry_id"),
        )
        self.requests = Table(
            p + "requests",
            md,
            Column("id", String(36), primary_key=True),
            Column("seat", String(64), nullable=False),
            Column("need", Text, nullable=False),
            Column("requested_by", String(64), nullable=False),
            Column("status", String(12), nullable=False),  # open|answered|expired
            Column("answer_entry", String(36)),
            Column("answered_by", String(64)),
            Column("created_at", DateTime(timezone=True), nullable=False),
            Column("expires_at", DateTime(timezone=True), nullable=False),
            Column("position", Position, nullable=False),
            Index(p + "requests_status", "status", "created_at"),
        )
        self.materializations = Table(
            p + "materializations",
            md,
            Column("id", String(36), primary_key=True),
            Column("seat", String(64), nullable=False),
            Column("task", Text, nullable=False),
            Column("by", String(64), nullable=False),
            Column("log_position", Position, nullable=False),
            Column("ledger_a", JSON, nullable=False),
            Column("ledger_b", JSON, nullable=False),
            Column("ledger_c", JSON, nullable=False),
            Column("digest", String(64), nullable=False),
            Column("created_at", DateTime(timezone=True), nullable=False),
            Column("position", Position, nullable=False),
            Index(p + "materializations_seat", "seat", "created_at"),
        )
        # Every event, allowed or refused, as a reviewable row (SPEC §8).
        self.audit = Table(
            p + "audit",
            md,
            Column("position", Position, primary_key=True),
            Column("at", DateTime(timezone=True), nullable=False),
            Column("actor", String(64), nullable=False),
            Column("action", String(40), nullable=False),
            Column("decision", String(8), nullable=False),
            Column("rule", String(128), nullable=False),
            Column("resource_id", String(64), nullable=False),
            Column("layer", String(2), nullable=False),
            Column("topic", String(96), nullable=False),
            Column("detail", Text, nullable=False),
            Index(p + "audit_actor", "actor", "position"),
        )
        # The hash chain is not a projection: it is never rebuilt from the log.
        self.chain = Table(
            p + "chain",
            md,
            Column("position", Position, primary_key=True),
            Column("head", String(64), nullable=False),
        )

    @property
    def projections(self) -> tuple[Table, ...]:
        """Read models that `rebuild` may drop and replay (never the chain)."""
        return (self.entries, self.sessions, self.promotions, self.requests,
                self.materializations, self.audit)


@cache
def tables_for(domain: str) -> DomainTables:
    return DomainTables(domain)
