"""JSON as the store keeps it: orjson's bytes, also where orjson has not been imported.

Importing orjson costs a session start about 20 ms of CPU, a seventh of its budget
(it imports dataclasses, inspect and uuid, and loads a large extension). So what the
session start reads and writes goes through here: once orjson is loaded (the main
path loads it with the event mapper) it does the work; before that, the standard
library does, but only for values whose bytes are provably orjson's — dicts with str
keys, lists, tuples, str, int in orjson's range, bool and None, nested less deep than
orjson allows (floats are not: the two spell exponents differently). Anything else
loads orjson. JSON orjson wrote decodes to equal values either way. Text that is
only decoded again (`stored=False`: a replay's rows compared as values) may hold
finite floats too, in the standard library's spelling. A property test holds the two
to the same bytes, and to the same values.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

#: the ints orjson encodes (beyond them it refuses), and how deep it nests
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1
_DEPTH = 254


def dumps(value: Any, *, stored: bool = True) -> bytes:
    """`orjson.dumps(value)`; without `stored`, JSON that decodes to what it decodes to."""
    if "orjson" not in sys.modules:
        encoded = stdlib_dumps(value, floats=not stored)
        if encoded is not None:
            return encoded
    import orjson

    return orjson.dumps(value)


def loads(data: bytes | str) -> Any:
    """`orjson.loads(data)`, for JSON orjson wrote."""
    loaded = sys.modules.get("orjson")
    return json.loads(data) if loaded is None else loaded.loads(data)


def stdlib_dumps(value: Any, *, floats: bool = False) -> bytes | None:
    """orjson's bytes for `value` by the standard library, or None where they could differ
    (with `floats`, finite floats are let through in the standard library's spelling)."""
    if not _plain(value, 0, floats):
        return None
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), check_circular=False).encode("utf-8")
    except UnicodeEncodeError:
        return None  # a lone surrogate: orjson's own error


def _plain(value: Any, depth: int, floats: bool) -> bool:
    kind = type(value)
    if value is None or kind is str or kind is bool:
        return True
    if kind is int:
        return bool(_INT_MIN <= value <= _INT_MAX)
    if kind is float:
        return floats and math.isfinite(value)
    if depth >= _DEPTH:
        return False
    if kind is list or kind is tuple:
        return all(_plain(item, depth + 1, floats) for item in value)
    if kind is dict:
        return all(type(key) is str and _plain(item, depth + 1, floats) for key, item in value.items())
    return False
