"""PostgreSQL's full-text document of an entry: the stored generated column `fulltext`
searches, and the check `audit verify` makes of it.

The column's values are PostgreSQL's to keep (a generated column cannot be written), so
what verify checks is the column itself: that it is still generated, and from the
expression this version makes it with. Someone who drops its expression and writes
documents of their own, or makes it again from another expression, hides entries from
search (or shows them where they are not) without editing a row of the log or of any
other read model. Stdlib only: `audit verify`'s process beside checks it without SQLAlchemy.
"""

from __future__ import annotations

from typing import Any

#: the document: the generated column's expression (and, in a store an earlier version made,
#: the expression of its GIN index)
DOCUMENT = ("to_tsvector('english', text || ' ' || coalesce(interpretation, '') || ' ' || "
            "people || ' ' || places || ' ' || topics)")
#: the column that holds it
COLUMN = "document"

#: whether a table has the column, as a condition of SQL (a catalog read: no lock on the table)
HAS_COLUMN_SQL = (f"EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '{{table}}'::regclass "
                  f"AND attname = '{COLUMN}' AND NOT attisdropped)")
_COLUMN_SQL = ("SELECT a.attgenerated, pg_get_expr(d.adbin, d.adrelid) FROM pg_attribute a "
               "LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
               "WHERE a.attrelid = to_regclass(%s) AND a.attname = %s AND NOT a.attisdropped")


def has_column(db: Any, entries: str) -> bool:
    """PostgreSQL: whether `entries` has the document column (a store an earlier version made
    has not, until `memhall rebuild`)."""
    return _column(db, entries) is not None


def _column(db: Any, table: str) -> tuple[str, str | None] | None:
    """Whether `table`'s document column is generated, and from what; None: it has none."""
    cursor = db.cursor()
    cursor.execute(_COLUMN_SQL, (table, COLUMN))
    found = cursor.fetchone()
    return None if found is None else (str(found[0]), found[1])


def altered(db: Any, entries: str) -> str | None:
    """PostgreSQL (a DBAPI connection, in its transaction): what is wrong with the document
    column of `entries`, or None (also when it has none: a store an earlier version made,
    searched by the expression)."""
    found = _column(db, entries)
    if found is None:
        return None
    generated, expression = found
    if generated != "s":
        return "the document column is no longer generated: its values may be anyone's"
    if expression != _expected(db, entries):
        return f"the document column is generated from another expression: {expression}"
    return None


def _expected(db: Any, entries: str) -> str:
    """The expression as PostgreSQL writes it back for columns of entries' types: that of the
    column made on an empty temporary copy of the table, dropped again."""
    cursor, scratch = db.cursor(), "mhv_document_expression"
    cursor.execute(f"DROP TABLE IF EXISTS pg_temp.{scratch}")
    cursor.execute(f"CREATE TEMP TABLE {scratch} (LIKE {entries})")
    cursor.execute(f"ALTER TABLE pg_temp.{scratch} DROP COLUMN IF EXISTS {COLUMN}")
    cursor.execute(f"ALTER TABLE pg_temp.{scratch} ADD COLUMN {COLUMN} tsvector "
                   f"GENERATED ALWAYS AS ({DOCUMENT}) STORED")
    found = _column(db, f"pg_temp.{scratch}")
    cursor.execute(f"DROP TABLE pg_temp.{scratch}")
    return str(found[1]) if found is not None else ""
