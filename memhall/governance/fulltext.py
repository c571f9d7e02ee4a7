"""The full-text index of a domain's entries and its one analyser, for history search
and for recall's lexical channel.

SQLite: FTS5 with the porter tokenizer (so "painted" finds "paint"), ranked by
BM25. PostgreSQL: the `english` text-search configuration, each entry's document
kept in a stored generated column (`document`) with a GIN index on it, ranked by
ts_rank. The column, not the expression: ts_rank reads each match's document, and
an expression index cannot give it back, so a query recomputed it for every row
that matched (recall's lexical queries at 100k entries: 40-58 ms against 6-10 ms,
medians). A rebuild computes the documents as it copies the rows in, beside the
replay, and its GIN build at the end reads them (2.2 s against 6.4 s at 100k): on
two cores the rebuild as a whole takes as long as before. A store an earlier
version made keeps its expression index until `memhall rebuild` (`document`).
Both index the same document (text,
interpretation, tags) and both drop English stop words from a query and OR its
words (`websearch_to_tsquery` would AND them): a natural question never comes
back empty because one of its words is missing. The two rank slightly
differently; quality is measured on SQLite.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from sqlalchemy import Connection

from memhall.governance.document import COLUMN, DOCUMENT, HAS_COLUMN_SQL, has_column
from memhall.governance.store import raw
from memhall.governance.tables import DomainTables

TOKENIZER = "porter unicode61 remove_diacritics 2"
MAX_WORDS = 32

_WORD = re.compile(r"\w+", re.UNICODE)

#: English stop words (NLTK's list, plus a few words every question carries)
STOP_WORDS = frozenset("""
a about above after again against all am an and any are aren as at be because been before being
below between both but by can couldn did didn do does doesn doing don down during each else ever
few for from further had hadn has hasn have haven having he her here hers herself him himself his
how i if in into is isn it its itself just ll me might more most mustn my myself needn no nor not
now of off on once only or other our ours ourselves out over own re s same shan she should
shouldn so some such t than that the their theirs them themselves then there these they this
those through to too under until up ve very was wasn we were weren what when where which while
who whom why will with won would wouldn y you your yours yourself yourselves also yes ok okay
anything something anyone someone ever get got
""".split())


def create_sql(tables: DomainTables, dialect: str) -> list[str]:
    """The full-text index of a domain's entries (idempotent): `table_sql`, then on PostgreSQL
    the GIN index on the document column (on entries an earlier version filled, without the
    column, the expression index they had)."""
    if dialect == "sqlite":
        return table_sql(tables, dialect)
    entries = tables.entries.name
    return [*table_sql(tables, dialect),
            f"DO $$ BEGIN IF {HAS_COLUMN_SQL.format(table=entries)} THEN "
            f"CREATE INDEX IF NOT EXISTS {tables.prefix}entries_document ON {entries} USING GIN ({COLUMN}); "
            f"ELSE CREATE INDEX IF NOT EXISTS {tables.prefix}entries_fts_en ON {entries} USING GIN ({DOCUMENT}); "
            "END IF; END $$"]


def table_sql(tables: DomainTables, dialect: str) -> list[str]:
    """What the index needs before the first row (idempotent). SQLite: the full-text tables.
    PostgreSQL: the entries' document column, added to entries that have none yet and no rows
    (a table just made: nothing to rewrite). Where it is there already, nothing is done and no
    lock taken (a rebuild builds the GIN index while other indexes of entries are built);
    entries an earlier version filled are left as they are, searched by the expression, until
    `memhall rebuild` makes them again (adding the column would rewrite the table, locked)."""
    if dialect == "sqlite":
        return [f"CREATE VIRTUAL TABLE IF NOT EXISTS {tables.search_name} "
                f"USING fts5(entry_id UNINDEXED, body, tokenize='{TOKENIZER}')",
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {vocabulary(tables)} "
                f"USING fts5vocab({tables.search_name}, 'row')"]
    entries = tables.entries.name
    return [f"DO $$ BEGIN IF NOT {HAS_COLUMN_SQL.format(table=entries)} AND NOT EXISTS "
            f"(SELECT 1 FROM {entries} LIMIT 1) THEN ALTER TABLE {entries} ADD COLUMN {COLUMN} tsvector "
            f"GENERATED ALWAYS AS ({DOCUMENT}) STORED; END IF; END $$"]


def document(conn: Connection, tables: DomainTables) -> str:
    """PostgreSQL: the entries' document, as a query names it: the stored column; in a store
    an earlier version made (its entries without the column, until `memhall rebuild`), the
    expression its GIN index is built on. A connection that found the column keeps knowing
    it (a rebuild makes it again); one that did not looks each time, so a rebuild by another
    process is seen at once."""
    known: set[str] = conn.info.setdefault("memhall_documents", set())
    table = tables.entries.name
    if table in known:
        return COLUMN
    if has_column(raw(conn), table):
        known.add(table)
        return COLUMN
    return DOCUMENT


def drop_sql(tables: DomainTables, dialect: str) -> list[str]:
    if dialect == "sqlite":
        return [f"DROP TABLE IF EXISTS {vocabulary(tables)}", f"DROP TABLE IF EXISTS {tables.search_name}"]
    return []


def optimize_sql(tables: DomainTables, dialect: str) -> list[str]:
    """After a bulk load (an import, a rebuild): SQLite's full-text index merged into one
    segment (a batch at a time leaves a score of them, and every match reads each: ~9 % of a
    recall at 100k entries). PostgreSQL's GIN index needs nothing of the kind."""
    if dialect == "sqlite":
        return [f"INSERT INTO {tables.search_name}({tables.search_name}) VALUES ('optimize')"]
    return []


