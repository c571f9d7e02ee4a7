"""Rows as the SQL read models store them: a table's row encoder (`schema.to_sql` with its
work done once), and the values of many rows in one flat list, for a statement of many rows.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from itertools import chain
from operator import itemgetter
from typing import Any

from memhall.governance.projection.codec import dumps
from memhall.governance.projection.schema import JSON, TableSpec, json_text

#: (table, whether orjson was loaded) -> its encoder
_ENCODERS: dict[tuple[str, bool], Callable[[dict[str, Any]], tuple[Any, ...]]] = {}


def row_encoder(spec: TableSpec) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    """`schema.to_sql` for one table, with its column list, JSON columns and JSON encoder worked
    out once (orjson's own `dumps` once it is loaded: no call through the codec per value)."""
    loaded = sys.modules.get("orjson")
    encode = _ENCODERS.get((spec.suffix, loaded is not None))
    if encode is None:
        values_of = itemgetter(*spec.names)  # every table has several columns: a tuple comes back
        json_columns = [i for i, c in enumerate(spec.columns) if c.type == JSON]
        stored = json_of()
        if not json_columns:
            encode = values_of
        else:
            def encode(row: dict[str, Any]) -> tuple[Any, ...]:
                values = list(values_of(row))
                for i in json_columns:
                    values[i] = stored(values[i])
                return tuple(values)
        _ENCODERS[(spec.suffix, loaded is not None)] = encode
    return encode


def flat_values(spec: TableSpec, rows: Iterable[dict[str, Any]]) -> list[Any]:
    """Every row's `row_encoder` values, one row after the other, in one list: made a column at
    a time (no tuple per row, nor the list that joins them: 100k entries' rows took 0.2 s less)."""
    values: list[Any] = list(chain.from_iterable(map(itemgetter(*spec.names), rows)))
    stored = json_of()
    width = len(spec.columns)
    for i, column in enumerate(spec.columns):
        if column.type == JSON:
            values[i::width] = list(map(stored, values[i::width]))
    return values


def json_of() -> Callable[[Any], str]:
    """A JSON column's stored text of a value (orjson's own `dumps` once it is loaded: no call
    through the codec per value)."""
    loaded = sys.modules.get("orjson")
    to_json = loaded.dumps if loaded is not None else dumps

    def stored(value: Any) -> str:
        # most list columns are empty: their JSON is known
        return "[]" if type(value) is list and not value else to_json(value).decode()

    return stored


def to_sql_partial(spec: TableSpec, columns: tuple[str, ...]) -> Any:
    """Encode some columns of a row as stored (JSON as text)."""
    is_json = [spec.column(c).type == JSON for c in columns]

    def encode(values: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(json_text(v) if j and v is not None else v for v, j in zip(values, is_json))

    return encode
