"""The canonical bytes of a binding act, the exact content a human's signature covers."""

from __future__ import annotations

import json
from collections.abc import Mapping

from memhall.domains.errors import InvalidValueError

ACT_TAG = ("memhall", "act-v1")
#: the largest integer every JSON reader (IEEE double) still holds exactly
MAX_EXACT_INTEGER = 2**53 - 1


def canonical_act(fields: Mapping[str, str | int | None]) -> bytes:
    """Canonical JSON of `fields` plus `"memhall": "act-v1"`, as RFC 8785 (JCS) writes it.

    One object, no whitespace, UTF-8; members sorted by the UTF-16 code units of
    their names; strings escaped as JSON.stringify does (`"`, `\\`, and control
    characters, short forms \\b \\t \\n \\f \\r, others \\u00xx; everything else
    raw); integers in decimal, within ±(2**53 - 1); None as null. Booleans,
    floats and nested values are refused, so one act has exactly one encoding.
    """
    tag, version = ACT_TAG
    if tag in fields:
        raise InvalidValueError(f"{tag!r} names the act's format and cannot be a field")
    members: dict[str, str | int | None] = {**fields, tag: version}
    for name in members:
        if not isinstance(name, str):
            raise InvalidValueError(f"an act's field names are strings, not {name!r}")
    body = ",".join(
        f"{_string(name)}:{_value(name, members[name])}"
        for name in sorted(members, key=lambda name: name.encode("utf-16-be", "surrogatepass"))
    )
    return ("{" + body + "}").encode("utf-8")


def _string(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidValueError(f"{text!r} is not valid Unicode (a lone surrogate)") from None
    return json.dumps(text, ensure_ascii=False)


def _value(name: str, value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int) and not isinstance(value, bool):
        if abs(value) > MAX_EXACT_INTEGER:
            raise InvalidValueError(f"act field {name!r}: {value} is too large to sign exactly")
        return str(value)
    raise InvalidValueError(f"act field {name!r}: {type(value).__name__} values cannot be signed "
                            "(only strings, integers and null)")


#: the state fields a signature never covers: the signature itself
UNSIGNED_FIELDS = frozenset({"signature"})


def event_act(stream: str, topic: str, state: Mapping[str, object]) -> bytes:
    """The canonical bytes of one stored event, as a human's signature covers them.

    Every field of the event's state (its id, version, time, actor, rule and
    policy digest included) as `event.NAME`, next to the stream and topic. A
    value that is not a string, an integer or null (a flag, a list, a mapping)
    is carried as its canonical JSON text: the topic fixes each field's type,
    so this stays unambiguous.
    """
    fields: dict[str, str | int | None] = {"stream": stream, "topic": topic}
    for name, value in state.items():
        if name in UNSIGNED_FIELDS:
            continue
        if value is None or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)
                                                       and abs(value) <= MAX_EXACT_INTEGER):
            fields[f"event.{name}"] = value
        else:
            fields[f"event.{name}"] = json.dumps(value, sort_keys=True, separators=(",", ":"),
                                                 ensure_ascii=False)
    return canonical_act(fields)