def vocabulary(tables: DomainTables) -> str:
    """The FTS5 vocabulary table: each indexed (stemmed) term and how many entries hold it."""
    return tables.search_name + "_vocab"


def words_of(query: str) -> list[str]:
    return _WORD.findall(query)


def terms_of(query: str) -> tuple[str, ...]:
    """The words a query is searched by: lower case, stop words out, each once, at most
    MAX_WORDS (what `search` and recall's lexical channel both send)."""
    words = [w for w in _WORD.findall(query.casefold())
             if w not in STOP_WORDS and (len(w) > 1 or not w.isascii())]
    return tuple(dict.fromkeys(words))[:MAX_WORDS]


def stem(word: str) -> str:
    """The porter stem of a word, as the SQLite index stores it (PyStemmer's Porter)."""
    return str(_stemmer().stemWord(word.casefold()))


def stems(text_: str) -> set[str]:
    """The porter stems of a text's words (one call into the stemmer for all of them)."""
    return set(_stemmer().stemWords(_WORD.findall(text_.casefold())))


@cache
def _stemmer() -> Any:
    import Stemmer  # type: ignore[import-not-found]  # PyStemmer ships no type hints

    return Stemmer.Stemmer("porter")


def _rows(conn: Connection, sql: str, params: dict[str, Any]) -> list[Any]:
    """Rows of `sql` (with `:name` parameters) on the DBAPI connection under `conn`, in its
    transaction: recall makes a handful of these reads per call, and SQLAlchemy's statement
    handling cost as much as the smaller reads themselves."""
    cursor = raw(conn).cursor()
    if conn.dialect.name != "sqlite":  # psycopg's named parameters
        sql = re.sub(r"(?<!:):([A-Za-z_]\w*)", r"%(\1)s", sql)
    cursor.execute(sql, params)
    return list(cursor.fetchall())


def match(conn: Connection, tables: DomainTables, dialect: str, words: Sequence[str], *,
          any_word: bool = True, limit: int, holder: str | None = None,
          at: int | None = None) -> list[tuple[str, float]]:
    """Entry ids matching any (or all) of `words`, best first, higher score better;
    ties broken by the entry's log position, so the same index gives the same order.
    With `holder`, only the entries it holds by exposure (as of position `at`)."""
    words = [w for w in (re.sub(r"\W", "", w) for w in words) if w]
    if not words:
        return []
    params: dict[str, Any] = {"k": limit, "h": holder, "at": at}
    if dialect == "sqlite":
        params["q"] = (" OR " if any_word else " AND ").join(f'"{w}"' for w in words)
        return [(str(r[0]), -float(r[1])) for r in _rows(conn, _sqlite_sql(conn, tables, holder, at), params)]
    query, doc = "to_tsquery('english', :q)", document(conn, tables)
    params["q"] = (" | " if any_word else " & ").join(words)
    rows = _rows(conn,
        f"SELECT e.id, ts_rank({doc}, {query}) AS score FROM {tables.entries.name} AS e "
        f"WHERE {doc} @@ {query}{_scope_sql(tables, holder, at)} "
        "ORDER BY score DESC, e.created_position LIMIT :k", params)
    return [(str(r[0]), float(r[1])) for r in rows]


