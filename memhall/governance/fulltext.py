"""The full-text index of a domain's entries: one query, for history search
and for the lexical recall channel (SQLite FTS5 with BM25; PostgreSQL
tsvector with ts_rank over an expression GIN index)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from sqlalchemy import Connection, text

from memhall.governance.tables import DomainTables

#: the PostgreSQL document; the GIN index is built on exactly this expression
DOCUMENT = "to_tsvector('simple', text || ' ' || coalesce(interpretation, ''))"

_WORD = re.compile(r"\w+", re.UNICODE)


def create_sql(tables: DomainTables, dialect: str) -> list[str]:
    """The full-text index of a domain's entries (idempotent)."""
    if dialect == "sqlite":
        return [f"CREATE VIRTUAL TABLE IF NOT EXISTS {tables.search_name} "
                "USING fts5(entry_id UNINDEXED, body, tokenize='unicode61 remove_diacritics 2')"]
    return [f"CREATE INDEX IF NOT EXISTS {tables.prefix}entries_fts ON "
            f"{tables.entries.name} USING GIN ({DOCUMENT})"]


def words_of(query: str) -> list[str]:
    return _WORD.findall(query)


def match(conn: Connection, tables: DomainTables, dialect: str, words: Sequence[str], *,
          any_word: bool, limit: int) -> list[tuple[str, float]]:
    """Entry ids matching all (or any) of `words`, best first, higher score better;
    ties broken by id so that the same index gives the same order."""
    words = [w for w in (re.sub(r"\W", "", w) for w in words) if w]
    if not words:
        return []
    if dialect == "sqlite":
        terms = (" OR " if any_word else " ").join(f'"{w}"' for w in words)
        rows = conn.execute(text(
            f"SELECT entry_id, bm25({tables.search_name}) AS s FROM {tables.search_name} "
            f"WHERE {tables.search_name} MATCH :q ORDER BY s, entry_id LIMIT :k"),
            {"q": terms, "k": limit}).all()
        return [(str(r[0]), -float(r[1])) for r in rows]
    query = "to_tsquery('simple', :q)"
    rows = conn.execute(text(
        f"SELECT id, ts_rank({DOCUMENT}, {query}) AS s FROM {tables.entries.name} "
        f"WHERE {DOCUMENT} @@ {query} ORDER BY s DESC, id LIMIT :k"),
        {"q": (" | " if any_word else " & ").join(words), "k": limit}).all()
    return [(str(r[0]), float(r[1])) for r in rows]
