"""The tables of one domain, all named after it: events, read models, chain, head.

Every domain gets its own event table and its own read-model tables, so a
reader bound to one domain cannot see another's rows: isolation by
construction, not by a WHERE clause. Domain names are strict slugs
(`memhall.domains.values.domain_name`), which makes them safe in table names.
The read models are built from the specs in `projection.schema`, the one
definition every writer shares.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any

import orjson
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Dialect,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    text,
)

from memhall.governance.projection import schema
from memhall.governance.projection.schema import from_iso, iso, json_text

#: the system stream: refusals that name no existing domain (its prefix is not
#: a valid domain name, so it can never collide with one)
SYSTEM = "0sys"

registry_metadata = MetaData()

#: domains that exist in this store (a global index; each domain's own first
#: event is `Domain.Opened` in its own stream, from which `rebuild` restores it)
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

#: a store's own settings (key -> value): where its checkpoints live, whether wrap-up takes one
settings_table = Table(
    "mh_settings",
    registry_metadata,
    Column("key", String(40), primary_key=True),
    Column("value", Text, nullable=False),
)

Position = BigInteger().with_variant(Integer(), "sqlite")

#: PostgreSQL: read models' text compares and sorts by its bytes (collation "C"), as SQLite's
#: does (BINARY): the same order on both backends whatever the server's locale, and B-trees
#: built and searched without the locale's rules (a btree on text built 10-35 % faster here)
BYTEWISE = "C"
Words = Text().with_variant(Text(collation=BYTEWISE), "postgresql")
Stamp = String(32).with_variant(String(32, collation=BYTEWISE), "postgresql")


class IsoTime(TypeDecorator[datetime]):
    """A time stored as fixed-width ISO-8601 UTC text (`schema.iso`)."""

    impl = Stamp
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        return None if value is None else iso(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        return None if value is None else from_iso(value)


class JsonText(TypeDecorator[Any]):
    """A JSON value stored as compact text (`schema.json_text`)."""

    impl = Words
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        return None if value is None else json_text(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> Any:
        return None if value is None else orjson.loads(value)


_TYPES: dict[str, Any] = {
    schema.TEXT: Words, schema.INT: Integer, schema.POSITION: Position, schema.BOOL: Boolean,
    schema.TIME: IsoTime, schema.JSON: JsonText,
}


def _table(spec: schema.TableSpec, prefix: str, metadata: MetaData) -> Table:
    columns = [Column(c.name, _TYPES[c.type], primary_key=c.name == spec.key, nullable=c.nullable)
               for c in spec.columns]
    indexes = [Index(prefix + name, *cols, unique=unique,
                     **_where(cols[0] if name in spec.sparse else None))
               for name, cols, unique in spec.indexes]
    return Table(prefix + spec.suffix, metadata, *columns, *indexes)


def _where(column: str | None) -> dict[str, Any]:
    """A partial index's predicate on both backends: only rows where `column` is set."""
    if column is None:
        return {}
    where = text(f"{column} IS NOT NULL")
    return {"sqlite_where": where, "postgresql_where": where}


class DomainTables:
    """Table objects of one domain (nothing is created until `create`)."""

    def __init__(self, domain: str) -> None:
        self.domain = domain
        self.prefix = f"mh_{domain}_"
        self.events_name = self.prefix + "events"
        self.search_name = self.prefix + "search"
        self.head_name = self.prefix + "head"
        md = self.metadata = MetaData()
        self.entries = _table(schema.ENTRIES, self.prefix, md)
        self.sessions = _table(schema.SESSIONS, self.prefix, md)
        self.promotions = _table(schema.PROMOTIONS, self.prefix, md)
        self.requests = _table(schema.REQUESTS, self.prefix, md)
        self.materializations = _table(schema.MATERIALIZATIONS, self.prefix, md)
        # Every event, allowed or refused, as a reviewable row (SPEC §8).
        self.audit = _table(schema.AUDIT, self.prefix, md)
        self.exposure = _table(schema.EXPOSURE, self.prefix, md)
        self.encodings = _table(schema.ENCODINGS, self.prefix, md)
        self.nudges = _table(schema.NUDGES, self.prefix, md)
        self.opinions = _table(schema.OPINIONS, self.prefix, md)
        self.evidence = _table(schema.EVIDENCE, self.prefix, md)
        self.relationships = _table(schema.RELATIONSHIPS, self.prefix, md)
        self.threads = _table(schema.THREADS, self.prefix, md)
        # The hash chain is not a projection: it is never rebuilt from the log.
        self.chain = Table(
            self.prefix + "chain",
            md,
            Column("position", Position, primary_key=True),
            Column("head", String(64), nullable=False),
        )

    @property
    def projections(self) -> tuple[Table, ...]:
        """Read models that `rebuild` may drop and replay (never the chain)."""
        return (self.entries, self.sessions, self.promotions, self.requests,
                self.materializations, self.audit, self.exposure, self.encodings, self.nudges,
                self.opinions, self.evidence, self.threads,
                self.relationships)


@cache
def tables_for(domain: str) -> DomainTables:
    return DomainTables(domain)