def _sqlite_sql(conn: Connection, tables: DomainTables, holder: str | None, at: int | None) -> str:
    """The FTS5 query. A search row is inserted once, when its entry is written, so its
    rowid follows the log position: ties go by rowid, and the entries table is joined only
    when a whole-domain reader looks back in time. FTS5 scores every row that holds a
    word; joining the entries table for each of them was most of the cost of a common word
    (10k rows: 187 ms, 35 ms without it), and reading the entry id of each another 40 %."""
    search = tables.search_name
    if holder is not None:
        # an entry is exposed at or after the position that wrote it: this cuts `at` too
        bound = "" if at is None else " AND x.position <= :at"
        return (f"SELECT s.entry_id, bm25({search}) AS score FROM {search} AS s WHERE {search} MATCH :q "
                f"AND s.entry_id IN (SELECT x.entry_id FROM {tables.exposure.name} AS x WHERE x.holder = :h"
                f"{bound}) ORDER BY score, s.rowid LIMIT :k")
    if at is not None and at < _newest_entry(conn, tables):
        return (f"SELECT s.entry_id, bm25({search}) AS score FROM {search} AS s JOIN {tables.entries.name} "
                f"AS e ON e.id = s.entry_id WHERE {search} MATCH :q AND e.created_position <= :at "
                "ORDER BY score, e.created_position LIMIT :k")
    return (f"SELECT s.entry_id, t.score FROM (SELECT rowid AS r, bm25({search}) AS score FROM {search} "
            f"WHERE {search} MATCH :q ORDER BY score, rowid LIMIT :k) AS t JOIN {search} AS s ON s.rowid = t.r "
            "ORDER BY t.score, t.r")


def _newest_entry(conn: Connection, tables: DomainTables) -> int:
    found = _rows(conn, f"SELECT max(created_position) FROM {tables.entries.name}", {})[0][0]
    return int(found or 0)


def _scope_sql(tables: DomainTables, holder: str | None, at: int | None) -> str:
    """` AND …` limiting `e` (the entries) to what `holder` holds, as of position `at`."""
    sql = "" if at is None else " AND e.created_position <= :at"
    if holder is not None:
        bound = "" if at is None else " AND x.position <= :at"
        sql += (f" AND e.id IN (SELECT x.entry_id FROM {tables.exposure.name} AS x "
                f"WHERE x.holder = :h{bound})")
    return sql


def document_counts(conn: Connection, tables: DomainTables, dialect: str,
                    words: Iterable[str], *, at_most: int | None = None) -> dict[str, int]:
    """How many entries hold each word (by its stem): what a query word's idf is computed from.
    With `at_most`, counting stops there (a word on more entries says `at_most`): the count
    of a common word costs its whole posting list, and a caller that only needs to know
    whether a word is rarer than some bound need not pay it."""
    wanted = list(dict.fromkeys(words))
    if not wanted:
        return {}
    if at_most is not None:
        return _capped_counts(conn, tables, dialect, wanted, at_most)
    if dialect == "sqlite":
        by_stem = {stem(w): w for w in wanted}
        marks = ", ".join(f":t{i}" for i in range(len(by_stem)))
        rows = _rows(conn, f"SELECT term, doc FROM {vocabulary(tables)} WHERE term IN ({marks})",
                     {f"t{i}": s for i, s in enumerate(by_stem)})
        found = {str(r[0]): int(r[1]) for r in rows}
        return {w: found.get(stem(w), 0) for w in wanted}
    counts, doc = {}, document(conn, tables)
    for w in wanted:
        counts[w] = int(_rows(
            conn, f"SELECT count(*) FROM {tables.entries.name} WHERE {doc} @@ plainto_tsquery('english', :w)",
            {"w": w})[0][0])
    return counts


def _capped_counts(conn: Connection, tables: DomainTables, dialect: str, words: list[str],
                   at_most: int) -> dict[str, int]:
    """One statement: for each word, the rows that hold it, counted up to `at_most`."""
    clean = {w: re.sub(r"\W", "", w) for w in words}
    asked = [w for w in words if clean[w]]
    if not asked:
        return {w: 0 for w in words}
    params: dict[str, Any] = {"cap": at_most}
    parts, doc = [], document(conn, tables) if dialect != "sqlite" else ""
    for i, w in enumerate(asked):
        params[f"w{i}"] = f'"{clean[w]}"' if dialect == "sqlite" else clean[w]
        where = (f"{tables.search_name} MATCH :w{i}" if dialect == "sqlite"
                 else f"{doc} @@ plainto_tsquery('english', :w{i})")
        source = tables.search_name if dialect == "sqlite" else tables.entries.name
        parts.append(f"SELECT {i} AS i, (SELECT count(*) FROM (SELECT 1 FROM {source} WHERE {where} "
                     f"LIMIT :cap) AS c{i}) AS n")
    found = {int(r[0]): int(r[1]) for r in _rows(conn, " UNION ALL ".join(parts), params)}
    return {w: found.get(asked.index(w), 0) if w in asked else 0 for w in words}
